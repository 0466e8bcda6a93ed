//! RFC 5681 window arithmetic (with RFC 6582's choice of deflating to ssthresh on a full
//! ACK). Byte-based: cwnd and ssthresh in bytes, SMSS = `mss`.

/// cwnd and ssthresh of a Reno-family sender.
#[derive(Debug, Clone)]
pub struct Reno {
    pub(super) mss: u64,
    pub(super) cwnd: u64,
    pub(super) ssthresh: u64,
}

impl Reno {
    pub fn new(mss: u64, initial_window: u64, initial_ssthresh: u64) -> Self {
        Self {
            mss,
            cwnd: initial_window,
            ssthresh: initial_ssthresh,
        }
    }

    pub(super) fn on_ack(&mut self, newly_acked: u64) {
        let mss = self.mss;
        if self.cwnd < self.ssthresh {
            // Slow start, RFC 5681 eq. (2) with the byte-counting limit L = 1 SMSS.
            self.cwnd += newly_acked.min(mss);
        } else {
            // Congestion avoidance, RFC 5681 eq. (3).
            self.cwnd += (mss * mss / self.cwnd).max(1);
        }
    }

    pub(super) fn on_dup_ack(&mut self, dupacks: u32, in_recovery: bool, flight: u64) -> bool {
        let mss = self.mss;
        if in_recovery {
            // RFC 5681 §3.2 step 4: each further duplicate inflates the window.
            self.cwnd += mss;
            false
        } else if dupacks == 3 {
            // RFC 5681 §3.2 step 2 (eq. 4) and step 3: halve, then inflate by the three
            // segments that left the network.
            self.ssthresh = (flight / 2).max(2 * mss);
            self.cwnd = self.ssthresh + 3 * mss;
            true
        } else {
            false
        }
    }

    pub(super) fn on_partial_ack(&mut self, newly_acked: u64) {
        let mss = self.mss;
        // RFC 6582 §3.2 step 5: deflate by the amount acknowledged, add back one SMSS if at
        // least one was acknowledged.
        self.cwnd = self.cwnd.saturating_sub(newly_acked);
        if newly_acked >= mss {
            self.cwnd += mss;
        }
        self.cwnd = self.cwnd.max(mss);
    }

    pub(super) fn on_recovery_end(&mut self) {
        // RFC 5681 §3.2 step 6, RFC 6582 §3.2 step 3 option "ssthresh".
        self.cwnd = self.ssthresh;
    }

    pub(super) fn on_rto(&mut self, flight: u64, recompute_ssthresh: bool) -> bool {
        let before = self.cwnd;
        // RFC 5681 §3.1 eq. (4); on later expiries for the same segment ssthresh is held
        // (unless the profile recomputes it every time, as ns-2 does).
        if recompute_ssthresh {
            self.ssthresh = (flight / 2).max(2 * self.mss);
        }
        self.cwnd = self.mss;
        before > self.cwnd
    }
}
