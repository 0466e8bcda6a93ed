//! PUSCH power control and the power headroom report, sans-IO (issue 22; TS 36.213
//! §5.1.1.1, TS 36.321 §5.4.6, TS 36.133 §9.1.8.4).
//!
//! Fractional power control without closed-loop corrections (f(i) = 0) and with
//! deltaMCS-Enabled off (Δ_TF = 0, the RRC default):
//!
//! ```text
//! P_PUSCH(M) = min(P_CMAX, 10 log10 M + P0 + α·PL)            dBm
//! ```
//!
//! so the eNB receives P0 − (1 − α)·PL per PRB while 10 log10 M ≤ P_CMAX − P0 − α·PL (the
//! headroom at one PRB), and the power per PRB, with it the SINR, falls by 10 log10 M − that
//! headroom beyond it. In linear terms the SINR of an M-PRB grant is the nominal one times
//! min(1, h / M), h = 10^(headroom at one PRB / 10): no logarithm per grant.
//!
//! The UE tells the eNB its headroom in a PHR MAC CE (one octet and its subheader), triggered
//! by periodicPHR-Timer, by a path-loss change of more than dl-PathlossChange once
//! prohibitPHR-Timer has expired, and when PHR is configured (the first grant); the eNB sizes
//! later grants to it.

use crate::error::ParamError;
use crate::radio::db_to_lin;

/// Octets of a PHR on the air: the 1-octet MAC CE and its 1-octet subheader (36.321 §6.1.3.6).
pub const PHR_BYTES: u32 = 2;

/// The fractional power-control parameters of one UE's PUSCH.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PuschPower {
    /// P0 (P0_NOMINAL + P0_UE), dBm per PRB.
    pub p0_dbm: f64,
    /// α (36.331: 0, 0.4, ..., 1).
    pub alpha: f64,
    /// P_CMAX, dBm.
    pub p_cmax_dbm: f64,
}

impl PuschPower {
    /// Transmit power of an `m`-PRB PUSCH at path loss `pl_db`, dBm (36.213 §5.1.1.1).
    pub fn tx_power_dbm(&self, m: u32, pl_db: f64) -> f64 {
        self.unlimited_dbm(m, pl_db).min(self.p_cmax_dbm)
    }

    /// What the UE would need without the P_CMAX cap: 10 log10 M + P0 + α·PL.
    fn unlimited_dbm(&self, m: u32, pl_db: f64) -> f64 {
        10.0 * f64::from(m.max(1)).log10() + self.p0_dbm + self.alpha * pl_db
    }

    /// Received power per PRB at the eNB when not power-limited, dBm: P0 − (1 − α)·PL.
    pub fn nominal_rx_prb_dbm(&self, pl_db: f64) -> f64 {
        self.p0_dbm + self.alpha * pl_db - pl_db
    }

    /// Power headroom of an `m`-PRB PUSCH, dB (36.213 §5.1.1.2, type 1): P_CMAX − (10 log10 M
    /// + P0 + α·PL); negative when power-limited.
    pub fn headroom_db(&self, m: u32, pl_db: f64) -> f64 {
        self.p_cmax_dbm - self.unlimited_dbm(m, pl_db)
    }

    /// The headroom at one PRB as a linear PRB count h: an M-PRB grant is power-limited when
    /// M > h, and its SINR per PRB is the nominal one times min(1, h / M).
    pub fn headroom_prbs(&self, pl_db: f64) -> f64 {
        db_to_lin(self.headroom_db(1, pl_db))
    }
}

/// The reported power headroom level (36.133 Table 9.1.8.4-1): POWER_HEADROOM_k for
/// k − 23 ≤ PH < k − 22 dB, 0 below −22 dB, 63 at 40 dB and above.
pub fn ph_index(ph_db: f64) -> u8 {
    (ph_db.floor() + 23.0).clamp(0.0, 63.0) as u8
}

/// What the eNB reads from a level: its lower bound, dB (conservative; level 0 reads −23).
pub fn ph_from_index(index: u8) -> f64 {
    f64::from(index) - 23.0
}

/// PHR-Config (36.331): the timers in subframes, `None` = infinity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhrParams {
    pub periodic: Option<u32>,
    pub prohibit: u32,
    /// dl-PathlossChange, dB; `None` = infinity (no path-loss trigger).
    pub pathloss_change_db: Option<f64>,
}

impl Default for PhrParams {
    /// periodicPHR-Timer sf50, prohibitPHR-Timer sf0, dl-PathlossChange 3 dB.
    fn default() -> Self {
        Self {
            periodic: Some(50),
            prohibit: 0,
            pathloss_change_db: Some(3.0),
        }
    }
}

impl PhrParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.periodic == Some(0) {
            return Err(ParamError::new(
                "periodic",
                0,
                "a timer of at least 1 subframe",
            ));
        }
        if let Some(d) = self.pathloss_change_db {
            if !(d.is_finite() && d > 0.0) {
                return Err(ParamError::new("pathloss_change_db", d, "a change > 0 dB"));
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PhrStats {
    pub phrs_sent: u64,
}

/// The UE's power headroom reporting procedure (36.321 §5.4.6).
#[derive(Debug, Clone)]
pub struct PhrEntity {
    p: PhrParams,
    /// A PHR is triggered and not yet sent (PHR configured counts as a trigger).
    triggered: bool,
    periodic_at: Option<u64>,
    prohibit_until: u64,
    /// The path loss when the last PHR was sent.
    last_pl_db: Option<f64>,
    pub stats: PhrStats,
}

impl PhrEntity {
    /// Panics on invalid parameters (the configuration layer validates them first).
    pub fn new(p: PhrParams) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid PHR parameters: {e:?}");
        }
        Self {
            p,
            triggered: true,
            periodic_at: None,
            prohibit_until: 0,
            last_pl_db: None,
            stats: PhrStats::default(),
        }
    }

    /// The UE has an uplink grant for a new transmission at `tti` with `room` octets left
    /// after the BSR (a PHR ranks below a regular or periodic BSR and above data, 36.321
    /// §5.4.3.1), its path-loss estimate being `pl_db`. Returns whether the block carries a
    /// PHR (the caller reports the headroom of this block).
    pub fn on_grant(&mut self, tti: u64, pl_db: f64, room: u32) -> bool {
        if self.periodic_at.is_some_and(|t| tti >= t) {
            self.periodic_at = None;
            self.triggered = true;
        }
        if let (Some(last), Some(change)) = (self.last_pl_db, self.p.pathloss_change_db) {
            if tti >= self.prohibit_until && (pl_db - last).abs() > change {
                self.triggered = true;
            }
        }
        if !self.triggered || room < PHR_BYTES {
            return false;
        }
        self.triggered = false;
        self.last_pl_db = Some(pl_db);
        self.periodic_at = self.p.periodic.map(|t| tti + u64::from(t));
        self.prohibit_until = tti + u64::from(self.p.prohibit);
        self.stats.phrs_sent += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PC: PuschPower = PuschPower {
        p0_dbm: -106.0,
        alpha: 1.0,
        p_cmax_dbm: 23.0,
    };

    #[test]
    fn power_follows_36_213_and_caps_at_p_cmax() {
        // PL 110 dB: P0 + PL = 4 dBm per PRB; 10 PRBs need 14 dBm, 100 PRBs 24 dBm -> 23.
        assert!((PC.tx_power_dbm(1, 110.0) - 4.0).abs() < 1e-12);
        assert!((PC.tx_power_dbm(10, 110.0) - 14.0).abs() < 1e-12);
        assert_eq!(PC.tx_power_dbm(100, 110.0), 23.0);
        assert!((PC.headroom_db(1, 110.0) - 19.0).abs() < 1e-12);
        assert!((PC.headroom_db(100, 110.0) + 1.0).abs() < 1e-12);
        // h = 10^1.9 = 79.4 PRBs: 79 are not power-limited, 80 are.
        let h = PC.headroom_prbs(110.0);
        assert!((h - 79.43).abs() < 0.01, "{h}");
        // α = 1: the eNB receives P0 whatever the path loss; α = 0.8, P0 = −90: −90 − 0.2 PL.
        assert_eq!(PC.nominal_rx_prb_dbm(130.0), -106.0);
        let frac = PuschPower {
            p0_dbm: -90.0,
            alpha: 0.8,
            ..PC
        };
        assert!((frac.nominal_rx_prb_dbm(120.0) + 114.0).abs() < 1e-9);
        assert!((frac.tx_power_dbm(1, 120.0) - 6.0).abs() < 1e-9);
    }

    #[test]
    fn the_sinr_per_prb_of_a_power_limited_grant_falls_as_h_over_m() {
        // A cell-edge UE: PL 125 dB, headroom 4 dB at one PRB (h = 2.5): 2 PRBs at full
        // nominal power per PRB, 10 PRBs 6 dB below it (10 log10 10 − 4).
        let pl = 125.0;
        let h = PC.headroom_prbs(pl);
        let rx_prb = |m: u32| PC.tx_power_dbm(m, pl) - 10.0 * f64::from(m).log10() - pl;
        assert!((rx_prb(2) - PC.nominal_rx_prb_dbm(pl)).abs() < 1e-9);
        let loss_db = PC.nominal_rx_prb_dbm(pl) - rx_prb(10);
        assert!((loss_db - 6.0).abs() < 1e-9);
        assert!((10.0 * (10.0 / h).log10() - loss_db).abs() < 1e-9);
    }

    #[test]
    fn ph_levels_follow_36_133() {
        assert_eq!(ph_index(-30.0), 0);
        assert_eq!(ph_index(-23.0), 0);
        assert_eq!(ph_index(-22.5), 0);
        assert_eq!(ph_index(-22.0), 1);
        assert_eq!(ph_index(0.4), 23);
        assert_eq!(ph_index(39.9), 62);
        assert_eq!(ph_index(45.0), 63);
        assert_eq!(ph_from_index(23), 0.0);
        // The eNB's reading never exceeds the true headroom (above the range's floor).
        for tenth in -220..400 {
            let ph = f64::from(tenth) / 10.0;
            let read = ph_from_index(ph_index(ph));
            assert!(read <= ph && ph - read < 1.0, "{ph} -> {read}");
        }
    }

    /// The triggers of 36.321 §5.4.6: configuration (first grant), periodicPHR-Timer, a
    /// path-loss change beyond dl-PathlossChange once prohibitPHR-Timer has expired; a grant
    /// without room for the CE keeps the trigger.
    #[test]
    fn phr_triggers() {
        let mut phr = PhrEntity::new(PhrParams {
            periodic: Some(20),
            prohibit: 10,
            pathloss_change_db: Some(3.0),
        });
        // Configured: the first grant with room carries one; a 1-octet room does not.
        assert!(!phr.on_grant(5, 100.0, 1));
        assert!(phr.on_grant(6, 100.0, 40));
        assert!(!phr.on_grant(7, 100.0, 40));
        // Periodic: expires at 26.
        assert!(!phr.on_grant(25, 100.0, 40));
        assert!(phr.on_grant(26, 100.0, 40));
        // Path loss up by 4 dB at 30: prohibited until 36, then triggered.
        assert!(!phr.on_grant(30, 104.0, 40));
        assert!(phr.on_grant(36, 104.0, 40));
        // A 2 dB change is below dl-PathlossChange: nothing until the periodic timer (56).
        assert!(!phr.on_grant(50, 106.0, 40));
        assert!(phr.on_grant(56, 106.0, 40));
        assert_eq!(phr.stats.phrs_sent, 4);
        // Infinity everywhere: only the configuration trigger.
        let mut once = PhrEntity::new(PhrParams {
            periodic: None,
            prohibit: 0,
            pathloss_change_db: None,
        });
        let sent: Vec<u64> = (0..1000).filter(|&t| once.on_grant(t, 100.0, 40)).collect();
        assert_eq!(sent, vec![0]);
    }
}
