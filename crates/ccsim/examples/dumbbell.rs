//! The DUMBBELL-N speed benchmark (benchmarks/README.md) straight from Rust, for profiling
//! without Python: `cargo run --release --example dumbbell N [SIMTIME] [SEED] [--json FILE]`.
//! Builds the same scenario as `ccsim bench dumbbell` (python/ccsim/bench.py, ns-2's
//! behaviours) and prints the same key=value lines.

#[path = "../tests/common/dumbbell.rs"]
mod dumbbell;
use dumbbell::dumbbell_toml;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().position(|a| a == "--json").and_then(|i| args.get(i + 1).cloned());
    let pos: Vec<&String> = args.iter().take_while(|a| *a != "--json").collect();
    let n: u32 = pos.first().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        eprintln!("usage: dumbbell N [SIMTIME] [SEED] [--json FILE]");
        std::process::exit(2)
    });
    let sim_time: f64 = pos.get(1).and_then(|s| s.parse().ok()).unwrap_or(60.0);
    let seed: u64 = pos.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let text = dumbbell_toml(n, sim_time, seed, 0.0);
    let t0 = std::time::Instant::now();
    let mut sim = ccsim::scenario::load(&text, "dumbbell", &[], None).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let t1 = std::time::Instant::now();
    sim.run();
    let t2 = std::time::Instant::now();
    let r = ccsim::report::Report::new(&mut sim);
    let q = r.queues.iter().find(|q| q.link == "R1->R2").expect("bottleneck queue");
    let delivered = r.totals.delivered_bytes;
    let (setup, run) = ((t1 - t0).as_secs_f64(), (t2 - t1).as_secs_f64());
    println!("simulator=ccsim");
    println!("n_flows={n}");
    println!("sim_time_s={}", r.duration_s);
    println!("delivered_packets={}", delivered / 1000);
    println!("goodput_bps={}", delivered as f64 * 8.0 / r.duration_s);
    println!("bottleneck_drops={}", q.drops);
    println!("bottleneck_early_drops={}", q.drops_early);
    println!("bottleneck_forced_drops={}", q.drops_forced + q.drops_overflow);
    println!("setup_s={setup:.4}");
    println!("run_s={run:.4}");
    println!("events_processed={}", r.events_processed);
    println!("events_per_second={:.0}", r.events_processed as f64 / run.max(1e-9));
    if let Some(path) = json {
        std::fs::write(&path, r.to_json()).expect("write the report");
    }
}
