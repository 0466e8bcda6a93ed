//! NR numerology and carrier size: the subcarrier spacing 15 · 2^μ kHz and the slot of
//! 1 ms / 2^μ (TS 38.211 §4.2, §4.3.2: normal cyclic prefix, 14 OFDM symbols per slot), and
//! the maximum transmission bandwidth N_RB per channel bandwidth and spacing (TS 38.101-1
//! Table 5.3.2-1 for FR1, TS 38.101-2 Table 5.3.2-1 for FR2).
//!
//! The N_RB values were read from the two tables and checked against the copy that
//! OpenAirInterface keeps (`nr_common.c`, `tables_5_3_2`), which agrees entry by entry.

use crate::engine::Time;
use crate::error::ParamError;

/// OFDM symbols per slot with the normal cyclic prefix (TS 38.211 Table 4.3.2-1).
pub const SYMBOLS_PER_SLOT: u32 = 14;
/// Subcarriers per resource block (TS 38.211 §4.4.4.1).
pub const SUBCARRIERS_PER_RB: u32 = 12;
/// Largest μ modelled: 120 kHz (FR2 data; 240 kHz carries only SSB).
pub const MAX_MU: u8 = 3;

/// A numerology μ = 0..=3 (TS 38.211 Table 4.2-1, normal cyclic prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Numerology {
    mu: u8,
}

impl Numerology {
    pub fn new(mu: u8) -> Result<Self, ParamError> {
        if mu > MAX_MU {
            return Err(ParamError::new(
                "numerology",
                mu,
                "0..=3 (15, 30, 60, 120 kHz subcarrier spacing)",
            ));
        }
        Ok(Self { mu })
    }

    /// The numerology of a subcarrier spacing in kHz (15, 30, 60 or 120).
    pub fn from_scs_khz(scs_khz: u32) -> Result<Self, ParamError> {
        match scs_khz {
            15 => Ok(Self { mu: 0 }),
            30 => Ok(Self { mu: 1 }),
            60 => Ok(Self { mu: 2 }),
            120 => Ok(Self { mu: 3 }),
            _ => Err(ParamError::new("scs_khz", scs_khz, "15, 30, 60 or 120")),
        }
    }

    pub fn mu(self) -> u8 {
        self.mu
    }

    /// Subcarrier spacing Δf = 15 · 2^μ kHz.
    pub fn scs_khz(self) -> u32 {
        15 << self.mu
    }

    /// Slots per 1 ms subframe, 2^μ.
    pub fn slots_per_subframe(self) -> u32 {
        1 << self.mu
    }

    /// The slot's duration, 1 ms / 2^μ (exact in ns for μ ≤ 3: 1000, 500, 250, 125 µs).
    pub fn slot(self) -> Time {
        1_000_000 >> self.mu
    }
}

/// Frequency range: FR1 (410 MHz - 7.125 GHz) or FR2 (24.25 - 52.6 GHz), TS 38.101-1 / -2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrequencyRange {
    Fr1,
    Fr2,
}

impl FrequencyRange {
    /// The range a carrier frequency in GHz lies in.
    pub fn of_carrier_ghz(f_ghz: f64) -> Result<Self, ParamError> {
        if (0.41..=7.125).contains(&f_ghz) {
            Ok(FrequencyRange::Fr1)
        } else if (24.25..=52.6).contains(&f_ghz) {
            Ok(FrequencyRange::Fr2)
        } else {
            Err(ParamError::new(
                "carrier_ghz",
                f_ghz,
                "FR1, 0.41 to 7.125 GHz, or FR2, 24.25 to 52.6 GHz",
            ))
        }
    }
}

/// FR1 channel bandwidths in MHz, the columns of TS 38.101-1 Table 5.3.2-1.
const FR1_BW_MHZ: [u32; 15] = [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100];
/// N_RB by spacing (15, 30, 60 kHz) and FR1 bandwidth; 0 where the table has "N/A".
const FR1_N_RB: [[u32; 15]; 3] = [
    [25, 52, 79, 106, 133, 160, 188, 216, 242, 270, 0, 0, 0, 0, 0],
    [
        11, 24, 38, 51, 65, 78, 92, 106, 119, 133, 162, 189, 217, 245, 273,
    ],
    [0, 11, 18, 24, 31, 38, 44, 51, 58, 65, 79, 93, 107, 121, 135],
];
/// FR2 channel bandwidths in MHz, the columns of TS 38.101-2 Table 5.3.2-1.
const FR2_BW_MHZ: [u32; 4] = [50, 100, 200, 400];
/// N_RB by spacing (60, 120 kHz) and FR2 bandwidth; 0 where the table has "N/A".
const FR2_N_RB: [[u32; 4]; 2] = [[66, 132, 264, 0], [32, 66, 132, 264]];

/// The maximum transmission bandwidth N_RB of a carrier of `bw_mhz` at numerology `num`
/// in frequency range `fr`: the PRBs a scheduler can allocate (guard bands excluded).
pub fn n_rb(fr: FrequencyRange, bw_mhz: u32, num: Numerology) -> Result<u32, ParamError> {
    let (row, bws): (Option<&[u32]>, &[u32]) = match fr {
        FrequencyRange::Fr1 => (FR1_N_RB.get(num.mu() as usize).map(|r| &r[..]), &FR1_BW_MHZ),
        FrequencyRange::Fr2 => (
            (num.mu() >= 2).then(|| &FR2_N_RB[(num.mu() - 2) as usize][..]),
            &FR2_BW_MHZ,
        ),
    };
    let found = row.and_then(|r| {
        bws.iter()
            .position(|&b| b == bw_mhz)
            .map(|i| r[i])
            .filter(|&n| n > 0)
    });
    found.ok_or_else(|| {
        let valid: Vec<String> = row
            .map(|r| {
                bws.iter()
                    .zip(r)
                    .filter(|(_, &n)| n > 0)
                    .map(|(b, _)| b.to_string())
                    .collect()
            })
            .unwrap_or_default();
        let allowed = if valid.is_empty() {
            format!("no bandwidth: {} kHz is not used in {fr:?}", num.scs_khz())
        } else {
            format!(
                "one of {} MHz at {} kHz in {fr:?}",
                valid.join(", "),
                num.scs_khz()
            )
        };
        ParamError::new("bandwidth_mhz", bw_mhz, allowed)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numerology_scales_spacing_and_slot() {
        let expect = [
            (15, 1, 1_000_000),
            (30, 2, 500_000),
            (60, 4, 250_000),
            (120, 8, 125_000),
        ];
        for (mu, &(scs, slots, slot)) in expect.iter().enumerate() {
            let n = Numerology::new(mu as u8).unwrap();
            assert_eq!(
                (n.scs_khz(), n.slots_per_subframe(), n.slot()),
                (scs, slots, slot)
            );
            assert_eq!(Numerology::from_scs_khz(scs).unwrap(), n);
        }
        assert!(Numerology::new(4).is_err());
        assert!(Numerology::from_scs_khz(240).is_err());
    }

    #[test]
    fn n_rb_follows_the_tables() {
        let fr1 = FrequencyRange::Fr1;
        let n = |mu| Numerology::new(mu).unwrap();
        // The common mid-band cell, and LTE-like 20 MHz at 15 kHz.
        assert_eq!(n_rb(fr1, 100, n(1)).unwrap(), 273);
        assert_eq!(n_rb(fr1, 20, n(0)).unwrap(), 106);
        assert_eq!(n_rb(fr1, 40, n(1)).unwrap(), 106);
        assert_eq!(n_rb(fr1, 100, n(2)).unwrap(), 135);
        assert_eq!(n_rb(FrequencyRange::Fr2, 400, n(3)).unwrap(), 264);
        assert_eq!(n_rb(FrequencyRange::Fr2, 100, n(2)).unwrap(), 132);
        // N_RB · 12 · Δf stays inside the channel at every entry (guard bands are positive).
        for (mu, row) in FR1_N_RB.iter().enumerate() {
            for (&bw, &rb) in FR1_BW_MHZ.iter().zip(row) {
                if rb > 0 {
                    assert!(rb * 12 * (15 << mu) < bw * 1000, "{bw} MHz mu {mu}");
                }
            }
        }
    }

    #[test]
    fn n_rb_names_the_valid_bandwidths() {
        let e = n_rb(FrequencyRange::Fr1, 100, Numerology::new(0).unwrap()).unwrap_err();
        assert_eq!(e.field, "bandwidth_mhz");
        assert!(e.allowed.contains("one of 5, 10,") && e.allowed.contains("50 MHz at 15 kHz"));
        let e = n_rb(FrequencyRange::Fr2, 100, Numerology::new(0).unwrap()).unwrap_err();
        assert!(
            e.allowed.contains("15 kHz is not used in Fr2"),
            "{}",
            e.allowed
        );
        assert!(n_rb(FrequencyRange::Fr1, 5, Numerology::new(2).unwrap()).is_err());
    }

    #[test]
    fn carriers_fall_in_their_range() {
        assert_eq!(
            FrequencyRange::of_carrier_ghz(3.5).unwrap(),
            FrequencyRange::Fr1
        );
        assert_eq!(
            FrequencyRange::of_carrier_ghz(28.0).unwrap(),
            FrequencyRange::Fr2
        );
        assert!(FrequencyRange::of_carrier_ghz(10.0).is_err());
    }
}
