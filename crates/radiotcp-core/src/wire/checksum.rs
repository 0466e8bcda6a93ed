//! The Internet checksum (RFC 1071) as IPv4 (RFC 791 §3.1) and TCP (RFC 9293 §3.1) use it:
//! the 16-bit one's complement of the one's complement sum of the 16-bit words covered.

/// RFC 1071 §1: sum of the 16-bit big-endian words, an odd last byte padded on the right with
/// zero. Carries accumulate in the wide integer and are folded at the end (§2(B)).
pub fn sum_words(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(2);
    let mut sum: u64 = words
        .by_ref()
        .map(|w| u16::from_be_bytes([w[0], w[1]]) as u64)
        .sum();
    if let [last] = words.remainder() {
        sum += (*last as u64) << 8;
    }
    sum
}

/// Folds the carries back in: the 16-bit one's complement sum (RFC 1071 §2(B)).
pub fn fold(mut sum: u64) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The sum of the TCP pseudo-header (RFC 9293 §3.1): source and destination address, a zero
/// byte, the protocol, and the TCP length (header plus data, not counting the pseudo-header).
pub fn pseudo_header_sum(src: [u8; 4], dst: [u8; 4], protocol: u8, tcp_len: u16) -> u64 {
    let mut pseudo = [0u8; 12];
    pseudo[..4].copy_from_slice(&src);
    pseudo[4..8].copy_from_slice(&dst);
    pseudo[9] = protocol;
    pseudo[10..].copy_from_slice(&tcp_len.to_be_bytes());
    sum_words(&pseudo)
}

/// RFC 1071 the slow way, independent of `sum_words`/`fold`, for tests: word by word with
/// the end-around carry added at once (§2(B)), an odd last byte padded on the right.
#[cfg(test)]
pub(crate) fn reference_sum(bytes: &[u8]) -> u16 {
    let mut sum: u16 = 0;
    for pair in bytes.chunks(2) {
        let word = u16::from_be_bytes([pair[0], pair.get(1).copied().unwrap_or(0)]);
        let (s, carry) = sum.overflowing_add(word);
        sum = s + carry as u16;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_numerical_example() {
        // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (one's complement).
        let bytes = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(fold(sum_words(&bytes)), 0xddf2);
        assert_eq!(reference_sum(&bytes), 0xddf2);
        // An odd length: the last byte is the high half of a word.
        assert_eq!(fold(sum_words(&bytes[..7])), reference_sum(&bytes[..7]));
        // ffff + ffff + 0001 = 1_ffff: the first fold gives 1_0000, which carries again.
        let carries_twice = [0xff, 0xff, 0xff, 0xff, 0x00, 0x01];
        assert_eq!(fold(sum_words(&carries_twice)), 0x0001);
        assert_eq!(reference_sum(&carries_twice), 0x0001);
    }

    #[test]
    fn the_pseudo_header_is_summed_as_its_twelve_bytes() {
        let bytes = [10, 0, 0, 1, 10, 0, 0, 2, 0, 6, 0x00, 0x18];
        assert_eq!(
            pseudo_header_sum([10, 0, 0, 1], [10, 0, 0, 2], 6, 24),
            sum_words(&bytes)
        );
    }
}
