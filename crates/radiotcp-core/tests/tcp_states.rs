//! TCP sender and receiver, one state at a time, with scripted losses ("drop segment k").
//! Segment index i carries bytes [i*MSS, (i+1)*MSS); MSS = 1000, one-way delay 50 ms.

mod common;

use common::{tcp_config, Harness, MSS};
use radiotcp_core::config::TcpVariant;
use radiotcp_core::engine::millis;
use radiotcp_core::tcp::{ReceiverParams, TcpReceiver};

fn newreno(delack: u32) -> Harness {
    let mut h = Harness::new(&tcp_config(TcpVariant::NewReno, delack), 50.0);
    // 1 ms per segment spreads a window over time, so ACK order is well defined.
    h.per_segment = millis(1.0);
    h
}

/// Arrival time at the sender of the n-th ACK (0-based) carrying `ack`.
fn nth_ack_arrival(h: &Harness, ack: u64, n: usize) -> u64 {
    let sent = h
        .acks
        .iter()
        .filter(|(_, a)| a.ack == ack)
        .nth(n)
        .expect("such an ACK")
        .0;
    sent + h.one_way
}

#[test]
fn slow_start_doubles_cwnd_every_rtt_without_delayed_acks() {
    let mut h = Harness::new(&tcp_config(TcpVariant::NewReno, 1), 50.0);
    h.start();
    h.run_ms(350.0);
    // Rounds of 1, 2, 4, 8 segments at t = 0, 100, 200, 300 ms.
    for (round, n) in [(0u64, 1usize), (1, 2), (2, 4), (3, 8)] {
        let t = millis(100.0 * round as f64);
        assert_eq!(
            h.sent.iter().filter(|(s, _)| *s == t).count(),
            n,
            "round {round}"
        );
    }
    assert_eq!(h.snd().cwnd(), 8 * MSS);
    assert_eq!(h.snd().stats.retransmissions, 0);
    h.assert_no_violations();
}

#[test]
fn receiver_acks_every_second_segment_or_on_timer() {
    let p = ReceiverParams {
        rcv_buf: 65_535,
        window_scaling: false,
        delack_count: 2,
        delack_timeout: millis(200.0),
        sack: false,
        timestamps: false,
        quickack_segments: 0,
    };
    let mut r = TcpReceiver::new(p);
    let a = r.on_segment(0, 0, 1000);
    assert_eq!((a.delivered, a.ack), (1000, None));
    assert_eq!(r.poll_timeout(), Some(millis(200.0)));
    let a = r.on_segment(millis(10.0), 1000, 1000);
    assert_eq!(
        a.ack.map(|a| a.ack),
        Some(2000),
        "second segment is ACKed at once"
    );
    assert_eq!(r.poll_timeout(), None);
    // A lone segment waits for the timer.
    assert_eq!(r.on_segment(millis(20.0), 2000, 1000).ack, None);
    assert_eq!(r.handle_timeout(millis(219.0)), None, "not yet due");
    assert_eq!(r.handle_timeout(millis(220.0)).map(|a| a.ack), Some(3000));
    assert_eq!(r.acks_sent, 2);
}

#[test]
fn receiver_dupacks_out_of_order_and_acks_gap_fill_at_once() {
    let mut r = TcpReceiver::new(ReceiverParams {
        rcv_buf: 65_535,
        window_scaling: false,
        delack_count: 2,
        delack_timeout: millis(200.0),
        sack: false,
        timestamps: false,
        quickack_segments: 0,
    });
    r.on_segment(0, 0, 1000);
    let a = r.on_segment(1, 2000, 1000);
    assert_eq!(a.delivered, 0);
    assert_eq!(a.ack.map(|a| a.ack), Some(1000), "immediate duplicate ACK");
    let a = r.on_segment(2, 4000, 1000);
    assert_eq!(a.ack.map(|a| a.ack), Some(1000));
    assert_eq!(r.ooo_bytes(), 2000);
    // Partial fill: [1000, 2000) joins [2000, 3000); [4000, 5000) is still held.
    let a = r.on_segment(3, 1000, 1000);
    assert_eq!((a.delivered, a.ack.map(|a| a.ack)), (2000, Some(3000)));
    let a = r.on_segment(4, 3000, 1000);
    assert_eq!((a.delivered, a.ack.map(|a| a.ack)), (2000, Some(5000)));
    assert_eq!(r.ooo_bytes(), 0);
    // A duplicate of old data is re-ACKed at once and delivers nothing.
    let a = r.on_segment(5, 1000, 1000);
    assert_eq!((a.delivered, a.ack.map(|a| a.ack)), (0, Some(5000)));
}

#[test]
fn drop_segment_10_fast_retransmit_on_third_dupack() {
    let mut h = newreno(1).drop_segments(&[10]);
    h.start();
    h.run_ms(2000.0);
    let sends = h.sends_of(10);
    assert_eq!(sends.len(), 2, "original and one fast retransmission");
    // Dupacks: the first ACK for 10000 is the new ACK of segment 9, then three duplicates.
    assert_eq!(sends[1], nth_ack_arrival(&h, 10 * MSS, 3));
    // RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 SMSS) at the third dupack.
    let highest_before = h
        .sent
        .iter()
        .filter(|(t, _)| *t < sends[1])
        .map(|(_, s)| s.seq + s.len as u64)
        .max()
        .unwrap();
    let flight = highest_before - 10 * MSS;
    assert_eq!(h.snd().ssthresh(), (flight / 2).max(2 * MSS));
    let s = &h.snd().stats;
    assert_eq!(
        (s.fast_retransmits, s.timeouts, s.retransmissions),
        (1, 0, 1)
    );
    assert!(!h.snd().in_recovery());
    assert_eq!(h.delivered(), h.rcv().rcv_nxt());
    h.assert_no_violations();
}

#[test]
fn full_ack_deflates_cwnd_to_ssthresh() {
    let mut h = newreno(1).drop_segments(&[10]);
    h.start();
    // Run to just after the retransmission's ACK (full ACK) arrives.
    h.run_ms(10.0);
    let mut exit_seen = false;
    let mut t = 10.0;
    while t < 2000.0 {
        let was = h.snd().in_recovery();
        h.run_ms(t);
        if was && !h.snd().in_recovery() {
            // Congestion avoidance may already have added at most one increment since.
            let c = h.snd().cwnd();
            let ss = h.snd().ssthresh();
            assert!(c >= ss && c <= ss + MSS, "cwnd {c} ssthresh {ss}");
            exit_seen = true;
            break;
        }
        t += 0.5;
    }
    assert!(exit_seen);
}

#[test]
fn drop_an_ack_cumulative_acks_cover_it() {
    let mut h = newreno(2);
    h.drop_ack = Box::new(|i, _| i == 3 || i == 7);
    h.start();
    h.run_ms(3000.0);
    let s = &h.snd().stats;
    assert_eq!(
        (s.retransmissions, s.timeouts, s.fast_retransmits),
        (0, 0, 0)
    );
    assert!(h.delivered() > 50 * MSS);
    h.assert_no_violations();
}

#[test]
fn lost_retransmission_leads_to_rto_then_backoff() {
    let mut h = newreno(1);
    // Segment 10: original and fast retransmission lost, the RTO retransmission survives.
    h.drop_data = Box::new(|s, n| s.seq == 10 * MSS && n <= 2);
    h.start();
    h.run_ms(5000.0);
    let sends = h.sends_of(10);
    assert_eq!(sends.len(), 3);
    assert_eq!(h.snd().stats.timeouts, 1);
    assert_eq!(h.snd().stats.fast_retransmits, 1);
    // No ACK advanced after the fast retransmission, so the RTO (1 s minimum) runs from the
    // last new ACK (segment 9's).
    let last_new_ack = nth_ack_arrival(&h, 10 * MSS, 0);
    assert_eq!(sends[2] - last_new_ack, millis(1000.0));
    h.assert_no_violations();
}

#[test]
fn rto_backoff_doubles_and_karn_keeps_it_until_a_valid_sample() {
    let mut h = newreno(1);
    // Segment 10 lost three times: fast retransmit, then two RTOs.
    h.drop_data = Box::new(|s, n| s.seq == 10 * MSS && n <= 3);
    h.start();
    h.run_ms(6000.0);
    let sends = h.sends_of(10);
    assert_eq!(sends.len(), 4);
    assert_eq!(h.snd().stats.timeouts, 2);
    assert_eq!(
        sends[3] - sends[2],
        millis(2000.0),
        "second RTO after a doubled timer"
    );
    // Replay to look at the state between the expiries.
    let mut h2 = newreno(1);
    h2.drop_data = Box::new(|s, n| s.seq == 10 * MSS && n <= 3);
    h2.start();
    h2.run_ms(millis_to_ms(sends[2]) + 1.0);
    let ss_after_first_rto = h2.snd().ssthresh();
    assert_eq!(h2.snd().rto(), millis(2000.0));
    h2.run_ms(millis_to_ms(sends[3]) + 1.0);
    // RFC 5681 §3.1: a repeated expiry for the same segment holds ssthresh.
    assert_eq!(
        h2.snd().ssthresh(),
        ss_after_first_rto,
        "held on the repeated RTO"
    );
    assert_eq!(h2.snd().rto(), millis(4000.0));
    // The ACK of the retransmitted segment gives no sample (Karn): RTO stays backed off.
    h2.run_ms(millis_to_ms(sends[3]) + 150.0);
    assert_eq!(h2.snd().rto(), millis(4000.0));
    // New data sent after it is timed normally and resets the RTO to SRTT + 4 RTTVAR, >= 1 s.
    h2.run_ms(millis_to_ms(sends[3]) + 400.0);
    assert_eq!(h2.snd().rto(), millis(1000.0));
    h2.assert_no_violations();
}

fn millis_to_ms(t: u64) -> f64 {
    t as f64 / 1e6
}

#[test]
fn first_segment_lost_uses_initial_rto() {
    let mut h = newreno(2).drop_segments(&[0]);
    h.start();
    // Retransmitted at 1 s, delivered at 1.05 s, delayed ACK at 1.25 s, back at 1.30 s.
    h.run_ms(1380.0);
    assert_eq!(h.sends_of(0), vec![0, millis(1000.0)]);
    assert_eq!(h.snd().stats.timeouts, 1);
    assert_eq!(
        h.snd().cwnd(),
        2 * MSS,
        "loss window 1 MSS, +1 MSS on the ACK"
    );
    assert_eq!(h.snd().ssthresh(), 2 * MSS, "max(FlightSize / 2, 2 SMSS)");
    // From here cwnd >= ssthresh: congestion avoidance adds MSS^2 / cwnd per ACK.
    h.run_ms(1420.0);
    assert_eq!(h.snd().cwnd(), 2 * MSS + MSS / 2);
}

#[test]
fn newreno_partial_ack_retransmits_next_hole_without_timeout() {
    let mut h = newreno(1).drop_segments(&[10, 12]);
    h.start();
    h.run_ms(3000.0);
    let s = &h.snd().stats;
    assert_eq!(
        (s.fast_retransmits, s.timeouts, s.retransmissions),
        (1, 0, 2)
    );
    // The retransmission of 12 goes out when the ACK for the retransmitted 10 (a partial ACK,
    // 12000 < recover) arrives.
    let retx12 = h.sends_of(12)[1];
    assert_eq!(retx12, nth_ack_arrival(&h, 12 * MSS, 0));
    assert!(!h.snd().in_recovery());
    h.assert_no_violations();
}

#[test]
fn reno_needs_more_than_one_recovery_for_two_losses_in_a_window() {
    let mut h = Harness::new(&tcp_config(TcpVariant::Reno, 1), 50.0);
    h.per_segment = millis(1.0);
    h.drop_data = Box::new(|s, n| n == 1 && (s.seq == 10 * MSS || s.seq == 12 * MSS));
    h.start();
    h.run_ms(5000.0);
    let s = &h.snd().stats;
    // RFC 5681 §3.2 step 6: Reno leaves fast recovery on the first ACK of new data (here the
    // partial ACK 12 * MSS), so the second hole needs its own three duplicates, a second fast
    // retransmit and a second halving; NewReno (the test above) repairs both in one recovery.
    assert_eq!(
        (
            s.retransmissions,
            s.fast_retransmits,
            s.timeouts,
            s.cwnd_reductions
        ),
        (2, 2, 0, 2),
        "{s:?}"
    );
    // Segment 12 is not retransmitted on the partial ACK, but on the third duplicate of it.
    let retx12 = h.sends_of(12)[1];
    assert!(retx12 > nth_ack_arrival(&h, 12 * MSS, 0));
    assert_eq!(retx12, nth_ack_arrival(&h, 12 * MSS, 3));
    assert_eq!(h.delivered(), h.rcv().rcv_nxt());
    h.assert_no_violations();
}

/// RFC 6582 §3.2 step 2: after an RTO, `recover` = the highest byte sent; duplicate ACKs that do
/// not cover more than it (go-back-N copies of data the receiver already had) must not start a
/// fast retransmit, while duplicates beyond it may.
#[test]
fn newreno_no_fast_retransmit_for_dupacks_not_beyond_recover() {
    use radiotcp_core::tcp::TcpSender;
    let mut cfg = tcp_config(TcpVariant::NewReno, 1);
    cfg.initial_window_segments = 4;
    let mut s = TcpSender::new(radiotcp_core::config::sender_params(&cfg));
    s.start();
    let first: Vec<_> = std::iter::from_fn(|| s.poll_transmit(0)).collect();
    assert_eq!(first.len(), 4);
    s.handle_timeout(millis(1000.0));
    assert_eq!(s.poll_transmit(millis(1000.0)).map(|g| g.seq), Some(0));
    // The receiver held segments 1-3: the retransmission is acknowledged up to HighTx.
    s.on_ack(millis(1100.0), 4 * MSS, 65_535);
    let new: Vec<_> = std::iter::from_fn(|| s.poll_transmit(millis(1100.0))).collect();
    assert_eq!(new.len(), 2, "cwnd 2 MSS after the ACK");
    for _ in 0..3 {
        s.on_ack(millis(1150.0), 4 * MSS, 65_535);
    }
    assert_eq!(
        s.stats.fast_retransmits, 0,
        "ack == recover does not cover more than it"
    );
    assert!(!s.in_recovery());
    // An ACK beyond recover, then three duplicates of it: a genuine new loss.
    s.on_ack(millis(1200.0), 5 * MSS, 65_535);
    while s.poll_transmit(millis(1200.0)).is_some() {}
    for _ in 0..3 {
        s.on_ack(millis(1250.0), 5 * MSS, 65_535);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(
        s.poll_transmit(millis(1250.0)).map(|g| g.seq),
        Some(5 * MSS)
    );
}

/// Karn (RFC 6298 §3): the ACK that ends a recovery covers the retransmitted hole and originals
/// sent RTTs earlier; it must not be taken as an RTT sample, nor may partial ACKs.
#[test]
fn no_rtt_sample_from_acks_covering_a_retransmission() {
    // Minimum RTO 1 s so that the four-hole recovery (about 4 RTTs) ends without a timeout.
    let cfg = tcp_config(TcpVariant::NewReno, 1);
    let mut h = Harness::new(&cfg, 50.0);
    h.per_segment = millis(1.0);
    h.drop_data = Box::new(|s, n| n == 1 && [20, 22, 24, 26].contains(&(s.seq / MSS)));
    h.start();
    h.run_ms(560.0);
    let srtt_before = h.snd().srtt().unwrap();
    assert!(h.snd().in_recovery() || h.snd().stats.fast_retransmits == 1);
    // Through the partial ACKs (one per hole, an RTT apart) to the full ACK.
    h.run_ms(950.0);
    assert_eq!(h.snd().stats.fast_retransmits, 1);
    assert_eq!(h.snd().stats.timeouts, 0);
    let srtt_after = h.snd().srtt().unwrap();
    // New data sent in recovery may give samples of about one RTT plus queueing, never the
    // multi-RTT spans between originals and their partial ACKs.
    assert!(
        srtt_after < srtt_before + millis(40.0),
        "SRTT {srtt_before} -> {srtt_after} ns"
    );
}

/// A fast retransmission that is still pending when a new ACK moves SND.UNA must not go out
/// for the old hole (sans-IO callers may deliver several ACKs before polling).
#[test]
fn pending_retransmission_is_dropped_when_snd_una_advances() {
    use radiotcp_core::tcp::TcpSender;
    let mut cfg = tcp_config(TcpVariant::NewReno, 1);
    cfg.initial_window_segments = 4;
    let mut s = TcpSender::new(radiotcp_core::config::sender_params(&cfg));
    s.set_app_limit(4 * MSS);
    s.start();
    while s.poll_transmit(0).is_some() {}
    for _ in 0..3 {
        s.on_ack(millis(100.0), 0, 65_535);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    s.on_ack(millis(101.0), 4 * MSS, 65_535);
    assert_eq!(s.poll_transmit(millis(101.0)), None);
    assert!(s.is_done());
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn advertised_window_is_capped_at_64k_without_window_scaling() {
    for (scaling, expected) in [(false, 65_535), (true, 548_864)] {
        let mut r = TcpReceiver::new(ReceiverParams {
            rcv_buf: 548_864,
            window_scaling: scaling,
            delack_count: 1,
            delack_timeout: millis(100.0),
            sack: false,
            timestamps: false,
            quickack_segments: 0,
        });
        let a = r.on_segment(0, 0, 536).ack.expect("an ACK per segment");
        assert_eq!(a.rwnd, expected);
    }
}

#[test]
fn awnd_segments_sets_the_receive_buffer_in_segments() {
    let mut c = radiotcp_core::config::TcpConfig {
        packet_size_bytes: 576,
        header_bytes: 40,
        ..Default::default()
    };
    assert_eq!(c.receive_buffer_bytes(), c.rwnd_bytes);
    c.awnd_segments = Some(14);
    assert_eq!(c.receive_buffer_bytes(), 14 * 536);
    assert_eq!(radiotcp_core::config::receiver_params(&c).rcv_buf, 14 * 536);
}
