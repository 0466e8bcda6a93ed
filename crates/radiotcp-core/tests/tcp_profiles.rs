//! The sender rules that TCP profiles switch (docs/models/tcp.md, "Profiles"), one scripted
//! case each, driving a `TcpSender` directly: MSS = 1000, ACKs fed by hand.

mod common;

use common::{tcp_config, MSS};
use radiotcp_core::config::{
    sender_params, RtoEstimatorKind, RttSamplingKind, SsthreshBasisKind, TcpConfig, TcpProfile,
    TcpVariant,
};
use radiotcp_core::engine::millis;
use radiotcp_core::packet::TcpOpts;
use radiotcp_core::tcp::TcpSender;

const RWND: u32 = 65_535;

fn sender(cfg: &TcpConfig) -> TcpSender {
    let mut s = TcpSender::new(sender_params(cfg));
    s.start();
    s
}

/// Everything the window allows at `t_ms`, as segment indices.
fn send_all(s: &mut TcpSender, t_ms: f64) -> Vec<u64> {
    std::iter::from_fn(|| s.poll_transmit(millis(t_ms)))
        .map(|g| g.seq / MSS)
        .collect()
}

fn cfg(variant: TcpVariant, iw: u32) -> TcpConfig {
    let mut c = tcp_config(variant, 1);
    c.initial_window_segments = iw;
    c
}

/// RFC 3042 §2: the first and second duplicate ACKs each release one new segment beyond cwnd;
/// cwnd is unchanged, and at the third the halving leaves those segments out of FlightSize
/// (RFC 5681 §3.2 step 2).
#[test]
fn limited_transmit_sends_one_new_segment_per_early_dupack() {
    for lt in [false, true] {
        let mut c = cfg(TcpVariant::NewReno, 8);
        c.limited_transmit = lt;
        let mut s = sender(&c);
        assert_eq!(send_all(&mut s, 0.0), (0..8).collect::<Vec<_>>());
        // Segment 0 lost: duplicates of 0.
        s.on_ack(millis(100.0), 0, RWND);
        let after_1 = send_all(&mut s, 100.0);
        s.on_ack(millis(101.0), 0, RWND);
        let after_2 = send_all(&mut s, 101.0);
        assert_eq!(s.cwnd(), 8 * MSS, "cwnd unchanged");
        if lt {
            assert_eq!((after_1, after_2), (vec![8], vec![9]));
            assert_eq!(s.stats.limited_transmits, 2);
        } else {
            assert!(after_1.is_empty() && after_2.is_empty());
        }
        s.on_ack(millis(102.0), 0, RWND);
        assert_eq!(s.stats.fast_retransmits, 1);
        // FlightSize 8 segments either way (not 10): ssthresh 4.
        assert_eq!(s.ssthresh(), 4 * MSS, "lt = {lt}");
    }
}

/// ns-2's `dupack_action` resets the retransmission timer when it fast-retransmits; RFC 6298
/// §5.1 leaves a running timer alone.
#[test]
fn the_timer_restarts_at_fast_retransmit_only_when_asked() {
    for restart in [false, true] {
        let mut c = cfg(TcpVariant::NewReno, 8);
        c.restart_timer_on_fast_retransmit = restart;
        let mut s = sender(&c);
        send_all(&mut s, 0.0);
        let armed = s.poll_timeout().expect("running");
        for k in 0..3 {
            s.on_ack(millis(300.0 + k as f64), 0, RWND);
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        let want = if restart {
            millis(302.0) + s.rto()
        } else {
            armed
        };
        assert_eq!(s.poll_timeout(), Some(want), "restart = {restart}");
    }
}

/// After an RTO, go-back-N resends segments the receiver already holds; their duplicate ACKs
/// (at the highest sequence sent before the RTO) start a fast retransmit in plain Reno, and
/// none with ns-2's `bugFix_` guard.
#[test]
fn reno_go_back_n_duplicates_start_no_fast_retransmit_under_the_guard() {
    for guard in [false, true] {
        let mut c = cfg(TcpVariant::Reno, 4);
        c.reno_recover_after_rto = guard;
        let mut s = sender(&c);
        send_all(&mut s, 0.0);
        s.handle_timeout(millis(1000.0));
        assert_eq!(send_all(&mut s, 1000.0), vec![0]);
        // The receiver held 1-3: the retransmission is acknowledged up to HighTx, cwnd 2.
        s.on_ack(millis(1100.0), 4 * MSS, RWND);
        assert_eq!(send_all(&mut s, 1100.0), vec![4, 5]);
        for k in 0..3 {
            s.on_ack(millis(1150.0 + k as f64), 4 * MSS, RWND);
        }
        let want = if guard { 0 } else { 1 };
        assert_eq!(s.stats.fast_retransmits, want, "guard = {guard}");
    }
}

/// Two losses in one window: plain Reno leaves recovery on the first new ACK and may halve
/// again for the second hole; with one recovery per window the second set of duplicates (at or
/// below the first recovery's `recover`) starts none.
#[test]
fn reno_halves_once_per_window_under_the_guard() {
    for guard in [false, true] {
        let mut c = cfg(TcpVariant::Reno, 10);
        c.reno_one_recovery_per_window = guard;
        let mut s = sender(&c);
        send_all(&mut s, 0.0);
        // Segments 0 and 2 lost: duplicates of 0 from 1 and 3..9.
        for k in 0..3 {
            s.on_ack(millis(100.0 + k as f64), 0, RWND);
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        send_all(&mut s, 103.0);
        // The retransmission of 0 arrives: ACK 2 (new, ends Reno's recovery), then duplicates
        // of 2 from what is still in flight.
        s.on_ack(millis(200.0), 2 * MSS, RWND);
        assert!(!s.in_recovery());
        send_all(&mut s, 200.0);
        for k in 0..3 {
            s.on_ack(millis(201.0 + k as f64), 2 * MSS, RWND);
        }
        let want = if guard { 1 } else { 2 };
        assert_eq!(s.stats.fast_retransmits, want, "guard = {guard}");
    }
}

/// RFC 5681 §3.1: ssthresh is held when the timer expires again for the same segment; ns-2's
/// `slowdown()` on every timeout recomputes it from the one-segment window: 2 segments.
#[test]
fn a_repeated_rto_holds_or_recomputes_ssthresh() {
    for every in [false, true] {
        let mut c = cfg(TcpVariant::NewReno, 10);
        c.rto_ssthresh_every_expiry = every;
        let mut s = sender(&c);
        send_all(&mut s, 0.0);
        s.handle_timeout(millis(1000.0));
        assert_eq!(s.ssthresh(), 5 * MSS);
        send_all(&mut s, 1000.0);
        s.handle_timeout(millis(3000.0));
        let want = if every { 2 * MSS } else { 5 * MSS };
        assert_eq!(s.ssthresh(), want, "every = {every}");
    }
}

/// One timed segment at a time gives one sample per round trip; every ACK gives one each.
#[test]
fn timed_segment_sampling_takes_one_sample_per_round_trip() {
    for (sampling, want) in [
        (RttSamplingKind::EveryAck, 10),
        (RttSamplingKind::TimedSegment, 1),
    ] {
        let mut c = cfg(TcpVariant::NewReno, 10);
        c.rtt_sampling = sampling;
        let mut s = sender(&c);
        send_all(&mut s, 0.0);
        for k in 1..=10u64 {
            s.on_ack(millis(100.0 + k as f64), k * MSS, RWND);
        }
        assert_eq!(s.stats.rtt_samples, want, "{sampling:?}");
        // The next round: segments 10.. sent at 110 ms; the first new one is timed.
        send_all(&mut s, 110.0);
        s.on_ack(millis(210.0), 11 * MSS, RWND);
        assert_eq!(s.stats.rtt_samples, want + 1, "{sampling:?}");
    }
}

/// A retransmission ends the timing (4.4BSD and ns-2 clear the timed RTT at fast
/// retransmit): the timed segment's ACK gives no sample even when it covers no retransmitted
/// segment itself (Karn's rule alone would take it).
#[test]
fn a_fast_retransmit_cancels_the_timed_segment() {
    let mut c = cfg(TcpVariant::Reno, 10);
    c.rtt_sampling = RttSamplingKind::TimedSegment;
    let mut s = sender(&c);
    send_all(&mut s, 0.0);
    // Segment 0 is timed; segment 1 lost; ACK 1 samples; then the next new segment is timed.
    s.on_ack(millis(100.0), MSS, RWND);
    assert_eq!(s.stats.rtt_samples, 1);
    assert_eq!(send_all(&mut s, 100.0), vec![10, 11], "slow start: cwnd 11");
    for k in 0..3 {
        s.on_ack(millis(101.0 + k as f64), MSS, RWND);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    // The retransmission of 1 is acknowledged with 2..9 (Reno's recovery ends), then 10 and
    // 11, timed before the fast retransmit, are acknowledged alone: no sample.
    s.on_ack(millis(300.0), 10 * MSS, RWND);
    s.on_ack(millis(301.0), 12 * MSS, RWND);
    assert_eq!(s.stats.rtt_samples, 1);
}

/// The ns-2 estimator inside the sender: a 330 ms RTT on a 100 ms tick gives 9 ticks, raised
/// to the 1 s minimum; the initial RTO is the profile's.
#[test]
fn the_ns2_estimator_drives_the_sender_timer() {
    let mut c = cfg(TcpVariant::Reno, 1);
    c.rto_estimator = RtoEstimatorKind::Ns2;
    c.clock_granularity_ms = 100.0;
    c.initial_rto_ms = 6000.0;
    c.min_rto_ms = 0.0;
    let mut s = sender(&c);
    assert_eq!(s.rto(), millis(6000.0));
    send_all(&mut s, 0.0);
    s.on_ack(millis(330.0), MSS, RWND);
    assert_eq!(s.rto(), millis(900.0));
    c.min_rto_ms = 1000.0;
    let mut s = sender(&c);
    send_all(&mut s, 0.0);
    s.on_ack(millis(330.0), MSS, RWND);
    assert_eq!(s.rto(), millis(1000.0));
}

/// Every profile validates, names itself, and changes only what it must from "rfc".
#[test]
fn profiles_resolve_to_valid_configurations() {
    for p in TcpProfile::ALL {
        let c = TcpConfig::profile_defaults(p);
        assert_eq!(c.profile, p);
        let scenario = radiotcp_core::config::ScenarioConfig {
            tcp: c.clone(),
            ..Default::default()
        };
        scenario
            .validate()
            .unwrap_or_else(|e| panic!("{}: {e}", p.name()));
    }
    assert_eq!(
        TcpConfig::default(),
        TcpConfig::profile_defaults(TcpProfile::Rfc)
    );
}

/// ns-2's `syn_` (2.26) and any real stack: a SYN goes first; nothing else is sent until the
/// SYN-ACK, whose round trip is the first RTT sample; then the initial window goes out.
#[test]
fn the_syn_opens_the_connection_and_times_the_first_round_trip() {
    let mut c = cfg(TcpVariant::Reno, 2);
    c.syn = true;
    let mut s = sender(&c);
    assert!(s.poll_syn(0));
    assert!(!s.poll_syn(0), "one SYN");
    assert!(
        send_all(&mut s, 0.0).is_empty(),
        "no data before the SYN-ACK"
    );
    assert_eq!(
        s.poll_timeout(),
        Some(millis(1000.0)),
        "the SYN is timed by the RTO"
    );
    // A plain ACK cannot open the connection.
    s.on_ack(millis(100.0), 0, RWND);
    assert!(!s.established());
    let syn_ack = TcpOpts {
        syn: true,
        ..TcpOpts::default()
    };
    s.on_ack_opts(millis(200.0), 0, RWND, &syn_ack);
    assert!(s.established());
    assert_eq!(s.srtt(), Some(millis(200.0)));
    assert_eq!(s.poll_timeout(), None);
    assert_eq!(
        send_all(&mut s, 200.0),
        vec![0, 1],
        "then the initial window"
    );
}

/// An unanswered SYN is sent again when its timer expires, with the RTO backed off; the
/// SYN-ACK of a repeated SYN gives no RTT sample (Karn).
#[test]
fn an_unanswered_syn_is_resent_with_backoff() {
    let mut c = TcpConfig::profile_defaults(TcpProfile::Ns2_2_26);
    c.variant = TcpVariant::Reno;
    let mut s = sender(&c);
    assert!(s.poll_syn(0));
    assert_eq!(
        s.poll_timeout(),
        Some(millis(6000.0)),
        "ns-2.26 rtxcur_init_ 6 s"
    );
    assert_eq!(
        s.handle_timeout(millis(6000.0)),
        None,
        "a SYN expiry is not a data timeout"
    );
    assert!(s.poll_syn(millis(6000.0)));
    assert_eq!(
        s.poll_timeout(),
        Some(millis(18_000.0)),
        "backed off to 12 s"
    );
    assert_eq!(s.stats.syn_retransmissions, 1);
    let syn_ack = TcpOpts {
        syn: true,
        ..TcpOpts::default()
    };
    s.on_ack_opts(millis(6200.0), 0, RWND, &syn_ack);
    assert!(s.established());
    assert_eq!((s.srtt(), s.stats.rtt_samples), (None, 0));
    assert_eq!(s.stats.timeouts, 0);
}

/// ns-2 up to 2.26 set `dupwnd_` after `dupack_action()` even when the `recover` guard kept
/// it from retransmitting: go-back-N duplicates after an RTO open the window by 3 segments,
/// then one per duplicate, with no cut (fixed in 2003 by `exitFastRetrans_`).
#[test]
fn suppressed_duplicates_inflate_the_window_as_ns2_did() {
    for inflate in [false, true] {
        let mut c = cfg(TcpVariant::Reno, 4);
        c.reno_recover_after_rto = true;
        c.suppressed_dupack_inflation = inflate;
        let mut s = sender(&c);
        send_all(&mut s, 0.0);
        s.handle_timeout(millis(1000.0));
        assert_eq!(send_all(&mut s, 1000.0), vec![0]);
        s.on_ack(millis(1100.0), MSS, RWND);
        // cwnd 2: go-back-N resends 1 and 2, which the receiver held.
        assert_eq!(send_all(&mut s, 1100.0), vec![1, 2]);
        // The new ACK of 4 (CA: cwnd 2.5 segments) sends 4 and 5; then four duplicates of 4.
        let mut extra = Vec::new();
        for k in 0..5 {
            s.on_ack(millis(1200.0 + k as f64), 4 * MSS, RWND);
            extra.extend(send_all(&mut s, 1200.0 + k as f64));
        }
        assert_eq!(s.stats.fast_retransmits, 0, "the guard holds either way");
        if inflate {
            // The third duplicate opens 3 segments (6, 7, 8), the fourth one more (9).
            assert_eq!(extra, vec![4, 5, 6, 7, 8, 9]);
        } else {
            assert_eq!(extra, vec![4, 5]);
        }
        // The next new ACK ends the inflation.
        s.on_ack(millis(1300.0), 5 * MSS, RWND);
        assert_eq!(s.send_window(), s.cwnd());
    }
}

/// ns-2's `slowdown()` at a timeout halves `window()` = min(cwnd_, wnd_), and Reno's cwnd_
/// holds no fast-recovery inflation (`dupwnd_` is separate): an RTO during recovery halves
/// the halved window, not the inflated one.
#[test]
fn an_rto_in_recovery_halves_the_uninflated_window_under_ns2_rules() {
    let mut c = cfg(TcpVariant::Reno, 10);
    c.ssthresh_basis = SsthreshBasisKind::Window;
    let mut s = sender(&c);
    send_all(&mut s, 0.0);
    for k in 0..6 {
        s.on_ack(millis(100.0 + k as f64), 0, RWND);
    }
    // Halved to 5, inflated by 3 + 3 duplicates: cwnd 11 segments.
    assert_eq!((s.ssthresh(), s.cwnd()), (5 * MSS, 11 * MSS));
    let at = s.poll_timeout().unwrap();
    s.handle_timeout(at);
    assert_eq!(s.ssthresh(), 2 * MSS, "⌊5 / 2⌋, not ⌊11 / 2⌋");
}

/// ns-2 cancels the timing at any retransmission and otherwise takes the timed segment's
/// sample, even from an ACK that also covers a repaired hole.
#[test]
fn a_timed_segment_sent_in_recovery_is_sampled_by_the_ack_that_ends_it() {
    let mut c = cfg(TcpVariant::Reno, 10);
    c.rtt_sampling = RttSamplingKind::TimedSegment;
    let mut s = sender(&c);
    send_all(&mut s, 0.0);
    s.on_ack(millis(100.0), MSS, RWND);
    assert_eq!(s.stats.rtt_samples, 1);
    // Slow start sends 10 and 11 (10 is timed); segment 1 was lost: FR cancels the timing.
    send_all(&mut s, 100.0);
    for k in 0..3 {
        s.on_ack(millis(101.0 + k as f64), MSS, RWND);
    }
    send_all(&mut s, 103.0);
    // Inflation by further duplicates releases 12 (the next timed segment) and 13.
    for k in 0..5 {
        s.on_ack(millis(104.0 + k as f64), MSS, RWND);
    }
    assert_eq!(send_all(&mut s, 109.0), vec![12, 13]);
    // One ACK covers the repaired hole at 1 and segment 12: ns-2 takes the sample.
    s.on_ack(millis(209.0), 13 * MSS, RWND);
    assert_eq!(s.stats.rtt_samples, 2);
}
