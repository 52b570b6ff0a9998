//! The DUMBBELL-N speed benchmark (benchmarks/README.md) straight from Rust, for profiling
//! without Python:
//! `cargo run --release --example dumbbell N [SIMTIME] [SEED] [--bottleneck MBPS] [--warm-ahead on|off] [--set KEY=VALUE]... [--json FILE]`.
//! Builds the same scenario as `ccsim bench dumbbell` (python/ccsim/bench.py, ns-2's
//! behaviours) and prints the same key=value lines.

#[path = "../tests/common/dumbbell.rs"]
mod dumbbell;
use dumbbell::dumbbell_toml_at;

/// As the Python module: large state on huge pages (`ccsim::huge_pages`).
#[global_allocator]
static ALLOC: ccsim::huge_pages::HugePages = ccsim::huge_pages::HugePages;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut option = |name: &str| -> Option<String> {
        let i = args.iter().position(|a| a == name)?;
        let value = args.get(i + 1).cloned();
        args.drain(i..(i + 2).min(args.len()));
        value
    };
    let mut sets = Vec::new();
    while let Some(set) = option("--set") {
        sets.push(set);
    }
    let json = option("--json");
    let warm = option("--warm-ahead");
    let mbps: u32 = option("--bottleneck").map_or(100, |s| s.parse().unwrap_or(0));
    let usage = || -> ! {
        eprintln!("usage: dumbbell N [SIMTIME] [SEED] [--bottleneck MBPS (a multiple of 100)] [--warm-ahead on|off] [--set KEY=VALUE]... [--json FILE]");
        std::process::exit(2)
    };
    if mbps < 100 || !mbps.is_multiple_of(100) || warm.as_deref().is_some_and(|w| w != "on" && w != "off") {
        usage();
    }
    let n: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or_else(|| usage());
    let sim_time: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(60.0);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let text = dumbbell_toml_at(n, sim_time, seed, 0.0, mbps);
    let t0 = std::time::Instant::now();
    let mut sim = ccsim::scenario::load(&text, "dumbbell", &sets, None).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    if let Some(w) = &warm {
        sim.set_warm_ahead(w == "on");
    }
    let t1 = std::time::Instant::now();
    sim.run();
    let t2 = std::time::Instant::now();
    let r = ccsim::report::Report::new(&mut sim);
    let q = r.queues.iter().find(|q| q.link == "R1->R2").expect("bottleneck queue");
    let delivered = r.totals.delivered_bytes;
    let (setup, run) = ((t1 - t0).as_secs_f64(), (t2 - t1).as_secs_f64());
    println!("simulator=ccsim");
    println!("n_flows={n}");
    println!("bottleneck_mbps={mbps}");
    println!("sim_time_s={}", r.duration_s);
    println!("delivered_packets={}", delivered / 1000);
    println!("goodput_bps={}", delivered as f64 * 8.0 / r.duration_s);
    println!("bottleneck_drops={}", q.drops);
    println!("bottleneck_early_drops={}", q.drops_early);
    println!("bottleneck_forced_drops={}", q.drops_forced + q.drops_overflow);
    println!("mean_queue_packets={:.2}", q.mean_len_packets);
    println!("setup_s={setup:.4}");
    println!("run_s={run:.4}");
    println!("events_processed={}", r.events_processed);
    println!("events_per_second={:.0}", r.events_processed as f64 / run.max(1e-9));
    if let Some(path) = json {
        std::fs::write(&path, r.to_json()).expect("write the report");
    }
}
