//! IP fast reroute timelines, loop-free alternates, TTL on the two paths, and DAS on the
//! DAS paper's networks.

mod common;
use ccsim::engine::Simulation;
use ccsim::report::Report;
use ccsim::router::frr::{choose_backup, loop_free_alternate, Backup};
use ccsim::sim::SimTime;
use common::*;

fn with(file: &str, overrides: &[&str]) -> Simulation {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    ccsim::scenario::load(&scenario_file(file), file, &o, None).unwrap_or_else(|e| panic!("{e}"))
}

fn link(sim: &Simulation, name: &str) -> u32 {
    common::link(sim, name) as u32
}

fn node(sim: &Simulation, name: &str) -> u32 {
    sim.net.node_id(name).unwrap()
}

fn at(s: f64) -> SimTime {
    SimTime::from_secs_f64(s)
}

#[test]
fn fig2_loop_free_alternate_is_the_papers_backup_path() {
    let sim = with("das_fig2.toml", &[]);
    let n = sim.net.nodes.len();
    let lfa = loop_free_alternate(n, &sim.net.links, link(&sim, "A->C"), node(&sim, "R"));
    assert_eq!(lfa, Some(link(&sim, "A->B")), "A-B-C protects A-C toward R");
    let lfa = loop_free_alternate(n, &sim.net.links, link(&sim, "C->A"), node(&sim, "S"));
    assert_eq!(lfa, Some(link(&sim, "C->B")), "C-B-A protects C-A toward S");
}

#[test]
fn sharp_network_needs_the_explicit_repair_path() {
    // With unit costs, B reaches R0 at cost 3 either through A or through D, so B fails
    // RFC 5286's strict inequality dist(B,R0) < dist(B,A) + dist(A,R0) (3 < 3): no LFA. The
    // paper's highlighted path A-B-D-C is given explicitly and tunnelled.
    let sim = with("das_sharp.toml", &[]);
    let n = sim.net.nodes.len();
    let (ac, r0) = (link(&sim, "A->C"), node(&sim, "R0"));
    assert_eq!(loop_free_alternate(n, &sim.net.links, ac, r0), None);
    let frr = sim.mechanism::<ccsim::router::frr::FastReroute>().unwrap();
    assert_eq!(choose_backup(&frr.cfg, n, &sim.net.links, ac, r0), Some(Backup::Tunnel(0)));
    let hops: Vec<&str> = frr.cfg.repair_paths[0].hops.iter().map(|&l| sim.net.links[l as usize].name.as_str()).collect();
    assert_eq!(hops, vec!["A->B", "B->D", "D->C"]);
}

/// Bytes carried by a link between two times.
fn bytes_between(sim: &mut Simulation, name: &str, from: f64, to: f64) -> u64 {
    let l = link(sim, name) as usize;
    sim.run_until(at(from));
    let a = sim.net.links[l].stats.tx_bytes;
    sim.run_until(at(to));
    sim.net.links[l].stats.tx_bytes - a
}

#[test]
fn transient_failure_returns_traffic_to_the_primary_at_repair() {
    let mut sim = with("das_fig2.toml", &[]);
    assert!(bytes_between(&mut sim, "A->C", 2.0, 3.0) > 0);
    assert_eq!(bytes_between(&mut sim, "A->B", 2.0, 2.999), 0, "backup idle before the failure");
    let mut sim = with("das_fig2.toml", &[]);
    assert_eq!(bytes_between(&mut sim, "A->C", 3.001, 7.999), 0, "nothing on the failed link");
    let mut sim = with("das_fig2.toml", &[]);
    assert!(bytes_between(&mut sim, "A->B", 3.1, 7.9) > 1_000_000, "traffic on the backup");
    let mut sim = with("das_fig2.toml", &[]);
    assert_eq!(bytes_between(&mut sim, "A->B", 8.001, 11.0), 0, "back on the primary at repair");
    sim.run();
    let r = Report::new(&mut sim);
    assert_eq!((r.ipfrr.detections, r.ipfrr.transient_repairs, r.ipfrr.reconvergences), (2, 2, 0));
}

#[test]
fn persistent_failure_moves_traffic_only_after_hold_down_and_reconvergence() {
    // A-C never recovers; hold-down 1 s; routers update their tables 50-200 ms later.
    let overrides = ["failures.0.duration=", "ipfrr.hold_down=1s", "ipfrr.reconvergence_delay={ uniform = [\"50ms\", \"200ms\"] }"];
    let mut sim = with("das_fig2.toml", &overrides);
    let (a, r, ab) = (node(&sim, "A"), node(&sim, "R"), link(&sim, "A->B"));
    let ac = link(&sim, "A->C");
    sim.run_until(at(3.5));
    assert_eq!(sim.net.routes.next_hop(a, r), Some(ac), "A's table still names the failed link");
    let repaired = sim.net.nodes[a as usize].stats.backup_forwarded;
    assert!(repaired > 0, "traffic goes over the repair");
    sim.run_until(at(4.0 + 0.049));
    assert!(sim.net.nodes[a as usize].stats.backup_forwarded > repaired, "still repairing during the hold-down");
    sim.run_until(at(4.2 + 1e-6));
    assert_eq!(sim.net.routes.next_hop(a, r), Some(ab), "converged: the new shortest path");
    let done = sim.net.nodes[a as usize].stats.backup_forwarded;
    sim.run_until(at(6.0));
    assert_eq!(sim.net.nodes[a as usize].stats.backup_forwarded, done, "no more repairs after convergence");
    sim.run();
    let rep = Report::new(&mut sim);
    assert_eq!(rep.ipfrr.reconvergences, 1);
    assert_eq!(rep.ipfrr.transient_repairs, 0);
}

#[test]
fn ttl_at_the_receiver_is_higher_on_the_primary_than_on_the_backup() {
    let mut sim = with("das_fig2.toml", &["flows.0.tcp.das=true"]);
    let ttl = |sim: &Simulation| sim.flows[0].receiver().unwrap().last_in_order_ttl();
    sim.run_until(at(2.9));
    assert_eq!(ttl(&sim), Some(62), "S-A-C-R: two routers");
    sim.run_until(at(5.0));
    assert_eq!(ttl(&sim), Some(61), "S-A-B-C-R: three routers");
    sim.run_until(at(10.0));
    assert_eq!(ttl(&sim), Some(62));
}

/// Runs Fig. 2 with the repair moved through one round trip, where the switch back may fall
/// inside a window's burst; returns (false fast retransmits, timeouts) per run.
fn fig2_sweep(das: bool) -> Vec<(u64, u64)> {
    (0..14)
        .map(|k| {
            let d = format!("failures.0.duration={}", 5.0 + 0.003 * k as f64);
            let das = format!("flows.0.tcp.das={das}");
            let mut sim = with("das_fig2.toml", &[&d, &das]);
            sim.run();
            let f = &Report::new(&mut sim).flows[0];
            (f.false_fast_retransmits, f.timeouts)
        })
        .collect()
}

#[test]
fn fig2_without_das_has_false_fast_retransmits_and_with_das_none() {
    let off = fig2_sweep(false);
    assert!(off.iter().any(|&(fr, _)| fr > 0), "reordering at the switch back fools the sender: {off:?}");
    let on = fig2_sweep(true);
    assert!(on.iter().all(|&(fr, to)| fr == 0 && to == 0), "DAS suppresses them: {on:?}");
}

#[test]
fn das_still_repairs_real_losses_on_the_backup_path_by_fast_retransmit() {
    let mut sim = with("das_fig2.toml", &["flows.0.tcp.das=true", "links.2.loss=0.002"]);
    sim.run();
    let ab = link(&sim, "A->B") as usize;
    let lost = sim.net.links[ab].stats.lost_random;
    let r = Report::new(&mut sim);
    let f = &r.flows[0];
    assert!(lost > 0, "the test must lose packets on the backup path");
    assert!(f.fast_retransmits - f.false_fast_retransmits > 0, "real losses repaired by fast retransmit");
    assert_eq!(f.timeouts, 0, "no loss left to the retransmission timer: {f:?}");
}
