//! What a run will cost, before it starts: events and wall time from the configuration.
//!
//! A run's events come from packets (each data packet is serialised and propagated on every
//! link, each ACK too, plus timers) and from the access node's clock (a UMTS TTI, an RLP slot,
//! an LTE TTI is an event whether or not anything is sent, and radio frames arrive as events).
//! The packet rate is what TCP can reach: the bottleneck rate, or the flows' receive windows
//! per round trip when those are smaller. The wall time per event is measured (`make bench`)
//! per kind of access: a TTI of RLC AM costs more than a wired hop.
//!
//! The CLI uses the estimate to decide whether a single run shows a progress bar and to warn
//! when a run will reach `--max-events`; tests/test_budget.py checks it against real event
//! counts of every preset within a factor of 3, which is all it is for. Each access kind says
//! what it adds in its [`super::AccessKind::cost_terms`], next to its configuration, so
//! neither this file nor the front end names a kind.

use serde::Serialize;

use super::ScenarioConfig;

/// Events per access-node period: the step itself, and radio arrivals in the periods that
/// carry frames (measured: 1.0 per TTI when idle, about 2 when busy).
const EVENTS_PER_PERIOD: f64 = 1.5;

/// Estimated events of one run and its wall time on the 2-core reference machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cost {
    pub events: f64,
    pub wall_s: f64,
}

/// What an access network adds to the estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccessCostTerms {
    /// The rate it can carry, kb/s (`None`: no limit of its own).
    pub capacity_kbps: Option<f64>,
    /// Its one-way delay, ms.
    pub one_way_ms: f64,
    /// Its clock period, ms (`None`: no clock).
    pub period_ms: Option<f64>,
    /// Wall time per event on the reference machine, ns (measured once on the presets,
    /// release build; only the order of magnitude matters).
    pub ns_per_event: f64,
}

impl ScenarioConfig {
    /// Events and wall time of one run, estimated from the configuration alone.
    pub fn estimate_cost(&self) -> Cost {
        let t = &self.tcp;
        let duration = self.simulation.duration_s;
        let terms = self.access.cost_terms();
        let mut bottleneck_kbps = self
            .links
            .iter()
            .map(|l| l.rate_kbps)
            .fold(f64::INFINITY, f64::min);
        let mut one_way_ms: f64 = self.links.iter().map(|l| l.delay_ms).sum();
        // Delay spikes (a handoff): their extra delay, averaged over the run, slows a
        // window-bound flow as a longer path would.
        for l in &self.links {
            if let Some(v) = &l.variable_delay {
                for sp in &v.spikes {
                    let overlap = (sp.start_s + sp.duration_s).min(duration) - sp.start_s;
                    one_way_ms += sp.extra_ms * overlap.max(0.0) / duration;
                }
            }
        }
        if let Some(c) = terms.capacity_kbps {
            bottleneck_kbps = bottleneck_kbps.min(c);
        }
        one_way_ms += terms.one_way_ms;
        let flows = self.total_flows() as f64;
        let size = t.packet_size_bytes as f64;
        let rate_pps = bottleneck_kbps * 1000.0 / 8.0 / size;
        let window = match t.awnd_segments {
            None => t.rwnd_bytes as f64,
            Some(a) => a as f64 * size,
        };
        let rtt_s = (2.0 * one_way_ms / 1000.0).max(1e-3);
        let window_pps = flows * window / rtt_s / size;
        let pps = rate_pps.min(window_pps);
        // Per data packet: transmit-done and arrival on every link, the same for its share of
        // ACKs (one per delack_count packets), and the sender's and receiver's timer events.
        let hops = self.links.len() as f64;
        let per_packet = 2.0 * hops * (1.0 + 1.0 / t.delack_count.max(1) as f64) + 2.0;
        let mut events = duration * pps * per_packet;
        if let Some(p) = terms.period_ms {
            events += duration * 1000.0 / p * EVENTS_PER_PERIOD;
        }
        Cost {
            events,
            wall_s: events * terms.ns_per_event * 1e-9,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{AccessConfig, LteConfig, LTE_SECTOR_KBPS};

    #[test]
    fn each_kind_is_named_as_its_serde_tag() {
        use crate::config::{RlpConfig, UmtsConfig, WiredAccessConfig};
        for access in [
            AccessConfig::Wired(WiredAccessConfig::default()),
            AccessConfig::Umts(UmtsConfig::default()),
            AccessConfig::Rlp(RlpConfig::default()),
            AccessConfig::Lte(LteConfig::default()),
        ] {
            let tag = serde_json::to_value(&access).unwrap()["kind"].clone();
            assert_eq!(tag, access.kind(), "{access:?}");
        }
    }

    #[test]
    fn each_kind_adds_its_own_terms() {
        let wired = ScenarioConfig::default();
        assert_eq!(wired.access.cost_terms().period_ms, None);
        let c = wired.estimate_cost();
        assert!(c.events > 0.0 && c.wall_s > 0.0);
        // An LTE cell: a 1 ms clock, and the capacity of the sectors its UEs occupy (3 at most).
        let lte = |ues: u32| ScenarioConfig {
            access: AccessConfig::Lte(LteConfig {
                ues,
                ..LteConfig::default()
            }),
            ..ScenarioConfig::default()
        };
        assert_eq!(lte(1).access.cost_terms().period_ms, Some(1.0));
        assert_eq!(
            lte(1).access.cost_terms().capacity_kbps,
            Some(LTE_SECTOR_KBPS)
        );
        assert_eq!(
            lte(10).access.cost_terms().capacity_kbps,
            Some(3.0 * LTE_SECTOR_KBPS)
        );
        // The clock alone: duration / period x 1.5 events at least.
        let d = lte(1).simulation.duration_s;
        assert!(lte(1).estimate_cost().events >= d * 1000.0 * EVENTS_PER_PERIOD);
    }
}
