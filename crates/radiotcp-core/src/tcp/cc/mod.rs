//! Congestion control behind the sender's hooks. The sender detects losses and runs the
//! recovery bookkeeping (duplicate ACK count, NewReno's `recover`, which segment to
//! retransmit); the controller owns cwnd and ssthresh and decides how they move on each
//! event. SACK-based recovery (RFC 6675) and CUBIC (RFC 9438) slot in as further variants.

mod reno;

pub use reno::Reno;

/// The congestion controller of one sender (enum dispatch: no `Box<dyn>` per ACK).
#[derive(Debug, Clone)]
pub enum CongestionControl {
    /// RFC 5681 slow start, congestion avoidance and fast recovery window arithmetic (Reno
    /// and NewReno share it; they differ in the sender's recovery rules).
    Reno(Reno),
}

impl CongestionControl {
    pub fn cwnd(&self) -> u64 {
        match self {
            Self::Reno(r) => r.cwnd,
        }
    }

    pub fn ssthresh(&self) -> u64 {
        match self {
            Self::Reno(r) => r.ssthresh,
        }
    }

    /// New data acknowledged outside fast recovery.
    #[inline]
    pub fn on_ack(&mut self, newly_acked: u64) {
        match self {
            Self::Reno(r) => r.on_ack(newly_acked),
        }
    }

    /// A duplicate ACK: `dupacks` in a row so far, `flight` bytes outstanding. Returns true
    /// when it starts fast recovery (the sender then retransmits SND.UNA).
    #[inline]
    pub fn on_dup_ack(&mut self, dupacks: u32, in_recovery: bool, flight: u64) -> bool {
        match self {
            Self::Reno(r) => r.on_dup_ack(dupacks, in_recovery, flight),
        }
    }

    /// A partial ACK in NewReno recovery acknowledged `newly_acked` bytes.
    #[inline]
    pub fn on_partial_ack(&mut self, newly_acked: u64) {
        match self {
            Self::Reno(r) => r.on_partial_ack(newly_acked),
        }
    }

    /// Fast recovery ends (a full ACK, or Reno's first new ACK).
    #[inline]
    pub fn on_recovery_end(&mut self) {
        match self {
            Self::Reno(r) => r.on_recovery_end(),
        }
    }

    /// The retransmission timer expired; ssthresh is recomputed from `flight` when
    /// `recompute_ssthresh` (the first expiry for a segment, or every expiry under ns-2's
    /// rules) and held otherwise. Returns true if cwnd fell (a backed-off timeout finds it at
    /// one segment already).
    #[inline]
    pub fn on_rto(&mut self, flight: u64, recompute_ssthresh: bool) -> bool {
        match self {
            Self::Reno(r) => r.on_rto(flight, recompute_ssthresh),
        }
    }
}
