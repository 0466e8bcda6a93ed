//! What a radio access technology gives the shared cell model (`node/lte.rs`): the transport
//! block size of an allocation and the link curves of its MCS table (10 % BLER thresholds and
//! the BLER waterfall). The LTE cell builds them from TS 36.213's tables and the LTE-Sim
//! curves (`lte::tbs`, `lte::amc`); the NR cell from TS 38.214's MCS tables and its computed
//! TBS (`nr::tbs`), with thresholds at equal spectral efficiency (docs/models/nr-cell.md).
//!
//! Both are looked up, not computed, in the scheduler's inner loops: a table of every
//! (block kind, MCS, PRB count) is built once per run.

use std::sync::Arc;

use crate::engine::Time;

use super::lte::amc::{bler_sigma_db, q_function, CQI_BLER_SIGMA_DB, CQI_EFFICIENCY};
use super::lte::amc::{CQI_SINR_10PCT_DB, MCS_SINR_10PCT_DB, Z_90};
use super::lte::fading::FadingModel;
use super::lte::geometry::CellParams;
use super::lte::rlc::LteRlcParams;
use super::lte::tbs::{largest_allowed_ul_prb, tbs_for_mcs, Channel};
use super::lte::ul_mac::{BsrTable, UlMacParams};
use super::nr::duplex::Duplex;
use super::nr::tbs::{self as nr_tbs, McsTable, ReBudget};
use super::{db_to_lin, lin_to_db};

/// What the radio access technology sets in the cell model (`node/lte.rs`). LTE's
/// (`LteConfig::rat`) gives the LTE cell (model-specs §4.1: 1 ms TTIs, PUSCH and HARQ
/// feedback at n + 4, retransmissions at n + 8, TS 36.213 TBS); NR's (`NrConfig::rat`) its
/// slot, TDD pattern, K1/K2 timing, TS 38.214 TBS and link curves, configured grants (issue
/// 25; docs/models/nr-cell.md).
#[derive(Debug, Clone)]
pub struct Rat {
    /// NR: the metrics are `nr.*`, and NR's counters are reported.
    pub nr: bool,
    /// TTI (slot) length.
    pub slot: Time,
    /// Downlink PRBs; PUSCH PRBs (the uplink carrier less the PUCCH region).
    pub n_prb: u32,
    pub pusch_prb: u32,
    /// CCEs per sector and downlink slot (`u32::MAX`: no PDCCH budget).
    pub cce_total: u32,
    /// Slots from a PDSCH to its HARQ feedback at the earliest (NR K1; LTE 4).
    pub k1: u64,
    /// Slots from an uplink grant to its PUSCH at the earliest (NR K2; LTE 4).
    pub k2: u64,
    /// Slots from a PUSCH to the base station's decision on it (LTE: PHICH at n + 4; NR:
    /// the gNB's processing).
    pub ul_decision: u64,
    /// Slots from downlink HARQ feedback to the earliest retransmission (LTE 4: the HARQ RTT
    /// of 8).
    pub retx_gap: u64,
    pub duplex: Duplex,
    pub tbs: Arc<TbsTable>,
    /// Link curves of the downlink's and the uplink's MCS tables.
    pub curves: [LinkCurves; 2],
    pub bsr: BsrTable,
    /// Configured uplink grants (NR, TS 38.321 §5.8.2).
    pub configured_grant: Option<ConfiguredGrant>,
    /// LTE PRBs (180 kHz) per PRB of this numerology: the power-control PRB count M of an
    /// NR grant is 2^μ times its PRBs (TS 38.213 §7.1.1).
    pub prb_lte: u32,
    /// The site layout and its link budget.
    pub cell: CellParams,
    /// Fast fading, sampled once per slot.
    pub fading: FadingModel,
    /// The UEs' uplink MAC (its SR offset set per UE from `sr_offsets`).
    pub ul_mac: UlMacParams,
    /// SR offsets UE u takes in turn (`sr_offsets[u mod len]`).
    pub sr_offsets: Vec<u32>,
    /// Both ends' RLC (LTE's, or NR's flavour: no concatenation, a MAC subheader per PDU).
    pub rlc: LteRlcParams,
    /// MAC header octets per transport block outside the RLC's accounting (LTE: one
    /// subheader; NR: 0, its subheaders are per RLC PDU, inside `rlc`).
    pub mac_header: u32,
    /// How retransmissions are scheduled.
    pub harq: HarqMode,
}

/// How HARQ retransmissions are scheduled. The default is LTE's (model-specs §4.1): a
/// downlink retransmission always goes at its time with its first PRBs and MCS (its DCI is
/// charged, even beyond the CORESET), an uplink one is triggered on the PHICH and needs no DCI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HarqMode {
    /// Every retransmission, in either link, needs a DCI (NR has no PHICH, TS 38.213 §9.1)
    /// and waits for the next slot its link can use when the CORESET's CCEs or the PRBs are
    /// short (asynchronous HARQ, TS 38.321 §5.3.2, §5.4.2).
    pub dci_every_retx: bool,
    /// A retransmission keeps its TBS but takes the PRBs that carry it at the UE's current
    /// MCS (NR: MCS 29-31 of the 64QAM table and 28-31 of the 256QAM table signal the
    /// modulation alone and the TBS comes from the first DCI, TS 38.214 §5.1.3.1, §6.1.4.1).
    pub adaptive: bool,
}

/// Periodic PUSCH occasions without SR or DCI (type 1: RRC-configured; type 2: activated by
/// one DCI), each UE its own phase.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfiguredGrant {
    /// Period, slots.
    pub period: u64,
    pub n_prb: u32,
    /// A fixed MCS, or `None`: the UE's uplink link adaptation at each occasion.
    pub mcs: Option<u8>,
}

impl Rat {
    /// The PUSCH slots whose grants go out in downlink slot `n`: every PUSCH slot t whose
    /// latest downlink slot at or before t − K2 is n (FDD: n + K2 alone).
    pub fn ul_targets(&self, n: u64, out: &mut Vec<u64>) {
        out.clear();
        let end = self.duplex.next_dl(n + 1) + self.k2;
        for t in n + self.k2..end {
            if self.duplex.has_pusch(t) {
                out.push(t);
            }
        }
    }
}

/// MCS indices a table may hold (LTE and NR 64QAM: 0..=28; NR 256QAM: 0..=27).
pub const MCS_COUNT: usize = 29;

/// Which transport block an allocation carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TbKind {
    /// PDSCH in a slot whose symbols are all downlink (every LTE TTI).
    Dl = 0,
    /// PUSCH.
    Ul = 1,
    /// PDSCH in a TDD special slot: only its downlink symbols.
    DlSpecial = 2,
}

const KINDS: usize = 3;

/// Transport block sizes in octets by kind, MCS and PRB count (0..=`n_prb`).
#[derive(Debug, Clone, PartialEq)]
pub struct TbsTable {
    n_prb: u32,
    /// Highest MCS of each kind's table.
    max_mcs: [u8; KINDS],
    /// PUSCH sizes restricted to 2^a 3^b 5^c PRBs (LTE's SC-FDMA, TS 36.211 §5.3.3; NR's
    /// CP-OFDM PUSCH has no such rule).
    ul_prb_rule: bool,
    /// Resource elements per PRB of each kind (NR's N'_RE, TS 38.214 §5.1.3.2; LTE: 1, only
    /// ratios within a kind are used): what a retransmission's energy is counted in.
    re_per_prb: [u32; KINDS],
    octets: Vec<u32>,
    /// Per row (kind and MCS): PRBs per octet of the whole band's block, where
    /// [`TbsTable::prbs_for`] starts looking; `None` when some row's sizes do not grow with
    /// the width (then it bisects, as the answer would depend on the search path).
    prbs_per_octet: Option<Vec<f64>>,
}

impl TbsTable {
    fn build(
        n_prb: u32,
        max_mcs: [u8; KINDS],
        ul_prb_rule: bool,
        re_per_prb: [u32; KINDS],
        f: impl Fn(TbKind, u8, u32) -> u32,
    ) -> Self {
        let mut octets = vec![0; KINDS * MCS_COUNT * (n_prb as usize + 1)];
        for (k, kind) in [TbKind::Dl, TbKind::Ul, TbKind::DlSpecial]
            .into_iter()
            .enumerate()
        {
            for m in 0..=max_mcs[k] {
                for n in 1..=n_prb {
                    octets[(k * MCS_COUNT + m as usize) * (n_prb as usize + 1) + n as usize] =
                        f(kind, m, n);
                }
            }
        }
        let row_len = n_prb as usize + 1;
        let monotone = octets
            .chunks(row_len)
            .all(|r| r.windows(2).all(|w| w[0] <= w[1]));
        let prbs_per_octet = monotone.then(|| {
            octets
                .chunks(row_len)
                .map(|r| match r[n_prb as usize] {
                    0 => 0.0,
                    full => f64::from(n_prb) / f64::from(full),
                })
                .collect()
        });
        Self {
            n_prb,
            max_mcs,
            ul_prb_rule,
            re_per_prb,
            octets,
            prbs_per_octet,
        }
    }

    /// LTE, TS 36.213 §7.1.7: up to `n_prb` PRBs (the larger of the two carriers).
    pub fn lte(n_prb: u32) -> Self {
        Self::build(n_prb, [28; KINDS], true, [1; KINDS], |kind, m, n| {
            let ch = if kind == TbKind::Ul {
                Channel::Pusch
            } else {
                Channel::Pdsch
            };
            tbs_for_mcs(ch, m, n).expect("a valid MCS and PRB count") / 8
        })
    }

    /// NR, TS 38.214 §5.1.3.2: per kind its MCS table, resource elements and layers.
    pub fn nr(n_prb: u32, dl: NrTbs, dl_special: NrTbs, ul: NrTbs) -> Self {
        let max_mcs = [
            dl.table.max_mcs(),
            ul.table.max_mcs(),
            dl_special.table.max_mcs(),
        ];
        let re = [dl.re.n_re(1), ul.re.n_re(1), dl_special.re.n_re(1)];
        Self::build(n_prb, max_mcs, false, re, |kind, m, n| {
            let t = match kind {
                TbKind::Dl => dl,
                TbKind::Ul => ul,
                TbKind::DlSpecial => dl_special,
            };
            nr_tbs::tbs_for_mcs(t.table, m, n, t.re, t.layers).expect("a valid MCS") / 8
        })
    }

    /// Octets of a block of `kind` at `mcs` on `n` PRBs (0 for none).
    #[inline]
    pub fn octets(&self, kind: TbKind, mcs: u8, n: u32) -> u32 {
        debug_assert!(mcs <= self.max_mcs[kind as usize] && n <= self.n_prb);
        self.octets
            [(kind as usize * MCS_COUNT + mcs as usize) * (self.n_prb as usize + 1) + n as usize]
    }

    /// The fewest PRBs, at most `limit`, whose block of `kind` at `mcs` holds `bytes` (a PF
    /// allocation sized to a backlog, an adaptive retransmission's width); `None` if even
    /// `limit` PRBs are too few. Block sizes grow with the PRBs (more resource elements, TS
    /// 36.213 §7.1.7 / TS 38.214 §5.1.3.2), so a binary search. LTE's PUSCH width rule is
    /// not applied here: the uplink scheduler rounds the width down to an allowed one after.
    pub fn prbs_for(&self, kind: TbKind, mcs: u8, bytes: u32, limit: u32) -> Option<u32> {
        let limit = limit.min(self.n_prb);
        let r = kind as usize * MCS_COUNT + mcs as usize;
        let row = r * (self.n_prb as usize + 1);
        let sizes = &self.octets[row + 1..=row + limit as usize];
        let below = |o: &u32| *o < bytes;
        let n = match &self.prbs_per_octet {
            // Sizes nearly proportional to the width: start where the whole band's rate puts
            // the answer and step to it. A bisection of a wide NR row reads a cache line per
            // step; the answer is the same, the count of sizes below `bytes`.
            Some(per) => {
                let len = sizes.len();
                let mut p = ((f64::from(bytes) * per[r]) as usize).min(len);
                let mut steps = 0;
                if p < len && below(&sizes[p]) {
                    p += 1;
                    while p < len && below(&sizes[p]) && steps < 8 {
                        p += 1;
                        steps += 1;
                    }
                    if p < len && below(&sizes[p]) {
                        p += sizes[p..].partition_point(below);
                    }
                } else {
                    while p > 0 && !below(&sizes[p - 1]) && steps < 8 {
                        p -= 1;
                        steps += 1;
                    }
                    if p > 0 && !below(&sizes[p - 1]) {
                        p = sizes[..p].partition_point(below);
                    }
                }
                p
            }
            None => sizes.partition_point(below),
        } as u32
            + 1;
        (n <= limit).then_some(n)
    }

    /// Resource elements per PRB of a block of `kind` (LTE: 1).
    #[inline]
    pub fn re_per_prb(&self, kind: TbKind) -> u32 {
        self.re_per_prb[kind as usize]
    }

    /// PRBs the table covers.
    pub fn n_prb(&self) -> u32 {
        self.n_prb
    }

    /// Highest MCS of `kind`.
    pub fn max_mcs(&self, kind: TbKind) -> u8 {
        self.max_mcs[kind as usize]
    }

    /// The largest PUSCH width the uplink can grant at or below `n` (LTE: 2^a 3^b 5^c).
    #[inline]
    pub fn largest_ul_prb(&self, n: u32) -> Option<u32> {
        if self.ul_prb_rule {
            largest_allowed_ul_prb(n)
        } else {
            (n > 0).then_some(n)
        }
    }
}

/// One NR block kind: MCS table, resource elements per PRB, layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NrTbs {
    pub table: McsTable,
    pub re: ReBudget,
    pub layers: u32,
}

/// Per MCS, the SINR of 10 % first-transmission BLER and the waterfall around it:
/// BLER = Q((γ − μ_m) / σ_m), μ_m = thr_m − z_0.9 σ_m (lte-cell.md §2.4).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkCurves {
    pub threshold_db: Vec<f64>,
    mu_db: Vec<f64>,
    sigma_db: Vec<f64>,
    /// Per MCS, the linear SINRs μ − [`DECIDED_SIGMAS`] σ and μ + [`DECIDED_SIGMAS`] σ:
    /// at or below the first the BLER is at least 1 − [`DECIDED_BLER`], at or above the
    /// second at most [`DECIDED_BLER`] (`decoded` then needs no logarithm or exponential).
    decided_lin: Vec<(f64, f64)>,
}

/// Standard deviations from μ beyond which [`LinkCurves::decoded`] knows the outcome of most
/// draws without the BLER: Q(4) = 3.2e-5, below [`DECIDED_BLER`] with room for rounding.
const DECIDED_SIGMAS: f64 = 4.0;
/// The BLER bound that [`DECIDED_SIGMAS`] guarantees (tested on the curves).
const DECIDED_BLER: f64 = 1e-4;

impl LinkCurves {
    fn new(threshold_db: Vec<f64>, sigma_db: Vec<f64>) -> Self {
        let mu_db = threshold_db
            .iter()
            .zip(&sigma_db)
            .map(|(t, s)| t - Z_90 * s)
            .collect::<Vec<f64>>();
        let decided_lin = mu_db
            .iter()
            .zip(&sigma_db)
            .map(|(m, s)| {
                (
                    db_to_lin(m - DECIDED_SIGMAS * s),
                    db_to_lin(m + DECIDED_SIGMAS * s),
                )
            })
            .collect();
        Self {
            threshold_db,
            mu_db,
            sigma_db,
            decided_lin,
        }
    }

    /// The LTE curves of `lte::amc` (the same arithmetic as `amc::bler_first_tx`).
    pub fn lte() -> Self {
        Self::new(
            MCS_SINR_10PCT_DB.to_vec(),
            (0..=28u8)
                .map(|m| bler_sigma_db(m).expect("a valid MCS"))
                .collect(),
        )
    }

    /// An NR MCS table's curves at equal spectral efficiency: the LTE CQI curves (TS 36.213
    /// Table 7.2.3-1 efficiencies, their 10 % points and spreads) interpolated on Q_m · R of
    /// each NR MCS. Above the top CQI (5.55 bit/s/Hz, 256QAM rows) the threshold follows
    /// Shannon with the gap the top CQI has to it (γ = gap · (2^SE − 1)), the spread that of
    /// the top CQI (docs/models/nr-cell.md).
    pub fn nr(table: McsTable) -> Self {
        let top_se = CQI_EFFICIENCY[14];
        let gap_db = CQI_SINR_10PCT_DB[14] - 10.0 * (2f64.powf(top_se) - 1.0).log10();
        let (mut thr, mut sig) = (Vec::new(), Vec::new());
        for m in 0..=table.max_mcs() {
            let se = table.entry(m).expect("a valid MCS").efficiency();
            if se >= top_se {
                thr.push(gap_db + 10.0 * (2f64.powf(se) - 1.0).log10());
                sig.push(CQI_BLER_SIGMA_DB[14]);
                continue;
            }
            let i = CQI_EFFICIENCY.partition_point(|&e| e <= se).clamp(1, 14);
            let (e0, e1) = (CQI_EFFICIENCY[i - 1], CQI_EFFICIENCY[i]);
            let w = (se - e0) / (e1 - e0);
            thr.push(
                CQI_SINR_10PCT_DB[i - 1] + w * (CQI_SINR_10PCT_DB[i] - CQI_SINR_10PCT_DB[i - 1]),
            );
            sig.push(
                CQI_BLER_SIGMA_DB[i - 1] + w * (CQI_BLER_SIGMA_DB[i] - CQI_BLER_SIGMA_DB[i - 1]),
            );
        }
        // At the modulation switches the tables repeat an efficiency, or step back a little
        // (64QAM table: MCS 16, 16QAM at 2.570, then MCS 17, 64QAM at 2.566 bit/s/Hz). Link
        // adaptation takes the highest MCS whose threshold the SINR reaches, which needs the
        // thresholds to increase: each is kept at least 0.01 dB above the one below.
        for m in 1..thr.len() {
            thr[m] = thr[m].max(thr[m - 1] + 0.01);
        }
        Self::new(thr, sig)
    }

    /// BLER of one transmission at `mcs` and `sinr_db`.
    #[inline]
    pub fn bler(&self, mcs: u8, sinr_db: f64) -> f64 {
        let m = mcs as usize;
        q_function((sinr_db - self.mu_db[m]) / self.sigma_db[m])
    }

    /// Whether a block at `mcs` and linear SINR `sinr_lin` is decoded with the uniform draw
    /// `u`: exactly `u >= self.bler(mcs, 10 log10 sinr_lin)`. Far enough above or below the
    /// waterfall the BLER lies within [`DECIDED_BLER`] of 0 or 1, so every draw but the
    /// rare one as close to 0 or 1 is decided by the comparison of linear SINRs, without
    /// the logarithm, the exponential and the polynomial (most transmissions: σ is a
    /// quarter of a dB, the fading's swing several dB).
    #[inline]
    pub fn decoded(&self, mcs: u8, sinr_lin: f64, u: f64) -> bool {
        let (lo, hi) = self.decided_lin[mcs as usize];
        if sinr_lin >= hi && u >= DECIDED_BLER {
            return true;
        }
        if sinr_lin <= lo && u < 1.0 - DECIDED_BLER {
            return false;
        }
        u >= self.bler(mcs, lin_to_db(sinr_lin))
    }

    /// Highest MCS.
    pub fn max_mcs(&self) -> u8 {
        (self.threshold_db.len() - 1) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::lte::amc::bler_first_tx;

    #[test]
    fn the_lte_table_and_curves_are_the_lte_functions() {
        let t = TbsTable::lte(100);
        let c = LinkCurves::lte();
        for m in 0..=28u8 {
            for n in [1, 6, 50, 100] {
                assert_eq!(
                    t.octets(TbKind::Dl, m, n),
                    tbs_for_mcs(Channel::Pdsch, m, n).unwrap() / 8
                );
                assert_eq!(
                    t.octets(TbKind::Ul, m, n),
                    tbs_for_mcs(Channel::Pusch, m, n).unwrap() / 8
                );
            }
            for s in [-10.0, 0.0, 5.5, 12.25, 30.0] {
                assert_eq!(
                    c.bler(m, s).to_bits(),
                    bler_first_tx(m, s).unwrap().to_bits()
                );
            }
        }
        assert_eq!(t.largest_ul_prb(7), Some(6));
    }

    #[test]
    fn nr_curves_are_ten_percent_at_their_thresholds_and_increase() {
        for table in [McsTable::Qam64, McsTable::Qam256] {
            let c = LinkCurves::nr(table);
            assert_eq!(c.max_mcs(), table.max_mcs());
            for m in 0..=c.max_mcs() {
                assert!((c.bler(m, c.threshold_db[m as usize]) - 0.1).abs() < 1e-6);
            }
            for w in c.threshold_db.windows(2) {
                assert!(w[1] > w[0], "{:?}", c.threshold_db);
            }
        }
        // The 64QAM table's MCS 0 is QPSK at 120/1024 (0.23 bit/s/Hz): CQI 2's efficiency,
        // so CQI 2's threshold.
        let c = LinkCurves::nr(McsTable::Qam64);
        assert!((c.threshold_db[0] - CQI_SINR_10PCT_DB[1]).abs() < 0.05);
        // 256QAM at 948/1024 (7.41 bit/s/Hz) by the Shannon gap of CQI 15: about 25.6 dB.
        let c = LinkCurves::nr(McsTable::Qam256);
        assert!(
            (c.threshold_db[27] - 25.6).abs() < 0.2,
            "{}",
            c.threshold_db[27]
        );
    }

    /// The decided regions hold their bound (at and beyond their edges, on every table's
    /// MCS), and `decoded` answers what the BLER and the draw answer, on and off the edges.
    #[test]
    fn decoded_equals_the_draw_against_the_bler() {
        let all = [
            LinkCurves::lte(),
            LinkCurves::nr(McsTable::Qam64),
            LinkCurves::nr(McsTable::Qam256),
        ];
        for c in &all {
            for m in 0..=c.max_mcs() {
                let (lo, hi) = c.decided_lin[m as usize];
                let (mut up, mut down) = (hi, lo);
                for _ in 0..5000 {
                    assert!(c.bler(m, lin_to_db(up)) <= DECIDED_BLER, "{m} at {up}");
                    assert!(
                        c.bler(m, lin_to_db(down)) >= 1.0 - DECIDED_BLER,
                        "{m} at {down}"
                    );
                    up *= 1.001;
                    down /= 1.001;
                }
                assert!(c.bler(m, lin_to_db(f64::INFINITY)) <= DECIDED_BLER);
                assert!(c.bler(m, lin_to_db(0.0)) >= 1.0 - DECIDED_BLER);
                let mut xs = vec![0.0, f64::INFINITY, f64::NAN, 1e-12, 1e12];
                for e in [lo, hi, db_to_lin(c.threshold_db[m as usize])] {
                    xs.extend([e, e.next_up(), e.next_down(), e * 1.01, e / 1.01]);
                }
                let us = [
                    0.0,
                    1e-9,
                    DECIDED_BLER.next_down(),
                    DECIDED_BLER,
                    0.1,
                    0.5,
                    0.9,
                    (1.0 - DECIDED_BLER).next_down(),
                    1.0 - DECIDED_BLER,
                    1.0f64.next_down(),
                ];
                for &x in &xs {
                    for &u in &us {
                        assert_eq!(
                            c.decoded(m, x, u),
                            u >= c.bler(m, lin_to_db(x)),
                            "MCS {m}, SINR {x}, draw {u}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn nr_table_has_no_pusch_width_rule_and_matches_38_214() {
        let re = ReBudget {
            symbols: 14,
            dmrs: 12,
            overhead: 0,
        };
        let k = NrTbs {
            table: McsTable::Qam64,
            re,
            layers: 1,
        };
        let t = TbsTable::nr(273, k, k, k);
        assert_eq!(t.largest_ul_prb(7), Some(7));
        assert_eq!(
            t.octets(TbKind::Dl, 27, 273),
            nr_tbs::tbs_for_mcs(McsTable::Qam64, 27, 273, re, 1).unwrap() / 8
        );
    }

    #[test]
    fn prbs_for_is_the_fewest_prbs_holding_the_block() {
        let t = TbsTable::lte(100);
        for kind in [TbKind::Dl, TbKind::Ul] {
            for mcs in [0u8, 9, 17, 28] {
                for bytes in [1u32, 100, 777, 3000] {
                    // Direct scan: the first width whose block holds `bytes`.
                    let scan = (1..=100).find(|&n| t.octets(kind, mcs, n) >= bytes);
                    assert_eq!(
                        t.prbs_for(kind, mcs, bytes, 100),
                        scan,
                        "{kind:?} {mcs} {bytes}"
                    );
                    if let Some(n) = scan {
                        assert_eq!(t.prbs_for(kind, mcs, bytes, n), Some(n));
                        if n > 1 {
                            assert_eq!(t.prbs_for(kind, mcs, bytes, n - 1), None);
                        }
                    }
                }
            }
        }
        // A block's own width at its own MCS holds it.
        let b = t.octets(TbKind::Dl, 12, 37);
        assert!(t.prbs_for(TbKind::Dl, 12, b, 100).unwrap() <= 37);
        // The search assumes sizes grow with the width: true of NR's tables too.
        let k = NrTbs {
            table: McsTable::Qam256,
            re: ReBudget {
                symbols: 14,
                dmrs: 12,
                overhead: 0,
            },
            layers: 1,
        };
        let nr = TbsTable::nr(273, k, k, k);
        for m in 0..=27 {
            for n in 1..273 {
                assert!(nr.octets(TbKind::Dl, m, n) <= nr.octets(TbKind::Dl, m, n + 1));
            }
        }
    }

    /// The search from the rate's guess finds what a bisection finds, at every MCS, width
    /// limit and size around the table's own sizes.
    #[test]
    fn prbs_for_equals_a_bisection() {
        let k = |table| NrTbs {
            table,
            re: ReBudget {
                symbols: 14,
                dmrs: 12,
                overhead: 0,
            },
            layers: 1,
        };
        let s = NrTbs {
            re: ReBudget {
                symbols: 10,
                dmrs: 12,
                overhead: 0,
            },
            ..k(McsTable::Qam256)
        };
        for t in [
            TbsTable::lte(100),
            TbsTable::lte(25),
            TbsTable::nr(273, k(McsTable::Qam256), s, k(McsTable::Qam64)),
            TbsTable::nr(
                51,
                k(McsTable::Qam64),
                k(McsTable::Qam64),
                k(McsTable::Qam64),
            ),
        ] {
            assert!(t.prbs_per_octet.is_some());
            for kind in [TbKind::Dl, TbKind::Ul, TbKind::DlSpecial] {
                for mcs in 0..=t.max_mcs(kind) {
                    for limit in [1, 2, 7, t.n_prb() / 2, t.n_prb() - 1, t.n_prb()] {
                        let sizes: Vec<u32> = (1..=limit).map(|n| t.octets(kind, mcs, n)).collect();
                        let mut probes = vec![0, 1, 2, u32::MAX];
                        for &o in &sizes {
                            probes.extend([o.saturating_sub(1), o, o + 1]);
                        }
                        for bytes in probes {
                            let n = sizes.partition_point(|&o| o < bytes) as u32 + 1;
                            let want = (n <= limit).then_some(n);
                            assert_eq!(
                                t.prbs_for(kind, mcs, bytes, limit),
                                want,
                                "{kind:?} {mcs} {bytes} {limit}"
                            );
                        }
                    }
                }
            }
        }
    }
}
