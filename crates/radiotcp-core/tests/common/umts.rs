//! The papers' UMTS bearer as the Rust tests build it (as `scenarios/umts-384k.toml`): the
//! wired preset's first link (1 Mb/s, 100 ms, a 1000-packet queue), then the 384 kbit/s DCH
//! with RLC AM, FER 10 %, f_dT 0.01 and a 50-SDU buffer (`UmtsConfig::default()`).

use radiotcp_core::config::{AccessConfig, ScenarioConfig, UmtsConfig};

pub fn umts_bearer() -> ScenarioConfig {
    let mut c = ScenarioConfig {
        access: AccessConfig::Umts(UmtsConfig::default()),
        ..ScenarioConfig::default()
    };
    c.links.truncate(1);
    c
}
