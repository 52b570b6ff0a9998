//! Warming ahead: on a network whose state no cache holds, the run asks the memory for what
//! the next few events will read before it handles them.
//!
//! Handling an event is a chain of dependent reads. A packet's arrival reads its link, then
//! the packet at the head of the link's pipe, then, by the packet's addresses, the route
//! entries of the node it reached or, at its destination, its flow; then the next link (or the
//! flow's sender or receiver and the link back); then the entry of the pipe store the packet
//! goes to (`net/pipe.rs`: the one last freed, which a cache usually holds). With thousands of
//! flows each step is a miss to main memory, and misses in one chain cannot overlap: the cost
//! of an event grows with the network (see `benchmarks/README.md`, "scale"). The misses of
//! *different* events can overlap. Events are handled in the order of the bucket being drained
//! ([`EventQueue::ahead`](crate::sim::EventQueue::ahead)), so before each event the run
//! prefetches step `j` of the chain of the event `(STEPS - j) * SPACING` places after the next
//! one: each step's line was requested one stage earlier, and has arrived by the time the step
//! after it is computed. A retransmission or delayed-ACK timer's chain is its flow, then the
//! flow's ends, then the route and link its packets leave by. Of a link only the part a
//! packet's passage reads is asked for (its first 256 of 960 bytes, four cache lines laid out
//! for it: [`Link::prefetch`]), and of a flow the two lines an event at its ends reads first
//! ([`Flow::prefetch`]: its segments in the network, its timers and its transport's tag), then
//! the end the event is at (TCP's ends are in the flow, after those two lines).
//!
//! Warming reads and never writes, and a prefetch is a hint: a run computes the same with it
//! on or off, bit for bit (a test runs both). An event scheduled meanwhile shifts the ones
//! behind it, which makes a prefetch useless, never a result wrong. It costs instructions
//! (`benchmarks/README.md`, "Warming ahead" and "The engine split"), which only pay when
//! the state is larger than the caches: it is on when the links and flows take more than
//! [`threshold_bytes`], unless [`Simulation::set_warm_ahead`] says otherwise.

use super::transport::End;
use super::{Event, Flow, FlowIdx, Simulation};
use crate::net::{Link, NodeId};
use crate::sim::prefetch;

/// Events between two steps of one chain: the time a prefetch has to arrive (about one
/// event's handling; 2 and 3 measured slower at DUMBBELL-10000, `benchmarks/README.md`).
const SPACING: usize = 1;
/// Steps of the longest chain (an arrival at a router: link, packet, route, next link, its
/// pipe).
const STEPS: usize = 5;

/// The last-level cache assumed where the machine does not say (Linux's sysfs): 32 MB.
const DEFAULT_CACHE_BYTES: u64 = 32 << 20;

/// Bytes of link and flow state above which warming ahead is on by default: three quarters of
/// the largest cache of the machine (its last level, read once from Linux's sysfs;
/// [`DEFAULT_CACHE_BYTES`] elsewhere). Below it the state stays cached and warming costs more
/// than it saves; above it, warming pays (measured around the threshold of a 32 MB cache:
/// `benchmarks/README.md`, "Warming ahead"). The choice changes how fast a run goes, never
/// what it computes.
pub fn threshold_bytes() -> u64 {
    static THRESHOLD: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *THRESHOLD.get_or_init(|| largest_cache_bytes().unwrap_or(DEFAULT_CACHE_BYTES) / 4 * 3)
}

/// The size of the largest cache of the first processor, as Linux describes it
/// (`/sys/devices/system/cpu/cpu0/cache/index*/size`: "32768K").
fn largest_cache_bytes() -> Option<u64> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("size")).ok()).filter_map(|s| parse_cache_size(s.trim())).max()
}

/// "32768K", "8M" or a number of bytes.
fn parse_cache_size(s: &str) -> Option<u64> {
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let n: u64 = digits.parse().ok()?;
    match unit {
        "" => Some(n),
        "K" => Some(n << 10),
        "M" => Some(n << 20),
        "G" => Some(n << 30),
        _ => None,
    }
}

/// The bytes of link and flow state a network of `links` and `flows` keeps, as the memory
/// estimate counts them ([`Link::footprint`], [`Flow::footprint`]; not the packets they
/// hold): what [`threshold_bytes`] is compared with.
pub fn state_bytes(links: &[Link], flows: &[Flow]) -> u64 {
    let links: u64 = links.iter().map(|l| Link::footprint(l.name.len(), l.queue.limit)).sum();
    let flows: u64 = flows.iter().map(|f| Flow::footprint(f.transport.is_tcp(), f.group.len())).sum();
    links + flows
}

impl Simulation {
    /// Prefetches, for each of the next events in the bucket, the step of its chain due now.
    #[inline]
    pub(super) fn warm_ahead(&self) {
        let mut ahead = self.events.ahead();
        // Past the next event, handled before a prefetch for it could arrive; then SPACING,
        // 2 x SPACING, ... places after it, the nearest at the last step of its chain.
        ahead.next();
        for step in (0..STEPS).rev() {
            let Some(ev) = ahead.nth(SPACING - 1) else { break };
            match *ev {
                Event::Arrive { link, .. } => self.warm_arrival(&self.net.links[link as usize], step),
                Event::Rto(f) | Event::Emit(f) => self.warm_timer(f, End::Sender, step),
                Event::DelAck(f) => self.warm_timer(f, End::Receiver, step),
                _ => {}
            }
        }
    }

    /// Step `step` of an arrival on `link`.
    fn warm_arrival(&self, link: &Link, step: usize) {
        if step == 0 {
            return link.prefetch();
        }
        let Some(pkt) = link.next_to_arrive(&self.net.pipes) else { return };
        if step == 1 {
            return prefetch::value(pkt);
        }
        let node = link.to;
        if pkt.dst != node {
            return self.warm_hop(node, pkt.dst, step - 2);
        }
        // At its destination: the flow's end host takes it and answers toward its source.
        let Some(flow) = self.flows.get(pkt.flow as usize) else { return };
        match step {
            2 => flow.prefetch(),
            3 => {
                flow.transport.prefetch_end(if pkt.is_reverse() { End::Sender } else { End::Receiver });
                flow.in_network.prefetch_front();
            }
            _ => {}
        }
        self.warm_hop(node, pkt.src, step - 2);
    }

    /// Step `step` of a timer of flow `f` at `end`.
    fn warm_timer(&self, f: FlowIdx, end: End, step: usize) {
        let Some(flow) = self.flows.get(f as usize) else { return };
        match step {
            0 => flow.prefetch(),
            1 => flow.transport.prefetch_end(end),
            _ => {
                let (from, to) = if end == End::Sender { (flow.src, flow.dst) } else { (flow.dst, flow.src) };
                self.warm_hop(from, to, step - 2);
            }
        }
    }

    /// Step `step` of `node` sending a packet toward `dst`: its route entries, the link it
    /// leaves by, the entry of the pipe store the packet will be written to.
    fn warm_hop(&self, node: NodeId, dst: NodeId, step: usize) {
        match step {
            0 => self.net.routes.prefetch_next_hop(node, dst),
            1 => {
                if let Some(next) = self.net.routes.next_hop(node, dst) {
                    self.net.links[next as usize].prefetch();
                }
            }
            _ => self.net.pipes.prefetch_next(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_read_as_linux_writes_them() {
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("8M"), Some(8 << 20));
        assert_eq!(parse_cache_size("65536"), Some(65536));
        assert_eq!(parse_cache_size("12Q"), None);
        assert_eq!(parse_cache_size(""), None);
    }

    #[test]
    fn an_event_at_a_flows_end_reads_two_lines_of_the_flow_then_one_end() {
        // What warming asks for (see `Flow::prefetch`): the segments in the network and the
        // timers, then the transport's tag (`repr(u8)`: its first byte), on two cache lines;
        // the next step reads the tag and asks for the end the event is at.
        const { assert!(Flow::HOT_BYTES < 2 * prefetch::LINE, "the transport's tag (its first byte) must lie on the flow's first two lines") };
        assert_eq!(std::mem::align_of::<Flow>(), prefetch::LINE);
    }

    #[test]
    fn the_threshold_is_three_quarters_of_a_cache() {
        let t = threshold_bytes();
        assert!(t >= 1 << 10 && t.is_multiple_of(3), "threshold {t}");
    }
}
