//! The per-packet event log against the counters kept independently of it (queue, link,
//! node and receiver statistics), packet by packet where a packet can be followed, and with
//! and without the log (it observes the run, it does not change it).

mod common;

use ccsim::trace::packet_log::{DropReason, Event, Record, NONE};

/// A RED+ECN dumbbell of 4 flows (some packets not ECN-capable: the UDP source), with the
/// bottleneck failing for 200 ms, so that every event and most drop reasons occur.
fn scenario(log: &str) -> String {
    format!(
        r#"
duration = "6s"
hosts = ["S{{1..4}}", "D{{1..4}}", "U", "V"]
routers = ["R1", "R2"]
[[links]]
between = ["S{{1..4}}", "R1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
between = ["R1", "R2"]
rate = "5Mbps"
delay = "10ms"
queue = {{ discipline = "red", limit = 40, min_th = 5, max_th = 15, max_p = 0.1, signal = "ecn" }}
[[links]]
between = ["R2", "D{{1..4}}"]
rate = "100Mbps"
delay = "1ms"
[[links]]
between = ["U", "R1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
between = ["R2", "V"]
rate = "100Mbps"
delay = "1ms"
loss = 0.01
[[flows]]
name = "bulk"
from = "S{{1..4}}"
to = "D{{1..4}}"
tcp = {{ ecn = true }}
[[flows]]
name = "cbr"
from = "U"
to = "V"
transport = "udp"
udp = {{ rate = "1Mbps" }}
[[failures]]
link = "R1->R2"
down = "3s"
duration = "200ms"
{log}
"#
    )
}

fn logged(log: &str) -> (ccsim::engine::Simulation, ccsim::report::Report, Vec<Record>) {
    let (sim, report) = common::run(&scenario(log));
    let records = sim.packet_log.as_ref().expect("a log").records(sim.now);
    (sim, report, records)
}

fn count(records: &[Record], f: impl Fn(&Record) -> bool) -> u64 {
    records.iter().filter(|r| f(r)).count() as u64
}

#[test]
fn the_log_agrees_with_every_counter() {
    let (sim, report, rec) = logged("[packet_log]");
    assert!(rec.windows(2).all(|w| w[0].t <= w[1].t), "sorted by time");
    let bn = common::link(&sim, "R1->R2") as u32;
    let q = sim.net.links[bn as usize].queue.stats;
    let at = |event: Event, reason: DropReason| count(&rec, |r| r.link == bn && r.event == event && r.reason == reason);
    assert_eq!(at(Event::Enqueue, DropReason::None), q.arrivals - q.drops_overflow - q.drops_early - q.drops_forced);
    assert_eq!(at(Event::Drop, DropReason::Overflow), q.drops_overflow);
    assert_eq!(at(Event::Drop, DropReason::Early), q.drops_early);
    assert_eq!(at(Event::Drop, DropReason::Forced), q.drops_forced);
    assert_eq!(at(Event::Mark, DropReason::None), q.marks_early + q.marks_forced);
    assert!(q.marks_early > 0 && q.drops_early > 0, "ECN marks for TCP, drops for UDP");
    // Dequeues: every departure; none for the packets the failure flushed from the buffer.
    assert_eq!(at(Event::Dequeue, DropReason::None), q.departures);
    let l = sim.net.links[bn as usize].stats;
    assert_eq!(at(Event::Drop, DropReason::Down), q.drops_link_down + l.lost_down);
    assert!(l.lost_down > q.drops_link_down && q.drops_link_down > 0);
    // What the routers received is what they forwarded or discarded.
    for r in ["R1", "R2"] {
        let n = sim.net.nodes.iter().position(|x| x.name == r).unwrap();
        let st = sim.net.nodes[n].stats;
        assert_eq!(count(&rec, |x| x.event == Event::Receive && x.node == n as u32), st.forwarded + st.no_route + st.ttl_expired, "{r}");
    }
    // Every packet that finished transmission on the bottleneck and was not lost on the
    // wire was received at R2, unless still propagating at the end or lost in the failure.
    let received = count(&rec, |r| r.link == bn && r.event == Event::Receive);
    assert!(received <= l.tx_packets && l.tx_packets - received <= l.lost_down + 20, "{received} of {}", l.tx_packets);
    // The lossy link's random losses.
    let rv = common::link(&sim, "R2->V") as u32;
    let wire = count(&rec, |r| r.link == rv && r.event == Event::Drop && r.reason == DropReason::Wire);
    assert_eq!(wire, sim.net.links[rv as usize].stats.lost_random);
    assert!(wire > 0);
    // Data segments received by the TCP receivers are the receptions at the D hosts.
    let data_at_receivers: u64 = sim.flows.iter().filter_map(|f| f.receiver()).map(|rx| rx.stats.packets_received).sum();
    let ds: Vec<u32> = (1..=4).map(|i| sim.net.nodes.iter().position(|n| n.name == format!("D{i}")).unwrap() as u32).collect();
    assert_eq!(count(&rec, |r| r.event == Event::Receive && ds.contains(&r.node) && r.kind == 0), data_at_receivers);
    // Packet by packet, on the bottleneck: each dequeue follows its enqueue, FIFO.
    let key = |r: &Record| (r.flow, r.seq, r.ack, r.kind, r.size);
    let enq: Vec<&Record> = rec.iter().filter(|r| r.link == bn && r.event == Event::Enqueue).collect();
    let deq: Vec<&Record> = rec.iter().filter(|r| r.link == bn && r.event == Event::Dequeue).collect();
    let before_failure = enq.iter().take_while(|r| r.t.as_secs_f64() < 2.9).count();
    for (e, d) in enq.iter().zip(&deq).take(before_failure) {
        assert_eq!(key(e), key(d));
        assert!(d.t >= e.t);
    }
    assert!(report.totals.queue_drops > 0);
}

#[test]
fn the_log_observes_the_run_without_changing_it() {
    let (_, plain) = common::run(&scenario(""));
    let (_, with_log, _) = logged("[packet_log]");
    let json = |r: &ccsim::report::Report| {
        let mut v = serde_json::to_value(r).unwrap();
        v.as_object_mut().unwrap().remove("events_processed");
        v.to_string()
    };
    assert_eq!(json(&plain), json(&with_log));
    assert_eq!(plain.events_processed, with_log.events_processed, "the log adds no event");
    let (sim, _) = common::run(&scenario("[packet_log]\nenabled = false"));
    assert!(sim.packet_log.is_none());
}

#[test]
fn filters_keep_only_the_chosen_events_places_and_flows() {
    let (sim, _, all) = logged("[packet_log]");
    let (_, _, some) = logged("[packet_log]\nevents = [\"drop\", \"mark\"]\nlinks = [\"R1->R2\"]\nnodes = [\"V\"]\nflows = [\"bulk[2]\", \"cbr\"]");
    let bn = common::link(&sim, "R1->R2") as u32;
    let v = sim.net.nodes.iter().position(|n| n.name == "V").unwrap() as u32;
    let flows = [2u32, 4];
    let expected: Vec<Record> =
        all.iter().filter(|r| matches!(r.event, Event::Drop | Event::Mark) && (r.link == bn || r.node == v) && flows.contains(&r.flow)).copied().collect();
    assert!(!expected.is_empty());
    assert_eq!(some, expected);
    assert!(some.iter().all(|r| r.flow != NONE));
}

#[test]
fn the_bound_keeps_the_first_events() {
    let (_, _, all) = logged("[packet_log]");
    let (sim, _) = common::run(&scenario("[packet_log]\nmax_events = 1000"));
    let log = sim.packet_log.as_ref().unwrap();
    assert_eq!(log.len(), 1000);
    assert!(log.truncated());
    // Kept in logging order; dequeues are logged when their packet is queued, so the kept
    // records are the earliest of the full log but for dequeues logged before their time.
    let kept = log.records(sim.now);
    assert!(kept.iter().all(|r| all.contains(r)));
}

#[test]
fn bad_tables_name_their_field() {
    for (table, msg) in [
        ("events = [\"arrive\"]", "<test>: packet_log.events[0]: unknown event \"arrive\" (expected enqueue, dequeue, drop, mark, receive)"),
        ("links = [\"R2->R1x\"]", "<test>: packet_log.links[0]: unknown link \"R2->R1x\" (links are named \"A->B\")"),
        ("nodes = [\"Q\"]", "<test>: packet_log.nodes[0]: unknown node \"Q\""),
        ("flows = [\"bulk[9]\"]", "<test>: packet_log.flows[0]: group \"bulk\" has 4 flows, no index 9"),
        ("max_events = 0", "<test>: packet_log.max_events: must be at least 1"),
    ] {
        let err = ccsim::scenario::load(&scenario(&format!("[packet_log]\n{table}")), "<test>", &[], None).err().expect(table);
        assert_eq!(err.to_string(), msg);
    }
}
