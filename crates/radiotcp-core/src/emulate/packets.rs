//! What the emulation reads of a real IP packet (its 5-tuple, lengths and TCP header, through
//! `crate::wire`), and the one packet it writes itself: the base station's own ACK, made
//! from the connection's last real ACK ([`ack_from_template`]). A packet the emulation cannot
//! read is `None` (counted and dropped); everything it can read is carried unchanged.

use crate::wire::{self, tcp::field, Ipv4Repr, TcpOption, TcpRepr, PROTO_TCP};

/// IP protocol numbers of UDP and UDP-Lite (IANA), whose first 4 bytes are the two ports
/// (RFC 768, RFC 3828 §3).
const PROTO_UDP: u8 = 17;
const PROTO_UDPLITE: u8 = 136;
/// Length of a UDP header (RFC 768).
const UDP_HEADER_LEN: usize = 8;
/// Length of the IPv6 fixed header (RFC 8200 §3).
const IPV6_HEADER_LEN: usize = 40;

/// The 5-tuple of a packet as seen on the wire (source first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FiveTuple {
    pub proto: u8,
    pub src: [u8; 4],
    pub sport: u16,
    pub dst: [u8; 4],
    pub dport: u16,
}

impl FiveTuple {
    /// The same connection seen from the other end.
    pub fn reversed(&self) -> Self {
        FiveTuple {
            proto: self.proto,
            src: self.dst,
            sport: self.dport,
            dst: self.src,
            dport: self.sport,
        }
    }
}

/// What the emulation reads from one IP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parsed {
    /// 4 or 6.
    pub version: u8,
    /// IPv4 only: the 5-tuple (ports 0 for protocols without them).
    pub tuple: Option<FiveTuple>,
    /// Length on the wire (IPv4 total length, or the bytes read).
    pub total_len: u32,
    /// Transport payload bytes (TCP/UDP payload; the IP payload for other protocols).
    pub payload_len: u32,
    pub tcp: Option<TcpRepr>,
}

/// Reads an IP packet as a TUN device without packet information delivers it. IPv6 and
/// non-first fragments are carried without a 5-tuple; a truncated or malformed IPv4 header,
/// or a TCP header that does not fit its segment, is `None`. Checksums are not checked: the
/// receiving host does that.
pub fn parse(b: &[u8]) -> Option<Parsed> {
    let version = *b.first()? >> 4;
    if version == 6 {
        return Some(Parsed {
            version,
            tuple: None,
            total_len: b.len() as u32,
            payload_len: b.len().saturating_sub(IPV6_HEADER_LEN) as u32,
            tcp: None,
        });
    }
    let (ip, header_len) = Ipv4Repr::parse(b).ok()?;
    let total = header_len + ip.payload_len as usize;
    let mut tuple = FiveTuple {
        proto: ip.protocol,
        src: ip.src,
        sport: 0,
        dst: ip.dst,
        dport: 0,
    };
    let mut parsed = Parsed {
        version,
        tuple: None,
        total_len: total as u32,
        payload_len: ip.payload_len as u32,
        tcp: None,
    };
    // A later fragment has no transport header (RFC 791 §2.3); a first one has it, with the
    // first part of the payload.
    if ip.frag_offset != 0 {
        return Some(parsed);
    }
    let l4 = &b[header_len..total];
    match ip.protocol {
        PROTO_TCP => {
            let (tcp, tcp_header_len) = TcpRepr::parse(l4).ok()?;
            tuple.sport = tcp.src_port;
            tuple.dport = tcp.dst_port;
            parsed.payload_len = (l4.len() - tcp_header_len) as u32;
            parsed.tcp = Some(tcp);
        }
        PROTO_UDP | PROTO_UDPLITE if l4.len() >= UDP_HEADER_LEN => {
            tuple.sport = u16::from_be_bytes([l4[0], l4[1]]);
            tuple.dport = u16::from_be_bytes([l4[2], l4[3]]);
            parsed.payload_len = (l4.len() - UDP_HEADER_LEN) as u32;
        }
        _ => {}
    }
    parsed.tuple = Some(tuple);
    Some(parsed)
}

/// A pure ACK built from `template` (an earlier pure ACK of the same connection in the same
/// direction, as read): the acknowledgement number set to `ack`, SACK blocks dropped, both
/// checksums recomputed, every other byte kept. For the base station's own ACKs (Zeng's
/// controller answers retransmissions itself), which no real host sent. The SACK option's
/// bytes become no-operations, which RFC 9293 §3.2 allows between options, so the header
/// keeps its length and every other option its place. `None` if the template is not an
/// IPv4/TCP packet.
pub fn ack_from_template(template: &[u8], ack: u32) -> Option<Vec<u8>> {
    let mut b = template.to_vec();
    let (ip, ip_header_len) = Ipv4Repr::parse(&b).ok()?;
    let seg_end = ip_header_len + ip.payload_len as usize;
    let (_, tcp_header_len) = TcpRepr::parse(&b[ip_header_len..seg_end]).ok()?;
    let tcp = &mut b[ip_header_len..ip_header_len + tcp_header_len];
    tcp[field::ACK].copy_from_slice(&ack.to_be_bytes());
    let options = &mut tcp[field::OPTIONS..];
    let mut at = 0;
    while at < options.len() {
        match TcpOption::parse(&options[at..]) {
            Ok((TcpOption::EndOfList, _)) | Err(_) => break,
            Ok((opt, len)) => {
                // By kind: a SACK option of a malformed length is blanked too.
                if opt.kind() == wire::tcp::OPT_SACK {
                    options[at..at + len].fill(wire::tcp::OPT_NOP);
                }
                at += len;
            }
        }
    }
    wire::fill_checksums(&mut b).ok()?;
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{unhex, verify_checksums, Ipv4TcpRepr, SackBlocks, TcpOptions, ACK};

    const A: ([u8; 4], u16) = ([10, 64, 0, 1], 5001);
    const B: ([u8; 4], u16) = ([10, 64, 0, 2], 40000);

    /// An IPv4/TCP packet as the emulation's tests write them: TTL 64, window 65535.
    fn tcp_packet(
        src: ([u8; 4], u16),
        dst: ([u8; 4], u16),
        (seq, ack): (u32, u32),
        options: TcpOptions,
        payload: &[u8],
    ) -> Vec<u8> {
        Ipv4TcpRepr {
            src: src.0,
            dst: dst.0,
            ttl: 64,
            tcp: TcpRepr {
                src_port: src.1,
                dst_port: dst.1,
                seq,
                ack,
                flags: ACK,
                window: 65535,
                options,
                ..TcpRepr::default()
            },
            ..Ipv4TcpRepr::default()
        }
        .to_packet(payload)
    }

    #[test]
    fn tcp_fields_options_and_lengths_are_read() {
        let options = TcpOptions {
            timestamps: Some((100, 200)),
            sack: SackBlocks::from_slice(&[(1000, 2000), (3000, 4000)]),
            ..TcpOptions::default()
        };
        let b = tcp_packet(A, B, (7, 9), options, b"hello");
        let p = parse(&b).unwrap();
        assert_eq!(p.version, 4);
        assert_eq!(p.total_len as usize, b.len());
        assert_eq!(p.payload_len, 5);
        let t = p.tuple.unwrap();
        assert_eq!((t.src, t.sport, t.dst, t.dport), (A.0, A.1, B.0, B.1));
        assert_eq!(t.reversed().reversed(), t);
        let f = p.tcp.unwrap();
        assert_eq!((f.seq, f.ack, f.flags, f.window), (7, 9, ACK, 65535));
        assert_eq!(f.options, options);
    }

    #[test]
    fn malformed_packets_are_none_and_ipv6_and_later_fragments_have_no_tuple() {
        let b = tcp_packet(A, B, (1, 1), TcpOptions::default(), b"");
        assert!(parse(&b[..10]).is_none());
        let mut bad = b.clone();
        bad[2..4].copy_from_slice(&2000u16.to_be_bytes()); // longer than the buffer
        assert!(parse(&bad).is_none());
        let mut badhl = b.clone();
        badhl[32] = 0xf0; // TCP header longer than the segment
        assert!(parse(&badhl).is_none());
        assert!(parse(&[]).is_none());
        assert!(parse(&[0x50; 40]).is_none(), "IP version 5");
        let v6 = [0x60u8; 60];
        let p = parse(&v6).unwrap();
        assert_eq!(
            (p.version, p.tuple, p.total_len, p.payload_len),
            (6, None, 60, 20)
        );
        let mut later = b.clone();
        later[7] = 1; // fragment offset 8 bytes
        let p = parse(&later).unwrap();
        assert_eq!((p.tuple, p.tcp, p.payload_len), (None, None, 20));
    }

    #[test]
    fn udp_has_ports_and_other_protocols_have_none() {
        let mut udp = tcp_packet(A, B, (0, 0), TcpOptions::default(), &[0; 8]);
        udp[9] = PROTO_UDP;
        let p = parse(&udp).unwrap();
        let t = p.tuple.unwrap();
        assert_eq!(
            (t.proto, t.sport, t.dport, p.payload_len),
            (17, A.1, B.1, 20)
        );
        udp[9] = 1; // ICMP
        let p = parse(&udp).unwrap();
        let t = p.tuple.unwrap();
        assert_eq!((t.proto, t.sport, t.dport, p.payload_len), (1, 0, 0, 28));
    }

    #[test]
    fn a_synthesised_ack_has_the_new_number_no_sack_and_valid_checksums() {
        let options = TcpOptions {
            sack: SackBlocks::from_slice(&[(5000, 6000)]),
            ..TcpOptions::default()
        };
        let tpl = tcp_packet(B, A, (11, 1000), options, b"");
        let b = ack_from_template(&tpl, 4242).unwrap();
        assert_eq!(b.len(), tpl.len(), "the header keeps its length");
        let g = parse(&b).unwrap().tcp.unwrap();
        assert_eq!((g.ack, g.seq), (4242, 11));
        assert!(g.options.sack.is_empty());
        assert_eq!(&b[40..52], &[1; 12], "the SACK option became no-operations");
        assert_eq!(verify_checksums(&b), Ok(()));
        // A corrupted byte no longer verifies.
        let mut c = b.clone();
        c[30] ^= 1;
        assert!(verify_checksums(&c).is_err());
        assert!(ack_from_template(&[0x45; 10], 1).is_none());
    }

    /// The ACK the code this replaced (`emulate::wire::ack_from_template`) wrote from a
    /// segment with timestamps, two SACK blocks and five bytes of data.
    #[test]
    fn a_synthesised_ack_is_the_one_written_before() {
        let hello = unhex(
            "4500004d00000000400666290a4000020a4000019c4013890000000700000009d010fffff026\
             00000101080a00000064000000c801010512000003e8000007d000000bb800000fa068656c6c6f",
        );
        assert_eq!(
            ack_from_template(&hello, 4242).unwrap(),
            unhex(
                "4500004d00000000400666290a4000020a4000019c4013890000000700001092d010ffff02b7\
                 00000101080a00000064000000c8010101010101010101010101010101010101010168656c6c6f"
            )
        );
    }
}
