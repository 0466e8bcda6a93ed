//! SACK (RFC 2018), SACK-based loss recovery (RFC 6675), PRR (RFC 6937) and timestamps
//! (RFC 7323): the receiver's blocks and echoes, then one scripted case per sender rule,
//! driving a `TcpSender` directly (MSS = 1000, ACKs fed by hand, times in ms), and property
//! tests of whole transfers over a lossy, reordering link.

mod common;

use std::collections::HashSet;

use common::{tcp_config, Harness, MSS};
use proptest::prelude::*;
use radiotcp_core::config::{
    sender_params, CongestionControlKind, DelayProcessKind, TcpConfig, TcpVariant,
    VariableDelayConfig,
};
use radiotcp_core::engine::{millis, Time};
use radiotcp_core::packet::TcpOpts;
use radiotcp_core::tcp::{ReceiverParams, TcpReceiver, TcpSender};

const RWND: u32 = 1 << 20;

fn sack_cfg(iw: u32) -> TcpConfig {
    let mut c = tcp_config(TcpVariant::Sack, 1);
    c.initial_window_segments = iw;
    c.rwnd_bytes = RWND;
    c.window_scaling = true;
    c
}

fn sender(cfg: &TcpConfig) -> TcpSender {
    let mut s = TcpSender::new(sender_params(cfg));
    s.start();
    s
}

/// Everything the window allows at `t_ms`, as (segment index, retransmission) pairs.
fn send_all(s: &mut TcpSender, t_ms: f64) -> Vec<(u64, bool)> {
    std::iter::from_fn(|| s.poll_transmit(millis(t_ms)))
        .map(|g| (g.seq / MSS, g.retransmission))
        .collect()
}

fn indices(v: &[(u64, bool)]) -> Vec<u64> {
    v.iter().map(|x| x.0).collect()
}

/// An ACK of segment index `ack` with SACK blocks given as segment index ranges, newest first.
fn ack(s: &mut TcpSender, t_ms: f64, ack: u64, blocks: &[(u64, u64)]) {
    let mut o = TcpOpts::default();
    for (k, &(a, b)) in blocks.iter().enumerate() {
        o.sack[k] = (((a - ack) * MSS) as u32, ((b - ack) * MSS) as u32);
    }
    o.nsack = blocks.len() as u8;
    s.on_ack_opts(millis(t_ms), ack * MSS, RWND, &o);
}

fn receiver(sack: bool, ts: bool) -> TcpReceiver {
    TcpReceiver::new(ReceiverParams {
        rcv_buf: RWND,
        window_scaling: true,
        delack_count: 2,
        delack_timeout: millis(200.0),
        sack,
        timestamps: ts,
        quickack_segments: 0,
    })
}

fn blocks(o: &TcpOpts, ack: u64) -> Vec<(u64, u64)> {
    o.sack_blocks(ack)
        .map(|(a, b)| (a / MSS, b / MSS))
        .collect()
}

/// RFC 2018 §4: the first block holds the segment that triggered the ACK, the others repeat
/// the most recently reported blocks, at most three, and a block leaves once delivered.
#[test]
fn receiver_reports_the_newest_block_first_then_the_recent_ones() {
    let mut r = receiver(true, false);
    let seg = |r: &mut TcpReceiver, i: u64| r.on_segment(i, i * MSS, MSS as u32).ack;
    seg(&mut r, 0);
    assert!(seg(&mut r, 2).is_some_and(|a| blocks(&a.opt, a.ack) == vec![(2, 3)]));
    let a = seg(&mut r, 4).unwrap();
    assert_eq!(blocks(&a.opt, a.ack), vec![(4, 5), (2, 3)]);
    let a = seg(&mut r, 6).unwrap();
    assert_eq!(blocks(&a.opt, a.ack), vec![(6, 7), (4, 5), (2, 3)]);
    let a = seg(&mut r, 8).unwrap();
    assert_eq!(a.ack, MSS);
    assert_eq!(
        blocks(&a.opt, a.ack),
        vec![(8, 9), (6, 7), (4, 5)],
        "three at most"
    );
    // A segment joining two blocks: the merged block comes first, once.
    let a = seg(&mut r, 5).unwrap();
    assert_eq!(blocks(&a.opt, a.ack), vec![(4, 7), (8, 9), (2, 3)]);
    // The hole at 1 filled: 1..3 delivered, the block [2, 3) is gone from the reports.
    let a = seg(&mut r, 1).unwrap();
    assert_eq!(a.ack, 3 * MSS);
    assert_eq!(blocks(&a.opt, a.ack), vec![(4, 7), (8, 9)]);
    // No blocks once nothing is held out of order.
    seg(&mut r, 3);
    let a = seg(&mut r, 7).unwrap();
    assert_eq!((a.ack, a.opt.nsack), (9 * MSS, 0));
    assert_eq!(a.opt.sack_option_bytes(), 0);
}

#[test]
fn a_receiver_without_sack_sends_no_blocks() {
    let mut r = receiver(false, false);
    r.on_segment(0, 0, MSS as u32);
    let a = r.on_segment(1, 2 * MSS, MSS as u32).ack.unwrap();
    assert_eq!(a.opt.nsack, 0);
}

/// RFC 7323 §4.3: a delayed ACK echoes the earliest unacknowledged segment; duplicate ACKs
/// echo the last in-order segment (out-of-order TSvals are not taken); the segment that fills
/// the hole sets TS.Recent.
#[test]
fn timestamps_echo_follows_rfc7323_rules() {
    let mut r = receiver(true, true);
    let seg = |r: &mut TcpReceiver, i: u64, tsval: u32| {
        r.on_segment_ts(i, i * MSS, MSS as u32, Some(tsval)).ack
    };
    assert!(seg(&mut r, 0, 100).is_none(), "delayed");
    let a = seg(&mut r, 1, 101).unwrap();
    assert_eq!((a.ack, a.opt.ts, a.opt.ts_ecr), (2 * MSS, true, 100));
    // Segment 2 lost; 3 and 4 arrive out of order: their TSvals are not echoed.
    let a = seg(&mut r, 3, 103).unwrap();
    assert_eq!(a.opt.ts_ecr, 100);
    let a = seg(&mut r, 4, 104).unwrap();
    assert_eq!(a.opt.ts_ecr, 100);
    // The retransmission of 2 (sent later, TSval 150) fills the hole: it is echoed.
    let a = seg(&mut r, 2, 150).unwrap();
    assert_eq!((a.ack, a.opt.ts_ecr), (5 * MSS, 150));
}

/// RFC 6675 §5: three duplicates with new SACK information start recovery: RecoveryPoint =
/// HighData, ssthresh = cwnd = FlightSize / 2, the segment at HighACK is retransmitted.
#[test]
fn three_sack_duplicates_start_recovery_at_half_the_flight() {
    let mut s = sender(&sack_cfg(10));
    assert_eq!(indices(&send_all(&mut s, 0.0)), (0..10).collect::<Vec<_>>());
    // Segment 2 lost. ACKs of 0 and 1 clock out 10 and 11 (slow start: cwnd 12).
    ack(&mut s, 100.0, 1, &[]);
    ack(&mut s, 101.0, 2, &[]);
    assert_eq!(indices(&send_all(&mut s, 101.0)), vec![10, 11, 12, 13]);
    // Duplicates of 2 SACKing 3, 3-4: pipe shrinks, new data may go (step 3: the flight in
    // the network is what is not SACKed).
    ack(&mut s, 102.0, 2, &[(3, 4)]);
    assert_eq!(indices(&send_all(&mut s, 102.0)), vec![14]);
    ack(&mut s, 103.0, 2, &[(3, 5)]);
    assert_eq!(indices(&send_all(&mut s, 103.0)), vec![15]);
    assert_eq!(s.stats.fast_retransmits, 0);
    ack(&mut s, 104.0, 2, &[(3, 6)]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert!(s.in_recovery());
    // FlightSize 16 - 2 = 14 segments less the two sent on the duplicates (RFC 5681 §3.2
    // step 2 leaves Limited Transmit out): ssthresh = cwnd = 6.
    assert_eq!((s.ssthresh(), s.cwnd()), (6 * MSS, 6 * MSS));
    // The retransmission of 2 goes out first; pipe is then the 10 segments 6..15 plus the
    // retransmission, above cwnd: nothing more.
    assert_eq!(s.pipe(), 10 * MSS);
    assert_eq!(send_all(&mut s, 104.0), vec![(2, true)]);
    assert_eq!(s.pipe(), 11 * MSS);
}

/// IsLost: an ACK that SACKs more than two segments above the hole starts recovery at the
/// first duplicate (RFC 6675 §5 step 2), as with ACKs thinned by an ACK filter.
#[test]
fn is_lost_starts_recovery_before_three_duplicates() {
    let mut s = sender(&sack_cfg(10));
    send_all(&mut s, 0.0);
    ack(&mut s, 100.0, 1, &[(2, 5)]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(send_all(&mut s, 100.0).first(), Some(&(1, true)));
}

/// Two holes in one window: NextSeg rule 1 retransmits the second as soon as IsLost holds for
/// it, without a timeout and without waiting for a partial ACK.
#[test]
fn a_second_hole_is_retransmitted_by_next_seg_rule_1() {
    let mut s = sender(&sack_cfg(20));
    send_all(&mut s, 0.0);
    // Segments 0 and 5 lost: SACKs arrive for 1.., then for 6...
    for (k, top) in (2..=4).enumerate() {
        ack(&mut s, 100.0 + k as f64, 0, &[(1, top)]);
    }
    assert!(s.in_recovery());
    let first = send_all(&mut s, 103.0);
    assert_eq!(first.first(), Some(&(0, true)));
    // 1..5 and 6..9 SACKed: 5 has 3 segments SACKed above it and is lost.
    ack(&mut s, 104.0, 0, &[(6, 7), (1, 5)]);
    ack(&mut s, 105.0, 0, &[(6, 8), (1, 5)]);
    ack(&mut s, 106.0, 0, &[(6, 9), (1, 5)]);
    let out: Vec<(u64, bool)> = (0..8)
        .flat_map(|k| {
            ack(&mut s, 107.0 + k as f64, 0, &[(6, 10 + k), (1, 5)]);
            send_all(&mut s, 107.0 + k as f64)
        })
        .collect();
    assert!(out.contains(&(5, true)), "{out:?}");
    assert_eq!(
        out.iter().filter(|x| x.1).count(),
        1,
        "only 5 is retransmitted"
    );
    assert_eq!(s.stats.timeouts, 0);
    // The retransmission of 0 acknowledged: up to 5; of 5: up to 20 - recovery ends.
    ack(&mut s, 120.0, 5, &[(6, 20)]);
    assert!(s.in_recovery());
    ack(&mut s, 121.0, 20, &[]);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), s.ssthresh());
}

/// NextSeg rule 4: when the tail of a finite transfer is lost and there is nothing new to
/// send, one rescue retransmission of the highest unSACKed segment per recovery, once HighACK
/// passes RescueRxt, instead of a timeout.
#[test]
fn rescue_retransmission_repairs_a_lost_tail() {
    let mut s = sender(&sack_cfg(10));
    s.set_app_limit(10 * MSS);
    send_all(&mut s, 0.0);
    // Segments 0 and 9 lost; 1..7 SACKed by five duplicates: recovery at the third.
    for top in 2..=8 {
        ack(&mut s, 100.0 + top as f64, 0, &[(1, top)]);
    }
    assert!(s.in_recovery());
    // The retransmission of 0, then nothing: rules 1-3 find no octet above HighRxt below the
    // highest SACKed one, and HighACK (0) is not above RescueRxt (1, set at entry).
    assert_eq!(send_all(&mut s, 110.0), vec![(0, true)]);
    ack(&mut s, 120.0, 0, &[(1, 9)]);
    assert!(send_all(&mut s, 120.0).is_empty());
    // The retransmission of 0 acknowledged (a partial ACK, up to the hole at 9): rule 4.
    ack(&mut s, 130.0, 9, &[]);
    assert_eq!(send_all(&mut s, 130.0), vec![(9, true)]);
    assert_eq!(s.stats.rescue_retransmissions, 1);
    assert!(
        send_all(&mut s, 131.0).is_empty(),
        "one rescue per recovery"
    );
    ack(&mut s, 140.0, 10, &[]);
    assert!(s.is_done() && !s.in_recovery());
    assert_eq!(s.stats.timeouts, 0);
}

/// RFC 6937: while pipe > ssthresh, PRR keeps what recovery sent at ceil(prr_delivered ·
/// ssthresh / RecoverFS), one segment now and then rather than nothing and then a burst;
/// RFC 6675 alone (cwnd = ssthresh at once) sends nothing until pipe falls below ssthresh.
#[test]
fn prr_spreads_the_reduction_over_the_recovery() {
    let run = |prr: bool| {
        let mut c = sack_cfg(20);
        c.prr = prr;
        let mut s = sender(&c);
        send_all(&mut s, 0.0);
        // Segment 0 lost; each duplicate SACKs one more segment. The first two clock out
        // segments 20 and 21 (the SACK form of Limited Transmit).
        let mut per_ack = Vec::new();
        let mut pipe_before = Vec::new();
        for k in 1..20u64 {
            ack(&mut s, 100.0 + k as f64, 0, &[(1, k + 1)]);
            pipe_before.push(s.pipe());
            per_ack.push(send_all(&mut s, 100.0 + k as f64).len());
        }
        (s, per_ack, pipe_before)
    };
    let (s, per_ack, pipe_before) = run(true);
    assert_eq!(&per_ack[..2], &[1, 1]);
    assert!(s.in_recovery());
    // FlightSize 20 (the two Limited Transmit segments left out): ssthresh 10; RecoverFS =
    // SND.NXT - SND.UNA = 22. From the third duplicate on each ACK delivers one segment.
    assert_eq!(s.ssthresh(), 10 * MSS);
    let mut sent = 0;
    for (i, (&n, &pipe)) in per_ack.iter().zip(&pipe_before).enumerate().skip(2) {
        sent += n as u64;
        let delivered = i as u64 - 1;
        if pipe > s.ssthresh() {
            assert_eq!(sent, (delivered * 10).div_ceil(22), "ACK {i}: {per_ack:?}");
        }
        assert!(n <= 1, "one segment at a time: {per_ack:?}");
    }
    assert!(sent >= 7, "{per_ack:?}");
    // RFC 6675 without PRR: pipe starts at 19 segments against cwnd 10, so only the
    // retransmission goes until nine more segments have been SACKed.
    let (mut plain, per_ack_plain, _) = run(false);
    let first_new = per_ack_plain[3..]
        .iter()
        .position(|&n| n > 0)
        .map(|i| i + 3);
    let first_new_prr = per_ack[3..].iter().position(|&n| n > 0).map(|i| i + 3);
    assert!(
        first_new_prr < first_new,
        "{per_ack:?} vs {per_ack_plain:?}"
    );
    ack(&mut plain, 200.0, 30, &[]);
    assert!(!plain.in_recovery());
    assert_eq!(plain.cwnd(), plain.ssthresh());
}

/// After an RTO the scoreboard is kept: go-back-N retransmits only what was not SACKed, and
/// no SACK recovery starts before RecoveryPoint is acknowledged (RFC 6675 §5.1), even when
/// IsLost holds.
#[test]
fn go_back_n_after_a_timeout_skips_sacked_segments() {
    let mut s = sender(&sack_cfg(8));
    send_all(&mut s, 0.0);
    // 0 and 1 lost; 2 and 3 SACKed (two: not enough for IsLost), then silence.
    ack(&mut s, 100.0, 0, &[(2, 3)]);
    ack(&mut s, 101.0, 0, &[(2, 4)]);
    assert!(!s.in_recovery());
    let rto_at: Time = s.poll_timeout().unwrap();
    assert!(s.handle_timeout(rto_at).is_some());
    let t = rto_at as f64 / 1e6;
    // cwnd = 1 MSS: segment 0 only.
    assert_eq!(send_all(&mut s, t), vec![(0, true)]);
    // 0 arrives; meanwhile the originals 4..7 arrived too: six segments SACKed above the hole
    // at 1, which IsLost calls lost, but the RTO's RecoveryPoint (8) bars a new recovery.
    ack(&mut s, t + 100.0, 1, &[(2, 8)]);
    assert_eq!(s.stats.fast_retransmits, 0);
    assert!(!s.in_recovery());
    // cwnd 2: segment 1, then new data (2..7 are held by the receiver).
    assert_eq!(send_all(&mut s, t + 100.0), vec![(1, true), (8, false)]);
    ack(&mut s, t + 200.0, 9, &[]);
    assert_eq!(s.stats.retransmissions, 2, "2..7 never resent");
}

/// With timestamps an ACK covering a retransmission is still timed, from its TSecr (RFC 7323
/// §4.1; Linux's fallback); without them Karn's rule skips it.
#[test]
fn timestamps_time_acks_that_cover_retransmissions() {
    for ts in [false, true] {
        let mut c = sack_cfg(4);
        c.timestamps = ts;
        c.header_bytes = 52;
        c.packet_size_bytes = 1052;
        c.ack_size_bytes = 52;
        let mut s = sender(&c);
        send_all(&mut s, 0.0);
        let rto_at = s.poll_timeout().unwrap();
        s.handle_timeout(rto_at);
        let t = rto_at as f64 / 1e6;
        send_all(&mut s, t);
        let samples = s.stats.rtt_samples;
        // The ACK echoes the TSval of the retransmission (1 ms clock): a 50 ms RTT.
        let mut o = TcpOpts {
            ts: true,
            ts_ecr: (rto_at / 1_000_000) as u32,
            ..TcpOpts::default()
        };
        o.nsack = 0;
        s.on_ack_opts(rto_at + millis(50.0), MSS, RWND, &o);
        if ts {
            assert_eq!(s.stats.rtt_samples, samples + 1);
            assert_eq!(s.srtt(), Some(millis(50.0)));
        } else {
            assert_eq!(s.stats.rtt_samples, samples);
        }
    }
}

fn run_transfer(
    cfg: &TcpConfig,
    data_losses: HashSet<(u64, u32)>,
    ack_losses: HashSet<u64>,
    reorder: bool,
    tail: u32,
) -> Harness {
    let mut h = Harness::new(cfg, 20.0);
    h.per_segment = millis(2.0);
    if reorder {
        // Per-packet delay U(10, 30) ms, not FIFO: segments overtake each other.
        h.variable_delay = Some(VariableDelayConfig {
            process: DelayProcessKind::Uniform,
            mean_ms: 20.0,
            half_width_ms: 10.0,
            fifo: false,
            ..VariableDelayConfig::default()
        });
    }
    let bytes = SEGMENTS * MSS + tail as u64;
    h.set_app_limit(bytes);
    h.drop_data = Box::new(move |s, n| data_losses.contains(&(s.seq / MSS, n)));
    h.drop_ack = Box::new(move |i, _| ack_losses.contains(&i));
    h.start();
    h.run_ms(3_600_000.0);
    h
}

const SEGMENTS: u64 = 300;

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Whatever is lost (originals, retransmissions, ACKs) and however the link reorders,
    /// every byte is delivered exactly once and in order, for SACK with and without PRR and
    /// timestamps, under Reno and CUBIC window arithmetic.
    #[test]
    fn sack_delivers_every_byte_once_in_order(
        prr in any::<bool>(),
        ts in any::<bool>(),
        cubic in any::<bool>(),
        delack in 1u32..3,
        reorder in any::<bool>(),
        data_losses in prop::collection::hash_set((0..SEGMENTS + 1, 1u32..4), 0..40),
        ack_losses in prop::collection::hash_set(0u64..400, 0..40),
        tail in 0u32..1000,
    ) {
        let mut c = sack_cfg(2);
        c.delack_count = delack;
        c.prr = prr;
        if ts {
            c.timestamps = true;
            c.header_bytes = 52;
            c.packet_size_bytes = 1052;
            c.ack_size_bytes = 52;
        }
        if cubic {
            c.congestion_control = CongestionControlKind::Cubic;
        }
        let h = run_transfer(&c, data_losses, ack_losses, reorder, tail);
        let bytes = SEGMENTS * MSS + tail as u64;
        prop_assert_eq!(h.delivered(), bytes);
        prop_assert_eq!(h.rcv().ooo_bytes(), 0);
        prop_assert!(h.snd().is_done());
        prop_assert!(h.snd().poll_timeout().is_none(), "timer left running");
        prop_assert!(h.violations.is_empty(), "{:?}", h.violations);
        prop_assert!(h.sent.iter().all(|(_, s)| s.seq + s.len as u64 <= bytes));
    }
}

/// RFC 6675 §2: only an ACK with new SACK information is a duplicate. ACKs at SND.UNA with no
/// blocks (the receiver re-acknowledging old copies after go-back-N) start no recovery.
#[test]
fn acks_without_new_sack_information_are_not_duplicates() {
    let mut s = sender(&sack_cfg(8));
    send_all(&mut s, 0.0);
    for k in 0..4 {
        ack(&mut s, 100.0 + k as f64, 0, &[]);
    }
    assert_eq!(s.stats.fast_retransmits, 0);
    // The same block again is no new information either.
    ack(&mut s, 110.0, 0, &[(2, 3)]);
    ack(&mut s, 111.0, 0, &[(2, 3)]);
    ack(&mut s, 112.0, 0, &[(2, 3)]);
    assert_eq!(s.stats.fast_retransmits, 0);
}

/// When the cumulative ACK passes data SACKed earlier, only what the ACK newly delivered
/// counts for window growth (with no per-ACK limit, as Linux): after an RTO, the ACK of the
/// repaired hole below a SACKed window opens cwnd by the hole, not by the window.
#[test]
fn sacked_octets_count_once_for_window_growth() {
    let mut c = sack_cfg(10);
    c.abc_limit_segments = 0;
    let mut s = sender(&c);
    send_all(&mut s, 0.0);
    // Segment 0 lost, 1 and 2 SACKed, then silence until the RTO.
    ack(&mut s, 100.0, 0, &[(1, 2)]);
    ack(&mut s, 101.0, 0, &[(1, 3)]);
    let rto = s.poll_timeout().unwrap();
    s.handle_timeout(rto);
    let t = rto as f64 / 1e6;
    assert_eq!(send_all(&mut s, t), vec![(0, true)]);
    // Meanwhile 3..9 arrived: SACKed by an ACK still below 1.
    ack(&mut s, t + 1.0, 0, &[(1, 10)]);
    assert_eq!(s.cwnd(), MSS);
    // The retransmission of 0 fills the hole: one ACK covers 0..9, of which only 0 is new.
    ack(&mut s, t + 100.0, 10, &[]);
    assert_eq!(s.cwnd(), 2 * MSS);
}

/// A timeout during a SACK recovery keeps the ssthresh the recovery set (FlightSize then
/// includes the recovery's own transmissions).
#[test]
fn a_timeout_in_sack_recovery_keeps_its_ssthresh() {
    let mut s = sender(&sack_cfg(20));
    send_all(&mut s, 0.0);
    for k in 1..=3u64 {
        ack(&mut s, 100.0 + k as f64, 0, &[(1, 1 + k)]);
    }
    assert!(s.in_recovery());
    let ssthresh = s.ssthresh();
    // The recovery sends new data as SACKs arrive, then everything stalls.
    for k in 4..=15u64 {
        ack(&mut s, 100.0 + k as f64, 0, &[(1, 1 + k)]);
        send_all(&mut s, 100.0 + k as f64);
    }
    let rto = s.poll_timeout().unwrap();
    s.handle_timeout(rto);
    assert_eq!(s.ssthresh(), ssthresh);
    assert_eq!(s.cwnd(), MSS);
}
