//! A two-node test network: one TCP sender and one receiver joined by a pipe of fixed one-way
//! delay and an optional bottleneck rate, with scripted or random drops. It drives the sans-IO
//! entities the same way the scenario does and checks sender invariants after every step.

#![allow(dead_code)]

use std::collections::HashMap;

use radiotcp_core::config::{TcpConfig, TcpVariant};
use radiotcp_core::engine::{millis, EventQueue, Time, TimerSlot};
use radiotcp_core::tcp::{Ack, Segment, TcpReceiver, TcpSender};

#[derive(Debug, Clone, Copy)]
pub enum Ev {
    Data(Segment),
    Ack(Ack),
    SndTimer(u32),
    RcvTimer(u32),
}

pub type DataDrop = Box<dyn FnMut(&Segment, u32) -> bool>;
pub type AckDrop = Box<dyn FnMut(u64, &Ack) -> bool>;

pub struct Harness {
    pub q: EventQueue<Ev>,
    pub snd: TcpSender,
    pub rcv: TcpReceiver,
    snd_timer: TimerSlot,
    rcv_timer: TimerSlot,
    pub one_way: Time,
    /// Serialisation time of one data segment at the bottleneck (0: infinitely fast).
    pub per_segment: Time,
    link_free_at: Time,
    /// Drop a data segment given it and its transmission number for that seq (1 = original).
    pub drop_data: DataDrop,
    /// Drop the n-th ACK (0-based) sent by the receiver.
    pub drop_ack: AckDrop,
    tx_count: HashMap<u64, u32>,
    pub sent: Vec<(Time, Segment)>,
    pub acks: Vec<(Time, Ack)>,
    pub delivered: u64,
    pub violations: Vec<String>,
}

pub fn tcp_config(variant: TcpVariant, delack_count: u32) -> TcpConfig {
    TcpConfig {
        variant,
        packet_size_bytes: 1040,
        header_bytes: 40,
        delack_count,
        ..TcpConfig::default()
    }
}

pub const MSS: u64 = 1000;

impl Harness {
    /// Sender and receiver from `cfg`, `one_way_ms` apart, no drops.
    pub fn new(cfg: &TcpConfig, one_way_ms: f64) -> Self {
        Self {
            q: EventQueue::new(),
            snd: TcpSender::new(radiotcp_core::config::sender_params(cfg)),
            rcv: TcpReceiver::new(radiotcp_core::config::receiver_params(cfg)),
            snd_timer: TimerSlot::default(),
            rcv_timer: TimerSlot::default(),
            one_way: millis(one_way_ms),
            per_segment: 0,
            link_free_at: 0,
            drop_data: Box::new(|_, _| false),
            drop_ack: Box::new(|_, _| false),
            tx_count: HashMap::new(),
            sent: Vec::new(),
            acks: Vec::new(),
            delivered: 0,
            violations: Vec::new(),
        }
    }

    /// Drop the original transmission of the segments with these indices (seq / MSS).
    pub fn drop_segments(mut self, idx: &'static [u64]) -> Self {
        self.drop_data = Box::new(move |s, n| n == 1 && idx.contains(&(s.seq / MSS)));
        self
    }

    pub fn start(&mut self) {
        self.snd.start();
        self.after_sender(0);
    }

    fn after_sender(&mut self, now: Time) {
        while let Some(seg) = self.snd.poll_transmit(now) {
            let n = self.tx_count.entry(seg.seq).or_insert(0);
            *n += 1;
            let n = *n;
            self.sent.push((now, seg));
            self.check_window(&seg);
            if (self.drop_data)(&seg, n) {
                continue;
            }
            let start = self.link_free_at.max(now);
            self.link_free_at = start + self.per_segment;
            self.q
                .schedule(self.link_free_at + self.one_way, Ev::Data(seg));
        }
        let mss = self.snd.mss() as u64;
        if self.snd.cwnd() < mss {
            self.violations
                .push(format!("cwnd {} < MSS at {now}", self.snd.cwnd()));
        }
        self.snd_timer
            .sync(&mut self.q, self.snd.poll_timeout(), Ev::SndTimer);
    }

    /// New data outside recovery never takes the flight size above min(cwnd, rwnd).
    fn check_window(&mut self, seg: &Segment) {
        let limit = self.snd.cwnd().min(65_535);
        if !self.snd.in_recovery() && !seg.retransmission && self.snd.flight_size() > limit {
            self.violations.push(format!(
                "flight {} > min(cwnd, rwnd) {} after sending {}",
                self.snd.flight_size(),
                limit,
                seg.seq
            ));
        }
    }

    fn after_receiver(&mut self, now: Time, ack: Option<Ack>) {
        self.rcv_timer
            .sync(&mut self.q, self.rcv.poll_timeout(), Ev::RcvTimer);
        if let Some(a) = ack {
            let idx = self.acks.len() as u64;
            self.acks.push((now, a));
            if !(self.drop_ack)(idx, &a) {
                self.q.schedule(now + self.one_way, Ev::Ack(a));
            }
        }
    }

    /// Run until `until` (ms) or until no event is left.
    pub fn run_ms(&mut self, until_ms: f64) {
        let until = millis(until_ms);
        while let Some((now, ev)) = self.q.pop_until(until) {
            match ev {
                Ev::Data(seg) => {
                    let a = self.rcv.on_segment(now, seg.seq, seg.len);
                    self.delivered += a.delivered;
                    self.after_receiver(now, a.ack);
                }
                Ev::Ack(a) => {
                    self.snd.on_ack(now, a.ack, a.rwnd);
                    self.after_sender(now);
                }
                Ev::SndTimer(g) => {
                    if self.snd_timer.fire(g) {
                        self.snd.on_timeout(now);
                        self.after_sender(now);
                    }
                }
                Ev::RcvTimer(g) => {
                    if self.rcv_timer.fire(g) {
                        let a = self.rcv.on_timeout(now);
                        self.after_receiver(now, a);
                    }
                }
            }
        }
    }

    /// Times at which the segment with index `i` was sent.
    pub fn sends_of(&self, i: u64) -> Vec<Time> {
        self.sent
            .iter()
            .filter(|(_, s)| s.seq == i * MSS)
            .map(|(t, _)| *t)
            .collect()
    }

    pub fn assert_no_violations(&self) {
        assert!(
            self.violations.is_empty(),
            "{:?}",
            &self.violations[..self.violations.len().min(5)]
        );
    }
}
