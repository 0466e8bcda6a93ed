//! Policies on the ACK path. ACK rate control at the network-side RLC (Alcaraz & Cerdan 2006,
//! "ACK rate control", §3 and Fig. 4): uplink TCP ACKs wait in an ACK buffer and leave with an
//! inter-departure time t_id = f(BO) that grows with the downlink buffer occupancy, slowing
//! the senders' self-clock before the buffer overflows. ACK delay control (Wu 1999) is the
//! alpha -> 0 case: a fixed spacing as soon as BO >= minth. Sans-IO: the caller reports ACK
//! arrivals and the timer, and sends what comes back.

use std::collections::VecDeque;

use crate::engine::Time;
use crate::packet::{Packet, PacketKind};

/// Fig. 4 of the ACK rate paper runs its tail once per event, so at most one ACK leaves per
/// event; what counts as an event decides what happens to a backlog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckRelease {
    /// The RLC's TTIs are events too: a backlog left when BO falls below minth drains one ACK
    /// per TTI.
    PerTti,
    /// Only ACK arrivals and id_timer expiries are events: a backlog can be stranded when no
    /// ACK arrives (every window held in the ACK buffer), until a TCP timeout.
    OnePerEvent,
    /// Repeat the tail while the spacing allows: a backlog leaves at once when t_id = 0.
    WhileDue,
}

#[derive(Debug, Clone)]
pub struct AckRateParams {
    pub minth: f64,
    pub maxth: f64,
    pub mind: Time,
    pub maxd: Time,
    /// Shape of f; 0 gives ACK delay control (t_id = maxd whenever BO >= minth).
    pub alpha: f64,
    /// Round the id_timer expiry up to this TTI grid.
    pub tti: Option<Time>,
    /// What counts as an event and how many ACKs one may release.
    pub release: AckRelease,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct AckStats {
    /// ACKs that left later than they arrived.
    pub acks_delayed: u64,
    /// Sum of the waiting times added, ns.
    pub total_delay: u128,
    pub acks_forwarded: u64,
}

/// The ACK buffer, the single id_timer and LADT of Fig. 4.
#[derive(Debug, Clone)]
pub struct AckRateControl {
    p: AckRateParams,
    buffer: VecDeque<(Time, Packet)>,
    /// Last ACK departure time.
    ladt: Option<Time>,
    id_timer: Option<Time>,
    pub stats: AckStats,
}

impl AckRateControl {
    pub fn new(p: AckRateParams) -> Self {
        Self {
            p,
            buffer: VecDeque::new(),
            ladt: None,
            id_timer: None,
            stats: AckStats::default(),
        }
    }

    /// t_id = (maxd - mind) ((BO - minth)/(maxth - minth))^alpha + mind for BO >= minth,
    /// else 0 (the paper's eq.; BO above maxth counts as maxth). Evaluated at integer BO this is
    /// the paper's precomputed per-SDU table.
    pub fn t_id(&self, bo: f64) -> Time {
        if bo < self.p.minth {
            return 0;
        }
        let x = ((bo - self.p.minth) / (self.p.maxth - self.p.minth)).clamp(0.0, 1.0);
        let shape = if self.p.alpha == 0.0 {
            1.0
        } else if self.p.alpha == 1.0 {
            // pow(x, 1) is x exactly (IEEE 754 and C99 F.9.4.4), without libm's call.
            x
        } else {
            x.powf(self.p.alpha)
        };
        let span = self.p.maxd.saturating_sub(self.p.mind) as f64;
        (span * shape) as Time + self.p.mind
    }

    pub fn queued(&self) -> usize {
        self.buffer.len()
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.id_timer
    }

    fn send(&mut self, now: Time, out: &mut Vec<Packet>) {
        if let Some((arrived, pkt)) = self.buffer.pop_front() {
            if now > arrived {
                self.stats.acks_delayed += 1;
                self.stats.total_delay += (now - arrived) as u128;
            }
            self.stats.acks_forwarded += 1;
            self.ladt = Some(now);
            out.push(pkt);
        }
    }

    /// Fig. 4's common tail, run once per event: with ACKs waiting and the timer off, send
    /// one ACK now if the spacing allows, else start the id_timer for the remainder. One ACK
    /// per event, as the figure has it: a backlog left when BO falls below minth drains one
    /// ACK per later event rather than in a burst.
    /// With `while_due` the tail repeats while an ACK may leave, so a backlog leaves at once
    /// when t_id(BO) = 0 (and one ACK otherwise, the next one then waiting t_id).
    fn process(&mut self, now: Time, bo: f64, out: &mut Vec<Packet>) {
        while !self.buffer.is_empty() && self.id_timer.is_none() {
            let t_id = self.t_id(bo);
            let actual = self.ladt.map_or(Time::MAX, |l| now - l);
            if actual >= t_id {
                self.send(now, out);
                if self.p.release != AckRelease::WhileDue {
                    break;
                }
            } else {
                let mut at = now + (t_id - actual);
                if let Some(tti) = self.p.tti.filter(|&t| t > 0) {
                    at = at.div_ceil(tti) * tti;
                }
                self.id_timer = Some(at);
            }
        }
    }

    /// An ACK arrived from the RLC receiver at `now`, with `bo` SDUs in the downlink buffer.
    pub fn on_ack(&mut self, now: Time, pkt: Packet, bo: f64) -> Vec<Packet> {
        let mut out = Vec::new();
        self.on_ack_into(now, pkt, bo, &mut out);
        out
    }

    /// [`Self::on_ack`] appending what leaves to `out` (a list the caller reuses).
    pub fn on_ack_into(&mut self, now: Time, pkt: Packet, bo: f64, out: &mut Vec<Packet>) {
        if pkt.opt.syn || pkt.kind != PacketKind::Ack {
            // A SYN-ACK opens the connection; it is not part of the ACK clock being spaced.
            // Nor is uplink data (an emulated UE's requests or uploads): only ACKs are paced.
            out.push(pkt);
            return;
        }
        self.buffer.push_back((now, pkt));
        self.process(now, bo, out);
    }

    /// A TTI of the RLC begins: with `AckRelease::PerTti` it is an event of Fig. 4 (one ACK
    /// may leave if the spacing allows); otherwise nothing happens.
    pub fn on_tti(&mut self, now: Time, bo: f64) -> Vec<Packet> {
        let mut out = Vec::new();
        self.on_tti_into(now, bo, &mut out);
        out
    }

    /// [`Self::on_tti`] appending what leaves to `out`.
    pub fn on_tti_into(&mut self, now: Time, bo: f64, out: &mut Vec<Packet>) {
        if self.p.release == AckRelease::PerTti {
            self.process(now, bo, out);
        }
    }

    /// The id_timer fired (a stale or early call does nothing).
    pub fn handle_timeout(&mut self, now: Time, bo: f64) -> Vec<Packet> {
        let mut out = Vec::new();
        self.handle_timeout_into(now, bo, &mut out);
        out
    }

    /// [`Self::handle_timeout`] appending what leaves to `out`.
    pub fn handle_timeout_into(&mut self, now: Time, bo: f64, out: &mut Vec<Packet>) {
        match self.id_timer {
            Some(t) if t <= now => {
                self.id_timer = None;
                self.send(now, out);
                self.process(now, bo, out);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(seq: u64) -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Ack,
            dst: 0,
            seq,
            len: 0,
            size: 40,
            rwnd: 65535,
            sent_at: 0,
            opt: Default::default(),
        }
    }

    fn ctrl(alpha: f64) -> AckRateControl {
        let ms = 1_000_000;
        AckRateControl::new(AckRateParams {
            minth: 10.0,
            maxth: 50.0,
            mind: 20 * ms,
            maxd: 200 * ms,
            alpha,
            tti: None,
            release: AckRelease::OnePerEvent,
        })
    }

    #[test]
    fn a_backlog_left_below_minth_drains_per_release_mode() {
        let ms = 1_000_000;
        for release in [
            AckRelease::OnePerEvent,
            AckRelease::PerTti,
            AckRelease::WhileDue,
        ] {
            let mut c = ctrl(1.0);
            c.p.release = release;
            // A backlog of 5 at BO 30 (t_id 110 ms): the first leaves, four wait.
            let sent: usize = (0..5).map(|i| c.on_ack(0, ack(i), 30.0).len()).sum();
            assert_eq!(sent, 1);
            assert_eq!(c.queued(), 4);
            // BO falls to 5 (< minth): the timer expiry at 110 ms sends one ACK, then the
            // tail sends the rest at once (while_due) or one more (one per event).
            let t = c.poll_timeout().unwrap();
            assert_eq!(t, 110 * ms);
            let out = c.handle_timeout(t, 5.0);
            if release == AckRelease::WhileDue {
                assert_eq!(out.len(), 4);
                assert_eq!(c.queued(), 0);
                continue;
            }
            assert_eq!(out.len(), 2);
            assert_eq!(c.queued(), 2);
            // No ACK arrives any more (the senders' windows are all held here). Literally,
            // nothing else is an event and the backlog is stranded; with TTIs as events it
            // drains one ACK per TTI.
            let drained: Vec<usize> = (1..=3)
                .map(|k| c.on_tti(t + k * 10 * ms, 5.0).len())
                .collect();
            if release == AckRelease::PerTti {
                assert_eq!(drained, vec![1, 1, 0]);
                assert_eq!(c.queued(), 0);
            } else {
                assert_eq!(drained, vec![0, 0, 0]);
                assert_eq!(c.queued(), 2);
            }
        }
    }

    #[test]
    fn t_id_follows_the_paper_function() {
        let ms = 1_000_000.0;
        let c = ctrl(2.0);
        assert_eq!(c.t_id(9.0), 0);
        assert_eq!(c.t_id(10.0), (20.0 * ms) as Time);
        // BO 30: x = 0.5, x^2 = 0.25: 180 * 0.25 + 20 = 65 ms.
        assert_eq!(c.t_id(30.0), (65.0 * ms) as Time);
        assert_eq!(c.t_id(50.0), (200.0 * ms) as Time);
        assert_eq!(c.t_id(80.0), (200.0 * ms) as Time);
        // alpha -> 0: ACK delay control, a fixed maxd spacing from minth on.
        let d = ctrl(0.0);
        assert_eq!(d.t_id(10.0), (200.0 * ms) as Time);
        assert_eq!(d.t_id(31.0), (200.0 * ms) as Time);
        assert_eq!(d.t_id(9.9), 0);
    }

    #[test]
    fn never_delays_below_minth() {
        let mut c = ctrl(1.0);
        for i in 0..100u64 {
            let out = c.on_ack(i * 1000, ack(i), 9.0);
            assert_eq!(out.len(), 1, "sent at once");
        }
        assert_eq!(c.stats.acks_delayed, 0);
        assert_eq!(c.poll_timeout(), None);
    }

    #[test]
    fn spaces_acks_by_f_of_bo() {
        let ms = 1_000_000;
        let mut c = ctrl(1.0);
        // BO 30 with alpha 1: t_id = 180 * 0.5 + 20 = 110 ms. A burst of 5 ACKs at t = 0.
        let mut departures: Vec<Time> = (0..5)
            .flat_map(|i| c.on_ack(0, ack(i), 30.0))
            .map(|_| 0)
            .collect();
        while let Some(t) = c.poll_timeout() {
            for _ in c.handle_timeout(t, 30.0) {
                departures.push(t);
            }
        }
        assert_eq!(departures, vec![0, 110 * ms, 220 * ms, 330 * ms, 440 * ms]);
        assert_eq!(c.stats.acks_delayed, 4);
        assert_eq!(
            c.stats.total_delay,
            (110 + 220 + 330 + 440) as u128 * ms as u128
        );
        // An ACK that arrives long after the last departure leaves at once.
        assert_eq!(c.on_ack(2000 * ms, ack(9), 30.0).len(), 1);
        // Below minth a backlog drains one ACK per event (Fig. 4), not in a burst.
        let mut d = ctrl(1.0);
        for i in 0..5 {
            d.on_ack(0, ack(i), 30.0);
        }
        assert_eq!(d.queued(), 4);
        let t = d.poll_timeout().unwrap();
        // The expiry sends the first ACK, then the common tail (BO < minth: no spacing) one
        // more.
        assert_eq!(d.handle_timeout(t, 5.0).len(), 2);
        assert_eq!(d.queued(), 2);
        assert_eq!(d.poll_timeout(), None, "no spacing below minth: no timer");
        // Each further arrival inserts one and sends one: the backlog stays.
        assert_eq!(d.on_ack(t + 1, ack(5), 5.0).len(), 1);
        assert_eq!(d.queued(), 2);
    }

    #[test]
    fn tti_synchronised_timer_lands_on_the_grid() {
        let ms = 1_000_000;
        let mut p = ctrl(1.0).p;
        p.tti = Some(10 * ms);
        let mut c = AckRateControl::new(p);
        c.on_ack(3 * ms, ack(0), 30.0);
        c.on_ack(4 * ms, ack(1), 30.0);
        // 3 ms + 110 ms = 113 ms, rounded up to 120 ms.
        assert_eq!(c.poll_timeout(), Some(120 * ms));
    }
}
