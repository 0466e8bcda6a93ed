//! Flat per-run metrics: the scalar view of a [`RunResult`] that statistics, sweeps and the
//! results store work with. Computed here rather than in Python because a sweep reduces every
//! run this way and the reduction must stay small next to the simulation itself.
//!
//! Keys (documented for users in `docs/usage.md`):
//! - `goodput_kbps` (sum over flows), `goodput_kbps_per_flow` (mean), `fairness_jain`;
//! - `delay_mean_ms` (pooled mean), `delay_p50_ms`, `delay_p95_ms`, `delay_p99_ms` (per-flow
//!   percentiles weighted by their sample counts);
//! - sums over flows of `bytes_delivered`, `segments_sent`, `retransmissions`,
//!   `fast_retransmits`, `timeouts`, `spurious_retransmissions`, `spurious_timeouts` (and its
//!   two kinds, `spurious_timeouts_not_lost`, `spurious_timeouts_lost_repaired`),
//!   `cwnd_reductions`, `duplicate_arrivals`, `acks_sent`, `acks_received`, `delay_samples`;
//! - `drops.<link>.<data|ack>.<reason>`, `links.<link>.<dir>.{packets_sent,bytes_sent,
//!   max_queue_packets}`, `drops` (total);
//! - with a radio bearer: `drops.bearer.{buffer_full,rlc_maxdat}` (in `drops` too) and
//!   `bearer.<field>` (buffer occupancy mean/max, TTIs lost, PDUs, STATUS, polls, MRW);
//! - with an IS-707 RLP link: `drops.rlp.{iap_full,aborted}` (in `drops` too),
//!   `normalised_goodput` (goodput / the link's maximum TCP goodput, Bai et al.) and
//!   `rlp.<field>` (IAP buffer mean/max, realised frame error rates, frames, NAKs, aborts);
//! - with the base-station ACK controller: `drops.bs.already_acked` (in `drops` too) and
//!   `bs.<field>` (ACKs in/sent/held/dropped/generated, RTT samples, ACK queue);
//!   `links.<link>.<dir>.reordered` on links with a variable delay;
//! - with the LTE cell: `drops.lte.<reason>` (in `drops` too), `lte.<field>` (cell totals,
//!   goodput and Jain index over UEs, ACKs in/sent/discarded, HARQ, SR/BSR/grants, means) and
//!   `lte.ues.<i>.<field>` per UE (position, SINR, MCS, TBS, T_opt, BLER, ACKs, delays);
//! - `events`, `measured_s`; `flows.<i>.<field>` for every numeric per-flow field.
//!
//! Undefined values (a delay with no sample, fairness with no goodput) are NaN.

use std::fmt::Write;

use crate::flatten::{fields, Metrics};
use crate::results::{jain, RunResult};

/// Weighted mean of the finite values with positive weight; NaN if there are none.
fn weighted(pairs: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut sum, mut total) = (0.0, 0.0);
    for (v, w) in pairs {
        if w > 0.0 && v.is_finite() {
            sum += v * w;
            total += w;
        }
    }
    if total > 0.0 {
        sum / total
    } else {
        f64::NAN
    }
}

/// Per-flow counters also reported summed over flows.
const SUMMED: [&str; 14] = [
    "bytes_delivered",
    "segments_sent",
    "retransmissions",
    "fast_retransmits",
    "timeouts",
    "spurious_retransmissions",
    "spurious_timeouts",
    "spurious_timeouts_not_lost",
    "spurious_timeouts_lost_repaired",
    "cwnd_reductions",
    "duplicate_arrivals",
    "acks_sent",
    "acks_received",
    "delay_samples",
];

/// Per-flow delay statistics also reported over all flows (weighted by delay_samples).
const DELAYS: [&str; 4] = [
    "delay_mean_ms",
    "delay_p50_ms",
    "delay_p95_ms",
    "delay_p99_ms",
];

/// The flat metrics of one run, in reporting order.
pub fn flat_metrics(r: &RunResult) -> Vec<(String, f64)> {
    let mut out: Metrics = Vec::with_capacity(32 + 20 * r.flows.len());
    let flows: Vec<Metrics> = r.flows.iter().map(|f| fields(&f.m).0).collect();
    let field = |f: &[(String, f64)], name: &str| {
        f.iter().find(|(k, _)| k == name).map_or(f64::NAN, |x| x.1)
    };
    let goodputs: Vec<f64> = r.flows.iter().map(|f| f.m.goodput_kbps).collect();
    out.push(("goodput_kbps".into(), goodputs.iter().sum()));
    let per_flow = if goodputs.is_empty() {
        f64::NAN
    } else {
        goodputs.iter().sum::<f64>() / goodputs.len() as f64
    };
    out.push(("goodput_kbps_per_flow".into(), per_flow));
    out.push(("fairness_jain".into(), jain(&goodputs)));
    for key in DELAYS {
        let v = weighted(
            flows
                .iter()
                .map(|f| (field(f, key), field(f, "delay_samples"))),
        );
        out.push((key.into(), v));
    }
    if !flows.is_empty() {
        for key in SUMMED {
            out.push((key.into(), flows.iter().map(|f| field(f, key)).sum()));
        }
    }
    let mut total_drops = 0.0;
    let mut drops = |out: &mut Vec<(String, f64)>, prefix: &str, list: Vec<(String, f64)>| {
        for (reason, n) in list {
            out.push((format!("drops.{prefix}.{reason}"), n));
            total_drops += n;
        }
    };
    for l in &r.links {
        let prefix = format!("{}.{}", l.name, l.direction);
        let (nums, d) = fields(&l.m);
        drops(&mut out, &prefix, d);
        for (k, v) in nums {
            out.push((format!("links.{prefix}.{k}"), v));
        }
    }
    // The access network's section (its variant names the prefix), then the BS ACK
    // controller's: `<name>.<field>` and `drops.<name>.<reason>`.
    if let Some(a) = &r.access {
        let m = a.flat_metrics(goodputs.iter().sum());
        drops(&mut out, a.prefix(), m.drops);
        out.extend(m.rest);
    }
    if let Some((nums, d)) = r.bs_ack.as_ref().map(fields) {
        drops(&mut out, "bs", d);
        for (k, v) in nums {
            out.push((format!("bs.{k}"), v));
        }
    }
    out.push(("drops".into(), total_drops));
    out.push(("events".into(), r.events as f64));
    out.push(("measured_s".into(), r.measured_s));
    for (i, f) in flows.into_iter().enumerate() {
        for (k, v) in f {
            out.push((format!("flows.{i}.{k}"), v));
        }
    }
    out
}

/// The flat metrics as a JSON object. NaN and infinities are written as `NaN`, `Infinity`
/// and `-Infinity`, which Python's `json` reads back (strict JSON has no such values).
pub fn flat_metrics_json(r: &RunResult) -> String {
    let m = flat_metrics(r);
    let mut s = String::with_capacity(40 * m.len());
    s.push('{');
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        // Keys are built from config names restricted to [A-Za-z0-9_.-]; escape anyway.
        s.push_str(&serde_json::to_string(k).unwrap_or_else(|_| "\"?\"".into()));
        s.push(':');
        if v.is_nan() {
            s.push_str("NaN");
        } else if v.is_infinite() {
            s.push_str(if *v > 0.0 { "Infinity" } else { "-Infinity" });
        } else {
            let _ = write!(s, "{v:?}");
        }
    }
    s.push('}');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run, RunOptions, ScenarioConfig};

    #[test]
    fn jain_and_weighted_edge_cases() {
        assert_eq!(jain(&[1.0, 1.0]), 1.0);
        assert!((jain(&[1.0, 0.0]) - 0.5).abs() < 1e-15);
        assert!(jain(&[]).is_nan() && jain(&[0.0, 0.0]).is_nan());
        let w = weighted([(10.0, 1.0), (20.0, 3.0), (f64::NAN, 5.0), (99.0, 0.0)].into_iter());
        assert!((w - 17.5).abs() < 1e-12);
        assert!(weighted(std::iter::empty()).is_nan());
    }

    #[test]
    fn totals_match_the_per_flow_records() {
        let mut c = ScenarioConfig::default();
        c.flows.count = 3;
        c.simulation.duration_s = 30.0;
        let r = run(&c, 1, 0, &RunOptions::default()).unwrap();
        let m: std::collections::HashMap<_, _> = flat_metrics(&r).into_iter().collect();
        let g: f64 = r.flows.iter().map(|f| f.m.goodput_kbps).sum();
        assert_eq!(m["goodput_kbps"], g);
        assert_eq!(m["flows.2.timeouts"], r.flows[2].m.timeouts as f64);
        let drops: u64 = r.links.iter().flat_map(|l| l.m.drops.values()).sum();
        assert_eq!(m["drops"], drops as f64);
        assert_eq!(
            m["drops.access.data.queue_full"],
            r.links[2].m.drops["queue_full"] as f64
        );
        let json = flat_metrics_json(&r);
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["goodput_kbps"].as_f64(), Some(g));
    }
}
