//! Exact counts from deterministic runs through the real wiring (`radiotcp_core::run`): the
//! wired-384k preset with one flow, no random loss and no start jitter, so nothing depends on
//! the seed. The numbers were computed once; each test says why they are what they are, and a
//! change in any of them means the wiring (links, queues, routes, hosts, timers) behaves
//! differently, not that a tolerance was missed.

use radiotcp_core::config::ScenarioConfig;
use radiotcp_core::{run, RunOptions, RunResult};

/// The preset's MSS: 1500-byte packets, 40 bytes of headers.
const MSS: u64 = 1460;

/// wired-384k, one flow (NewReno, delayed ACKs every second segment, 64 KB receive window),
/// 60 s, with `limit` packets of buffer at the 384 kb/s access link.
fn preset(limit: u32) -> ScenarioConfig {
    let mut c = ScenarioConfig::default();
    c.simulation.duration_s = 60.0;
    c.links[1].queue.limit_packets = limit;
    c
}

fn run_traced(c: &ScenarioConfig) -> RunResult {
    let r = run(
        c,
        1,
        0,
        &RunOptions {
            traces: true,
            ..RunOptions::default()
        },
    )
    .unwrap();
    // No random draw is made: another seed and run index give the same run, bit for bit.
    let other = run(c, 0xfeed, 7, &RunOptions::default()).unwrap();
    assert_eq!(r.flows, other.flows);
    assert_eq!(r.links, other.links);
    r
}

fn access_data_drops(r: &RunResult) -> u64 {
    let l = r
        .links
        .iter()
        .find(|l| l.name == "access" && l.direction == "data")
        .unwrap();
    l.m.drops.values().sum()
}

/// The 64 KB receive window holds 44 full segments. The ACK clock keeps about 9 of them out
/// of the access queue: a round trip without queueing is 2 x (100 + 25) ms of propagation,
/// 12 ms to serialise 1500 bytes at 1 Mb/s and 31.25 ms at 384 kb/s, about 294 ms, or 9.4
/// access slots of 31.25 ms. So the queue peaks at 44 - 9 = 35 packets, below the 50 it may
/// hold: no drop, no retransmission, no cwnd cut, ever.
#[test]
fn one_flow_with_a_64k_window_never_fills_the_50_packet_buffer() {
    let r = run_traced(&preset(50));
    let m = &r.flows[0].m;
    assert_eq!(access_data_drops(&r), 0);
    let access = r
        .links
        .iter()
        .find(|l| l.name == "access" && l.direction == "data")
        .unwrap();
    assert_eq!(access.m.max_queue_packets, 35);
    assert_eq!(
        (
            m.retransmissions,
            m.fast_retransmits,
            m.timeouts,
            m.cwnd_reductions
        ),
        (0, 0, 0, 0)
    );
    assert_eq!(m.duplicate_arrivals, 0);
    // At most 60 s / 31.25 ms = 1920 packets cross the access link; slow start leaves it
    // idle for the first ~1.4 s. 1874 segments are delivered, and the 40 sent after them are
    // still queued or on the way when the run ends (the 35-packet standing queue and the
    // pipe).
    assert_eq!(m.segments_sent, 1914);
    assert_eq!(m.bytes_delivered, 1874 * MSS);
    assert!(m.segments_sent <= 1920 + 44);
}

/// A 5-packet buffer. With delayed ACKs each ACK in slow start covers two segments and lets
/// three out (two freed, one more for cwnd), while the access link serves two per ACK: the
/// queue grows by one per ACK, and once full every third segment is dropped. That gives
///
/// - slow start: 8 drops (segments 42, 45, ..., 63) in one window. NewReno repairs one hole
///   per round trip from a single fast retransmit; the recovery outlasts the RTO, which
///   fires once (at 4.35 s, while the partial-ACK retransmission of 54 is on its way: a
///   spurious timeout) and restarts slow start from one segment;
/// - the second slow start: 3 drops (122, 125, 128) in one window, one fast retransmit and
///   one recovery for all three;
/// - congestion avoidance: a sawtooth, one drop per cycle when the window outgrows
///   BDP + buffer, each cycle the same 201 segments and 6.85 s long, so one fast retransmit
///   per cycle: 7 cycles from 13.8 s to 60 s.
///
/// 9 fast retransmits and 1 timeout, each a cwnd cut (the timeout found cwnd above one
/// segment). Every dropped segment is retransmitted once when needed; the 7 further
/// retransmissions are spurious: the timeout's copy of 54, and 6 segments (58, 61, 62, 64,
/// 65, 66) that slow start after the timeout sends again though they had arrived.
#[test]
fn slow_start_overshoot_then_one_fast_retransmit_per_sawtooth() {
    let r = run_traced(&preset(5));
    let m = &r.flows[0].m;
    let t = r.traces.as_ref().unwrap();
    let dropped: Vec<u64> = t
        .seq_dropped
        .value
        .iter()
        .map(|&s| s as u64 / MSS)
        .collect();
    let slow_start: Vec<u64> = (42..=63).step_by(3).collect();
    let second: Vec<u64> = vec![122, 125, 128];
    let sawtooth: Vec<u64> = (0..7).map(|k| 320 + 201 * k).collect();
    assert_eq!(dropped, [slow_start, second, sawtooth].concat());
    assert_eq!(access_data_drops(&r), 18);

    assert_eq!(
        (m.fast_retransmits, m.timeouts, m.cwnd_reductions),
        (9, 1, 10)
    );
    assert_eq!((m.retransmissions, m.spurious_retransmissions), (25, 7));
    assert_eq!(m.spurious_timeouts, 1);
    assert_eq!(m.retransmissions - m.spurious_retransmissions, 18);
    assert_eq!(m.segments_sent, 1711);

    // The sawtooth is periodic: the cuts from 13 s on are 6.85 s apart (to the millisecond:
    // the same cycle, replayed).
    let cuts = &t.cwnd_reductions.time_s;
    assert_eq!(cuts.len(), 10);
    let steady: Vec<f64> = cuts.iter().copied().filter(|&s| s > 13.0).collect();
    assert_eq!(steady.len(), 7);
    for w in steady.windows(2) {
        assert!((w[1] - w[0] - 6.850).abs() < 0.001, "{:?}", steady);
    }
}
