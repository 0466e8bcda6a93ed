//! Classic pcap output of simulated TCP/IPv4 packets, for Wireshark and tcpdump.
//!
//! The file format is libpcap's, as specified in `draft-ietf-opsawg-pcap`: a 24-byte file
//! header, then per packet a 16-byte record header and the captured bytes. The link type is
//! LINKTYPE_RAW, so each record starts directly with the IPv4 header.
//!
//! The simulator carries no payload bytes, so the payload is taken to be all zeros. Both
//! checksums are computed for that packet, so a reader that sees (or pads) a zero payload
//! verifies them; with the usual short snaplen it sees headers only, as in a real header trace.

use std::io::{self, Write};

use crate::engine::{Time, NS_PER_S};

/// TCP flag bits, byte 13 of the header (RFC 9293 §3.1; ECE and CWR are RFC 3168's).
pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const PSH: u8 = 0x08;
pub const ACK: u8 = 0x10;
pub const ECE: u8 = 0x40;
pub const CWR: u8 = 0x80;

/// LINKTYPE_RAW: the record is a raw IPv4 (or IPv6) packet, no link-layer header.
pub const LINKTYPE_RAW: u32 = 101;
/// The smallest snaplen [`PcapWriter::new`] accepts: IPv4 header without options (20) plus the
/// longest TCP header (60, RFC 9293 §3.1: data offset is 4 bits of 32-bit words). A larger
/// requested value is kept; a smaller one is raised to this, so a record never cuts into the
/// headers and the file header's snaplen never understates a record's captured length.
pub const MIN_SNAPLEN: u32 = IPV4_HEADER_LEN as u32 + 60;
/// Room for TCP options: 60-byte maximum header minus the fixed 20 bytes (RFC 9293 §3.1).
pub const MAX_OPTIONS_LEN: usize = 40;

const IPV4_HEADER_LEN: usize = 20;
const TCP_FIXED_HEADER_LEN: usize = 20;
const PROTO_TCP: u8 = 6;
/// Microsecond-resolution magic (draft-ietf-opsawg-pcap §4); written in little-endian byte
/// order, as tcpdump on x86 does. Readers detect the byte order from it.
const MAGIC_MICROS: u32 = 0xa1b2_c3d4;

// Option kinds (RFC 9293 §3.2; RFC 7323 §2.2, §3.2; RFC 2018 §2, §3).
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_WSCALE: u8 = 3;
const OPT_SACK_PERMITTED: u8 = 4;
const OPT_SACK: u8 = 5;
const OPT_TIMESTAMPS: u8 = 8;

/// TCP options of one segment. Encoded in Linux's order and alignment
/// (`tcp_options_write`), so traces look familiar in Wireshark:
/// `MSS, [SACKOK,TS | NOP,NOP,TS | NOP,NOP,SACKOK], NOP,WS, NOP,NOP,SACK`.
/// Every option group is a multiple of 4 bytes, so no end-of-list padding is ever needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpOptions<'a> {
    /// Maximum segment size (RFC 9293 §3.7.1), kind 2, 4 bytes. Set on SYNs only.
    pub mss: Option<u16>,
    /// Window scale shift (RFC 7323 §2.2), kind 3, as NOP,WS: 4 bytes. Set on SYNs only;
    /// written verbatim (the RFC caps it at 14 on receipt, not here).
    pub wscale: Option<u8>,
    /// SACK-permitted (RFC 2018 §2), kind 4. Set on SYNs only. Shares a 32-bit word with the
    /// timestamps option when both are present (as Linux does), else NOP,NOP,SACKOK.
    pub sack_permitted: bool,
    /// (TSval, TSecr) (RFC 7323 §3.2), kind 8, as NOP,NOP,TS: 12 bytes (RFC 7323 Appendix A).
    pub timestamps: Option<(u32, u32)>,
    /// SACK blocks (left edge, right edge) (RFC 2018 §3), kind 5, as NOP,NOP,SACK: 4 + 8n
    /// bytes. Blocks that do not fit in the 40 option bytes are dropped from the end, as a
    /// receiver does (RFC 2018 §3: at most 4 blocks, 3 with timestamps); pass the most
    /// recent block first.
    pub sack: &'a [(u32, u32)],
}

/// One TCP segment (data, pure ACK, SYN, ...) as it would appear on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpWire<'a> {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
    /// Sequence and acknowledgement numbers modulo 2^32 (RFC 9293 §3.4): the caller wraps.
    pub seq: u32,
    pub ack: u32,
    /// Flag bits: [`FIN`], [`SYN`], [`RST`], [`PSH`], [`ACK`], [`ECE`], [`CWR`].
    pub flags: u8,
    /// The 16-bit window field, already scaled down by the sender's shift (RFC 7323 §2.3).
    pub window: u16,
    pub ip_id: u16,
    pub ttl: u8,
    /// TCP payload bytes (zeros on the wire; captured only as far as the snaplen allows).
    pub payload_len: u32,
    pub options: TcpOptions<'a>,
}

/// SACK blocks encoded: as many of `opts.sack` as fit beside the other options.
fn sack_blocks_encoded(opts: &TcpOptions) -> usize {
    if opts.sack.is_empty() {
        return 0;
    }
    let room = MAX_OPTIONS_LEN - fixed_options_len(opts);
    // At most 20 bytes of fixed options leave room for at least two blocks.
    opts.sack.len().min((room - 4) / 8)
}

/// Length of every option except SACK blocks, laid out as in [`TcpOptions`] (at most 20).
fn fixed_options_len(opts: &TcpOptions) -> usize {
    let mss = if opts.mss.is_some() { 4 } else { 0 };
    let ts_sackok = match (opts.timestamps.is_some(), opts.sack_permitted) {
        (true, _) => 12, // NOP,NOP,TS or SACKOK,TS
        (false, true) => 4,
        (false, false) => 0,
    };
    let wscale = if opts.wscale.is_some() { 4 } else { 0 };
    mss + ts_sackok + wscale
}

/// Bytes the options take as encoded: a multiple of 4, at most [`MAX_OPTIONS_LEN`].
pub fn tcp_options_len(opts: &TcpOptions) -> usize {
    let blocks = sack_blocks_encoded(opts);
    fixed_options_len(opts) + if blocks > 0 { 4 + 8 * blocks } else { 0 }
}

fn write_options(opts: &TcpOptions, out: &mut Vec<u8>) {
    if let Some(mss) = opts.mss {
        out.extend_from_slice(&[OPT_MSS, 4]);
        out.extend_from_slice(&mss.to_be_bytes());
    }
    if let Some((tsval, tsecr)) = opts.timestamps {
        // SACKOK takes the place of the two NOPs that align the timestamps.
        if opts.sack_permitted {
            out.extend_from_slice(&[OPT_SACK_PERMITTED, 2, OPT_TIMESTAMPS, 10]);
        } else {
            out.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_TIMESTAMPS, 10]);
        }
        out.extend_from_slice(&tsval.to_be_bytes());
        out.extend_from_slice(&tsecr.to_be_bytes());
    } else if opts.sack_permitted {
        out.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_SACK_PERMITTED, 2]);
    }
    if let Some(shift) = opts.wscale {
        out.extend_from_slice(&[OPT_NOP, OPT_WSCALE, 3, shift]);
    }
    let blocks = sack_blocks_encoded(opts);
    if blocks > 0 {
        out.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_SACK, (2 + 8 * blocks) as u8]);
        for &(left, right) in &opts.sack[..blocks] {
            out.extend_from_slice(&left.to_be_bytes());
            out.extend_from_slice(&right.to_be_bytes());
        }
    }
}

/// RFC 1071 §1: sum of the 16-bit big-endian words, an odd last byte padded on the right with
/// zero. Carries accumulate in the wide integer and are folded at the end (§2(B)).
pub(crate) fn sum_words(bytes: &[u8]) -> u64 {
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
pub(crate) fn fold(mut sum: u64) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// Appends IPv4 header, TCP header with options and `payload_captured` zero payload bytes
/// (at most `seg.payload_len`) to `out`. Both checksums cover the whole packet with an
/// all-zero payload of `seg.payload_len` bytes, captured or not.
///
/// # Panics
/// If the packet is longer than IPv4's 65535-byte total length (RFC 791 §3.1).
pub fn encode_ipv4_tcp(seg: &TcpWire, payload_captured: u32, out: &mut Vec<u8>) {
    let tcp_header_len = TCP_FIXED_HEADER_LEN + tcp_options_len(&seg.options);
    let total_len = IPV4_HEADER_LEN as u64 + tcp_header_len as u64 + seg.payload_len as u64;
    let total_len = u16::try_from(total_len).expect("IPv4 packet longer than 65535 bytes");

    // IPv4 header, RFC 791 §3.1: version 4, IHL 5 words, TOS (DSCP/ECN) 0, flags DF (bit 1 of
    // the 3 flag bits) and fragment offset 0, checksum field zero while summing.
    let ip = out.len();
    out.extend_from_slice(&[0x45, 0x00]);
    out.extend_from_slice(&total_len.to_be_bytes());
    out.extend_from_slice(&seg.ip_id.to_be_bytes());
    out.extend_from_slice(&0x4000u16.to_be_bytes());
    out.extend_from_slice(&[seg.ttl, PROTO_TCP, 0, 0]);
    out.extend_from_slice(&seg.src);
    out.extend_from_slice(&seg.dst);
    let ip_checksum = !fold(sum_words(&out[ip..ip + IPV4_HEADER_LEN]));
    out[ip + 10..ip + 12].copy_from_slice(&ip_checksum.to_be_bytes());

    // TCP header, RFC 9293 §3.1: data offset in 32-bit words in the high nibble of byte 12,
    // urgent pointer 0, checksum field zero while summing.
    let tcp = out.len();
    out.extend_from_slice(&seg.src_port.to_be_bytes());
    out.extend_from_slice(&seg.dst_port.to_be_bytes());
    out.extend_from_slice(&seg.seq.to_be_bytes());
    out.extend_from_slice(&seg.ack.to_be_bytes());
    out.extend_from_slice(&[((tcp_header_len / 4) as u8) << 4, seg.flags]);
    out.extend_from_slice(&seg.window.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    write_options(&seg.options, out);
    debug_assert_eq!(out.len() - tcp, tcp_header_len);

    // RFC 9293 §3.1 checksum: pseudo-header (source, destination, zero, protocol, TCP length
    // of header plus the real payload length), then the header. Zero payload words add
    // nothing, and the header has even length, so an odd payload's pad byte is zero too.
    let tcp_len = total_len - IPV4_HEADER_LEN as u16;
    let mut pseudo = [0u8; 12];
    pseudo[..4].copy_from_slice(&seg.src);
    pseudo[4..8].copy_from_slice(&seg.dst);
    pseudo[9] = PROTO_TCP;
    pseudo[10..].copy_from_slice(&tcp_len.to_be_bytes());
    let tcp_checksum = !fold(sum_words(&pseudo) + sum_words(&out[tcp..]));
    out[tcp + 16..tcp + 18].copy_from_slice(&tcp_checksum.to_be_bytes());

    out.resize(
        out.len() + payload_captured.min(seg.payload_len) as usize,
        0,
    );
}

/// Writes a classic (microsecond) pcap file of [`TcpWire`] segments. Wrap a file in a
/// `BufWriter`: each record is one `write_all`.
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    packets: u64,
    record: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the 24-byte file header (draft-ietf-opsawg-pcap §4): magic 0xa1b2c3d4, version
    /// 2.4, two reserved zero words (thiszone, sigfigs), snaplen, link type
    /// [`LINKTYPE_RAW`], all little-endian. `snaplen` is raised to [`MIN_SNAPLEN`] if smaller.
    pub fn new(mut out: W, snaplen: u32) -> io::Result<Self> {
        let snaplen = snaplen.max(MIN_SNAPLEN);
        let mut header = Vec::with_capacity(24);
        header.extend_from_slice(&MAGIC_MICROS.to_le_bytes());
        header.extend_from_slice(&2u16.to_le_bytes());
        header.extend_from_slice(&4u16.to_le_bytes());
        header.extend_from_slice(&[0; 8]);
        header.extend_from_slice(&snaplen.to_le_bytes());
        header.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&header)?;
        Ok(PcapWriter {
            out,
            snaplen,
            packets: 0,
            record: Vec::with_capacity(256),
        })
    }

    /// Appends one record at simulated time `t` (draft-ietf-opsawg-pcap §5): seconds and
    /// microseconds (truncated) since time zero, captured length min(packet, snaplen), original
    /// length the IPv4 total length. Fails with `InvalidInput`, writing nothing, if the packet
    /// exceeds 65535 bytes or `t` exceeds the 32-bit seconds field.
    pub fn write(&mut self, t: Time, seg: &TcpWire) -> io::Result<()> {
        let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_owned());
        let headers =
            (IPV4_HEADER_LEN + TCP_FIXED_HEADER_LEN + tcp_options_len(&seg.options)) as u32;
        let orig_len = headers
            .checked_add(seg.payload_len)
            .filter(|&len| len <= u16::MAX as u32)
            .ok_or_else(|| invalid("pcap: IPv4 packet longer than 65535 bytes"))?;
        let ts_sec = u32::try_from(t / NS_PER_S).map_err(|_| invalid("pcap: time past 2^32 s"))?;
        let ts_usec = ((t % NS_PER_S) / 1_000) as u32;
        // snaplen >= MIN_SNAPLEN >= headers: the cut falls in the payload, if anywhere.
        let incl_len = orig_len.min(self.snaplen);

        self.record.clear();
        for field in [ts_sec, ts_usec, incl_len, orig_len] {
            self.record.extend_from_slice(&field.to_le_bytes());
        }
        encode_ipv4_tcp(seg, incl_len - headers, &mut self.record);
        debug_assert_eq!(self.record.len(), 16 + incl_len as usize);
        self.out.write_all(&self.record)?;
        self.packets += 1;
        Ok(())
    }

    /// Appends one record of a raw IP packet (the emulation's real packets) at time `t`,
    /// cut to the snaplen. Fails with `InvalidInput` if `t` exceeds the 32-bit seconds field.
    pub fn write_raw(&mut self, t: Time, packet: &[u8]) -> io::Result<()> {
        let ts_sec = u32::try_from(t / NS_PER_S)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "pcap: time past 2^32 s"))?;
        let ts_usec = ((t % NS_PER_S) / 1_000) as u32;
        let orig_len = packet.len() as u32;
        let incl_len = orig_len.min(self.snaplen);
        self.record.clear();
        for field in [ts_sec, ts_usec, incl_len, orig_len] {
            self.record.extend_from_slice(&field.to_le_bytes());
        }
        self.record.extend_from_slice(&packet[..incl_len as usize]);
        self.out.write_all(&self.record)?;
        self.packets += 1;
        Ok(())
    }

    /// Records written so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// The snaplen in the file header (the requested one, raised to [`MIN_SNAPLEN`]).
    pub fn snaplen(&self) -> u32 {
        self.snaplen
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// RFC 1071 the slow way, independent of `sum_words`/`fold`: word by word with the
    /// end-around carry added at once (§2(B)), an odd last byte padded on the right.
    fn reference_sum(bytes: &[u8]) -> u16 {
        let mut sum: u16 = 0;
        for pair in bytes.chunks(2) {
            let word = u16::from_be_bytes([pair[0], pair.get(1).copied().unwrap_or(0)]);
            let (s, carry) = sum.overflowing_add(word);
            sum = s + carry as u16;
        }
        sum
    }

    /// Checks an encoded packet as a receiver would, with its full payload as explicit zeros:
    /// the IPv4 header and the pseudo-header + TCP segment both sum to 0xffff.
    fn assert_checksums_verify(packet: &[u8], payload_len: u32) {
        let ihl = 4 * (packet[0] & 0x0f) as usize;
        let total_len = u16::from_be_bytes([packet[2], packet[3]]) as usize;
        assert_eq!(
            reference_sum(&packet[..ihl]),
            0xffff,
            "IPv4 header checksum"
        );
        let tcp_header_len = 4 * (packet[ihl + 12] >> 4) as usize;
        assert_eq!(total_len, ihl + tcp_header_len + payload_len as usize);
        let mut segment = packet[ihl..ihl + tcp_header_len].to_vec();
        segment.resize(total_len - ihl, 0);
        let mut pseudo = Vec::from(&packet[12..20]);
        pseudo.extend_from_slice(&[0, 6]);
        pseudo.extend_from_slice(&((total_len - ihl) as u16).to_be_bytes());
        pseudo.extend_from_slice(&segment);
        assert_eq!(reference_sum(&pseudo), 0xffff, "TCP checksum");
    }

    /// 10.0.0.1:40000 -> 10.0.0.2:80, seq 1000, window 65535, IP id 1, TTL 64.
    fn seg<'a>(flags: u8, payload_len: u32, options: TcpOptions<'a>) -> TcpWire<'a> {
        let (src, dst, src_port, dst_port) = ([10, 0, 0, 1], [10, 0, 0, 2], 40000, 80);
        let (seq, ack, window, ip_id, ttl) = (1000, 0, 65535, 1, 64);
        TcpWire {
            src,
            dst,
            src_port,
            dst_port,
            seq,
            ack,
            flags,
            window,
            ip_id,
            ttl,
            payload_len,
            options,
        }
    }

    fn ts_sack(timestamps: Option<(u32, u32)>, sack: &[(u32, u32)]) -> TcpOptions<'_> {
        TcpOptions {
            timestamps,
            sack,
            ..TcpOptions::default()
        }
    }

    fn syn() -> TcpWire<'static> {
        let mss = Some(1460);
        seg(
            SYN,
            0,
            TcpOptions {
                mss,
                ..TcpOptions::default()
            },
        )
    }

    fn encode(seg: &TcpWire, captured: u32) -> Vec<u8> {
        let mut out = Vec::new();
        encode_ipv4_tcp(seg, captured, &mut out);
        out
    }

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
        let packet = encode(&syn(), 0);
        assert_eq!(packet, expected);
        assert_checksums_verify(&packet, 0);
    }

    #[test]
    fn ack_with_timestamps_matches_reference_bytes() {
        let (src, dst, src_port, dst_port) = ([10, 0, 0, 2], [10, 0, 0, 1], 80, 40000);
        let (seq, ack, window, ip_id) = (5001, 1001, 502, 2);
        let base = seg(ACK, 0, ts_sack(Some((100, 200)), &[]));
        let ack_seg = TcpWire {
            src,
            dst,
            src_port,
            dst_port,
            seq,
            ack,
            window,
            ip_id,
            ..base
        };
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
        assert_eq!(encode(&ack_seg, 0), expected);
    }

    #[test]
    fn option_layouts_follow_linux() {
        let sack = [(1, 2), (3, 4), (5, 6), (7, 8)];
        let ts = Some((7, 9));
        assert_eq!(tcp_options_len(&ts_sack(ts, &[])), 12);
        for n in 1..=4 {
            assert_eq!(tcp_options_len(&ts_sack(None, &sack[..n])), 4 + 8 * n);
        }
        // With timestamps only three blocks fit; the fourth is dropped.
        for n in [3, 4] {
            assert_eq!(tcp_options_len(&ts_sack(ts, &sack[..n])), 40);
            let packet = encode(&seg(ACK, 0, ts_sack(ts, &sack[..n])), 0);
            assert_eq!(packet[32] >> 4, 15); // data offset: the 60-byte maximum
            assert_eq!(&packet[40..44], &[1, 1, 8, 10]);
            assert_eq!(&packet[52..56], &[1, 1, 5, 26]);
            assert_eq!(&packet[76..80], &6u32.to_be_bytes());
        }
        // Linux's SYN: mss 1460,sackOK,TS val 7 ecr 9,nop,wscale 7.
        let (mss, wscale, sack_permitted) = (Some(1460), Some(7), true);
        let full = TcpOptions {
            mss,
            wscale,
            sack_permitted,
            timestamps: ts,
            sack: &[],
        };
        assert_eq!(tcp_options_len(&full), 20);
        #[rustfmt::skip]
        assert_eq!(
            &encode(&seg(SYN, 0, full), 0)[40..],
            &[2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9, 1, 3, 3, 7]
        );
        // Without timestamps: mss,nop,nop,sackOK,nop,wscale.
        let mut no_ts = full;
        no_ts.timestamps = None;
        assert_eq!(tcp_options_len(&no_ts), 12);
        let packet = encode(&seg(SYN, 0, no_ts), 0);
        assert_eq!(&packet[40..], &[2, 4, 0x05, 0xb4, 1, 1, 4, 2, 1, 3, 3, 7]);
    }

    #[test]
    fn file_and_record_headers() {
        let mut w = PcapWriter::new(Vec::new(), 96).unwrap();
        w.write(1_234_567_891, &syn()).unwrap();
        assert_eq!(w.packets(), 1);
        let file = w.into_inner().unwrap();
        #[rustfmt::skip]
        assert_eq!(&file[..24], &[
            0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 96, 0, 0, 0, 101, 0, 0, 0,
        ]);
        // 1 s, 234567 us (the 891 ns truncated), 44 bytes captured of 44.
        #[rustfmt::skip]
        assert_eq!(&file[24..40], &[1, 0, 0, 0, 0x47, 0x94, 0x03, 0, 44, 0, 0, 0, 44, 0, 0, 0]);
        assert_eq!(&file[40..], &encode(&syn(), 0)[..]);
    }

    #[test]
    fn snaplen_cuts_zero_payload_never_headers() {
        let sack = [(1, 2), (3, 4), (5, 6)];
        let data = seg(ACK | PSH, 1419, ts_sack(Some((1, 2)), &sack));
        // Requested 40 is raised to 80: the 80-byte headers are captured whole, no payload.
        let mut w = PcapWriter::new(Vec::new(), 40).unwrap();
        assert_eq!(w.snaplen(), MIN_SNAPLEN);
        w.write(0, &data).unwrap();
        let mut small = data;
        small.payload_len = 1;
        w.write(0, &small).unwrap();
        let file = w.into_inner().unwrap();
        assert_eq!(&file[16..20], &80u32.to_le_bytes());
        assert_eq!(&file[32..40], &[80, 0, 0, 0, 0xdb, 0x05, 0, 0]); // incl 80, orig 1499
        assert_eq!(&file[40..120], &encode(&data, 0)[..]);
        assert_eq!(&file[128..136], &[80, 0, 0, 0, 81, 0, 0, 0]); // orig 81 > snaplen 80
        assert_eq!(file.len(), 24 + 2 * (16 + 80));
        // A large snaplen captures the whole (odd-length) zero payload.
        let mut w = PcapWriter::new(Vec::new(), 65535).unwrap();
        w.write(0, &data).unwrap();
        let file = w.into_inner().unwrap();
        assert_eq!(&file[32..40], &[0xdb, 0x05, 0, 0, 0xdb, 0x05, 0, 0]);
        assert_checksums_verify(&file[40..], 1419);
        assert!(file[120..].iter().all(|&b| b == 0));
    }

    #[test]
    fn wrapped_sequence_numbers_are_written_as_given() {
        let sack = [(0xffff_fff0, 0x10)];
        let mut wrapped = seg(ACK, 100, ts_sack(None, &sack));
        (wrapped.seq, wrapped.ack) = (u32::MAX - 9, 3);
        let packet = encode(&wrapped, 100);
        assert_eq!(&packet[24..32], &[0xff, 0xff, 0xff, 0xf6, 0, 0, 0, 3]);
        assert_eq!(&packet[44..52], &[0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0x10]);
        assert_checksums_verify(&packet, 100);
    }

    #[test]
    fn oversized_packet_or_time_is_refused_and_not_written() {
        let mut w = PcapWriter::new(Vec::new(), 65535).unwrap();
        let too_long = seg(SYN, 65535 - 44 + 1, syn().options);
        let refused = |r: io::Result<()>| r.unwrap_err().kind() == io::ErrorKind::InvalidInput;
        assert!(refused(w.write(0, &too_long)));
        assert!(refused(w.write(1 << 62, &syn())));
        w.write(0, &seg(SYN, 65535 - 44, syn().options)).unwrap();
        assert_eq!(w.packets(), 1);
        assert_eq!(w.into_inner().unwrap().len(), 24 + 16 + 65535);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn every_encoded_packet_verifies(
            addrs in any::<([u8; 4], [u8; 4], u16, u16)>(),
            numbers in any::<(u32, u32, u8, u16, u16, u8)>(),
            syn_opts in any::<(Option<u16>, Option<u8>, bool, Option<(u32, u32)>)>(),
            sack in prop::collection::vec(any::<(u32, u32)>(), 0..6),
            payload_len in prop_oneof![0u32..4, 0u32..=65455],
        ) {
            let (src, dst, src_port, dst_port) = addrs;
            let (seq, ack, flags, window, ip_id, ttl) = numbers;
            let (mss, wscale, sack_permitted, timestamps) = syn_opts;
            let options = TcpOptions { mss, wscale, sack_permitted, timestamps, sack: &sack };
            let base = seg(flags, payload_len, options);
            let any_seg = TcpWire { src, dst, src_port, dst_port, seq, ack, window, ip_id, ttl, ..base };
            let opts_len = tcp_options_len(&options);
            prop_assert!(opts_len <= MAX_OPTIONS_LEN && opts_len % 4 == 0);
            let packet = encode(&any_seg, payload_len);
            prop_assert_eq!(packet.len(), 40 + opts_len + payload_len as usize);
            assert_checksums_verify(&packet, payload_len);
            // Capturing less changes nothing but the length.
            let headers = encode(&any_seg, 0);
            prop_assert_eq!(&packet[..headers.len()], &headers[..]);
        }
    }
}
