//! What one run returns. Plain data, serialisable, so the binding can hand it to Python.

use std::collections::BTreeMap;

use serde::Serialize;

/// Per-flow metrics over the measured interval `[warmup_s, duration_s]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowStats {
    pub flow: u32,
    pub start_s: f64,
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
    pub acks_sent: u64,
    pub acks_received: u64,
    pub final_cwnd_bytes: u64,
    pub final_srtt_ms: f64,
}

/// Per link and direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkStats {
    pub link: u32,
    pub name: String,
    /// "data" (server -> client) or "ack" (client -> server).
    pub direction: &'static str,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub max_queue_packets: u32,
    /// Drop reason -> count ("queue_full", "random_loss").
    pub drops: BTreeMap<String, u64>,
}

/// The radio bearer (when the scenario has one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BearerStats {
    /// SDUs dropped at the per-user downlink buffer, by reason ("buffer_full").
    pub drops: BTreeMap<String, u64>,
    /// SDUs the network-side RLC discarded after MaxDAT.
    pub sdus_discarded_maxdat: u64,
    pub max_buffer_sdus: u32,
    /// Time-average buffer occupancy over the measured interval, SDUs.
    pub mean_buffer_sdus: f64,
    pub dl_ttis_lost: u64,
    pub ul_ttis_lost: u64,
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
    /// id = 0 (the UE), value = RLC downlink buffer occupancy in SDUs, on every change.
    pub buffer: Trace,
}

impl Traces {
    /// The traces by name, consuming them (no copy on the way to Python).
    pub fn into_named(self) -> [(&'static str, Trace); 7] {
        [
            ("cwnd", self.cwnd),
            ("ssthresh", self.ssthresh),
            ("seq_sent", self.seq_sent),
            ("seq_received", self.seq_received),
            ("seq_dropped", self.seq_dropped),
            ("queue", self.queue),
            ("buffer", self.buffer),
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
    pub bearer: Option<BearerStats>,
    #[serde(skip)]
    pub traces: Option<Traces>,
}
