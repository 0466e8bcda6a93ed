//! Link quality chain of the LTE cell (issue 12): wideband SINR -> CQI -> MCS at a 10 %
//! first-transmission BLER target, and the BLER of one transmission (lte-cell.md §2.3–2.4).
//!
//! Thresholds are the AWGN SINR where the LTE-Sim BLER curves (Simu5G
//! `BLERvsSINR_15CQI_AWGN.h`) cross 10 %, per CQI of TS 36.213 Table 7.2.3-1, and per MCS by
//! interpolation on the MCS spectral efficiency (lte-cell.md §2.3, "Per-MCS thresholds [C]").
//! The Shannon-gap (PiroEW2010) column of that table is not used: it is ns-3's non-default
//! option and 4–5 dB more conservative (lte-cell.md §2.3, §6).
//!
//! Pure functions; the LTE cell (`node/lte.rs`) uses them.

use crate::error::ParamError;

use super::tbs::MAX_MCS;

/// Highest CQI of TS 36.213 Table 7.2.3-1.
pub const MAX_CQI: u8 = 15;

/// Spectral efficiency (bit/s/Hz) of CQI 1..=15, TS 36.213 Table 7.2.3-1 (lte-cell.md §2.3).
pub const CQI_EFFICIENCY: [f64; 15] = [
    0.1523, 0.2344, 0.3770, 0.6016, 0.8770, 1.1758, 1.4766, 1.9141, 2.4063, 2.7305, 3.3223, 3.9023,
    4.5234, 5.1152, 5.5547,
];

/// SINR in dB at which CQI 1..=15 reaches 10 % BLER in AWGN (lte-cell.md §2.3, "SINR@BLER 10 %,
/// AWGN" column).
pub const CQI_SINR_10PCT_DB: [f64; 15] = [
    -6.75, -4.97, -2.97, -1.02, 0.94, 2.83, 4.87, 6.66, 8.69, 10.51, 12.40, 14.30, 16.04, 17.81,
    19.94,
];

/// MCS for CQI 1..=15 as ns-3 maps it (lte-cell.md §2.3, "ns-3 MCS for CQI" column): 2·CQI − 2,
/// the MCS whose efficiency is that of the CQI.
pub const CQI_TO_MCS: [u8; 15] = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28];

/// SINR in dB at which MCS 0..=28 reaches 10 % BLER (lte-cell.md §2.3, "Per-MCS thresholds
/// [C]"): the CQI column interpolated on the MCS efficiency of ns-3's
/// `SpectralEfficiencyForMcs`. Even MCS coincide with CQI 1..=15.
pub const MCS_SINR_10PCT_DB: [f64; 29] = [
    -6.75, -5.86, -4.97, -3.90, -2.97, -2.00, -1.02, -0.04, 0.94, 1.89, 2.83, 3.85, 4.87, 5.79,
    6.66, 7.68, 8.69, 9.60, 10.51, 11.47, 12.40, 13.35, 14.30, 15.17, 16.04, 16.92, 17.81, 18.85,
    19.94,
];

/// Spread σ in dB of the AWGN BLER waterfall of CQI 1..=15, fitted to the 50 % and 1 % points of
/// the same curves (lte-cell.md §2.4, "Fitted σ [C]").
pub const CQI_BLER_SIGMA_DB: [f64; 15] = [
    0.68, 0.53, 0.44, 0.35, 0.30, 0.26, 0.25, 0.24, 0.23, 0.22, 0.23, 0.21, 0.24, 0.21, 0.32,
];

/// The standard normal quantile of 0.9: the 10 % point lies this many σ above the 50 % point.
pub(crate) const Z_90: f64 = 1.2815515655446004;

/// Link-adaptation settings.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AmcParams {
    /// Added to every SINR before it is mapped or used for BLER, in dB. The calibration hook of
    /// lte-cell.md §3: Case-1 geometry gives a median MCS ≈ 12 where Ohta et al.'s Table I has
    /// ≈ 20; the gap stands for what the abstraction leaves out (2x2 MIMO / rank 2, a smaller
    /// interferer set), which improves the channel itself, so the offset applies to the BLER
    /// as well as to the CQI/MCS choice [A]. Default 0.
    pub sinr_offset_db: f64,
}

impl AmcParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.sinr_offset_db.is_finite() {
            Ok(())
        } else {
            Err(ParamError::new(
                "sinr_offset_db",
                self.sinr_offset_db,
                "a finite offset in dB",
            ))
        }
    }

    /// CQI reported at `sinr_db` (offset applied); see [`sinr_to_cqi`].
    pub fn cqi(&self, sinr_db: f64) -> u8 {
        sinr_to_cqi(sinr_db + self.sinr_offset_db)
    }

    /// MCS chosen at `sinr_db` (offset applied); see [`sinr_to_mcs`].
    pub fn mcs(&self, sinr_db: f64) -> Option<u8> {
        sinr_to_mcs(sinr_db + self.sinr_offset_db)
    }

    /// First-transmission BLER at `sinr_db` (offset applied); see [`bler_first_tx`].
    pub fn bler(&self, mcs: u8, sinr_db: f64) -> Result<f64, ParamError> {
        bler_first_tx(mcs, sinr_db + self.sinr_offset_db)
    }
}

/// Highest CQI whose 10 % BLER threshold is at or below `sinr_db`; 0 ("out of range", TS
/// 36.213 Table 7.2.3-1) below CQI 1's threshold. NaN maps to 0.
pub fn sinr_to_cqi(sinr_db: f64) -> u8 {
    CQI_SINR_10PCT_DB
        .iter()
        .take_while(|&&t| t <= sinr_db)
        .count() as u8
}

/// MCS of a reported CQI, ns-3's map (lte-cell.md §2.3). CQI 0 means "do not schedule" and is
/// refused, like anything above 15.
pub fn cqi_to_mcs(cqi: u8) -> Result<u8, ParamError> {
    if (1..=MAX_CQI).contains(&cqi) {
        Ok(CQI_TO_MCS[usize::from(cqi - 1)])
    } else {
        Err(ParamError::new("cqi", cqi, "a CQI in 1..=15"))
    }
}

/// Highest MCS whose 10 % BLER threshold is at or below `sinr_db` (lte-cell.md §2.3, "MCS =
/// highest with threshold ≤ SINR"); `None` below MCS 0's threshold, where even MCS 0 misses
/// the 10 % target. Uses the per-MCS thresholds, so it resolves odd MCS that the CQI route
/// ([`sinr_to_cqi`] then [`cqi_to_mcs`]) skips.
pub fn sinr_to_mcs(sinr_db: f64) -> Option<u8> {
    let n = MCS_SINR_10PCT_DB
        .iter()
        .take_while(|&&t| t <= sinr_db)
        .count();
    n.checked_sub(1).map(|m| m as u8)
}

/// BLER waterfall spread σ in dB of `mcs`: the CQI value at even MCS (which coincide with a
/// CQI), the mean of the two neighbours at odd MCS [A: lte-cell.md gives σ per CQI only].
pub fn bler_sigma_db(mcs: u8) -> Result<f64, ParamError> {
    check_mcs(mcs)?;
    let m = usize::from(mcs);
    Ok(if m % 2 == 0 {
        CQI_BLER_SIGMA_DB[m / 2]
    } else {
        0.5 * (CQI_BLER_SIGMA_DB[m / 2] + CQI_BLER_SIGMA_DB[m / 2 + 1])
    })
}

/// BLER of one transmission of a TB at `mcs` over a flat SINR `sinr_db` within the TTI
/// (lte-cell.md §2.4): BLER = Q((γ − μ_m)/σ_m), μ_m = thr_m − 1.2816 σ_m, so BLER is exactly
/// 10 % at the MCS threshold, 50 % at μ_m, and falls like an AWGN waterfall above.
pub fn bler_first_tx(mcs: u8, sinr_db: f64) -> Result<f64, ParamError> {
    let sigma = bler_sigma_db(mcs)?;
    let mu = MCS_SINR_10PCT_DB[usize::from(mcs)] - Z_90 * sigma;
    Ok(q_function((sinr_db - mu) / sigma))
}

/// BLER of the k-th transmission of a TB with Chase combining: the SINRs of all transmissions
/// so far add in linear units and the sum goes through [`bler_first_tx`] (lte-cell.md §2.4,
/// "Chase combining γ_k = Σ γ_i" [R]). `sinr_db_per_tx` holds the SINR of each transmission,
/// first one first; an empty slice is refused.
pub fn bler_chase_combining(mcs: u8, sinr_db_per_tx: &[f64]) -> Result<f64, ParamError> {
    if sinr_db_per_tx.is_empty() {
        return Err(ParamError::new(
            "sinr_db_per_tx",
            "[]",
            "at least one transmission",
        ));
    }
    let sum: f64 = sinr_db_per_tx.iter().map(|g| 10f64.powf(g / 10.0)).sum();
    bler_first_tx(mcs, 10.0 * sum.log10())
}

fn check_mcs(mcs: u8) -> Result<(), ParamError> {
    if mcs <= MAX_MCS {
        Ok(())
    } else {
        Err(ParamError::new("mcs", mcs, "an MCS in 0..=28"))
    }
}

/// Gaussian tail Q(x) = erfc(x/√2)/2.
pub fn q_function(x: f64) -> f64 {
    0.5 * erfc(x / std::f64::consts::SQRT_2)
}

/// Complementary error function with relative error below 1.2e-7 everywhere (the Chebyshev
/// fit of Numerical Recipes §6.2, `erfcc`); std has none and a BLER needs no more precision.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-3 `SpectralEfficiencyForMcs` for MCS 0..=28, the abscissa of the per-MCS
    /// interpolation (lte-cell.md §2.3).
    const MCS_EFFICIENCY: [f64; 29] = [
        0.15, 0.19, 0.23, 0.31, 0.38, 0.49, 0.6, 0.74, 0.88, 1.03, 1.18, 1.33, 1.48, 1.7, 1.91,
        2.16, 2.41, 2.57, 2.73, 3.03, 3.32, 3.61, 3.9, 4.21, 4.52, 4.82, 5.12, 5.33, 5.55,
    ];

    #[test]
    fn tables_are_consistent() {
        for w in CQI_SINR_10PCT_DB.windows(2) {
            assert!(w[0] < w[1]);
        }
        for w in MCS_SINR_10PCT_DB.windows(2) {
            assert!(w[0] < w[1]);
        }
        for w in CQI_EFFICIENCY.windows(2) {
            assert!(w[0] < w[1]);
        }
        for (k, &m) in CQI_TO_MCS.iter().enumerate() {
            assert_eq!(MCS_SINR_10PCT_DB[usize::from(m)], CQI_SINR_10PCT_DB[k]);
        }
        // The odd-MCS thresholds are the CQI thresholds interpolated on MCS efficiency, to the
        // 0.01 dB the doc prints (rounded CQI efficiencies as ns-3 uses them: the MCS table).
        for m in (1..29).step_by(2) {
            let (e0, e1, e) = (
                MCS_EFFICIENCY[m - 1],
                MCS_EFFICIENCY[m + 1],
                MCS_EFFICIENCY[m],
            );
            let (t0, t1) = (MCS_SINR_10PCT_DB[m - 1], MCS_SINR_10PCT_DB[m + 1]);
            let t = t0 + (t1 - t0) * (e - e0) / (e1 - e0);
            assert!((t - MCS_SINR_10PCT_DB[m]).abs() <= 0.006, "MCS {m}: {t}");
        }
    }

    #[test]
    fn sinr_to_cqi_and_mcs_spot_checks() {
        assert_eq!(sinr_to_cqi(-10.0), 0);
        assert_eq!(sinr_to_cqi(-6.75), 1);
        assert_eq!(sinr_to_cqi(-6.76), 0);
        assert_eq!(sinr_to_cqi(5.4), 7);
        assert_eq!(sinr_to_cqi(14.1), 11);
        assert_eq!(sinr_to_cqi(19.94), 15);
        assert_eq!(sinr_to_cqi(40.0), 15);
        assert_eq!(sinr_to_cqi(f64::NAN), 0);

        assert_eq!(cqi_to_mcs(1).unwrap(), 0);
        assert_eq!(cqi_to_mcs(7).unwrap(), 12);
        assert_eq!(cqi_to_mcs(15).unwrap(), 28);
        assert_eq!(cqi_to_mcs(0).unwrap_err().field, "cqi");
        assert_eq!(cqi_to_mcs(16).unwrap_err().field, "cqi");

        assert_eq!(sinr_to_mcs(-7.0), None);
        assert_eq!(sinr_to_mcs(-6.75), Some(0));
        assert_eq!(sinr_to_mcs(5.4), Some(12)); // 4.87 <= 5.4 < 5.79 (MCS 13)
        assert_eq!(sinr_to_mcs(5.79), Some(13));
        assert_eq!(sinr_to_mcs(14.1), Some(21)); // 13.35 <= 14.1 < 14.30
        assert_eq!(sinr_to_mcs(30.0), Some(28));
        // The CQI route never picks above the per-MCS route.
        for i in -100..300 {
            let s = f64::from(i) * 0.1;
            if let (Some(m), c) = (sinr_to_mcs(s), sinr_to_cqi(s)) {
                assert!(cqi_to_mcs(c).unwrap() <= m, "{s}");
            }
        }
    }

    #[test]
    fn offset_shifts_the_chain() {
        let a = AmcParams {
            sinr_offset_db: 7.0,
        };
        a.validate().unwrap();
        assert_eq!(a.mcs(5.4), sinr_to_mcs(12.4));
        assert_eq!(a.cqi(5.4), sinr_to_cqi(12.4));
        assert_eq!(a.bler(20, 5.4).unwrap(), bler_first_tx(20, 12.4).unwrap());
        let bad = AmcParams {
            sinr_offset_db: f64::INFINITY,
        };
        assert_eq!(bad.validate().unwrap_err().field, "sinr_offset_db");
    }

    #[test]
    fn bler_curve_crosses_10_percent_at_the_threshold() {
        for m in 0..=28u8 {
            let thr = MCS_SINR_10PCT_DB[usize::from(m)];
            let sigma = bler_sigma_db(m).unwrap();
            let b = bler_first_tx(m, thr).unwrap();
            assert!((b - 0.1).abs() < 1e-6, "MCS {m}: {b}");
            let half = bler_first_tx(m, thr - Z_90 * sigma).unwrap();
            assert!((half - 0.5).abs() < 1e-6);
            // Steep AWGN waterfall: 2 dB above the threshold is below 1e-3 for every MCS
            // (σ ≤ 0.68 dB, so at least 1.28 + 2.9 σ above the 50 % point).
            assert!(bler_first_tx(m, thr + 2.0).unwrap() < 1e-3);
            assert!(bler_first_tx(m, thr - 3.0).unwrap() > 0.99);
        }
        assert_eq!(bler_sigma_db(13).unwrap(), 0.5 * (0.25 + 0.24));
        assert_eq!(bler_first_tx(29, 0.0).unwrap_err().field, "mcs");
    }

    #[test]
    fn chase_combining_adds_linear_sinr() {
        // Two equal transmissions are worth +3.01 dB.
        let one = bler_first_tx(10, 2.0 + 10.0 * 2f64.log10()).unwrap();
        let two = bler_chase_combining(10, &[2.0, 2.0]).unwrap();
        assert!((one - two).abs() < 1e-12);
        assert!(two < bler_first_tx(10, 2.0).unwrap());
        assert!(bler_chase_combining(10, &[]).is_err());
    }

    #[test]
    fn q_function_reference_values() {
        assert!((q_function(0.0) - 0.5).abs() < 1e-7);
        assert!((q_function(Z_90) - 0.1).abs() < 1e-7);
        assert!((q_function(-Z_90) - 0.9).abs() < 1e-7);
        assert!((q_function(2.326_347_874) - 0.01).abs() < 1e-8);
        assert!((q_function(3.090_232_306) - 0.001).abs() < 1e-9);
    }
}
