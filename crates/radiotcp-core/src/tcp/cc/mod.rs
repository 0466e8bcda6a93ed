//! Congestion control behind the sender's hooks. The sender detects losses and runs the
//! recovery bookkeeping (duplicate ACK count, `recover`, the SACK scoreboard, which segment to
//! retransmit); the controller owns cwnd and ssthresh and decides how they move on each event:
//! slow start (with RFC 3465's byte limit and, optionally, HyStart++), congestion avoidance
//! (Reno's RFC 5681 increase, or CUBIC's RFC 9438 curve), the reduction on a loss and after a
//! timeout, and the RFC 5681 §3.2 window inflation of non-SACK fast recovery.

pub mod cubic;
pub mod hystart;
mod reno;

pub use cubic::{Cubic, CubicParams};
pub use hystart::{HyStart, HyStartParams, HyStartPhase, SlowStartStep};

use crate::engine::Time;

/// Which window-growth algorithm (`tcp.congestion_control`).
#[derive(Debug, Clone, PartialEq)]
pub enum CcAlgo {
    /// RFC 5681: additive increase of one SMSS per RTT, ssthresh = FlightSize / 2.
    Reno,
    /// RFC 9438 CUBIC.
    Cubic(CubicParams),
}

/// Controller parameters resolved from the configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct CcParams {
    pub algo: CcAlgo,
    /// RFC 3465 L in octets: the most one ACK may add to cwnd in slow start (`u64::MAX`: no
    /// limit, as Linux, which adds every segment an ACK covers).
    pub abc_limit: u64,
    /// RFC 3465 §2.1: in congestion avoidance, count acknowledged octets and add one SMSS per
    /// cwnd of them, instead of RFC 5681 eq. (3)'s per-ACK SMSS²/cwnd.
    pub ca_byte_counting: bool,
    /// HyStart++ (RFC 9406) in the initial slow start.
    pub hystart: bool,
}

impl CcParams {
    /// Reno with RFC 5681's per-ACK rules (L = 1 SMSS).
    pub fn reno(mss: u64) -> Self {
        Self {
            algo: CcAlgo::Reno,
            abc_limit: mss,
            ca_byte_counting: false,
            hystart: false,
        }
    }
}

/// What an ACK of new data tells the controller.
#[derive(Debug, Clone, Copy)]
pub struct AckInfo {
    pub now: Time,
    /// Octets newly acknowledged cumulatively.
    pub acked: u64,
    /// The smoothed RTT, if any sample was taken.
    pub srtt: Option<Time>,
    /// The RTT sample this ACK gave, if any.
    pub rtt_sample: Option<Time>,
    /// The cumulative acknowledgement, and SND.NXT before this ACK clocks out new data
    /// (HyStart++ rounds).
    pub ack: u64,
    pub snd_nxt: u64,
}

#[derive(Debug, Clone)]
enum Algo {
    Reno,
    Cubic(Box<Cubic>),
}

/// cwnd and ssthresh of one sender, in octets.
#[derive(Debug, Clone)]
pub struct CongestionControl {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    abc_limit: u64,
    ca_byte_counting: bool,
    /// RFC 3465 §2.1 `bytes_acked`.
    bytes_acked: u64,
    algo: Algo,
    /// HyStart++ while it runs (the initial slow start).
    hystart: Option<HyStart>,
}

impl CongestionControl {
    pub fn new(p: &CcParams, mss: u64, initial_window: u64, initial_ssthresh: u64) -> Self {
        Self {
            mss,
            cwnd: initial_window,
            ssthresh: initial_ssthresh,
            abc_limit: p.abc_limit,
            ca_byte_counting: p.ca_byte_counting,
            bytes_acked: 0,
            algo: match &p.algo {
                CcAlgo::Reno => Algo::Reno,
                CcAlgo::Cubic(c) => Algo::Cubic(Box::new(Cubic::new(*c, mss))),
            },
            hystart: p.hystart.then(|| HyStart::new(HyStartParams::default())),
        }
    }

    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// Set cwnd directly: PRR (RFC 6937) computes it on every ACK of a SACK recovery.
    pub fn set_cwnd(&mut self, cwnd: u64) {
        self.cwnd = cwnd.max(self.mss);
    }

    /// New data acknowledged outside fast recovery.
    #[inline]
    pub fn on_ack(&mut self, a: &AckInfo) {
        let mss = self.mss;
        if self.cwnd < self.ssthresh {
            // Slow start, RFC 5681 eq. (2) with RFC 3465's limit L, or HyStart++'s rounds.
            let step = match &mut self.hystart {
                Some(h) => h.on_ack(a.ack, a.snd_nxt, a.rtt_sample),
                None => SlowStartStep::Standard,
            };
            match (step, &self.hystart) {
                (SlowStartStep::Standard, _) | (_, None) if self.abc_limit == u64::MAX => {
                    // No limit per ACK, as Linux's `tcp_slow_start`: grow up to ssthresh, and
                    // what the ACK acknowledged beyond that counts in congestion avoidance.
                    let room = self.ssthresh - self.cwnd;
                    self.cwnd += a.acked.min(room);
                    if a.acked > room {
                        self.avoid(&AckInfo {
                            acked: a.acked - room,
                            ..*a
                        });
                    }
                }
                (SlowStartStep::Standard, _) | (_, None) => {
                    self.cwnd += a.acked.min(self.abc_limit);
                }
                (SlowStartStep::ExitToCongestionAvoidance, _) => {
                    // RFC 9406 §4.2: CSS_ROUNDS done, ssthresh = cwnd.
                    self.ssthresh = self.cwnd;
                }
                (step, Some(h)) => self.cwnd += h.cwnd_increase(step, a.acked, mss),
            }
            return;
        }
        self.avoid(a);
    }

    /// Congestion avoidance for one ACK.
    #[inline]
    fn avoid(&mut self, a: &AckInfo) {
        let mss = self.mss;
        match &mut self.algo {
            Algo::Reno => {
                if self.ca_byte_counting {
                    // RFC 3465 §2.1.
                    self.bytes_acked += a.acked;
                    if self.bytes_acked >= self.cwnd {
                        self.bytes_acked -= self.cwnd;
                        self.cwnd += mss;
                    }
                } else {
                    self.cwnd += reno::ca_increase(self.cwnd, mss);
                }
            }
            Algo::Cubic(c) => {
                // W_cubic(t + RTT) uses the smoothed RTT (RFC 9438 §4.2); before any sample
                // the target is the curve at t.
                self.cwnd = c.cong_avoid(self.cwnd, a.acked, a.now, a.srtt.unwrap_or(0));
            }
        }
    }

    /// The new ssthresh at a loss detected by duplicate ACKs or SACK, from `flight` octets
    /// outstanding (RFC 5681 eq. (4) for Reno).
    fn loss_ssthresh(&mut self, now: Time, flight: u64) -> u64 {
        self.bytes_acked = 0;
        if let Some(h) = &mut self.hystart {
            h.on_loss();
        }
        match &mut self.algo {
            Algo::Reno => reno::loss_ssthresh(flight, self.mss),
            // RFC 9438 §4.6-4.7: β·flight, W_max from cwnd before the reduction.
            Algo::Cubic(c) => c.on_congestion(self.cwnd, flight, now),
        }
    }

    /// A duplicate ACK of non-SACK recovery: `dupacks` in a row so far, `flight` octets
    /// outstanding. Returns true when it starts fast recovery (the sender then retransmits
    /// SND.UNA).
    #[inline]
    pub fn on_dup_ack(&mut self, now: Time, dupacks: u32, in_recovery: bool, flight: u64) -> bool {
        let mss = self.mss;
        if in_recovery {
            // RFC 5681 §3.2 step 4: each further duplicate inflates the window.
            self.cwnd += mss;
            false
        } else if dupacks == 3 {
            // RFC 5681 §3.2 step 2 (eq. 4) and step 3: reduce, then inflate by the three
            // segments that left the network.
            self.ssthresh = self.loss_ssthresh(now, flight);
            self.cwnd = self.ssthresh + 3 * mss;
            true
        } else {
            false
        }
    }

    /// A partial ACK in NewReno recovery acknowledged `newly_acked` octets.
    #[inline]
    pub fn on_partial_ack(&mut self, newly_acked: u64) {
        let mss = self.mss;
        // RFC 6582 §3.2 step 5: deflate by the amount acknowledged, add back one SMSS if at
        // least one was acknowledged.
        self.cwnd = self.cwnd.saturating_sub(newly_acked);
        if newly_acked >= mss {
            self.cwnd += mss;
        }
        self.cwnd = self.cwnd.max(mss);
    }

    /// SACK-based recovery starts (RFC 6675 §5 step 4.2): ssthresh from the algorithm, cwnd
    /// down to it (PRR then moves cwnd on each ACK).
    pub fn enter_sack_recovery(&mut self, now: Time, flight: u64) {
        self.ssthresh = self.loss_ssthresh(now, flight);
        self.cwnd = self.ssthresh;
    }

    /// Fast recovery ends (a full ACK, or Reno's first new ACK).
    #[inline]
    pub fn on_recovery_end(&mut self) {
        // RFC 5681 §3.2 step 6, RFC 6582 §3.2 step 3 option "ssthresh", RFC 6937 §3.
        self.cwnd = self.ssthresh;
    }

    /// The retransmission timer expired; ssthresh is recomputed from `flight` when
    /// `recompute_ssthresh` (the first expiry for a segment, or every expiry under ns-2's
    /// rules) and held otherwise. Returns true if cwnd fell (a backed-off timeout finds it at
    /// one segment already).
    #[inline]
    pub fn on_rto(&mut self, now: Time, flight: u64, recompute_ssthresh: bool) -> bool {
        let before = self.cwnd;
        if let Some(h) = &mut self.hystart {
            h.on_rto();
        }
        // RFC 5681 §3.1 eq. (4); on later expiries for the same segment ssthresh is held
        // (unless the profile recomputes it every time, as ns-2 does).
        if recompute_ssthresh {
            self.bytes_acked = 0;
            self.ssthresh = match &mut self.algo {
                Algo::Reno => reno::loss_ssthresh(flight, self.mss),
                // RFC 9438 §4.8: β as on a loss; the next stage starts with K = 0.
                Algo::Cubic(c) => c.on_rto(self.cwnd, flight, now),
            };
        }
        self.bytes_acked = 0;
        self.cwnd = self.mss;
        before > self.cwnd
    }
}
