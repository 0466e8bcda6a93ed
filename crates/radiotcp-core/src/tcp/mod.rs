//! TCP, sans-IO: a Reno/NewReno bulk sender ([`sender`]) with its RTT estimator ([`rtt`]) and
//! congestion control behind hooks ([`cc`]), and a delayed-ACK receiver ([`receiver`]).
//!
//! Neither entity owns a clock, a socket or a scheduler: handlers take `now` and update state,
//! [`TcpSender::poll_transmit`] hands out segments to put on the wire and `poll_timeout` tells
//! the caller when to call `handle_timeout`. Timers are deadlines kept as data, so nothing has to be
//! cancelled. Sequence numbers are 64-bit byte offsets starting at 0 (no SYN, no wrap-around):
//! the connection is taken as established when the flow starts, as in ns-2's one-way TCP.
//!
//! Specs: RFC 5681 (congestion control), RFC 6582 (NewReno), RFC 6298 (RTO), RFC 1122 and
//! RFC 5681 §4.2 (delayed ACKs); model-specs §5.

pub mod cc;
pub mod receiver;
pub mod rtt;
pub mod sack;
pub mod sender;

pub use receiver::{Ack, Arrival, Reassembly, ReceiverParams, TcpReceiver};
pub use rtt::RtoEstimator;
pub use sender::{
    RttSampling, Segment, SenderParams, SenderStats, SsthreshBasis, TcpSender, Timeout,
};

/// The "arbitrarily high" initial ssthresh (RFC 5681 §3.1): larger than any window we reach.
pub const SSTHRESH_INFINITE: u64 = u64::MAX / 4;

/// Loss recovery flavour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TcpVariant {
    /// RFC 5681 fast retransmit / fast recovery; recovery ends on the first new ACK.
    Reno,
    /// RFC 6582: recovery ends only when `recover` is acknowledged; partial ACKs retransmit.
    NewReno,
    /// RFC 2018 SACK blocks and RFC 6675 SACK-based loss recovery (optionally with RFC 6937
    /// PRR).
    Sack,
}
