//! One node of the virtual network: a UDP socket, its egresses, its agents, and the loop
//! that runs them (Faber, Section 4: the VNet node, its congestion-detecting socket, the
//! ACC agents and the flakeway).
//!
//! The loop, single-threaded and non-blocking:
//!
//! 1. pull every datagram the OS holds (up to a batch) into the pool; each goes through the
//!    flakeway, if the node has one, and is then handled: decoded (malformed ones counted
//!    and dropped) and its MAC checked (with a key every datagram carries the run's; without
//!    one, controls and requests are refused), delivered if addressed here (RDP to the host's
//!    connections, controls to its senders, filter requests to its filters; controls and
//!    requests only with a fresh nonce), else, at a router, its TTL decremented, diverted to a filter if
//!    one is at work on its connection, or queued on the egress its route names;
//! 2. run the filters over what they diverted (discard, pass, flush);
//! 3. release what the flakeway has held long enough;
//! 4. let the host's RDP connections send what their windows and the egress allow;
//! 5. start the transmissions due and write to the socket the datagrams whose propagation
//!    delay has passed;
//! 6. sleep in `ppoll` until the socket is readable or the next thing is due.
//!
//! A queue that refuses a packet calls the congestion callback: on an egress with the ACC
//! monitor, an RDP data segment carrying its sender's state gets the monitor's reaction
//! (a control routed to the sender, a filter request to the neighbour the segment came from,
//! or a filter here when that neighbour is the sender itself).
//!
//! Time is nanoseconds since the run's start (the same instant at every node of the
//! machine). Statistics are kept for the measurement window, from the warm-up to the
//! scenario's duration; the node runs a grace period after it to drain, sending no new data.

use crate::acc::{request_of, AccCounters, Filters, Monitor, Replay};
use crate::egress::Egress;
use crate::endpoint::{self, Hosts, Outbox};
use crate::flakeway::{Fate, Flakeways};
use crate::pcap::Capture;
use crate::plan::Plan;
use crate::pool::{Pkt, Pool, NOBODY};
use crate::report::{NodeReport, QueueReport};
use crate::wire::{self, Auth, Body, Conn, Control, FilterRequest, WireError};
use ccsim::sim::Rng;
use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// TTL of the datagrams a node makes.
pub const TTL: u8 = 64;
/// Datagrams taken from the OS before the node turns to its other work.
const BATCH: usize = 256;
/// Longest sleep, so that the end of the run is noticed.
const MAX_SLEEP_NS: u64 = 20_000_000;

/// Set by SIGUSR1 (see [`stop_on_sigusr1`]): the node ends its run now and reports.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// Makes SIGUSR1 end this process's node early, with its report over the window so far
/// (`ccsim live run` sends it to the survivors when a node dies).
pub fn stop_on_sigusr1() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe { libc::signal(libc::SIGUSR1, on_stop as *const () as libc::sighandler_t) };
}

/// Everything a node needs to run.
pub struct Setup {
    pub plan: Plan,
    pub me: u32,
    pub socket: UdpSocket,
    /// Every node's UDP address, by node id.
    pub peers: Vec<SocketAddr>,
    pub auth: Option<Auth>,
    /// The run's time zero.
    pub start: Instant,
    /// Where to write `NAME.pcap` if the plan asks this node for one.
    pub out_dir: Option<PathBuf>,
}

struct Stats {
    received: u64,
    forwarded: u64,
    forwarded_in_window: u64,
    malformed: u64,
    ttl_expired: u64,
    no_route: u64,
    unknown_source: u64,
}

pub struct Node {
    plan: Plan,
    me: u32,
    addr: u32,
    router: bool,
    socket: UdpSocket,
    peers: Vec<SocketAddr>,
    peer_ids: HashMap<SocketAddr, u32>,
    pool: Pool,
    egress: Vec<Egress>,
    /// Egress index by destination node (the route), and by neighbour.
    route: Vec<Option<usize>>,
    to_neighbour: Vec<Option<usize>>,
    monitors: Vec<Option<ccsim::router::acc::MonitorConfig>>,
    monitor: Monitor,
    filters: Filters,
    replay: Replay,
    flakeways: Flakeways,
    hosts: Hosts,
    outbox: Outbox,
    auth: Option<Auth>,
    nonce: u64,
    acc: AccCounters,
    stats: Stats,
    capture: Option<Capture>,
    start: Instant,
    window: (u64, u64),
    stop: u64,
    /// CPU time at the window's start, and used in it (once it has ended).
    cpu_at_window: Option<f64>,
    cpu_in_window: Option<f64>,
    /// When SIGUSR1 ended the run early.
    stopped_at: Option<u64>,
    /// Bytes (IP size) received from each node in the window, by node id.
    rx_bytes_in_window: Vec<u64>,
    scratch: Vec<u8>,
    /// Segments the filters judged in one run, reused.
    judged: Vec<(Pkt, bool)>,
    filter_batch: bool,
}

/// CPU time (user + system) of the calling thread, the node's only one, s.
pub fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the struct we pass and reads nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Asks the kernel for 4 MiB socket buffers, so that bursts wait in the node's queues
/// rather than overflow the OS's: beyond `net.core.rmem_max` when the process may (root,
/// `SO_RCVBUFFORCE`), else up to it.
pub fn enlarge_buffers(s: &UdpSocket) {
    let size: libc::c_int = 4 << 20;
    for (force, opt) in [(libc::SO_RCVBUFFORCE, libc::SO_RCVBUF), (libc::SO_SNDBUFFORCE, libc::SO_SNDBUF)] {
        let set = |o| {
            // SAFETY: a valid socket and an int option of the right size.
            unsafe { libc::setsockopt(s.as_raw_fd(), libc::SOL_SOCKET, o, &size as *const _ as *const libc::c_void, std::mem::size_of::<libc::c_int>() as u32) }
        };
        if set(force) != 0 {
            set(opt);
        }
    }
}

impl Node {
    pub fn new(s: Setup) -> io::Result<Node> {
        let Setup { plan, me, socket, peers, auth, start, out_dir } = s;
        socket.set_nonblocking(true)?;
        enlarge_buffers(&socket);
        // Timer slack of 1 us: sleeps end when asked, which the shaper's schedule likes.
        // SAFETY: prctl with an integer argument.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong) };
        let n = plan.nodes.len();
        let mut egress = Vec::new();
        let mut monitors = Vec::new();
        let mut to_neighbour = vec![None; n];
        let mut link_egress = vec![None; plan.links.len()];
        for (i, l) in plan.links.iter().enumerate().filter(|(_, l)| l.from == me) {
            let rng = Rng::stream(plan.seed, &format!("live/loss/{}", l.name));
            link_egress[i] = Some(egress.len());
            to_neighbour[l.to as usize].get_or_insert(egress.len());
            egress.push(Egress::new(i as u32, l.to, l.rate_bps, l.delay, l.loss, l.limit, rng));
            monitors.push(l.monitor);
        }
        let route = (0..n).map(|d| plan.next_hop[me as usize][d].and_then(|l| link_egress[l as usize])).collect();
        let peer_ids = peers.iter().enumerate().map(|(i, a)| (*a, i as u32)).collect();
        let name = plan.nodes[me as usize].name.clone();
        let capture = match plan.pcap.contains(&me) {
            true => Some(Capture::create(&out_dir.unwrap_or_else(|| ".".into()).join(format!("{name}.pcap")))?),
            false => None,
        };
        let flakeways = Flakeways::new(&plan.flakeways, me, Rng::stream(plan.seed, &format!("live/flakeway/{name}")));
        let hosts = Hosts::new(&plan, me);
        let window = (plan.warmup.0, plan.duration.0);
        let stop = plan.duration.0 + plan.grace.0;
        let nonce = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_micros() as u64);
        Ok(Node {
            addr: plan.nodes[me as usize].addr,
            router: plan.nodes[me as usize].router,
            me,
            socket,
            peers,
            peer_ids,
            pool: Pool::new(1024),
            egress,
            route,
            to_neighbour,
            monitors,
            monitor: Monitor::default(),
            filters: Filters::default(),
            replay: Replay::default(),
            flakeways,
            hosts,
            outbox: Outbox::default(),
            auth,
            nonce,
            acc: AccCounters::default(),
            stats: Stats { received: 0, forwarded: 0, forwarded_in_window: 0, malformed: 0, ttl_expired: 0, no_route: 0, unknown_source: 0 },
            capture,
            start,
            window,
            stop,
            cpu_at_window: None,
            cpu_in_window: None,
            stopped_at: None,
            rx_bytes_in_window: vec![0; n],
            scratch: Vec::with_capacity(wire::MAX_DATAGRAM),
            judged: Vec::with_capacity(256),
            filter_batch: false,
            plan,
        })
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    fn in_window(&self, t: u64) -> bool {
        (self.window.0..self.window.1).contains(&t)
    }

    /// Runs until the end of the grace period; returns the report.
    pub fn run(mut self) -> io::Result<NodeReport> {
        loop {
            let now = self.now();
            if now >= self.stop {
                break;
            }
            if STOP.load(Ordering::Relaxed) {
                // The window ends here: its rates are over the time it lasted.
                self.stopped_at = Some(now);
                self.window.1 = self.window.1.min(now);
                self.window.0 = self.window.0.min(self.window.1);
                break;
            }
            if self.cpu_at_window.is_none() && now >= self.window.0 {
                self.cpu_at_window = Some(cpu_seconds());
            }
            if now >= self.window.1 && self.cpu_in_window.is_none() {
                self.cpu_in_window = Some(cpu_seconds() - self.cpu_at_window.unwrap_or(0.0));
            }
            self.receive_batch(now)?;
            if self.filter_batch {
                self.run_filters(now);
            }
            while let Some(p) = self.flakeways.release(now) {
                self.handle(p, now);
            }
            if self.filter_batch {
                self.run_filters(now);
            }
            if !self.filters.is_empty() && self.filters.next_expiry().is_some_and(|t| t <= now) {
                self.run_filters(now);
            }
            self.poll_hosts(now);
            self.transmit(now)?;
            self.sleep(now)?;
        }
        if self.cpu_in_window.is_none() {
            self.cpu_in_window = Some(cpu_seconds() - self.cpu_at_window.unwrap_or(0.0));
        }
        Ok(self.report())
    }

    fn receive_batch(&mut self, now: u64) -> io::Result<()> {
        for _ in 0..BATCH {
            let b = self.pool.alloc();
            match self.socket.recv_from(self.pool.buf(b)) {
                Ok((n, from)) => {
                    self.stats.received += 1;
                    let from_id = match self.peer_ids.get(&from) {
                        Some(&id) => id,
                        None => {
                            self.stats.unknown_source += 1;
                            NOBODY
                        }
                    };
                    let pkt = Pkt { buf: b, len: n.min(wire::MAX_DATAGRAM) as u16, from: from_id, at: now };
                    if from_id != NOBODY && self.in_window(now) {
                        self.rx_bytes_in_window[from_id as usize] += crate::egress::wire_bytes(pkt.len);
                    }
                    if let Some(c) = &mut self.capture {
                        c.record(from, self.peers[self.me as usize], self.pool.bytes(&pkt), now);
                    }
                    self.arrive(pkt, now);
                }
                Err(e) => {
                    self.pool.release(b);
                    if e.kind() == io::ErrorKind::WouldBlock {
                        return Ok(());
                    }
                    // ICMP port unreachable from a peer that has gone: not ours to stop for.
                    if e.kind() == io::ErrorKind::ConnectionRefused {
                        continue;
                    }
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// A datagram arrived: the flakeway first.
    fn arrive(&mut self, pkt: Pkt, now: u64) {
        if self.flakeways.is_empty() {
            return self.handle(pkt, now);
        }
        let bytes = self.pool.bytes(&pkt);
        let Ok(h) = wire::header(bytes) else { return self.handle(pkt, now) };
        // The segment as the header bounds it (with a key, its MAC follows).
        let data = match wire::decode(bytes) {
            Ok(wire::Datagram { body: Body::Rdp(seg), .. }) => endpoint::view(seg).is_some_and(|v| v.data),
            _ => false,
        };
        match self.flakeways.offer(pkt, h.ty, data, self.plan.node_of_addr(h.dst), now) {
            Fate::Pass(p) => self.handle(p, now),
            Fate::Dropped(p) => self.pool.release(p.buf),
            Fate::Held => {}
        }
    }

    fn handle(&mut self, pkt: Pkt, now: u64) {
        // With a key, every datagram carries the run's MAC, checked here at every node it
        // reaches: a router forwards, and its ACC monitor reads, nothing forged or replayed
        // from another run.
        let d = match wire::accept(self.pool.bytes(&pkt), self.auth.as_ref()) {
            Ok(d) => d,
            Err(WireError::Mac) => {
                self.acc.bad_mac += 1;
                return self.pool.release(pkt.buf);
            }
            Err(_) => {
                self.stats.malformed += 1;
                return self.pool.release(pkt.buf);
            }
        };
        let h = d.header;
        if h.dst == self.addr {
            return self.local(pkt, now);
        }
        if !self.router {
            self.stats.no_route += 1;
            return self.pool.release(pkt.buf);
        }
        let conn = match d.body {
            Body::Rdp(seg) if !self.filters.is_empty() => {
                endpoint::view(seg).filter(|v| v.data).map(|v| Conn { src: h.src, dst: h.dst, sport: v.sport, dport: v.dport })
            }
            _ => None,
        };
        if !wire::decrement_ttl(self.pool.buf(pkt.buf)) {
            self.stats.ttl_expired += 1;
            return self.pool.release(pkt.buf);
        }
        let pkt = match conn {
            Some(c) => match self.filters.divert(&c, pkt, now) {
                Ok(()) => {
                    self.filter_batch = true;
                    return;
                }
                Err(p) => p,
            },
            None => pkt,
        };
        self.stats.forwarded += 1;
        if self.in_window(now) {
            self.stats.forwarded_in_window += 1;
        }
        self.forward(pkt, h.dst, now);
    }

    /// A datagram addressed to this node, accepted by [`handle`](Self::handle).
    fn local(&mut self, pkt: Pkt, now: u64) {
        let Ok(d) = wire::decode(self.pool.bytes(&pkt)) else { return self.pool.release(pkt.buf) };
        let src = d.header.src;
        match d.body {
            Body::Rdp(seg) => {
                self.scratch.clear();
                self.scratch.extend_from_slice(seg);
                self.pool.release(pkt.buf);
                self.hosts.on_segment(src, &self.scratch, now, &mut self.outbox);
                self.send_outbox(now);
            }
            Body::Udp(u) => {
                self.hosts.on_udp(src, &u, now);
                self.pool.release(pkt.buf);
            }
            Body::Control(c) => {
                self.pool.release(pkt.buf);
                if !self.replay.fresh(src, c.nonce) {
                    self.acc.replayed += 1;
                } else if self.hosts.on_control(&c, now) {
                    self.acc.controls_received += 1;
                }
            }
            Body::Filter(f) => {
                self.pool.release(pkt.buf);
                if !self.replay.fresh(src, f.nonce) {
                    self.acc.replayed += 1;
                } else if self.router {
                    self.filters.install(f.conn, &request_of(&f), now, &mut self.acc);
                }
            }
        }
    }

    /// Queues `pkt` (addressed to `dst`) on the egress of its route.
    fn forward(&mut self, pkt: Pkt, dst: u32, now: u64) {
        let Some(e) = self.plan.node_of_addr(dst).and_then(|d| self.route[d as usize]) else {
            self.stats.no_route += 1;
            return self.pool.release(pkt.buf);
        };
        self.enqueue(e, pkt, now);
    }

    fn enqueue(&mut self, e: usize, pkt: Pkt, now: u64) {
        match self.egress[e].enqueue(pkt, now, self.window) {
            Ok(()) => {}
            Err(p) => {
                if let Some(cfg) = self.monitors[e] {
                    self.congestion(e, &cfg, &p, now);
                }
                self.pool.release(p.buf);
            }
        }
    }

    /// The congestion callback: egress `e`, monitored with `cfg`, is dropping `pkt`.
    fn congestion(&mut self, e: usize, cfg: &ccsim::router::acc::MonitorConfig, pkt: &Pkt, now: u64) {
        let bytes = self.pool.bytes(pkt);
        let Ok(wire::Datagram { header: h, body: Body::Rdp(seg) }) = wire::decode(bytes) else { return };
        let Some(v) = endpoint::view(seg) else { return };
        let (true, Some(carried)) = (v.data, v.acc) else { return };
        let conn = Conn { src: h.src, dst: h.dst, sport: v.sport, dport: v.dport };
        let Some(auth) = self.auth.clone() else { return };
        let Some(r) = self.monitor.on_drop(cfg, self.egress[e].link, conn, &carried, now, &mut self.acc) else { return };
        // The control, to the sender, routed like any datagram; sent once.
        self.nonce += 1;
        let ctl = Control {
            conn,
            nonce: self.nonce,
            seq: v.seq,
            cwnd: r.state.cwnd,
            ssthresh: r.state.ssthresh,
            srtt_us: r.state.srtt_us,
            slow_start: r.state.slow_start,
        };
        let b = self.pool.alloc();
        let n = auth.encode_control(self.pool.buf(b), self.addr, conn.src, TTL, &ctl);
        self.forward(Pkt { buf: b, len: n as u16, from: NOBODY, at: now }, conn.src, now);
        let Some(req) = r.filter else { return };
        let upstream = (pkt.from != NOBODY && self.plan.nodes[pkt.from as usize].router).then_some(pkt.from);
        match upstream.and_then(|u| self.to_neighbour[u as usize].map(|e| (u, e))) {
            Some((u, e)) => {
                self.nonce += 1;
                let f = FilterRequest {
                    conn,
                    nonce: self.nonce,
                    carried: req.carried,
                    remaining: req.remaining,
                    lifetime_us: (req.lifetime.0 / 1000).min(u32::MAX as u64) as u32,
                    cwnd: r.state.cwnd,
                    ssthresh: r.state.ssthresh,
                    carried_slow_start: carried.slow_start,
                    slow_start: r.state.slow_start,
                };
                let b = self.pool.alloc();
                let n = auth.encode_filter(self.pool.buf(b), self.addr, self.plan.nodes[u as usize].addr, TTL, &f);
                self.acc.filter_requests_sent += 1;
                self.enqueue(e, Pkt { buf: b, len: n as u16, from: NOBODY, at: now }, now);
            }
            // The sender is attached here (or the packet's neighbour is unknown): filter here.
            None => self.filters.install(conn, &req, now, &mut self.acc),
        }
    }

    fn run_filters(&mut self, now: u64) {
        self.filter_batch = false;
        let mut out = std::mem::take(&mut self.judged);
        {
            let pool = &self.pool;
            self.filters.run(
                now,
                &mut self.acc,
                // The segment as the datagram's header bounds it: with a key, its MAC follows
                // it, and a segment read with the MAC fails its checksum (and would never
                // show the sender's reaction).
                |p| match wire::decode(pool.bytes(p)) {
                    Ok(wire::Datagram { body: Body::Rdp(seg), .. }) => endpoint::view(seg).and_then(|v| v.acc).map_or(u32::MAX, |a| a.cwnd),
                    _ => u32::MAX,
                },
                |p, discard| out.push((p, discard)),
            );
        }
        for (p, discard) in out.drain(..) {
            if discard {
                self.pool.release(p.buf);
            } else {
                let dst = wire::header(self.pool.bytes(&p)).map(|h| h.dst).unwrap_or(0);
                self.stats.forwarded += 1;
                if self.in_window(now) {
                    self.stats.forwarded_in_window += 1;
                }
                self.forward(p, dst, now);
            }
        }
        self.judged = out;
    }

    fn poll_hosts(&mut self, now: u64) {
        if self.hosts.is_empty() {
            return;
        }
        self.hosts.poll(now, &mut self.outbox);
        self.send_outbox(now);
    }

    fn send_outbox(&mut self, now: u64) {
        let mut outbox = std::mem::take(&mut self.outbox);
        outbox.drain(|ty, dst, body| {
            let b = self.pool.alloc();
            match wire::encode_body(self.pool.buf(b), ty, self.addr, dst, TTL, body, self.auth.as_ref()) {
                Some(n) => self.forward(Pkt { buf: b, len: n as u16, from: NOBODY, at: now }, dst, now),
                None => self.pool.release(b),
            }
        });
        self.outbox = outbox;
    }

    fn transmit(&mut self, now: u64) -> io::Result<()> {
        let window = self.window;
        for e in 0..self.egress.len() {
            while let Some(p) = self.egress[e].due(now, window) {
                let p = match p {
                    Ok(p) => p,
                    Err(lost) => {
                        self.pool.release(lost.buf);
                        continue;
                    }
                };
                let peer = self.peers[self.egress[e].to as usize];
                let bytes = self.pool.bytes(&p);
                if let Some(c) = &mut self.capture {
                    c.record(self.peers[self.me as usize], peer, bytes, now);
                }
                match self.socket.send_to(bytes, peer) {
                    Ok(_) => {}
                    // A full OS buffer or a peer gone: the datagram is lost, as on a wire.
                    Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::ConnectionRefused) => {}
                    Err(e) => return Err(e),
                }
                self.pool.release(p.buf);
            }
        }
        Ok(())
    }

    fn sleep(&mut self, now: u64) -> io::Result<()> {
        let mut wake = self.stop;
        for e in &self.egress {
            if let Some(t) = e.next_wake() {
                wake = wake.min(t);
            }
        }
        for t in [self.flakeways.next_wake(), self.hosts.next_wake(), self.filters.next_expiry()].into_iter().flatten() {
            wake = wake.min(t);
        }
        if self.cpu_at_window.is_none() {
            wake = wake.min(self.window.0);
        }
        if self.cpu_in_window.is_none() {
            wake = wake.min(self.window.1);
        }
        let ns = wake.saturating_sub(now).min(MAX_SLEEP_NS);
        if ns == 0 {
            return Ok(());
        }
        let mut fd = libc::pollfd { fd: self.socket.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let ts = libc::timespec { tv_sec: (ns / 1_000_000_000) as libc::time_t, tv_nsec: (ns % 1_000_000_000) as libc::c_long };
        // SAFETY: one valid pollfd, a valid timespec, no signal mask.
        let r = unsafe { libc::ppoll(&mut fd, 1, &ts, std::ptr::null()) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        Ok(())
    }

    fn report(mut self) -> NodeReport {
        let window_s = (self.window.1 - self.window.0) as f64 / 1e9;
        // Rates over an empty window (a run stopped before its warm-up ended) are zero.
        let per_s = if window_s > 0.0 { 1.0 / window_s } else { 0.0 };
        let queues = self
            .egress
            .iter()
            .zip(&self.monitors)
            .map(|(e, m)| {
                let s = e.stats;
                let utilization = s.busy_ns_in_window as f64 / 1e9 * per_s;
                let sent_bps = s.sent_bytes_in_window as f64 * 8.0 * per_s;
                let expected = e.rate_bps as f64 * utilization;
                QueueReport {
                    link: self.plan.links[e.link as usize].name.clone(),
                    rate_bps: e.rate_bps,
                    limit: e.limit,
                    acc: m.is_some(),
                    stats: s,
                    utilization,
                    sent_bps,
                    send_error: if expected > 0.0 { sent_bps / expected - 1.0 } else { 0.0 },
                    mean_queue: s.wait_ns_in_window as f64 / 1e9 * per_s,
                    lateness_mean_us: s.lateness_ns_sum as f64 / 1e3 / s.sent_in_window.max(1) as f64,
                }
            })
            .collect();
        let pcap = self.capture.take().map(|c| c.finish());
        let flows = self.hosts.flows(self.window);
        let fw = self.stats.forwarded_in_window;
        let cpu = self.cpu_in_window.unwrap_or(0.0);
        NodeReport {
            name: self.plan.nodes[self.me as usize].name.clone(),
            router: self.router,
            address: self.peers[self.me as usize].to_string(),
            window_s,
            stopped_early_at_s: self.stopped_at.map(|t| t as f64 / 1e9),
            cpu_s: cpu,
            received: self.stats.received,
            forwarded: fw,
            cpu_per_forwarded_us: if fw > 0 { cpu * 1e6 / fw as f64 } else { 0.0 },
            malformed: self.stats.malformed,
            ttl_expired: self.stats.ttl_expired,
            no_route: self.stats.no_route,
            unknown_source: self.stats.unknown_source,
            received_bytes_from: self
                .rx_bytes_in_window
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b > 0)
                .map(|(i, &b)| (self.plan.nodes[i].name.clone(), b))
                .collect(),
            queues,
            acc: self.acc,
            flakeway: self.flakeways.stats,
            flows,
            buffers_in_use: self.pool.in_use() as u64,
            pcap: pcap.and_then(|r| r.ok()),
        }
    }
}
