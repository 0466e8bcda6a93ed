//! Run a resolved JSON scenario (or the default preset) and print the result as JSON.
//! `cargo run --release --example run_json -- [config.json] [seed] [run_index]`

use radiotcp_core::{run, RunOptions, ScenarioConfig};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cfg = match args.get(1) {
        Some(path) if path != "-" => {
            let text = std::fs::read_to_string(path).expect("readable config file");
            ScenarioConfig::from_json(&text).unwrap_or_else(|e| {
                eprintln!("{e}");
                std::process::exit(2)
            })
        }
        _ => ScenarioConfig::default(),
    };
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let run_index = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
    let t0 = std::time::Instant::now();
    let r = run(&cfg, seed, run_index, &RunOptions::default()).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::to_string_pretty(&r).expect("serialisable")
    );
    eprintln!("wall {wall:.6} s, {:.0} events/s", r.events as f64 / wall);
}
