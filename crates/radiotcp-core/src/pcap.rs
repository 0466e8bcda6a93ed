//! Classic pcap output of simulated TCP/IPv4 packets, for Wireshark and tcpdump.
//!
//! The file format is libpcap's, as specified in `draft-ietf-opsawg-pcap`: a 24-byte file
//! header, then per packet a 16-byte record header and the captured bytes. The link type is
//! LINKTYPE_RAW, so each record starts directly with the IPv4 header.
//!
//! Packets are encoded by `crate::wire`. The simulator carries no payload bytes, so the
//! payload is taken to be all zeros. Both checksums are computed for that packet, so a reader
//! that sees (or pads) a zero payload verifies them; with the usual short snaplen it sees
//! headers only, as in a real header trace. The emulation records real packets as they are
//! ([`PcapWriter::write_raw`]).

use std::io::{self, Write};

use crate::engine::{Time, NS_PER_S};
use crate::wire::{Ipv4TcpRepr, IPV4_HEADER_LEN, TCP_MAX_HEADER_LEN};

/// LINKTYPE_RAW: the record is a raw IPv4 (or IPv6) packet, no link-layer header.
pub const LINKTYPE_RAW: u32 = 101;
/// The smallest snaplen [`PcapWriter::new`] accepts: IPv4 header without options (20) plus the
/// longest TCP header (60, RFC 9293 §3.1: data offset is 4 bits of 32-bit words). A larger
/// requested value is kept; a smaller one is raised to this, so a record never cuts into the
/// headers and the file header's snaplen never understates a record's captured length.
pub const MIN_SNAPLEN: u32 = (IPV4_HEADER_LEN + TCP_MAX_HEADER_LEN) as u32;

/// Microsecond-resolution magic (draft-ietf-opsawg-pcap §4); written in little-endian byte
/// order, as tcpdump on x86 does. Readers detect the byte order from it.
const MAGIC_MICROS: u32 = 0xa1b2_c3d4;

/// Writes a classic (microsecond) pcap file of IPv4/TCP packets ([`Ipv4TcpRepr`], encoded by
/// `crate::wire`). Wrap a file in a `BufWriter`: each record is one `write_all`.
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

    /// Appends one record of `packet` at simulated time `t` (draft-ietf-opsawg-pcap §5):
    /// seconds and microseconds (truncated) since time zero, captured length min(packet,
    /// snaplen), original length the IPv4 total length; the payload, which a simulated packet
    /// does not have, is written as zeros as far as it is captured. Fails with
    /// `InvalidInput`, writing nothing, if the packet exceeds 65535 bytes or `t` exceeds the
    /// 32-bit seconds field.
    pub fn write(&mut self, t: Time, packet: &Ipv4TcpRepr) -> io::Result<()> {
        let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_owned());
        let headers = packet.header_len() as u32;
        let orig_len = headers
            .checked_add(packet.payload_len)
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
        self.record.resize(16 + incl_len as usize, 0);
        packet.emit(&mut self.record[16..]);
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
    use crate::wire::{SackBlocks, TcpOptions, ACK, PSH, SYN};

    use crate::wire::sample_segment as seg;

    fn syn() -> Ipv4TcpRepr {
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

    /// The packet's first `captured` bytes, its payload zeros.
    fn encode(packet: &Ipv4TcpRepr, captured: usize) -> Vec<u8> {
        let mut b = vec![0u8; captured];
        packet.emit(&mut b);
        b
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
        assert_eq!(&file[40..], &encode(&syn(), 44)[..]);
    }

    #[test]
    fn snaplen_cuts_zero_payload_never_headers() {
        let options = TcpOptions {
            timestamps: Some((1, 2)),
            sack: SackBlocks::from_slice(&[(1, 2), (3, 4), (5, 6)]),
            ..TcpOptions::default()
        };
        let data = seg(ACK | PSH, 1419, options);
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
        assert_eq!(&file[40..120], &encode(&data, 80)[..]);
        assert_eq!(&file[128..136], &[80, 0, 0, 0, 81, 0, 0, 0]); // orig 81 > snaplen 80
        assert_eq!(file.len(), 24 + 2 * (16 + 80));
        // A large snaplen captures the whole (odd-length) zero payload.
        let mut w = PcapWriter::new(Vec::new(), 65535).unwrap();
        w.write(0, &data).unwrap();
        let file = w.into_inner().unwrap();
        assert_eq!(&file[32..40], &[0xdb, 0x05, 0, 0, 0xdb, 0x05, 0, 0]);
        assert_eq!(crate::wire::verify_checksums(&file[40..]), Ok(()));
        assert!(file[120..].iter().all(|&b| b == 0));
    }

    #[test]
    fn raw_packets_are_cut_to_the_snaplen() {
        let mut w = PcapWriter::new(Vec::new(), 80).unwrap();
        let packet = syn().to_packet(&[7; 100]);
        w.write_raw(2_000_001_000, &packet).unwrap();
        let file = w.into_inner().unwrap();
        assert_eq!(
            &file[24..40],
            &[2, 0, 0, 0, 1, 0, 0, 0, 80, 0, 0, 0, 144, 0, 0, 0]
        );
        assert_eq!(&file[40..], &packet[..80]);
    }

    #[test]
    fn oversized_packet_or_time_is_refused_and_not_written() {
        let mut w = PcapWriter::new(Vec::new(), 65535).unwrap();
        let too_long = seg(SYN, 65535 - 44 + 1, syn().tcp.options);
        let refused = |r: io::Result<()>| r.unwrap_err().kind() == io::ErrorKind::InvalidInput;
        assert!(refused(w.write(0, &too_long)));
        assert!(refused(w.write(1 << 62, &syn())));
        w.write(0, &seg(SYN, 65535 - 44, syn().tcp.options))
            .unwrap();
        assert_eq!(w.packets(), 1);
        assert_eq!(w.into_inner().unwrap().len(), 24 + 16 + 65535);
    }
}
