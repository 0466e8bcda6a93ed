//! The emulator (sans-IO) on a virtual clock: real IPv4/TCP packets through the modelled
//! UMTS bearer, the ACK rate control and the base station's ACK controller. What the
//! real-time driver adds (TUN devices, the wall clock) is tested from Python
//! (`tests/test_emulate.py`).

#[path = "common/umts.rs"]
mod common_umts;

use common_umts::umts_bearer;
use radiotcp_core::config::{AccessConfig, AckControlMode, LinkConfig, ScenarioConfig};
use radiotcp_core::emulate::{packets, EmulationResult, Emulator, Side};
use radiotcp_core::engine::{millis, secs, Time};
use radiotcp_core::wire::{self, Ipv4TcpRepr, TcpOptions, TcpRepr, ACK};

const SRV: ([u8; 4], u16) = ([10, 64, 0, 1], 5001);
const UE: ([u8; 4], u16) = ([10, 64, 0, 2], 40000);
/// An IPv4/TCP packet with the ACK flag (TTL 64, window 65535) and valid checksums.
fn tcp_packet(
    src: ([u8; 4], u16),
    dst: ([u8; 4], u16),
    (seq, ack): (u32, u32),
    options: TcpOptions,
    payload: &[u8],
) -> Vec<u8> {
    Ipv4TcpRepr {
        src: src.0,
        dst: dst.0,
        ttl: 64,
        tcp: TcpRepr {
            src_port: src.1,
            dst_port: dst.1,
            seq,
            ack,
            flags: ACK,
            window: 65535,
            options,
            ..TcpRepr::default()
        },
        ..Ipv4TcpRepr::default()
    }
    .to_packet(payload)
}

/// Timestamps (as NOP, NOP, TS): the 12 option bytes of a Linux segment.
fn ts_opts(val: u32, ecr: u32) -> TcpOptions {
    TcpOptions {
        timestamps: Some((val, ecr)),
        ..TcpOptions::default()
    }
}

/// A 1500-byte segment (1448 bytes of payload) whose payload encodes its number.
fn segment(i: u32) -> Vec<u8> {
    let payload: Vec<u8> = (0..1448u32)
        .map(|k| (i.wrapping_mul(31) + k) as u8)
        .collect();
    // Sequence numbers near the 32-bit wrap: the emulator unwraps them.
    let seq = 0xffff_0000u32.wrapping_add(i * 1448);
    tcp_packet(SRV, UE, (seq, 1), ts_opts(i, 0), &payload)
}

fn pure_ack(ack: u32) -> Vec<u8> {
    tcp_packet(UE, SRV, (1, ack), ts_opts(0, 0), &[])
}

/// Run `emu` on a virtual clock: feed `input` (time, side, packet) in order, process the
/// model's events, stop at `until`. Returns what left: (time, side written to, packet).
fn drive(
    emu: &mut Emulator,
    input: &[(Time, Side, Vec<u8>)],
    until: Time,
) -> Vec<(Time, Side, Vec<u8>)> {
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        let next_in = input.get(i).map(|x| x.0);
        let next_ev = emu.next_event_time();
        let t = match (next_in, next_ev) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => break,
        };
        if t > until {
            break;
        }
        // Events due first, then the packet read (as the real-time loop does).
        if next_ev == Some(t) {
            emu.step(t);
        } else {
            let (at, side, b) = &input[i];
            emu.receive(*at, *side, b.clone());
            i += 1;
        }
        out.extend(emu.take_output().map(|(s, b)| (t, s, b)));
    }
    out
}

fn bearer_drops(r: &EmulationResult) -> u64 {
    let b = r.model.bearer().unwrap();
    b.drops.values().sum()
}

#[test]
fn a_paced_download_crosses_the_bearer_intact_in_order_and_no_faster_than_its_delays() {
    let mut emu = Emulator::new(&umts_bearer(), 1, false).unwrap();
    // 300 kbit/s of segments: below what the bearer carries at FER 10 %.
    let input: Vec<_> = (0..200)
        .map(|i| (millis(40.0 * i as f64), Side::Server, segment(i)))
        .collect();
    let out = drive(&mut emu, &input, secs(20.0));
    let got: Vec<_> = out.iter().filter(|o| o.1 == Side::Ue).collect();
    assert_eq!(got.len(), 200, "every segment arrives");
    for (k, (t, _, b)) in got.iter().enumerate() {
        assert_eq!(b, &input[k].2, "segment {k} arrives unchanged and in order");
        // 100 ms of wire, 12 ms to serialise at 1 Mb/s, the 25 ms radio hop, 3 TTIs at least.
        assert!(*t >= input[k].0 + millis(137.0), "segment {k} too early");
    }
    let r = emu.finish(secs(20.0));
    assert_eq!(r.down.counts.packets_in, 200);
    assert_eq!(r.down.counts.packets_out, 200);
    assert_eq!(r.down.counts.payload_out, 200 * 1448);
    assert_eq!(r.flows.len(), 1);
    assert_eq!((r.unparsed, r.unbacked, r.undelivered), (0, 0, 0));
    assert_eq!(r.flows[0].proto, "tcp");
    assert_eq!(r.flows[0].server, "10.64.0.1:5001");
    assert_eq!(r.flows[0].ue, "10.64.0.2:40000");
    assert!(r.down.delay.mean_ms >= 137.0 && r.down.delay.max_ms >= r.down.delay.p95_ms);
    let b = r.model.bearer().unwrap();
    assert!(
        b.dl_data_pdus_retransmitted > 0,
        "FER 10 %: the RLC repaired losses"
    );
}

#[test]
fn an_overload_fills_the_rlc_buffer_to_its_limit_and_every_packet_is_accounted_for() {
    let cfg = umts_bearer();
    let limit = match &cfg.access {
        AccessConfig::Umts(u) => u.buffer.limit_sdus,
        _ => unreachable!(),
    };
    let mut emu = Emulator::new(&cfg, 7, false).unwrap();
    // 2.4 Mbit/s offered for 3 s: six times what the bearer carries.
    let input: Vec<_> = (0..600)
        .map(|i| (millis(5.0 * i as f64), Side::Server, segment(i)))
        .collect();
    // Long enough for the buffer to drain.
    let out = drive(&mut emu, &input, secs(60.0));
    let got: Vec<_> = out.iter().filter(|o| o.1 == Side::Ue).collect();
    // Delivered in order: a subsequence of what was sent (drops happen at the buffer).
    let mut next = 0;
    for (_, _, b) in &got {
        let k = (next..input.len())
            .find(|&k| &input[k].2 == b)
            .expect("delivered packets are sent packets, in order");
        next = k + 1;
    }
    // No faster than the bearer: SDUs of 1500 bytes (+1 octet of length indicator) in
    // 480-octet TTIs, over the span of the deliveries (+2 TTIs for its edges).
    let span = got.last().unwrap().0 - got[0].0;
    let ttis = span as f64 / millis(10.0) as f64 + 2.0;
    assert!(got.len() as f64 * 1501.0 <= 480.0 * ttis);
    let r = emu.finish(secs(60.0));
    let b = r.model.bearer().unwrap();
    assert!(
        b.max_buffer_sdus <= limit,
        "{} > {limit}",
        b.max_buffer_sdus
    );
    assert_eq!(b.max_buffer_sdus, limit, "the overload reached the limit");
    assert!(b.drops["buffer_full"] > 0);
    // Every packet is delivered, or dropped by the model where its statistics say.
    assert_eq!(r.down.counts.packets_in, 600);
    assert_eq!(r.down.counts.packets_out, got.len() as u64);
    assert_eq!(r.undelivered, bearer_drops(&r));
    assert_eq!(r.down.counts.packets_out + r.undelivered, 600);
}

#[test]
fn ack_rate_control_paces_the_real_acks_and_lets_uplink_data_pass() {
    let run = |mode: AckControlMode| {
        let mut cfg = umts_bearer();
        if let AccessConfig::Umts(u) = &mut cfg.access {
            let a = &mut u.ack_control;
            (a.mode, a.alpha, a.minth_sdus, a.maxth_sdus, a.maxd_ms) =
                (mode, 0.5, 0.0, 50.0, 200.0);
        }
        let mut emu = Emulator::new(&cfg, 3, false).unwrap();
        let mut input: Vec<_> = (0..400)
            .map(|i| (millis(10.0 * i as f64), Side::Server, segment(i)))
            .collect();
        // The UE acknowledges every 20 ms, and sends one request with data at 1 s.
        for i in 0..200u32 {
            input.push((
                millis(20.0 * i as f64 + 1.0),
                Side::Ue,
                pure_ack(1 + 2896 * i),
            ));
        }
        let request = tcp_packet(
            UE,
            SRV,
            (1, 1),
            TcpOptions::default(),
            b"GET / HTTP/1.1\r\n\r\n",
        );
        input.push((millis(1000.5), Side::Ue, request.clone()));
        input.sort_by_key(|x| x.0);
        let out = drive(&mut emu, &input, secs(30.0));
        let to_server: Vec<_> = out.iter().filter(|o| o.1 == Side::Server).collect();
        let sent: Vec<_> = input.iter().filter(|x| x.1 == Side::Ue).collect();
        assert_eq!(to_server.len(), sent.len(), "every uplink packet arrives");
        let acks: Vec<_> = to_server.iter().filter(|o| o.2 != request).collect();
        for (k, (_, _, b)) in acks.iter().enumerate() {
            assert_eq!(
                b,
                &pure_ack(1 + 2896 * k as u32),
                "ACKs unchanged and in order"
            );
        }
        let req_at = to_server.iter().find(|o| o.2 == request).unwrap().0;
        (emu.finish(secs(30.0)), req_at)
    };
    let (off, req_off) = run(AckControlMode::None);
    let (on, req_on) = run(AckControlMode::Rate);
    let held = on.model.bearer().unwrap().acks_delayed;
    assert_eq!(off.model.bearer().unwrap().acks_delayed, 0);
    assert!(held > 50, "{held} ACKs held");
    assert!(
        on.up.delay.mean_ms > off.up.delay.mean_ms + 20.0,
        "uplink delay {} -> {} ms",
        off.up.delay.mean_ms,
        on.up.delay.mean_ms
    );
    // The request is data: it is not held behind the paced ACKs.
    assert!(req_on <= req_off + millis(10.0), "{req_off} -> {req_on}");
}

#[test]
fn the_base_stations_own_ack_is_written_from_the_connections_last_ack() {
    let mut c = ScenarioConfig::default();
    let link = |name: &str, delay_ms: f64| LinkConfig {
        name: name.into(),
        rate_kbps: 250.0,
        delay_ms,
        ..LinkConfig::default()
    };
    c.links = vec![link("wired", 5.0), link("wireless", 190.0)];
    c.bs_ack.enabled = true;
    c.bs_ack.link = "wireless".into();
    let mut emu = Emulator::new(&c, 1, false).unwrap();
    let seg = segment(0);
    let seq = packets::parse(&seg).unwrap().tcp.unwrap().seq;
    let ack = pure_ack(seq.wrapping_add(1448));
    let input = vec![
        (0, Side::Server, seg.clone()),
        (millis(600.0), Side::Ue, ack.clone()),
        // A retransmission of data the UE has acknowledged: the BS drops it and answers.
        (millis(1500.0), Side::Server, seg.clone()),
    ];
    let out = drive(&mut emu, &input, secs(5.0));
    let to_ue: Vec<_> = out.iter().filter(|o| o.1 == Side::Ue).collect();
    let to_server: Vec<_> = out.iter().filter(|o| o.1 == Side::Server).collect();
    assert_eq!(to_ue.len(), 1, "the copy is not forwarded");
    assert_eq!(to_server.len(), 2);
    assert_eq!(to_server[0].2, ack, "the real ACK, unchanged");
    let made = &to_server[1].2;
    let f = packets::parse(made).unwrap().tcp.unwrap();
    assert_eq!(f.ack, seq.wrapping_add(1448));
    assert_eq!(wire::verify_checksums(made), Ok(()));
    assert!(to_server[1].0 >= millis(1505.0));
    let r = emu.finish(secs(5.0));
    assert_eq!(r.up.counts.synthesized, 1);
    assert_eq!(r.model.bs_ack.as_ref().unwrap().acks_generated, 1);
    assert_eq!(r.unbacked, 0);
}

#[test]
fn other_packets_pass_and_garbage_is_counted() {
    let mut emu = Emulator::new(&umts_bearer(), 1, false).unwrap();
    // A UDP datagram (IPv4, 8-byte header, 100 bytes of payload) and bytes that are not IP.
    let mut udp = vec![0u8; 128];
    udp[0] = 0x45;
    udp[2..4].copy_from_slice(&128u16.to_be_bytes());
    udp[9] = 17;
    udp[12..16].copy_from_slice(&SRV.0);
    udp[16..20].copy_from_slice(&UE.0);
    udp[20..22].copy_from_slice(&53u16.to_be_bytes());
    udp[22..24].copy_from_slice(&53u16.to_be_bytes());
    let input = vec![
        (0, Side::Server, udp.clone()),
        (millis(1.0), Side::Server, vec![0xff; 30]),
    ];
    let out = drive(&mut emu, &input, secs(2.0));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].2, udp);
    let r = emu.finish(secs(2.0));
    assert_eq!(r.unparsed, 1);
    assert_eq!(r.flows[0].proto, "udp");
    assert_eq!(r.down.counts.payload_out, 100);
}

#[test]
fn an_lte_cell_is_emulated_only_with_one_ue() {
    let mut c = ScenarioConfig {
        access: AccessConfig::Lte(Default::default()),
        ..ScenarioConfig::default()
    };
    if let AccessConfig::Lte(l) = &mut c.access {
        l.ues = 3;
    }
    let e = Emulator::new(&c, 1, false)
        .err()
        .expect("three UEs are refused");
    assert_eq!(e.key, "access.ues");
}
