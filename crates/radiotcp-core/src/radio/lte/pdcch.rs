//! The PDCCH as a budget of control channel elements per sector and TTI, sans-IO (issue 22;
//! TS 36.211 §6.7-6.9, TS 36.213 §9.1.1).
//!
//! Every DL assignment (new or HARQ retransmission: the DL is asynchronous and adaptive) and
//! every UL grant (an SR's first grant included) is a DCI of 1, 2, 4 or 8 CCEs; non-adaptive UL
//! HARQ retransmissions are triggered on PHICH and need none. A sector has
//!
//! ```text
//! N_CCE = ⌊(N_REG − 4 (PCFICH) − 3·⌈N_g·N_RB/8⌉ (PHICH groups)) / 9⌋
//! ```
//!
//! with N_REG the resource-element groups of the first CFI OFDM symbols: 2 per PRB in symbol 0
//! (its reference signals take 4 of 12 REs) and 3 per PRB in symbols 1 and 2 (two CRS ports).
//! 20 MHz, CFI 3, N_g = 1: ⌊(800 − 4 − 39) / 9⌋ = 84 CCEs.
//!
//! Simplifications: the search-space positions (hashing, 36.213 §9.1.1) are not modelled, so a
//! DCI fits whenever enough CCEs are left; the common search space is not reserved; the CFI is
//! fixed (no per-TTI PCFICH adaptation).

/// CCEs of a sector's PDCCH per TTI (normal CP, two CRS ports, normal PHICH duration).
pub fn cce_count(n_prb: u32, cfi: u32, phich_ng: f64) -> u32 {
    let regs_per_prb = match cfi {
        0 => 0,
        1 => 2,
        2 => 5,
        _ => 8,
    };
    let phich_groups = (phich_ng * f64::from(n_prb) / 8.0 - 1e-9).ceil().max(0.0) as u32;
    (n_prb * regs_per_prb).saturating_sub(4 + 3 * phich_groups) / 9
}

/// The aggregation level of a UE's DCIs from its wideband DL SINR (dB): 1, 2 or 4 at or above
/// the matching threshold of `thresholds_db` (non-increasing), else 8.
pub fn aggregation_level(sinr_db: f64, thresholds_db: [f64; 3]) -> u8 {
    match thresholds_db.iter().position(|&t| sinr_db >= t) {
        Some(0) => 1,
        Some(1) => 2,
        Some(2) => 4,
        _ => 8,
    }
}

/// What is left of a sector's PDCCH in one TTI for one direction's scheduler: CCEs (shared by
/// both directions: the caller carries them over) and UEs under the per-TTI cap; and which UEs
/// the scheduler could not serve for lack of either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DciBudget {
    pub cce_left: u32,
    pub ues_left: u32,
    pub blocked_cce: u32,
    pub blocked_cap: u32,
    /// The UEs passed over, in the order the scheduler met them.
    pub blocked_ues: Vec<u32>,
}

impl DciBudget {
    /// No limit at all (the PDCCH budget off, no UE cap).
    pub const UNLIMITED: Self = Self::new(u32::MAX, u32::MAX);

    pub const fn new(cce_left: u32, ues_left: u32) -> Self {
        Self {
            cce_left,
            ues_left,
            blocked_cce: 0,
            blocked_cap: 0,
            blocked_ues: Vec::new(),
        }
    }

    /// Start a scheduler's turn with these limits (the list of blocked UEs keeps its capacity).
    pub fn reset(&mut self, cce_left: u32, ues_left: u32) {
        self.cce_left = cce_left;
        self.ues_left = ues_left;
        self.blocked_cce = 0;
        self.blocked_cap = 0;
        self.blocked_ues.clear();
    }

    /// Take a DCI of `cce` CCEs for UE `ue` if the budget allows, else record why not.
    pub fn admit(&mut self, ue: u32, cce: u8) -> bool {
        if self.ues_left == 0 {
            self.blocked_cap += 1;
            self.blocked_ues.push(ue);
            return false;
        }
        if self.cce_left < u32::from(cce) {
            self.blocked_cce += 1;
            self.blocked_ues.push(ue);
            return false;
        }
        self.ues_left -= 1;
        self.cce_left -= u32::from(cce);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cce_counts_follow_36_211() {
        // 20 MHz: CFI 1, 2, 3 with N_g = 1 (13 PHICH groups, 39 REGs).
        assert_eq!(cce_count(100, 1, 1.0), (200 - 43) / 9);
        assert_eq!(cce_count(100, 2, 1.0), (500 - 43) / 9);
        assert_eq!(cce_count(100, 3, 1.0), 84);
        // N_g = 1/6: ⌈100/48⌉ = 3 groups, 9 REGs.
        assert_eq!(cce_count(100, 3, 1.0 / 6.0), (800 - 13) / 9);
        // 10 MHz, CFI 3: 7 groups -> (400 − 25) / 9 = 41; 5 MHz: 4 groups -> 20.
        assert_eq!(cce_count(50, 3, 1.0), 41);
        assert_eq!(cce_count(25, 3, 1.0), 20);
    }

    #[test]
    fn aggregation_levels_step_down_with_the_sinr() {
        let t = [3.0, 0.0, -3.0];
        assert_eq!(aggregation_level(10.0, t), 1);
        assert_eq!(aggregation_level(3.0, t), 1);
        assert_eq!(aggregation_level(2.9, t), 2);
        assert_eq!(aggregation_level(-1.0, t), 4);
        assert_eq!(aggregation_level(-3.0, t), 4);
        assert_eq!(aggregation_level(-3.1, t), 8);
        assert_eq!(aggregation_level(f64::NEG_INFINITY, t), 8);
    }

    #[test]
    fn the_budget_admits_until_cces_or_the_cap_run_out() {
        let mut b = DciBudget::new(10, 3);
        assert!(b.admit(0, 8));
        // 2 CCEs left: an AL-4 UE is blocked, an AL-2 one fits.
        assert!(!b.admit(1, 4));
        assert!(b.admit(2, 2));
        assert!(!b.admit(3, 1));
        assert_eq!((b.cce_left, b.blocked_cce, b.blocked_cap), (0, 2, 0));
        assert_eq!(b.blocked_ues, vec![1, 3]);
        let mut capped = DciBudget::new(84, 2);
        assert!(capped.admit(0, 1) && capped.admit(1, 1));
        assert!(!capped.admit(2, 1));
        assert_eq!((capped.blocked_cap, capped.cce_left), (1, 82));
        capped.reset(5, 1);
        assert_eq!(capped, DciBudget::new(5, 1));
    }
}
