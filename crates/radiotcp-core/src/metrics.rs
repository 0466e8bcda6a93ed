//! Flat per-run metrics: the scalar view of a [`RunResult`] that statistics, sweeps and the
//! results store work with. Computed here rather than in Python because a sweep reduces every
//! run this way and the reduction must stay small next to the simulation itself.
//!
//! Keys (documented for users in `docs/usage.md`):
//! - `goodput_kbps` (sum over flows), `goodput_kbps_per_flow` (mean), `fairness_jain`;
//! - `delay_mean_ms` (pooled mean), `delay_p50_ms`, `delay_p95_ms`, `delay_p99_ms` (per-flow
//!   percentiles weighted by their sample counts);
//! - sums over flows of `bytes_delivered`, `segments_sent`, `retransmissions`,
//!   `fast_retransmits`, `timeouts`, `acks_sent`, `acks_received`, `delay_samples`;
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
//! - `events`, `measured_s`; `flows.<i>.<field>` for every numeric per-flow field.
//!
//! Undefined values (a delay with no sample, fairness with no goodput) are NaN.

use std::fmt::Write;

use crate::results::{FlowStats, RunResult};

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

/// Jain's fairness index (sum x)^2 / (n sum x^2); NaN for no flows or all-zero goodput.
fn jain(x: &[f64]) -> f64 {
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 <= 0.0 {
        return f64::NAN;
    }
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * s2)
}

/// Numeric per-flow fields, in the order they are reported.
fn flow_fields(f: &FlowStats) -> [(&'static str, f64); 19] {
    [
        ("bytes_delivered", f.bytes_delivered as f64),
        ("goodput_kbps", f.goodput_kbps),
        ("delay_mean_ms", f.delay_mean_ms),
        ("delay_p50_ms", f.delay_p50_ms),
        ("delay_p95_ms", f.delay_p95_ms),
        ("delay_p99_ms", f.delay_p99_ms),
        ("delay_samples", f.delay_samples as f64),
        ("segments_sent", f.segments_sent as f64),
        ("retransmissions", f.retransmissions as f64),
        ("fast_retransmits", f.fast_retransmits as f64),
        ("timeouts", f.timeouts as f64),
        (
            "spurious_retransmissions",
            f.spurious_retransmissions as f64,
        ),
        ("spurious_timeouts", f.spurious_timeouts as f64),
        ("cwnd_reductions", f.cwnd_reductions as f64),
        ("duplicate_arrivals", f.duplicate_arrivals as f64),
        ("acks_sent", f.acks_sent as f64),
        ("acks_received", f.acks_received as f64),
        ("final_cwnd_bytes", f.final_cwnd_bytes as f64),
        ("final_srtt_ms", f.final_srtt_ms),
    ]
}

const SUMMED: [&str; 12] = [
    "bytes_delivered",
    "segments_sent",
    "retransmissions",
    "fast_retransmits",
    "timeouts",
    "spurious_retransmissions",
    "spurious_timeouts",
    "cwnd_reductions",
    "duplicate_arrivals",
    "acks_sent",
    "acks_received",
    "delay_samples",
];

const DELAYS: [&str; 4] = [
    "delay_mean_ms",
    "delay_p50_ms",
    "delay_p95_ms",
    "delay_p99_ms",
];

/// The flat metrics of one run, in reporting order.
pub fn flat_metrics(r: &RunResult) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::with_capacity(32 + 16 * r.flows.len());
    let fields: Vec<[(&str, f64); 19]> = r.flows.iter().map(flow_fields).collect();
    let field = |f: &[(&str, f64); 19], name: &str| {
        f.iter().find(|(k, _)| *k == name).map_or(f64::NAN, |x| x.1)
    };
    let goodputs: Vec<f64> = r.flows.iter().map(|f| f.goodput_kbps).collect();
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
            fields
                .iter()
                .map(|f| (field(f, key), field(f, "delay_samples"))),
        );
        out.push((key.into(), v));
    }
    if !fields.is_empty() {
        for key in SUMMED {
            out.push((key.into(), fields.iter().map(|f| field(f, key)).sum()));
        }
    }
    let mut total_drops = 0.0;
    for l in &r.links {
        let prefix = format!("{}.{}", l.name, l.direction);
        for (reason, count) in &l.drops {
            out.push((format!("drops.{prefix}.{reason}"), *count as f64));
            total_drops += *count as f64;
        }
        out.push((
            format!("links.{prefix}.packets_sent"),
            l.packets_sent as f64,
        ));
        out.push((format!("links.{prefix}.bytes_sent"), l.bytes_sent as f64));
        out.push((
            format!("links.{prefix}.max_queue_packets"),
            l.max_queue_packets as f64,
        ));
        if let Some(n) = l.reordered {
            out.push((format!("links.{prefix}.reordered"), n as f64));
        }
    }
    if let Some(b) = &r.bearer {
        for (reason, count) in &b.drops {
            out.push((format!("drops.bearer.{reason}"), *count as f64));
            total_drops += *count as f64;
        }
        let fields = [
            ("mean_buffer_sdus", b.mean_buffer_sdus),
            ("max_buffer_sdus", b.max_buffer_sdus as f64),
            ("dl_ttis_lost", b.dl_ttis_lost as f64),
            ("ul_ttis_lost", b.ul_ttis_lost as f64),
            ("dl_data_pdus_sent", b.dl_data_pdus_sent as f64),
            (
                "dl_data_pdus_retransmitted",
                b.dl_data_pdus_retransmitted as f64,
            ),
            ("ul_data_pdus_sent", b.ul_data_pdus_sent as f64),
            ("dl_status_pdus", b.dl_status_pdus as f64),
            ("ul_status_pdus", b.ul_status_pdus as f64),
            ("dl_polls", b.dl_polls as f64),
            ("mrw_procedures", b.mrw_procedures as f64),
            ("acks_delayed", b.acks_delayed as f64),
            ("ack_delay_mean_ms", b.ack_delay_mean_ms),
        ];
        for (k, v) in fields {
            out.push((format!("bearer.{k}"), v));
        }
    }
    if let Some(l) = &r.rlp {
        out.push(("drops.rlp.iap_full".into(), l.iap_drops as f64));
        out.push((
            "drops.rlp.aborted".into(),
            l.fwd_packets_lost_to_abort as f64,
        ));
        total_drops += (l.iap_drops + l.fwd_packets_lost_to_abort) as f64;
        let goodput: f64 = r.flows.iter().map(|f| f.goodput_kbps).sum();
        out.push(("normalised_goodput".into(), goodput / l.max_goodput_kbps));
        let slots = l.slots.max(1) as f64;
        let fields = [
            ("mean_iap_packets", l.mean_iap_packets),
            ("max_iap_packets", l.max_iap_packets as f64),
            ("fwd_fer", l.fwd_slots_lost as f64 / slots),
            ("rev_fer", l.rev_slots_lost as f64 / slots),
            ("fwd_data_frames", l.fwd_data_frames as f64),
            ("fwd_retx_frames", l.fwd_retx_frames as f64),
            ("fwd_idle_frames", l.fwd_idle_frames as f64),
            ("fwd_naks", l.fwd_naks as f64),
            ("fwd_frames_recovered", l.fwd_frames_recovered as f64),
            ("fwd_frames_aborted", l.fwd_frames_aborted as f64),
            ("fwd_duplicates", l.fwd_duplicates as f64),
            ("rev_frames_aborted", l.rev_frames_aborted as f64),
            (
                "rev_packets_lost_to_abort",
                l.rev_packets_lost_to_abort as f64,
            ),
            ("max_goodput_kbps", l.max_goodput_kbps),
        ];
        for (k, v) in fields {
            out.push((format!("rlp.{k}"), v));
        }
    }
    if let Some(b) = &r.bs_ack {
        out.push((
            "drops.bs.already_acked".into(),
            b.data_dropped_already_acked as f64,
        ));
        total_drops += b.data_dropped_already_acked as f64;
        let fields = [
            ("data_in", b.data_in as f64),
            ("data_forwarded", b.data_forwarded as f64),
            ("acks_in", b.acks_in as f64),
            ("acks_sent", b.acks_sent as f64),
            ("dup_acks_in", b.dup_acks_in as f64),
            ("dup_acks_held", b.dup_acks_held as f64),
            ("dup_acks_forwarded", b.dup_acks_forwarded as f64),
            ("dup_acks_dropped", b.dup_acks_dropped as f64),
            ("acks_generated", b.acks_generated as f64),
            ("replies_suppressed", b.replies_suppressed as f64),
            ("rtt_samples", b.rtt_samples as f64),
            ("acks_delayed", b.acks_delayed as f64),
            ("ack_delay_mean_ms", b.ack_delay_mean_ms),
            ("max_ack_queue", b.max_ack_queue as f64),
            ("final_srtt_ms", b.final_srtt_ms),
        ];
        for (k, v) in fields {
            out.push((format!("bs.{k}"), v));
        }
    }
    out.push(("drops".into(), total_drops));
    out.push(("events".into(), r.events as f64));
    out.push(("measured_s".into(), r.measured_s));
    for (i, f) in fields.iter().enumerate() {
        for (k, v) in f {
            out.push((format!("flows.{i}.{k}"), *v));
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
        let g: f64 = r.flows.iter().map(|f| f.goodput_kbps).sum();
        assert_eq!(m["goodput_kbps"], g);
        assert_eq!(m["flows.2.timeouts"], r.flows[2].timeouts as f64);
        let drops: u64 = r.links.iter().flat_map(|l| l.drops.values()).sum();
        assert_eq!(m["drops"], drops as f64);
        assert_eq!(
            m["drops.access.data.queue_full"],
            r.links[2].drops["queue_full"] as f64
        );
        let json = flat_metrics_json(&r);
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["goodput_kbps"].as_f64(), Some(g));
    }
}
