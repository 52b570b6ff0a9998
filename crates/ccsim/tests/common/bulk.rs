//! A dumbbell of bulk TCP flows for the tests of queue disciplines and window algorithms:
//! `n` flows S_i -> D_i through the bottleneck R1 -> R2, and the bottleneck's numbers from
//! a report.

use ccsim::report::{QueueReport, Report};

/// The scenario's settings, each as the TOML written for it.
pub struct Bulk<'a> {
    pub n: u32,
    /// The bottleneck's rate, delay and queue table.
    pub rate: &'a str,
    pub delay: &'a str,
    pub queue: &'a str,
    /// The inside of every flow's `tcp` table.
    pub tcp: &'a str,
    pub duration: &'a str,
    pub warmup: &'a str,
    pub seed: u64,
    /// The `[[links]]` tables from the senders to R1 ([`equal_access`], or one per sender).
    pub access: &'a str,
}

impl Bulk<'_> {
    pub fn toml(&self) -> String {
        let Bulk { n, rate, delay, queue, tcp, duration, warmup, seed, access } = self;
        format!(
            r#"
duration = "{duration}"
warmup = "{warmup}"
seed = {seed}
hosts = ["S{{1..{n}}}", "D{{1..{n}}}"]
routers = ["R1", "R2"]
{access}
[[links]]
between = ["R1", "R2"]
rate = "{rate}"
delay = "{delay}"
queue = {queue}
[[links]]
between = ["R2", "D{{1..{n}}}"]
rate = "1Gbps"
delay = "1ms"
[[flows]]
from = "S{{1..{n}}}"
to = "D{{1..{n}}}"
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ {tcp} }}
"#
        )
    }
}

/// Access links of 1 Gb/s and 1 ms from every sender to R1.
pub fn equal_access(n: u32) -> String {
    format!("[[links]]\nbetween = [\"S{{1..{n}}}\", \"R1\"]\nrate = \"1Gbps\"\ndelay = \"1ms\"")
}

/// The bottleneck's queue.
pub fn bottleneck(r: &Report) -> &QueueReport {
    r.queues.iter().find(|q| q.link == "R1->R2").expect("the bottleneck queue")
}

/// The bottleneck's utilisation.
pub fn utilisation(r: &Report) -> f64 {
    r.links.iter().find(|l| l.link == "R1->R2").expect("the bottleneck").utilisation
}
