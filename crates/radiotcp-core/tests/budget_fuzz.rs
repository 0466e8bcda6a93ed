//! A run's budget (max events, the caller's check) and a fuzz target over configurations:
//! whatever a valid configuration says, building and running it for a bounded number of events
//! never panics, and an invalid one is a `ConfigError` naming a key.

#[path = "common/umts.rs"]
mod common_umts;

use common_umts::umts_bearer;
use proptest::prelude::*;
use radiotcp_core::config::{
    AccessConfig, AckControlMode, BufferDisciplineKind, ChannelKind, DelayProcessKind, RlpConfig,
    ScenarioConfig, TcpVariant, UmtsConfig, VariableDelayConfig, WiredAccessConfig,
};
use radiotcp_core::{run, run_checked, Check, Halt, RunOptions};

fn umts(duration_s: f64) -> ScenarioConfig {
    let mut c = umts_bearer();
    c.simulation.duration_s = duration_s;
    c
}

#[test]
fn max_events_halts_after_exactly_that_many_events_with_the_statistics_so_far() {
    let c = ScenarioConfig::default();
    let full = run(&c, 1, 0, &RunOptions::default()).unwrap();
    assert_eq!(full.halted, None);
    let opts = RunOptions {
        max_events: Some(5000),
        ..RunOptions::default()
    };
    let a = run(&c, 1, 0, &opts).unwrap();
    assert_eq!(a.halted, Some(Halt::MaxEvents));
    assert_eq!(a.events, 5000);
    assert!(a.duration_s > 0.0 && a.duration_s < full.duration_s);
    assert_eq!(a.measured_s, a.duration_s);
    // Fewer segments than the whole run, and the same halted run twice is the same run.
    assert!(a.flows[0].m.segments_sent < full.flows[0].m.segments_sent);
    assert!(a.flows[0].m.segments_sent > 0);
    let b = run(&c, 1, 0, &opts).unwrap();
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    // A budget the run does not reach changes nothing.
    let roomy = RunOptions {
        max_events: Some(full.events + 1),
        ..RunOptions::default()
    };
    let r = run(&c, 1, 0, &roomy).unwrap();
    assert_eq!(r.halted, None);
    assert_eq!(format!("{:?}", r.flows), format!("{:?}", full.flows));
}

#[test]
fn the_check_sees_progress_and_can_halt_or_interrupt() {
    // A 600 s UMTS run has about 180k events: the check runs every 65,536.
    let c = umts(600.0);
    let mut seen = Vec::new();
    let r = run_checked(&c, 1, 0, &RunOptions::default(), &mut |p| {
        seen.push((p.now, p.events));
        Check::Continue
    })
    .unwrap();
    assert_eq!(r.halted, None);
    assert_eq!(seen.len() as u64, r.events / 65_536);
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1));

    let r = run_checked(&c, 1, 0, &RunOptions::default(), &mut |_| {
        Check::Halt(Halt::MaxWallTime)
    })
    .unwrap();
    assert_eq!(r.halted, Some(Halt::MaxWallTime));
    assert_eq!(r.events, 65_536);
    assert!((r.duration_s - seen[0].0 as f64 * 1e-9).abs() < 1e-9);

    let e = run_checked(&c, 1, 0, &RunOptions::default(), &mut |_| Check::Interrupt);
    assert!(matches!(e, Err(radiotcp_core::RunError::Interrupted)));
}

// --- fuzz target -------------------------------------------------------------------------

/// Timers: inside and at the edges of the documented bounds (1 us to 1 day), rarely outside.
fn timer() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => Just(1e-3),
        4 => Just(1.0),
        4 => Just(86_400_000.0),
        16 => 0.01f64..5000.0,
        1 => Just(0.0),
        1 => Just(1e-9),
    ]
}

/// Delays: 0 to 1 day, rarely negative.
fn delay() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => Just(0.0),
        2 => Just(86_400_000.0),
        16 => 0.0f64..2000.0,
        1 => Just(-1.0),
    ]
}

/// Radio periods: 0.1 ms to 1 s, rarely outside.
fn period() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => Just(0.1),
        4 => Just(1000.0),
        16 => 0.1f64..100.0,
        1 => Just(1e-5),
    ]
}

fn rate() -> impl Strategy<Value = f64> {
    prop_oneof![
        2 => Just(1e-3),
        2 => Just(9.6),
        2 => Just(1e9),
        16 => 1.0f64..100_000.0,
        1 => Just(0.0),
    ]
}

fn config() -> impl Strategy<Value = ScenarioConfig> {
    (
        (0u8..3, 1u32..6, prop::bool::ANY, 1u32..4),
        (
            rate(),
            rate(),
            delay(),
            delay(),
            1u32..2000,
            prop::option::of(0u8..5),
        ),
        (period(), timer(), timer(), 0u8..5, 1u32..100, 0u8..3),
        (
            period(),
            timer(),
            1u32..20,
            0.0f64..0.5,
            prop::bool::ANY,
            1u32..12,
        ),
    )
        .prop_map(|(a, b, c, d)| {
            let (access, flows, newreno, delack) = a;
            let (r0, r1, d0, d1, qlim, vdelay) = b;
            let (tti, rto, timer, disc, limit, ack) = c;
            let (slot, t_ret, fps, fer, bs, dup) = d;
            let mut cfg = ScenarioConfig::default();
            cfg.simulation.duration_s = 30.0;
            cfg.flows.count = flows;
            cfg.flows.stagger_s = 0.5;
            cfg.tcp.variant = if newreno {
                TcpVariant::NewReno
            } else {
                TcpVariant::Reno
            };
            cfg.tcp.delack_count = delack;
            cfg.tcp.initial_rto_ms = rto;
            cfg.tcp.min_rto_ms = rto.min(1000.0);
            cfg.links[0].rate_kbps = r0;
            cfg.links[1].rate_kbps = r1;
            cfg.links[0].delay_ms = d0;
            cfg.links[1].delay_ms = d1;
            cfg.links[1].queue.limit_packets = qlim;
            cfg.links[1].loss_rate = fer / 10.0;
            if let Some(k) = vdelay {
                let process = [
                    DelayProcessKind::Constant,
                    DelayProcessKind::Uniform,
                    DelayProcessKind::Normal,
                    DelayProcessKind::Markov,
                    DelayProcessKind::Trace,
                ][k as usize];
                cfg.links[1].variable_delay = Some(VariableDelayConfig {
                    process,
                    ..VariableDelayConfig::default()
                });
            }
            cfg.bs_ack.enabled = bs;
            cfg.bs_ack.dup_ack_thresh = dup;
            cfg.access = match access {
                0 => AccessConfig::Wired(WiredAccessConfig {}),
                1 => {
                    let mut u = UmtsConfig {
                        tti_ms: tti,
                        ..UmtsConfig::default()
                    };
                    u.downlink.fer = fer;
                    u.downlink.model = if fer < 0.1 {
                        ChannelKind::Iid
                    } else {
                        ChannelKind::Markov
                    };
                    u.rlc.poll_timer_ms = timer;
                    u.buffer.limit_sdus = limit;
                    u.buffer.discipline = [
                        BufferDisciplineKind::DropTail,
                        BufferDisciplineKind::Red,
                        BufferDisciplineKind::Sbd,
                        BufferDisciplineKind::Codel,
                        BufferDisciplineKind::Pie,
                    ][disc as usize];
                    u.buffer.pie.t_update_ms = timer;
                    u.ack_control.mode = [
                        AckControlMode::None,
                        AckControlMode::Rate,
                        AckControlMode::Delay,
                    ][ack as usize];
                    AccessConfig::Umts(u)
                }
                _ => {
                    let mut r = RlpConfig {
                        slot_ms: slot,
                        t_ret_ms: t_ret,
                        frames_per_slot: fps,
                        ..RlpConfig::default()
                    };
                    r.forward.fer = fer;
                    AccessConfig::Rlp(r)
                }
            };
            cfg
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Valid: runs for at most 20,000 events without a panic, and the halt (if any) is the
    /// budget's. Invalid: a ConfigError that names a key and what is allowed.
    #[test]
    fn any_configuration_runs_or_is_refused_without_a_panic(cfg in config()) {
        match cfg.validate() {
            Ok(()) => {
                let opts = RunOptions { max_events: Some(20_000), ..RunOptions::default() };
                let r = run(&cfg, 7, 0, &opts).expect("validated");
                prop_assert!(r.events <= 20_000);
                prop_assert!(r.halted.is_none() || r.halted == Some(Halt::MaxEvents));
                for f in &r.flows {
                    prop_assert!(f.m.goodput_kbps.is_finite() || r.measured_s == 0.0);
                }
            }
            Err(e) => {
                prop_assert!(!e.key.is_empty() && !e.allowed.is_empty(), "{e:?}");
            }
        }
    }
}
