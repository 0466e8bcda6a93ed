//! The NR Short BSR's buffer size levels (TS 38.321 §6.1.3.1, Table 6.1.3.1-1): 5 bits, 32
//! levels, coarser than LTE's 6-bit table (TS 36.321 Table 6.1.3.1-1). A UE whose uplink
//! carries one logical channel group (its TCP ACKs) reports a Short BSR, or a Short Truncated
//! BSR as padding, so the 8-bit Long BSR table (Table 6.1.3.1-2) is not needed here.
//!
//! Values checked against OpenAirInterface's copy (`NR_SHORT_BSR_TABLE` in
//! `nr_mac_common.c`), which agrees entry by entry.

/// Upper bound in octets of each level: index i means `TABLE[i - 1] < BS <= TABLE[i]`; index 0
/// is an empty buffer, index 31 `BS > 150000`.
const SHORT_BSR_BYTES: [u32; 31] = [
    0, 10, 14, 20, 28, 38, 53, 74, 102, 142, 198, 276, 384, 535, 745, 1038, 1446, 2014, 2806, 3909,
    5446, 7587, 10570, 14726, 20516, 28581, 39818, 55474, 77284, 107669, 150000,
];

/// The last index: more than 150,000 octets.
pub const SHORT_BSR_MAX_INDEX: u8 = 31;

/// The index a UE reports for `bytes` of buffered data (its BSR counts all of it: RLC data
/// and headers, TS 38.321 §5.4.5 and TS 38.322 §5.5).
pub fn short_bsr_index(bytes: u64) -> u8 {
    SHORT_BSR_BYTES
        .iter()
        .position(|&b| bytes <= u64::from(b))
        .map_or(SHORT_BSR_MAX_INDEX, |i| i as u8)
}

/// What the gNB assumes a report of `index` means: the level's upper bound, which a grant
/// sized to it will not leave short. Index 31 has no upper bound; the gNB reads it as
/// 150,001 octets and learns more from the next report.
pub fn short_bsr_bytes(index: u8) -> u32 {
    SHORT_BSR_BYTES
        .get(index as usize)
        .copied()
        .unwrap_or(SHORT_BSR_BYTES[30] + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_bound_what_they_report() {
        assert_eq!(short_bsr_index(0), 0);
        assert_eq!(short_bsr_index(1), 1);
        assert_eq!(short_bsr_index(10), 1);
        assert_eq!(short_bsr_index(11), 2);
        // One TCP ACK of 52 octets plus RLC and PDCP headers (about 60): level 7 (53 < BS <= 74).
        assert_eq!(short_bsr_index(60), 7);
        assert_eq!(short_bsr_index(150_000), 30);
        assert_eq!(short_bsr_index(150_001), SHORT_BSR_MAX_INDEX);
        assert_eq!(short_bsr_index(u64::MAX), SHORT_BSR_MAX_INDEX);
        for bytes in (0..200_000u64).step_by(37) {
            let i = short_bsr_index(bytes);
            assert!(
                u64::from(short_bsr_bytes(i)) >= bytes.min(150_001),
                "{bytes}"
            );
            if i > 0 {
                assert!(u64::from(short_bsr_bytes(i - 1)) < bytes, "{bytes}");
            }
        }
    }

    #[test]
    fn levels_grow_by_about_a_third() {
        // Above its first levels the table is geometric (each level about 1.39 times the one
        // below), so a grant sized to a report overestimates the buffer by at most 43 %.
        for w in SHORT_BSR_BYTES[2..].windows(2) {
            let r = f64::from(w[1]) / f64::from(w[0]);
            assert!((1.3..1.5).contains(&r), "{w:?}");
        }
    }
}
