//! The DUMBBELL-N speed benchmark (benchmarks/README.md) straight from Rust, for profiling
//! without Python: `cargo run --release --example dumbbell N [SIMTIME] [SEED] [--json FILE]`.
//! Builds the same scenario as `ccsim bench dumbbell` (python/ccsim/bench.py, ns-2's
//! behaviours) and prints the same key=value lines.

/// The scenario `ccsim.bench.dumbbell(n, sim_time, seed)` builds, as TOML.
pub fn dumbbell_toml(n: u32, sim_time: f64, seed: u64) -> String {
    format!(
        r#"name = "dumbbell-{n}"
duration = "{sim_time}s"
seed = {seed}
hosts = ["S{{1..{n}}}", "D{{1..{n}}}"]
routers = ["R1", "R2"]

[[links]]
between = ["S{{1..{n}}}", "R1"]
rate = "1Gbps"
delay = "1ms"
queue = {{ limit = 10000 }}

[[links]]
between = ["R1", "R2"]
rate = "100Mbps"
delay = "20ms"
queue = {{ discipline = "red", limit = 200, min_th = 30, max_th = 90, max_p = 0.1, w_q = 0.002, mean_packet_size = 1040, wait = true }}
queue_reverse = {{ limit = 10000 }}

[[links]]
between = ["R2", "D{{1..{n}}}"]
rate = "1Gbps"
delay = "1ms"
queue = {{ limit = 10000 }}

[[flows]]
name = "bulk"
from = "S{{1..{n}}}"
to = "D{{1..{n}}}"
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ variant = "newreno", mss = 1000, rwnd = 1073741824, partial_ack_timer = "slow-but-steady" }}
"#
    )
}

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
    let text = dumbbell_toml(n, sim_time, seed);
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
