//! Wired point-to-point links: a FIFO drop-tail queue in front of a transmitter of fixed rate,
//! then a fixed propagation delay, with optional random loss on the wire.
//!
//! A link direction is sans-IO as well: `enqueue` and `on_tx_done` say what the caller must
//! schedule. The packet being serialised is held apart from the queue, so the queue limit
//! counts waiting packets only (a Linux qdisc or an ns-3 queue disc over a one-packet device
//! queue behaves the same).

use crate::engine::{tx_time, RngStream, Time};
use crate::packet::Packet;

pub mod delay;
mod ring;

use ring::Ring;

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

/// Where a packet waits on the wire, between the end of its serialisation and its arrival at
/// the far end: what its arrival event names, so that events carry no packet (a packet is
/// 72 bytes and an event was moved four times between its scheduling and its handling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnWire {
    /// Next in the direction's FIFO: arrivals keep the sending order (a constant delay, or a
    /// delay process that forbids reordering), and the event queue pops arrivals of equal
    /// time in scheduling order.
    Next,
    /// In this slot: the delay process may let a later packet overtake this one.
    Slot(u32),
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
    /// The direction's packets from their offer to their arrival, oldest first: the
    /// `on_wire` ones on the wire (serialised, arriving in this order), then the one in
    /// service if `busy`, then the waiting ones. One ring, so that a packet is written once
    /// when offered and read once when it arrives: moved between a queue, a slot in service
    /// and the wire, a 72-byte packet was copied several times more per hop.
    fifo: Ring,
    on_wire: usize,
    busy: bool,
    /// Bytes of the waiting packets.
    queue_bytes: u64,
    /// The serialisation time of the last packet size seen, (size, time): packets of one size
    /// follow each other (full segments, pure ACKs), and `tx_time`'s division and rounding
    /// up (a libm call on baseline x86-64) were a tenth of the cost of a wired hop. Set by
    /// `start_tx` only, so while `busy` the size is the packet in service's.
    last_tx_time: (u32, Time),
    /// Packets on the wire that may be overtaken ([`OnWire::Slot`]), and the free slots.
    wire_slots: Vec<Option<Packet>>,
    free_slots: Vec<u32>,
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
            .field("queue_len", &self.queue_len())
            .field("in_service", &self.in_service())
            .field("on_wire", &self.on_wire())
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
            fifo: Ring::new(),
            on_wire: 0,
            busy: false,
            queue_bytes: 0,
            last_tx_time: (0, tx_time(0, p.rate_bps)),
            wire_slots: Vec::new(),
            free_slots: Vec::new(),
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
        if self.busy {
            self.fifo.get(self.on_wire)
        } else {
            None
        }
    }

    /// Packets waiting (not counting the one being serialised).
    #[inline]
    pub fn queue_len(&self) -> usize {
        self.fifo.len() - self.on_wire - self.busy as usize
    }

    /// Packets on the wire (serialised, not yet arrived).
    pub fn on_wire(&self) -> usize {
        self.on_wire + self.wire_slots.len() - self.free_slots.len()
    }

    pub fn prop_delay(&self) -> Time {
        self.prop_delay
    }

    fn admits(&self, size: u32) -> bool {
        self.queue_len() < self.limit_packets
            && self
                .limit_bytes
                .is_none_or(|b| self.queue_bytes + size as u64 <= b)
    }

    /// Serialise a packet of `size` bytes from `now`: when it ends.
    fn start_tx(&mut self, now: Time, size: u32) -> Time {
        if self.last_tx_time.0 != size {
            self.last_tx_time = (size, tx_time(size, self.rate_bps));
        }
        self.busy = true;
        now + self.last_tx_time.1
    }

    /// Offer a packet at `now`.
    pub fn enqueue(&mut self, now: Time, p: &Packet) -> Enqueued {
        if let Some(tap) = self.tap.as_mut() {
            if tap(now, p) {
                return Enqueued::Dropped;
            }
        }
        if !self.busy {
            // Nothing waits behind an idle transmitter: the packet is the next to serialise.
            let size = p.size;
            self.fifo.push_back(p);
            return Enqueued::StartedTx(self.start_tx(now, size));
        }
        if !self.admits(p.size) {
            self.stats.drops[DropReason::QueueFull as usize] += 1;
            return Enqueued::Dropped;
        }
        self.queue_bytes += p.size as u64;
        self.fifo.push_back(p);
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.queue_len() as u32);
        Enqueued::Queued
    }

    /// Serialisation of the packet in service ended at `now`. A packet that survives the
    /// wire stays on it until [`LinkDir::take_arrival`] (its arrival is the caller's to
    /// schedule): in sending order when `in_order` (the caller's delay keeps it; the same
    /// for every call), else in a slot. Returns where it waits, or the lost packet and why,
    /// and the time the next serialisation ends, if one started.
    pub fn on_tx_done(
        &mut self,
        now: Time,
        in_order: bool,
    ) -> (Result<OnWire, (Packet, DropReason)>, Option<Time>) {
        let i = self.count_sent();
        let out = if self.rng.bernoulli(self.loss_rate) {
            self.stats.drops[DropReason::RandomLoss as usize] += 1;
            let p = self.fifo.remove(i);
            Err((p, DropReason::RandomLoss))
        } else if in_order {
            // It stays where it is: the packets before it are on the wire too.
            self.on_wire += 1;
            Ok(OnWire::Next)
        } else {
            // Arrivals in any order: nothing stays on the wire in the ring (`on_wire` is 0).
            let p = self.fifo.remove(i);
            let slot = match self.free_slots.pop() {
                Some(s) => {
                    self.wire_slots[s as usize] = Some(p);
                    s
                }
                None => {
                    self.wire_slots.push(Some(p));
                    self.wire_slots.len() as u32 - 1
                }
            };
            Ok(OnWire::Slot(slot))
        };
        (out, self.start_next(now))
    }

    /// True if the wire loses no packet: [`LinkDir::on_tx_done`] then draws nothing
    /// (`bernoulli` of a rate that is not above 0) and never returns a loss.
    #[inline(always)]
    // The negation of `bernoulli`'s own test, so that the two agree on every rate (NaN too).
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn lossless(&self) -> bool {
        !(self.loss_rate > 0.0)
    }

    /// [`LinkDir::on_tx_done`] on a [lossless](LinkDir::lossless) wire that keeps the
    /// sending order: its outcome is always `Ok(OnWire::Next)`, so only the time the next
    /// serialisation ends is returned, if one started. The same state changes, without the
    /// loss draw's test and the outcome (which holds a whole packet) built and matched.
    #[inline(always)]
    pub fn on_tx_done_in_order(&mut self, now: Time) -> Option<Time> {
        debug_assert!(self.lossless());
        self.count_sent();
        self.on_wire += 1;
        self.start_next(now)
    }

    /// Count the packet in service as sent: its index in the ring.
    #[inline(always)]
    fn count_sent(&mut self) -> usize {
        assert!(self.busy, "tx-done event without a packet in service");
        let i = self.on_wire;
        // The size `start_tx` last saw is the packet in service's (it started the service),
        // so the ring need not be read: a slot's mapping, two bounds checks and a load.
        let size = self.last_tx_time.0;
        debug_assert_eq!(self.fifo.get(i).map(|p| p.size), Some(size));
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size as u64;
        i
    }

    /// The transmitter is free: start serialising the next waiting packet, if any, and
    /// return when that ends.
    #[inline(always)]
    fn start_next(&mut self, now: Time) -> Option<Time> {
        self.busy = false;
        let size = self.fifo.get(self.on_wire)?.size;
        self.queue_bytes -= size as u64;
        Some(self.start_tx(now, size))
    }

    /// The packet whose arrival event names `w` leaves the wire.
    #[inline]
    pub fn take_arrival(&mut self, w: OnWire) -> Packet {
        const MISSING: &str = "an arrival event without its packet on the wire";
        match w {
            OnWire::Next => {
                debug_assert!(self.on_wire > 0, "an arrival with no packet on the wire");
                self.on_wire -= 1;
                // Read in place, then dropped from the ring: out of `pop_front`'s Option, the
                // 72-byte packet was copied twice per arrival (into the Option, then out).
                let p = *self.fifo.front().expect(MISSING);
                self.fifo.pop_front();
                p
            }
            OnWire::Slot(s) => {
                self.free_slots.push(s);
                self.wire_slots[s as usize].take().expect(MISSING)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    /// A 1000-byte data packet (also the ring's tests' packet).
    pub(super) fn pkt(seq: u64) -> Packet {
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
        assert_eq!(d.enqueue(0, &pkt(0)), Enqueued::StartedTx(1_000_000_000));
        assert_eq!(d.queue_len(), 0);
    }

    #[test]
    fn queue_limit_counts_waiting_packets_only() {
        let mut d = dir(2, None, 0.0);
        d.enqueue(0, &pkt(0));
        assert_eq!(d.enqueue(0, &pkt(1)), Enqueued::Queued);
        assert_eq!(d.enqueue(0, &pkt(2)), Enqueued::Queued);
        assert_eq!(d.enqueue(0, &pkt(3)), Enqueued::Dropped);
        assert_eq!(d.stats.drops[DropReason::QueueFull as usize], 1);
        let (out, next) = d.on_tx_done(1_000_000_000, true);
        assert_eq!(d.take_arrival(out.unwrap()).seq, 0);
        assert_eq!(next, Some(2_000_000_000));
        assert_eq!(d.queue_len(), 1);
    }

    #[test]
    fn packets_wait_on_the_wire_until_their_arrival() {
        let mut d = dir(2, None, 0.0);
        d.enqueue(0, &pkt(0));
        d.enqueue(0, &pkt(1));
        d.enqueue(0, &pkt(2));
        // In order: each stays in the ring, and the queue counts only the waiting ones.
        let (a, _) = d.on_tx_done(1_000_000_000, true);
        let (b, _) = d.on_tx_done(2_000_000_000, true);
        assert_eq!((a, b), (Ok(OnWire::Next), Ok(OnWire::Next)));
        assert_eq!((d.on_wire(), d.queue_len()), (2, 0));
        assert_eq!(d.in_service().map(|p| p.seq), Some(2));
        assert_eq!(d.take_arrival(OnWire::Next).seq, 0);
        assert_eq!(d.enqueue(2_500_000_000, &pkt(3)), Enqueued::Queued);
        assert_eq!(d.take_arrival(OnWire::Next).seq, 1);
        assert_eq!(d.on_wire(), 0);
        let (next, _) = d.on_tx_done(3_000_000_000, true);
        assert_eq!(d.take_arrival(next.unwrap()).seq, 2);
        assert_eq!(d.in_service().map(|p| p.seq), Some(3));
    }

    #[test]
    fn a_reordering_wire_hands_packets_out_by_slot() {
        let mut d = dir(4, None, 0.0);
        for i in 0..3 {
            d.enqueue(0, &pkt(i));
        }
        let slots: Vec<OnWire> = (1..=3)
            .map(|t| d.on_tx_done(t * 1_000_000_000, false).0.unwrap())
            .collect();
        assert_eq!(d.on_wire(), 3);
        assert_eq!(d.take_arrival(slots[2]).seq, 2);
        assert_eq!(d.take_arrival(slots[0]).seq, 0);
        // A freed slot is reused.
        d.enqueue(4_000_000_000, &pkt(3));
        let again = d.on_tx_done(5_000_000_000, false).0.unwrap();
        assert!(again == slots[0] || again == slots[2]);
        assert_eq!(d.take_arrival(slots[1]).seq, 1);
        assert_eq!(d.take_arrival(again).seq, 3);
        assert_eq!(d.on_wire(), 0);
    }

    #[test]
    fn the_in_order_lossless_path_matches_the_general_one() {
        // Packets of several sizes (the bytes counted are the one in service's), a queue
        // that fills and empties, arrivals taken in between: the same outcome, state and
        // counts from on_tx_done(now, true) and on_tx_done_in_order(now).
        let (mut a, mut b) = (dir(3, None, 0.0), dir(3, None, 0.0));
        assert!(a.lossless() && !dir(3, None, 0.01).lossless());
        let mut now = 0;
        for round in 0..40u64 {
            for k in 0..(round % 4) {
                let mut p = pkt(round * 4 + k);
                p.size = 40 + 500 * ((round + k) % 3) as u32;
                assert_eq!(a.enqueue(now, &p), b.enqueue(now, &p));
            }
            if a.in_service().is_some() {
                let (out, next) = a.on_tx_done(now, true);
                assert_eq!(out, Ok(OnWire::Next));
                assert_eq!(b.on_tx_done_in_order(now), next);
            }
            if round % 3 == 0 && a.on_wire() > 0 {
                assert_eq!(a.take_arrival(OnWire::Next), b.take_arrival(OnWire::Next));
            }
            assert_eq!(
                (a.queue_len(), a.on_wire(), a.in_service()),
                (b.queue_len(), b.on_wire(), b.in_service())
            );
            let (sa, sb) = (&a.stats, &b.stats);
            assert_eq!(
                (sa.packets_sent, sa.bytes_sent),
                (sb.packets_sent, sb.bytes_sent)
            );
            now += 700_000_000;
        }
        assert!(a.stats.packets_sent > 20 && a.stats.drops[0] > 0);
    }

    #[test]
    fn bytes_sent_are_those_of_the_packets_sent() {
        let mut d = dir(4, None, 0.0);
        for (i, size) in [1000, 40, 40, 1500].into_iter().enumerate() {
            let mut p = pkt(i as u64);
            p.size = size;
            d.enqueue(0, &p);
        }
        let mut t = 0;
        while d.in_service().is_some() {
            t += 1;
            assert_eq!(d.on_tx_done(t, true).0, Ok(OnWire::Next));
        }
        assert_eq!((d.stats.packets_sent, d.stats.bytes_sent), (4, 2580));
    }

    #[test]
    fn byte_limit_applies_with_packet_limit() {
        let mut d = dir(10, Some(1500), 0.0);
        d.enqueue(0, &pkt(0));
        assert_eq!(d.enqueue(0, &pkt(1)), Enqueued::Queued);
        assert_eq!(d.enqueue(0, &pkt(2)), Enqueued::Dropped, "2000 B > 1500 B");
    }

    #[test]
    fn random_loss_rate_is_respected() {
        let mut d = dir(100_000, None, 0.2);
        let n = 50_000;
        let mut lost = 0;
        for i in 0..n {
            d.enqueue(0, &pkt(i));
            if d.on_tx_done(0, true).0.is_err() {
                lost += 1;
            }
        }
        let rate = lost as f64 / n as f64;
        // Binomial sd = sqrt(0.2*0.8/50000) = 0.0018; allow 5 sd.
        assert!((rate - 0.2).abs() < 0.009, "loss rate {rate}");
    }
}
