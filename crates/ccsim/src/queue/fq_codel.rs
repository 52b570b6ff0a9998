//! FQ-CoDel, Flow Queue CoDel (RFC 8290): packets are hashed by their 5-tuple into flow
//! queues, served by deficit round robin with a preference for new (sparse) flows, with
//! CoDel ([`CodelState`]) on each queue. FQ-CoDel owns its buffer: the egress queue hands it
//! every packet it admits and asks it for the next one to send.
//!
//! The rules, by RFC 8290's sections:
//!
//! 1. **Classification** (Section 4.1): the queue of a packet is a hash of its 5-tuple
//!    (addresses, protocol, ports) modulo `flows`. Here the hash is a 64-bit mix of the
//!    tuple with no per-queue salt (ns-3's default `Perturbation` is 0 too); packets of
//!    different flows that collide share a queue, as in the RFC.
//! 2. **Enqueue** (Section 4.1): the packet joins the tail of its queue, stamped with its
//!    arrival time; a queue that was not on either list joins the tail of the new-flows list
//!    with a deficit of one `quantum`.
//! 3. **Overflow** (Section 4.1): when the buffer is over its limit after the packet is
//!    added, packets are dropped from the head of the queue with the most bytes: as in
//!    Linux and ns-3, a batch of up to 64 packets, stopping once half of that queue's bytes
//!    have been dropped. The arriving packet is admitted first, and may be among them.
//! 4. **Dequeue** (Section 4.2): the queue at the head of the new-flows list is served, or
//!    if that list is empty the one at the head of the old-flows list. A queue whose deficit
//!    is not positive gets another `quantum` and moves to the tail of the old-flows list, and
//!    the choice is made again. The chosen queue's CoDel decides on its head packets
//!    (dropping some, or marking one); the packet sent takes its size off the deficit.
//! 5. **Empty queues** (Section 4.2): a chosen queue whose CoDel returns no packet leaves the
//!    new-flows list for the tail of the old-flows list (so that a flow cannot starve others
//!    by going empty and coming back new), or leaves the old-flows list altogether.
//!
//! Defaults (Section 5.2, "Parameters"): `flows` 1024, `quantum` 1514 bytes (an Ethernet
//! frame: Linux's default, the device MTU plus its header), CoDel's `target` 5 ms and
//! `interval` 100 ms. The RFC's packet limit (10240) is the queue's `limit` key here, whose
//! default is the same for every discipline. CoDel runs on each flow queue as on a FIFO: its
//! one-MTU backlog test reads that queue's bytes (as ns-3 does; Linux reads the bytes of the
//! whole FQ-CoDel queue). ns-3 sets the quantum to the device MTU (1500) unless told.
//!
//! Storage: one slab of packet slots linked into the flow queues by index, reused through a
//! free list, so packets cost no allocation once the slab has grown to the largest
//! backlog.

use super::codel::{CodelParams, CodelSpec, CodelState};
use super::spec::{keys_of, read, Registration, SettingError, Table};
use super::{Aqm, Discipline, Head, Occupancy, OwnBuffer, QueueContext, Queued, Verdict};
use crate::packet::Packet;
use crate::sim::{Rng, SimTime};
use serde::Deserialize;
use std::collections::VecDeque;

/// RFC 8290 Section 5.2: the number of flow queues, 1024.
pub const FLOWS: u32 = 1024;
/// The most flow queues: 65536, Linux's bound on `flows` (`sch_fq_codel.c`); each takes
/// memory from the start.
pub const MAX_FLOWS: u32 = 65_536;
/// RFC 8290 Section 5.2: the deficit round robin quantum, 1514 bytes.
pub const QUANTUM: u32 = 1514;
/// Most packets one overflow drops from the fattest queue (Linux's and ns-3's
/// `drop_batch_size`).
pub const DROP_BATCH: u32 = 64;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqCodelParams {
    pub flows: u32,
    pub quantum: u32,
    pub codel: CodelParams,
    pub drop_batch: u32,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams { flows: FLOWS, quantum: QUANTUM, codel: CodelParams::default(), drop_batch: DROP_BATCH }
    }
}

/// Which list a flow queue is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum List {
    #[default]
    None,
    New,
    Old,
}

/// One flow queue.
#[derive(Clone, Debug)]
pub struct FlowQueue {
    head: u32,
    tail: u32,
    pub packets: u32,
    pub bytes: u64,
    pub deficit: i64,
    pub list: List,
    pub codel: CodelState,
}

impl Default for FlowQueue {
    fn default() -> Self {
        FlowQueue { head: NIL, tail: NIL, packets: 0, bytes: 0, deficit: 0, list: List::None, codel: CodelState::default() }
    }
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    q: Queued,
    next: u32,
}

#[derive(Clone, Debug)]
pub struct FqCodel {
    params: FqCodelParams,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    slots: Vec<Slot>,
    free: u32,
    /// The queue being served in the current transmission opportunity (its CoDel may drop
    /// several heads before one is sent).
    current: Option<u32>,
}

impl FqCodel {
    /// Bytes the flow queues of an FQ-CoDel with `flows` queues take from the start (for the
    /// scenario's memory estimate).
    pub fn footprint(flows: u32) -> u64 {
        flows.min(MAX_FLOWS) as u64 * std::mem::size_of::<FlowQueue>() as u64
    }

    pub fn new(params: FqCodelParams) -> Result<FqCodel, SettingError> {
        params.codel.validate()?;
        if params.flows == 0 || params.flows > MAX_FLOWS {
            return Err(SettingError::new("flows", format!("must be from 1 to {MAX_FLOWS}, got {}", params.flows)));
        }
        if params.quantum == 0 {
            return Err(SettingError::new("quantum", "must be at least 1 byte"));
        }
        Ok(FqCodel {
            queues: vec![FlowQueue::default(); params.flows as usize],
            params,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            slots: Vec::new(),
            free: NIL,
            current: None,
        })
    }

    pub fn params(&self) -> &FqCodelParams {
        &self.params
    }
    pub fn queue(&self, i: u32) -> &FlowQueue {
        &self.queues[i as usize]
    }
    pub fn new_flows(&self) -> impl Iterator<Item = u32> + '_ {
        self.new_flows.iter().copied()
    }
    pub fn old_flows(&self) -> impl Iterator<Item = u32> + '_ {
        self.old_flows.iter().copied()
    }

    /// Rule 1: the queue of `pkt`.
    pub fn classify(&self, pkt: &Packet) -> u32 {
        let proto = pkt.protocol() as u64;
        let mut h = (pkt.src as u64) << 32 | pkt.dst as u64;
        h = mix(h ^ mix((pkt.sport as u64) << 32 | (pkt.dport as u64) << 8 | proto));
        (h % self.params.flows as u64) as u32
    }

    /// Rule 2: queues `q` and returns its flow queue.
    pub fn enqueue(&mut self, q: Queued) -> u32 {
        let f = self.classify(&q.pkt);
        let slot = Slot { q, next: NIL };
        let i = if self.free != NIL {
            let i = self.free;
            self.free = self.slots[i as usize].next;
            self.slots[i as usize] = slot;
            i
        } else {
            self.slots.push(slot);
            (self.slots.len() - 1) as u32
        };
        let fq = &mut self.queues[f as usize];
        if fq.tail == NIL {
            fq.head = i;
        } else {
            self.slots[fq.tail as usize].next = i;
        }
        fq.tail = i;
        fq.packets += 1;
        fq.bytes += q.pkt.size as u64;
        if fq.list == List::None {
            fq.list = List::New;
            fq.deficit = self.params.quantum as i64;
            self.new_flows.push_back(f);
        }
        f
    }

    /// Takes the head packet of flow queue `f`.
    fn pop(&mut self, f: u32) -> Option<Queued> {
        let fq = &mut self.queues[f as usize];
        if fq.head == NIL {
            return None;
        }
        let i = fq.head;
        let slot = self.slots[i as usize];
        fq.head = slot.next;
        if fq.head == NIL {
            fq.tail = NIL;
        }
        fq.packets -= 1;
        fq.bytes -= slot.q.pkt.size as u64;
        self.slots[i as usize].next = self.free;
        self.free = i;
        Some(slot.q)
    }

    /// Rule 3: drops from the head of the queue with the most bytes, into `out`.
    pub fn evict(&mut self, out: &mut Vec<Queued>) {
        let Some((fat, _)) = self.queues.iter().enumerate().filter(|(_, q)| q.bytes > 0).max_by_key(|(i, q)| (q.bytes, std::cmp::Reverse(*i))) else { return };
        let threshold = self.queues[fat].bytes / 2;
        let (mut dropped, mut count) = (0u64, 0u32);
        while let Some(q) = self.pop(fat as u32) {
            dropped += q.pkt.size as u64;
            count += 1;
            out.push(q);
            if count >= self.params.drop_batch || dropped >= threshold {
                break;
            }
        }
    }

    /// Rules 4 and 5: the next head packet to decide on and CoDel's verdict on it, or `None`
    /// when every queue is empty. After a signal, [`complete`](Self::complete) says whether
    /// it was dropped (the next call continues with the same queue) or sent.
    pub fn dequeue(&mut self, now: SimTime) -> Option<(Queued, Verdict)> {
        loop {
            let f = match self.current {
                Some(f) => f,
                None => self.choose()?,
            };
            self.current = Some(f);
            let q = self.pop(f);
            let fq = &mut self.queues[f as usize];
            let head = q.map(|q| Head { sojourn: now.since(q.enqueued_at), bytes_left: fq.bytes });
            let verdict = fq.codel.on_dequeue(&self.params.codel, head, now);
            if let Some(q) = q {
                return Some((q, verdict));
            }
            // Rule 5: the chosen queue had nothing (left) to send.
            self.current = None;
            if fq.list == List::New {
                self.new_flows.pop_front();
                self.old_flows.push_back(f);
                fq.list = List::Old;
            } else {
                self.old_flows.pop_front();
                fq.list = List::None;
            }
        }
    }

    /// Rule 4: the queue to serve, after giving a quantum to each queue at the head of a
    /// list whose deficit is spent.
    fn choose(&mut self) -> Option<u32> {
        loop {
            let (f, new) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&f), _) => (f, true),
                (None, Some(&f)) => (f, false),
                (None, None) => return None,
            };
            let fq = &mut self.queues[f as usize];
            if fq.deficit > 0 {
                return Some(f);
            }
            fq.deficit += self.params.quantum as i64;
            fq.list = List::Old;
            if new {
                self.new_flows.pop_front();
            } else {
                self.old_flows.pop_front();
            }
            self.old_flows.push_back(f);
        }
    }

    /// What became of the packet [`dequeue`](Self::dequeue) returned: `sent` (its size comes
    /// off its queue's deficit) or dropped; `signalled` if CoDel gave it a signal.
    pub fn complete(&mut self, signalled: bool, sent: bool, size: u32) {
        let Some(f) = self.current else { return };
        let fq = &mut self.queues[f as usize];
        if signalled {
            fq.codel.after_signal(&self.params.codel, !sent);
        }
        if sent {
            fq.deficit -= size as i64;
            self.current = None;
        }
    }

    /// Every queued packet (flow by flow).
    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.queues.iter().flat_map(move |fq| {
            let mut i = fq.head;
            std::iter::from_fn(move || {
                if i == NIL {
                    return None;
                }
                let s = &self.slots[i as usize];
                i = s.next;
                Some(&s.q)
            })
        })
    }

    /// Empties every queue (the link went down), calling `lost` for each packet.
    pub fn drain(&mut self, mut lost: impl FnMut(Queued)) {
        for f in 0..self.queues.len() as u32 {
            while let Some(q) = self.pop(f) {
                lost(q);
            }
            let fq = &mut self.queues[f as usize];
            fq.list = List::None;
            fq.deficit = 0;
        }
        self.new_flows.clear();
        self.old_flows.clear();
        self.current = None;
    }
}

/// A 64-bit finalizer (splitmix64's): every input bit affects every output bit.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl OwnBuffer for FqCodel {
    fn enqueue(&mut self, q: Queued) {
        FqCodel::enqueue(self, q);
    }
    fn evict(&mut self, out: &mut Vec<Queued>) {
        FqCodel::evict(self, out);
    }
    fn dequeue(&mut self, now: SimTime) -> Option<(Queued, Verdict)> {
        FqCodel::dequeue(self, now)
    }
    fn complete(&mut self, signalled: bool, sent: bool, size: u32) {
        FqCodel::complete(self, signalled, sent, size);
    }
    /// The head of the queue being served, or else of the first queue with packets and
    /// deficit left, new queues first (rule 4); deficits that are spent may make the round
    /// serve another queue first.
    fn peek(&self) -> Option<&Queued> {
        let ready = |f: &u32| self.queues[*f as usize].head != NIL;
        let lists = || self.new_flows.iter().chain(&self.old_flows);
        let f = self
            .current
            .filter(ready)
            .or_else(|| lists().find(|f| ready(f) && self.queues[**f as usize].deficit > 0).or_else(|| lists().find(|f| ready(f))).copied())?;
        Some(&self.slots[self.queues[f as usize].head as usize].q)
    }
    fn packets(&self) -> Box<dyn Iterator<Item = &Queued> + '_> {
        Box::new(self.iter())
    }
    fn drain(&mut self, lost: &mut dyn FnMut(Queued)) {
        FqCodel::drain(self, lost);
    }
}

impl Aqm for FqCodel {
    /// The buffer's limit is checked after the packet is added (rule 3), by the queue.
    fn on_arrival(&mut self, _: &Packet, _: Occupancy, _: SimTime, _: &mut Rng) -> Verdict {
        Verdict::Admit
    }
    fn own_buffer(&mut self) -> Option<&mut dyn OwnBuffer> {
        Some(self)
    }
    fn own_buffer_ref(&self) -> Option<&dyn OwnBuffer> {
        Some(self)
    }
}

/// FQ-CoDel's own keys (besides CoDel's `target` and `interval`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FqSpec {
    /// Number of flow queues; default [`FLOWS`].
    pub flows: Option<u32>,
    /// Deficit round robin quantum, bytes; default [`QUANTUM`].
    pub quantum: Option<u32>,
}

pub const REGISTRATION: Registration = Registration { name: "fq_codel", aliases: &[], family: None, keys, build, footprint };

fn keys() -> Vec<&'static str> {
    [keys_of::<FqSpec>(), keys_of::<CodelSpec>()].concat()
}

/// Its box and its flow queues, allocated from the start.
fn footprint(table: &Table) -> u64 {
    let flows = table.get("flows").and_then(toml::Value::as_integer).map_or(FLOWS as i64, |n| n.clamp(0, u32::MAX as i64));
    std::mem::size_of::<FqCodel>() as u64 + FqCodel::footprint(flows as u32)
}

fn build(table: &Table, _: &QueueContext) -> Result<Discipline, SettingError> {
    let codel = read::<CodelSpec>(table)?.resolve()?;
    let fq = read::<FqSpec>(table)?;
    let d = FqCodelParams::default();
    let params = FqCodelParams { flows: fq.flows.unwrap_or(d.flows), quantum: fq.quantum.unwrap_or(d.quantum), codel, ..d };
    Ok(Discipline::FqCodel(Box::new(FqCodel::new(params)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Endpoints;
    use crate::packet::Seq;
    use crate::sim::Dur;

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }
    /// A data packet of flow `flow` (its own ports), `size` bytes on the wire.
    fn pkt(flow: u32, size: u32) -> Packet {
        let ends = Endpoints { flow, sender: 0, receiver: 1, sport: 10_000 + flow as u16, dport: 80 };
        Packet::tcp_data(&ends, Seq(0), size - 40, 64, SimTime::ZERO)
    }
    fn at(p: Packet, t: SimTime) -> Queued {
        Queued { pkt: p, enqueued_at: t }
    }
    /// FQ-CoDel with enough queues that flows 0..8 do not collide.
    fn fq(quantum: u32) -> FqCodel {
        let f = FqCodel::new(FqCodelParams { quantum, ..FqCodelParams::default() }).unwrap();
        let mut seen: Vec<u32> = (0..8).map(|i| f.classify(&pkt(i, 100))).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 8, "flows 0..8 collide; pick other ports");
        f
    }
    /// Dequeues one packet to send (no CoDel signals expected), completing it.
    fn send(f: &mut FqCodel, now: SimTime) -> Option<Packet> {
        let (q, v) = f.dequeue(now)?;
        assert_eq!(v, Verdict::Admit);
        f.complete(false, true, q.pkt.size);
        Some(q.pkt)
    }

    #[test]
    fn classification_is_by_five_tuple_and_deterministic() {
        let f = fq(QUANTUM);
        assert_eq!(f.classify(&pkt(3, 100)), f.classify(&pkt(3, 1500)), "size does not matter");
        let ack = Packet::tcp_ack(&Endpoints { flow: 3, sender: 0, receiver: 1, sport: 10_003, dport: 80 }, Seq(0), 1000, 64, SimTime::ZERO);
        assert_ne!(f.classify(&pkt(3, 100)), f.classify(&ack), "the reverse direction is another flow");
        // Spread: 1000 flows over 1024 queues fill about 1024 (1 - e^-1000/1024) of them.
        let used: std::collections::HashSet<u32> = (0..1000).map(|i| f.classify(&pkt(i, 100))).collect();
        assert!((600..700).contains(&used.len()), "{}", used.len());
    }

    #[test]
    fn a_new_flow_joins_the_new_list_with_a_quantum_and_is_served_first() {
        let mut f = fq(1514);
        for _ in 0..3 {
            f.enqueue(at(pkt(0, 1000), ms(0)));
        }
        let a = f.classify(&pkt(0, 1000));
        assert_eq!((f.queue(a).list, f.queue(a).deficit), (List::New, 1514));
        // Flow 0, at the head of the new list, is served while its deficit lasts: 1514 ->
        // 514 -> -486, although flow 1 arrives new meanwhile.
        assert_eq!(send(&mut f, ms(1)).unwrap().flow, 0);
        f.enqueue(at(pkt(1, 1000), ms(1)));
        let b = f.classify(&pkt(1, 1000));
        assert_eq!(send(&mut f, ms(2)).unwrap().flow, 0);
        assert_eq!(f.queue(a).deficit, -486);
        // Spent: flow 0 gets a quantum (1028) and goes to the old list; flow 1 is served.
        assert_eq!(send(&mut f, ms(3)).unwrap().flow, 1);
        assert_eq!((f.queue(a).list, f.queue(a).deficit, f.queue(b).deficit), (List::Old, 1028, 514));
        // Flow 1 is empty: the next choice finds nothing there and moves it to the old list
        // (behind flow 0), then serves flow 0.
        assert_eq!(send(&mut f, ms(4)).unwrap().flow, 0);
        assert_eq!(f.queue(b).list, List::Old);
        assert_eq!(f.old_flows().collect::<Vec<_>>(), vec![a, b]);
    }

    #[test]
    fn deficit_round_robin_shares_bytes_not_packets() {
        // Flow 0 sends 1500-byte packets, flow 1 500-byte ones: equal quanta give equal bytes.
        let mut f = fq(1500);
        for _ in 0..60 {
            f.enqueue(at(pkt(0, 1500), ms(0)));
        }
        for _ in 0..180 {
            f.enqueue(at(pkt(1, 500), ms(0)));
        }
        let mut bytes = [0u64; 2];
        for _ in 0..120 {
            let p = send(&mut f, ms(1)).unwrap();
            bytes[p.flow as usize] += p.size as u64;
        }
        let share = bytes[0] as f64 / (bytes[0] + bytes[1]) as f64;
        assert!((share - 0.5).abs() < 0.03, "{bytes:?}");
    }

    #[test]
    fn an_empty_old_queue_leaves_the_lists_and_returns_as_new() {
        let mut f = fq(1514);
        f.enqueue(at(pkt(0, 1000), ms(0)));
        f.enqueue(at(pkt(0, 1000), ms(0)));
        let a = f.classify(&pkt(0, 1000));
        send(&mut f, ms(1));
        send(&mut f, ms(1)); // deficit now -486
                             // The next choice gives it a quantum and moves it to the old list, finds it empty
                             // there, and removes it.
        assert!(send(&mut f, ms(2)).is_none());
        assert_eq!(f.queue(a).list, List::None);
        assert_eq!((f.new_flows().count(), f.old_flows().count()), (0, 0));
        f.enqueue(at(pkt(0, 1000), ms(3)));
        assert_eq!((f.queue(a).list, f.queue(a).deficit), (List::New, 1514));
    }

    #[test]
    fn overflow_drops_a_batch_from_the_head_of_the_fattest_queue() {
        let mut f = fq(1514);
        for i in 0..10 {
            f.enqueue(at(Packet { seq: Seq(i), ..pkt(0, 1000) }, ms(0)));
        }
        for _ in 0..3 {
            f.enqueue(at(pkt(1, 1500), ms(0)));
        }
        let mut out = Vec::new();
        f.evict(&mut out);
        // Flow 0 holds 10000 bytes (flow 1 4500): its five oldest go (half its bytes).
        assert_eq!(out.iter().map(|q| q.pkt.seq.0).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
        assert_eq!(f.queue(f.classify(&pkt(0, 1000))).bytes, 5000);
        // At most 64 at a time.
        let mut f = FqCodel::new(FqCodelParams::default()).unwrap();
        for _ in 0..1000 {
            f.enqueue(at(pkt(0, 100), ms(0)));
        }
        let mut out = Vec::new();
        f.evict(&mut out);
        assert_eq!(out.len(), 64);
    }

    #[test]
    fn codel_runs_on_each_queue_and_drops_only_the_slow_one() {
        let mut f = fq(1514);
        // Flow 0 has a standing queue whose head waited 50 ms; flow 1's packets are fresh.
        for _ in 0..200 {
            f.enqueue(at(pkt(0, 1000), ms(0)));
        }
        let mut drops = [0u32; 2];
        let mut t = ms(50);
        for _ in 0..400 {
            f.enqueue(at(pkt(1, 1000), t));
            f.enqueue(at(pkt(0, 1000), SimTime(t.as_nanos() - 50_000_000)));
            // Two transmission opportunities: flow 1 never holds more than one packet.
            for _ in 0..2 {
                while let Some((q, v)) = f.dequeue(t) {
                    if v == Verdict::Early {
                        drops[q.pkt.flow as usize] += 1;
                        f.complete(true, false, q.pkt.size);
                        continue;
                    }
                    f.complete(false, true, q.pkt.size);
                    break;
                }
            }
            t += Dur::from_micros(500);
        }
        assert_eq!(drops[1], 0);
        assert!(drops[0] > 0);
    }

    #[test]
    fn iter_and_drain_see_every_packet() {
        let mut f = fq(1514);
        for i in 0..5 {
            f.enqueue(at(pkt(i % 3, 1000), ms(0)));
        }
        assert_eq!(f.iter().count(), 5);
        let mut n = 0;
        f.drain(|_| n += 1);
        assert_eq!((n, f.iter().count()), (5, 0));
        assert!(f.dequeue(ms(1)).is_none());
        // The slab is reused.
        f.enqueue(at(pkt(0, 1000), ms(2)));
        assert_eq!(f.slots.len(), 5);
    }

    #[test]
    fn peek_shows_what_dequeue_takes_next_and_leaves_it() {
        let mut f = fq(1514);
        assert!(OwnBuffer::peek(&f).is_none());
        for (flow, t) in [(0, 0), (0, 1), (1, 2)] {
            FqCodel::enqueue(&mut f, at(pkt(flow, 1000), ms(t)));
        }
        for _ in 0..3 {
            let peeked = OwnBuffer::peek(&f).map(|q| (q.pkt.flow, q.enqueued_at));
            let (q, _) = OwnBuffer::dequeue(&mut f, ms(3)).unwrap();
            assert_eq!(peeked, Some((q.pkt.flow, q.enqueued_at)), "peek saw the packet dequeue took");
            OwnBuffer::complete(&mut f, false, true, q.pkt.size);
        }
        assert!(OwnBuffer::peek(&f).is_none());
        // Through the discipline's seam: FQ-CoDel keeps its own buffer.
        assert!(Discipline::FqCodel(Box::new(f)).own_buffer_ref().is_some());
    }

    #[test]
    fn keys_resolve_to_the_rfc_defaults_and_are_checked() {
        let ctx = QueueContext { link_bps: 1_000_000, limit: super::super::Limit::Packets(100), profile: Default::default(), delay: crate::sim::Dur::ZERO };
        let t = |s: &str| -> Table { s.parse().unwrap() };
        let Discipline::FqCodel(f) = build(&t(""), &ctx).unwrap() else { panic!() };
        assert_eq!(*f.params(), FqCodelParams::default());
        let Discipline::FqCodel(f) = build(&t("flows = 16\nquantum = 300\ntarget = \"2ms\""), &ctx).unwrap() else { panic!() };
        assert_eq!((f.params().flows, f.params().quantum, f.params().codel.target), (16, 300, Dur::from_millis(2)));
        assert_eq!(build(&t("flows = 0"), &ctx).unwrap_err().key, "flows");
        assert_eq!(build(&t("quantum = 0"), &ctx).unwrap_err().key, "quantum");
    }
}
