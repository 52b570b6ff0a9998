//! Per-packet cost of the ACK spoofer's partial per-flow state: lookups and updates in a
//! flow table of the default 1024 entries holding 512 flows, insertions that evict, and the
//! spoofer's whole work for a passing real ACK. Each iteration handles 1024 packets, so
//! criterion's throughput is packets per second.
//!
//! `cargo bench -p ccsim --bench flow_table -- --measurement-time 2 --warm-up-time 1`

use ccsim::packet::Seq;
use ccsim::packet::{flags, Ecn, Kind, Packet, TCP_IP_HEADER};
use ccsim::router::{AckSpoofer, FlowKey, FlowTable, SpoofConfig};
use ccsim::signal::Action;
use ccsim::sim::SimTime;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const PACKETS: usize = 1024;
const FLOWS: u32 = 512;

fn key(i: u32) -> FlowKey {
    FlowKey::new(i, 100_000 + i, 10_000 + (i % 50_000) as u16, 80)
}

/// `PACKETS` keys cycling over flows `first..first + FLOWS`.
fn keys(first: u32) -> Vec<FlowKey> {
    (0..PACKETS as u32).map(|i| key(first + i % FLOWS)).collect()
}

fn table(c: &mut Criterion) {
    let mut g = c.benchmark_group("flow_table");
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut t: FlowTable<u64> = FlowTable::new(1024);
    for i in 0..FLOWS {
        *t.entry(&key(i)).0 = 0;
    }
    let (present, absent) = (keys(0), keys(1_000_000));
    g.bench_function("lookup_and_update_hit", |b| {
        b.iter(|| {
            for k in &present {
                *t.get_mut(black_box(k)).unwrap() += 1;
            }
        })
    });
    g.bench_function("lookup_miss", |b| b.iter(|| absent.iter().filter(|k| t.get_mut(black_box(k)).is_some()).count()));
    // Every insertion of a fresh key into a full table evicts.
    let mut full: FlowTable<u64> = FlowTable::new(1024);
    let mut next = 0u32;
    g.bench_function("insert_with_eviction", |b| {
        b.iter(|| {
            for _ in 0..PACKETS {
                next = next.wrapping_add(1);
                black_box(full.entry(&key(next)).1);
            }
        })
    });
    g.finish();
}

fn packet(kind: Kind, src: u32, dst: u32, sport: u16, dport: u16, ack: u32) -> Packet {
    Packet {
        kind,
        flow: src,
        src,
        dst,
        sport,
        dport,
        ttl: 64,
        ecn: Ecn::NotEct,
        flags: flags::ACK,
        ae: false,
        seq: Seq(0),
        ack: Seq(ack),
        wnd: 65_535,
        payload: if kind == Kind::TcpData { 1000 } else { 0 },
        size: TCP_IP_HEADER,
        sent_at: SimTime::ZERO,
        acc: None,
        rdp_var: Default::default(),
        tunnel: 0,
        sack: Default::default(),
    }
}

fn spoofer(c: &mut Criterion) {
    let mut g = c.benchmark_group("ack_spoofer");
    g.throughput(Throughput::Elements(PACKETS as u64));
    // The spoofer knows 512 flows (each was signalled once); real ACKs of those flows and
    // of 512 others it does not track pass in turn.
    let mut sp = AckSpoofer::new(SpoofConfig { discard_retransmission: false, ..SpoofConfig::default() });
    let port = |i: u32| 10_000 + (i % 50_000) as u16;
    for i in 0..FLOWS {
        sp.on_signal(&packet(Kind::TcpData, i, 100_000 + i, port(i), 80, 0), Action::EnqueueAndSpoof, SimTime::ZERO);
    }
    let acks: Vec<Packet> = (0..PACKETS as u32).map(|i| packet(Kind::TcpAck, 100_000 + i, i, 80, port(i), 1000 * i)).collect();
    let mut now = SimTime::ZERO;
    g.bench_function("real_ack", |b| {
        b.iter(|| {
            now = SimTime(now.0 + 1_000);
            acks.iter().filter(|a| sp.on_arrival(black_box(a), now) != ccsim::router::ack_spoof::Passage::Forward).count()
        })
    });
    g.finish();
}

criterion_group!(benches, table, spoofer);
criterion_main!(benches);
