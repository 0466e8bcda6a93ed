//! The UE side of the LTE uplink request path, sans-IO: when a UE with uplink data (its TCP
//! ACKs) may ask for resources, and what it reports (model-specs §4.1, §4.2; TS 36.213
//! §10.1.5, TS 36.321 §5.4.4-5.4.5).
//!
//! Time is counted in TTIs (subframes of 1 ms). The entity is told, TTI by TTI, how many
//! octets wait in the UE's uplink buffer (RLC + PDCP, headers included) and what the eNB
//! granted; it answers what the UE sends on the control channels in that TTI: a scheduling
//! request on its PUCCH opportunity, a BSR MAC CE inside a granted transport block. The grant
//! itself, its size and the PUSCH at n + 4 belong to the cell's scheduler.
//!
//! Two modes:
//! - [`BsrMode::Standard`]: a regular BSR is triggered when data arrives in an empty buffer (one
//!   logical-channel group, so "higher priority" never applies) or when retxBSR-Timer expires
//!   with data buffered; periodicBSR-Timer triggers a periodic BSR; a triggered BSR with no
//!   grant in the TTI raises an SR, sent on the next PUCCH opportunity
//!   ((10·SFN + subframe − offset) mod T_SR = 0), repeated every opportunity until a grant
//!   arrives, at most dsr-TransMax times (then the UE would fall back to random access: counted,
//!   and the SR count starts again, a simplification of RACH).
//! - [`BsrMode::Ideal`]: ns-3's `LteUeMac`: an ideal BSR reaches the eNB in every TTI in which
//!   new data arrived, with no SR (for a fair side-by-side with ns-3 LENA, model-specs §4.2).

use crate::error::ParamError;

/// TS 36.321 Table 6.1.3.1-1 (as in ns-3's copy): the upper bound in octets of buffer-size
/// index 0..=62; index 63 means more than 150,000 octets.
pub const BSR_BOUNDS: [u32; 63] = [
    0, 10, 12, 14, 17, 19, 22, 26, 31, 36, 42, 49, 57, 67, 78, 91, 107, 125, 146, 171, 200, 234,
    274, 321, 376, 440, 515, 603, 706, 826, 967, 1132, 1326, 1552, 1817, 2127, 2490, 2915, 3413,
    3995, 4677, 5476, 6411, 7505, 8787, 10287, 12043, 14099, 16507, 19325, 22624, 26487, 31009,
    36304, 42502, 49759, 58255, 68201, 79846, 93749, 109439, 128125, 150000,
];

/// Octets of a short BSR on the air: the 1-octet MAC CE and its 1-octet subheader (§6.1.3.1).
pub const SHORT_BSR_BYTES: u32 = 2;

/// The buffer-size index a BSR reports for `bytes` buffered: the smallest index whose bound is
/// at least the buffer (model-specs §4.2), 63 above 150,000 octets.
pub fn bsr_index(bytes: u64) -> u8 {
    BSR_BOUNDS
        .iter()
        .position(|&b| bytes <= b as u64)
        .unwrap_or(63) as u8
}

/// What the eNB learns from a buffer-size index: the upper bound of its range (what a
/// scheduler grants against; 63 reads as 150,001).
pub fn bsr_bytes(index: u8) -> u32 {
    match BSR_BOUNDS.get(index as usize) {
        Some(&b) => b,
        None => 150_001,
    }
}

/// Which buffer-size table a BSR uses: LTE's 6-bit one, or NR's 5-bit Short BSR levels
/// (`nr::bsr`, TS 38.321 Table 6.1.3.1-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BsrTable {
    #[default]
    Lte,
    NrShort,
}

impl BsrTable {
    /// The index reported for `bytes` buffered.
    #[inline]
    pub fn index(self, bytes: u64) -> u8 {
        match self {
            BsrTable::Lte => bsr_index(bytes),
            BsrTable::NrShort => crate::radio::nr::bsr::short_bsr_index(bytes),
        }
    }

    /// The octets a report of `index` stands for (the upper bound of its level).
    #[inline]
    pub fn bytes(self, index: u8) -> u32 {
        match self {
            BsrTable::Lte => bsr_bytes(index),
            BsrTable::NrShort => crate::radio::nr::bsr::short_bsr_bytes(index),
        }
    }
}

/// The periodicities T_SR of TS 36.213 Table 10.1.5-1, in subframes.
pub const SR_PERIODS: [u32; 7] = [1, 2, 5, 10, 20, 40, 80];
/// dsr-TransMax values of TS 36.331.
pub const DSR_TRANS_MAX: [u32; 5] = [4, 8, 16, 32, 64];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BsrMode {
    Standard,
    /// ns-3: an ideal BSR every TTI with new data, no SR.
    Ideal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UlMacParams {
    pub mode: BsrMode,
    /// T_SR, subframes (one of [`SR_PERIODS`]).
    pub sr_period: u32,
    /// The UE's SR subframe offset, 0..sr_period (from sr-ConfigIndex).
    pub sr_offset: u32,
    /// dsr-TransMax (one of [`DSR_TRANS_MAX`]).
    pub dsr_trans_max: u32,
    /// periodicBSR-Timer, subframes; None = infinity.
    pub periodic_bsr: Option<u32>,
    /// retxBSR-Timer, subframes (RRC default 2560).
    pub retx_bsr: u32,
    /// The buffer-size table.
    pub table: BsrTable,
    /// SR periods in slots of any length (NR, TS 38.331 `SchedulingRequestResourceConfig`
    /// periodicities) instead of TS 36.213's subframe set.
    pub nr_periods: bool,
    /// A regular BSR raises no SR: the UE waits for its configured grant (TS 38.321 §5.4.5,
    /// `logicalChannelSR-Mask`).
    pub sr_masked: bool,
}

/// NR SR periodicities of one slot or more, slots (TS 38.331 `periodicityAndOffset`, sl1 to
/// sl640).
pub const NR_SR_PERIODS: [u32; 13] = [1, 2, 4, 5, 8, 10, 16, 20, 40, 80, 160, 320, 640];

impl Default for UlMacParams {
    /// T_SR = 10 ms, offset 0, dsr-TransMax 64, periodic BSR every 10 subframes, retxBSR 2560.
    fn default() -> Self {
        Self {
            mode: BsrMode::Standard,
            sr_period: 10,
            sr_offset: 0,
            dsr_trans_max: 64,
            periodic_bsr: Some(10),
            retx_bsr: 2560,
            table: BsrTable::Lte,
            nr_periods: false,
            sr_masked: false,
        }
    }
}

impl UlMacParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.nr_periods {
            if !NR_SR_PERIODS.contains(&self.sr_period) {
                return Err(ParamError::new(
                    "sr_period",
                    self.sr_period,
                    "one of 1, 2, 4, 5, 8, 10, 16, 20, 40, 80, 160, 320, 640 slots (TS 38.331)",
                ));
            }
        } else if !SR_PERIODS.contains(&self.sr_period) {
            return Err(ParamError::new(
                "sr_period",
                self.sr_period,
                "one of 1, 2, 5, 10, 20, 40, 80 subframes (TS 36.213 Table 10.1.5-1)",
            ));
        }
        if self.sr_offset >= self.sr_period {
            return Err(ParamError::new(
                "sr_offset",
                self.sr_offset,
                "an offset below sr_period",
            ));
        }
        if !DSR_TRANS_MAX.contains(&self.dsr_trans_max) {
            return Err(ParamError::new(
                "dsr_trans_max",
                self.dsr_trans_max,
                "one of 4, 8, 16, 32, 64 (TS 36.331)",
            ));
        }
        if self.periodic_bsr == Some(0) || self.retx_bsr == 0 {
            return Err(ParamError::new(
                if self.retx_bsr == 0 {
                    "retx_bsr"
                } else {
                    "periodic_bsr"
                },
                0,
                "a timer of at least 1 subframe",
            ));
        }
        Ok(())
    }
}

/// What the UE puts on the control channels in one TTI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UlControl {
    /// A scheduling request on this TTI's PUCCH opportunity.
    pub sr: bool,
    /// A BSR (buffer-size index) inside this TTI's granted transport block, or, in the ideal
    /// mode, delivered to the eNB by itself.
    pub bsr: Option<u8>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct UlMacStats {
    pub srs_sent: u64,
    pub bsrs_sent: u64,
    /// dsr-TransMax SRs went unanswered (a real UE would start random access).
    pub sr_give_ups: u64,
}

/// A timer that is not running: later than any TTI.
const NEVER: u64 = u64::MAX;

/// The UE uplink MAC's request state.
#[derive(Debug, Clone)]
pub struct UeUlMac {
    p: UlMacParams,
    /// Octets buffered at the end of the previous TTI.
    buffered: u64,
    /// A BSR is triggered and not yet sent.
    bsr_pending: bool,
    /// An SR is pending (a regular BSR found no grant).
    sr_pending: bool,
    /// SRs sent since the last grant.
    sr_count: u32,
    /// Expiry TTIs of periodicBSR-Timer and retxBSR-Timer.
    periodic_at: Option<u64>,
    /// `NEVER` while retxBSR-Timer is not running: a plain TTI, so that the MAC keeps its
    /// size with `tti` beside it (the cell's UE is laid out in cache lines).
    retx_at: u64,
    /// The TTI of the last `on_tti` call: where `busy_from` looks for the next SR
    /// opportunity.
    tti: u64,
    pub stats: UlMacStats,
}

impl UeUlMac {
    /// Panics on invalid parameters (the configuration layer validates them first).
    pub fn new(p: UlMacParams) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid UL MAC parameters: {e:?}");
        }
        Self {
            p,
            buffered: 0,
            bsr_pending: false,
            sr_pending: false,
            sr_count: 0,
            periodic_at: None,
            retx_at: NEVER,
            tti: 0,
            stats: UlMacStats::default(),
        }
    }

    /// Whether TTI `tti` (10·SFN + subframe, counted from 0) is this UE's SR opportunity.
    pub fn is_sr_opportunity(&self, tti: u64) -> bool {
        let period = self.p.sr_period as u64;
        (tti + period - self.p.sr_offset as u64) % period == 0
    }

    pub fn sr_pending(&self) -> bool {
        self.sr_pending
    }

    /// Whether [`UeUlMac::on_tti`] at `tti` with no grant and the buffer it last saw would
    /// change nothing and send nothing (no SR to send, no timer due): a caller that knows the
    /// buffer has not changed since may skip the call. A pending SR goes only on an SR
    /// opportunity (§5.4.4); between two, with the buffer and the timers as they were, the
    /// TTI changes nothing (no trigger, no grant to cancel it, no SR counted).
    pub fn idle_at(&self, tti: u64) -> bool {
        (!self.sr_pending || !self.is_sr_opportunity(tti))
            && tti < self.retx_at
            && self.periodic_at.is_none_or(|t| tti < t)
    }

    /// The first TTI after the last [`UeUlMac::on_tti`] at which [`UeUlMac::idle_at`] no
    /// longer holds: `idle_at(t)` for every t from that call up to this, and not here. That
    /// is the first due timer or, with an SR pending, the next SR opportunity (`u64::MAX` with
    /// neither). A caller that keeps it beside other per-UE values can skip an idle UE
    /// without reading its MAC, and a UE waiting for its SR's grant until its next
    /// opportunity.
    pub fn busy_from(&self) -> u64 {
        let at = |t: Option<u64>| t.unwrap_or(u64::MAX);
        let timers = self.retx_at.min(at(self.periodic_at));
        if !self.sr_pending {
            return timers;
        }
        // The first t > tti with (t + period - offset) % period == 0, i.e. t ≡ offset.
        let period = self.p.sr_period as u64;
        let offset = self.p.sr_offset as u64;
        let next = self.tti + 1;
        let r = next % period;
        let wait = if offset >= r {
            offset - r
        } else {
            offset + period - r
        };
        timers.min(next + wait)
    }

    /// Run TTI `tti`: `buffered` octets wait in the uplink buffer now (after this TTI's
    /// arrivals), `grant` octets were granted for a PUSCH in this TTI (0: none). Returns the
    /// control the UE sends in this TTI. Call once per TTI, in order.
    pub fn on_tti(&mut self, tti: u64, buffered: u64, grant: u32) -> UlControl {
        self.tti = tti;
        // Most calls (a UE waiting for its grant with the same buffer) change nothing and
        // send nothing: no arrival, no grant, no SR to send, no timer due.
        if grant == 0 && buffered == self.buffered && self.idle_at(tti) {
            return UlControl::default();
        }
        let arrived_in_empty = self.buffered == 0 && buffered > 0;
        let grew = buffered > self.buffered;
        self.buffered = buffered;
        if self.p.mode == BsrMode::Ideal {
            // ns-3: a BSR straight to the eNB whenever new data arrived; no SR at all.
            if grew {
                self.stats.bsrs_sent += 1;
                return UlControl {
                    sr: false,
                    bsr: Some(self.p.table.index(buffered)),
                };
            }
            return UlControl::default();
        }
        // Triggers (36.321 §5.4.5): regular on arrival in an empty buffer or retxBSR-Timer
        // expiry with data; periodic on periodicBSR-Timer expiry.
        let mut regular = arrived_in_empty;
        if tti >= self.retx_at {
            self.retx_at = NEVER;
            regular |= buffered > 0;
        }
        let periodic = self.periodic_at.is_some_and(|t| tti >= t);
        if periodic {
            self.periodic_at = None;
        }
        if regular || periodic {
            self.bsr_pending = true;
        }
        let mut out = UlControl::default();
        if grant > 0 {
            // A grant answers the SR (§5.4.4: pending SRs are cancelled when a grant can carry
            // the data or the BSR). The BSR rides in the transport block if it fits.
            self.sr_pending = false;
            self.sr_count = 0;
            if self.bsr_pending && grant >= SHORT_BSR_BYTES {
                out.bsr = Some(self.p.table.index(buffered));
                self.bsr_pending = false;
                self.stats.bsrs_sent += 1;
                // A BSR sent restarts both timers (§5.4.5).
                self.periodic_at = self.p.periodic_bsr.map(|p| tti + p as u64);
                self.retx_at = tti + self.p.retx_bsr as u64;
            }
        } else if regular && !self.p.sr_masked {
            // A regular BSR with no UL-SCH resource in this TTI triggers an SR.
            self.sr_pending = true;
        }
        if self.sr_pending && self.is_sr_opportunity(tti) {
            out.sr = true;
            self.stats.srs_sent += 1;
            self.sr_count += 1;
            if self.sr_count >= self.p.dsr_trans_max {
                // The UE would now start random access; counted, and the SR cycle restarts.
                self.stats.sr_give_ups += 1;
                self.sr_count = 0;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bsr_index_is_the_smallest_bound_at_or_above_the_buffer() {
        assert_eq!(bsr_index(0), 0);
        assert_eq!(bsr_index(1), 1);
        assert_eq!(bsr_index(10), 1);
        assert_eq!(bsr_index(11), 2);
        // Two 52-octet TCP ACKs with 6 octets of L2 headers each: 116 -> index 17 (<= 125).
        assert_eq!(bsr_index(116), 17);
        assert_eq!(bsr_bytes(17), 125);
        assert_eq!(bsr_index(150_000), 62);
        assert_eq!(bsr_index(150_001), 63);
        assert_eq!(bsr_bytes(63), 150_001);
        // Every bound maps to its own index, one more octet to the next.
        for (i, &b) in BSR_BOUNDS.iter().enumerate().skip(1) {
            assert_eq!(bsr_index(b as u64) as usize, i);
            assert_eq!(bsr_index(b as u64 + 1) as usize, i + 1);
        }
        assert!(BSR_BOUNDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn sr_opportunities_follow_the_period_and_offset() {
        let mac = UeUlMac::new(UlMacParams {
            sr_period: 10,
            sr_offset: 3,
            ..UlMacParams::default()
        });
        let ops: Vec<u64> = (0..40).filter(|&t| mac.is_sr_opportunity(t)).collect();
        assert_eq!(ops, vec![3, 13, 23, 33]);
        let every = UeUlMac::new(UlMacParams {
            sr_period: 1,
            ..UlMacParams::default()
        });
        assert!((0..5).all(|t| every.is_sr_opportunity(t)));
    }

    /// An ACK burst arrives at TTI 5 with T_SR = 10, offset 3: the SR goes at 13, the eNB
    /// grants at 17 for a PUSCH at 21 (model-specs §4.1), which carries the BSR.
    #[test]
    fn data_in_an_empty_buffer_raises_an_sr_at_the_next_opportunity_then_a_bsr_in_the_grant() {
        let mut mac = UeUlMac::new(UlMacParams {
            sr_offset: 3,
            ..UlMacParams::default()
        });
        let mut sent = Vec::new();
        for tti in 0..30u64 {
            let buffered = if tti >= 5 { 116 } else { 0 };
            let grant = if tti == 21 { 56 } else { 0 };
            let c = mac.on_tti(tti, buffered, grant);
            if c != UlControl::default() {
                sent.push((tti, c));
            }
        }
        assert_eq!(
            sent,
            vec![
                (
                    13,
                    UlControl {
                        sr: true,
                        bsr: None
                    }
                ),
                (
                    21,
                    UlControl {
                        sr: false,
                        bsr: Some(17)
                    }
                ),
            ]
        );
        // No SR at 23: the grant at 21 answered it. The periodic BSR (10) is due at 31.
        assert!(!mac.sr_pending());
        assert_eq!(mac.stats.srs_sent, 1);
    }

    #[test]
    fn an_unanswered_sr_repeats_every_opportunity_and_gives_up_after_dsr_trans_max() {
        let mut mac = UeUlMac::new(UlMacParams {
            sr_period: 5,
            dsr_trans_max: 4,
            ..UlMacParams::default()
        });
        let srs: Vec<u64> = (0..30u64).filter(|&t| mac.on_tti(t, 100, 0).sr).collect();
        assert_eq!(srs, vec![0, 5, 10, 15, 20, 25]);
        assert_eq!(mac.stats.sr_give_ups, 1);
    }

    #[test]
    fn periodic_and_retx_timers_trigger_bsrs_in_grants() {
        let mut mac = UeUlMac::new(UlMacParams {
            periodic_bsr: Some(5),
            retx_bsr: 320,
            ..UlMacParams::default()
        });
        // Data at 0, a grant every TTI from 1: a BSR at 1 (regular), then every 5 (periodic).
        let bsrs: Vec<u64> = (0..20u64)
            .filter(|&t| {
                mac.on_tti(t, 500, if t >= 1 { 100 } else { 0 })
                    .bsr
                    .is_some()
            })
            .collect();
        assert_eq!(bsrs, vec![1, 6, 11, 16]);
        // No periodic timer: only retxBSR-Timer brings the next BSR, 320 after the last.
        let mut mac = UeUlMac::new(UlMacParams {
            periodic_bsr: None,
            retx_bsr: 320,
            ..UlMacParams::default()
        });
        let bsrs: Vec<u64> = (0..700u64)
            .filter(|&t| {
                mac.on_tti(t, 500, if t >= 1 { 100 } else { 0 })
                    .bsr
                    .is_some()
            })
            .collect();
        assert_eq!(bsrs, vec![1, 321, 641]);
        // A grant too small for the BSR MAC CE keeps it pending.
        let mut mac = UeUlMac::new(UlMacParams::default());
        assert_eq!(mac.on_tti(0, 50, 1).bsr, None);
        assert_eq!(mac.on_tti(1, 50, 2).bsr, Some(bsr_index(50)));
    }

    #[test]
    fn ideal_mode_reports_every_arrival_and_never_sends_an_sr() {
        let mut mac = UeUlMac::new(UlMacParams {
            mode: BsrMode::Ideal,
            ..UlMacParams::default()
        });
        let out: Vec<UlControl> = [0, 40, 40, 120, 60, 100]
            .iter()
            .enumerate()
            .map(|(t, &b)| mac.on_tti(t as u64, b, 0))
            .collect();
        assert!(out.iter().all(|c| !c.sr));
        let reported: Vec<Option<u8>> = out.iter().map(|c| c.bsr).collect();
        assert_eq!(
            reported,
            vec![
                None,
                Some(bsr_index(40)),
                None,
                Some(bsr_index(120)),
                None,
                Some(bsr_index(100))
            ]
        );
    }

    /// `busy_from` is the first TTI after the last call that `idle_at` refuses, through SRs
    /// (pending ones wait for their opportunities), grants and both timers.
    #[test]
    fn busy_from_is_where_idle_at_ends() {
        for mode in [BsrMode::Standard, BsrMode::Ideal] {
            for (period, offset) in [(10, 3), (5, 0), (1, 0), (80, 79)] {
                let mut mac = UeUlMac::new(UlMacParams {
                    mode,
                    sr_period: period,
                    sr_offset: offset,
                    ..UlMacParams::default()
                });
                for t in 0..400u64 {
                    let buffered = [0, 100, 100, 250, 0][(t / 7 % 5) as usize];
                    let grant = if t % 23 == 5 { 300 } else { 0 };
                    mac.on_tti(t, buffered, grant);
                    let b = mac.busy_from();
                    assert!(b > t);
                    for s in t + 1..(t + 3000).min(b) {
                        assert!(mac.idle_at(s), "{mode:?} after {t}, at {s} < {b}");
                    }
                    assert!(
                        b == u64::MAX || !mac.idle_at(b),
                        "{mode:?} after {t}, at {b}"
                    );
                    if mac.sr_pending() {
                        // At the latest the next opportunity (a timer may come first).
                        assert!(b <= t + period as u64);
                    }
                }
            }
        }
    }

    /// A MAC run only when its buffer changed, when granted, or from `busy_from` on sends
    /// the same SRs and BSRs, and counts the same, as one run every TTI (the cell skips the
    /// idle TTIs of its UEs, a pending SR's included).
    #[test]
    fn a_mac_skipping_its_idle_ttis_sends_what_one_run_every_tti_sends() {
        for mode in [BsrMode::Standard, BsrMode::Ideal] {
            for (period, offset, dsr) in [(10, 3, 4), (5, 1, 64), (1, 0, 8), (20, 0, 4)] {
                let p = UlMacParams {
                    mode,
                    sr_period: period,
                    sr_offset: offset,
                    dsr_trans_max: dsr,
                    periodic_bsr: Some(16),
                    retx_bsr: 320,
                    ..UlMacParams::default()
                };
                let mut every = UeUlMac::new(p.clone());
                let mut woken = UeUlMac::new(p);
                let mut wake = 0u64;
                let mut last_buffer = 0u64;
                for t in 0..3000u64 {
                    // Bursts, long waits with data (SRs unanswered up to dsr-TransMax), and
                    // grants now and then.
                    let buffered = [0, 100, 100, 100, 100, 250, 0, 0][(t / 37 % 8) as usize];
                    let grant = if t % 97 == 40 || t % 211 == 3 { 300 } else { 0 };
                    let a = every.on_tti(t, buffered, grant);
                    let b = if grant > 0 || buffered != last_buffer || t >= wake {
                        let c = woken.on_tti(t, buffered, grant);
                        wake = woken.busy_from();
                        last_buffer = buffered;
                        c
                    } else {
                        UlControl::default()
                    };
                    assert_eq!(a, b, "{mode:?} T_SR {period} at {t}");
                }
                assert_eq!(every.stats, woken.stats);
                assert_eq!(every.sr_pending(), woken.sr_pending());
            }
        }
    }

    #[test]
    fn parameters_outside_the_standard_sets_are_refused() {
        let bad = |p: UlMacParams| p.validate().unwrap_err().field;
        let d = UlMacParams::default;
        assert_eq!(
            bad(UlMacParams {
                sr_period: 3,
                ..d()
            }),
            "sr_period"
        );
        assert_eq!(
            bad(UlMacParams {
                sr_offset: 10,
                ..d()
            }),
            "sr_offset"
        );
        assert_eq!(
            bad(UlMacParams {
                dsr_trans_max: 5,
                ..d()
            }),
            "dsr_trans_max"
        );
        assert_eq!(
            bad(UlMacParams {
                periodic_bsr: Some(0),
                ..d()
            }),
            "periodic_bsr"
        );
        assert!(d().validate().is_ok());
    }
}
