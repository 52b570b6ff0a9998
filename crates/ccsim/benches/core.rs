//! The simulation core's hot paths, each on its own:
//!
//! * `event_queue`: schedule one event and pop the earliest, at a steady queue size like a
//!   DUMBBELL-100 run's (a few hundred pending events) and a larger one.
//! * `router_packet`: one data packet through router R1 of a dumbbell: next-hop lookup,
//!   the RED queue's verdict, enqueue, dequeue into the transmitter, end of transmission,
//!   arrival at the far end of the link.
//! * `tcp_ack_path`: one segment end to end between a NewReno sender and its receiver with
//!   no network in between: the receiver's `on_data` and the sender's `on_ack` for its ACK.
//!
//! Each iteration handles 1024 events or packets; criterion's throughput is per element.
//!
//! `cargo bench -p ccsim --bench core -- --measurement-time 2 --warm-up-time 1`

use ccsim::engine::Transport;
use ccsim::net::{Kind, Packet};
use ccsim::sim::{EventQueue, SimTime};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::collections::VecDeque;

const BATCH: usize = 1024;

fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    g.throughput(Throughput::Elements(BATCH as u64));
    for size in [256usize, 4096, 262_144] {
        // A queue holding `size` events spread over 50 ms; each step pops the earliest and
        // schedules a successor a pseudo-random 0-50 ms later, as link and timer events do.
        let mut q: EventQueue<(u32, u32)> = EventQueue::default();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut step = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % 50_000_000
        };
        for i in 0..size {
            q.schedule(SimTime(step()), (i as u32, 0));
        }
        g.bench_with_input(BenchmarkId::new("schedule_pop", size), &size, |b, _| {
            b.iter(|| {
                for _ in 0..BATCH {
                    let (t, e) = q.pop_until(SimTime::MAX).expect("never empty");
                    q.schedule(t + ccsim::sim::Dur(step()), black_box(e));
                }
            })
        });
    }
    g.finish();
}

const DUMBBELL: &str = r#"
name = "bench"
duration = "10s"
hosts = ["S{1..4}", "D{1..4}"]
routers = ["R1", "R2"]
[[links]]
between = ["S{1..4}", "R1"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["R1", "R2"]
rate = "100Mbps"
delay = "20ms"
queue = { discipline = "red", limit = 200, min_th = 30, max_th = 90, max_p = 0.1, w_q = 0.002, mean_packet_size = 1040, wait = true }
[[links]]
between = ["R2", "D{1..4}"]
rate = "1Gbps"
delay = "1ms"
[[flows]]
name = "bulk"
from = "S{1..4}"
to = "D{1..4}"
tcp = { variant = "newreno", mss = 1000, rwnd = 64000 }
"#;

fn router_packet(c: &mut Criterion) {
    let mut sim = ccsim::scenario::load(DUMBBELL, "bench", &[], None).expect("scenario");
    let node = |name: &str| sim.net.nodes.iter().position(|n| n.name == name).unwrap() as u32;
    let (r1, s1, d1) = (node("R1"), node("S1"), node("D1"));
    let mut first = Vec::new();
    sim.flows[0].sender().expect("tcp").clone().start(SimTime(0), &mut first);
    let pkt = Packet { src: s1, dst: d1, kind: Kind::TcpData, size: 1040, payload: 1000, ..first[0] };
    let mut g = c.benchmark_group("router_packet");
    g.throughput(Throughput::Elements(BATCH as u64));
    let mut now = SimTime(0);
    g.bench_function("arrive_forward_enqueue_dequeue", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                // The queue stays near empty (one packet at a time), as below RED's min_th.
                let link = sim.net.routes.next_hop(black_box(r1), black_box(pkt.dst)).expect("route");
                let l = &mut sim.net.links[link as usize];
                let (verdict, action) = l.queue.classify(&pkt, now);
                l.queue.commit(pkt, verdict, action, now);
                let at = l.schedule(pkt.size, now).arrival.expect("no loss, no pending arrival");
                l.advance(&mut sim.net.pipes, at, |_, _, _| {});
                now = at;
                black_box(l.deliver(&mut sim.net.pipes));
            }
        })
    });
    g.finish();
}

fn tcp_ack_path(c: &mut Criterion) {
    let sim = ccsim::scenario::load(DUMBBELL, "bench", &[], None).expect("scenario");
    let Transport::Tcp { tx, rx } = &sim.flows[0].transport else { unreachable!() };
    let (mut tx, mut rx) = (tx.clone(), rx.clone());
    let (mut out, mut to_tx) = (Vec::with_capacity(256), Vec::with_capacity(256));
    let mut to_rx = VecDeque::with_capacity(256);
    let mut now = SimTime(0);
    tx.start(now, &mut out);
    to_rx.extend(out.drain(..));
    // Open the window up to the receiver's 64 segments: from then on every ACK releases
    // exactly one new segment.
    for _ in 0..10_000 {
        now += ccsim::sim::Dur(10_000);
        let data = to_rx.pop_front().expect("window open");
        rx.on_data(&data, now, &mut to_tx);
        for ack in to_tx.drain(..) {
            tx.on_ack(&ack, now, &mut out);
        }
        to_rx.extend(out.drain(..));
    }
    let mut g = c.benchmark_group("tcp_ack_path");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("receiver_on_data_sender_on_ack", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                now += ccsim::sim::Dur(10_000);
                let data = to_rx.pop_front().expect("window open");
                rx.on_data(black_box(&data), now, &mut to_tx);
                for ack in to_tx.drain(..) {
                    tx.on_ack(black_box(&ack), now, &mut out);
                }
                to_rx.extend(out.drain(..));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, event_queue, router_packet, tcp_ack_path);
criterion_main!(benches);
