//! The `lte-ohta` preset written out in Rust for the LTE integration tests (the core reads
//! the resolved configuration the Python front produces, not the TOML): a server behind a
//! 1 Gb/s, 20 ms Internet link, NewReno with 52 B headers and delayed ACKs, 4 MB windows,
//! and the cell with `LteConfig`'s defaults (20 s, the first 5 s not measured).

#![allow(dead_code)]

use radiotcp_core::config::{
    AccessConfig, LinkConfig, LteConfig, NrConfig, QueueConfig, ScenarioConfig, TcpVariant,
};

pub fn preset(ues: u32) -> ScenarioConfig {
    let mut c = ScenarioConfig::default();
    c.simulation.duration_s = 20.0;
    c.simulation.warmup_s = 5.0;
    let t = &mut c.tcp;
    t.variant = TcpVariant::NewReno;
    t.packet_size_bytes = 1500;
    t.header_bytes = 52;
    t.ack_size_bytes = 52;
    t.initial_window_segments = 2;
    t.rwnd_bytes = 4 << 20;
    t.window_scaling = true;
    t.min_rto_ms = 200.0;
    c.flows.start_jitter_s = 1.0;
    c.links = vec![LinkConfig {
        name: "internet".into(),
        rate_kbps: 1e6,
        delay_ms: 20.0,
        queue: QueueConfig {
            limit_packets: 100_000,
            ..QueueConfig::default()
        },
        ..LinkConfig::default()
    }];
    c.access = AccessConfig::Lte(LteConfig {
        ues,
        ..LteConfig::default()
    });
    c
}

pub fn lte(c: &mut ScenarioConfig) -> &mut LteConfig {
    c.access.lte_mut().expect("an LTE scenario")
}

/// The `nr-ohta` preset: the same server, Internet link and TCP, and the NR cell with
/// `NrConfig`'s defaults (30 kHz, 100 MHz TDD DDDSU, K1 = K2 = 2) and the preset's offset.
pub fn nr_preset(ues: u32) -> ScenarioConfig {
    let mut c = preset(ues);
    c.access = AccessConfig::Nr(NrConfig {
        ues,
        sinr_offset_db: 9.0,
        ..NrConfig::default()
    });
    c
}

pub fn nr(c: &mut ScenarioConfig) -> &mut NrConfig {
    match &mut c.access {
        AccessConfig::Nr(n) => n,
        _ => panic!("an NR scenario"),
    }
}
