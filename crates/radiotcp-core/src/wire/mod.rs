//! IPv4/TCP packets on the wire, read and written in one place: the pcap export writes
//! simulated packets as a sniffer would record them (`probe::capture`, `pcap`), and the
//! emulation reads real hosts' packets and writes the base station's own ACKs (`emulate`).
//!
//! Shaped like smoltcp's `wire`: each header is a plain value (a `Repr`) with `parse` from
//! bytes and `emit` into a buffer of `buffer_len()` bytes; [`Ipv4Repr`] (RFC 791 §3.1),
//! [`TcpRepr`] with its options (RFC 9293 §3.1-3.2, RFC 7323, RFC 2018), and
//! [`Ipv4TcpRepr`], the two together with the TCP payload's length. `parse` checks structure
//! (version, lengths) and not checksums: a packet in transit is carried as it is, and its
//! receiver judges it; [`verify_checksums`] checks them. `emit` computes both checksums
//! (RFC 1071), over a payload that may be present only in part, the rest taken as zeros (a
//! simulated packet has no payload bytes; a pcap record captures none or some of them).
//!
//! Sans-IO, no allocation but [`Ipv4TcpRepr::to_packet`], and nothing from the rest of the
//! crate.

pub mod checksum;
pub mod ipv4;
pub mod tcp;

pub use ipv4::{Ipv4Repr, IPV4_HEADER_LEN};
pub use tcp::{
    SackBlocks, TcpOption, TcpOptions, TcpRepr, MAX_OPTIONS_LEN, TCP_HEADER_LEN, TCP_MAX_HEADER_LEN,
};

/// IP protocol number of TCP (IANA).
pub const PROTO_TCP: u8 = 6;

/// TCP flag bits, byte 13 of the header (RFC 9293 §3.1; ECE and CWR are RFC 3168's).
pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const PSH: u8 = 0x08;
pub const ACK: u8 = 0x10;
pub const URG: u8 = 0x20;
pub const ECE: u8 = 0x40;
pub const CWR: u8 = 0x80;

/// Why bytes are not the packet asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireError {
    /// Fewer bytes than a header, or than the length a header declares.
    Truncated,
    /// Not IPv4: the version nibble.
    Version(u8),
    /// An IPv4 IHL or a TCP data offset below 5 words (RFC 791 §3.1, RFC 9293 §3.1).
    HeaderLen,
    /// An IPv4 total length shorter than its header (RFC 791 §3.1).
    TotalLen,
    /// Not TCP: the IPv4 protocol number.
    NotTcp(u8),
    /// A fragment, not a whole datagram (RFC 791 §2.3): its TCP segment is not all there.
    Fragment,
    /// A TCP option whose length is below 2 or runs past the options (RFC 9293 §3.1).
    BadOption,
    /// The IPv4 header checksum does not verify (RFC 791 §3.1).
    Ipv4Checksum,
    /// The TCP checksum does not verify (RFC 9293 §3.1).
    TcpChecksum,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Truncated => write!(f, "truncated packet"),
            WireError::Version(v) => write!(f, "IP version {v}, not 4"),
            WireError::HeaderLen => write!(f, "header length below 20 bytes"),
            WireError::TotalLen => write!(f, "IPv4 total length shorter than its header"),
            WireError::NotTcp(p) => write!(f, "IP protocol {p}, not TCP"),
            WireError::Fragment => write!(f, "an IPv4 fragment"),
            WireError::BadOption => write!(f, "TCP option with an illegal length"),
            WireError::Ipv4Checksum => write!(f, "bad IPv4 header checksum"),
            WireError::TcpChecksum => write!(f, "bad TCP checksum"),
        }
    }
}

impl std::error::Error for WireError {}

/// An IPv4 packet carrying a TCP segment: the IPv4 header's own fields (its protocol is TCP,
/// its length follows from the rest, it is never a fragment), the TCP header, and how many
/// payload bytes follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ipv4TcpRepr {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// IPv4 identification (RFC 791 §3.1).
    pub ident: u16,
    pub ttl: u8,
    /// DSCP and ECN bits (RFC 2474 §3, RFC 3168 §5).
    pub tos: u8,
    pub dont_frag: bool,
    pub tcp: TcpRepr,
    /// TCP payload bytes.
    pub payload_len: u32,
}

impl Ipv4TcpRepr {
    /// The IPv4/TCP packet `b`. IPv4 options are skipped; TCP options as in
    /// [`TcpOptions::parse`]. Checksums are not verified ([`verify_checksums`]).
    pub fn parse(b: &[u8]) -> Result<Ipv4TcpRepr, WireError> {
        let (ip, ip_header_len) = Ipv4Repr::parse(b)?;
        if ip.protocol != PROTO_TCP {
            return Err(WireError::NotTcp(ip.protocol));
        }
        if !ip.is_whole() {
            return Err(WireError::Fragment);
        }
        let seg = &b[ip_header_len..ip_header_len + ip.payload_len as usize];
        let (tcp, tcp_header_len) = TcpRepr::parse(seg)?;
        Ok(Ipv4TcpRepr {
            src: ip.src,
            dst: ip.dst,
            ident: ip.ident,
            ttl: ip.ttl,
            tos: ip.tos,
            dont_frag: ip.dont_frag,
            tcp,
            payload_len: (seg.len() - tcp_header_len) as u32,
        })
    }

    /// Both headers: 20 bytes of IPv4, the TCP header with its options.
    pub fn header_len(&self) -> usize {
        IPV4_HEADER_LEN + self.tcp.header_len()
    }

    /// The whole packet: headers and payload (the IPv4 total length).
    pub fn buffer_len(&self) -> usize {
        self.header_len() + self.payload_len as usize
    }

    /// Writes both headers to `buf[..header_len()]`, checksums filled in. The payload is
    /// `buf[header_len()..]` as the caller put it, continued with zeros up to `payload_len`:
    /// all of it for a real packet, none or a captured part for a simulated one.
    ///
    /// # Panics
    /// If `buf` is shorter than the headers or longer than the packet, or the packet is
    /// longer than IPv4's 65535-byte total length (RFC 791 §3.1).
    pub fn emit(&self, buf: &mut [u8]) {
        let total = self.buffer_len();
        assert!(
            total <= u16::MAX as usize,
            "IPv4 packet longer than 65535 bytes (RFC 791 §3.1)"
        );
        let ip = Ipv4Repr {
            src: self.src,
            dst: self.dst,
            protocol: PROTO_TCP,
            payload_len: (total - IPV4_HEADER_LEN) as u16,
            ttl: self.ttl,
            ident: self.ident,
            tos: self.tos,
            dont_frag: self.dont_frag,
            more_frags: false,
            frag_offset: 0,
        };
        assert!(buf.len() <= total, "the buffer holds at most the packet");
        ip.emit(buf);
        self.tcp.emit(
            &mut buf[IPV4_HEADER_LEN..],
            self.src,
            self.dst,
            total - IPV4_HEADER_LEN,
        );
    }

    /// The packet with `payload` as its data (`payload_len` is taken from it): for tests
    /// and tools that need real packets.
    pub fn to_packet(&self, payload: &[u8]) -> Vec<u8> {
        let r = Ipv4TcpRepr {
            payload_len: payload.len() as u32,
            ..*self
        };
        let mut b = vec![0u8; r.buffer_len()];
        b[r.header_len()..].copy_from_slice(payload);
        r.emit(&mut b);
        b
    }
}

/// The IPv4 header and the TCP segment of an IPv4/TCP packet: (header length, total length).
fn ipv4_tcp_bounds(b: &[u8]) -> Result<(Ipv4Repr, usize, usize), WireError> {
    let (ip, header_len) = Ipv4Repr::parse(b)?;
    if ip.protocol != PROTO_TCP {
        return Err(WireError::NotTcp(ip.protocol));
    }
    if !ip.is_whole() {
        return Err(WireError::Fragment);
    }
    Ok((ip, header_len, header_len + ip.payload_len as usize))
}

/// Recomputes both checksums of the IPv4/TCP packet `b` in place (after its fields were
/// changed): the IPv4 header's (options included) and the TCP segment's with its
/// pseudo-header. Every other byte is kept.
pub fn fill_checksums(b: &mut [u8]) -> Result<(), WireError> {
    let (ip, header_len, total) = ipv4_tcp_bounds(b)?;
    ipv4::fill_checksum(&mut b[..header_len]);
    tcp::fill_checksum(
        &mut b[header_len..total],
        ip.src,
        ip.dst,
        total - header_len,
    );
    Ok(())
}

/// Whether both checksums of the IPv4/TCP packet `b` verify, as its receiver checks them
/// (RFC 1071 §1 (3)): the error names the first that does not.
pub fn verify_checksums(b: &[u8]) -> Result<(), WireError> {
    let (ip, header_len, total) = ipv4_tcp_bounds(b)?;
    if !ipv4::checksum_ok(&b[..header_len]) {
        return Err(WireError::Ipv4Checksum);
    }
    if !tcp::checksum_ok(&b[header_len..total], ip.src, ip.dst) {
        return Err(WireError::TcpChecksum);
    }
    Ok(())
}

/// 10.0.0.1:40000 -> 10.0.0.2:80, seq 1000, window 65535, IP id 1, TTL 64, DF: the segment of
/// this module's and pcap's tests.
#[cfg(test)]
pub(crate) fn sample_segment(flags: u8, payload_len: u32, options: TcpOptions) -> Ipv4TcpRepr {
    Ipv4TcpRepr {
        src: [10, 0, 0, 1],
        dst: [10, 0, 0, 2],
        ident: 1,
        ttl: 64,
        tos: 0,
        dont_frag: true,
        tcp: TcpRepr {
            src_port: 40000,
            dst_port: 80,
            seq: 1000,
            ack: 0,
            flags,
            window: 65535,
            urgent: 0,
            options,
        },
        payload_len,
    }
}

/// Bytes from a hex string, for the test vectors of this module and the emulation's.
#[cfg(test)]
pub(crate) fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::checksum::reference_sum;
    use super::*;
    use proptest::prelude::*;

    use super::{sample_segment as seg, unhex};

    /// The headers only (the payload, if any, left out).
    fn headers(r: &Ipv4TcpRepr) -> Vec<u8> {
        let mut b = vec![0u8; r.header_len()];
        r.emit(&mut b);
        b
    }

    /// The whole packet, its payload zeros.
    fn whole(r: &Ipv4TcpRepr) -> Vec<u8> {
        let mut b = vec![0u8; r.buffer_len()];
        r.emit(&mut b);
        b
    }

    /// Checks a packet as a receiver would, independently of this module: the IPv4 header
    /// and the pseudo-header + TCP segment both sum to 0xffff.
    fn assert_checksums_verify(packet: &[u8]) {
        let ihl = 4 * (packet[0] & 0x0f) as usize;
        let total_len = u16::from_be_bytes([packet[2], packet[3]]) as usize;
        assert_eq!(total_len, packet.len());
        assert_eq!(reference_sum(&packet[..ihl]), 0xffff, "IPv4 checksum");
        let mut pseudo = Vec::from(&packet[12..20]);
        pseudo.extend_from_slice(&[0, 6]);
        pseudo.extend_from_slice(&((total_len - ihl) as u16).to_be_bytes());
        pseudo.extend_from_slice(&packet[ihl..]);
        assert_eq!(reference_sum(&pseudo), 0xffff, "TCP checksum");
    }

    #[test]
    fn syn_with_mss_matches_hand_computed_bytes() {
        // Checksums by hand: IPv4 words sum to d936, so ~d936 = 26c9; the pseudo-header
        // (0a00 0001 0a00 0002 0006 0018) plus the TCP words sum to 2_1c52, folded 1c54,
        // so ~1c54 = e3ab.
        #[rustfmt::skip]
        let expected = [
            0x45, 0x00, 0x00, 0x2c, 0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x26, 0xc9,
            10, 0, 0, 1, 10, 0, 0, 2,
            0x9c, 0x40, 0x00, 0x50, 0x00, 0x00, 0x03, 0xe8, 0, 0, 0, 0,
            0x60, 0x02, 0xff, 0xff, 0xe3, 0xab, 0x00, 0x00,
            0x02, 0x04, 0x05, 0xb4,
        ];
        let syn = seg(
            SYN,
            0,
            TcpOptions {
                mss: Some(1460),
                ..TcpOptions::default()
            },
        );
        let packet = whole(&syn);
        assert_eq!(packet, expected);
        assert_checksums_verify(&packet);
        assert_eq!(verify_checksums(&packet), Ok(()));
        assert_eq!(Ipv4TcpRepr::parse(&packet), Ok(syn));
    }

    #[test]
    fn ack_with_timestamps_matches_reference_bytes() {
        let mut r = seg(
            ACK,
            0,
            TcpOptions {
                timestamps: Some((100, 200)),
                ..TcpOptions::default()
            },
        );
        (r.src, r.dst, r.ident) = ([10, 0, 0, 2], [10, 0, 0, 1], 2);
        (r.tcp.src_port, r.tcp.dst_port) = (80, 40000);
        (r.tcp.seq, r.tcp.ack, r.tcp.window) = (5001, 1001, 502);
        // Header bytes written out from RFC 791 / 9293 / 7323 with zero checksum fields;
        // the checksums are then filled in with the reference routine.
        #[rustfmt::skip]
        let mut expected = vec![
            0x45, 0x00, 0x00, 0x34, 0x00, 0x02, 0x40, 0x00, 0x40, 0x06, 0, 0,
            10, 0, 0, 2, 10, 0, 0, 1,
            0x00, 0x50, 0x9c, 0x40, 0x00, 0x00, 0x13, 0x89, 0x00, 0x00, 0x03, 0xe9,
            0x80, 0x10, 0x01, 0xf6, 0, 0, 0x00, 0x00,
            0x01, 0x01, 0x08, 0x0a, 0, 0, 0, 100, 0, 0, 0, 200,
        ];
        let ip_checksum = !reference_sum(&expected[..20]);
        expected[10..12].copy_from_slice(&ip_checksum.to_be_bytes());
        let mut pseudo = vec![10, 0, 0, 2, 10, 0, 0, 1, 0, 6, 0, 32];
        pseudo.extend_from_slice(&expected[20..]);
        let tcp_checksum = !reference_sum(&pseudo);
        expected[36..38].copy_from_slice(&tcp_checksum.to_be_bytes());
        assert_eq!(whole(&r), expected);
        assert_eq!(Ipv4TcpRepr::parse(&expected), Ok(r));
    }

    #[test]
    fn a_partial_payload_is_taken_as_zeros_continued() {
        let r = seg(
            ACK | PSH,
            1419,
            TcpOptions {
                timestamps: Some((1, 2)),
                sack: SackBlocks::from_slice(&[(1, 2), (3, 4), (5, 6)]),
                ..TcpOptions::default()
            },
        );
        let full = whole(&r);
        assert_eq!(full.len(), 20 + 60 + 1419);
        assert_checksums_verify(&full);
        // Headers alone, or with some of the zero payload: the same header bytes.
        assert_eq!(headers(&r), full[..80]);
        let mut part = vec![0u8; 80 + 7];
        r.emit(&mut part);
        assert_eq!(part, full[..87]);
        // A real payload is summed: the TCP checksum differs, the IPv4 one does not.
        let data = r.to_packet(&[0xab; 1419]);
        assert_checksums_verify(&data);
        assert_eq!(data[..20], full[..20]);
        assert_ne!(data[36..38], full[36..38]);
        // An odd payload is padded on the right for the sum (RFC 9293 §3.1).
        assert_checksums_verify(&r.to_packet(&[0x5a; 3]));
    }

    #[test]
    fn wrapped_numbers_and_every_flag_are_written_as_given() {
        let mut r = seg(
            0xff,
            100,
            TcpOptions {
                sack: SackBlocks::from_slice(&[(0xffff_fff0, 0x10)]),
                ..TcpOptions::default()
            },
        );
        (r.tcp.seq, r.tcp.ack, r.tcp.urgent, r.tos) = (u32::MAX - 9, 3, 7, 0x02);
        let packet = whole(&r);
        assert_eq!(&packet[24..32], &[0xff, 0xff, 0xff, 0xf6, 0, 0, 0, 3]);
        assert_eq!((packet[1], packet[33], packet[39]), (0x02, 0xff, 7));
        assert_eq!(&packet[44..52], &[0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0x10]);
        assert_checksums_verify(&packet);
        assert_eq!(Ipv4TcpRepr::parse(&packet), Ok(r));
    }

    #[test]
    fn bad_packets_are_errors() {
        let r = seg(ACK, 5, TcpOptions::default());
        let b = whole(&r);
        assert_eq!(Ipv4TcpRepr::parse(&b), Ok(r));
        assert_eq!(Ipv4TcpRepr::parse(&b[..10]), Err(WireError::Truncated));
        assert_eq!(Ipv4TcpRepr::parse(&b[..44]), Err(WireError::Truncated));
        assert_eq!(Ipv4TcpRepr::parse(&[]), Err(WireError::Truncated));
        assert_eq!(Ipv4TcpRepr::parse(&[0x60; 60]), Err(WireError::Version(6)));
        let mut udp = b.clone();
        udp[9] = 17;
        assert_eq!(Ipv4TcpRepr::parse(&udp), Err(WireError::NotTcp(17)));
        let mut frag = b.clone();
        frag[6] |= 0x20; // more fragments
        assert_eq!(Ipv4TcpRepr::parse(&frag), Err(WireError::Fragment));
        let mut long_tcp = b.clone();
        long_tcp[32] = 0xf0; // a 60-byte TCP header in a 25-byte segment
        assert_eq!(Ipv4TcpRepr::parse(&long_tcp), Err(WireError::Truncated));
        let mut short_tcp = b.clone();
        short_tcp[32] = 0x40;
        assert_eq!(Ipv4TcpRepr::parse(&short_tcp), Err(WireError::HeaderLen));
        let mut total = b.clone();
        total[2..4].copy_from_slice(&19u16.to_be_bytes());
        assert_eq!(Ipv4TcpRepr::parse(&total), Err(WireError::TotalLen));
        assert_eq!(WireError::NotTcp(17).to_string(), "IP protocol 17, not TCP");
    }

    #[test]
    fn checksums_are_verified_and_refilled_in_place() {
        let mut b = seg(ACK, 0, TcpOptions::default()).to_packet(b"hello");
        assert_eq!(verify_checksums(&b), Ok(()));
        b[30] ^= 1; // the acknowledgement number
        assert_eq!(verify_checksums(&b), Err(WireError::TcpChecksum));
        fill_checksums(&mut b).unwrap();
        assert_eq!(verify_checksums(&b), Ok(()));
        b[8] = 1; // the TTL
        assert_eq!(verify_checksums(&b), Err(WireError::Ipv4Checksum));
        fill_checksums(&mut b).unwrap();
        assert_checksums_verify(&b);
        // With IPv4 options (IHL 6): the header's checksum covers them.
        let mut opt = vec![0x46, 0];
        opt.extend_from_slice(&((b.len() + 4) as u16).to_be_bytes());
        opt.extend_from_slice(&b[4..20]);
        opt.extend_from_slice(&[1, 1, 1, 0]);
        opt.extend_from_slice(&b[20..]);
        fill_checksums(&mut opt).unwrap();
        assert_eq!(verify_checksums(&opt), Ok(()));
        assert_eq!(reference_sum(&opt[..24]), 0xffff);
        assert_eq!(&opt[24..], &b[20..], "the TCP segment is unchanged");
        let mut udp = b.clone();
        udp[9] = 17;
        assert_eq!(fill_checksums(&mut udp), Err(WireError::NotTcp(17)));
    }

    /// Packets written by the two encoders this module replaced (`pcap::encode_ipv4_tcp`, the
    /// pcap export's, and `emulate::wire::tcp_packet`, the emulation's), captured before
    /// they were removed: the same segments give the same bytes.
    #[test]
    fn vectors_written_by_the_encoders_this_module_replaced() {
        let pcap = |(src, dst): ([u8; 4], [u8; 4]), ports: (u16, u16), numbers, options| {
            let (seq, ack, flags, window, ident): (u32, u32, u8, u16, u16) = numbers;
            Ipv4TcpRepr {
                src,
                dst,
                ident,
                ttl: 64,
                tos: 0,
                dont_frag: true,
                tcp: TcpRepr {
                    src_port: ports.0,
                    dst_port: ports.1,
                    seq,
                    ack,
                    flags,
                    window,
                    urgent: 0,
                    options,
                },
                payload_len: 0,
            }
        };
        let (server, ue1, ue2) = ([10, 0, 0, 1], [10, 1, 0, 1], [10, 1, 0, 2]);
        let syn_opts = TcpOptions {
            mss: Some(1460),
            wscale: Some(7),
            sack_permitted: true,
            timestamps: Some((123, 0)),
            sack: SackBlocks::default(),
        };
        let ts = |tsval, tsecr| TcpOptions {
            timestamps: Some((tsval, tsecr)),
            ..TcpOptions::default()
        };
        let blocks = |b: &[(u32, u32)]| SackBlocks::from_slice(b);
        let mut data = pcap(
            (server, ue2),
            (5001, 40001),
            (0xffff_fa00, 0x6a09_e669, ACK | PSH, 49152, 7),
            ts(4000, 3990),
        );
        data.payload_len = 1448;
        let mut odd = pcap(
            ([10, 1, 1, 44], server),
            (40002, 5001),
            (1, 2, ACK, 3, 4),
            TcpOptions {
                sack: blocks(&[(10, 20), (30, 40), (50, 60), (70, 80)]),
                ..TcpOptions::default()
            },
        );
        odd.ttl = 5;
        let cases = [
            (
                pcap(
                    (server, ue1),
                    (5001, 40000),
                    (0x9e37_79b2, 0, SYN, 65535, 1),
                    syn_opts,
                ),
                0,
                "4500003c00014000400626b90a0000010a01000113899c409e3779b200000000a002ffff6bcf\
                 0000020405b40402080a0000007b0000000001030307",
            ),
            (
                pcap(
                    (ue1, server),
                    (40000, 5001),
                    (0x6a09_e668, 0x9e37_79b3, SYN | ACK, 65535, 1),
                    TcpOptions {
                        timestamps: None,
                        ..syn_opts
                    },
                ),
                0,
                "4500003400014000400626c10a0100010a0000019c4013896a09e6689e3779b38012ffff42d8\
                 0000020405b40101040201030307",
            ),
            (
                data,
                48,
                "450005dc00074000400621120a0000010a01000213899c41fffffa006a09e6698018c0008394\
                 00000101080a00000fa000000f9600000000000000000000000000000000000000000000000000\
                 0000000000000000000000000000000000000000000000",
            ),
            (
                pcap(
                    (ue2, server),
                    (40001, 5001),
                    (0x6a09_e669, 0x100, ACK, 1024, 9),
                    TcpOptions {
                        sack: blocks(&[(0x1000, 0x2000), (0x3000, 0x4000), (0x5000, 0x6000)]),
                        ..ts(4010, 4000)
                    },
                ),
                0,
                "45000050000940004006269c0a0100020a0000019c4113896a09e66900000100f010040077f9\
                 00000101080a00000faa00000fa00101051a0000100000002000000030000000400000005000\
                 00006000",
            ),
            (
                odd,
                0,
                "4500004c000440000506607b0a01012c0a0000019c4213890000000100000002e01000035326\
                 0000010105220000000a000000140000001e00000028000000320000003c0000004600000050",
            ),
        ];
        for (r, captured, bytes) in cases {
            let expected = unhex(bytes);
            let mut b = vec![0u8; r.header_len() + captured];
            r.emit(&mut b);
            assert_eq!(b, expected, "{r:?}");
            let mut packet = expected.clone();
            packet.resize(r.buffer_len(), 0);
            assert_eq!(Ipv4TcpRepr::parse(&packet), Ok(r));
            assert_eq!(verify_checksums(&packet), Ok(()));
        }
        // The emulation's: no DF, identification 0, window 65535, a payload.
        let mut hello = pcap(
            ([10, 64, 0, 2], [10, 64, 0, 1]),
            (40000, 5001),
            (7, 9, ACK, 65535, 0),
            TcpOptions {
                sack: blocks(&[(1000, 2000), (3000, 4000)]),
                ..ts(100, 200)
            },
        );
        hello.dont_frag = false;
        let packet = hello.to_packet(b"hello");
        assert_eq!(
            packet,
            unhex(
                "4500004d00000000400666290a4000020a4000019c4013890000000700000009d010fffff026\
                 00000101080a00000064000000c801010512000003e8000007d000000bb800000fa068656c6c6f"
            )
        );
        hello.payload_len = 5;
        assert_eq!(Ipv4TcpRepr::parse(&packet), Ok(hello));
    }

    #[test]
    #[should_panic(expected = "longer than 65535")]
    fn a_packet_past_65535_bytes_panics() {
        let r = seg(ACK, 65535 - 40 + 1, TcpOptions::default());
        r.emit(&mut [0u8; 40]);
    }

    fn any_options() -> impl Strategy<Value = TcpOptions> {
        (
            any::<(Option<u16>, Option<u8>, bool, Option<(u32, u32)>)>(),
            prop::collection::vec(any::<(u32, u32)>(), 0..=4),
        )
            .prop_map(
                |((mss, wscale, sack_permitted, timestamps), sack)| TcpOptions {
                    mss,
                    wscale,
                    sack_permitted,
                    timestamps,
                    sack: SackBlocks::from_slice(&sack),
                },
            )
    }

    fn any_repr() -> impl Strategy<Value = Ipv4TcpRepr> {
        (
            any::<([u8; 4], [u8; 4], u16, u8, u8, bool)>(),
            any::<(u16, u16, u32, u32, u8, u16, u16)>(),
            any_options(),
            prop_oneof![0u32..4, 0u32..=65455],
        )
            .prop_map(
                |((src, dst, ident, ttl, tos, dont_frag), t, options, payload_len)| {
                    let (src_port, dst_port, seq, ack, flags, window, urgent) = t;
                    Ipv4TcpRepr {
                        src,
                        dst,
                        ident,
                        ttl,
                        tos,
                        dont_frag,
                        tcp: TcpRepr {
                            src_port,
                            dst_port,
                            seq,
                            ack,
                            flags,
                            window,
                            urgent,
                            options,
                        },
                        payload_len,
                    }
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Every combination of options, numbers and lengths: parse(emit(r)) is r, but for
        /// the SACK blocks that did not fit (RFC 2018 §3), and both checksums verify.
        #[test]
        fn parse_of_emit_is_identity(r in any_repr()) {
            let opts_len = r.tcp.options.buffer_len();
            prop_assert!(opts_len <= MAX_OPTIONS_LEN && opts_len % 4 == 0);
            let packet = whole(&r);
            prop_assert_eq!(packet.len(), 40 + opts_len + r.payload_len as usize);
            assert_checksums_verify(&packet);
            prop_assert_eq!(verify_checksums(&packet), Ok(()));
            let mut expected = r;
            expected.tcp.options.sack.truncate(r.tcp.options.sack_blocks_emitted());
            prop_assert_eq!(Ipv4TcpRepr::parse(&packet), Ok(expected));
            // Emitting the headers alone writes the same bytes.
            prop_assert_eq!(&headers(&r)[..], &packet[..r.header_len()]);
        }

        /// A random payload is covered by the TCP checksum.
        #[test]
        fn a_real_payload_verifies(r in any_repr(), payload in prop::collection::vec(any::<u8>(), 0..1500)) {
            let packet = r.to_packet(&payload);
            assert_checksums_verify(&packet);
            let back = Ipv4TcpRepr::parse(&packet).unwrap();
            prop_assert_eq!(back.payload_len as usize, payload.len());
            prop_assert_eq!(&packet[back.header_len()..], &payload[..]);
        }
    }
}
