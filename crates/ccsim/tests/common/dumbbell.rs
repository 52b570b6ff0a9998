//! The DUMBBELL-N benchmark scenario (benchmarks/README.md) as TOML, shared by the
//! benchmark example and the tests.

/// The scenario `ccsim.bench.dumbbell(n, sim_time, seed)` builds, as TOML (ns-2's rules,
/// as `benchmarks/ns2/dumbbell.tcl` sets them): a 100 Mb/s bottleneck. Its report keeps no
/// queue distributions: the benchmark prints none.
#[allow(dead_code)] // not every test binary that includes this module uses both
pub fn dumbbell_toml(n: u32, sim_time: f64, seed: u64, warmup: f64) -> String {
    dumbbell_toml_at(n, sim_time, seed, warmup, 100)
}

/// The same with a bottleneck of `mbps` Mb/s (a multiple of 100) and a buffer to match, as
/// `ccsim.bench.dumbbell(..., bottleneck_mbps=mbps)`: RED's limit and thresholds grow with
/// the rate and its weight shrinks with it, so that the queue holds the same time's worth
/// of packets and its average has the same time constant.
pub fn dumbbell_toml_at(n: u32, sim_time: f64, seed: u64, warmup: f64, mbps: u32) -> String {
    assert!(mbps >= 100 && mbps.is_multiple_of(100), "the bottleneck is a multiple of 100 Mb/s");
    let k = mbps / 100;
    let (limit, min_th, max_th, w_q) = (200 * k, 30 * k, 90 * k, 0.002 / k as f64);
    format!(
        r#"name = "dumbbell-{n}"
profile = "ns2"
duration = "{sim_time}s"
warmup = "{warmup}s"
seed = {seed}
hosts = ["S{{1..{n}}}", "D{{1..{n}}}"]
routers = ["R1", "R2"]

[report]
queue_distributions = false

[[links]]
between = ["S{{1..{n}}}", "R1"]
rate = "1Gbps"
delay = "1ms"
queue = {{ limit = 10000 }}

[[links]]
between = ["R1", "R2"]
rate = "{mbps}Mbps"
delay = "20ms"
queue = {{ discipline = "red", limit = {limit}, min_th = {min_th}, max_th = {max_th}, max_p = 0.1, w_q = {w_q}, mean_packet_size = 1040, wait = true, gentle = false, byte_mode = false }}
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
tcp = {{ variant = "newreno", mss = 1000, rwnd = 1073741824, init_cwnd = 1, clock_granularity = "1ms" }}
"#
    )
}
