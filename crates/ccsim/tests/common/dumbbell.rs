//! The DUMBBELL-N benchmark scenario (benchmarks/README.md) as TOML, shared by the
//! benchmark example and the tests.

/// The scenario `ccsim.bench.dumbbell(n, sim_time, seed)` builds, as TOML.
pub fn dumbbell_toml(n: u32, sim_time: f64, seed: u64, warmup: f64) -> String {
    format!(
        r#"name = "dumbbell-{n}"
duration = "{sim_time}s"
warmup = "{warmup}s"
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
