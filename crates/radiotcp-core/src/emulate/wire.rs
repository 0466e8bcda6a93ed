//! Reading real IP packets: the fields the models need from an IPv4 header and a TCP header
//! (RFC 791, RFC 9293 §3.1, options of RFC 7323 and RFC 2018), and writing a TCP ACK from a
//! template with a new acknowledgement number (checksum recomputed, RFC 9293 §3.1 and RFC
//! 1071). Nothing here allocates but [`ack_from_template`]; malformed packets are `None`.

use crate::wire::checksum::{fold, sum_words};

/// IP protocol numbers (IANA).
pub const PROTO_TCP: u8 = 6;

/// TCP flag bits (RFC 9293 §3.1).
pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const ACK: u8 = 0x10;

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

/// The TCP header fields the models look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpFields {
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// Timestamps option (TSval, TSecr), RFC 7323 §3.
    pub ts: Option<(u32, u32)>,
    /// SACK blocks (left, right), RFC 2018 §3; at most four fit in the options.
    pub sack: [(u32, u32); 4],
    pub nsack: u8,
    /// Offset of the TCP header in the packet, and its length.
    pub offset: usize,
    pub header_len: usize,
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
    pub tcp: Option<TcpFields>,
}

fn be16(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([b[i], b[i + 1]])
}

fn be32(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// Parse an IP packet as a TUN device without packet information delivers it. IPv6 and
/// non-first fragments are carried without a 5-tuple; a truncated or malformed IPv4 header
/// is `None`.
pub fn parse(b: &[u8]) -> Option<Parsed> {
    let version = *b.first()? >> 4;
    if version == 6 {
        return Some(Parsed {
            version,
            tuple: None,
            total_len: b.len() as u32,
            payload_len: b.len().saturating_sub(40) as u32,
            tcp: None,
        });
    }
    if version != 4 || b.len() < 20 {
        return None;
    }
    let ihl = ((b[0] & 0x0f) as usize) * 4;
    let total = be16(b, 2) as usize;
    if ihl < 20 || total < ihl || total > b.len() {
        return None;
    }
    let proto = b[9];
    let frag_offset = be16(b, 6) & 0x1fff;
    let src = [b[12], b[13], b[14], b[15]];
    let dst = [b[16], b[17], b[18], b[19]];
    let ip_payload = total - ihl;
    let mut tuple = FiveTuple {
        proto,
        src,
        sport: 0,
        dst,
        dport: 0,
    };
    if frag_offset != 0 {
        return Some(Parsed {
            version,
            tuple: None,
            total_len: total as u32,
            payload_len: ip_payload as u32,
            tcp: None,
        });
    }
    let l4 = &b[ihl..total];
    match proto {
        PROTO_TCP => {
            if l4.len() < 20 {
                return None;
            }
            let hl = ((l4[12] >> 4) as usize) * 4;
            if hl < 20 || hl > l4.len() {
                return None;
            }
            tuple.sport = be16(l4, 0);
            tuple.dport = be16(l4, 2);
            let mut f = TcpFields {
                seq: be32(l4, 4),
                ack: be32(l4, 8),
                flags: l4[13],
                window: be16(l4, 14),
                offset: ihl,
                header_len: hl,
                ..TcpFields::default()
            };
            parse_options(&l4[20..hl], &mut f);
            Some(Parsed {
                version,
                tuple: Some(tuple),
                total_len: total as u32,
                payload_len: (l4.len() - hl) as u32,
                tcp: Some(f),
            })
        }
        // UDP (17) and UDP-Lite (136): ports and an 8-byte header.
        17 | 136 if l4.len() >= 8 => {
            tuple.sport = be16(l4, 0);
            tuple.dport = be16(l4, 2);
            Some(Parsed {
                version,
                tuple: Some(tuple),
                total_len: total as u32,
                payload_len: (l4.len() - 8) as u32,
                tcp: None,
            })
        }
        _ => Some(Parsed {
            version,
            tuple: Some(tuple),
            total_len: total as u32,
            payload_len: ip_payload as u32,
            tcp: None,
        }),
    }
}

/// TCP options (RFC 9293 §3.2): kinds 0 (end) and 1 (no-op) have no length; timestamps
/// (kind 8, length 10) and SACK (kind 5, 2 + 8n) are read; a malformed length ends the scan.
fn parse_options(mut o: &[u8], f: &mut TcpFields) {
    while let Some(&kind) = o.first() {
        match kind {
            0 => return,
            1 => {
                o = &o[1..];
                continue;
            }
            _ => {}
        }
        let Some(&len) = o.get(1) else { return };
        let len = len as usize;
        if len < 2 || len > o.len() {
            return;
        }
        match (kind, len) {
            (8, 10) => f.ts = Some((be32(o, 2), be32(o, 6))),
            (5, l) if l >= 10 && (l - 2) % 8 == 0 => {
                let n = ((l - 2) / 8).min(4);
                for i in 0..n {
                    f.sack[i] = (be32(o, 2 + 8 * i), be32(o, 6 + 8 * i));
                }
                f.nsack = n as u8;
            }
            _ => {}
        }
        o = &o[len..];
    }
}

/// Recompute the IPv4 header checksum and the TCP checksum (over the pseudo-header,
/// RFC 9293 §3.1) of an IPv4/TCP packet in place.
pub fn fix_checksums(b: &mut [u8], tcp: &TcpFields) {
    let ihl = tcp.offset;
    b[10] = 0;
    b[11] = 0;
    let c = !fold(sum_words(&b[..ihl]));
    b[10..12].copy_from_slice(&c.to_be_bytes());
    let total = be16(b, 2) as usize;
    let seg_len = total - ihl;
    b[ihl + 16] = 0;
    b[ihl + 17] = 0;
    let mut pseudo = [0u8; 12];
    pseudo[..4].copy_from_slice(&b[12..16]);
    pseudo[4..8].copy_from_slice(&b[16..20]);
    pseudo[9] = PROTO_TCP;
    pseudo[10..12].copy_from_slice(&(seg_len as u16).to_be_bytes());
    let c = !fold(sum_words(&pseudo) + sum_words(&b[ihl..total]));
    b[ihl + 16..ihl + 18].copy_from_slice(&c.to_be_bytes());
}

/// Whether the IPv4 header and TCP checksums of a packet verify.
pub fn checksums_ok(b: &[u8], tcp: &TcpFields) -> bool {
    let mut copy = b.to_vec();
    fix_checksums(&mut copy, tcp);
    copy == b
}

/// A pure ACK built from `template` (an earlier pure ACK of the same connection in the same
/// direction): the acknowledgement number set to `ack`, SACK blocks dropped (the option's
/// bytes become no-ops), checksums recomputed. For the base station's own ACKs (Zeng's
/// controller answers retransmissions itself), which no real host sent.
pub fn ack_from_template(template: &[u8], tcp: &TcpFields, ack: u32) -> Vec<u8> {
    let mut b = template.to_vec();
    let ihl = tcp.offset;
    b[ihl + 8..ihl + 12].copy_from_slice(&ack.to_be_bytes());
    // Blank a SACK option: the controller's ACK reports no blocks.
    let mut i = ihl + 20;
    let end = ihl + tcp.header_len;
    while i < end {
        match b[i] {
            0 => break,
            1 => i += 1,
            kind => {
                let len = b.get(i + 1).copied().unwrap_or(0) as usize;
                if len < 2 || i + len > end {
                    break;
                }
                if kind == 5 {
                    b[i..i + len].fill(1);
                }
                i += len;
            }
        }
    }
    fix_checksums(&mut b, tcp);
    b
}

/// An IPv4/TCP packet (TTL 64, window 65535) with valid checksums: `opts` are raw TCP option
/// bytes (a multiple of 4), `payload` the data. For tests and tools that need real packets.
pub fn tcp_packet(
    src: ([u8; 4], u16),
    dst: ([u8; 4], u16),
    seq: u32,
    ack: u32,
    flags: u8,
    opts: &[u8],
    payload: &[u8],
) -> Vec<u8> {
    assert_eq!(opts.len() % 4, 0, "TCP options fill whole 32-bit words");
    let hl = 20 + opts.len();
    let total = 20 + hl + payload.len();
    let mut b = vec![0u8; total];
    b[0] = 0x45;
    b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    b[8] = 64;
    b[9] = PROTO_TCP;
    b[12..16].copy_from_slice(&src.0);
    b[16..20].copy_from_slice(&dst.0);
    let t = &mut b[20..];
    t[0..2].copy_from_slice(&src.1.to_be_bytes());
    t[2..4].copy_from_slice(&dst.1.to_be_bytes());
    t[4..8].copy_from_slice(&seq.to_be_bytes());
    t[8..12].copy_from_slice(&ack.to_be_bytes());
    t[12] = ((hl / 4) as u8) << 4;
    t[13] = flags;
    t[14..16].copy_from_slice(&65535u16.to_be_bytes());
    t[20..hl].copy_from_slice(opts);
    t[hl..].copy_from_slice(payload);
    let f = parse(&b).unwrap().tcp.unwrap();
    fix_checksums(&mut b, &f);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: ([u8; 4], u16) = ([10, 64, 0, 1], 5001);
    const B: ([u8; 4], u16) = ([10, 64, 0, 2], 40000);

    #[test]
    fn tcp_fields_options_and_lengths_are_read() {
        // NOP, NOP, timestamps (8, 10), then NOP, NOP, SACK with two blocks.
        let mut opts = vec![1, 1, 8, 10];
        opts.extend_from_slice(&100u32.to_be_bytes());
        opts.extend_from_slice(&200u32.to_be_bytes());
        opts.extend_from_slice(&[1, 1, 5, 18]);
        for v in [1000u32, 2000, 3000, 4000] {
            opts.extend_from_slice(&v.to_be_bytes());
        }
        let b = tcp_packet(A, B, 7, 9, ACK, &opts, b"hello");
        let p = parse(&b).unwrap();
        assert_eq!(p.version, 4);
        assert_eq!(p.total_len as usize, b.len());
        assert_eq!(p.payload_len, 5);
        let t = p.tuple.unwrap();
        assert_eq!((t.src, t.sport, t.dst, t.dport), (A.0, A.1, B.0, B.1));
        assert_eq!(t.reversed().reversed(), t);
        let f = p.tcp.unwrap();
        assert_eq!((f.seq, f.ack, f.flags, f.window), (7, 9, ACK, 65535));
        assert_eq!(f.ts, Some((100, 200)));
        assert_eq!(&f.sack[..f.nsack as usize], &[(1000, 2000), (3000, 4000)]);
        assert!(checksums_ok(&b, &f));
    }

    #[test]
    fn malformed_packets_are_none_and_ipv6_has_no_tuple() {
        let b = tcp_packet(A, B, 1, 1, ACK, &[], b"");
        assert!(parse(&b[..10]).is_none());
        let mut bad = b.clone();
        bad[2..4].copy_from_slice(&2000u16.to_be_bytes()); // longer than the buffer
        assert!(parse(&bad).is_none());
        let mut badhl = b.clone();
        badhl[32] = 0xf0; // TCP header longer than the segment
        assert!(parse(&badhl).is_none());
        assert!(parse(&[]).is_none());
        let v6 = [0x60u8; 60];
        let p = parse(&v6).unwrap();
        assert_eq!((p.version, p.tuple, p.total_len), (6, None, 60));
    }

    #[test]
    fn a_synthesised_ack_has_the_new_number_no_sack_and_valid_checksums() {
        let mut opts = vec![1, 1, 5, 10];
        opts.extend_from_slice(&5000u32.to_be_bytes());
        opts.extend_from_slice(&6000u32.to_be_bytes());
        let tpl = tcp_packet(B, A, 11, 1000, ACK, &opts, b"");
        let f = parse(&tpl).unwrap().tcp.unwrap();
        let b = ack_from_template(&tpl, &f, 4242);
        let g = parse(&b).unwrap().tcp.unwrap();
        assert_eq!((g.ack, g.seq, g.nsack), (4242, 11, 0));
        assert!(checksums_ok(&b, &g));
        // A corrupted byte no longer verifies.
        let mut c = b.clone();
        c[30] ^= 1;
        assert!(!checksums_ok(&c, &g));
    }
}
