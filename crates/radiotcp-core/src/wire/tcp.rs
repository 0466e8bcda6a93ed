//! The TCP header (RFC 9293 §3.1) as a value, [`TcpRepr`], with the options radiotcp reads
//! and writes ([`TcpOptions`]: RFC 9293 §3.2, RFC 7323, RFC 2018), and each option on its own
//! ([`TcpOption`]).

use super::checksum::{fold, pseudo_header_sum, sum_words};
use super::ipv4::be16;
use super::{WireError, PROTO_TCP};

/// The fixed part of the header (data offset 5).
pub const TCP_HEADER_LEN: usize = 20;
/// The longest header: the data offset is 4 bits of 32-bit words (RFC 9293 §3.1).
pub const TCP_MAX_HEADER_LEN: usize = 60;
/// Room for options: the longest header minus the fixed 20 bytes.
pub const MAX_OPTIONS_LEN: usize = TCP_MAX_HEADER_LEN - TCP_HEADER_LEN;

/// Byte positions in the TCP header (RFC 9293 §3.1, Figure 1).
pub mod field {
    use std::ops::Range;
    pub const SRC_PORT: Range<usize> = 0..2;
    pub const DST_PORT: Range<usize> = 2..4;
    pub const SEQ: Range<usize> = 4..8;
    pub const ACK: Range<usize> = 8..12;
    /// Data offset in the high nibble; the low nibble is reserved.
    pub const DATA_OFFSET: usize = 12;
    pub const FLAGS: usize = 13;
    pub const WINDOW: Range<usize> = 14..16;
    pub const CHECKSUM: Range<usize> = 16..18;
    pub const URGENT: Range<usize> = 18..20;
    /// Where the options start.
    pub const OPTIONS: usize = 20;
}

// Option kinds (RFC 9293 §3.2; RFC 7323 §2.2, §3.2; RFC 2018 §2, §3).
pub const OPT_EOL: u8 = 0;
pub const OPT_NOP: u8 = 1;
pub const OPT_MSS: u8 = 2;
pub const OPT_WSCALE: u8 = 3;
pub const OPT_SACK_PERMITTED: u8 = 4;
pub const OPT_SACK: u8 = 5;
pub const OPT_TIMESTAMPS: u8 = 8;

fn be32(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// SACK blocks (left edge, right edge) of one option: at most four fit in the 40 option
/// bytes (RFC 2018 §3), most recent first (§4).
#[derive(Clone, Copy, Default)]
pub struct SackBlocks {
    blocks: [(u32, u32); SackBlocks::MAX],
    len: u8,
}

impl SackBlocks {
    pub const MAX: usize = 4;

    /// The first [`SackBlocks::MAX`] of `blocks`.
    pub fn from_slice(blocks: &[(u32, u32)]) -> Self {
        let mut s = SackBlocks::default();
        for &b in blocks.iter().take(Self::MAX) {
            s.push(b);
        }
        s
    }

    /// Appends a block; false (and nothing changes) when four are held.
    pub fn push(&mut self, block: (u32, u32)) -> bool {
        if self.len() == Self::MAX {
            return false;
        }
        self.blocks[self.len as usize] = block;
        self.len += 1;
        true
    }

    /// Keeps the first `n` blocks.
    pub fn truncate(&mut self, n: usize) {
        let keep = n.min(self.len());
        for b in &mut self.blocks[keep..] {
            *b = (0, 0);
        }
        self.len = self.len.min(n as u8);
    }

    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..self.len()]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl PartialEq for SackBlocks {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for SackBlocks {}

impl std::fmt::Debug for SackBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// One TCP option (RFC 9293 §3.2: kinds 0 and 1 are a single byte, every other option is
/// kind, length, data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TcpOption<'a> {
    /// End of option list (kind 0): the options stop here.
    EndOfList,
    /// No-operation (kind 1): aligns the next option on a word.
    NoOperation,
    /// Maximum segment size (kind 2, length 4; RFC 9293 §3.7.1).
    MaxSegmentSize(u16),
    /// Window scale shift (kind 3, length 3; RFC 7323 §2.2), as written: the RFC caps it at
    /// 14 on receipt (§2.3), not on the wire.
    WindowScale(u8),
    /// SACK-permitted (kind 4, length 2; RFC 2018 §2).
    SackPermitted,
    /// SACK blocks (kind 5, length 2 + 8n; RFC 2018 §3), at least one.
    Sack(SackBlocks),
    /// Timestamps (kind 8, length 10; RFC 7323 §3.2).
    Timestamps { tsval: u32, tsecr: u32 },
    /// Any other kind, or a known kind with a length that is not its own: skipped, as RFC
    /// 9293 §3.1 (MUST-6) has a receiver do with options it does not implement.
    Unknown { kind: u8, data: &'a [u8] },
}

impl<'a> TcpOption<'a> {
    /// The option at the start of `b` and the bytes it takes. `BadOption` for a length
    /// below 2 or past the end of `b` (RFC 9293 §3.1, MUST-7: an illegal length).
    pub fn parse(b: &'a [u8]) -> Result<(TcpOption<'a>, usize), WireError> {
        let kind = *b.first().ok_or(WireError::Truncated)?;
        match kind {
            OPT_EOL => return Ok((TcpOption::EndOfList, 1)),
            OPT_NOP => return Ok((TcpOption::NoOperation, 1)),
            _ => {}
        }
        let len = *b.get(1).ok_or(WireError::BadOption)? as usize;
        if len < 2 || len > b.len() {
            return Err(WireError::BadOption);
        }
        let data = &b[2..len];
        let opt = match (kind, len) {
            (OPT_MSS, 4) => TcpOption::MaxSegmentSize(be16(data, 0)),
            (OPT_WSCALE, 3) => TcpOption::WindowScale(data[0]),
            (OPT_SACK_PERMITTED, 2) => TcpOption::SackPermitted,
            (OPT_TIMESTAMPS, 10) => TcpOption::Timestamps {
                tsval: be32(data, 0),
                tsecr: be32(data, 4),
            },
            // 8 bytes per block; a longer option than four blocks cannot fit in a header,
            // only its first four are kept.
            (OPT_SACK, l) if l >= 10 && (l - 2) % 8 == 0 => {
                let mut blocks = SackBlocks::default();
                for block in data.chunks_exact(8).take(SackBlocks::MAX) {
                    blocks.push((be32(block, 0), be32(block, 4)));
                }
                TcpOption::Sack(blocks)
            }
            _ => TcpOption::Unknown { kind, data },
        };
        Ok((opt, len))
    }

    /// The option's kind byte.
    pub fn kind(&self) -> u8 {
        match self {
            TcpOption::EndOfList => OPT_EOL,
            TcpOption::NoOperation => OPT_NOP,
            TcpOption::MaxSegmentSize(_) => OPT_MSS,
            TcpOption::WindowScale(_) => OPT_WSCALE,
            TcpOption::SackPermitted => OPT_SACK_PERMITTED,
            TcpOption::Sack(_) => OPT_SACK,
            TcpOption::Timestamps { .. } => OPT_TIMESTAMPS,
            TcpOption::Unknown { kind, .. } => *kind,
        }
    }

    /// Bytes the option takes.
    pub fn buffer_len(&self) -> usize {
        match self {
            TcpOption::EndOfList | TcpOption::NoOperation => 1,
            TcpOption::MaxSegmentSize(_) => 4,
            TcpOption::WindowScale(_) => 3,
            TcpOption::SackPermitted => 2,
            TcpOption::Sack(b) => 2 + 8 * b.len(),
            TcpOption::Timestamps { .. } => 10,
            TcpOption::Unknown { data, .. } => 2 + data.len(),
        }
    }

    /// Writes the option to the start of `buf`; the bytes written.
    ///
    /// # Panics
    /// If `buf` is shorter than [`TcpOption::buffer_len`], a SACK option has no block, or
    /// an unknown option's data exceeds the length byte.
    pub fn emit(&self, buf: &mut [u8]) -> usize {
        let len = self.buffer_len();
        let b = &mut buf[..len];
        b[0] = self.kind();
        if len > 1 {
            b[1] = u8::try_from(len).expect("an option length fits in a byte");
        }
        match self {
            TcpOption::EndOfList | TcpOption::NoOperation | TcpOption::SackPermitted => {}
            TcpOption::MaxSegmentSize(mss) => b[2..4].copy_from_slice(&mss.to_be_bytes()),
            TcpOption::WindowScale(shift) => b[2] = *shift,
            TcpOption::Sack(blocks) => {
                assert!(!blocks.is_empty(), "a SACK option carries a block");
                for (chunk, &(left, right)) in b[2..].chunks_exact_mut(8).zip(blocks.as_slice()) {
                    chunk[..4].copy_from_slice(&left.to_be_bytes());
                    chunk[4..].copy_from_slice(&right.to_be_bytes());
                }
            }
            TcpOption::Timestamps { tsval, tsecr } => {
                b[2..6].copy_from_slice(&tsval.to_be_bytes());
                b[6..10].copy_from_slice(&tsecr.to_be_bytes());
            }
            TcpOption::Unknown { data, .. } => b[2..].copy_from_slice(data),
        }
        len
    }
}

/// The options radiotcp reads and writes. [`TcpOptions::emit`] lays them out in Linux's order
/// and alignment (`tcp_options_write`), so traces look familiar in Wireshark:
/// `MSS, [SACKOK,TS | NOP,NOP,TS | NOP,NOP,SACKOK], NOP,WS, NOP,NOP,SACK`. Every group is a
/// multiple of 4 bytes, so no end-of-list padding is ever needed (RFC 9293 §3.1: the header
/// ends on a 32-bit boundary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpOptions {
    /// Maximum segment size (RFC 9293 §3.7.1): SYNs only.
    pub mss: Option<u16>,
    /// Window scale shift (RFC 7323 §2.2), as NOP,WS: SYNs only.
    pub wscale: Option<u8>,
    /// SACK-permitted (RFC 2018 §2): SYNs only. Shares a word with the timestamps option
    /// when both are present (as Linux does), else NOP,NOP,SACKOK.
    pub sack_permitted: bool,
    /// (TSval, TSecr) (RFC 7323 §3.2), as NOP,NOP,TS (RFC 7323 Appendix A).
    pub timestamps: Option<(u32, u32)>,
    /// SACK blocks (RFC 2018 §3), as NOP,NOP,SACK. Blocks that do not fit beside the other
    /// options are not written, from the end, as a receiver does (RFC 2018 §3: at most 4
    /// blocks, 3 with timestamps): put the most recent block first.
    pub sack: SackBlocks,
}

impl TcpOptions {
    /// Length of every option but SACK blocks, laid out as above (at most 20).
    fn fixed_len(&self) -> usize {
        let mss = if self.mss.is_some() { 4 } else { 0 };
        let ts_sackok = match (self.timestamps.is_some(), self.sack_permitted) {
            (true, _) => 12, // NOP,NOP,TS or SACKOK,TS
            (false, true) => 4,
            (false, false) => 0,
        };
        let wscale = if self.wscale.is_some() { 4 } else { 0 };
        mss + ts_sackok + wscale
    }

    /// SACK blocks written: as many as fit beside the other options.
    pub fn sack_blocks_emitted(&self) -> usize {
        if self.sack.is_empty() {
            return 0;
        }
        // At most 20 bytes of other options leave room for at least two blocks.
        let room = MAX_OPTIONS_LEN - self.fixed_len();
        self.sack.len().min((room - 4) / 8)
    }

    /// Bytes the options take as written: a multiple of 4, at most [`MAX_OPTIONS_LEN`].
    pub fn buffer_len(&self) -> usize {
        let blocks = self.sack_blocks_emitted();
        self.fixed_len() + if blocks > 0 { 4 + 8 * blocks } else { 0 }
    }

    /// Writes the options to `buf[..buffer_len()]`.
    pub fn emit(&self, buf: &mut [u8]) {
        let mut at = 0;
        let mut put = |o: TcpOption| at += o.emit(&mut buf[at..]);
        if let Some(mss) = self.mss {
            put(TcpOption::MaxSegmentSize(mss));
        }
        if let Some((tsval, tsecr)) = self.timestamps {
            // SACKOK takes the place of the two NOPs that align the timestamps.
            if self.sack_permitted {
                put(TcpOption::SackPermitted);
            } else {
                put(TcpOption::NoOperation);
                put(TcpOption::NoOperation);
            }
            put(TcpOption::Timestamps { tsval, tsecr });
        } else if self.sack_permitted {
            put(TcpOption::NoOperation);
            put(TcpOption::NoOperation);
            put(TcpOption::SackPermitted);
        }
        if let Some(shift) = self.wscale {
            put(TcpOption::NoOperation);
            put(TcpOption::WindowScale(shift));
        }
        let blocks = self.sack_blocks_emitted();
        if blocks > 0 {
            let mut sack = self.sack;
            sack.truncate(blocks);
            put(TcpOption::NoOperation);
            put(TcpOption::NoOperation);
            put(TcpOption::Sack(sack));
        }
        debug_assert_eq!(at, self.buffer_len());
    }

    /// The options of the option bytes `b`, in any order and alignment; unknown ones are
    /// skipped (RFC 9293 §3.1, MUST-6), a later option of a kind replaces an earlier one.
    /// An end-of-list option or an illegal length ends the list: what was read before it
    /// stands. (RFC 9293 §3.1, MUST-7, asks a stack to survive an illegal length and suggests
    /// it reset the connection; a packet in transit is carried as it is and its receiver
    /// decides.)
    pub fn parse(mut b: &[u8]) -> TcpOptions {
        let mut o = TcpOptions::default();
        while !b.is_empty() {
            let Ok((opt, len)) = TcpOption::parse(b) else {
                break;
            };
            match opt {
                TcpOption::EndOfList => break,
                TcpOption::MaxSegmentSize(mss) => o.mss = Some(mss),
                TcpOption::WindowScale(shift) => o.wscale = Some(shift),
                TcpOption::SackPermitted => o.sack_permitted = true,
                TcpOption::Sack(blocks) => o.sack = blocks,
                TcpOption::Timestamps { tsval, tsecr } => o.timestamps = Some((tsval, tsecr)),
                TcpOption::NoOperation | TcpOption::Unknown { .. } => {}
            }
            b = &b[len..];
        }
        o
    }
}

/// A TCP header. Sequence and acknowledgement numbers are modulo 2^32 (RFC 9293 §3.4): the
/// caller wraps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    /// The eight flag bits of byte 13: [`super::FIN`] ... [`super::CWR`] (RFC 9293 §3.1;
    /// ECE and CWR are RFC 3168's).
    pub flags: u8,
    /// The 16-bit window field, as sent: scaled down by the sender's shift (RFC 7323 §2.3).
    pub window: u16,
    /// Urgent pointer (RFC 9293 §3.1), meaningful with URG.
    pub urgent: u16,
    pub options: TcpOptions,
}

impl TcpRepr {
    /// The header at the start of the segment `seg` and its length (data offset x 4). The
    /// reserved bits are ignored (RFC 9293 §3.1), the checksum is not verified (see
    /// [`super::verify_checksums`]).
    pub fn parse(seg: &[u8]) -> Result<(TcpRepr, usize), WireError> {
        if seg.len() < TCP_HEADER_LEN {
            return Err(WireError::Truncated);
        }
        let header_len = ((seg[field::DATA_OFFSET] >> 4) as usize) * 4;
        if header_len < TCP_HEADER_LEN {
            return Err(WireError::HeaderLen);
        }
        if header_len > seg.len() {
            return Err(WireError::Truncated);
        }
        let repr = TcpRepr {
            src_port: be16(seg, field::SRC_PORT.start),
            dst_port: be16(seg, field::DST_PORT.start),
            seq: be32(seg, field::SEQ.start),
            ack: be32(seg, field::ACK.start),
            flags: seg[field::FLAGS],
            window: be16(seg, field::WINDOW.start),
            urgent: be16(seg, field::URGENT.start),
            options: TcpOptions::parse(&seg[field::OPTIONS..header_len]),
        };
        Ok((repr, header_len))
    }

    /// Bytes the header takes as written: 20 plus the options.
    pub fn header_len(&self) -> usize {
        TCP_HEADER_LEN + self.options.buffer_len()
    }

    /// Writes the header to `seg[..header_len()]` with its checksum (below). `seg` is the
    /// segment as far as it is present: the header, then the payload as the caller put it,
    /// which the segment continues with zeros up to `seg_len` bytes (a simulated packet
    /// carries no payload bytes). `src` and `dst` are the IPv4 addresses of the
    /// pseudo-header.
    ///
    /// # Panics
    /// If `seg` is shorter than the header or longer than `seg_len`, or `seg_len` exceeds
    /// 65535.
    pub fn emit(&self, seg: &mut [u8], src: [u8; 4], dst: [u8; 4], seg_len: usize) {
        let header_len = self.header_len();
        assert!(
            header_len <= seg.len() && seg.len() <= seg_len,
            "the buffer holds the header and at most the segment"
        );
        let b = &mut seg[..header_len];
        b[field::SRC_PORT].copy_from_slice(&self.src_port.to_be_bytes());
        b[field::DST_PORT].copy_from_slice(&self.dst_port.to_be_bytes());
        b[field::SEQ].copy_from_slice(&self.seq.to_be_bytes());
        b[field::ACK].copy_from_slice(&self.ack.to_be_bytes());
        // Data offset in 32-bit words in the high nibble, reserved bits zero.
        b[field::DATA_OFFSET] = ((header_len / 4) as u8) << 4;
        b[field::FLAGS] = self.flags;
        b[field::WINDOW].copy_from_slice(&self.window.to_be_bytes());
        b[field::URGENT].copy_from_slice(&self.urgent.to_be_bytes());
        self.options.emit(&mut b[field::OPTIONS..]);
        fill_checksum(seg, src, dst, seg_len);
    }
}

/// Fills in the checksum of the TCP segment `seg` (header and the payload present, which
/// continues with zeros up to `seg_len` bytes) sent from `src` to `dst`: RFC 9293 §3.1, the
/// one's complement of the sum of the pseudo-header (its TCP length `seg_len`), the header
/// with the checksum field zero, and the payload. Zero payload words add nothing, and the
/// header has even length, so an absent payload's pad byte is zero too.
pub(super) fn fill_checksum(seg: &mut [u8], src: [u8; 4], dst: [u8; 4], seg_len: usize) {
    let tcp_len = u16::try_from(seg_len).expect("a TCP segment fits in an IPv4 packet");
    seg[field::CHECKSUM].fill(0);
    let c = !fold(pseudo_header_sum(src, dst, PROTO_TCP, tcp_len) + sum_words(seg));
    seg[field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
}

/// Whether the whole segment `seg` sums to 0xffff with the pseudo-header, as a receiver
/// checks it (RFC 1071 §1 (3)).
pub(super) fn checksum_ok(seg: &[u8], src: [u8; 4], dst: [u8; 4]) -> bool {
    let Ok(tcp_len) = u16::try_from(seg.len()) else {
        return false;
    };
    fold(pseudo_header_sum(src, dst, PROTO_TCP, tcp_len) + sum_words(seg)) == 0xffff
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sack(blocks: &[(u32, u32)]) -> SackBlocks {
        SackBlocks::from_slice(blocks)
    }

    #[test]
    fn sack_blocks_hold_four_and_compare_by_content() {
        let mut s = sack(&[(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)]);
        assert_eq!(s.as_slice(), &[(1, 2), (3, 4), (5, 6), (7, 8)]);
        assert!(!s.push((11, 12)));
        s.truncate(2);
        assert_eq!(s, sack(&[(1, 2), (3, 4)]));
        assert!(s.push((0, 0)));
        assert_eq!(format!("{s:?}"), "[(1, 2), (3, 4), (0, 0)]");
    }

    #[test]
    fn option_layouts_follow_linux() {
        let blocks = [(1, 2), (3, 4), (5, 6), (7, 8)];
        let ts = Some((7, 9));
        let with = |timestamps, n: usize| TcpOptions {
            timestamps,
            sack: sack(&blocks[..n]),
            ..TcpOptions::default()
        };
        let bytes = |o: &TcpOptions| {
            let mut b = vec![0u8; o.buffer_len()];
            o.emit(&mut b);
            b
        };
        assert_eq!(with(ts, 0).buffer_len(), 12);
        for n in 1..=4 {
            assert_eq!(with(None, n).buffer_len(), 4 + 8 * n);
        }
        // With timestamps only three blocks fit; the fourth is not written.
        for n in [3, 4] {
            let o = with(ts, n);
            assert_eq!((o.buffer_len(), o.sack_blocks_emitted()), (40, 3));
            let b = bytes(&o);
            assert_eq!(&b[..4], &[1, 1, 8, 10]);
            assert_eq!(&b[12..16], &[1, 1, 5, 26]);
            assert_eq!(&b[36..40], &6u32.to_be_bytes());
        }
        // Linux's SYN: mss 1460,sackOK,TS val 7 ecr 9,nop,wscale 7.
        let full = TcpOptions {
            mss: Some(1460),
            wscale: Some(7),
            sack_permitted: true,
            timestamps: ts,
            sack: SackBlocks::default(),
        };
        assert_eq!(
            bytes(&full),
            [2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9, 1, 3, 3, 7]
        );
        // Without timestamps: mss,nop,nop,sackOK,nop,wscale.
        let no_ts = TcpOptions {
            timestamps: None,
            ..full
        };
        assert_eq!(bytes(&no_ts), [2, 4, 0x05, 0xb4, 1, 1, 4, 2, 1, 3, 3, 7]);
        // MSS, timestamps and window scale leave room for two blocks of four.
        let syn_sack = TcpOptions {
            sack: sack(&blocks),
            ..full
        };
        assert_eq!(syn_sack.sack_blocks_emitted(), 2);
        assert_eq!(syn_sack.buffer_len(), 40);
    }

    #[test]
    fn options_in_any_order_are_read_and_unknown_or_malformed_ones_skipped() {
        #[rustfmt::skip]
        let b = [
            8, 10, 0, 0, 0, 1, 0, 0, 0, 2,    // timestamps first, unaligned
            30, 4, 0xab, 0xcd,                // an unknown kind (MPTCP) with data
            2, 3, 0xff,                       // MSS with a wrong length: skipped
            3, 3, 14,                         // window scale
            5, 10, 0, 0, 0, 5, 0, 0, 0, 6,    // one SACK block
            4, 2,                             // SACK-permitted
            0, 2, 4, 5,                       // end of list: the rest is padding
        ];
        let o = TcpOptions::parse(&b);
        assert_eq!(
            o,
            TcpOptions {
                mss: None,
                wscale: Some(14),
                sack_permitted: true,
                timestamps: Some((1, 2)),
                sack: sack(&[(5, 6)]),
            }
        );
        // An illegal length ends the list; what came before stands.
        assert_eq!(TcpOptions::parse(&[3, 3, 2, 8, 0, 1, 1]).wscale, Some(2));
        assert_eq!(TcpOptions::parse(&[3, 3, 2, 8, 11, 1, 1]).wscale, Some(2));
        assert_eq!(
            TcpOption::parse(&[8, 0, 1, 1]),
            Err(WireError::BadOption),
            "a zero length (RFC 9293 MUST-7)"
        );
        assert_eq!(TcpOption::parse(&[8]), Err(WireError::BadOption));
        assert_eq!(TcpOption::parse(&[]), Err(WireError::Truncated));
        // A SACK option whose length is not 2 + 8n is not read as blocks, but is an option.
        let (bad_sack, len) = TcpOption::parse(&[5, 9, 0, 0, 0, 1, 0, 0, 0]).unwrap();
        assert_eq!((bad_sack.kind(), len), (OPT_SACK, 9));
        assert!(matches!(bad_sack, TcpOption::Unknown { .. }));
    }

    #[test]
    fn bad_headers_are_refused() {
        let mut seg = [0u8; 24];
        seg[12] = 0x60;
        assert_eq!(TcpRepr::parse(&seg).unwrap().1, 24);
        assert_eq!(TcpRepr::parse(&seg[..19]), Err(WireError::Truncated));
        assert_eq!(TcpRepr::parse(&seg[..23]), Err(WireError::Truncated));
        seg[12] = 0x40;
        assert_eq!(TcpRepr::parse(&seg), Err(WireError::HeaderLen));
    }

    fn any_option() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            Just(vec![OPT_NOP]),
            any::<u16>().prop_map(|v| {
                let mut b = vec![0; 4];
                TcpOption::MaxSegmentSize(v).emit(&mut b);
                b
            }),
            any::<u8>().prop_map(|v| {
                let mut b = vec![0; 3];
                TcpOption::WindowScale(v).emit(&mut b);
                b
            }),
            Just(vec![OPT_SACK_PERMITTED, 2]),
            any::<(u32, u32)>().prop_map(|(tsval, tsecr)| {
                let mut b = vec![0; 10];
                TcpOption::Timestamps { tsval, tsecr }.emit(&mut b);
                b
            }),
            prop::collection::vec(any::<(u32, u32)>(), 1..=4).prop_map(|v| {
                let o = TcpOption::Sack(SackBlocks::from_slice(&v));
                let mut b = vec![0; o.buffer_len()];
                o.emit(&mut b);
                b
            }),
            (9u8..=254, prop::collection::vec(any::<u8>(), 0..8)).prop_map(|(kind, data)| {
                let o = TcpOption::Unknown { kind, data: &data };
                let mut b = vec![0; o.buffer_len()];
                o.emit(&mut b);
                b
            }),
        ]
    }

    proptest! {
        #[test]
        fn each_option_parses_back_as_written(b in any_option()) {
            let (o, len) = TcpOption::parse(&b).unwrap();
            prop_assert_eq!(len, b.len());
            prop_assert_eq!(o.buffer_len(), b.len());
            let mut again = vec![0u8; len];
            prop_assert_eq!(o.emit(&mut again), len);
            prop_assert_eq!(again, b);
        }

        /// Parsing never panics, whatever the bytes; it reads no further than the header.
        #[test]
        fn parse_survives_any_bytes(b in prop::collection::vec(any::<u8>(), 0..80)) {
            if let Ok((_, len)) = TcpRepr::parse(&b) {
                prop_assert!((20..=60).contains(&len) && len <= b.len());
            }
            let _ = TcpOptions::parse(&b);
        }
    }
}
