//! Kernel mode: the Linux kernel's own TCP through ccsim's links and queue disciplines.
//!
//! Each host of the scenario is a network namespace whose only interface is a TUN device
//! (made by `ccsim kernel run`, `python/ccsim/kernel.py`); this module is the one router
//! process that holds every host's TUN device and carries the IP packets the kernels write
//! into them across the scenario's network, as Mahimahi's shells do. Every one-way link is
//! a [`Hop`]: the scenario's own egress queue ([`ccsim::queue::EgressQueue`], the
//! simulator's code: drop-tail, RED and its family, CoDel, PIE, FQ-CoDel, with its signal
//! policy), a transmitter at the link's rate and a propagation delay. Packets go hop by hop
//! along the simulator's routes until they reach their destination host's TUN device.
//!
//! Time is the router's monotonic clock, in ns from the run's start. Every event (a
//! transmission opportunity, the end of a propagation) happens at the time the link's
//! schedule gives it, not when the process happens to wake, and events are taken in time
//! order across links; only the writes to the destination TUN device are late by the
//! process's wake-up latency. A discipline sees each packet as the simulator would: its
//! size is the IP datagram's, its ECN field the IP header's; a CE mark is written into the
//! IP header with the header checksum updated.

use ccsim::engine::{Simulation, Transport};
use ccsim::net::NodeKind;
use ccsim::packet::{Ecn, Endpoints, Packet, Seq};
use ccsim::queue::{EgressQueue, QueueStats};
use ccsim::scenario::{self, ScenarioError};
use ccsim::sim::{Dur, Rng, Serializer, SimTime};
use ccsim::tcp::cc::CcConfig;
use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;

/// The largest IP packet a TUN device hands over (the MTU is set far below it).
const MAX_PACKET: usize = 9216;

/// One TCP flow of the scenario, as the kernel runs it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct KernelFlow {
    pub name: String,
    pub group: String,
    pub index: u32,
    pub src: String,
    pub dst: String,
    pub src_addr: String,
    pub dst_addr: String,
    pub dport: u16,
    pub start_s: f64,
    pub stop_s: Option<f64>,
    /// The kernel's congestion control (`TCP_CONGESTION`).
    pub cc: &'static str,
    pub ecn: bool,
    pub sack: bool,
    pub mss: u32,
    pub data_bytes: Option<u64>,
}

/// A scenario read for a kernel run.
#[derive(Clone, Debug)]
pub struct KernelPlan {
    pub name: String,
    pub seed: u64,
    pub duration: Dur,
    pub warmup: Dur,
    /// Node names and whether each is a router; addresses 10.a.b.c by index.
    pub nodes: Vec<(String, bool)>,
    pub links: Vec<LinkSpec>,
    pub next_hop: Vec<Vec<Option<u32>>>,
    pub flows: Vec<KernelFlow>,
    /// The MTU of every TUN device: the largest full segment of the flows as the simulator
    /// sends it (the MSS plus 40 bytes, plus 12 with TCP timestamps), so that a full segment
    /// is as large on the links as the simulator's.
    pub mtu: u32,
}

#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: Dur,
    pub loss: f64,
    pub queue: EgressQueue,
}

fn err(origin: &str, path: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError { origin: origin.to_string(), path: path.to_string(), message: message.into() }
}

fn addr_text(n: u32) -> String {
    let [a, b, c, d] = ccsim::packet::node_addr(n);
    format!("{a}.{b}.{c}.{d}")
}

impl KernelPlan {
    /// Reads scenario `text` (from `origin`) with `overrides` applied, as `ccsim run` would.
    pub fn load(text: &str, origin: &str, overrides: &[String]) -> Result<KernelPlan, ScenarioError> {
        let mut without_pcap = overrides.to_vec();
        without_pcap.push("pcap=".into());
        let sim = scenario::load(text, origin, &without_pcap, None)?;
        KernelPlan::from_sim(&sim, origin)
    }

    fn from_sim(sim: &Simulation, origin: &str) -> Result<KernelPlan, ScenarioError> {
        let net = &sim.net;
        if let Some(m) = sim.mechanisms.iter().find(|m| m.name() != "AckSpoofing") {
            return Err(err(origin, "routers", format!("a kernel run has no router mechanisms yet ({} is configured)", m.name())));
        }
        let nodes: Vec<(String, bool)> = net.nodes.iter().map(|n| (n.name.clone(), n.kind == NodeKind::Router)).collect();
        let links = net
            .links
            .iter()
            .map(|l| LinkSpec { name: l.name.clone(), from: l.from, to: l.to, rate_bps: l.rate_bps, delay: l.delay, loss: l.loss(), queue: l.queue.clone() })
            .collect();
        let n = nodes.len() as u32;
        let next_hop = (0..n).map(|u| (0..n).map(|d| net.routes.next_hop(u, d)).collect()).collect();
        let mut flows = Vec::new();
        let mut mtu = 0;
        for f in &sim.flows {
            let path = format!("flows ({})", f.group);
            let Transport::Tcp { tx, .. } = &f.transport else {
                return Err(err(origin, &path, "a kernel run carries TCP flows only (the kernel's TCP)"));
            };
            let cc = match &tx.cfg.cc {
                CcConfig::Reno(_) | CcConfig::PacketReno(_) => "reno",
                CcConfig::Cubic(_) => "cubic",
                CcConfig::Bbr(_) => "bbr",
                _ => return Err(err(origin, &format!("{path}.tcp.variant"), "the kernel runs reno, newreno (as reno), cubic and bbr only")),
            };
            if tx.cfg.acc {
                return Err(err(origin, &format!("{path}.tcp.acc"), "the kernel's TCP has no ACC"));
            }
            // The simulator's full segment: the MSS, the TCP/IP headers and, with timestamps
            // on, their option (the kernel's own timestamps then fill the same 12 bytes).
            let options = if tx.cfg.timestamps { ccsim::packet::timestamps::OPTION_BYTES } else { 0 };
            mtu = mtu.max(tx.cfg.mss + ccsim::packet::TCP_IP_HEADER + options);
            flows.push(KernelFlow {
                name: format!("{}[{}]", f.group, f.index),
                group: f.group.clone(),
                index: f.index,
                src: nodes[f.src as usize].0.clone(),
                dst: nodes[f.dst as usize].0.clone(),
                src_addr: addr_text(f.src),
                dst_addr: addr_text(f.dst),
                dport: tx.ends.dport,
                start_s: f.start.as_secs_f64(),
                stop_s: f.stop.map(|s| s.as_secs_f64()),
                cc,
                ecn: tx.cfg.ecn,
                sack: tx.cfg.sack,
                mss: tx.cfg.mss,
                data_bytes: tx.cfg.data_bytes,
            });
        }
        Ok(KernelPlan {
            name: sim.name.clone(),
            seed: sim.seed,
            duration: Dur(sim.stop_at.as_nanos()),
            warmup: Dur(sim.warmup.as_nanos()),
            nodes,
            links,
            next_hop,
            flows,
            mtu: mtu.clamp(576, 9000),
        })
    }

    /// The node with address `addr` (10.a.b.c, `ccsim::packet::node_addr`).
    fn node_of_addr(&self, addr: u32) -> Option<u32> {
        crate::plan::node_of_addr(addr, self.nodes.len())
    }

    /// What the process that builds the namespaces needs, as JSON.
    pub fn summary(&self) -> String {
        let nodes: Vec<_> =
            self.nodes.iter().enumerate().map(|(i, (name, router))| serde_json::json!({"name": name, "router": router, "addr": addr_text(i as u32)})).collect();
        let links: Vec<_> = self
            .links
            .iter()
            .map(|l| serde_json::json!({"name": l.name, "from": self.nodes[l.from as usize].0, "to": self.nodes[l.to as usize].0, "rate_bps": l.rate_bps, "delay_s": l.delay.as_secs_f64()}))
            .collect();
        serde_json::json!({
            "name": self.name,
            "seed": self.seed,
            "duration_s": self.duration.as_secs_f64(),
            "warmup_s": self.warmup.as_secs_f64(),
            "mtu": self.mtu,
            "nodes": nodes,
            "links": links,
            "flows": self.flows,
        })
        .to_string()
    }
}

/// One one-way link: the scenario's egress queue, its transmitter and its propagation.
struct Hop {
    q: EgressQueue,
    to: u32,
    rate_bps: u64,
    delay: u64,
    loss: f64,
    rng: Rng,
    ser: Serializer,
    /// When the transmitter frees.
    free_at: u64,
    /// Packets transmitted and propagating: (arrival at `to`, buffer, lost on the wire).
    pipe: VecDeque<(u64, u32, bool)>,
    tx_packets: u64,
    tx_bytes: u64,
    lost: u64,
    busy_ns: u64,
    /// Counters at the start of the measurement window.
    base: Option<(QueueStats, u64, u64, u64, u64)>,
    /// A sample every interval: (time, queue length, the discipline's average queue (NaN,
    /// null in the report, for one that keeps none), drops so far).
    series: Vec<(f64, f64, f64, u64)>,
}

impl Hop {
    fn next_event(&self) -> u64 {
        let tx = if self.q.is_empty() { u64::MAX } else { self.free_at };
        tx.min(self.pipe.front().map_or(u64::MAX, |p| p.0))
    }
}

/// The TUN device of one host.
struct Tun {
    fd: OwnedFd,
}

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

fn last_err(what: &str) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// Opens `path` read-only (a namespace file), close-on-exec.
fn open_ro(path: &str) -> io::Result<OwnedFd> {
    let c = std::ffi::CString::new(path).map_err(io::Error::other)?;
    // SAFETY: a valid C string.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(last_err(path));
    }
    // SAFETY: a descriptor just opened and owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

impl Tun {
    /// Makes TUN device `ifname` inside the network namespace `ns` (a name under
    /// /var/run/netns), then returns this thread to the namespace it was in. The device
    /// lives while its descriptor is open: it vanishes with this process.
    fn create_in(ns: &str, ifname: &str) -> io::Result<Tun> {
        let home = open_ro("/proc/thread-self/ns/net")?;
        let target = open_ro(&format!("/var/run/netns/{ns}"))?;
        // SAFETY: a namespace descriptor and its type.
        if unsafe { libc::setns(target.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(last_err(&format!("setns {ns}")));
        }
        let made = Tun::create(ifname);
        // SAFETY: as above.
        if unsafe { libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(last_err("setns back"));
        }
        made.map_err(|e| io::Error::new(e.kind(), format!("{ns}: {e}")))
    }

    fn create(ifname: &str) -> io::Result<Tun> {
        let fd = open_rw_nonblock("/dev/net/tun")?;
        let mut req = [0u8; 40];
        let name = ifname.as_bytes();
        if name.len() > 15 {
            return Err(io::Error::other(format!("interface name {ifname:?} too long")));
        }
        req[..name.len()].copy_from_slice(name);
        let flags = (libc::IFF_TUN | libc::IFF_NO_PI) as u16;
        req[16..18].copy_from_slice(&flags.to_ne_bytes());
        // SAFETY: TUNSETIFF reads and writes a struct ifreq (40 bytes).
        if unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, req.as_mut_ptr()) } < 0 {
            return Err(last_err("TUNSETIFF"));
        }
        Ok(Tun { fd })
    }
}

fn open_rw_nonblock(path: &str) -> io::Result<OwnedFd> {
    let c = std::ffi::CString::new(path).map_err(io::Error::other)?;
    // SAFETY: a valid C string.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(last_err(path));
    }
    // SAFETY: a descriptor just opened and owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The IPv4 header checksum (RFC 1071) of `hdr`, its checksum field taken as zero.
fn ip_checksum(hdr: &[u8]) -> u16 {
    let mut sum = 0u32;
    for (i, w) in hdr.chunks(2).enumerate() {
        if i == 5 {
            continue;
        }
        sum += u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]) as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Sets the ECN field of the IPv4 packet `p` to CE and updates its header checksum.
pub fn mark_ce(p: &mut [u8]) {
    let ihl = ((p[0] & 0x0f) as usize * 4).clamp(20, p.len());
    p[1] |= 0b11;
    let sum = ip_checksum(&p[..ihl]);
    p[10..12].copy_from_slice(&sum.to_be_bytes());
}

/// What the router reads of an IPv4 packet: destination, size, ECN field, and a packet for
/// the discipline to judge (`None`: not IPv4).
fn view(p: &[u8], src: u32, dst: u32, buf: u32, now: u64) -> Option<Packet> {
    if p.len() < 20 || p[0] >> 4 != 4 {
        return None;
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    let proto = p[9];
    let ecn = match p[1] & 0b11 {
        0b01 => Ecn::Ect1,
        0b10 => Ecn::Ect0,
        0b11 => Ecn::Ce,
        _ => Ecn::NotEct,
    };
    let (sport, dport, payload) = if proto == 6 && p.len() >= ihl + 20 {
        let t = &p[ihl..];
        let doff = (t[12] >> 4) as usize * 4;
        (u16::from_be_bytes([t[0], t[1]]), u16::from_be_bytes([t[2], t[3]]), p.len().saturating_sub(ihl + doff) as u32)
    } else {
        (0, 0, 0)
    };
    // The flow index is a hash of the addresses and ports (FQ-CoDel's flow queues).
    let key = (src as u64) << 48 ^ (dst as u64) << 32 ^ (sport as u64) << 16 ^ dport as u64 ^ (proto as u64) << 56;
    let flow = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as u32;
    let t = SimTime(now);
    let mut pkt = if proto == 6 && payload > 0 {
        Packet::tcp_data(&Endpoints { flow, sender: src, receiver: dst, sport, dport }, Seq(0), payload, p[8], t)
    } else if proto == 6 {
        Packet::tcp_ack(&Endpoints { flow, sender: dst, receiver: src, sport: dport, dport: sport }, Seq(0), 65_535, p[8], t)
    } else {
        Packet::udp(&Endpoints { flow, sender: src, receiver: dst, sport, dport }, payload, p[8], t)
    };
    pkt.size = p.len() as u32;
    pkt.ecn = ecn;
    pkt.seq = Seq(buf);
    Some(pkt)
}

/// Counters of the router process.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct RouterCounters {
    pub read: u64,
    pub written: u64,
    pub write_errors: u64,
    /// Packets larger than the MTU (a segmentation offload left on).
    pub oversize: u64,
    pub not_ipv4: u64,
    pub no_route: u64,
    /// The largest packet read, bytes.
    pub max_packet: u64,
    /// How late writes to TUN devices were against the schedule, ns: sum and maximum.
    pub lateness_ns_sum: u64,
    pub lateness_ns_max: u64,
    /// ACK spoofing (`signal = "spoof"`): bursts of forged duplicate ACKs sent, the ACKs
    /// in them, signals absorbed (a burst for the same ACK number already sent) and signals
    /// for a connection whose ACK the router has not seen yet (nothing sent).
    pub spoof_events: u64,
    pub spoofed_acks_sent: u64,
    pub spoof_absorbed: u64,
    pub spoof_no_ack: u64,
    /// Whether the router ran at a real-time priority (SCHED_FIFO).
    pub realtime: bool,
}

struct Router {
    plan: KernelPlan,
    hops: Vec<Hop>,
    /// The TUN device of each host, by node index.
    tuns: Vec<Option<Tun>>,
    bufs: Vec<Box<[u8; MAX_PACKET]>>,
    lens: Vec<u16>,
    /// Destination node of the packet in each buffer.
    dsts: Vec<u32>,
    free: Vec<u32>,
    c: RouterCounters,
    start: Instant,
    /// The last pure ACK of each connection seen at each router, for ACK spoofing: by
    /// (router, data-direction connection).
    acks: HashMap<(u32, Conn), LastAck>,
    /// The capture of each router named for one: every packet it receives.
    pcap: Vec<Option<crate::pcap::Capture>>,
    /// The run's start, unix ns (the captures' clock).
    start_unix_ns: u64,
}

/// A TCP connection in its data direction: sender address, receiver address, ports.
type Conn = (u32, u32, u16, u16);

struct LastAck {
    bytes: Vec<u8>,
    ack: u32,
    /// The ACK number of the last burst of forged duplicates.
    spoofed: Option<u32>,
}

/// Duplicate ACKs in one spoofed burst (the simulator's default `dupacks`).
const SPOOF_DUPACKS: u32 = 3;

/// What ACK spoofing reads of an IPv4 TCP packet: its connection in the data direction of
/// a data segment (`Ok`) or of a pure ACK (`Err`, with its ACK number); None for anything
/// else (SYN, FIN, RST, not TCP).
fn tcp_role(p: &[u8]) -> Option<Result<Conn, (Conn, u32)>> {
    let ihl = (p[0] & 0x0f) as usize * 4;
    if p[9] != 6 || p.len() < ihl + 20 {
        return None;
    }
    let t = &p[ihl..];
    let (src, dst) = (u32::from_be_bytes([p[12], p[13], p[14], p[15]]), u32::from_be_bytes([p[16], p[17], p[18], p[19]]));
    let (sport, dport) = (u16::from_be_bytes([t[0], t[1]]), u16::from_be_bytes([t[2], t[3]]));
    let flags = t[13];
    if flags & 0x07 != 0 || flags & 0x10 == 0 {
        return None;
    }
    let payload = p.len().saturating_sub(ihl + (t[12] >> 4) as usize * 4);
    if payload > 0 {
        Some(Ok((src, dst, sport, dport)))
    } else {
        Some(Err(((dst, src, dport, sport), u32::from_be_bytes([t[8], t[9], t[10], t[11]]))))
    }
}

impl Router {
    fn now(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    fn alloc(&mut self) -> u32 {
        if let Some(b) = self.free.pop() {
            return b;
        }
        self.bufs.push(Box::new([0; MAX_PACKET]));
        self.lens.push(0);
        self.dsts.push(0);
        self.bufs.len() as u32 - 1
    }

    /// The packet in `buf`, at node `at` at time `t`: onto the next hop toward its
    /// destination, or out to the destination host's TUN device.
    fn arrive(&mut self, at: u32, buf: u32, t: u64, now: u64) {
        let dst = self.dsts[buf as usize];
        if at == dst {
            let len = self.lens[buf as usize] as usize;
            let fd = self.tuns[at as usize].as_ref().map(|t| t.fd.as_raw_fd());
            // SAFETY: a valid buffer of `len` bytes.
            let n = fd.map_or(-1, |fd| unsafe { libc::write(fd, self.bufs[buf as usize].as_ptr() as *const libc::c_void, len) });
            if n == len as isize {
                self.c.written += 1;
                let late = now.saturating_sub(t);
                self.c.lateness_ns_sum += late;
                self.c.lateness_ns_max = self.c.lateness_ns_max.max(late);
            } else {
                self.c.write_errors += 1;
            }
            self.free.push(buf);
            return;
        }
        let Some(link) = self.plan.next_hop[at as usize][dst as usize] else {
            self.c.no_route += 1;
            self.free.push(buf);
            return;
        };
        let len = self.lens[buf as usize] as usize;
        let Some(mut pkt) = view(&self.bufs[buf as usize][..len], at, dst, buf, t) else {
            self.c.not_ipv4 += 1;
            self.free.push(buf);
            return;
        };
        if let Some(c) = self.pcap[at as usize].as_mut() {
            c.record_ip(&self.bufs[buf as usize][..len], self.start_unix_ns + t);
        }
        let was = pkt.ecn;
        let role = if self.plan.nodes[at as usize].1 { tcp_role(&self.bufs[buf as usize][..len]) } else { None };
        if let Some(Err((conn, ack))) = role {
            let e = self.acks.entry((at, conn)).or_insert_with(|| LastAck { bytes: Vec::new(), ack, spoofed: None });
            if ack.wrapping_sub(e.ack) as i32 >= 0 || e.bytes.is_empty() {
                e.bytes.clear();
                e.bytes.extend_from_slice(&self.bufs[buf as usize][..len]);
                e.ack = ack;
            }
        }
        let hop = &mut self.hops[link as usize];
        let st = SimTime(t);
        let (verdict, action) = hop.q.classify(&pkt, st);
        let admitted = hop.q.admit(&mut pkt, verdict, action);
        if action.spoofs() {
            if let Some(Ok(conn)) = role {
                self.spoof(at, conn, t, now);
            }
        }
        let hop = &mut self.hops[link as usize];
        if !admitted {
            self.free.push(buf);
            return;
        }
        if pkt.ecn == Ecn::Ce && was != Ecn::Ce {
            mark_ce(&mut self.bufs[buf as usize][..len]);
        }
        hop.q.push(&pkt, st);
        if hop.free_at <= t {
            self.transmit(link as usize, t);
        }
    }

    /// A queue of router `at` signals congestion for a data segment of `conn` by ACK
    /// spoofing: `SPOOF_DUPACKS` copies of the last ACK of the connection that passed this
    /// router go to the sender at once, unless a burst with that ACK number was already
    /// sent (the sender is in the recovery it started) or no ACK has passed yet.
    fn spoof(&mut self, at: u32, conn: Conn, t: u64, now: u64) {
        let Some(sender) = self.plan.node_of_addr(conn.0) else { return };
        let Some(last) = self.acks.get_mut(&(at, conn)) else {
            self.c.spoof_no_ack += 1;
            return;
        };
        if last.spoofed == Some(last.ack) {
            self.c.spoof_absorbed += 1;
            return;
        }
        last.spoofed = Some(last.ack);
        self.c.spoof_events += 1;
        let bytes = std::mem::take(&mut last.bytes);
        for _ in 0..SPOOF_DUPACKS {
            let b = self.alloc();
            self.bufs[b as usize][..bytes.len()].copy_from_slice(&bytes);
            self.lens[b as usize] = bytes.len() as u16;
            self.dsts[b as usize] = sender;
            self.c.spoofed_acks_sent += 1;
            self.arrive(at, b, t, now);
        }
        if let Some(last) = self.acks.get_mut(&(at, conn)) {
            last.bytes = bytes;
        }
    }

    /// A transmission opportunity of hop `i` at `t`: the next packet the discipline lets
    /// go starts transmission.
    fn transmit(&mut self, i: usize, t: u64) {
        let st = SimTime(t);
        let hop = &mut self.hops[i];
        let sent = if hop.q.decides_at_dequeue() {
            loop {
                let Some((p, v, a)) = hop.q.next_departure(st) else { break None };
                let was = p.ecn;
                match hop.q.finish_departure(p, v, a, st) {
                    Some(p) => {
                        if p.ecn == Ecn::Ce && was != Ecn::Ce {
                            let b = p.seq.0 as usize;
                            let len = self.lens[b] as usize;
                            mark_ce(&mut self.bufs[b][..len]);
                        }
                        break Some(p);
                    }
                    None => self.free.push(p.seq.0),
                }
            }
        } else {
            hop.q.dequeue(st)
        };
        let Some(p) = sent else { return };
        let tx = hop.ser.tx_time(p.size as u64 * 8, hop.rate_bps.max(1)).0;
        hop.free_at = t + tx;
        hop.busy_ns += tx;
        hop.tx_packets += 1;
        hop.tx_bytes += p.size as u64;
        let lost = hop.loss > 0.0 && hop.rng.bernoulli(hop.loss);
        hop.pipe.push_back((hop.free_at + hop.delay, p.seq.0, lost));
    }

    /// Runs every event due by `now`, in time order across the hops.
    fn advance(&mut self, now: u64) {
        loop {
            let Some((i, t)) = self.hops.iter().enumerate().map(|(i, h)| (i, h.next_event())).min_by_key(|x| x.1) else { return };
            if t > now {
                return;
            }
            let h = &mut self.hops[i];
            if h.pipe.front().is_some_and(|p| p.0 == t) {
                let (_, buf, lost) = h.pipe.pop_front().expect("a packet");
                if lost {
                    h.lost += 1;
                    self.free.push(buf);
                } else {
                    let to = h.to;
                    self.arrive(to, buf, t, now);
                }
            } else {
                self.transmit(i, t);
            }
        }
    }

    /// Reads every packet waiting on host `h`'s TUN device.
    fn read_host(&mut self, h: usize, now: u64) -> io::Result<()> {
        let fd = self.tuns[h].as_ref().expect("a host").fd.as_raw_fd();
        loop {
            let b = self.alloc();
            // SAFETY: a buffer of MAX_PACKET bytes.
            let n = unsafe { libc::read(fd, self.bufs[b as usize].as_mut_ptr() as *mut libc::c_void, MAX_PACKET) };
            if n < 0 {
                self.free.push(b);
                let e = io::Error::last_os_error();
                return match e.kind() {
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(()),
                    _ => Err(e),
                };
            }
            let n = n as usize;
            self.c.read += 1;
            self.c.max_packet = self.c.max_packet.max(n as u64);
            if n > self.plan.mtu as usize {
                self.c.oversize += 1;
            }
            let p = &self.bufs[b as usize][..n];
            if n < 20 || p[0] >> 4 != 4 {
                self.c.not_ipv4 += 1;
                self.free.push(b);
                continue;
            }
            let dst = u32::from_be_bytes([p[16], p[17], p[18], p[19]]);
            match self.plan.node_of_addr(dst).filter(|&d| self.tuns[d as usize].is_some()) {
                Some(d) => {
                    self.lens[b as usize] = n as u16;
                    self.dsts[b as usize] = d;
                    self.advance(now);
                    self.arrive(h as u32, b, now, now);
                }
                None => {
                    self.c.no_route += 1;
                    self.free.push(b);
                }
            }
        }
    }

    fn wait(&self, until: u64) -> io::Result<Vec<libc::pollfd>> {
        let mut fds: Vec<libc::pollfd> = self.tuns.iter().flatten().map(|t| libc::pollfd { fd: t.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 }).collect();
        // The parent's end of stdin: closed (POLLHUP) when it stops the run.
        fds.push(libc::pollfd { fd: 0, events: libc::POLLIN, revents: 0 });
        let ns = until.saturating_sub(self.now()).min(20_000_000);
        let ts = libc::timespec { tv_sec: (ns / 1_000_000_000) as libc::time_t, tv_nsec: (ns % 1_000_000_000) as libc::c_long };
        // SAFETY: valid pollfds and timespec, no signal mask.
        let r = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &ts, std::ptr::null()) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        Ok(fds)
    }

    fn snapshot(&mut self, now: u64) {
        for h in &mut self.hops {
            h.q.settle(SimTime(now));
            h.q.begin_measurement();
            h.base = Some((h.q.stats, h.tx_packets, h.tx_bytes, h.busy_ns, h.lost));
        }
    }

    fn run(&mut self, interval: u64) -> io::Result<()> {
        let (warmup, end) = (self.plan.warmup.0, self.plan.duration.0);
        let hosts: Vec<usize> = (0..self.tuns.len()).filter(|&h| self.tuns[h].is_some()).collect();
        let mut next_sample = 0;
        let mut measuring = false;
        loop {
            let now = self.now();
            self.advance(now);
            if !measuring && now >= warmup {
                self.snapshot(warmup.min(now));
                measuring = true;
            }
            if now >= next_sample && now <= end {
                let t = next_sample as f64 / 1e9;
                for h in &mut self.hops {
                    h.series.push((t, h.q.len() as f64, h.q.discipline().probe().avg, h.q.stats.drops()));
                }
                next_sample += interval;
            }
            if now >= end {
                break;
            }
            let next = self.hops.iter().map(Hop::next_event).min().unwrap_or(u64::MAX).min(next_sample).min(if measuring { end } else { warmup });
            let fds = self.wait(next)?;
            if fds.last().is_some_and(|f| f.revents & (libc::POLLHUP | libc::POLLIN) != 0) {
                return Err(io::Error::other("stopped by the parent (stdin closed)"));
            }
            let now = self.now();
            for (k, &h) in hosts.iter().enumerate() {
                if fds[k].revents & libc::POLLIN != 0 {
                    self.read_host(h, now)?;
                }
            }
        }
        let end = self.now();
        for h in &mut self.hops {
            h.q.settle(SimTime(end));
        }
        Ok(())
    }

    fn report(&self, wall_s: f64) -> serde_json::Value {
        let measured = (self.plan.duration.0 - self.plan.warmup.0) as f64;
        let queues: Vec<_> = self
            .hops
            .iter()
            .zip(&self.plan.links)
            .map(|(h, l)| {
                let (b, p0, by0, busy0, lost0) = h.base.unwrap_or_default();
                let s = h.q.stats.delta(&b);
                let sent_bps = (h.tx_bytes - by0) as f64 * 8e9 / measured;
                serde_json::json!({
                    "link": l.name,
                    "from": self.plan.nodes[l.from as usize].0,
                    "to": self.plan.nodes[l.to as usize].0,
                    "rate_bps": l.rate_bps,
                    "delay_ms": l.delay.as_secs_f64() * 1e3,
                    "arrivals": s.arrivals,
                    "departures": s.departures,
                    "drops": s.drops(),
                    "drops_overflow": s.drops_overflow,
                    "drops_early": s.drops_early,
                    "drops_forced": s.drops_forced,
                    "drops_dequeue": s.drops_dequeue,
                    "marks_early": s.marks_early,
                    "marks_forced": s.marks_forced,
                    "marks_dequeue": s.marks_dequeue,
                    "spoof_signals": s.spoof_signals,
                    "mean_len_packets": s.len_area_packets as f64 / measured,
                    "mean_len_bytes": s.len_area_bytes as f64 / measured,
                    "mean_delay_ms": if s.departures > 0 { s.delay_sum_ns as f64 / s.departures as f64 / 1e6 } else { 0.0 },
                    "max_len_packets": h.q.max_packets,
                    "final_len_packets": h.q.len(),
                    "tx_packets": h.tx_packets - p0,
                    "tx_bytes": h.tx_bytes - by0,
                    "sent_bps": sent_bps,
                    "utilisation": (h.busy_ns - busy0) as f64 / measured,
                    "lost_random": h.lost - lost0,
                    "series": h.series,
                })
            })
            .collect();
        serde_json::json!({"router": self.c, "queues": queues, "wall_s": wall_s, "cpu_s": cpu_seconds()})
    }
}

fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the struct.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// The router process of a kernel run. `namespaces[i]` is the network namespace of node
/// `i` (an empty name for a router). Makes a TUN device named `ifname` in each host's
/// namespace, prints `READY` on stdout, reads the start time (unix seconds) as one line on stdin, runs to the
/// scenario's end (sampling every queue every `interval_s`) and returns its report as JSON.
/// It dies with its parent (`PR_SET_PDEATHSIG`) and stops early when its stdin closes.
/// Each router in `pcap` writes `NAME.pcap` into `out_dir` (default: here): every packet
/// it receives, before its queue decides (LINKTYPE_RAW, the run's clock).
#[allow(clippy::too_many_arguments)]
pub fn router_process(
    text: &str,
    origin: &str,
    overrides: &[String],
    namespaces: &[String],
    ifname: &str,
    interval_s: f64,
    pcap: &[String],
    out_dir: Option<&std::path::Path>,
) -> Result<String, String> {
    // SAFETY: prctl with integer arguments: die with the parent; 1 us timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong);
    }
    // A real-time priority, when allowed: on a loaded machine the router then wakes when
    // its packets are due rather than when the scheduler gets to it. It sleeps between
    // events, so it takes only the CPU its packets need.
    let param = libc::sched_param { sched_priority: 10 };
    // SAFETY: a valid sched_param for this process.
    let realtime = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } == 0;
    let plan = KernelPlan::load(text, origin, overrides).map_err(|e| e.to_string())?;
    if namespaces.len() != plan.nodes.len() {
        return Err(format!("{} namespaces for {} nodes", namespaces.len(), plan.nodes.len()));
    }
    let mut tuns = Vec::new();
    for (i, ns) in namespaces.iter().enumerate() {
        tuns.push(match (plan.nodes[i].1, ns.is_empty()) {
            (false, false) => Some(Tun::create_in(ns, ifname).map_err(|e| e.to_string())?),
            (false, true) => return Err(format!("host {} has no namespace", plan.nodes[i].0)),
            (true, _) => None,
        });
    }
    let mut captures: Vec<Option<crate::pcap::Capture>> = (0..plan.nodes.len()).map(|_| None).collect();
    for name in pcap {
        let i = plan.nodes.iter().position(|n| &n.0 == name && n.1).ok_or_else(|| format!("--pcap: no router named {name:?}"))?;
        let path = out_dir.unwrap_or(std::path::Path::new(".")).join(format!("{name}.pcap"));
        captures[i] = Some(crate::pcap::Capture::create(&path).map_err(|e| e.to_string())?);
    }
    let hops = plan
        .links
        .iter()
        .map(|l| Hop {
            q: l.queue.clone(),
            to: l.to,
            rate_bps: l.rate_bps,
            delay: l.delay.0,
            loss: l.loss,
            rng: Rng::stream(plan.seed, &format!("kernel/loss/{}", l.name)),
            ser: Serializer::default(),
            free_at: 0,
            pipe: VecDeque::with_capacity(1024),
            tx_packets: 0,
            tx_bytes: 0,
            lost: 0,
            busy_ns: 0,
            base: None,
            series: Vec::new(),
        })
        .collect();
    {
        let mut out = io::stdout().lock();
        writeln!(out, "READY").and_then(|_| out.flush()).map_err(|e| e.to_string())?;
    }
    let mut line = String::new();
    io::stdin().lock().read_line(&mut line).map_err(|e| e.to_string())?;
    if line.trim().is_empty() {
        return Err("stopped before the start (stdin closed)".into());
    }
    let start_unix: f64 = line.trim().parse().map_err(|_| format!("bad start time {:?}", line.trim()))?;
    let now_unix = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    if start_unix > now_unix {
        std::thread::sleep(std::time::Duration::from_secs_f64((start_unix - now_unix).min(60.0)));
    }
    let wall = Instant::now();
    let start_unix_ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut r = Router {
        plan,
        hops,
        tuns,
        bufs: Vec::new(),
        lens: Vec::new(),
        dsts: Vec::new(),
        free: Vec::new(),
        c: RouterCounters::default(),
        start: Instant::now(),
        acks: HashMap::new(),
        pcap: captures,
        start_unix_ns,
    };
    for _ in 0..1024 {
        let b = r.alloc();
        r.free.push(b);
    }
    r.c.realtime = realtime;
    r.run((interval_s * 1e9).max(1e6) as u64).map_err(|e| format!("router: {e}"))?;
    for c in r.pcap.iter_mut().filter_map(Option::take) {
        c.finish().map_err(|e| format!("router: {e}"))?;
    }
    Ok(r.report(wall.elapsed().as_secs_f64()).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMBBELL: &str = r#"
        duration = "5s"
        warmup = "1s"
        hosts = ["S{1..2}", "D{1..2}"]
        routers = ["R1", "R2"]
        [[links]]
        between = ["S{1..2}", "R1"]
        rate = "100Mbps"
        delay = "1ms"
        [[links]]
        between = ["R1", "R2"]
        rate = "10Mbps"
        delay = "10ms"
        queue = { discipline = "codel", signal = "ecn", limit = 100 }
        [[links]]
        between = ["R2", "D{1..2}"]
        rate = "100Mbps"
        delay = "1ms"
        [[flows]]
        name = "bulk"
        from = "S{1..2}"
        to = "D{1..2}"
        tcp = { variant = "cubic", mss = 1448, sack = true, ecn = true }
    "#;

    #[test]
    fn the_plan_takes_the_flows_variant_ecn_sack_and_mss() {
        let p = KernelPlan::load(DUMBBELL, "<t>", &[]).unwrap();
        assert_eq!(p.flows.len(), 2);
        let f = &p.flows[0];
        assert_eq!((f.cc, f.ecn, f.sack, f.mss, f.src.as_str(), f.dst.as_str()), ("cubic", true, true, 1448, "S1", "D1"));
        assert_eq!(p.mtu, 1488);
        // With timestamps (the `linux` profile's), the kernel's payload is the MSS and its
        // segment 1500 bytes, as the simulator's.
        let stamped = KernelPlan::load(DUMBBELL, "<t>", &["flows.0.tcp.timestamps=true".into()]).unwrap();
        assert_eq!(stamped.mtu, 1500);
        assert!(p.links.iter().any(|l| l.queue.decides_at_dequeue()), "CoDel decides at dequeue");
        let reno = KernelPlan::load(DUMBBELL, "<t>", &["flows.0.tcp.variant=newreno".into()]).unwrap();
        assert_eq!(reno.flows[0].cc, "reno");
        let e = KernelPlan::load(DUMBBELL, "<t>", &["flows.0.tcp.variant=dctcp".into()]).unwrap_err().to_string();
        assert!(e.contains("tcp.variant"), "{e}");
        let e =
            KernelPlan::load(DUMBBELL, "<t>", &["flows.0={ name = \"r\", from = \"S1\", to = \"D1\", transport = \"rdp\" }".into()]).unwrap_err().to_string();
        assert!(e.contains("TCP flows only"), "{e}");
        let spoof = ["links.1.queue={ discipline = \"red\", signal = \"spoof\", limit = 100, min_th = 5, max_th = 15 }".into()];
        assert!(KernelPlan::load(DUMBBELL, "<t>", &spoof).is_ok(), "ACK spoofing runs on real packets");
    }

    #[test]
    fn spoofing_tells_data_segments_from_pure_acks_by_connection() {
        let mut p = vec![0u8; 52];
        p[..20].copy_from_slice(&[0x45, 0, 0, 52, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 3, 10, 0, 0, 1]);
        p[20..24].copy_from_slice(&[0x13, 0x88, 0x9c, 0x40]);
        p[28..32].copy_from_slice(&1234u32.to_be_bytes());
        p[32] = 8 << 4; // 32-byte header: timestamps
        p[33] = 0x10; // ACK
        let (a, b) = (u32::from_be_bytes([10, 0, 0, 1]), u32::from_be_bytes([10, 0, 0, 3]));
        assert_eq!(tcp_role(&p), Some(Err(((a, b, 0x9c40, 0x1388), 1234))), "an ACK from the receiver, in the data direction");
        p.extend_from_slice(&[0; 100]);
        assert_eq!(tcp_role(&p), Some(Ok((b, a, 0x1388, 0x9c40))));
        p[33] = 0x11; // FIN
        assert_eq!(tcp_role(&p), None);
    }

    #[test]
    fn a_ce_mark_keeps_the_ip_header_checksum_valid() {
        // An IPv4 header (ECT(0)) with a valid checksum, then marked.
        let mut p = vec![0x45, 0x02, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0, 0, 10, 0, 0, 1, 10, 0, 0, 3];
        let sum = ip_checksum(&p);
        p[10..12].copy_from_slice(&sum.to_be_bytes());
        mark_ce(&mut p);
        assert_eq!(p[1] & 0b11, 0b11);
        // A header with its checksum sums to 0xffff (RFC 1071).
        let total: u32 = p.chunks(2).map(|w| u16::from_be_bytes([w[0], w[1]]) as u32).sum();
        assert_eq!(((total & 0xffff) + (total >> 16)) as u16, 0xffff);
    }

    #[test]
    fn the_router_judges_a_tcp_segment_by_its_ip_size_and_ecn_field() {
        let mut p = vec![0u8; 1040];
        p[..20].copy_from_slice(&[0x45, 0x02, 0x04, 0x10, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 3]);
        p[20 + 12] = 5 << 4;
        let v = view(&p, 0, 2, 7, 0).unwrap();
        assert_eq!((v.size, v.payload, v.ecn, v.seq, v.is_tcp(), v.is_reverse()), (1040, 1000, Ecn::Ect0, Seq(7), true, false));
        let ack = view(&p[..40], 2, 0, 8, 0).unwrap();
        assert!(ack.is_reverse());
        assert!(view(&[0x60; 40], 0, 2, 0, 0).is_none(), "IPv6 is not judged");
    }
}
