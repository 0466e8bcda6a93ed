//! The packet that travels between nodes: small and `Copy`, so it rides inside events without
//! allocation. It carries its destination host, never a position in a chain: a node forwards
//! by looking the destination up in its routes (`topology.rs`).

use crate::engine::Time;

/// A host (endpoint node) address: servers and UEs are numbered in the order the topology
/// creates them.
pub type HostId = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
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
}
