//! Wired point-to-point links: a FIFO drop-tail queue in front of a transmitter of fixed rate,
//! then a fixed propagation delay, with optional random loss on the wire.
//!
//! A link direction is sans-IO as well: `enqueue` and `on_tx_done` say what the caller must
//! schedule. The packet being serialised is held apart from the queue, so the queue limit
//! counts waiting packets only (a Linux qdisc or an ns-3 queue disc over a one-packet device
//! queue behaves the same).

use std::collections::VecDeque;

use crate::engine::{tx_time, RngStream, Time};
use crate::packet::Packet;

pub mod delay;

/// Direction on a link of the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Server -> client: data segments.
    Data = 0,
    /// Client -> server: ACKs.
    Ack = 1,
}

impl Dir {
    pub fn name(self) -> &'static str {
        match self {
            Dir::Data => "data",
            Dir::Ack => "ack",
        }
    }
}

/// Why a packet did not make it across a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    QueueFull,
    RandomLoss,
}

impl DropReason {
    pub const ALL: [DropReason; 2] = [DropReason::QueueFull, DropReason::RandomLoss];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::QueueFull => "queue_full",
            DropReason::RandomLoss => "random_loss",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct DirStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub max_queue_packets: u32,
    pub drops: [u64; 2],
}

/// Outcome of offering a packet to a link direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enqueued {
    /// The transmitter was idle: serialisation started, call `on_tx_done` at this time.
    StartedTx(Time),
    Queued,
    Dropped,
}

/// Sees every packet offered to a link direction (at the time it is offered) and returns
/// true to lose it there, before the queue: scripted losses and packet logs for tests.
/// Scenarios never install one.
pub type Tap = Box<dyn FnMut(Time, &Packet) -> bool>;

/// One direction of a link.
pub struct LinkDir {
    rate_bps: f64,
    prop_delay: Time,
    loss_rate: f64,
    limit_packets: usize,
    limit_bytes: Option<u64>,
    queue: VecDeque<Packet>,
    queue_bytes: u64,
    in_service: Option<Packet>,
    /// The serialisation time of the last packet size seen, (size, time): packets of one size
    /// follow each other (full segments, pure ACKs), and `tx_time`'s division and rounding
    /// up (a libm call on baseline x86-64) were a tenth of the cost of a wired hop.
    last_tx_time: (u32, Time),
    rng: RngStream,
    tap: Option<Tap>,
    pub stats: DirStats,
}

impl std::fmt::Debug for LinkDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkDir")
            .field("rate_bps", &self.rate_bps)
            .field("prop_delay", &self.prop_delay)
            .field("loss_rate", &self.loss_rate)
            .field("queue_len", &self.queue.len())
            .field("in_service", &self.in_service)
            .field("tap", &self.tap.is_some())
            .field("stats", &self.stats)
            .finish()
    }
}

/// Parameters of one link direction, resolved into ticks and bits.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkDirParams {
    pub rate_bps: f64,
    pub prop_delay: Time,
    /// Probability that a packet is lost on the wire (after serialisation).
    pub loss_rate: f64,
    /// Packets that may wait (the one in service not counted).
    pub limit_packets: usize,
    pub limit_bytes: Option<u64>,
}

impl LinkDir {
    pub fn new(p: &LinkDirParams, rng: RngStream) -> Self {
        Self {
            rate_bps: p.rate_bps,
            prop_delay: p.prop_delay,
            loss_rate: p.loss_rate,
            limit_packets: p.limit_packets,
            limit_bytes: p.limit_bytes,
            queue: VecDeque::new(),
            queue_bytes: 0,
            in_service: None,
            last_tx_time: (0, tx_time(0, p.rate_bps)),
            rng,
            tap: None,
            stats: DirStats::default(),
        }
    }

    /// Install a [`Tap`] (test support). A packet it loses is reported as `Dropped` and
    /// counted in no drop reason: it never reached the queue.
    pub fn set_tap(&mut self, tap: Tap) {
        self.tap = Some(tap);
    }

    /// The packet being serialised, if any.
    pub fn in_service(&self) -> Option<&Packet> {
        self.in_service.as_ref()
    }

    /// Packets waiting (not counting the one being serialised).
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    pub fn prop_delay(&self) -> Time {
        self.prop_delay
    }

    fn admits(&self, size: u32) -> bool {
        self.queue.len() < self.limit_packets
            && self
                .limit_bytes
                .is_none_or(|b| self.queue_bytes + size as u64 <= b)
    }

    fn start_tx(&mut self, now: Time, p: Packet) -> Time {
        if self.last_tx_time.0 != p.size {
            self.last_tx_time = (p.size, tx_time(p.size, self.rate_bps));
        }
        self.in_service = Some(p);
        now + self.last_tx_time.1
    }

    /// Offer a packet at `now`.
    pub fn enqueue(&mut self, now: Time, p: Packet) -> Enqueued {
        if let Some(tap) = self.tap.as_mut() {
            if tap(now, &p) {
                return Enqueued::Dropped;
            }
        }
        if self.in_service.is_none() {
            return Enqueued::StartedTx(self.start_tx(now, p));
        }
        if !self.admits(p.size) {
            self.stats.drops[DropReason::QueueFull as usize] += 1;
            return Enqueued::Dropped;
        }
        self.queue_bytes += p.size as u64;
        self.queue.push_back(p);
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.queue.len() as u32);
        Enqueued::Queued
    }

    /// Serialisation of the packet in service ended at `now`. Returns the packet if it survives
    /// the wire (it arrives at `now + prop_delay`) or the drop reason, and the time the next
    /// serialisation ends, if one started.
    pub fn on_tx_done(
        &mut self,
        now: Time,
    ) -> (Result<Packet, (Packet, DropReason)>, Option<Time>) {
        let p = self
            .in_service
            .take()
            .expect("tx-done event without a packet in service");
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += p.size as u64;
        let out = if self.rng.bernoulli(self.loss_rate) {
            self.stats.drops[DropReason::RandomLoss as usize] += 1;
            Err((p, DropReason::RandomLoss))
        } else {
            Ok(p)
        };
        let next = self.queue.pop_front().map(|n| {
            self.queue_bytes -= n.size as u64;
            self.start_tx(now, n)
        });
        (out, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    fn pkt(seq: u64) -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Data,
            dst: 0,
            seq,
            len: 960,
            size: 1000,
            rwnd: 0,
            sent_at: 0,
            opt: Default::default(),
        }
    }

    fn dir(limit_packets: u32, limit_bytes: Option<u64>, loss: f64) -> LinkDir {
        let p = LinkDirParams {
            rate_bps: 8000.0,
            prop_delay: 5_000_000,
            loss_rate: loss,
            limit_packets: limit_packets as usize,
            limit_bytes,
        };
        LinkDir::new(&p, RngStream::new(1, 0, 0))
    }

    #[test]
    fn idle_link_starts_serialising_at_once() {
        let mut d = dir(2, None, 0.0);
        // 1000 bytes at 8 kbit/s = 1 s.
        assert_eq!(d.enqueue(0, pkt(0)), Enqueued::StartedTx(1_000_000_000));
        assert_eq!(d.queue_len(), 0);
    }

    #[test]
    fn queue_limit_counts_waiting_packets_only() {
        let mut d = dir(2, None, 0.0);
        d.enqueue(0, pkt(0));
        assert_eq!(d.enqueue(0, pkt(1)), Enqueued::Queued);
        assert_eq!(d.enqueue(0, pkt(2)), Enqueued::Queued);
        assert_eq!(d.enqueue(0, pkt(3)), Enqueued::Dropped);
        assert_eq!(d.stats.drops[DropReason::QueueFull as usize], 1);
        let (out, next) = d.on_tx_done(1_000_000_000);
        assert_eq!(out.unwrap().seq, 0);
        assert_eq!(next, Some(2_000_000_000));
        assert_eq!(d.queue_len(), 1);
    }

    #[test]
    fn byte_limit_applies_with_packet_limit() {
        let mut d = dir(10, Some(1500), 0.0);
        d.enqueue(0, pkt(0));
        assert_eq!(d.enqueue(0, pkt(1)), Enqueued::Queued);
        assert_eq!(d.enqueue(0, pkt(2)), Enqueued::Dropped, "2000 B > 1500 B");
    }

    #[test]
    fn random_loss_rate_is_respected() {
        let mut d = dir(100_000, None, 0.2);
        let n = 50_000;
        let mut lost = 0;
        for i in 0..n {
            d.enqueue(0, pkt(i));
            if d.on_tx_done(0).0.is_err() {
                lost += 1;
            }
        }
        let rate = lost as f64 / n as f64;
        // Binomial sd = sqrt(0.2*0.8/50000) = 0.0018; allow 5 sd.
        assert!((rate - 0.2).abs() < 0.009, "loss rate {rate}");
    }
}
