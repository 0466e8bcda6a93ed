//! A proportional-fair downlink scheduler, sans-IO (model-specs §4.4, ns-3's
//! `PfFfMacScheduler` as the reference).
//!
//! Per TTI the caller lists the UEs with downlink data (their wideband MCS and backlog); the
//! scheduler hands out the band's PRBs in order of the PF metric m_i = r_i / R̄_i, r_i the
//! rate the UE would get on the whole band (TBS(MCS_i, N) per TTI) and R̄_i its EWMA
//! throughput with time constant t_c. With a wideband CQI every RBG has the same metric order,
//! so "each RBG to argmax m_i" gives the band to the best UE; here a UE takes only the PRBs
//! that empty its backlog and the rest goes down the order (a work-conserving refinement: ns-3
//! hands a UE RBGs it cannot fill).
//!
//! The work of a TTI grows with the number of UEs that have data, not with all UEs, and a TTI
//! allocates nothing once the scratch buffers have grown: R̄ of a UE that was not a candidate
//! is decayed lazily, (1 − 1/t_c)^Δ on its next use, which equals updating it every TTI with
//! 0 bits.

use crate::error::ParamError;

use std::sync::Arc;

use super::pdcch::DciBudget;
use crate::radio::cell::{TbKind, TbsTable, MCS_COUNT};

#[derive(Debug, Clone, PartialEq)]
pub struct PfParams {
    /// PRBs of the band (25, 50 or 100 for 5, 10, 20 MHz).
    pub n_prb: u32,
    /// EWMA time constant in TTIs (ns-3: 99 + 1).
    pub t_c: f64,
    /// R̄ before the first service, bit/s (ns-3: 1).
    pub initial_avg_bps: f64,
    /// Transport block sizes of the RAT (LTE's, or NR's for the NR cell).
    pub tbs: Arc<TbsTable>,
    /// TTI (slot) length, s: the rates are per TTI.
    pub tti_s: f64,
}

impl Default for PfParams {
    fn default() -> Self {
        Self {
            n_prb: 100,
            t_c: 100.0,
            initial_avg_bps: 1.0,
            tbs: Arc::new(TbsTable::lte(100)),
            tti_s: 1e-3,
        }
    }
}

impl PfParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(1..=self.tbs.n_prb()).contains(&self.n_prb) {
            return Err(ParamError::new(
                "n_prb",
                self.n_prb,
                format!("1..={}", self.tbs.n_prb()),
            ));
        }
        if !(self.t_c.is_finite() && self.t_c >= 1.0) {
            return Err(ParamError::new("t_c", self.t_c, "a number of TTIs >= 1"));
        }
        if !(self.initial_avg_bps.is_finite() && self.initial_avg_bps > 0.0) {
            return Err(ParamError::new(
                "initial_avg_bps",
                self.initial_avg_bps,
                "a rate > 0",
            ));
        }
        Ok(())
    }
}

/// Decay powers [`PfScheduler`] keeps at hand.
const DECAY_TABLE: u64 = 64;

/// A UE with downlink data this TTI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    pub ue: u32,
    /// Wideband MCS (0..=28).
    pub mcs: u8,
    /// Octets waiting (RLC, headers included).
    pub backlog: u32,
    /// CCEs of its DCI (its aggregation level).
    pub cce: u8,
    /// Most PRBs it should be granted (uplink: what its power headroom allows; `u32::MAX`:
    /// no limit).
    pub max_prb: u32,
}

/// An allocation: `n_prb` PRBs carrying a transport block of `tbs` octets at MCS `mcs` (the
/// candidate's, so that the caller needs no search of the candidates for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocation {
    pub ue: u32,
    pub n_prb: u32,
    pub tbs: u32,
    pub mcs: u8,
}

/// The scheduler's per-UE state: R̄ and when it was last brought up to date.
#[derive(Debug, Clone)]
pub struct PfScheduler {
    p: PfParams,
    avg_bps: Vec<f64>,
    updated: Vec<u64>,
    /// Scratch: each candidate's [`order_key`], reused every TTI.
    order: Vec<u128>,
    /// Scratch per candidate: R̄ decayed to this TTI (worked out once for the metric and
    /// reused by a served UE's update, a power per candidate saved).
    avg_now: Vec<f64>,
    /// (1 − 1/t_c)^d for d < [`DECAY_TABLE`], each the very `powi` that `avg_bps` would
    /// take (an uplink candidate is seen once per PUSCH slot, d > 1 every time).
    decay: Vec<f64>,
    /// The whole band's rate at each MCS, bit/s, per channel (PDSCH, PUSCH): the metric's r_i.
    full_rate: [[f64; MCS_COUNT]; 2],
}

impl PfScheduler {
    /// Panics on invalid parameters (validated by the configuration layer first).
    pub fn new(p: PfParams, ues: usize) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid PF parameters: {e:?}");
        }
        // Bits per TTI (TBS are whole octets, so octets · 8 is the bit count exactly).
        let rate = |kind: TbKind| -> [f64; MCS_COUNT] {
            std::array::from_fn(|m| {
                if m as u8 > p.tbs.max_mcs(kind) {
                    return 0.0;
                }
                (p.tbs.octets(kind, m as u8, p.n_prb) * 8) as f64 / p.tti_s
            })
        };
        Self {
            avg_bps: vec![p.initial_avg_bps; ues],
            updated: vec![0; ues],
            order: Vec::with_capacity(ues),
            avg_now: Vec::with_capacity(ues),
            decay: {
                let keep = 1.0 - 1.0 / p.t_c;
                // `black_box`: the exponent stays a run-time value, as in `avg_bps`, so
                // the compiler cannot expand a constant power some other way.
                (0..DECAY_TABLE)
                    .map(|d| keep.powi(std::hint::black_box(d as i32)))
                    .collect()
            },
            full_rate: [rate(TbKind::Dl), rate(TbKind::Ul)],
            p,
        }
    }

    /// R̄ of `ue` at `tti` (before this TTI's service).
    pub fn avg_bps(&self, ue: u32, tti: u64) -> f64 {
        let i = ue as usize;
        let keep = 1.0 - 1.0 / self.p.t_c;
        // keep^0 = 1 and keep^1 = keep exactly: the usual cases cost no power.
        match tti.saturating_sub(self.updated[i]) {
            0 => self.avg_bps[i],
            1 => self.avg_bps[i] * keep,
            d if d < DECAY_TABLE => self.avg_bps[i] * self.decay[d as usize],
            d => self.avg_bps[i] * keep.powi(d as i32),
        }
    }

    /// Allocate TTI `tti`'s PRBs, minus `reserved` (HARQ retransmissions go first, model-specs
    /// §4.4 step 1), among `candidates` (UEs with data, each once) into `out` (cleared
    /// first), in metric order; a UE whose DCI the `budget` cannot carry is passed over and
    /// the next one tried. The metric's rate is always the whole band's in a full downlink
    /// slot; the blocks are of `kind` (a TDD special slot's are smaller).
    pub fn schedule_kind(
        &mut self,
        tti: u64,
        reserved: u32,
        candidates: &[Candidate],
        budget: &mut DciBudget,
        out: &mut Vec<Allocation>,
        kind: TbKind,
    ) {
        out.clear();
        let n = self.p.n_prb;
        self.rank(0, tti, candidates);
        let mut left = n.saturating_sub(reserved);
        for pos in 0..self.order.len() {
            if left == 0 {
                break;
            }
            let k = select_next(&mut self.order, pos);
            let c = candidates[k];
            if !budget.admit(c.ue, c.cce) {
                continue;
            }
            // The fewest PRBs that carry the backlog, or all that are left.
            let n_prb = self
                .p
                .tbs
                .prbs_for(kind, c.mcs, c.backlog, left)
                .unwrap_or(left);
            let tbs = self.p.tbs.octets(kind, c.mcs, n_prb);
            out.push(Allocation {
                ue: c.ue,
                n_prb,
                tbs,
                mcs: c.mcs,
            });
            self.serve(k, c.ue, tbs);
            left -= n_prb;
        }
    }

    /// [`PfScheduler::schedule_kind`] in a full downlink TTI.
    pub fn schedule(
        &mut self,
        tti: u64,
        reserved: u32,
        candidates: &[Candidate],
        budget: &mut DciBudget,
        out: &mut Vec<Allocation>,
    ) {
        self.schedule_kind(tti, reserved, candidates, budget, out, TbKind::Dl);
    }

    /// The candidates' metrics at TTI `tti` on channel `ch` (0 PDSCH, 1 PUSCH) into `order`,
    /// their R̄ then into `avg_now`; and each candidate's R̄ after the TTI as if unserved,
    /// (R̄ decayed) · (1 − 1/t_c), which [`PfScheduler::serve`] corrects for the served ones.
    /// The unserved update is R̄·keep + 0/t_c, and adding +0.0 to a non-negative product
    /// leaves it as it is: the same bits as a second pass over the candidates after the
    /// allocation, at the TTI's one read of each UE's R̄ (most candidates are not served).
    fn rank(&mut self, ch: usize, tti: u64, candidates: &[Candidate]) {
        let keep = 1.0 - 1.0 / self.p.t_c;
        let mut avg_now = std::mem::take(&mut self.avg_now);
        let mut order = std::mem::take(&mut self.order);
        // One pass, each list written at an exact size (no capacity check per element).
        avg_now.clear();
        avg_now.resize(candidates.len(), 0.0);
        order.clear();
        order.extend(candidates.iter().zip(avg_now.iter_mut()).enumerate().map(
            |(k, (c, slot))| {
                let avg = self.avg_bps(c.ue, tti);
                let i = c.ue as usize;
                self.avg_bps[i] = avg * keep;
                self.updated[i] = tti + 1;
                *slot = avg;
                order_key(self.full_rate[ch][c.mcs as usize] / avg, k)
            },
        ));
        self.order = order;
        self.avg_now = avg_now;
    }

    /// Candidate `k` (UE `ue`) is served a block of `tbs` octets this TTI: its R̄ after the
    /// TTI is the decayed one times (1 − 1/t_c) plus what it got over t_c.
    fn serve(&mut self, k: usize, ue: u32, tbs: u32) {
        let keep = 1.0 - 1.0 / self.p.t_c;
        let got = tbs as f64 * 8.0 / self.p.tti_s;
        self.avg_bps[ue as usize] = self.avg_now[k] * keep + got / self.p.t_c;
    }
}

/// How the uplink is shared (model-specs §4.4 steps 5-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UlMode {
    /// PF order; each UE a contiguous chunk sized to empty its reported buffer, rounded down
    /// to an allowed PUSCH size (2^a 3^b 5^c) and at least `min_prb`.
    Pf { min_prb: u32 },
    /// ns-3's `PfFfMacScheduler` uplink: equal shares of max(available / candidates, min_prb)
    /// PRBs, round-robin from where the last TTI stopped.
    RoundRobin { min_prb: u32 },
}

/// A UE asking for uplink resources: its UL MCS and what it still needs (last BSR minus
/// what is already granted).
pub type UlCandidate = Candidate;

/// The uplink scheduler: the PF state of [`PfScheduler`] (with PUSCH TBS) or a round-robin
/// pointer.
#[derive(Debug, Clone)]
pub struct UlScheduler {
    mode: UlMode,
    pf: PfScheduler,
    next_rr: u32,
}

impl UlScheduler {
    pub fn new(mode: UlMode, p: PfParams, ues: usize) -> Self {
        let min = match mode {
            UlMode::Pf { min_prb } | UlMode::RoundRobin { min_prb } => min_prb,
        };
        assert!(
            (1..=p.n_prb).contains(&min),
            "min_prb must be 1..=n_prb, not {min}"
        );
        Self {
            mode,
            pf: PfScheduler::new(p, ues),
            next_rr: 0,
        }
    }

    /// Grant TTI `tti`'s uplink PRBs, minus `reserved` (synchronous HARQ retransmissions keep
    /// theirs), among `candidates` (sorted by UE, each once) into `out` (cleared first). A
    /// UE gets at most its `max_prb` (its power headroom) unless `min_prb` is more; one whose
    /// DCI the `budget` cannot carry is passed over.
    pub fn schedule(
        &mut self,
        tti: u64,
        reserved: u32,
        candidates: &[UlCandidate],
        budget: &mut DciBudget,
        out: &mut Vec<Allocation>,
    ) {
        out.clear();
        let n = self.pf.p.n_prb;
        let mut left = n.saturating_sub(reserved);
        if candidates.is_empty() {
            return;
        }
        let table = Arc::clone(&self.pf.p.tbs);
        let grant = |c: &Candidate, n_prb: u32| Allocation {
            ue: c.ue,
            n_prb,
            tbs: table.octets(TbKind::Ul, c.mcs, n_prb),
            mcs: c.mcs,
        };
        match self.mode {
            UlMode::Pf { min_prb } => {
                self.pf.rank(1, tti, candidates);
                for pos in 0..self.pf.order.len() {
                    let k = select_next(&mut self.pf.order, pos);
                    let c = candidates[k];
                    let want = table
                        .prbs_for(TbKind::Ul, c.mcs, c.backlog, left)
                        .unwrap_or(left)
                        .max(min_prb)
                        .min(c.max_prb.max(min_prb));
                    let Some(n_prb) = table.largest_ul_prb(want.min(left)) else {
                        break;
                    };
                    if n_prb < min_prb {
                        break;
                    }
                    if !budget.admit(c.ue, c.cce) {
                        continue;
                    }
                    let a = grant(&c, n_prb);
                    self.pf.serve(k, c.ue, a.tbs);
                    out.push(a);
                    left -= n_prb;
                }
            }
            UlMode::RoundRobin { min_prb } => {
                let share = (left / candidates.len() as u32).max(min_prb);
                let Some(share) = table.largest_ul_prb(share.min(left)) else {
                    return;
                };
                if share < min_prb {
                    return;
                }
                // Start at the first candidate at or after the pointer, wrapping around.
                let start = candidates
                    .iter()
                    .position(|c| c.ue >= self.next_rr)
                    .unwrap_or(0);
                for k in 0..candidates.len() {
                    if left < share {
                        break;
                    }
                    let c = candidates[(start + k) % candidates.len()];
                    let n_prb = if c.max_prb < share {
                        table
                            .largest_ul_prb(c.max_prb.max(min_prb))
                            .unwrap_or(min_prb)
                    } else {
                        share
                    };
                    if !budget.admit(c.ue, c.cce) {
                        continue;
                    }
                    out.push(grant(&c, n_prb));
                    left -= n_prb;
                    self.next_rr = c.ue + 1;
                }
            }
        }
    }
}

/// Candidate `k` with `metric` as one integer whose order is the metric order: highest
/// metric first by `f64::total_cmp`, ties by candidate index, as a stable sort would leave
/// them. The high half is the metric's bits made to compare as unsigned integers in
/// `total_cmp`'s order, the low half `!k`, so that the lower index is the greater key; the
/// keys are distinct, and a maximum is one compare of two integers per candidate.
#[inline]
fn order_key(metric: f64, k: usize) -> u128 {
    let b = metric.to_bits();
    // total_cmp's key (negatives' magnitude bits flipped), then the sign bit flipped so that
    // the signed order becomes the unsigned one.
    let total = b ^ ((((b as i64) >> 63) as u64) >> 1) ^ (1 << 63);
    (u128::from(total) << 64) | u128::from(!(k as u64))
}

/// Move the next entry in metric order ([`order_key`]) to `order[pos]`, entries before `pos`
/// being placed already, and return its candidate index. A TTI usually serves one or two UEs
/// of a sector: selecting them costs less than sorting every candidate.
fn select_next(order: &mut [u128], pos: usize) -> usize {
    let mut best = pos;
    for j in pos + 1..order.len() {
        if order[j] > order[best] {
            best = j;
        }
    }
    order.swap(pos, best);
    !(order[pos] as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::lte::tbs::{largest_allowed_ul_prb, tbs_for_mcs, Channel};

    const TTI_S: f64 = 1e-3;

    fn cand(ue: u32, mcs: u8, backlog: u32) -> Candidate {
        Candidate {
            ue,
            mcs,
            backlog,
            cce: 1,
            max_prb: u32::MAX,
        }
    }

    fn free() -> DciBudget {
        DciBudget::UNLIMITED
    }

    #[test]
    fn a_full_buffer_ue_alone_gets_the_whole_band() {
        let mut s = PfScheduler::new(PfParams::default(), 3);
        let mut out = Vec::new();
        s.schedule(0, 0, &[cand(1, 28, 1_000_000)], &mut free(), &mut out);
        let tbs = tbs_for_mcs(Channel::Pdsch, 28, 100).unwrap() / 8;
        assert_eq!(
            out,
            vec![Allocation {
                ue: 1,
                n_prb: 100,
                tbs,
                mcs: 28,
            }]
        );
    }

    #[test]
    fn a_small_backlog_takes_only_the_prbs_it_needs_and_the_rest_goes_on() {
        let mut s = PfScheduler::new(PfParams::default(), 2);
        let mut out = Vec::new();
        // Both unserved (equal R̄): the higher rate goes first, needs few PRBs for 500 octets.
        s.schedule(
            0,
            0,
            &[cand(0, 10, 1_000_000), cand(1, 20, 500)],
            &mut free(),
            &mut out,
        );
        assert_eq!(out[0].ue, 1);
        let n1 = out[0].n_prb;
        assert!(tbs_for_mcs(Channel::Pdsch, 20, n1).unwrap() / 8 >= 500);
        assert!(tbs_for_mcs(Channel::Pdsch, 20, n1 - 1).unwrap() / 8 < 500);
        assert_eq!(
            out[1],
            Allocation {
                ue: 0,
                n_prb: 100 - n1,
                tbs: tbs_for_mcs(Channel::Pdsch, 10, 100 - n1).unwrap() / 8,
                mcs: 10,
            }
        );
    }

    /// Two full-buffer UEs of different MCS: PF alternates so that each gets about half the
    /// TTIs (the metric normalises by each UE's own average), unlike max-rate.
    #[test]
    fn two_full_buffer_ues_share_the_ttis_about_equally() {
        let mut s = PfScheduler::new(PfParams::default(), 2);
        let mut out = Vec::new();
        let mut served = [0u32; 2];
        for tti in 0..10_000 {
            s.schedule(
                tti,
                0,
                &[cand(0, 5, u32::MAX), cand(1, 25, u32::MAX)],
                &mut free(),
                &mut out,
            );
            served[out[0].ue as usize] += 1;
        }
        assert!((4900..=5100).contains(&served[0]), "{served:?}");
        // R̄ converges to half of each UE's full-band rate.
        for (ue, mcs) in [(0u32, 5u8), (1, 25)] {
            let full = tbs_for_mcs(Channel::Pdsch, mcs, 100).unwrap() as f64 / TTI_S;
            let ratio = s.avg_bps(ue, 10_000) / full;
            assert!((0.45..0.55).contains(&ratio), "ue {ue}: {ratio}");
        }
    }

    #[test]
    fn lazy_decay_equals_decaying_every_tti() {
        let p = PfParams::default();
        let mut s = PfScheduler::new(p.clone(), 2);
        let mut out = Vec::new();
        s.schedule(0, 0, &[cand(0, 15, u32::MAX)], &mut free(), &mut out);
        let after = s.avg_bps(0, 1);
        // 40 TTIs without data: one power instead of 40 updates.
        let mut r = after;
        for _ in 0..40 {
            r *= 1.0 - 1.0 / p.t_c;
        }
        assert!((s.avg_bps(0, 41) - r).abs() <= 1e-9 * r);
        // The idle UE 1 was never touched: its R̄ decays from the initial value alone.
        assert!(s.avg_bps(1, 41) < p.initial_avg_bps);
    }

    /// The keys order as `total_cmp` on the metric, then the lower candidate index, would:
    /// on signs, zeros, infinities, NaNs, subnormals and ties.
    #[test]
    fn order_keys_order_as_the_metric_then_the_index() {
        let ms = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE / 2.0,
            -0.0,
            0.0,
            f64::MIN_POSITIVE / 2.0,
            1.0,
            1.0 + f64::EPSILON,
            3.5e6,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for (i, &a) in ms.iter().enumerate() {
            for (j, &b) in ms.iter().enumerate() {
                for (ka, kb) in [(0, 1), (1, 0), (7, 7), (3, 40)] {
                    let want = a.total_cmp(&b).then_with(|| kb.cmp(&ka));
                    let got = order_key(a, ka).cmp(&order_key(b, kb));
                    assert_eq!(got, want, "{i} {j} {ka} {kb}");
                }
            }
        }
    }

    #[test]
    fn no_allocation_after_warm_up() {
        let mut s = PfScheduler::new(PfParams::default(), 40);
        let cands: Vec<Candidate> = (0..40).map(|u| cand(u, (u % 28) as u8, 300)).collect();
        let mut out = Vec::with_capacity(40);
        s.schedule(0, 0, &cands, &mut free(), &mut out);
        let (cap_out, cap_order) = (out.capacity(), s.order.capacity());
        for tti in 1..100 {
            s.schedule(tti, 0, &cands, &mut free(), &mut out);
        }
        assert_eq!((out.capacity(), s.order.capacity()), (cap_out, cap_order));
        assert!(out.iter().map(|a| a.n_prb).sum::<u32>() <= 100);
    }

    fn ul(mode: UlMode, ues: usize) -> UlScheduler {
        UlScheduler::new(mode, PfParams::default(), ues)
    }

    #[test]
    fn ul_pf_grants_an_allowed_chunk_sized_to_the_buffer() {
        let mut s = ul(UlMode::Pf { min_prb: 1 }, 2);
        let mut out = Vec::new();
        // Two 58-octet ACKs reported at MCS 10: the smallest PUSCH block that carries 116
        // octets, rounded down to an allowed PRB count.
        s.schedule(0, 0, &[cand(0, 10, 116)], &mut free(), &mut out);
        let need = TbsTable::lte(100)
            .prbs_for(TbKind::Ul, 10, 116, 100)
            .unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].n_prb, largest_allowed_ul_prb(need).unwrap());
        assert!(is_allowed(out[0].n_prb));
        // A big buffer takes the band: 100 is 2^2 5^2, allowed.
        s.schedule(1, 0, &[cand(1, 10, 1_000_000)], &mut free(), &mut out);
        assert_eq!(out[0].n_prb, 100);
        // Reserved PRBs (HARQ retransmissions) are not granted: 100 - 93 = 7 -> 6 (2 x 3).
        s.schedule(2, 93, &[cand(1, 10, 1_000_000)], &mut free(), &mut out);
        assert_eq!(out[0].n_prb, 6);
    }

    #[test]
    fn ul_round_robin_shares_equally_with_a_minimum_and_rotates() {
        let mut s = ul(UlMode::RoundRobin { min_prb: 3 }, 40);
        let mut out = Vec::new();
        let three: Vec<Candidate> = (0..3).map(|u| cand(u, 0, 10_000)).collect();
        s.schedule(0, 0, &three, &mut free(), &mut out);
        // 100 / 3 = 33 -> 32 (2^5) each.
        assert_eq!(
            out.iter().map(|a| a.n_prb).collect::<Vec<_>>(),
            vec![32, 32, 32]
        );
        assert_eq!(out[0].tbs, tbs_for_mcs(Channel::Pusch, 0, 32).unwrap() / 8);
        // 40 UEs: max(100 / 40, 3) = 3 PRBs each, 33 UEs per TTI; the next TTI goes on from
        // the 34th and wraps, so every UE is served within two TTIs.
        let forty: Vec<Candidate> = (0..40).map(|u| cand(u, 0, 10_000)).collect();
        let mut seen = [0u32; 40];
        for tti in 1..3 {
            s.schedule(tti, 0, &forty, &mut free(), &mut out);
            assert_eq!(out.len(), 33);
            assert!(out.iter().all(|a| a.n_prb == 3));
            for a in &out {
                seen[a.ue as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n >= 1), "{seen:?}");
    }

    #[test]
    fn ul_grants_never_exceed_the_prbs_left() {
        let mut rng = crate::engine::RngStream::new(4, 0, 0);
        let mut out = Vec::new();
        for mode in [UlMode::Pf { min_prb: 2 }, UlMode::RoundRobin { min_prb: 3 }] {
            let mut s = ul(mode, 60);
            for tti in 0..500 {
                let reserved = (rng.uniform() * 100.0) as u32;
                let mut cands = Vec::new();
                for u in 0..60u32 {
                    if rng.uniform() < 0.3 {
                        let mcs = (rng.uniform() * 28.0) as u8;
                        cands.push(cand(u, mcs, 1 + (rng.uniform() * 5000.0) as u32));
                    }
                }
                s.schedule(tti, reserved, &cands, &mut free(), &mut out);
                let used: u32 = out.iter().map(|a| a.n_prb).sum();
                assert!(
                    used <= 100 - reserved.min(100),
                    "{mode:?}: {used} + {reserved}"
                );
                assert!(out.iter().all(|a| is_allowed(a.n_prb) && a.tbs > 0));
            }
        }
    }

    fn is_allowed(n: u32) -> bool {
        super::super::tbs::is_allowed_ul_prb(n)
    }

    /// More UL candidates than CCEs: the UEs are tried in PF order (all unserved, so by
    /// rate: the higher MCS first) and exactly those whose DCI still fits are granted; a UE
    /// too expensive is passed over for a cheaper one further down.
    #[test]
    fn a_tti_with_more_candidates_than_cces_grants_exactly_the_ones_the_order_picks() {
        let mut s = ul(UlMode::Pf { min_prb: 1 }, 6);
        let mut out = Vec::new();
        let c = |ue, mcs, cce| Candidate {
            cce,
            ..cand(ue, mcs, 116)
        };
        // Order by MCS: 5 (20, AL 8), 3 (18, AL 4), 1 (16, AL 4), 4 (14, AL 2), 0 (12, AL 1),
        // 2 (10, AL 8). 14 CCEs: 5 takes 8, 3 takes 4, 1 is blocked (2 left), 4 takes 2,
        // 0 and 2 are blocked.
        let cands = [
            c(0, 12, 1),
            c(1, 16, 4),
            c(2, 10, 8),
            c(3, 18, 4),
            c(4, 14, 2),
            c(5, 20, 8),
        ];
        let mut budget = DciBudget::new(14, u32::MAX);
        s.schedule(0, 0, &cands, &mut budget, &mut out);
        assert_eq!(out.iter().map(|a| a.ue).collect::<Vec<_>>(), vec![5, 3, 4]);
        assert_eq!((budget.cce_left, budget.blocked_cce), (0, 3));
        // The same TTI for the DL scheduler with a cap of two UEs: the two best, then blocked.
        let mut dl = PfScheduler::new(PfParams::default(), 6);
        let mut budget = DciBudget::new(84, 2);
        dl.schedule(0, 0, &cands, &mut budget, &mut out);
        assert_eq!(out.iter().map(|a| a.ue).collect::<Vec<_>>(), vec![5, 3]);
        assert_eq!(budget.blocked_cap, 4);
    }

    #[test]
    fn ul_grants_stay_within_the_power_headroom() {
        let mut out = Vec::new();
        // A big buffer, headroom for 7 PRBs: granted 6 (the largest allowed size <= 7), not 100.
        let limited = Candidate {
            max_prb: 7,
            ..cand(0, 10, 1_000_000)
        };
        let mut s = ul(UlMode::Pf { min_prb: 1 }, 2);
        s.schedule(0, 0, &[limited], &mut free(), &mut out);
        assert_eq!(out[0].n_prb, 6);
        // min_prb wins over the headroom (the UE is then power-limited).
        let mut s = ul(UlMode::Pf { min_prb: 9 }, 2);
        s.schedule(0, 0, &[limited], &mut free(), &mut out);
        assert_eq!(out[0].n_prb, 9);
        // Round robin: the share is cut to the headroom.
        let mut s = ul(UlMode::RoundRobin { min_prb: 3 }, 2);
        s.schedule(
            0,
            0,
            &[limited, cand(1, 10, 1_000_000)],
            &mut free(),
            &mut out,
        );
        assert_eq!(out.iter().map(|a| a.n_prb).collect::<Vec<_>>(), vec![6, 50]);
    }

    #[test]
    fn parameters_are_checked() {
        let d = PfParams::default;
        assert!(d().validate().is_ok());
        assert_eq!(
            PfParams { n_prb: 0, ..d() }.validate().unwrap_err().field,
            "n_prb"
        );
        assert_eq!(
            PfParams { t_c: 0.5, ..d() }.validate().unwrap_err().field,
            "t_c"
        );
    }
}
