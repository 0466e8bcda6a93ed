//! RFC 5681 window arithmetic of the Reno family (byte-based: cwnd and ssthresh in octets,
//! SMSS = `mss`).

/// Congestion avoidance, RFC 5681 eq. (3): SMSS²/cwnd per ACK of new data, at least 1 octet.
#[inline]
pub(super) fn ca_increase(cwnd: u64, mss: u64) -> u64 {
    (mss * mss / cwnd).max(1)
}

/// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 SMSS).
#[inline]
pub(super) fn loss_ssthresh(flight: u64, mss: u64) -> u64 {
    (flight / 2).max(2 * mss)
}
