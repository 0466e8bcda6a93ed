//! Whole-run benchmarks of the wired preset (no Python in the loop).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use radiotcp_core::{run, RunOptions, ScenarioConfig};

fn wired(c: &mut Criterion) {
    let mut g = c.benchmark_group("wired-384k");
    for (flows, secs) in [(1u32, 60.0), (4, 60.0), (4, 600.0)] {
        let mut cfg = ScenarioConfig::default();
        cfg.flows.count = flows;
        cfg.simulation.duration_s = secs;
        let events = run(&cfg, 1, 0, &RunOptions::default()).unwrap().events;
        g.throughput(Throughput::Elements(events));
        g.bench_function(format!("{flows}flows-{secs}s"), |b| {
            b.iter(|| run(&cfg, 1, 0, &RunOptions::default()).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, wired);
criterion_main!(benches);
