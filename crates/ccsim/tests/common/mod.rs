//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod bulk;
pub mod dumbbell;
pub mod tshark;

use ccsim::engine::Simulation;
use ccsim::report::Report;

/// A directory of its own for one test's captures, emptied: `suite/test` under the target's
/// temporary directory.
pub fn out_dir(suite: &str, test: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(suite).join(test);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Builds the scenario with captures under `dir`, runs it and closes the captures.
pub fn run_in(text: &str, dir: &std::path::Path) -> Simulation {
    let mut sim = ccsim::scenario::load_in(text, "<test>", &[], None, Some(dir)).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.finish_traces().unwrap();
    sim
}

pub fn load(text: &str) -> Simulation {
    ccsim::scenario::load(text, "<test>", &[], None).unwrap_or_else(|e| panic!("{e}"))
}

pub fn run(text: &str) -> (Simulation, Report) {
    let mut sim = load(text);
    sim.run();
    let report = Report::new(&mut sim);
    (sim, report)
}

/// Runs `text` with `--set`-style overrides.
pub fn run_with(text: &str, overrides: &[&str]) -> (Simulation, Report) {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = ccsim::scenario::load(text, "<test>", &o, None).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    let report = Report::new(&mut sim);
    (sim, report)
}

pub fn scenario_file(name: &str) -> String {
    let path = format!("{}/../../scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Index of the link named `name` ("A->B").
pub fn link(sim: &Simulation, name: &str) -> usize {
    sim.net.links.iter().position(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"))
}

/// A sum over every router's ACC counters (0 without ACC).
pub fn acc_total(sim: &Simulation, f: impl Fn(&ccsim::router::acc::AccStats) -> u64) -> u64 {
    sim.mechanism::<ccsim::router::acc::Acc>().map_or(0, |a| a.stats.iter().map(f).sum())
}

/// Every packet is delivered, dropped once, or still in the network: per flow (data, ACKs,
/// datagrams, RDP's control segments), per queue, for ACC controls, and for drops (each
/// counted in exactly one place).
pub fn assert_conserved(sim: &Simulation) {
    use ccsim::engine::Transport;
    use ccsim::net::Kind;
    let mut controls_received = 0;
    for (i, f) in sim.flows.iter().enumerate() {
        let (fwd, rev) = sim.packets_in_network(i as u32);
        match &f.transport {
            Transport::Tcp { tx, rx } => {
                assert_eq!(tx.stats.packets_sent, rx.stats.packets_received + f.net.forward_dropped + fwd, "data of {}", f.name());
                assert_eq!(rx.stats.acks_sent, tx.stats.acks_received + f.net.reverse_dropped + rev, "ACKs of {}", f.name());
                controls_received += tx.stats.acc_controls;
            }
            Transport::Udp(u) => {
                assert_eq!(u.stats.packets_sent, u.stats.packets_received + f.net.forward_dropped + fwd, "datagrams of {}", f.name());
            }
            Transport::Rdp { tx, rx } => {
                let sent = tx.stats.packets_sent + tx.rdp_stats.syns_sent + tx.rdp_stats.control_sent;
                let received = rx.stats.packets_received + rx.rdp_stats.control_received;
                assert_eq!(sent, received + f.net.forward_dropped + fwd, "segments of {}", f.name());
                assert_eq!(rx.stats.acks_sent, tx.stats.acks_received + f.net.reverse_dropped + rev, "ACKs of {}", f.name());
                controls_received += tx.stats.acc_controls;
            }
        }
    }
    for l in &sim.net.links {
        let s = &l.queue.stats;
        assert_eq!(s.arrivals, s.departures + s.drops() + l.queue.len() as u64, "queue {}", l.name);
    }
    let controls_in_network: u64 = sim.net.links.iter().map(|l| l.packets(&sim.net.pipes, sim.now).filter(|p| p.kind == Kind::AccControl).count() as u64).sum();
    let lost = acc_total(sim, |s| s.controls_lost);
    assert_eq!(acc_total(sim, |s| s.controls_sent), controls_received + lost + controls_in_network, "ACC controls");
    let flow_drops: u64 = sim.flows.iter().map(|f| f.net.forward_dropped + f.net.reverse_dropped).sum();
    let queue_drops: u64 = sim.net.links.iter().map(|l| l.queue.stats.drops() + l.stats.lost_random + l.stats.lost_down).sum();
    let node_drops: u64 = sim.net.nodes.iter().map(|n| n.stats.ttl_expired + n.stats.no_route).sum();
    assert_eq!(flow_drops + lost, queue_drops + node_drops + acc_total(sim, |s| s.packets_filtered), "drops");
}
