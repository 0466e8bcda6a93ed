//! What one run returns. Plain data, serialisable, so the binding can hand it to Python.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::flatten::{fields, Metrics};
use crate::link::{Dir, DirStats, DropReason};

/// One flow: its identity and its metrics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowStats {
    pub flow: u32,
    pub start_s: f64,
    /// A finite transfer: when its last byte reached the receiving application (NaN if it did
    /// not); `None` for unlimited flows.
    #[serde(skip)]
    pub completed_at_s: Option<f64>,
    /// Reported as `flows.<i>.<field>` (`metrics.rs`).
    #[serde(flatten)]
    pub m: FlowMetrics,
}

impl FlowStats {
    /// A record with every metric at zero (NaN for the undefined ones) for the nodes to fill.
    pub fn new(flow: u32) -> Self {
        Self {
            flow,
            start_s: 0.0,
            completed_at_s: None,
            m: FlowMetrics {
                delay_mean_ms: f64::NAN,
                delay_p50_ms: f64::NAN,
                delay_p95_ms: f64::NAN,
                delay_p99_ms: f64::NAN,
                final_srtt_ms: f64::NAN,
                ..FlowMetrics::default()
            },
        }
    }
}

/// Per-flow metrics over the measured interval `[warmup_s, duration_s]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FlowMetrics {
    /// Payload bytes delivered in order to the receiving application in the measured interval.
    pub bytes_delivered: u64,
    /// bytes_delivered * 8 / measured interval, in kbit/s (1 kbit = 1000 bit).
    pub goodput_kbps: f64,
    /// One-way delay of data segments at the TCP layer (sender transmission to arrival at the
    /// TCP receiver), for segments arriving in the measured interval; NaN if none arrived.
    pub delay_mean_ms: f64,
    pub delay_p50_ms: f64,
    pub delay_p95_ms: f64,
    pub delay_p99_ms: f64,
    pub delay_samples: u64,
    /// Counters below cover the whole run (they are rare events, the warm-up matters little).
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Retransmissions whose segment the receiver already held, or got (before or after the
    /// retransmission) in a copy sent earlier: `probe/spurious.rs`.
    pub spurious_retransmissions: u64,
    /// Timeouts whose oldest outstanding segment the receiver already held, or got in a copy
    /// sent before the timeout (a delay, not a loss); each backed-off timeout counts.
    pub spurious_timeouts: u64,
    /// Of `spurious_timeouts`: the segment's first transmission reached the receiver (it was
    /// never lost: a delay spike, a stalled ACK path).
    pub spurious_timeouts_not_lost: u64,
    /// Of `spurious_timeouts`: the first transmission was lost and a retransmission sent
    /// before the timeout (fast retransmit, partial-ACK retransmission) reached the receiver:
    /// the timer expired during loss recovery while the repair was on its way.
    pub spurious_timeouts_lost_repaired: u64,
    /// Congestion-window reductions: fast retransmits, and timeouts that found cwnd above one
    /// segment (a backed-off timeout does not reduce it again).
    pub cwnd_reductions: u64,
    /// Data segments that reached the receiver already held (capacity wasted downstream).
    pub duplicate_arrivals: u64,
    pub acks_sent: u64,
    pub acks_received: u64,
    pub final_cwnd_bytes: u64,
    pub final_srtt_ms: f64,
    /// With `flows.size_bytes`: from the flow's start to its last byte reaching the receiving
    /// application, s (NaN if the transfer did not complete); no metric for unlimited flows.
    pub completion_s: Option<f64>,
}

/// Per link and direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkStats {
    pub link: u32,
    pub name: String,
    /// "data" (server -> client) or "ack" (client -> server).
    pub direction: &'static str,
    /// Reported as `drops.<name>.<direction>.<reason>` and `links.<name>.<direction>.<field>`.
    #[serde(flatten)]
    pub m: LinkMetrics,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkMetrics {
    /// Drop reason -> count ("queue_full", "random_loss").
    pub drops: BTreeMap<String, u64>,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub max_queue_packets: u32,
    /// With a variable delay: packets that overtook one sent earlier.
    pub reordered: Option<u64>,
}

impl LinkStats {
    pub fn new(link: u32, name: &str, dir: Dir, st: &DirStats, reordered: Option<u64>) -> Self {
        Self {
            link,
            name: name.to_string(),
            direction: dir.name(),
            m: LinkMetrics {
                drops: DropReason::ALL
                    .iter()
                    .map(|r| (r.name().to_string(), st.drops[*r as usize]))
                    .collect(),
                packets_sent: st.packets_sent,
                bytes_sent: st.bytes_sent,
                max_queue_packets: st.max_queue_packets,
                reordered,
            },
        }
    }
}

/// The base-station ACK controller (when enabled); `bs.<field>` and `drops.bs.<reason>`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BsAckResult {
    /// The BS -> MH link.
    pub link: String,
    /// "already_acked": retransmissions of data the MH had acknowledged, dropped at the BS.
    pub drops: BTreeMap<String, u64>,
    pub data_in: u64,
    pub data_forwarded: u64,
    pub acks_in: u64,
    /// ACKs that left the BS queue for the FH (generated replies are in `acks_generated`).
    pub acks_sent: u64,
    pub dup_acks_in: u64,
    pub dup_acks_held: u64,
    pub dup_acks_forwarded: u64,
    pub dup_acks_dropped: u64,
    /// ACKs the BS generated in answer to already-acknowledged retransmissions.
    pub acks_generated: u64,
    pub replies_suppressed: u64,
    pub rtt_samples: u64,
    /// ACKs that waited in the BS queue, and the mean wait (ms).
    pub acks_delayed: u64,
    pub ack_delay_mean_ms: f64,
    pub max_ack_queue: u64,
    pub final_srtt_ms: f64,
}

/// The radio bearer (when the scenario has one); `bearer.<field>` and `drops.bearer.<reason>`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BearerStats {
    /// SDUs dropped at the per-user downlink buffer, by reason ("buffer_full", ...), and
    /// discarded by the RLC after MaxDAT ("rlc_maxdat").
    pub drops: BTreeMap<String, u64>,
    /// Time-average buffer occupancy over the measured interval, SDUs.
    pub mean_buffer_sdus: f64,
    pub max_buffer_sdus: u32,
    pub dl_ttis_lost: u64,
    pub ul_ttis_lost: u64,
    /// Realised downlink frame error ratio over the measured interval: TTIs whose frame the
    /// channel lost, over all TTIs (busy or not).
    pub dl_fer: f64,
    pub dl_data_pdus_sent: u64,
    pub dl_data_pdus_retransmitted: u64,
    pub ul_data_pdus_sent: u64,
    pub dl_status_pdus: u64,
    pub ul_status_pdus: u64,
    pub dl_polls: u64,
    pub mrw_procedures: u64,
    /// ACK rate/delay control: ACKs held back, and the mean time they were held (ms; 0 if
    /// none).
    pub acks_delayed: u64,
    pub ack_delay_mean_ms: f64,
}

/// The IS-707 RLP link (when the scenario has one); `rlp.<field>` and `drops.rlp.<reason>`.
/// "Forward" is IAP -> mobile host.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RlpLinkStats {
    /// "iap_full": IP packets dropped at the full IAP buffer; "aborted": forward IP packets
    /// lost because an aborted frame carried some of their octets.
    pub drops: BTreeMap<String, u64>,
    /// Time-average IAP buffer occupancy over the measured interval, packets.
    pub mean_iap_packets: f64,
    pub max_iap_packets: u32,
    /// Realised slot error rates of the two channels.
    pub fwd_fer: f64,
    pub rev_fer: f64,
    /// Forward direction (IAP sender, mobile receiver).
    pub fwd_data_frames: u64,
    pub fwd_retx_frames: u64,
    pub fwd_idle_frames: u64,
    /// NAKs the mobile sent for forward frames.
    pub fwd_naks: u64,
    pub fwd_frames_recovered: u64,
    pub fwd_frames_aborted: u64,
    pub fwd_duplicates: u64,
    /// Reverse direction (ACKs).
    pub rev_frames_aborted: u64,
    pub rev_packets_lost_to_abort: u64,
    /// Maximum TCP goodput the forward link can carry: frame payload rate x MSS / packet size
    /// (kb/s), the denominator of the normalised goodput (Bai et al.).
    pub max_goodput_kbps: f64,
}

/// The LTE cell (when the scenario has one): `lte.<field>` for the cell, `drops.lte.<reason>`,
/// and `lte.ues.<i>.<field>` per UE (`metrics.rs`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LteStats {
    /// Flows are numbered UE by UE: flow g belongs to UE g / flows_per_ue.
    pub flows_per_ue: u32,
    pub cell: LteCellStats,
    pub ues: Vec<LteUeStats>,
}

/// Cell-wide totals and means. Counters cover the whole run; goodput the measured interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LteCellStats {
    /// Downlink SDUs dropped by the per-UE buffers, by reason, and discarded by the eNB's
    /// RLC after max_retx ("rlc_discard").
    pub drops: BTreeMap<String, u64>,
    pub ues: u32,
    /// UEs of the drop that attached to a neighbour site and were drawn again.
    pub redrawn_ues: u64,
    /// Sum of the UEs' downlink goodput (kb/s) and Jain's index over the UEs.
    pub goodput_kbps: f64,
    pub fairness_jain: f64,
    /// TCP ACKs entering the UEs' uplink buffers, sent on PUSCH, and discarded by the filter.
    pub acks_in: u64,
    pub acks_sent: u64,
    pub acks_discarded: u64,
    pub acks_discarded_passive: u64,
    pub acks_discarded_active: u64,
    pub acks_discarded_cake: u64,
    pub dl_blocks: u64,
    pub ul_blocks: u64,
    pub dl_harq_retx: u64,
    pub ul_harq_retx: u64,
    pub dl_harq_given_up: u64,
    pub ul_harq_given_up: u64,
    pub srs: u64,
    pub bsrs: u64,
    pub padding_bsrs: u64,
    pub grants: u64,
    pub sr_give_ups: u64,
    pub rlc_discards: u64,
    /// Power headroom reports sent, and the fraction of new UL grants in which the UE needed
    /// more than P_CMAX (power-limited: its SINR per PRB fell below the nominal one).
    pub phrs: u64,
    pub ul_power_limited_fraction: f64,
    /// PUSCH PRBs per sector (the carrier less PUCCH), CCEs per sector and TTI (0: no PDCCH
    /// budget).
    pub pusch_prb: u32,
    pub pdcch_cces: u32,
    /// Over the measured interval and the sectors with UEs: PUSCH PRBs used / available,
    /// CCEs used / available (NaN without a PDCCH budget), the mean uplink IoT, dB.
    pub ul_prb_utilization: f64,
    pub pdcch_cce_utilization: f64,
    pub ul_iot_mean_db: f64,
    /// DCIs issued (DL: assignments, HARQ retransmissions included; UL: grants), and UEs a
    /// scheduler passed over for lack of CCEs or by the per-TTI UE cap (one per UE and TTI).
    pub dl_dcis: u64,
    pub ul_dcis: u64,
    pub dl_dci_blocked: u64,
    pub ul_dci_blocked: u64,
    pub dl_ue_cap_blocked: u64,
    pub ul_ue_cap_blocked: u64,
    /// Means over UEs (NaN-free UEs only) of the per-UE values of the same name.
    pub dl_mean_mcs: f64,
    pub dl_bler: f64,
    pub ul_bler: f64,
    pub t_opt_mean: f64,
    pub ul_ack_delay_mean_ms: f64,
    pub mean_buffer_sdus: f64,
}

impl LteCellStats {
    pub fn add(&mut self, u: &LteUeStats) {
        self.acks_in += u.acks_in;
        self.acks_sent += u.acks_sent;
        self.acks_discarded += u.acks_discarded;
        self.acks_discarded_passive += u.acks_discarded_passive;
        self.acks_discarded_active += u.acks_discarded_active;
        self.acks_discarded_cake += u.acks_discarded_cake;
        self.dl_blocks += u.dl_blocks;
        self.ul_blocks += u.ul_blocks;
        self.dl_harq_retx += u.dl_harq_retx;
        self.ul_harq_retx += u.ul_harq_retx;
        self.dl_harq_given_up += u.dl_harq_given_up;
        self.ul_harq_given_up += u.ul_harq_given_up;
        self.srs += u.srs;
        self.bsrs += u.bsrs;
        self.padding_bsrs += u.padding_bsrs;
        self.grants += u.grants;
        self.sr_give_ups += u.sr_give_ups;
        self.rlc_discards += u.rlc_discards;
        self.phrs += u.phrs;
    }

    /// The means over UEs.
    pub fn finish_means(&mut self, ues: &[LteUeStats]) {
        let mean = |f: &dyn Fn(&LteUeStats) -> f64| {
            let v: Vec<f64> = ues.iter().map(f).filter(|x| x.is_finite()).collect();
            if v.is_empty() {
                f64::NAN
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        self.dl_mean_mcs = mean(&|u| u.dl_mean_mcs);
        self.dl_bler = mean(&|u| u.dl_bler);
        self.ul_bler = mean(&|u| u.ul_bler);
        self.t_opt_mean = mean(&|u| u.t_opt as f64);
        self.ul_ack_delay_mean_ms = mean(&|u| u.ul_ack_delay_mean_ms);
        self.mean_buffer_sdus = mean(&|u| u.mean_buffer_sdus);
    }
}

/// One UE of the LTE cell.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LteUeStats {
    pub ue: u32,
    /// Serving sector of the centre site (0, 1, 2).
    pub sector: u32,
    /// Position (m, the serving site at the origin; NaN when SINRs were given per UE).
    pub x_m: f64,
    pub y_m: f64,
    pub distance_m: f64,
    /// Mean wideband SINR, dB: downlink (offset included), uplink per PRB.
    pub dl_sinr_db: f64,
    pub ul_sinr_db: f64,
    /// Downlink goodput of the UE's flows over the measured interval, kb/s.
    pub goodput_kbps: f64,
    /// Mean MCS and TBS (octets) of its new downlink blocks.
    pub dl_mean_mcs: f64,
    pub dl_mean_tbs_bytes: f64,
    /// Eq. (1)'s S_TBS: the whole-band TBS at its MCS, averaged over the TTIs it had data.
    pub s_tbs_bytes: f64,
    /// Hybrid(opt)'s threshold at the end of the run (1 for other schemes).
    pub t_opt: u32,
    pub dl_blocks: u64,
    /// Failed transmissions over all transmissions (first and HARQ retransmissions).
    pub dl_bler: f64,
    pub dl_harq_retx: u64,
    pub dl_harq_given_up: u64,
    pub ul_mean_mcs: f64,
    pub ul_blocks: u64,
    pub ul_bler: f64,
    pub ul_harq_retx: u64,
    pub ul_harq_given_up: u64,
    /// TCP ACKs into the uplink buffer (and how many were duplicates), sent, discarded.
    pub acks_in: u64,
    pub dup_acks_in: u64,
    pub acks_sent: u64,
    pub acks_discarded: u64,
    pub acks_discarded_passive: u64,
    pub acks_discarded_active: u64,
    pub acks_discarded_cake: u64,
    /// From the TCP receiver sending an ACK to the eNB's RLC delivering it (measured
    /// interval), ms.
    pub ul_ack_delay_mean_ms: f64,
    pub srs: u64,
    pub bsrs: u64,
    pub padding_bsrs: u64,
    pub grants: u64,
    pub sr_give_ups: u64,
    /// DCI aggregation level (CCEs), PHRs sent, the power headroom at one PRB (dB; NaN when
    /// not modelled), and the fraction of its new UL grants that were power-limited.
    pub aggregation_level: u8,
    pub phrs: u64,
    pub ul_headroom_db: f64,
    pub ul_power_limited_fraction: f64,
    /// TTIs in which a scheduler passed this UE over for lack of CCEs or by the per-TTI UE
    /// cap (downlink, uplink).
    pub dl_dci_blocked: u64,
    pub ul_dci_blocked: u64,
    pub dl_rlc_retransmitted: u64,
    pub ul_rlc_retransmitted: u64,
    pub rlc_discards: u64,
    /// The downlink buffer (SDUs queued or held by the eNB's RLC): time average over the
    /// measured interval and maximum.
    pub mean_buffer_sdus: f64,
    pub max_buffer_sdus: u32,
}

/// One time series: sample times, an entity id (flow or link index) and a value.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Trace {
    pub time_s: Vec<f64>,
    pub id: Vec<u32>,
    pub value: Vec<f64>,
}

impl Trace {
    #[inline]
    pub fn push(&mut self, time_s: f64, id: u32, value: f64) {
        self.time_s.push(time_s);
        self.id.push(id);
        self.value.push(value);
    }
}

/// Traces recorded only on request. Names are the keys Python sees.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Traces {
    /// id = flow, value = cwnd in bytes, on every change.
    pub cwnd: Trace,
    /// id = flow, value = ssthresh in bytes, on every change.
    pub ssthresh: Trace,
    /// id = flow, value = first byte of every data segment sent (retransmissions included).
    pub seq_sent: Trace,
    /// id = flow, value = first byte of every data segment arriving at the receiver.
    pub seq_received: Trace,
    /// id = flow, value = first byte of every data segment dropped anywhere.
    pub seq_dropped: Trace,
    /// id = link, value = packets waiting in the data-direction queue, on every change.
    pub queue: Trace,
    /// id = 0 (the UE), value = RLC downlink buffer occupancy in SDUs, on every change; with
    /// an RLP link, the IAP buffer occupancy in packets.
    pub buffer: Trace,
    /// id = flow, value = the sender's retransmission timeout in ms, on every change.
    pub rto: Trace,
    /// id = flow, value = min(cwnd, advertised window) in bytes, on every change: what the
    /// sender may have in flight (cwnd alone keeps growing while the receiver limits it).
    pub window: Trace,
    /// id = flow, value = the cumulative ACK number, at every ACK reaching the sender.
    pub ack_received: Trace,
    /// id = flow, value = cumulative cwnd reductions (fast retransmits + timeouts), on change.
    pub cwnd_reductions: Trace,
    /// id = flow, value = bytes delivered in order (RCV.NXT), at every in-order delivery.
    pub delivered: Trace,
    /// id = 0, value = ACKs waiting in the base station's ACK queue, on change.
    pub ack_queue: Trace,
}

impl Traces {
    /// The traces by name, consuming them (no copy on the way to Python).
    pub fn into_named(self) -> [(&'static str, Trace); 13] {
        [
            ("cwnd", self.cwnd),
            ("ssthresh", self.ssthresh),
            ("seq_sent", self.seq_sent),
            ("seq_received", self.seq_received),
            ("seq_dropped", self.seq_dropped),
            ("queue", self.queue),
            ("buffer", self.buffer),
            ("rto", self.rto),
            ("window", self.window),
            ("ack_received", self.ack_received),
            ("cwnd_reductions", self.cwnd_reductions),
            ("delivered", self.delivered),
            ("ack_queue", self.ack_queue),
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    pub seed: u64,
    pub run_index: u64,
    pub duration_s: f64,
    pub measured_s: f64,
    /// Events taken off the event queue (stale timer events included).
    pub events: u64,
    pub flows: Vec<FlowStats>,
    pub links: Vec<LinkStats>,
    /// The access network's own statistics, filled by its node's `finish` (serialised under
    /// the variant's name: `bearer`, `rlp`, `lte`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub access: Option<AccessStats>,
    pub bs_ack: Option<BsAckResult>,
    #[serde(skip)]
    pub traces: Option<Traces>,
    /// Set when the run ended early by its budget (`RunOptions::max_events`, the caller's
    /// check): the statistics cover `[0, duration_s]` with `duration_s` the time reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub halted: Option<Halt>,
    /// The pcap files written (`RunOptions::pcap`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pcap: Vec<CaptureFile>,
}

/// Why a run ended before its configured duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Halt {
    /// The event budget (`max_events`) was used up.
    MaxEvents,
    /// The caller's wall-time budget was used up.
    MaxWallTime,
}

/// A file written by a capture.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CaptureFile {
    pub point: String,
    pub path: std::path::PathBuf,
    pub packets: u64,
}

/// Jain's fairness index (sum x)^2 / (n sum x^2); NaN for no flows or all-zero goodput.
pub fn jain(x: &[f64]) -> f64 {
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 <= 0.0 {
        return f64::NAN;
    }
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * s2)
}

/// What an access network reports: one variant per kind, the one place in the results that
/// names the kinds. The variant's serde name is the prefix of its flat metrics
/// (`bearer.<field>`, `drops.bearer.<reason>`; `lte.ues.<i>.<field>` per UE).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum AccessStats {
    #[serde(rename = "bearer")]
    Umts(BearerStats),
    #[serde(rename = "rlp")]
    Rlp(RlpLinkStats),
    /// Boxed: a cell's statistics are much larger than the others'.
    #[serde(rename = "lte")]
    Lte(Box<LteStats>),
    /// The NR cell: the LTE cell's statistics (same names, same meaning) and NR's own.
    #[serde(rename = "nr")]
    Nr(Box<NrStats>),
}

/// The NR cell (`nr.<field>`, `nr.ues.<i>.<field>`): the fields it shares with the LTE cell
/// and the configured-grant counters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NrStats {
    pub cell: LteStats,
    pub nr: NrExtraStats,
}

/// What only the NR cell counts, over the measured interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NrExtraStats {
    /// Configured-grant occasions (per UE and occasion) and the blocks sent on them.
    pub configured_grant_occasions: u64,
    pub configured_grant_blocks: u64,
    /// HARQ retransmissions that waited for a later slot (no DCI or PRBs at their time).
    pub dl_harq_retx_postponed: u64,
    pub ul_harq_retx_postponed: u64,
    /// Uplink retransmissions' DCIs (NR has no PHICH; also counted in `ul_dcis`).
    pub ul_retx_dcis: u64,
    /// Adaptive retransmissions on a width other than their previous transmission's.
    pub harq_retx_resized: u64,
}

impl AccessStats {
    /// The prefix of the kind's metrics.
    pub fn prefix(&self) -> &'static str {
        match self {
            AccessStats::Umts(_) => "bearer",
            AccessStats::Rlp(_) => "rlp",
            AccessStats::Lte(_) => "lte",
            AccessStats::Nr(_) => "nr",
        }
    }

    /// A cell's statistics (LTE or NR).
    pub fn cell(&self) -> Option<&LteStats> {
        match self {
            AccessStats::Lte(l) => Some(l),
            AccessStats::Nr(n) => Some(&n.cell),
            _ => None,
        }
    }

    /// Fill in what needs the flows, once every node has reported: an LTE cell's per-UE and
    /// cell goodput and fairness (`host_of_flow` names the UE host of a flow; UE u is host
    /// u + 1).
    pub fn with_flows(&mut self, flows: &[FlowStats], host_of_flow: impl Fn(u32) -> u32) {
        let cell = match self {
            AccessStats::Lte(l) => Some(l.as_mut()),
            AccessStats::Nr(n) => Some(&mut n.cell),
            _ => None,
        };
        if let Some(l) = cell {
            for f in flows {
                let u = host_of_flow(f.flow) as usize - 1;
                if let Some(ue) = l.ues.get_mut(u) {
                    ue.goodput_kbps += f.m.goodput_kbps;
                }
            }
            let g: Vec<f64> = l.ues.iter().map(|u| u.goodput_kbps).collect();
            l.cell.goodput_kbps = g.iter().sum();
            l.cell.fairness_jain = jain(&g);
        }
    }

    /// The kind's flat metrics: its drops by reason (reported as `drops.<prefix>.<reason>`
    /// and counted in the total `drops`), then in order the metrics that need the flows'
    /// goodput (`goodput_kbps`: their sum), the `<prefix>.<field>` section, per-entity
    /// metrics.
    pub fn flat_metrics(&self, goodput_kbps: f64) -> AccessMetrics {
        let p = self.prefix();
        let (nums, drops) = match self {
            AccessStats::Umts(b) => fields(b),
            AccessStats::Rlp(l) => fields(l),
            AccessStats::Lte(l) => fields(&l.cell),
            AccessStats::Nr(n) => {
                let (mut nums, drops) = fields(&n.cell.cell);
                nums.extend(fields(&n.nr).0);
                (nums, drops)
            }
        };
        let mut m = AccessMetrics {
            drops,
            ..AccessMetrics::default()
        };
        if let AccessStats::Rlp(l) = self {
            // Bai et al.'s y axis: goodput over the link's maximum TCP goodput.
            m.rest.push((
                "normalised_goodput".into(),
                goodput_kbps / l.max_goodput_kbps,
            ));
        }
        m.rest
            .extend(nums.into_iter().map(|(k, v)| (format!("{p}.{k}"), v)));
        if let Some(l) = self.cell() {
            for u in &l.ues {
                for (k, v) in fields(u).0 {
                    m.rest.push((format!("{p}.ues.{}.{k}", u.ue), v));
                }
            }
        }
        m
    }
}

/// [`AccessStats::flat_metrics`]: the drops by reason (unprefixed) and the rest.
#[derive(Debug, Default)]
pub struct AccessMetrics {
    pub drops: Metrics,
    pub rest: Metrics,
}

impl RunResult {
    /// The UMTS bearer's statistics, if the access is one.
    pub fn bearer(&self) -> Option<&BearerStats> {
        match &self.access {
            Some(AccessStats::Umts(b)) => Some(b),
            _ => None,
        }
    }

    /// The IS-707 RLP link's statistics, if the access is one.
    pub fn rlp(&self) -> Option<&RlpLinkStats> {
        match &self.access {
            Some(AccessStats::Rlp(l)) => Some(l),
            _ => None,
        }
    }

    /// The LTE cell's statistics, if the access is one.
    pub fn lte(&self) -> Option<&LteStats> {
        match &self.access {
            Some(AccessStats::Lte(l)) => Some(l.as_ref()),
            _ => None,
        }
    }

    /// The NR cell's statistics, if the access is one.
    pub fn nr(&self) -> Option<&NrStats> {
        match &self.access {
            Some(AccessStats::Nr(n)) => Some(n.as_ref()),
            _ => None,
        }
    }
}
