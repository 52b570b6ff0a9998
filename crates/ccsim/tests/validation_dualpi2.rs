//! DualPI2 (RFC 9332) end to end, with the senders ccsim has: Classic NewReno and CUBIC
//! flows, ECN-capable or not, through its Classic queue are held near its 15 ms target with
//! the link full, where a FIFO of the same buffer fills; and ECT(1) packets built by hand
//! and put through the egress queue of a 100 Mb/s link go to the L4S queue, pass a Classic
//! backlog, and are marked by the 1 ms step exactly when they queued that long.
//!
//! With TCP Prague, the scalable sender on ECT(1): `validation_l4s.rs` (the L4S queue's p99
//! delay under load, a Prague and a CUBIC flow sharing the link within 2:1).

mod common;
use ccsim::packet::{Ecn, Endpoints, Packet, Seq};
use ccsim::queue::dualpi2::{DualPi2, DualPi2Params};
use ccsim::queue::{Discipline, EgressQueue, Limit};
use ccsim::signal::SignalPolicy;
use ccsim::sim::{Dur, Rng, SimTime};
use common::bulk::{bottleneck, equal_access, utilisation, Bulk};
use common::*;

/// `n` bulk flows S_i -> D_i across R1 -> R2 (100 Mb/s, 20 ms, `queue`), `tcp` the inside of
/// their `tcp` table.
fn dumbbell(n: u32, queue: &str, tcp: &str) -> String {
    let tcp = format!("mss = 1000{tcp}");
    Bulk { n, rate: "100Mbps", delay: "20ms", queue, tcp: &tcp, duration: "25s", warmup: "5s", seed: 3, access: &equal_access(n) }.toml()
}

#[test]
fn classic_newreno_flows_are_held_near_the_15_ms_target_with_the_link_full() {
    let (_, r) = run(&dumbbell(10, r#"{ discipline = "dualpi2", limit = 1000 }"#, ""));
    let q = bottleneck(&r);
    // A 1000-packet FIFO would hold up to 83 ms at 100 Mb/s; DualPI2 drops at dequeue, with
    // p'^2, until the Classic delay settles near 15 ms.
    assert!((12.0..18.0).contains(&q.mean_delay_ms), "mean queueing delay {} ms", q.mean_delay_ms);
    assert!(q.drops_dequeue > 0 && q.drops_overflow == 0 && q.drops_early == 0, "{q:?}");
    assert!(utilisation(&r) > 0.95, "utilisation {}", utilisation(&r));
    // The same flows through a FIFO of the same buffer: a standing queue far above.
    let (_, fifo) = run(&dumbbell(10, r#"{ discipline = "droptail", limit = 1000 }"#, ""));
    assert!(bottleneck(&fifo).mean_delay_ms > 40.0, "FIFO: {} ms", bottleneck(&fifo).mean_delay_ms);
}

#[test]
fn ecn_capable_cubic_flows_are_marked_not_dropped_and_held_near_the_target() {
    let queue = r#"{ discipline = "dualpi2", limit = 1000, signal = "ecn" }"#;
    let (sim, r) = run(&dumbbell(10, queue, r#", variant = "cubic", ecn = true"#));
    let q = bottleneck(&r);
    // ECT(0) is Classic: p'^2 marks, no drops (p' never reaches the overload at 1/k).
    assert!((12.0..18.0).contains(&q.mean_delay_ms), "mean queueing delay {} ms", q.mean_delay_ms);
    assert!(q.marks_dequeue > 0 && q.drops == 0, "{q:?}");
    assert!(utilisation(&r) > 0.95, "utilisation {}", utilisation(&r));
    assert_conserved(&sim);
}

/// One packet offered to the hand-driven link: its codepoint and arrival time.
struct Arrival {
    ecn: Ecn,
    t: SimTime,
}

/// What became of a packet: its codepoint, when it arrived and left, its codepoint on
/// leaving, and the L4S packets queued with it (itself included) when it left.
#[derive(Debug)]
struct Departure {
    ecn: Ecn,
    arrived: SimTime,
    left: SimTime,
    ecn_out: Ecn,
    l4s_queued: u32,
}

/// Puts `arrivals` (in time order) through a DualPI2 egress queue (`signal = "ecn"`) of a
/// 100 Mb/s link of 1500-byte packets, transmitting whenever the link is free, as the link
/// does for a discipline that decides at dequeue. Returns the departures, the marks DualPI2
/// counts as the step's, and the largest base probability p' it had after a departure.
fn drive(arrivals: &[Arrival]) -> (Vec<Departure>, u64, f64) {
    let d = DualPi2::new(DualPi2Params::default(), Limit::Packets(1000)).unwrap();
    let mut q = EgressQueue::new(Limit::Packets(1000), Discipline::DualPi2(Box::new(d)), SignalPolicy::Ecn, Rng::from_seed(1), vec![]);
    let tx = Dur::from_micros(120); // 1500 bytes at 100 Mb/s
    let ends = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 10_000, dport: 80 };
    let (mut out, mut next, mut free, mut l4s_queued, mut max_p) = (Vec::new(), 0, SimTime::ZERO, 0u32, 0f64);
    while next < arrivals.len() || !q.is_empty() {
        if next < arrivals.len() && (q.is_empty() || arrivals[next].t < free) {
            let a = &arrivals[next];
            let mut p = Packet::tcp_data(&ends, Seq(next as u32), 1460, 64, a.t);
            p.ecn = a.ecn;
            let (verdict, action) = q.classify(&p, a.t);
            assert!(q.commit(p, verdict, action, a.t), "the buffer never fills");
            l4s_queued += (a.ecn == Ecn::Ect1) as u32;
            free = free.max(a.t);
            next += 1;
            continue;
        }
        // Nothing is dropped at dequeue here (the Classic delay stays below the target, p'
        // near 0.01, p'^2 near 1e-4), so each opportunity sends one.
        let (p, verdict, action) = q.next_departure(free).expect("a packet is queued");
        let i = p.seq.0 as usize;
        let queued = l4s_queued;
        if arrivals[i].ecn == Ecn::Ect1 {
            l4s_queued -= 1;
        }
        let sent = q.finish_departure(p, verdict, action, free).expect("no drops");
        out.push(Departure { ecn: arrivals[i].ecn, arrived: arrivals[i].t, left: free, ecn_out: sent.ecn, l4s_queued: queued });
        free += tx;
        max_p = max_p.max(q.discipline().probe().prob);
    }
    let Discipline::DualPi2(d) = q.discipline() else { unreachable!() };
    (out, d.step_marks, max_p)
}

#[test]
fn ect1_packets_pass_a_classic_backlog_and_are_marked_by_the_1_ms_step() {
    // A Classic backlog of 50 packets at 0 (6 ms of transmission), and bursts of 25 ECT(1)
    // packets every 10 ms (3 ms of transmission each); Classic packets at a third of the
    // link rate besides.
    let mut arrivals: Vec<Arrival> = (0..50).map(|_| Arrival { ecn: Ecn::NotEct, t: SimTime::ZERO }).collect();
    for burst in 0..20u64 {
        arrivals.extend((0..25).map(|_| Arrival { ecn: Ecn::Ect1, t: SimTime(burst * 10_000_000 + 1) }));
    }
    arrivals.extend((0..550u64).map(|i| Arrival { ecn: Ecn::NotEct, t: SimTime(i * 360_000 + 2) }));
    arrivals.sort_by_key(|a| a.t);
    let (out, step_marks, max_p) = drive(&arrivals);
    assert_eq!(out.len(), arrivals.len());
    let sojourn = |d: &Departure| d.left.since(d.arrived);
    let l4s: Vec<&Departure> = out.iter().filter(|d| d.ecn == Ecn::Ect1).collect();
    // The L4S queue goes first: no L4S packet waits behind the Classic backlog (its burst
    // takes 3 ms to send, less the Classic share).
    let worst_l4s = l4s.iter().map(|d| sojourn(d)).max().unwrap();
    assert!(worst_l4s < Dur::from_micros(3_500), "L4S waited {worst_l4s:?}");
    let worst_classic = out.iter().filter(|d| d.ecn == Ecn::NotEct).map(sojourn).max().unwrap();
    assert!(worst_classic > Dur::from_millis(6), "the Classic backlog waited {worst_classic:?}");
    // The step: every L4S packet that waited at least 1 ms with another L4S packet queued
    // behind it is marked CE. The Classic delay stays below the 15 ms target, so p' stays
    // small (its proportional term answers the backlog at the first update) and the
    // coupled marks, with probability k p', are at most a few.
    let step: Vec<bool> = l4s.iter().map(|d| sojourn(d) >= Dur::from_millis(1) && d.l4s_queued >= 2).collect();
    let stepped = step.iter().filter(|s| **s).count();
    assert!(l4s.iter().zip(&step).all(|(d, s)| !s || d.ecn_out == Ecn::Ce), "a packet past the step left unmarked");
    assert_eq!(step_marks, stepped as u64, "the marks DualPI2 counts as the step's");
    assert!(stepped > 100 && stepped < l4s.len() - 100, "{stepped} of {} past the step", l4s.len());
    let coupled = l4s.iter().zip(&step).filter(|(d, s)| !**s && d.ecn_out == Ecn::Ce).count();
    assert!(max_p < 0.02 && coupled <= 2, "p' up to {max_p}, {coupled} coupled marks");
    // Classic packets, with p'^2 under 4e-4, are not signalled.
    assert!(out.iter().filter(|d| d.ecn == Ecn::NotEct).all(|d| d.ecn_out == Ecn::NotEct));
}
