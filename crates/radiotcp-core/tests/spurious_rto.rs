//! Spurious timeouts of NewReno in loss recovery, pinned with scripted losses: the two
//! sequences behind the LTE cell's spurious timeouts (docs/models/tcp.md, "Behaviour worth
//! knowing"). In both the segment at SND.UNA had been lost, its repair was on its way when
//! the timer expired, and the probe counts the timeout spurious of the "lost, repair
//! delivered" kind. Segment index i carries bytes [i*MSS, (i+1)*MSS); MSS = 1000.

mod common;

use common::{tcp_config, Harness, MSS};
use radiotcp_core::config::TcpVariant;
use radiotcp_core::engine::{millis, Time};

/// Arrival time at the sender of the n-th ACK (0-based) carrying `ack`.
fn nth_ack_arrival(h: &Harness, ack: u64, n: usize) -> Time {
    let sent = h
        .acks
        .iter()
        .filter(|(_, a)| a.ack == ack)
        .nth(n)
        .expect("such an ACK")
        .0;
    sent + h.one_way
}

/// When segment `i` first reached the receiver in a copy it kept: the receiver (one ACK per
/// segment) sends the first ACK beyond it then.
fn first_ack_beyond(h: &Harness, i: u64) -> Time {
    h.acks
        .iter()
        .find(|(_, a)| a.ack > i * MSS)
        .expect("segment delivered")
        .0
}

fn ms(t: Time) -> f64 {
    t as f64 / 1e6
}

/// RFC 6582 §3.2 step 5: "if this is the first partial ACK ... also reset the retransmit
/// timer" (the Impatient variant, recommended in §4). With twelve holes in one window and a
/// 120 ms RTT, one hole is repaired per RTT; the timer runs from the first partial ACK and
/// expires 1 s later (min RTO) while the partial-ACK retransmission of the segment then at
/// SND.UNA (hole 58, the ninth partial ACK's) is still on its way to the receiver. The timeout is needed for the holes above (it ends a
/// recovery of one hole per RTT), but its retransmission of SND.UNA is not: the probe counts
/// it spurious, of the "lost, repair delivered" kind. The 30-SDU LTE runs (`--set
/// access.buffer.limit_sdus=30`) show this sequence in all their spurious timeouts.
#[test]
fn impatient_newreno_times_out_while_the_partial_ack_repair_is_in_flight() {
    const HOLES: [u64; 12] = [40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62];
    let mut h = Harness::new(&tcp_config(TcpVariant::NewReno, 1), 60.0);
    h.per_segment = millis(1.0);
    let mut h = h.drop_segments(&HOLES);
    h.start();
    h.run_ms(5000.0);
    let s = &h.snd().stats;
    assert_eq!((s.fast_retransmits, s.timeouts), (1, 1));
    // The hole at SND.UNA when the timer expired: sent three times (original, partial-ACK
    // retransmission, the timeout's); the holes before it twice, the ones after it were
    // still waiting for their partial ACK and are resent by go-back-N.
    let at_rto: Vec<u64> = HOLES
        .iter()
        .copied()
        .filter(|&i| h.sends_of(i).len() == 3)
        .collect();
    assert_eq!(at_rto, vec![58], "SND.UNA at the timeout");
    let sends = h.sends_of(58);
    let (repair, rto_at) = (sends[1], sends[2]);
    // The timer: restarted by the first partial ACK (for hole 42), not by the later ones.
    let first_partial = nth_ack_arrival(&h, 42 * MSS, 0);
    assert_eq!(rto_at - first_partial, millis(1000.0));
    assert_eq!(
        repair,
        nth_ack_arrival(&h, 58 * MSS, 0),
        "a partial-ACK repair"
    );
    // The repair was sent before the timeout and reached the receiver after it.
    let delivered = first_ack_beyond(&h, 58);
    assert!(repair < rto_at && delivered > rto_at, "{}", ms(delivered));
    // Holes 60 and 62 had not been retransmitted yet.
    assert!(HOLES[10..].iter().all(|&i| h.sends_of(i)[1] > rto_at));
    assert_one_spurious_timeout_lost_and_repaired(&h);
    assert_eq!(h.delivered(), h.rcv().rcv_nxt());
    h.assert_no_violations();
}

/// RFC 6298 §5.1: a running timer is not restarted when a segment is sent, so the fast
/// retransmission leaves it where the last new ACK put it (§5.3). A queue that grows faster
/// than RTTVAR follows (slow start into an unlimited buffer, 8 ms per segment) makes the
/// fast retransmission's round trip, behind the whole queue, longer than the RTO computed
/// from samples of an emptier queue: the timer expires before the repair arrives. The 1000-SDU
/// LTE runs show this sequence (the fast retransmission behind seconds of queue) beside the
/// Impatient one above.
#[test]
fn fast_retransmission_behind_a_growing_queue_outlasts_the_rto() {
    let mut cfg = tcp_config(TcpVariant::NewReno, 1);
    cfg.min_rto_ms = 200.0;
    let mut h = Harness::new(&cfg, 20.0);
    h.per_segment = millis(8.0);
    let mut h = h.drop_segments(&[50]);
    h.start();
    h.run_ms(560.0);
    let last_new_ack = nth_ack_arrival(&h, 50 * MSS, 0);
    let fr = nth_ack_arrival(&h, 50 * MSS, 3);
    assert_eq!(
        h.sends_of(50),
        vec![h.sends_of(50)[0], fr],
        "fast retransmit"
    );
    // Just after the fast retransmission: the deadline is the last new ACK's.
    h.run_ms(ms(fr) + 1.0);
    let (srtt, rto) = (h.snd().srtt().unwrap(), h.snd().rto());
    let deadline = h.snd().poll_timeout().unwrap();
    assert_eq!(deadline, last_new_ack + rto);
    h.run_ms(5000.0);
    let s = &h.snd().stats;
    assert_eq!((s.fast_retransmits, s.timeouts), (1, 1));
    let sends = h.sends_of(50);
    assert_eq!(sends.len(), 3);
    assert_eq!(sends[2], deadline, "the timeout's retransmission");
    // The repair queued behind the whole window: it reached the receiver after the timeout,
    // its one-way trip alone longer than SRTT and the RTO.
    let delivered = first_ack_beyond(&h, 50);
    assert!(delivered > deadline, "{} {}", ms(delivered), ms(deadline));
    assert!(
        delivered - fr > rto && rto > srtt,
        "{} {} {}",
        ms(delivered - fr),
        ms(rto),
        ms(srtt)
    );
    assert_one_spurious_timeout_lost_and_repaired(&h);
    h.assert_no_violations();
}

/// The run's one timeout was spurious, of the lost-and-repaired kind: the segment was lost and
/// a retransmission sent before the timeout reached the receiver.
fn assert_one_spurious_timeout_lost_and_repaired(h: &Harness) {
    let sp = h.spurious();
    assert_eq!(sp.spurious_timeouts, 1);
    assert_eq!(
        (
            sp.spurious_timeouts_not_lost,
            sp.spurious_timeouts_lost_repaired
        ),
        (0, 1)
    );
}
