//! The packet that travels between nodes: `Copy`, without allocation. It waits in a link
//! direction's ring from its offer to its arrival (the arrival event names it, `link`), and
//! nodes take it by reference. It carries its destination host, never a position in a chain: a
//! node forwards by looking the destination up in its routes (`net.rs`).

use crate::engine::Time;

/// A host (endpoint node) address: servers and UEs are numbered in the order the topology
/// creates them.
pub type HostId = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
}

/// SACK blocks an ACK can carry: three, the most that fit beside the timestamps option in
/// the 40 octets of TCP options (RFC 2018 §3; four fit without timestamps, a difference we
/// do not model).
pub const MAX_SACK_BLOCKS: usize = 3;

/// TCP options of a segment or ACK: RFC 7323 timestamps and RFC 2018 SACK blocks.
///
/// SACK blocks are kept as 32-bit offsets above the packet's cumulative acknowledgement
/// (`Packet::seq`), which they always exceed (no D-SACK): a window never reaches 2^32 octets
/// (RFC 7323 §2.3 caps it at 2^30), and the packet stays small. TSval is not stored: it is
/// the sender's 1 ms timestamp clock when the packet left, `Packet::sent_at` ([`ts_val`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpOpts {
    /// The SYN of a connection (a header-only `Data` packet), or the receiver's answer to it
    /// (an `Ack` standing for the SYN-ACK). Never a pure ACK for the ACK mechanisms.
    pub syn: bool,
    /// Timestamps option present (RFC 7323 §3): TSval and TSecr are meaningful.
    pub ts: bool,
    /// TSecr: the TS.Recent value echoed by an ACK (RFC 7323 §4.3).
    pub ts_ecr: u32,
    /// How many of `sack` are valid, most recent first (RFC 2018 §4).
    pub nsack: u8,
    /// SACK blocks as (left edge, right edge) offsets above the cumulative ACK.
    pub sack: [(u32, u32); MAX_SACK_BLOCKS],
}

impl TcpOpts {
    /// Octets the SACK option adds to a packet: two NOPs, kind, length and 8 per block, as
    /// Linux lays it out (RFC 2018 §3); nothing without blocks.
    pub fn sack_option_bytes(&self) -> u32 {
        if self.nsack == 0 {
            0
        } else {
            4 + 8 * self.nsack as u32
        }
    }

    /// The SACK blocks as absolute [left, right) sequence ranges, given the ACK number.
    pub fn sack_blocks(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sack[..self.nsack as usize]
            .iter()
            .map(move |&(l, r)| (ack + l as u64, ack + r as u64))
    }
}

/// The RFC 7323 timestamp clock: 1 ms ticks (as Linux's `tcp_time_stamp`), 32 bits.
#[inline]
pub fn ts_val(t: Time) -> u32 {
    (t / crate::engine::NS_PER_MS) as u32
}

/// A TCP segment or pure ACK in the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    pub flow: u32,
    pub kind: PacketKind,
    /// The host the packet is addressed to.
    pub dst: HostId,
    /// Data: first byte carried. Ack: the cumulative acknowledgement.
    pub seq: u64,
    /// Payload bytes (0 for a pure ACK).
    pub len: u32,
    /// Bytes on the wire, headers included.
    pub size: u32,
    /// Advertised window carried by an ACK.
    pub rwnd: u32,
    /// When the TCP entity handed it to the network (one-way delay metric).
    pub sent_at: Time,
    /// Timestamps and SACK blocks.
    pub opt: TcpOpts,
}

impl Packet {
    /// TSval: the sender's timestamp clock when it sent the packet.
    #[inline]
    pub fn ts_val(&self) -> u32 {
        ts_val(self.sent_at)
    }
}
