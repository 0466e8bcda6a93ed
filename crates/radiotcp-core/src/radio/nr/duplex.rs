//! Which slots and symbols carry the downlink and which the uplink: FDD (both, every slot, on
//! two carriers) or a TDD pattern (TS 38.213 §11.1, `tdd-UL-DL-ConfigurationCommon` of TS
//! 38.331). A TDD pattern is written as the industry writes it, one letter per slot ("DDDSU",
//! "DDDDDDDSUU"), with the special slot's split of its 14 symbols into downlink, guard
//! (flexible) and uplink symbols ("10:2:2"). The pattern repeats; its period must be one of
//! the `dl-UL-TransmissionPeriodicity` values.

use super::numerology::{Numerology, SYMBOLS_PER_SLOT};
use crate::error::ParamError;

/// `dl-UL-TransmissionPeriodicity` values of TS 38.331 (Rel-16), in µs.
const PERIODS_US: [u32; 10] = [500, 625, 1000, 1250, 2000, 2500, 3000, 4000, 5000, 10000];

/// One slot of a TDD pattern: its symbols by direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotSymbols {
    pub dl: u8,
    pub guard: u8,
    pub ul: u8,
}

impl SlotSymbols {
    const DOWNLINK: Self = Self {
        dl: SYMBOLS_PER_SLOT as u8,
        guard: 0,
        ul: 0,
    };
    const UPLINK: Self = Self {
        dl: 0,
        guard: 0,
        ul: SYMBOLS_PER_SLOT as u8,
    };
}

/// The duplex arrangement of a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Duplex {
    /// Paired spectrum: every slot has 14 downlink and 14 uplink symbols.
    Fdd,
    /// Unpaired spectrum: a repeating pattern of slots.
    Tdd(Vec<SlotSymbols>),
}

impl Duplex {
    /// A TDD pattern from its letters (`D`, `S`, `U`, one per slot) and the special slot's
    /// `dl:guard:ul` symbols, at numerology `num` (which gives the period its length).
    pub fn tdd(pattern: &str, special: &str, num: Numerology) -> Result<Self, ParamError> {
        let split: Vec<u8> = special
            .split(':')
            .map(|p| p.trim().parse::<u8>())
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        let special_slot = match split[..] {
            [dl, guard, ul]
                if u32::from(dl) + u32::from(guard) + u32::from(ul) == SYMBOLS_PER_SLOT =>
            {
                SlotSymbols { dl, guard, ul }
            }
            _ => {
                return Err(ParamError::new(
                    "special_slot",
                    format!("{special:?}"),
                    "\"dl:guard:ul\" symbols that add up to 14, e.g. \"10:2:2\"",
                ))
            }
        };
        let slots: Vec<SlotSymbols> = pattern
            .chars()
            .map(|c| match c {
                'D' => Some(SlotSymbols::DOWNLINK),
                'U' => Some(SlotSymbols::UPLINK),
                'S' => Some(special_slot),
                _ => None,
            })
            .collect::<Option<_>>()
            .filter(|s: &Vec<SlotSymbols>| !s.is_empty())
            .ok_or_else(|| {
                ParamError::new(
                    "tdd_pattern",
                    format!("{pattern:?}"),
                    "slots as letters D, S, U (e.g. \"DDDSU\")",
                )
            })?;
        if !slots.iter().any(|s| s.ul > 0) || !slots.iter().any(|s| s.dl > 0) {
            return Err(ParamError::new(
                "tdd_pattern",
                format!("{pattern:?}"),
                "at least one slot with downlink and one with uplink symbols",
            ));
        }
        let period_us = slots.len() as u64 * num.slot() / 1000;
        if !PERIODS_US.iter().any(|&p| u64::from(p) == period_us) {
            let ms: Vec<String> = PERIODS_US
                .iter()
                .map(|&p| (f64::from(p) / 1000.0).to_string())
                .collect();
            return Err(ParamError::new(
                "tdd_pattern",
                format!("{pattern:?}"),
                format!(
                    "a period of {} ms (here {} ms: {} slots at {} kHz)",
                    ms.join(", "),
                    period_us as f64 / 1000.0,
                    slots.len(),
                    num.scs_khz()
                ),
            ));
        }
        Ok(Duplex::Tdd(slots))
    }

    /// The symbols of slot `n` (counted from the start of the run).
    pub fn slot(&self, n: u64) -> SlotSymbols {
        match self {
            Duplex::Fdd => SlotSymbols {
                dl: SYMBOLS_PER_SLOT as u8,
                guard: 0,
                ul: SYMBOLS_PER_SLOT as u8,
            },
            Duplex::Tdd(p) => p[(n % p.len() as u64) as usize],
        }
    }

    /// Whether slot `n` can carry a downlink transmission (a PDCCH and PDSCH).
    pub fn has_dl(&self, n: u64) -> bool {
        self.slot(n).dl > 0
    }

    /// Whether slot `n` can carry an uplink transmission (PUSCH, or PUCCH with HARQ feedback).
    pub fn has_ul(&self, n: u64) -> bool {
        self.slot(n).ul > 0
    }

    /// Whether slot `n` can carry a PUSCH: all its symbols are uplink. A special slot's few
    /// uplink symbols (2 in "10:2:2") carry PUCCH (HARQ-ACK, SR) only: a PUSCH there would
    /// hold a sixth of a slot's data, which the cell model does not schedule.
    #[inline]
    pub fn has_pusch(&self, n: u64) -> bool {
        u32::from(self.slot(n).ul) == SYMBOLS_PER_SLOT
    }

    /// Whether all of slot `n`'s symbols are downlink.
    #[inline]
    pub fn has_full_dl(&self, n: u64) -> bool {
        u32::from(self.slot(n).dl) == SYMBOLS_PER_SLOT
    }

    /// The first slot at or after `n` that can carry a PUSCH.
    pub fn next_pusch(&self, n: u64) -> u64 {
        (n..)
            .find(|&s| self.has_pusch(s))
            .expect("a pattern has an uplink slot")
    }

    /// The first full downlink slot at or after `n` (where a downlink retransmission, which
    /// keeps its PRBs and block, fits).
    pub fn next_full_dl(&self, n: u64) -> u64 {
        (n..)
            .find(|&s| self.has_full_dl(s))
            .expect("a pattern has a downlink slot")
    }

    /// The first slot at or after `n` with uplink symbols: where HARQ feedback due K1 slots
    /// after a PDSCH, or a PUSCH granted K2 slots ahead, can go at the earliest.
    pub fn next_ul(&self, n: u64) -> u64 {
        (n..)
            .find(|&s| self.has_ul(s))
            .expect("a pattern has an uplink slot")
    }

    /// The first slot at or after `n` with downlink symbols.
    pub fn next_dl(&self, n: u64) -> u64 {
        (n..)
            .find(|&s| self.has_dl(s))
            .expect("a pattern has a downlink slot")
    }

    /// The fraction of symbols in each direction over a period (downlink, uplink): the
    /// capacity share a full-buffer link gets.
    pub fn shares(&self) -> (f64, f64) {
        match self {
            Duplex::Fdd => (1.0, 1.0),
            Duplex::Tdd(p) => {
                let total = (p.len() as u32 * SYMBOLS_PER_SLOT) as f64;
                let dl: u32 = p.iter().map(|s| u32::from(s.dl)).sum();
                let ul: u32 = p.iter().map(|s| u32::from(s.ul)).sum();
                (f64::from(dl) / total, f64::from(ul) / total)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mu(m: u8) -> Numerology {
        Numerology::new(m).unwrap()
    }

    #[test]
    fn dddsu_at_30_khz_repeats_every_2_5_ms() {
        let d = Duplex::tdd("DDDSU", "10:2:2", mu(1)).unwrap();
        let kinds: Vec<(bool, bool)> = (0..10).map(|n| (d.has_dl(n), d.has_ul(n))).collect();
        let one = [
            (true, false),
            (true, false),
            (true, false),
            (true, true),
            (false, true),
        ];
        assert_eq!(kinds[..5], one);
        assert_eq!(kinds[5..], one);
        assert_eq!(
            d.slot(3),
            SlotSymbols {
                dl: 10,
                guard: 2,
                ul: 2
            }
        );
        // A PDSCH in slot 0 with K1 = 2 has its feedback in slot 3 (the special slot's
        // uplink symbols); one in slot 4 with K1 = 1 waits for slot 8.
        assert_eq!(d.next_ul(2), 3);
        assert_eq!(d.next_ul(5), 8);
        assert_eq!(d.next_dl(4), 5);
        let (dl, ul) = d.shares();
        assert!((dl - 52.0 / 70.0).abs() < 1e-12 && (ul - 16.0 / 70.0).abs() < 1e-12);
    }

    #[test]
    fn fdd_has_both_directions_in_every_slot() {
        let d = Duplex::Fdd;
        assert!((0..5).all(|n| d.has_dl(n) && d.has_ul(n)));
        assert_eq!(d.next_ul(7), 7);
        assert_eq!(d.shares(), (1.0, 1.0));
    }

    #[test]
    fn periods_must_be_ones_the_rrc_allows() {
        // DDDDDDDSUU: 5 ms at 30 kHz, 10 ms at 15 kHz, both allowed.
        assert!(Duplex::tdd("DDDDDDDSUU", "6:4:4", mu(1)).is_ok());
        assert!(Duplex::tdd("DDDDDDDSUU", "6:4:4", mu(0)).is_ok());
        // 7 slots at 30 kHz = 3.5 ms: not a dl-UL-TransmissionPeriodicity.
        let e = Duplex::tdd("DDDDSUU", "10:2:2", mu(1)).unwrap_err();
        assert_eq!(e.field, "tdd_pattern");
        assert!(e.allowed.contains("3.5 ms") && e.allowed.contains("2.5, 3, 4, 5, 10"));
    }

    #[test]
    fn bad_patterns_and_splits_are_named() {
        let e = Duplex::tdd("DDXSU", "10:2:2", mu(1)).unwrap_err();
        assert!(e.allowed.contains("letters D, S, U"), "{}", e.allowed);
        let e = Duplex::tdd("DDDSU", "10:2:3", mu(1)).unwrap_err();
        assert_eq!(e.field, "special_slot");
        assert!(Duplex::tdd("DDDSU", "10-2-2", mu(1)).is_err());
        assert!(Duplex::tdd("DDDDD", "10:2:2", mu(1)).is_err());
        assert!(Duplex::tdd("", "10:2:2", mu(1)).is_err());
    }
}
