//! The IPv4 header (RFC 791 §3.1) as a value: [`Ipv4Repr`].

use super::checksum::{fold, sum_words};
use super::WireError;

/// Length of an IPv4 header without options (IHL 5), the only one [`Ipv4Repr::emit`] writes.
pub const IPV4_HEADER_LEN: usize = 20;

/// Byte positions in the IPv4 header (RFC 791 §3.1, the figure "Example Internet Datagram
/// Header").
mod field {
    use std::ops::Range;
    pub const VER_IHL: usize = 0;
    /// The former type of service: DSCP (RFC 2474 §3) and ECN (RFC 3168 §5).
    pub const TOS: usize = 1;
    pub const TOTAL_LEN: Range<usize> = 2..4;
    pub const IDENT: Range<usize> = 4..6;
    pub const FLAGS_FRAG: Range<usize> = 6..8;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: Range<usize> = 10..12;
    pub const SRC: Range<usize> = 12..16;
    pub const DST: Range<usize> = 16..20;
}

// The three flag bits lead the flags/fragment-offset word (RFC 791 §3.1): bit 0 reserved
// (zero), bit 1 don't fragment, bit 2 more fragments; the offset takes the low 13 bits.
const DONT_FRAG: u16 = 0x4000;
const MORE_FRAGS: u16 = 0x2000;
const FRAG_OFFSET: u16 = 0x1fff;

/// An IPv4 header: every field a packet of radiotcp's has, options not represented (`parse`
/// skips them, `emit` writes none: neither the simulator nor Linux's TCP puts any).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ipv4Repr {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// IANA protocol number of the payload ([`super::PROTO_TCP`], 17 for UDP, ...).
    pub protocol: u8,
    /// Bytes after the header: total length minus header length (RFC 791 §3.1).
    pub payload_len: u16,
    pub ttl: u8,
    /// Identification (RFC 791 §3.1).
    pub ident: u16,
    /// DSCP and ECN bits (RFC 2474 §3, RFC 3168 §5), byte 1.
    pub tos: u8,
    pub dont_frag: bool,
    pub more_frags: bool,
    /// Fragment offset in 8-octet units, 13 bits (RFC 791 §3.1).
    pub frag_offset: u16,
}

impl Ipv4Repr {
    /// The header at the start of `b` and its length (IHL x 4, options included). The
    /// header's checksum is not verified ([`super::verify_checksums`] does): a packet in
    /// transit is carried as it is, and its receiver judges it. Bytes past the total length
    /// (link-layer padding) are ignored.
    pub fn parse(b: &[u8]) -> Result<(Ipv4Repr, usize), WireError> {
        let first = *b.first().ok_or(WireError::Truncated)?;
        if first >> 4 != 4 {
            return Err(WireError::Version(first >> 4));
        }
        if b.len() < IPV4_HEADER_LEN {
            return Err(WireError::Truncated);
        }
        // IHL counts 32-bit words; 5 is the smallest legal value (RFC 791 §3.1).
        let header_len = ((b[field::VER_IHL] & 0x0f) as usize) * 4;
        let total = be16(b, field::TOTAL_LEN.start) as usize;
        if header_len < IPV4_HEADER_LEN {
            return Err(WireError::HeaderLen);
        }
        if total < header_len {
            return Err(WireError::TotalLen);
        }
        if total > b.len() {
            return Err(WireError::Truncated);
        }
        let flags_frag = be16(b, field::FLAGS_FRAG.start);
        let addr = |r: std::ops::Range<usize>| -> [u8; 4] { b[r].try_into().expect("4 bytes") };
        let repr = Ipv4Repr {
            src: addr(field::SRC),
            dst: addr(field::DST),
            protocol: b[field::PROTOCOL],
            payload_len: (total - header_len) as u16,
            ttl: b[field::TTL],
            ident: be16(b, field::IDENT.start),
            tos: b[field::TOS],
            dont_frag: flags_frag & DONT_FRAG != 0,
            more_frags: flags_frag & MORE_FRAGS != 0,
            frag_offset: flags_frag & FRAG_OFFSET,
        };
        Ok((repr, header_len))
    }

    /// Bytes [`Ipv4Repr::emit`] writes: the header without options.
    pub const fn buffer_len(&self) -> usize {
        IPV4_HEADER_LEN
    }

    /// Whether this is a whole datagram, not a fragment of one (RFC 791 §2.3: more fragments
    /// clear and offset zero).
    pub fn is_whole(&self) -> bool {
        !self.more_frags && self.frag_offset == 0
    }

    /// Writes the header to `buf[..20]`, its checksum filled in (RFC 791 §3.1: the one's
    /// complement sum of the header's words, computed with the checksum field zero).
    ///
    /// # Panics
    /// If `buf` is shorter than 20 bytes, or the total length exceeds the 16-bit field.
    pub fn emit(&self, buf: &mut [u8]) {
        let total = u16::try_from(IPV4_HEADER_LEN + self.payload_len as usize)
            .expect("IPv4 packet longer than 65535 bytes (RFC 791 §3.1)");
        assert!(
            self.frag_offset <= FRAG_OFFSET,
            "fragment offset is 13 bits"
        );
        let b = &mut buf[..IPV4_HEADER_LEN];
        // Version 4, IHL 5 words.
        b[field::VER_IHL] = 0x45;
        b[field::TOS] = self.tos;
        b[field::TOTAL_LEN].copy_from_slice(&total.to_be_bytes());
        b[field::IDENT].copy_from_slice(&self.ident.to_be_bytes());
        let flags = if self.dont_frag { DONT_FRAG } else { 0 }
            | if self.more_frags { MORE_FRAGS } else { 0 }
            | self.frag_offset;
        b[field::FLAGS_FRAG].copy_from_slice(&flags.to_be_bytes());
        b[field::TTL] = self.ttl;
        b[field::PROTOCOL] = self.protocol;
        b[field::CHECKSUM].fill(0);
        b[field::SRC].copy_from_slice(&self.src);
        b[field::DST].copy_from_slice(&self.dst);
        fill_checksum(b);
    }
}

/// Recomputes the checksum of the IPv4 header `header` (options included) in place.
pub(super) fn fill_checksum(header: &mut [u8]) {
    header[field::CHECKSUM].fill(0);
    let c = !fold(sum_words(header));
    header[field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
}

/// Whether the header `header` (options included) sums to 0xffff with its checksum, as a
/// receiver checks it (RFC 1071 §1 (3)).
pub(super) fn checksum_ok(header: &[u8]) -> bool {
    fold(sum_words(header)) == 0xffff
}

pub(super) fn be16(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([b[i], b[i + 1]])
}

#[cfg(test)]
mod tests {
    use super::super::checksum::reference_sum;
    use super::*;
    use proptest::prelude::*;

    fn repr() -> Ipv4Repr {
        Ipv4Repr {
            src: [10, 0, 0, 1],
            dst: [10, 0, 0, 2],
            protocol: 6,
            payload_len: 24,
            ttl: 64,
            ident: 1,
            dont_frag: true,
            ..Ipv4Repr::default()
        }
    }

    #[test]
    fn a_header_matches_hand_computed_bytes() {
        // The header of the SYN in pcap's tests: words sum to d936, ~d936 = 26c9.
        let mut b = [0u8; 20];
        repr().emit(&mut b);
        #[rustfmt::skip]
        assert_eq!(b, [
            0x45, 0x00, 0x00, 0x2c, 0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x26, 0xc9,
            10, 0, 0, 1, 10, 0, 0, 2,
        ]);
        assert_eq!(reference_sum(&b), 0xffff);
        assert!(checksum_ok(&b));
    }

    #[test]
    fn options_are_skipped_and_bad_headers_refused() {
        // IHL 6: four option bytes (a NOP and an end of list), then four payload bytes.
        let mut b = vec![0u8; 28];
        repr().emit(&mut b);
        b[0] = 0x46;
        b[2..4].copy_from_slice(&28u16.to_be_bytes());
        b[20] = 1;
        let (r, hl) = Ipv4Repr::parse(&b).unwrap();
        assert_eq!((hl, r.payload_len, r.src), (24, 4, [10, 0, 0, 1]));
        // Link-layer padding after the datagram is ignored.
        let mut padded = b.clone();
        padded.extend_from_slice(&[0; 6]);
        assert_eq!(Ipv4Repr::parse(&padded).unwrap(), (r, 24));

        assert_eq!(Ipv4Repr::parse(&[]), Err(WireError::Truncated));
        assert_eq!(Ipv4Repr::parse(&b[..19]), Err(WireError::Truncated));
        assert_eq!(Ipv4Repr::parse(&[0x60; 40]), Err(WireError::Version(6)));
        let mut short_ihl = b.clone();
        short_ihl[0] = 0x44;
        assert_eq!(Ipv4Repr::parse(&short_ihl), Err(WireError::HeaderLen));
        let mut total_below_header = b.clone();
        total_below_header[2..4].copy_from_slice(&23u16.to_be_bytes());
        assert_eq!(
            Ipv4Repr::parse(&total_below_header),
            Err(WireError::TotalLen)
        );
        assert_eq!(Ipv4Repr::parse(&b[..27]), Err(WireError::Truncated));
    }

    #[test]
    #[should_panic(expected = "longer than 65535")]
    fn a_total_length_past_16_bits_panics() {
        let r = Ipv4Repr {
            payload_len: 65535 - 19,
            ..repr()
        };
        r.emit(&mut [0u8; 20]);
    }

    fn any_repr() -> impl Strategy<Value = Ipv4Repr> {
        (
            any::<([u8; 4], [u8; 4], u8, u8, u16, u8)>(),
            (0u16..=65515, any::<(bool, bool)>(), 0u16..=0x1fff),
        )
            .prop_map(
                |((src, dst, protocol, ttl, ident, tos), (payload_len, flags, frag_offset))| {
                    Ipv4Repr {
                        src,
                        dst,
                        protocol,
                        payload_len,
                        ttl,
                        ident,
                        tos,
                        dont_frag: flags.0,
                        more_frags: flags.1,
                        frag_offset,
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn parse_of_emit_is_identity(r in any_repr()) {
            let mut b = vec![0u8; IPV4_HEADER_LEN + r.payload_len as usize];
            r.emit(&mut b);
            prop_assert_eq!(Ipv4Repr::parse(&b), Ok((r, IPV4_HEADER_LEN)));
            prop_assert_eq!(reference_sum(&b[..20]), 0xffff);
        }
    }
}
