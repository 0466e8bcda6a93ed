//! The LTE access node: one LTE-A Pro site of three sectors serving N UEs (Ohta et al., CSCN
//! 2018; model-specs §4; lte-cell.md; docs/models/lte-cell.md). It drives the sans-IO LTE
//! entities once per 1 ms TTI:
//!
//! ```text
//! wired --> [eNB: per-UE DL buffer -> RLC] --PF, PDSCH, HARQ--> [UE RLC] --> UE host
//! wired <-- [eNB RLC] <--PUSCH n+4, HARQ-- [UE RLC <- ACK filter] <-- UE host's ACKs
//!                       <--SR / BSR, grant at n----'
//! ```
//!
//! Per TTI n and sector: downlink HARQ retransmissions due at n keep their PRBs, the PF
//! scheduler shares the rest among the UEs with downlink data; the uplink blocks built at
//! n − 4 go out on PUSCH; the eNB grants PUSCH resources for n + 4 among the UEs it believes
//! have data (BSR minus grants, or an SR answered `sr_grant_delay_tti` after it was sent),
//! minus the PRBs of the synchronous HARQ retransmissions at n + 4, and each granted UE
//! assembles its block at once (the grant-triggered ACK discard, RLC, a BSR); then the UEs
//! without a grant run their MAC (SR on their PUCCH opportunity, ideal BSR in the ns-3 mode).
//! A transport block's fate is drawn when it is sent (BLER at its MCS and the SINR of that
//! TTI, Chase combining over its transmissions); a decoded block reaches the peer RLC at
//! n + 1, and HARQ feedback at n + 4 frees its process or schedules the retransmission at
//! n + 8 (model-specs §4.1).
//!
//! Work per TTI grows with the UEs that have something to do (data, a pending SR, a HARQ
//! event, a timer), never with all UEs, and nothing allocates once the scratch vectors, the
//! transport-block pool and the per-TTI rings have grown.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::sync::Arc;

use crate::ack::filter::{is_pure_ack, AckFilter, TOptRule, S_HEADER_BYTES};
use crate::config::{self, LteConfig, ScenarioConfig};
use crate::engine::{stream, to_millis, to_secs, RngStream, Time};
use crate::net::host_of_flow;
use crate::packet::{HostId, Packet};
use crate::probe::Occupancy;
use crate::queue::{BufferDiscipline, BufferDrop, Verdict};
use crate::radio::cell::{Rat, TbKind};
use crate::radio::lte::fading::Fading;
use crate::radio::lte::geometry::{
    drop_ues_by_sector, ul_full_load_inr, UePlacement, N_SITES, PRB_HZ, SECTORS_PER_SITE,
    THERMAL_NOISE_DBM_PER_HZ,
};
use crate::radio::lte::harq::{Feedback, Harq};
use crate::radio::lte::pdcch::{aggregation_level, DciBudget};
use crate::radio::lte::power::{
    ph_from_index, ph_index, PhrEntity, PhrParams, PuschPower, PHR_BYTES,
};
use crate::radio::lte::rlc::{Chunk, LteRlcEntity};
use crate::radio::lte::sched::{Allocation, Candidate, PfScheduler, UlScheduler};
use crate::radio::lte::ul_mac::{UeUlMac, UlMacParams, SHORT_BSR_BYTES};
use crate::radio::{db_to_lin, lin_to_db, TxOpportunity};
use crate::results::{
    AccessStats, LteCellStats, LteStats, LteUeStats, NrExtraStats, NrStats, RunResult,
};

use super::{Ctx, NodeEvent};

/// Stream codes of the LTE cell ([`stream::wide`], declared with the others in `engine`).
use stream::{LTE_CELL as STREAM_CELL, LTE_UE as STREAM_UE};
/// Sub-streams of a UE.
const SUB_DL_FADING: u8 = 0;
const SUB_UL_FADING: u8 = 1;
const SUB_DL_DECODE: u8 = 2;
const SUB_UL_DECODE: u8 = 3;
const SUB_BUFFER: u8 = 4;

/// Per-TTI rings: longer than the furthest event scheduled ahead (LTE: a retransmission at
/// n + 8; NR: K1 or K2 of at most 32 slots plus a TDD pattern's wait).
const RING: usize = 64;
/// Each UE's grants by PUSCH TTI, the last 16: longer than the furthest grant ahead (LTE's
/// n + 4; NR's K2 plus a TDD wait, kept below 16 by the configuration). A BSR's correction
/// (`granted_after`) sees only these.
const GRANT_RING: usize = 16;
/// Time constant of the site's PUSCH utilisation mirrored as the neighbours' load, TTIs.
const UL_LOAD_TC: f64 = 100.0;
/// Monte-Carlo UEs per site for the uplink interference at full load.
const UL_INR_SAMPLES_PER_SITE: usize = 300;

#[derive(Debug, Clone)]
pub enum LteEvent {
    Tti,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    Dl,
    Ul,
}

/// A transport block in a HARQ process: the RLC chunks it carries and what its decoding
/// depends on.
#[derive(Debug, Default)]
struct Tb {
    ue: u32,
    chunks: Vec<Chunk>,
    mcs: u8,
    /// PRBs of its current transmission (an adaptive retransmission may change them).
    n_prb: u32,
    /// Resource elements of its first and of its current transmission (`TbsTable::
    /// re_per_prb` units); they differ only for NR retransmissions.
    re_first: u32,
    re: u32,
    /// Σ linear SINR over its transmissions (Chase combining, lte-cell.md §2.4), each
    /// weighted by its resource elements over the first's.
    sinr_sum: f64,
    /// The last transmission was decoded.
    decoded: bool,
    /// The BSR it carries (uplink).
    bsr: Option<u8>,
    /// The power headroom level it reports (uplink).
    phr: Option<u8>,
    /// TTI of its first transmission.
    built: u64,
    /// Transmissions so far.
    tx: u32,
    /// Its size, octets.
    bytes: u32,
}

/// Transport blocks by index, recycled: a block's chunk vector keeps its capacity.
#[derive(Default)]
struct TbPool {
    tbs: Vec<Tb>,
    free: Vec<u32>,
}

impl TbPool {
    fn alloc(&mut self, ue: u32, mcs: u8, n_prb: u32, re: u32, bytes: u32) -> u32 {
        let i = self.free.pop().unwrap_or_else(|| {
            self.tbs.push(Tb::default());
            (self.tbs.len() - 1) as u32
        });
        let tb = &mut self.tbs[i as usize];
        tb.ue = ue;
        tb.chunks.clear();
        tb.mcs = mcs;
        tb.n_prb = n_prb;
        tb.re_first = re;
        tb.re = re;
        tb.sinr_sum = 0.0;
        tb.decoded = false;
        tb.bsr = None;
        tb.phr = None;
        tb.tx = 0;
        tb.bytes = bytes;
        i
    }

    fn release(&mut self, i: u32) {
        self.free.push(i);
    }
}

/// Per-TTI work lists, indexed by TTI mod [`RING`].
#[derive(Default)]
struct Rings {
    /// (link, ue, HARQ process) whose feedback is due.
    feedback: Vec<Vec<(Link, u32, u8)>>,
    /// (link, ue, HARQ process) whose retransmission is due.
    retx: Vec<Vec<(Link, u32, u8)>>,
    /// Decoded blocks to hand to the peer RLC.
    deliver: Vec<Vec<(Link, u32)>>,
    /// Uplink blocks built at their grant (n − 4), to be sent on PUSCH: (UE, block).
    pusch: Vec<Vec<(u32, u32)>>,
    /// UEs whose SR is answered (they become uplink candidates).
    sr_answer: Vec<Vec<u32>>,
}

impl Rings {
    fn new() -> Self {
        fn ring<T>() -> Vec<Vec<T>> {
            (0..RING).map(|_| Vec::new()).collect()
        }
        Self {
            feedback: ring(),
            retx: ring(),
            deliver: ring(),
            pusch: ring(),
            sr_answer: ring(),
        }
    }
}

#[inline]
fn slot(tti: u64) -> usize {
    (tti % RING as u64) as usize
}

#[inline]
fn gslot(tti: u64) -> usize {
    (tti % GRANT_RING as u64) as usize
}

/// One UE: its radio, the eNB's per-UE state and the UE's own stack.
///
/// In declared order, cache-line aligned: the fields the per-slot scans read of every listed
/// UE (the downlink's backlog and fresh MCS, the uplink's need and grant checks, the MAC's
/// list) come first, four lines, and the bulky entities after them; in Rust's own order they
/// were spread over the struct's 48 lines, several per UE and slot (callgrind's cache
/// simulation, perf).
#[repr(C, align(64))]
struct Ue {
    // eNB side, downlink: the scan's fields.
    /// SDUs waiting in front of the RLC, with their arrival time.
    dl_queue: VecDeque<(Packet, Time)>,
    dl_queue_bytes: u64,
    /// Per link, the newest reportable TTI (n − cqi_delay) from which a later report than
    /// `cqi`'s applies: until then the report stands without working it out again.
    cqi_next: [u64; 2],
    /// Per link, the last MCS chosen plus one: where the next threshold search starts.
    mcs_hint: [u8; 2],
    /// The downlink's `mcs_hint` still answers: neither its report nor its outer loop has
    /// changed since (its SINR has no other input; the uplink's also has the width and IoT).
    dl_mcs_fresh: bool,
    in_dl_active: bool,
    /// CCEs of this UE's DCIs (aggregation level).
    al: u8,
    in_ul_active: bool,
    sr_answered: bool,
    in_mac_active: bool,
    // Link adaptation.
    /// The latest CQI report per link: its TTI and the SINR it measured (linear, mean x
    /// fading then, before the outer loop).
    cqi: [(Option<u64>, f64); 2],
    /// Hybrid(opt): Σ whole-band TBS over the TTIs the UE had downlink data (eq. (1)'s
    /// S_TBS).
    s_tbs_sum: f64,
    /// Their count, as a float: it is read once per UE and TTI in a division, and u64 -> f64
    /// is a multi-instruction sequence on baseline x86-64. Whole numbers below 2^53 are exact
    /// in an f64, so the quotient is the one the integer count gave.
    s_tbs_n: f64,
    // eNB side, uplink: what it believes the UE has; the UE side's MAC bookkeeping.
    ul_need: u64,
    sector: usize,
    /// Power headroom at one PRB as a PRB count (an M-PRB grant is power-limited beyond it),
    /// and what the eNB believes from the last PHR; infinite when unknown or not modelled.
    ul_h: f64,
    ul_h_est: f64,
    mac_tti: Option<u64>,
    t_opt: u32,
    /// An SR is on its way to being answered.
    sr_waiting: bool,
    /// The uplink buffer (filter or RLC) may have changed since the MAC last saw it.
    mac_dirty: bool,
    /// Mean SINR (downlink, uplink) and the outer-loop offsets, linear: link adaptation and
    /// decoding work in the linear domain, so that a TTI takes no logarithm per UE. The
    /// uplink's is the signal over noise per PRB; the sector's IoT divides it per TTI.
    mean_lin: [f64; 2],
    olla_lin: [f64; 2],
    /// Timer registered in the node's heap (the earliest not yet fired).
    timer_at: Option<Time>,
    /// Outer-loop offsets on the reported SINR, dB (downlink, uplink).
    olla_db: [f64; 2],
    // The entities.
    dl_harq: Harq<u32>,
    ul_harq: Harq<u32>,
    mac: UeUlMac,
    phr: Option<PhrEntity>,
    granted: [(u64, u32); GRANT_RING],
    filter: AckFilter,
    enb_rlc: LteRlcEntity,
    ue_rlc: LteRlcEntity,
    dl_fading: Fading,
    ul_fading: Fading,
    dl_rng: RngStream,
    ul_rng: RngStream,
    discipline: BufferDiscipline,
    // The geometry (read when the cell is built and for the statistics).
    /// Coupling loss to the serving sector, dB (the path loss power control compensates;
    /// NaN when SINRs were given per UE).
    pl_db: f64,
    x_m: f64,
    y_m: f64,
    distance_m: f64,
    /// Mean wideband SINR, dB (offset applied), downlink and uplink (per PRB when not
    /// power-limited, SC-FDMA loss included, interference not: see `Ue::mean_lin`).
    dl_sinr_db: f64,
    ul_sinr_db: f64,
    st: UeCounters,
    occupancy: Occupancy,
    /// A line of padding, so that a UE is an odd number of cache lines (51 today) and the UEs'
    /// hot lines fall in different sets of the 8-way L1 cache (a stride of 48 lines sent every
    /// UE's first line to the same 4 of its 64 sets). Checked below at compile time.
    _spread: [u8; 64],
}

// The stride of the UEs' hot lines must be odd in cache lines (see `Ue::_spread`): add or
// remove the padding line when the struct grows.
const _: () =
    assert!(std::mem::size_of::<Ue>() % 64 == 0 && (std::mem::size_of::<Ue>() / 64) % 2 == 1);

#[derive(Default)]
struct UeCounters {
    dl_mcs_sum: u64,
    dl_tbs_sum: u64,
    dl_new_tbs: u64,
    dl_tx: u64,
    dl_tx_failed: u64,
    ul_mcs_sum: u64,
    ul_new_tbs: u64,
    ul_tx: u64,
    ul_tx_failed: u64,
    grants: u64,
    ul_power_limited: u64,
    /// TTIs in which a scheduler passed the UE over for lack of CCEs or by the UE cap
    /// (downlink, uplink).
    dci_blocked: [u64; 2],
    padding_bsrs: u64,
    buffer_drops: [u64; BufferDrop::ALL.len()],
    acks_at_enb: u64,
    ack_delay_sum: Time,
}

impl Ue {
    /// Octets the DL scheduler sees: RLC's own needs and the SDUs queued in front of it with
    /// their PDCP and RLC overhead, plus one MAC subheader.
    fn dl_backlog(&self, per_sdu: u32, mac: u32) -> u64 {
        let rlc = self.enb_rlc.buffer_status();
        let queued = self.dl_queue_bytes + per_sdu as u64 * self.dl_queue.len() as u64;
        if rlc + queued == 0 {
            0
        } else {
            rlc + queued + mac as u64
        }
    }

    /// Octets the UE reports in a BSR: its filter's queue (with L2 overhead) and its RLC.
    fn ul_buffered(&self) -> u64 {
        self.filter.queued_bytes() + self.ue_rlc.buffer_status()
    }

    /// Whether the UE has anything for the uplink (`ul_buffered() > 0`, cheaply).
    fn ul_pending(&self) -> bool {
        !self.filter.is_empty() || self.ue_rlc.has_data_to_send()
    }

    /// Bytes granted for PUSCH TTIs after `tti` (in flight when a BSR sent at `tti` was
    /// built, so already counted in it).
    fn granted_after(&self, tti: u64) -> u64 {
        self.granted
            .iter()
            .filter(|(t, _)| *t > tti)
            .map(|&(_, b)| b as u64)
            .sum()
    }

    fn dl_sdus(&self) -> usize {
        self.dl_queue.len() + self.enb_rlc.sdus_queued()
    }

    /// The downlink MCS that `LteNode::mcs` answers when nothing is to be worked out: the
    /// report still stands at `newest` (the newest reportable slot) and neither it nor the
    /// outer loop has changed since the last MCS. Inline, so that most candidates of a slot
    /// make no call.
    #[inline]
    fn fresh_dl_mcs(&self, newest: u64) -> Option<u8> {
        (self.dl_mcs_fresh && self.cqi[0].0.is_some() && newest < self.cqi_next[0])
            .then(|| self.mcs_hint[0].saturating_sub(1))
    }
}

/// The site's three sectors: their schedulers and who is active in each.
struct Sector {
    dl: PfScheduler,
    ul: UlScheduler,
    /// UEs with downlink data, in UE order.
    dl_active: Vec<u32>,
    /// UEs the eNB believes have uplink data or whose SR is answered, in UE order.
    ul_active: Vec<u32>,
    /// Uplink interference at full load over noise, per PRB, linear, and the IoT this TTI.
    ul_inr_full: f64,
    iot_lin: f64,
    /// CCEs left this TTI, and UEs with a DL assignment / UL grant so far this TTI.
    cce_left: u32,
    dl_ues: u32,
    ul_ues: u32,
    /// PUSCH PRBs transmitted this TTI.
    ul_prb_now: u32,
    has_ues: bool,
}

/// The PDCCH and uplink counters of the cell (issue 22).
#[derive(Default)]
struct CellCounters {
    dl_dcis: u64,
    ul_dcis: u64,
    dl_dci_blocked: u64,
    ul_dci_blocked: u64,
    dl_ue_cap_blocked: u64,
    ul_ue_cap_blocked: u64,
    /// Over the measured interval, summed over the sectors with UEs: CCEs used and
    /// available, PUSCH PRBs used and available, and the IoT (dB) per sector and TTI.
    cce_used: u64,
    cce_avail: u64,
    ul_prb_used: u64,
    ul_prb_avail: u64,
    iot_db_sum: f64,
    iot_n: u64,
}

pub struct LteNode {
    rat: Rat,
    cqi_delay: u64,
    cqi_period: u64,
    olla_step_db: f64,
    /// The 10 % BLER thresholds of the MCS, linear (downlink, uplink).
    mcs_threshold_lin: [Vec<f64>; 2],
    /// The whole band's downlink TBS at each MCS, octets (eq. (1)'s S_TBS samples).
    whole_band_tbs: Vec<u32>,
    ul_fixed_mcs: Option<u8>,
    /// The UEs' PUSCH power control (36.213 §5.1.1.1), for the headroom they report.
    pc: PuschPower,
    /// What each of the 64 power headroom levels reads as, linear (36.133 Table 9.1.8.4-1
    /// through `ph_from_index`): the same `db_to_lin` once per level, not a `pow` per PHR.
    ph_lin: [f64; 64],
    /// Uplink interference: `Some(load)` fixed, `None` mirrored from the site's EWMA; and
    /// whether it follows load at all (else each sector's IoT is the constant one).
    neighbour_load: Option<f64>,
    load_iot: bool,
    ul_load_ewma: f64,
    /// The UE caps per sector and TTI, the order of DCIs (the CCE budget, PUSCH PRBs and
    /// per-block MAC header are the RAT's: `rat`).
    max_dl_ues: u32,
    max_ul_ues: u32,
    ul_first: bool,
    cst: CellCounters,
    /// Scratch: the PDCCH budget a scheduler draws from.
    budget: DciBudget,
    ideal_bsr: bool,
    sr_grant_delay: u64,
    sr_grant_bytes: u32,
    /// PDCP header + one LI: what an SDU adds in the DL scheduler's estimate.
    per_sdu: u32,
    t_opt_rule: TOptRule,
    hybrid_opt: bool,
    /// Hybrid(opt), per UE: the S_TBS range over which T_opt stays the UE's `t_opt`
    /// (`TOptRule::t_opt_span`); empty until the first sample. Beside the UEs, as `mac_wake`,
    /// so that the UE keeps its cache-line layout.
    t_opt_span: Vec<(f64, f64)>,
    /// UE u is host `first_host + u`; flows are numbered UE by UE, `flows_per_ue` each.
    first_host: HostId,
    flows_per_ue: u32,
    ues: Vec<Ue>,
    sectors: Vec<Sector>,
    pool: TbPool,
    rings: Rings,
    timers: BinaryHeap<Reverse<(Time, u32)>>,
    /// UEs whose UE-side MAC must run this TTI (data buffered or an SR pending).
    mac_active: Vec<u32>,
    /// Per UE, the first slot at which `run_macs` must look at it: 0 once its uplink buffer
    /// may have changed (`mac_dirty` set), else where its MAC stops being idle
    /// (`UeUlMac::busy_from`). Beside the UEs, so that the scan over the listed UEs, most of
    /// them idle, reads one compact vector instead of three cache lines of each UE (perf).
    mac_wake: Vec<u64>,
    // Scratch, reused every TTI.
    cands: Vec<Candidate>,
    allocs: Vec<Allocation>,
    packets: Vec<Packet>,
    dl_retx_now: Vec<u32>,
    /// UEs with an uplink retransmission at the PUSCH slot being granted.
    ul_retx_at_target: Vec<u32>,
    targets: Vec<u64>,
    /// Per sector, the UEs of each configured-grant phase.
    cg_by_phase: Vec<Vec<Vec<u32>>>,
    nr_st: NrExtraStats,
    redrawn: usize,
}

impl LteNode {
    /// The cell a configuration describes; UE u is host `first_host + u`. The drop uses the
    /// cell's stream, every UE its own sub-streams (fading, decoding, buffer discipline).
    pub fn from_config(
        cfg: &ScenarioConfig,
        c: &LteConfig,
        rat: Rat,
        first_host: HostId,
        seed: u64,
        run: u64,
    ) -> Self {
        let n = c.ues as usize;
        let cell = rat.cell.clone();
        let ue_rng =
            |u: usize, sub: u8| RngStream::new(seed, run, stream::wide(STREAM_UE, u as u64, sub));
        // Positions and mean SINR: a Case-1 drop, or the SINRs the configuration lists.
        let per_sector: Option<[u32; SECTORS_PER_SITE]> = c.cell.ues_per_sector.as_ref().map(|v| {
            let mut a = [0; SECTORS_PER_SITE];
            for (k, &x) in v.iter().enumerate() {
                a[k] = x;
            }
            a
        });
        // With SINRs given per UE: round robin over the sectors, or in order to fill the
        // configured counts.
        let sector_of = |u: usize| match per_sector {
            None => u % c.cell.sectors as usize,
            Some(counts) => {
                let mut left = u as u32;
                counts
                    .iter()
                    .position(|&n| {
                        let here = left < n;
                        left = left.saturating_sub(n);
                        here
                    })
                    .unwrap_or(0)
            }
        };
        let (drop_s, drop_r) = c.cell.drop_seed.map_or((seed, run), |d| (d, 0));
        let (places, redrawn): (Vec<UePlacement>, usize) = match &c.cell.ue_sinr_db {
            Some(list) => {
                let given = |u: usize, sinr_db: f64| UePlacement {
                    x: f64::NAN,
                    y: f64::NAN,
                    sector: sector_of(u),
                    distance_m: f64::NAN,
                    rx_power_prb_dbm: f64::NAN,
                    coupling_loss_db: c
                        .cell
                        .ue_coupling_loss_db
                        .as_ref()
                        .map_or(f64::NAN, |v| v[u]),
                    sinr_db,
                    shadowing_db: [f64::NAN; N_SITES],
                };
                (
                    list.iter().enumerate().map(|(u, &s)| given(u, s)).collect(),
                    0,
                )
            }
            None => {
                let mut rng = RngStream::new(drop_s, drop_r, stream::wide(STREAM_CELL, 0, 0));
                let d = drop_ues_by_sector(&cell, n, per_sector, &mut rng)
                    .expect("validated with the configuration");
                (d.ues, d.rejected)
            }
        };
        let u = &c.uplink;
        let pc = PuschPower {
            p0_dbm: u.p0_dbm,
            alpha: u.alpha,
            p_cmax_dbm: u.ue_power_dbm,
        };
        let per_grant_pc = u.power_control == config::UlPowerControlKind::PerGrant;
        let enb_noise_prb_dbm =
            THERMAL_NOISE_DBM_PER_HZ + 10.0 * PRB_HZ.log10() + u.enb_noise_figure_db;
        let load_iot = u.interference == config::UlInterferenceKind::Load;
        // I/N at full load per centre sector, from a Monte Carlo over the layout on the
        // drop's own stream (sub-stream 1), so that every run of a drop sees the same layout.
        let inr_full = if load_iot {
            let mut rng = RngStream::new(drop_s, drop_r, stream::wide(STREAM_CELL, 1, 0));
            ul_full_load_inr(
                &cell,
                |cl| pc.tx_power_dbm(1, cl),
                enb_noise_prb_dbm,
                UL_INR_SAMPLES_PER_SITE,
                &mut rng,
            )
        } else {
            [0.0; SECTORS_PER_SITE]
        };
        let phr_params = PhrParams {
            periodic: u.phr_periodic_tti,
            prohibit: u.phr_prohibit_tti,
            pathloss_change_db: u.phr_pathloss_change_db,
        };
        // The offset calibrates the Case-1 geometry (lte-cell.md §3); SINRs the user lists
        // in `ue_sinr_db` are used as written.
        let offset_db = if c.cell.ue_sinr_db.is_some() {
            0.0
        } else {
            c.sinr_offset_db
        };
        let mss = cfg.tcp.packet_size_bytes - cfg.tcp.header_bytes;
        let rlc = rat.rlc.clone();
        let fading = rat.fading.clone();
        let ues: Vec<Ue> = places
            .into_iter()
            .enumerate()
            .map(|(u, p)| Ue {
                sector: p.sector,
                x_m: p.x,
                y_m: p.y,
                distance_m: p.distance_m,
                dl_sinr_db: p.sinr_db + offset_db,
                ul_sinr_db: ul_snr_db(c, &pc, p.coupling_loss_db),
                pl_db: p.coupling_loss_db,
                ul_h: if per_grant_pc && p.coupling_loss_db.is_finite() {
                    pc.headroom_prbs(p.coupling_loss_db) / f64::from(rat.prb_lte)
                } else {
                    f64::INFINITY
                },
                ul_h_est: f64::INFINITY,
                phr: (per_grant_pc && p.coupling_loss_db.is_finite())
                    .then(|| PhrEntity::new(phr_params)),
                // The PDCCH gets no spatial multiplexing: the geometry's SINR, no offset. At
                // most the CCEs of the control region (NR: a search space's levels fit its
                // CORESET, TS 38.213 §10.1; LTE 5 MHz with CFI 1 has 3 CCEs), else the UE
                // could never be scheduled; PDCCH errors are not modelled, so a capped level
                // costs nothing here.
                al: aggregation_level(p.sinr_db, c.pdcch.aggregation_sinr_db)
                    .min(max_level(rat.cce_total)),
                dl_fading: Fading::new(&fading, ue_rng(u, SUB_DL_FADING)),
                ul_fading: Fading::new(&fading, ue_rng(u, SUB_UL_FADING)),
                dl_rng: ue_rng(u, SUB_DL_DECODE),
                ul_rng: ue_rng(u, SUB_UL_DECODE),
                olla_db: [0.0; 2],
                mean_lin: [
                    db_to_lin(p.sinr_db + offset_db),
                    db_to_lin(ul_snr_db(c, &pc, p.coupling_loss_db)),
                ],
                olla_lin: [1.0; 2],
                cqi: [(None, 0.0); 2],
                cqi_next: [0; 2],
                mcs_hint: [0; 2],
                dl_mcs_fresh: false,
                dl_queue: VecDeque::new(),
                dl_queue_bytes: 0,
                discipline: config::buffer_discipline(
                    &c.buffer,
                    cfg.tcp.packet_size_bytes,
                    rat.slot,
                    ue_rng(u, SUB_BUFFER),
                ),
                enb_rlc: LteRlcEntity::new(rlc.clone()),
                dl_harq: Harq::new(c.harq_params()),
                in_dl_active: false,
                ul_need: 0,
                sr_answered: false,
                sr_waiting: false,
                granted: [(0, 0); GRANT_RING],
                in_ul_active: false,
                ue_rlc: LteRlcEntity::new(rlc.clone()),
                filter: AckFilter::new(c.ack_filter_params())
                    .expect("validated with the configuration"),
                // SR opportunities spread over the period, UE by UE (sr-ConfigIndex).
                mac: UeUlMac::new(UlMacParams {
                    sr_offset: rat.sr_offsets[u % rat.sr_offsets.len()],
                    ..rat.ul_mac.clone()
                }),
                ul_harq: Harq::new(c.harq_params()),
                mac_tti: None,
                in_mac_active: false,
                mac_dirty: true,
                timer_at: None,
                s_tbs_sum: 0.0,
                s_tbs_n: 0.0,
                t_opt: 1,
                st: UeCounters::default(),
                occupancy: Occupancy::default(),
                _spread: [0; 64],
            })
            .collect();
        let pusch_prb = rat.pusch_prb;
        let dl_pf = crate::radio::lte::sched::PfParams {
            n_prb: rat.n_prb,
            tbs: Arc::clone(&rat.tbs),
            tti_s: rat.slot as f64 / 1e9,
            ..c.pf_params()
        };
        let ul_pf = crate::radio::lte::sched::PfParams {
            n_prb: pusch_prb,
            ..dl_pf.clone()
        };
        let constant_iot = db_to_lin(u.iot_db);
        let sectors = (0..SECTORS_PER_SITE)
            .map(|k| Sector {
                dl: PfScheduler::new(dl_pf.clone(), n),
                ul: UlScheduler::new(c.ul_mode(), ul_pf.clone(), n),
                dl_active: Vec::new(),
                ul_active: Vec::new(),
                ul_inr_full: inr_full[k],
                iot_lin: if load_iot {
                    1.0 + u.neighbour_load.unwrap_or(0.0) * inr_full[k]
                } else {
                    constant_iot
                },
                cce_left: 0,
                dl_ues: 0,
                ul_ues: 0,
                ul_prb_now: 0,
                has_ues: ues.iter().any(|ue: &Ue| ue.sector == k),
            })
            .collect();
        let pd = &c.pdcch;
        // Configured grants: each sector's UEs spread over the period's PUSCH slots.
        let mut cg_by_phase = vec![Vec::new(); SECTORS_PER_SITE];
        if let Some(cg) = &rat.configured_grant {
            let slots: Vec<u64> = (0..cg.period)
                .filter(|&t| rat.duplex.has_pusch(t))
                .collect();
            for (k, phases) in cg_by_phase.iter_mut().enumerate() {
                *phases = vec![Vec::new(); cg.period as usize];
                let here = ues.iter().enumerate().filter(|(_, ue)| ue.sector == k);
                for (i, (u, _)) in here.enumerate() {
                    let phase = slots[i % slots.len()];
                    phases[phase as usize].push(u as u32);
                }
            }
        }
        Self {
            cqi_delay: c.cqi_delay_tti as u64,
            cqi_period: c.cqi_period_tti as u64,
            olla_step_db: c.olla_step_db,
            mcs_threshold_lin: std::array::from_fn(|l| {
                rat.curves[l]
                    .threshold_db
                    .iter()
                    .map(|&t| db_to_lin(t))
                    .collect()
            }),
            whole_band_tbs: (0..=rat.tbs.max_mcs(TbKind::Dl))
                .map(|m| rat.tbs.octets(TbKind::Dl, m, rat.n_prb))
                .collect(),
            ul_fixed_mcs: c.uplink.fixed_mcs,
            ph_lin: std::array::from_fn(|i| db_to_lin(ph_from_index(i as u8))),
            pc,
            neighbour_load: u.neighbour_load,
            load_iot,
            ul_load_ewma: 0.0,
            max_dl_ues: pd.max_dl_ues_per_tti.unwrap_or(u32::MAX),
            max_ul_ues: pd.max_ul_ues_per_tti.unwrap_or(u32::MAX),
            ul_first: pd.priority == config::DciPriorityKind::UlFirst,
            cst: CellCounters::default(),
            budget: DciBudget::UNLIMITED,
            ideal_bsr: c.uplink.bsr == config::BsrKind::Ideal,
            sr_grant_delay: c.uplink.sr_grant_delay_tti as u64,
            sr_grant_bytes: c.uplink.sr_grant_bytes,
            // What a full-size SDU adds (LTE: its PDCP header and one LI).
            per_sdu: (rat.rlc.sdu_cost(cfg.tcp.packet_size_bytes)
                - u64::from(cfg.tcp.packet_size_bytes)) as u32,
            t_opt_rule: TOptRule::new(
                c.ack_filter.segment_bytes.unwrap_or(mss),
                S_HEADER_BYTES,
                c.t_opt_rounding(),
            )
            .expect("a segment of at least 1 octet"),
            hybrid_opt: c.ack_filter.scheme == config::AckFilterKind::HybridOpt,
            t_opt_span: vec![(f64::INFINITY, f64::NEG_INFINITY); n],
            first_host,
            flows_per_ue: cfg.flows.count,
            ues,
            sectors,
            pool: TbPool::default(),
            rings: Rings::new(),
            timers: BinaryHeap::new(),
            mac_active: Vec::new(),
            mac_wake: vec![0; n],
            cands: Vec::new(),
            allocs: Vec::new(),
            packets: Vec::new(),
            dl_retx_now: Vec::new(),
            ul_retx_at_target: Vec::new(),
            targets: Vec::new(),
            cg_by_phase,
            nr_st: NrExtraStats::default(),
            redrawn,
            rat,
        }
    }

    /// The first TTI, at time 0.
    pub fn start(ctx: &mut Ctx) {
        ctx.schedule(0, NodeEvent::Lte(LteEvent::Tti));
    }

    pub fn handle(&mut self, ctx: &mut Ctx, ev: LteEvent) {
        match ev {
            LteEvent::Tti => {
                self.on_tti(ctx);
                ctx.schedule(ctx.now + self.rat.slot, NodeEvent::Lte(LteEvent::Tti));
            }
        }
    }

    /// Data for a UE enters its downlink buffer, where the discipline admits or drops it; an
    /// ACK from a UE host enters that UE's uplink buffer, where the filter may discard older
    /// ACKs of the same flow.
    /// The packet by reference: it is copied once, into the queue it joins (the call by value
    /// copied it through the stack first, and the queue's store stalled on that copy).
    pub fn receive(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        if let Some(u) = self.ue_index(pkt.dst) {
            self.dl_offer(ctx, u, pkt);
            return;
        }
        // The flow names the UE that sent it (UE u is host u + 1; an emulation has one UE and
        // numbers the real connections as it meets them).
        let u = if self.ues.len() == 1 {
            0
        } else {
            host_of_flow(pkt.flow, self.flows_per_ue) - 1
        };
        self.packets.clear();
        self.ues[u as usize].filter.enqueue(*pkt, &mut self.packets);
        self.activate_mac(u);
    }

    #[inline]
    fn ue_index(&self, host: HostId) -> Option<u32> {
        let u = host.checked_sub(self.first_host)?;
        ((u as usize) < self.ues.len()).then_some(u)
    }

    fn activate_mac(&mut self, u: u32) {
        let ue = &mut self.ues[u as usize];
        ue.mac_dirty = true;
        self.mac_wake[u as usize] = 0;
        if !ue.in_mac_active {
            ue.in_mac_active = true;
            self.mac_active.push(u);
        }
    }

    fn activate_dl(&mut self, u: u32) {
        let ue = &mut self.ues[u as usize];
        if !ue.in_dl_active {
            ue.in_dl_active = true;
            self.sectors[ue.sector].dl_active.push(u);
        }
    }

    fn activate_ul(&mut self, u: u32) {
        let ue = &mut self.ues[u as usize];
        if !ue.in_ul_active {
            ue.in_ul_active = true;
            // In UE order, the order the uplink scheduler takes its candidates in: they then
            // need no sort per slot (a search and a short move per activation instead).
            let list = &mut self.sectors[ue.sector].ul_active;
            list.insert(list.partition_point(|&v| v < u), u);
        }
    }

    fn dl_offer(&mut self, ctx: &mut Ctx, u: u32, pkt: &Packet) {
        let now = ctx.now;
        let ue = &mut self.ues[u as usize];
        // The discipline's occupancy in bits: SDU octets waiting, in front of the RLC or in it
        // and not yet sent. Converted through i64: one instruction, where a u64 takes five on
        // x86-64, and the same value (an occupancy far below 2^63).
        let bo_bits = (ue.dl_queue_bytes + ue.enb_rlc.new_data_bytes()) as i64 as f64 * 8.0;
        ue.discipline.advance(now, bo_bits);
        let verdict = ue
            .discipline
            .on_arrival(now, ue.dl_sdus(), bo_bits, pkt.size as f64 * 8.0);
        let dropped = match verdict {
            Verdict::Admit => {
                ue.dl_queue_bytes += pkt.size as u64;
                ue.dl_queue.push_back((*pkt, now));
                None
            }
            Verdict::Drop(reason) => {
                ue.st.buffer_drops[reason as usize] += 1;
                Some(*pkt)
            }
            Verdict::AdmitDropFirstUnsent(reason) => {
                ue.dl_queue_bytes += pkt.size as u64;
                ue.dl_queue.push_back((*pkt, now));
                let victim = ue.dl_queue.pop_front().map(|(p, _)| p);
                if let Some(v) = &victim {
                    ue.dl_queue_bytes -= v.size as u64;
                    ue.st.buffer_drops[reason as usize] += 1;
                }
                victim
            }
        };
        if let Some(p) = dropped {
            ctx.probe.drop(now, &p);
        }
        self.trace_buffer(ctx, u);
        self.activate_dl(u);
    }

    /// BO statistics of a UE's downlink buffer (SDUs queued or held by the RLC) and the
    /// `buffer` trace (id = UE index). Inlined: every downlink SDU's arrival passes here, and
    /// the call cost a third of what it does.
    #[inline(always)]
    fn trace_buffer(&mut self, ctx: &mut Ctx, u: u32) {
        let ue = &mut self.ues[u as usize];
        let bo = ue.dl_sdus();
        if ue.occupancy.update(ctx.now, ctx.probe.measure_from, bo) {
            if let Some(t) = ctx.probe.traces.as_mut() {
                t.buffer.push(to_secs(ctx.now), u, bo as f64);
            }
        }
    }

    /// After anything touched a UE's RLC entities: collect what they discarded, keep the
    /// timer heap in step, and mark the UE active where its RLC has something to send.
    fn after_rlc(&mut self, ctx: &mut Ctx, u: u32) {
        self.after_rlc_of(ctx, u, true, true);
    }

    /// `after_rlc` for a change to the eNB's entity only (`enb`), the UE's only (`ue_side`), or
    /// both. An entity left alone since its last pass needs none, and its lines of the UE stay
    /// unread: that pass drained its discarded SDUs; it left `timer_at` at or before the
    /// entity's deadline (the timer heap only moves `timer_at` earlier, and a firing passes
    /// both entities again), so the minimum with it and the push are the ones of the changed
    /// entity's deadline alone; and it listed the UE where the entity has data, which keeps it
    /// listed (a list drops a UE only once its entities have nothing to send).
    #[inline(always)]
    fn after_rlc_of(&mut self, ctx: &mut Ctx, u: u32, enb: bool, ue_side: bool) {
        let ue = &mut self.ues[u as usize];
        if ue_side {
            // The UE's RLC may hold more or less now. The eNB's is no part of the uplink
            // buffer its MAC reports (`ul_buffered`), so that a UE whose downlink alone moved
            // stays skipped in `run_macs`.
            ue.mac_dirty = true;
            self.mac_wake[u as usize] = 0;
        }
        // A discard (maxRetxThreshold) is rare: the scratch vector is left alone without one.
        if enb && ue.enb_rlc.has_dropped() {
            self.packets.clear();
            ue.enb_rlc.drain_dropped(&mut self.packets);
            for p in &self.packets {
                ctx.probe.drop(ctx.now, p);
            }
        }
        if ue_side && ue.ue_rlc.has_dropped() {
            // Drained without a report to the drop probe, as before this split.
            self.packets.clear();
            ue.ue_rlc.drain_dropped(&mut self.packets);
        }
        #[cfg(debug_assertions)]
        {
            // The untouched entity: nothing discarded, its deadline no earlier than
            // `timer_at`, the UE listed where it has data.
            let mut left = Vec::new();
            let (rlc, listed) = if enb {
                (&mut ue.ue_rlc, ue.in_mac_active)
            } else {
                (&mut ue.enb_rlc, ue.in_dl_active)
            };
            if !(enb && ue_side) {
                rlc.drain_dropped(&mut left);
                assert!(left.is_empty(), "untouched RLC entity discarded SDUs");
                let d = rlc.poll_timeout();
                assert!(d.is_none() || ue.timer_at.is_some_and(|t| t <= d.unwrap()));
                assert!(listed || !rlc.has_data_to_send());
            }
        }
        let a = if enb { ue.enb_rlc.poll_timeout() } else { None };
        let b = if ue_side {
            ue.ue_rlc.poll_timeout()
        } else {
            None
        };
        let deadline = match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(d) = deadline {
            if ue.timer_at.is_none_or(|t| d < t) {
                ue.timer_at = Some(d);
                self.timers.push(Reverse((d, u)));
            }
        }
        let dl = enb && ue.enb_rlc.has_data_to_send();
        let ul = ue_side && ue.ue_rlc.has_data_to_send();
        if dl {
            self.activate_dl(u);
        }
        if ul {
            self.activate_mac(u);
        }
    }

    /// One TTI of the whole site.
    fn on_tti(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        let n = now / self.rat.slot;
        // RLC timers due (t-PollRetransmit, t-Reordering, t-StatusProhibit).
        while let Some(&Reverse((t, u))) = self.timers.peek() {
            if t > now {
                break;
            }
            self.timers.pop();
            let ue = &mut self.ues[u as usize];
            if ue.timer_at == Some(t) {
                ue.timer_at = None;
            }
            ue.enb_rlc.handle_timeout(now);
            ue.ue_rlc.handle_timeout(now);
            self.after_rlc(ctx, u);
        }
        // Blocks decoded in the previous TTI reach the peer RLC.
        let mut list = std::mem::take(&mut self.rings.deliver[slot(n)]);
        for &(link, idx) in &list {
            self.deliver(ctx, link, idx);
        }
        list.clear();
        self.rings.deliver[slot(n)] = list;
        // HARQ feedback for the blocks sent at n - 4.
        let mut list = std::mem::take(&mut self.rings.feedback[slot(n)]);
        for &(link, u, pid) in &list {
            self.feedback(n, link, u, pid);
        }
        list.clear();
        self.rings.feedback[slot(n)] = list;
        // A slot without downlink symbols carries no PDCCH.
        let dl_slot = self.rat.duplex.has_dl(n);
        let cces = if dl_slot { self.rat.cce_total } else { 0 };
        for sec in &mut self.sectors {
            sec.cce_left = cces;
            sec.dl_ues = 0;
            sec.ul_ues = 0;
            sec.ul_prb_now = 0;
        }
        // HARQ retransmissions due now, both links (LTE: they keep their PRBs and MCS). A DL
        // one needs an assignment (asynchronous, adaptive HARQ): its DCI goes first; a UL one
        // is non-adaptive, triggered on PHICH, and needs none. NR (`rat.harq`): a DL one
        // waits when its DCI or PRBs do not fit, and may change its width; a UL one had its
        // DCI with the grants (`ul_retx_dcis`).
        let mut list = std::mem::take(&mut self.rings.retx[slot(n)]);
        let mut dl_reserved = [0u32; SECTORS_PER_SITE];
        let measuring = now >= ctx.probe.measure_from;
        self.dl_retx_now.clear();
        for &(link, u, pid) in &list {
            if link == Link::Dl
                && self.rat.harq.dci_every_retx
                && !self.nr_dl_retx_fits(n, u, pid, &mut dl_reserved, measuring)
            {
                continue;
            }
            let ue = &mut self.ues[u as usize];
            let harq = match link {
                Link::Dl => &mut ue.dl_harq,
                Link::Ul => &mut ue.ul_harq,
            };
            harq.retransmit(n, pid as usize);
            let idx = *harq
                .block(pid as usize)
                .expect("a retransmitted process holds a block");
            if link == Link::Dl {
                if !self.rat.harq.dci_every_retx {
                    dl_reserved[ue.sector] += self.pool.tbs[idx as usize].n_prb;
                }
                self.dl_retx_now.push(u);
                let sector = &mut self.sectors[ue.sector];
                sector.cce_left = sector.cce_left.saturating_sub(u32::from(ue.al));
                sector.dl_ues += 1;
                self.cst.dl_dcis += 1;
            }
            self.transmit(n, link, u, pid, idx);
        }
        list.clear();
        self.rings.retx[slot(n)] = list;
        if self.rat.harq.dci_every_retx && dl_slot {
            // Uplink retransmissions' DCIs, before any new data's (either link).
            let mut targets = std::mem::take(&mut self.targets);
            self.rat.ul_targets(n, &mut targets);
            for &target in &targets {
                self.ul_retx_dcis(n, target, measuring);
            }
            self.targets = targets;
        }
        if self.ul_first {
            self.pusch(n);
            self.grants(ctx, n, dl_slot);
        }
        if dl_slot {
            for (sec, &reserved) in dl_reserved.iter().enumerate() {
                self.downlink(ctx, n, sec, reserved);
            }
        }
        if !self.ul_first {
            self.pusch(n);
            self.grants(ctx, n, dl_slot);
        }
        self.run_macs(n);
        self.end_tti(n, now >= ctx.probe.measure_from);
    }

    /// The width of UE `u`'s retransmission of `idx` on `link` at slot `n`: its first PRBs, or
    /// (adaptive HARQ) the fewest that carry its TBS at the UE's MCS now, at most `limit`.
    fn retx_width(&mut self, n: u64, link: Link, u: u32, idx: u32, limit: u32) -> u32 {
        let tb = &self.pool.tbs[idx as usize];
        let (bytes, now_prb) = (tb.bytes, tb.n_prb);
        if !self.rat.harq.adaptive {
            return now_prb;
        }
        let (kind, width) = match link {
            Link::Dl => (TbKind::Dl, 1),
            Link::Ul => (TbKind::Ul, now_prb),
        };
        let mcs = self.mcs(n, link, u, width);
        // Even the whole band too few at the MCS now: the whole band, at a code rate above
        // the MCS's (its energy still counts in proportion).
        self.rat
            .tbs
            .prbs_for(kind, mcs, bytes, limit)
            .unwrap_or(limit)
    }

    /// NR: whether UE `u`'s downlink retransmission on process `pid`, due at `n`, gets its
    /// DCI and PRBs now (then they are taken and its width set); if not, it moves to the next
    /// full downlink slot.
    fn nr_dl_retx_fits(
        &mut self,
        n: u64,
        u: u32,
        pid: u8,
        reserved: &mut [u32; SECTORS_PER_SITE],
        measuring: bool,
    ) -> bool {
        let ue = &self.ues[u as usize];
        let (sec, al) = (ue.sector, u32::from(ue.al));
        let idx = *ue
            .dl_harq
            .block(pid as usize)
            .expect("a retransmitted process holds a block");
        let width = self.retx_width(n, Link::Dl, u, idx, self.rat.n_prb);
        let sector = &self.sectors[sec];
        if sector.cce_left >= al
            && sector.dl_ues < self.max_dl_ues
            && reserved[sec] + width <= self.rat.n_prb
        {
            reserved[sec] += width;
            let tb = &mut self.pool.tbs[idx as usize];
            if measuring && width != tb.n_prb {
                self.nr_st.harq_retx_resized += 1;
            }
            // Retransmissions go in full downlink slots only.
            tb.n_prb = width;
            tb.re = width * self.rat.tbs.re_per_prb(TbKind::Dl);
            return true;
        }
        let to = self.rat.duplex.next_full_dl(n + 1);
        self.ues[u as usize].dl_harq.postpone(pid as usize, n, to);
        self.rings.retx[slot(to)].push((Link::Dl, u, pid));
        if measuring {
            self.nr_st.dl_harq_retx_postponed += 1;
        }
        false
    }

    /// NR: the DCIs of the uplink retransmissions at PUSCH slot `target`, issued at `n` (no
    /// PHICH: each needs one, TS 38.213 §9.1; 38.321 §5.4.2.1). One without a DCI or PRBs
    /// left in its sector moves to the next PUSCH slot; one that fits has its width set, and
    /// `uplink_grants` reserves it as LTE's.
    fn ul_retx_dcis(&mut self, n: u64, target: u64, measuring: bool) {
        let mut list = std::mem::take(&mut self.rings.retx[slot(target)]);
        let mut reserved = [0u32; SECTORS_PER_SITE];
        let mut k = 0;
        while k < list.len() {
            let (link, u, pid) = list[k];
            if link != Link::Ul {
                k += 1;
                continue;
            }
            let ue = &self.ues[u as usize];
            let (sec, al) = (ue.sector, u32::from(ue.al));
            let idx = *ue
                .ul_harq
                .block(pid as usize)
                .expect("a pending retransmission");
            let width = self.retx_width(n, Link::Ul, u, idx, self.rat.pusch_prb);
            let sector = &mut self.sectors[sec];
            if sector.cce_left >= al
                && sector.ul_ues < self.max_ul_ues
                && reserved[sec] + width <= self.rat.pusch_prb
            {
                sector.cce_left -= al;
                sector.ul_ues += 1;
                self.cst.ul_dcis += 1;
                reserved[sec] += width;
                let tb = &mut self.pool.tbs[idx as usize];
                if measuring {
                    self.nr_st.ul_retx_dcis += 1;
                    self.nr_st.harq_retx_resized += u64::from(width != tb.n_prb);
                }
                tb.n_prb = width;
                tb.re = width * self.rat.tbs.re_per_prb(TbKind::Ul);
                k += 1;
                continue;
            }
            let to = self.rat.duplex.next_pusch(target + 1);
            self.ues[u as usize]
                .ul_harq
                .postpone(pid as usize, target, to);
            self.rings.retx[slot(to)].push((link, u, pid));
            list.remove(k);
            if measuring {
                self.nr_st.ul_harq_retx_postponed += 1;
            }
        }
        self.rings.retx[slot(target)] = list;
    }

    /// The SRs answered now make their UEs uplink candidates; in a downlink slot, the grants
    /// for the PUSCH slots it serves, sector by sector.
    fn grants(&mut self, ctx: &mut Ctx, n: u64, dl_slot: bool) {
        let answered = std::mem::take(&mut self.rings.sr_answer[slot(n)]);
        for &u in &answered {
            self.ues[u as usize].sr_answered = true;
            self.ues[u as usize].sr_waiting = false;
            self.activate_ul(u);
        }
        let mut answered = answered;
        answered.clear();
        self.rings.sr_answer[slot(n)] = answered;
        if !dl_slot {
            return;
        }
        let mut targets = std::mem::take(&mut self.targets);
        self.rat.ul_targets(n, &mut targets);
        for &target in &targets {
            for sec in 0..SECTORS_PER_SITE {
                self.uplink_grants(ctx, n, target, sec);
            }
        }
        self.targets = targets;
    }

    /// The TTI's PDCCH and PUSCH use into the counters, and the neighbours' uplink load (the
    /// site's own utilisation, EWMA over [`UL_LOAD_TC`] TTIs, unless fixed) into each
    /// sector's IoT for the next TTI: 1 + load · (I/N at full load).
    fn end_tti(&mut self, n: u64, measuring: bool) {
        let (mut used, mut avail) = (0u64, 0u64);
        let pusch = self.rat.duplex.has_pusch(n);
        let pdcch = self.rat.duplex.has_dl(n);
        for sec in self.sectors.iter().filter(|s| s.has_ues) {
            used += u64::from(sec.ul_prb_now);
            if pusch {
                avail += u64::from(self.rat.pusch_prb);
            }
            if measuring {
                if self.rat.cce_total != u32::MAX && pdcch {
                    self.cst.cce_used += u64::from(self.rat.cce_total - sec.cce_left);
                    self.cst.cce_avail += u64::from(self.rat.cce_total);
                }
                self.cst.iot_db_sum += lin_to_db(sec.iot_lin);
                self.cst.iot_n += 1;
            }
        }
        if measuring {
            self.cst.ul_prb_used += used;
            self.cst.ul_prb_avail += avail;
        }
        if self.load_iot && pusch {
            let now = if avail > 0 {
                used as f64 / avail as f64
            } else {
                0.0
            };
            self.ul_load_ewma += (now - self.ul_load_ewma) / UL_LOAD_TC;
            let load = self.neighbour_load.unwrap_or(self.ul_load_ewma);
            for sec in &mut self.sectors {
                sec.iot_lin = 1.0 + load * sec.ul_inr_full;
            }
        }
    }

    /// The SINR a transmission at TTI `n` sees, linear, and the draw that decides it.
    fn transmit(&mut self, n: u64, link: Link, u: u32, pid: u8, idx: u32) {
        let ue = &mut self.ues[u as usize];
        // One inlined reading for both links.
        let (fading, rng) = match link {
            Link::Dl => (&mut ue.dl_fading, &mut ue.dl_rng),
            Link::Ul => (&mut ue.ul_fading, &mut ue.ul_rng),
        };
        let gain = fading.gain_tti(1, n);
        let tb = &mut self.pool.tbs[idx as usize];
        let mut mean_lin = ue.mean_lin[link as usize];
        if link == Link::Ul {
            // Power control: an M-PRB grant beyond the headroom gets h / M of the nominal power
            // per PRB; the sector's IoT this TTI.
            let sector = &mut self.sectors[ue.sector];
            sector.ul_prb_now += tb.n_prb;
            mean_lin *= (ue.ul_h / f64::from(tb.n_prb)).min(1.0) / sector.iot_lin;
        }
        tb.tx += 1;
        let mut sinr = mean_lin * gain;
        if tb.re != tb.re_first {
            // A retransmission on other resource elements (NR: another width, or a special
            // slot's block in a full slot) brings its energy in proportion to them: the
            // block's energy per information bit (a power-limited UE's per-PRB SINR above
            // already spreads its power).
            sinr *= f64::from(tb.re) / f64::from(tb.re_first);
        }
        tb.sinr_sum += sinr;
        // Chase combining: the k-th transmission is decoded at the summed SINR (lte-cell.md
        // §2.4); BLER from the AWGN curve of its first MCS.
        tb.decoded = self.rat.curves[link as usize].decoded(tb.mcs, tb.sinr_sum, rng.uniform());
        match link {
            Link::Dl => {
                ue.st.dl_tx += 1;
                ue.st.dl_tx_failed += u64::from(!tb.decoded);
            }
            Link::Ul => {
                ue.st.ul_tx += 1;
                ue.st.ul_tx_failed += u64::from(!tb.decoded);
            }
        }
        // Downlink: HARQ-ACK on the PUCCH K1 slots later at the earliest (a slot with uplink
        // symbols); uplink: the base station's decision.
        let fb = match link {
            Link::Dl => self.rat.duplex.next_ul(n + self.rat.k1),
            Link::Ul => n + self.rat.ul_decision,
        };
        self.rings.feedback[slot(fb)].push((link, u, pid));
        if tb.decoded {
            self.rings.deliver[slot(n + 1)].push((link, idx));
        }
    }

    /// HARQ ACK/NACK at `n` (LTE: n + 4 after the transmission): free the process, or
    /// schedule the retransmission (LTE: n + 8; NR: the next full downlink slot after the
    /// gNB's processing, or the first PUSCH slot a grant from the next downlink slot can
    /// reach).
    fn feedback(&mut self, n: u64, link: Link, u: u32, pid: u8) {
        let ue = &mut self.ues[u as usize];
        let idx = *match link {
            Link::Dl => ue.dl_harq.block(pid as usize),
            Link::Ul => ue.ul_harq.block(pid as usize),
        }
        .expect("feedback for a busy process");
        let tb = &self.pool.tbs[idx as usize];
        let decoded = tb.decoded;
        if tb.tx == 1 && self.olla_step_db > 0.0 {
            // Outer loop on first transmissions: +step on ACK, -9 steps on NACK (10 % BLER).
            let step = if decoded {
                self.olla_step_db
            } else {
                -9.0 * self.olla_step_db
            };
            let o = &mut ue.olla_db[link as usize];
            *o = (*o + step).clamp(-20.0, 20.0);
            ue.olla_lin[link as usize] = db_to_lin(*o);
            ue.dl_mcs_fresh &= link != Link::Dl;
        }
        let d = &self.rat.duplex;
        let (harq, at) = match link {
            Link::Dl => (&mut ue.dl_harq, d.next_full_dl(n + self.rat.retx_gap)),
            Link::Ul => (&mut ue.ul_harq, d.next_pusch(d.next_dl(n) + self.rat.k2)),
        };
        match harq.on_feedback_retx_at(pid as usize, decoded, at) {
            Feedback::Delivered(i) => self.pool.release(i),
            Feedback::GivenUp(i) => {
                if link == Link::Ul {
                    // The block and its BSR are lost, and the UE sends no new regular BSR
                    // while it still has data (36.321 §5.4.5) until retxBSR-Timer (2.56 s):
                    // the eNB, which saw the failure, grants the block's size again.
                    let bytes = self.pool.tbs[i as usize].bytes as u64;
                    let ue = &mut self.ues[u as usize];
                    ue.ul_need = ue.ul_need.max(bytes);
                    self.activate_ul(u);
                }
                self.pool.release(i);
            }
            Feedback::RetransmitAt(at) => self.rings.retx[slot(at)].push((link, u, pid)),
        }
        if link == Link::Dl {
            // A process is free again: data may be waiting for it.
            self.activate_dl(u);
        }
    }

    /// A decoded block reaches the peer: SDUs go up, STATUS and the BSR are acted on.
    fn deliver(&mut self, ctx: &mut Ctx, link: Link, idx: u32) {
        let now = ctx.now;
        let measuring = now >= ctx.probe.measure_from;
        let tb = &self.pool.tbs[idx as usize];
        let u = tb.ue;
        let ue = &mut self.ues[u as usize];
        self.packets.clear();
        match link {
            Link::Dl => {
                ue.ue_rlc.on_chunks(now, &tb.chunks);
                ue.ue_rlc.drain_delivered(&mut self.packets);
            }
            Link::Ul => {
                ue.enb_rlc.on_chunks(now, &tb.chunks);
                ue.enb_rlc.drain_delivered(&mut self.packets);
                for p in &self.packets {
                    if measuring && is_pure_ack(p) {
                        ue.st.acks_at_enb += 1;
                        ue.st.ack_delay_sum += now - p.sent_at;
                    }
                }
                if let Some(i) = tb.phr {
                    // The headroom at one PRB, from the block's: PH + 10 log10 M.
                    ue.ul_h_est = self.ph_lin[usize::from(i)] * f64::from(tb.n_prb);
                }
                if let Some(b) = tb.bsr {
                    // What the UE had when it built the block, less what the eNB granted
                    // since for later TTIs (those grants will carry part of it).
                    ue.ul_need =
                        (self.rat.bsr.bytes(b) as u64).saturating_sub(ue.granted_after(tb.built));
                    if ue.ul_need > 0 {
                        self.activate_ul(u);
                    }
                }
            }
        }
        // By reference from the list to where each waits next: a copy through the stack
        // stalled the hand-over's push on loads of stores not yet retired (perf).
        for p in &self.packets {
            ctx.forward(p);
        }
        // Only the receiving entity changed (a STATUS acts on the receiver's own sender).
        match link {
            Link::Dl => self.after_rlc_of(ctx, u, false, true),
            Link::Ul => self.after_rlc_of(ctx, u, true, false),
        }
        if link == Link::Ul {
            // STATUS from the UE may have freed downlink SDUs.
            self.trace_buffer(ctx, u);
        }
    }

    /// The MCS for UE `u` on `link` at TTI `n`: from the SINR reported `cqi_delay` TTIs ago
    /// (mean + fast fading then), the highest MCS at 10 % BLER; MCS 0 below its threshold.
    ///
    /// Uplink: for a grant `width` PRBs wide. The eNB measures the UE's uplink SINR at the
    /// power the UE actually sends (SRS), so a UE beyond its headroom, which spreads its power
    /// over the PRBs, is seen at the nominal SINR per PRB times min(1, h / width); the PHR
    /// only tells the scheduler how wide a grant the UE can fill.
    fn mcs(&mut self, n: u64, link: Link, u: u32, width: u32) -> u8 {
        if link == Link::Ul {
            if let Some(m) = self.ul_fixed_mcs {
                return m;
            }
        }
        let ue = &mut self.ues[u as usize];
        // The latest report at least cqi_delay old: UE u reports at TTIs ≡ u (mod period).
        let period = self.cqi_period;
        let newest = n.saturating_sub(self.cqi_delay);
        let l = link as usize;
        // Slots only move forward, so the report changes only once `newest` reaches the next
        // report's TTI (two divisions saved per UE and slot).
        if ue.cqi[l].0.is_none() || newest >= ue.cqi_next[l] {
            let due = ue.cqi_next[l];
            let (report, next) = if ue.cqi[l].0.is_some() && newest - due < period {
                // The report due at `due` (≡ u mod period) is the latest: no division.
                (due, due + period)
            } else {
                let offset = u as u64 % period;
                if newest >= offset {
                    let r = newest - (newest - offset) % period;
                    (r, r + period)
                } else {
                    (0, offset)
                }
            };
            ue.cqi_next[l] = next;
            if ue.cqi[l].0 != Some(report) {
                // One inlined reading for both links.
                let fading = match link {
                    Link::Dl => &mut ue.dl_fading,
                    Link::Ul => &mut ue.ul_fading,
                };
                let gain = fading.gain_tti(0, report);
                ue.cqi[l] = (Some(report), ue.mean_lin[l] * gain);
                ue.dl_mcs_fresh &= link != Link::Dl;
            }
        }
        if link == Link::Dl && ue.dl_mcs_fresh {
            // The same SINR as last time: the same MCS, without the threshold search.
            return ue.mcs_hint[l].saturating_sub(1);
        }
        let mut sinr = ue.cqi[l].1 * ue.olla_lin[l];
        if link == Link::Ul {
            // The eNB measures the IoT it sees.
            sinr *= (ue.ul_h / f64::from(width)).min(1.0) / self.sectors[ue.sector].iot_lin;
        }
        // The highest MCS whose 10 % threshold the SINR reaches (amc::sinr_to_mcs, linear;
        // MCS 0 below its threshold). The thresholds increase, so the count of those at or
        // below the SINR is one boundary; it is searched for from the UE's last MCS, which the
        // SINR rarely moves far from (a bisection's chain of compares cost more).
        let reached = count_at_or_below(&self.mcs_threshold_lin[l], sinr, ue.mcs_hint[l]);
        ue.mcs_hint[l] = reached as u8;
        ue.dl_mcs_fresh = link == Link::Dl;
        reached.saturating_sub(1) as u8
    }

    /// Downlink of one sector at TTI `n`: PF over the UEs with data and a free HARQ process
    /// (not those retransmitting now), `reserved` PRBs already taken by retransmissions.
    fn downlink(&mut self, ctx: &mut Ctx, n: u64, sec: usize, reserved: u32) {
        self.cands.clear();
        let mut active = std::mem::take(&mut self.sectors[sec].dl_active);
        let mut k = 0;
        while k < active.len() {
            let u = active[k];
            let backlog = self.ues[u as usize].dl_backlog(self.per_sdu, self.rat.mac_header);
            if backlog == 0 {
                self.ues[u as usize].in_dl_active = false;
                active.remove(k);
                continue;
            }
            k += 1;
            let ue = &self.ues[u as usize];
            // Most slots retransmit to no UE: `contains` would set up its chunked search for
            // each candidate all the same.
            let retx = &self.dl_retx_now;
            if ue.dl_harq.free_process().is_none() || !retx.is_empty() && retx.contains(&u) {
                continue;
            }
            let newest = n.saturating_sub(self.cqi_delay);
            let mcs = match self.ues[u as usize].fresh_dl_mcs(newest) {
                Some(m) => m,
                None => self.mcs(n, Link::Dl, u, 1),
            };
            self.learn_tbs(u, mcs);
            self.cands.push(Candidate {
                ue: u,
                mcs,
                backlog: backlog.min(u32::MAX as u64) as u32,
                cce: self.ues[u as usize].al,
                max_prb: u32::MAX,
            });
        }
        self.sectors[sec].dl_active = active;
        let cands = std::mem::take(&mut self.cands);
        let mut allocs = std::mem::take(&mut self.allocs);
        let sector = &mut self.sectors[sec];
        self.budget.reset(
            sector.cce_left,
            self.max_dl_ues.saturating_sub(sector.dl_ues),
        );
        // A TDD special slot carries smaller blocks (its downlink symbols only).
        let kind = if self.rat.duplex.has_full_dl(n) {
            TbKind::Dl
        } else {
            TbKind::DlSpecial
        };
        sector
            .dl
            .schedule_kind(n, reserved, &cands, &mut self.budget, &mut allocs, kind);
        self.after_dcis(sec, Link::Dl, allocs.len());
        for a in &allocs {
            self.send_dl(ctx, n, *a, kind);
        }
        self.cands = cands;
        self.allocs = allocs;
    }

    /// A scheduler's `issued` DCIs and the UEs it passed over (`self.budget`) into the
    /// sector's PDCCH budget and the counters, the cell's and each UE's.
    fn after_dcis(&mut self, sec: usize, link: Link, issued: usize) {
        let b = &self.budget;
        let sector = &mut self.sectors[sec];
        sector.cce_left = b.cce_left;
        let c = &mut self.cst;
        let (ues, dcis, blocked, capped) = match link {
            Link::Dl => (
                &mut sector.dl_ues,
                &mut c.dl_dcis,
                &mut c.dl_dci_blocked,
                &mut c.dl_ue_cap_blocked,
            ),
            Link::Ul => (
                &mut sector.ul_ues,
                &mut c.ul_dcis,
                &mut c.ul_dci_blocked,
                &mut c.ul_ue_cap_blocked,
            ),
        };
        *ues += issued as u32;
        *dcis += issued as u64;
        *blocked += u64::from(b.blocked_cce);
        *capped += u64::from(b.blocked_cap);
        for &u in &b.blocked_ues {
            self.ues[u as usize].st.dci_blocked[link as usize] += 1;
        }
    }

    /// Eq. (1)'s S_TBS for Hybrid(opt): the UE's whole-band TBS at its MCS, averaged over
    /// the TTIs it had downlink data (Table I's TBS are whole-band, lte-cell.md §3); T_opt
    /// follows it.
    fn learn_tbs(&mut self, u: u32, mcs: u8) {
        let ue = &mut self.ues[u as usize];
        let tbs = self.whole_band_tbs[mcs as usize];
        ue.s_tbs_sum += tbs as f64;
        ue.s_tbs_n += 1.0;
        if self.hybrid_opt {
            let s_tbs = ue.s_tbs_sum / ue.s_tbs_n;
            // The average moves a little each TTI and T_opt changes rarely: worked out (with
            // its new range) only once S_TBS leaves the range where it was the same.
            let span = &mut self.t_opt_span[u as usize];
            if span.0 <= s_tbs && s_tbs <= span.1 {
                return;
            }
            *span = self.t_opt_rule.t_opt_span(s_tbs);
            let t = self.t_opt_rule.t_opt(s_tbs);
            if t != ue.t_opt {
                ue.t_opt = t;
                ue.filter.set_t_opt(t);
                ue.mac_dirty = true;
                self.mac_wake[u as usize] = 0;
            }
        }
    }

    /// Build and send a downlink block: SDUs move from the buffer into the RLC as far as
    /// the block has room (CoDel judges each at this moment), then RLC fills it. `kind`: a
    /// full slot's block or a special slot's (its resource elements count in HARQ combining).
    fn send_dl(&mut self, ctx: &mut Ctx, n: u64, a: Allocation, kind: TbKind) {
        let now = ctx.now;
        let (u, mcs) = (a.ue, a.mcs);
        let room = a.tbs.saturating_sub(self.rat.mac_header);
        let ue = &mut self.ues[u as usize];
        // What the RLC will need, kept up to date as SDUs move in (each adds its octets, its
        // PDCP header and at most one LI) instead of asking the entity every time.
        let mut need = ue.enb_rlc.buffer_status();
        while need < room as u64 {
            let Some((pkt, at)) = ue.dl_queue.pop_front() else {
                break;
            };
            ue.dl_queue_bytes -= pkt.size as u64;
            let bo_bits = (ue.dl_queue_bytes + ue.enb_rlc.new_data_bytes()) as f64 * 8.0;
            ue.discipline.advance(now, bo_bits);
            if let Some(reason) = ue.discipline.on_dequeue(now, now - at, ue.dl_queue_bytes) {
                ue.st.buffer_drops[reason as usize] += 1;
                ctx.probe.drop(now, &pkt);
                continue;
            }
            need += self.rat.rlc.sdu_cost(pkt.size);
            ue.enb_rlc.offer_sdu(now, pkt);
        }
        let re = a.n_prb * self.rat.tbs.re_per_prb(kind);
        let idx = self.pool.alloc(u, mcs, a.n_prb, re, a.tbs);
        let tb = &mut self.pool.tbs[idx as usize];
        tb.built = n;
        ue.enb_rlc
            .poll_transmit(now, TxOpportunity::Bytes(room), &mut tb.chunks);
        if tb.chunks.is_empty() {
            self.pool.release(idx);
        } else {
            let pid = ue
                .dl_harq
                .free_process()
                .expect("candidates have a free process");
            ue.dl_harq.send_new(n, pid, idx);
            ue.st.dl_new_tbs += 1;
            ue.st.dl_mcs_sum += mcs as u64;
            ue.st.dl_tbs_sum += a.tbs as u64;
            self.transmit(n, Link::Dl, u, pid as u8, idx);
        }
        self.after_rlc_of(ctx, u, true, false);
        self.trace_buffer(ctx, u);
    }

    /// PUSCH at TTI `n`: the blocks the UEs built when they were granted at n − 4.
    fn pusch(&mut self, n: u64) {
        let mut list = std::mem::take(&mut self.rings.pusch[slot(n)]);
        for &(u, idx) in &list {
            let ue = &mut self.ues[u as usize];
            let pid = (n % ue_harq_processes(ue)) as usize;
            ue.ul_harq.send_new(n, pid, idx);
            self.transmit(n, Link::Ul, u, pid as u8, idx);
        }
        list.clear();
        self.rings.pusch[slot(n)] = list;
    }

    /// A UE receives a grant at `n` for PUSCH at `target` = n + 4 and assembles the MAC PDU
    /// now (36.321 §5.4.1): the grant-triggered discard runs on the block size, ACKs move from
    /// the filter into the RLC as far as they fit, RLC fills the block, and the MAC adds a
    /// BSR, the regular or periodic one when triggered (§5.4.5), else a padding BSR in the 2
    /// octets kept for it; the grant cancels a pending SR (§5.4.4). ACKs arriving later wait
    /// for the next grant.
    fn build_ul(&mut self, ctx: &mut Ctx, n: u64, target: u64, a: Allocation) {
        let now = ctx.now;
        let (u, mcs) = (a.ue, a.mcs);
        let ue = &mut self.ues[u as usize];
        let mut room = a.tbs.saturating_sub(self.rat.mac_header + SHORT_BSR_BYTES);
        // A PHR ranks after the BSR and before data (36.321 §5.4.3.1); it reports the
        // headroom of this block (36.213 §5.1.1.2).
        let pl_db = ue.pl_db;
        let phr = ue
            .phr
            .as_mut()
            .is_some_and(|e| e.on_grant(n, pl_db, room))
            .then(|| {
                room -= PHR_BYTES;
                ph_index(self.pc.headroom_db(a.n_prb * self.rat.prb_lte, pl_db))
            });
        if f64::from(a.n_prb) > ue.ul_h {
            ue.st.ul_power_limited += 1;
        }
        self.packets.clear();
        ue.filter
            .discard_for_grant(a.tbs.saturating_sub(SHORT_BSR_BYTES), &mut self.packets);
        let mut need = ue.ue_rlc.buffer_status();
        while need < room as u64 {
            // Copied from the filter's queue into the RLC's: one copy of the packet, where
            // `pop_front` took it apart through registers and the stack first.
            let Some(p) = ue.filter.front() else {
                break;
            };
            // The UE's entity runs on `self.rat.rlc`: the cost it returns is that of
            // `self.rat.rlc.sdu_cost(p.size)`.
            need += ue.ue_rlc.offer_sdu_ref(p);
            ue.filter.remove_front();
        }
        let re = a.n_prb * self.rat.tbs.re_per_prb(TbKind::Ul);
        let idx = self.pool.alloc(u, mcs, a.n_prb, re, a.tbs);
        let tb = &mut self.pool.tbs[idx as usize];
        // The BSR counts what is left after this block and the ones built before it.
        tb.built = target;
        tb.phr = phr;
        ue.ue_rlc
            .poll_transmit(now, TxOpportunity::Bytes(room), &mut tb.chunks);
        let buffered = ue.ul_buffered();
        let ctl = ue.mac.on_tti(n, buffered, a.tbs);
        ue.mac_tti = Some(n);
        if self.ideal_bsr {
            // ns-3's ideal BSR: the eNB knows what is left at once; nothing rides in the block.
            ue.ul_need = self.rat.bsr.bytes(self.rat.bsr.index(buffered)) as u64;
        } else {
            tb.bsr = Some(ctl.bsr.unwrap_or_else(|| {
                ue.st.padding_bsrs += 1;
                self.rat.bsr.index(buffered)
            }));
        }
        ue.st.ul_new_tbs += 1;
        ue.st.ul_mcs_sum += mcs as u64;
        self.rings.pusch[slot(target)].push((u, idx));
        self.after_rlc_of(ctx, u, false, true);
        let ue = &self.ues[u as usize];
        let (left, need) = (ue.ul_pending(), ue.ul_need > 0);
        if left {
            self.activate_mac(u);
        }
        if need {
            self.activate_ul(u);
        }
    }

    /// The UE-side MAC of every UE with uplink data or a pending SR that had no PUSCH this
    /// TTI: SRs on their PUCCH opportunities (answered `sr_grant_delay` TTIs later), ideal
    /// BSRs in the ns-3 mode.
    fn run_macs(&mut self, n: u64) {
        let mut list = std::mem::take(&mut self.mac_active);
        let mut k = 0;
        while k < list.len() {
            let u = list[k];
            if n < self.mac_wake[u as usize] {
                // Nothing entered or left its buffer since its MAC last ran (every change
                // goes through `activate_mac` or `after_rlc`, which clear its wake slot), and
                // its MAC is idle until then: it would see the same buffer and do nothing,
                // and the UE stays listed as it was then.
                k += 1;
                continue;
            }
            let ue = &mut self.ues[u as usize];
            if ue.mac_tti != Some(n) {
                let buffered = ue.ul_buffered();
                let ctl = ue.mac.on_tti(n, buffered, 0);
                ue.mac_tti = Some(n);
                ue.mac_dirty = false;
                // The eNB answers an SR once; SRs repeated before its grant are ignored.
                if ctl.sr && !ue.sr_waiting {
                    ue.sr_waiting = true;
                    self.rings.sr_answer[slot(n + self.sr_grant_delay)].push(u);
                }
                if let Some(b) = ctl.bsr {
                    // Ideal BSR: the eNB knows it for its next grants; every block granted so
                    // far is built, so nothing is in flight unbuilt.
                    ue.ul_need = self.rat.bsr.bytes(b) as u64;
                    if ue.ul_need > 0 {
                        self.activate_ul(u);
                    }
                }
            }
            let ue = &mut self.ues[u as usize];
            if ue.ul_pending() || ue.mac.sr_pending() {
                // Granted this slot (its MAC ran in `build_ul`): still dirty, looked at next
                // slot.
                self.mac_wake[u as usize] = if ue.mac_dirty { 0 } else { ue.mac.busy_from() };
                k += 1;
            } else {
                ue.in_mac_active = false;
                list.swap_remove(k);
            }
        }
        // UEs activated while the list was out (none today) join it.
        list.append(&mut self.mac_active);
        self.mac_active = list;
    }

    /// Uplink grants of one sector issued at `n` for PUSCH at n + 4: the UEs the eNB believes
    /// have data (BSR minus grants) or whose SR is answered now, minus the PRBs of the
    /// synchronous HARQ retransmissions at n + 4.
    fn uplink_grants(&mut self, ctx: &mut Ctx, n: u64, target: u64, sec: usize) {
        let mut reserved = 0;
        self.ul_retx_at_target.clear();
        for &(link, u, pid) in &self.rings.retx[slot(target)] {
            let ue = &self.ues[u as usize];
            if link == Link::Ul && ue.sector == sec {
                let idx = *ue
                    .ul_harq
                    .block(pid as usize)
                    .expect("a pending retransmission");
                reserved += self.pool.tbs[idx as usize].n_prb;
                self.ul_retx_at_target.push(u);
            }
        }
        // Configured-grant occasions keep their PRBs whether or not their UEs have data (the
        // gNB cannot know).
        let cg_prb = self.rat.configured_grant.as_ref().map_or(0, |cg| {
            let phase = (target % cg.period) as usize;
            (self.cg_by_phase[sec][phase].len() as u32 * cg.n_prb).min(self.rat.pusch_prb)
        });
        reserved += cg_prb;
        self.cands.clear();
        let mut active = std::mem::take(&mut self.sectors[sec].ul_active);
        let mut k = 0;
        while k < active.len() {
            let u = active[k];
            let ue = &mut self.ues[u as usize];
            let mut need = ue.ul_need;
            if ue.sr_answered {
                need = need.max(self.sr_grant_bytes as u64);
            }
            if need == 0 {
                ue.in_ul_active = false;
                active.remove(k);
                continue;
            }
            k += 1;
            let pid = (target % ue_harq_processes(ue)) as usize;
            // One PUSCH per UE and slot: not beside its retransmission or configured grant.
            if !ue.ul_harq.is_free(pid)
                || ue.granted[gslot(target)].0 == target
                || self.ul_retx_at_target.contains(&u)
            {
                continue;
            }
            // Grants sized to the last PHR: at most the PRBs the UE can fill at full power per
            // PRB (at least one), at the MCS of that width. Before its first PHR a UE with
            // power control gets one PRB: that block brings the PHR (configuring PHR triggers
            // one, 36.321 §5.4.6), and a wider grant could be one the UE cannot fill.
            let ue = &self.ues[u as usize];
            let max_prb = if ue.phr.is_some() && !ue.ul_h_est.is_finite() {
                1
            } else {
                max_prb_for(ue.ul_h_est)
            };
            let mcs = self.mcs(n, Link::Ul, u, candidate_width(max_prb));
            let ue = &self.ues[u as usize];
            self.cands.push(Candidate {
                ue: u,
                mcs,
                backlog: need.min(u32::MAX as u64) as u32,
                cce: ue.al,
                max_prb,
            });
        }
        self.sectors[sec].ul_active = active;
        // In UE order already, as `ul_active` is.
        debug_assert!(self.cands.is_sorted_by_key(|c| c.ue));
        let cands = std::mem::take(&mut self.cands);
        let mut allocs = std::mem::take(&mut self.allocs);
        let sector = &mut self.sectors[sec];
        self.budget.reset(
            sector.cce_left,
            self.max_ul_ues.saturating_sub(sector.ul_ues),
        );
        sector
            .ul
            .schedule(n, reserved, &cands, &mut self.budget, &mut allocs);
        self.after_dcis(sec, Link::Ul, allocs.len());
        for a in &mut allocs {
            let c = cands.iter().find(|c| c.ue == a.ue);
            if a.n_prb > candidate_width(c.map_or(1, |c| c.max_prb)) {
                // Wider than the MCS assumed (no PHR yet, or `min_prb` / round robin's share
                // above the headroom): the MCS and block of the grant's width.
                a.mcs = self.mcs(n, Link::Ul, a.ue, a.n_prb);
                a.tbs = self.rat.tbs.octets(TbKind::Ul, a.mcs, a.n_prb);
            }
            let ue = &mut self.ues[a.ue as usize];
            ue.granted[gslot(target)] = (target, a.tbs);
            ue.ul_need = ue.ul_need.saturating_sub(a.tbs as u64);
            ue.sr_answered = false;
            ue.st.grants += 1;
            self.build_ul(ctx, n, target, *a);
        }
        self.cands = cands;
        self.allocs = allocs;
        if cg_prb > 0 {
            self.configured_grants(ctx, n, target, sec);
        }
    }

    /// The configured-grant occasions of sector `sec` at PUSCH slot `target` (TS 38.321
    /// §5.8.2), after the dynamic grants: a UE of the slot's phase with data, a free HARQ
    /// process and no dynamic grant or retransmission in that slot (a dynamic grant overrides
    /// the configured one, §5.8.2) builds its block now, as for a dynamic grant, without SR
    /// or DCI.
    fn configured_grants(&mut self, ctx: &mut Ctx, n: u64, target: u64, sec: usize) {
        let Some(cg) = self.rat.configured_grant else {
            return;
        };
        let phase = (target % cg.period) as usize;
        let ues = std::mem::take(&mut self.cg_by_phase[sec][phase]);
        let measuring = ctx.now >= ctx.probe.measure_from;
        for &u in &ues {
            if measuring {
                self.nr_st.configured_grant_occasions += 1;
            }
            let ue = &mut self.ues[u as usize];
            let pid = (target % ue_harq_processes(ue)) as usize;
            if !ue.ul_pending()
                || !ue.ul_harq.is_free(pid)
                || ue.granted[gslot(target)].0 == target
                || self.ul_retx_at_target.contains(&u)
            {
                continue;
            }
            // A fixed MCS (type 1's RRC configuration), or the UE's link adaptation, as a gNB
            // re-activating a type-2 grant with a new MCS would track it.
            let mcs = match cg.mcs {
                Some(m) => m,
                None => self.mcs(n, Link::Ul, u, cg.n_prb),
            };
            let ue = &mut self.ues[u as usize];
            let tbs = self.rat.tbs.octets(TbKind::Ul, mcs, cg.n_prb);
            ue.granted[gslot(target)] = (target, tbs);
            ue.ul_need = ue.ul_need.saturating_sub(u64::from(tbs));
            if measuring {
                self.nr_st.configured_grant_blocks += 1;
            }
            let a = Allocation {
                ue: u,
                n_prb: cg.n_prb,
                tbs,
                mcs,
            };
            self.build_ul(ctx, n, target, a);
        }
        self.cg_by_phase[sec][phase] = ues;
    }

    /// The cell's statistics (per-UE goodput and the cell's fairness are filled in from the
    /// flows once the hosts have reported, `sim.rs`).
    pub fn finish(&mut self, r: &mut RunResult, end: Time, measure_from: Time) {
        let mut ues = Vec::with_capacity(self.ues.len());
        let mut cell = LteCellStats {
            ues: self.ues.len() as u32,
            redrawn_ues: self.redrawn as u64,
            ..LteCellStats::default()
        };
        let mut drops: BTreeMap<String, u64> = BTreeMap::new();
        let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { f64::NAN };
        for (i, ue) in self.ues.iter_mut().enumerate() {
            let f = ue.filter.stats();
            let st = &ue.st;
            let rlc_dl = ue.enb_rlc.stats();
            let rlc_ul = ue.ue_rlc.stats();
            for d in BufferDrop::ALL {
                *drops.entry(d.name().to_string()).or_default() += st.buffer_drops[d as usize];
            }
            *drops.entry("rlc_discard".to_string()).or_default() += rlc_dl.sdus_discarded;
            let s = LteUeStats {
                ue: i as u32,
                sector: ue.sector as u32,
                x_m: ue.x_m,
                y_m: ue.y_m,
                distance_m: ue.distance_m,
                dl_sinr_db: ue.dl_sinr_db,
                ul_sinr_db: ue.ul_sinr_db,
                goodput_kbps: 0.0,
                dl_mean_mcs: ratio(st.dl_mcs_sum, st.dl_new_tbs),
                dl_mean_tbs_bytes: ratio(st.dl_tbs_sum, st.dl_new_tbs),
                s_tbs_bytes: if ue.s_tbs_n > 0.0 {
                    ue.s_tbs_sum / ue.s_tbs_n
                } else {
                    f64::NAN
                },
                t_opt: ue.t_opt,
                dl_blocks: st.dl_new_tbs,
                dl_bler: ratio(st.dl_tx_failed, st.dl_tx),
                dl_harq_retx: ue.dl_harq.stats.retransmissions,
                dl_harq_given_up: ue.dl_harq.stats.given_up,
                ul_mean_mcs: ratio(st.ul_mcs_sum, st.ul_new_tbs),
                ul_blocks: st.ul_new_tbs,
                ul_bler: ratio(st.ul_tx_failed, st.ul_tx),
                ul_harq_retx: ue.ul_harq.stats.retransmissions,
                ul_harq_given_up: ue.ul_harq.stats.given_up,
                acks_in: f.acks_in,
                dup_acks_in: f.dup_acks_in,
                acks_sent: f.acks_out,
                acks_discarded: f.drops.total(),
                acks_discarded_passive: f.drops.passive,
                acks_discarded_active: f.drops.active,
                acks_discarded_cake: f.drops.cake,
                ul_ack_delay_mean_ms: if st.acks_at_enb > 0 {
                    to_millis(st.ack_delay_sum) / st.acks_at_enb as f64
                } else {
                    f64::NAN
                },
                srs: ue.mac.stats.srs_sent,
                bsrs: ue.mac.stats.bsrs_sent,
                padding_bsrs: st.padding_bsrs,
                grants: st.grants,
                sr_give_ups: ue.mac.stats.sr_give_ups,
                aggregation_level: ue.al,
                phrs: ue.phr.as_ref().map_or(0, |p| p.stats.phrs_sent),
                ul_headroom_db: if ue.ul_h.is_finite() {
                    lin_to_db(ue.ul_h)
                } else {
                    f64::NAN
                },
                ul_power_limited_fraction: ratio(st.ul_power_limited, st.ul_new_tbs),
                dl_dci_blocked: st.dci_blocked[Link::Dl as usize],
                ul_dci_blocked: st.dci_blocked[Link::Ul as usize],
                dl_rlc_retransmitted: rlc_dl.pdus_retransmitted,
                ul_rlc_retransmitted: rlc_ul.pdus_retransmitted,
                rlc_discards: rlc_dl.sdus_discarded + rlc_ul.sdus_discarded,
                mean_buffer_sdus: ue.occupancy.mean(end, measure_from),
                max_buffer_sdus: ue.occupancy.max as u32,
            };
            cell.add(&s);
            ues.push(s);
        }
        cell.finish_means(&ues);
        cell.drops = drops;
        let limited: u64 = self.ues.iter().map(|u| u.st.ul_power_limited).sum();
        let new_ul: u64 = self.ues.iter().map(|u| u.st.ul_new_tbs).sum();
        let c = &self.cst;
        cell.ul_power_limited_fraction = ratio(limited, new_ul);
        cell.pusch_prb = self.rat.pusch_prb;
        cell.pdcch_cces = if self.rat.cce_total == u32::MAX {
            0
        } else {
            self.rat.cce_total
        };
        cell.ul_prb_utilization = ratio(c.ul_prb_used, c.ul_prb_avail);
        cell.pdcch_cce_utilization = ratio(c.cce_used, c.cce_avail);
        cell.ul_iot_mean_db = if c.iot_n > 0 {
            c.iot_db_sum / c.iot_n as f64
        } else {
            f64::NAN
        };
        cell.dl_dcis = c.dl_dcis;
        cell.ul_dcis = c.ul_dcis;
        cell.dl_dci_blocked = c.dl_dci_blocked;
        cell.ul_dci_blocked = c.ul_dci_blocked;
        cell.dl_ue_cap_blocked = c.dl_ue_cap_blocked;
        cell.ul_ue_cap_blocked = c.ul_ue_cap_blocked;
        let stats = LteStats {
            flows_per_ue: self.flows_per_ue,
            cell,
            ues,
        };
        r.access = Some(if self.rat.nr {
            AccessStats::Nr(Box::new(NrStats {
                cell: stats,
                nr: self.nr_st.clone(),
            }))
        } else {
            AccessStats::Lte(Box::new(stats))
        });
    }
}

/// The widest grant at the nominal power per PRB by the eNB's headroom estimate `h_est` (in
/// PRBs; at least one, `u32::MAX` when no PHR has arrived).
fn max_prb_for(h_est: f64) -> u32 {
    if h_est.is_finite() {
        h_est.floor().clamp(1.0, f64::from(u32::MAX)) as u32
    } else {
        u32::MAX
    }
}

/// The width a candidate's uplink MCS is chosen for: its PHR cap, or one PRB before any PHR
/// (the grant's own width then decides, after the scheduler has sized it).
fn candidate_width(max_prb: u32) -> u32 {
    if max_prb == u32::MAX {
        1
    } else {
        max_prb
    }
}

/// The highest aggregation level (1, 2, 4, 8) a CORESET of `cces` CCEs holds.
fn max_level(cces: u32) -> u8 {
    [8u8, 4, 2, 1]
        .into_iter()
        .find(|&l| u32::from(l) <= cces)
        .unwrap_or(1)
}

#[inline]
fn ue_harq_processes(ue: &Ue) -> u64 {
    ue.ul_harq.processes() as u64
}

/// How many of the increasing `thresholds` are at or below `x` (`partition_point(|t| t <= x)`,
/// NaN reaching none), looked for by steps from `hint`: a few compares when the answer is
/// near it, a bisection of the rest when it is not.
fn count_at_or_below(thresholds: &[f64], x: f64, hint: u8) -> usize {
    let reached = |t: &f64| *t <= x;
    let len = thresholds.len();
    let mut p = usize::from(hint).min(len);
    if p < len && reached(&thresholds[p]) {
        p += 1;
        for _ in 0..4 {
            if p < len && reached(&thresholds[p]) {
                p += 1;
            } else {
                return p;
            }
        }
        p + thresholds[p..].partition_point(reached)
    } else {
        for _ in 0..4 {
            if p > 0 && !reached(&thresholds[p - 1]) {
                p -= 1;
            } else {
                return p;
            }
        }
        thresholds[..p].partition_point(reached)
    }
}

/// Mean uplink signal over noise per PRB in dB, SC-FDMA loss subtracted, interference not
/// (the sector's IoT divides it per TTI). Per-grant power control: P0 − (1 − α)·PL received
/// per PRB while the UE is not power-limited (36.213 §5.1.1.1; the grant's PRBs scale it
/// down beyond the headroom). Reference-PRB mode (lte-cell.md §2.5): α = 1 with the power
/// spread over `reference_prb` PRBs whatever the grant. With no coupling loss (SINRs given
/// per UE) the UE receives P0 and is never power-limited.
fn ul_snr_db(c: &LteConfig, pc: &PuschPower, coupling_db: f64) -> f64 {
    let u = &c.uplink;
    let noise = THERMAL_NOISE_DBM_PER_HZ + 10.0 * PRB_HZ.log10() + u.enb_noise_figure_db;
    let rx = if !coupling_db.is_finite() {
        u.p0_dbm
    } else if u.power_control == config::UlPowerControlKind::PerGrant {
        pc.nominal_rx_prb_dbm(coupling_db)
    } else {
        (u.ue_power_dbm - 10.0 * f64::from(u.reference_prb).log10() - coupling_db).min(u.p0_dbm)
    };
    rx - noise - u.sc_fdma_loss_db
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search from a hint counts what a bisection counts, from every hint, for SINRs on,
    /// between and beyond the thresholds and NaN.
    #[test]
    fn count_at_or_below_equals_a_bisection() {
        let th: Vec<f64> = crate::radio::lte::amc::MCS_SINR_10PCT_DB
            .iter()
            .map(|&t| db_to_lin(t))
            .collect();
        let mut xs = vec![f64::NAN, 0.0, -1.0, f64::INFINITY, 1e-9, 1e9];
        for &t in &th {
            xs.extend([t, t * (1.0 - 1e-12), t * (1.0 + 1e-12), t * 1.1, t * 0.9]);
        }
        for x in xs {
            let want = th.partition_point(|&t| t <= x);
            for hint in 0..=u8::MAX {
                assert_eq!(count_at_or_below(&th, x, hint), want, "{x} from {hint}");
            }
        }
    }
}
