//! A router node on loopback between two plain test sockets: the link emulation's rate,
//! measured where the packets arrive, and forwarding while garbage arrives.

use ccsim::sim::Dur;
use ccsim_live::node::{Node, Setup};
use ccsim_live::plan::{LinkPlan, NodePlan, Plan};
use ccsim_live::report::NodeReport;
use ccsim_live::wire::{self, Auth, Conn, Control, FilterRequest};
use std::net::{SocketAddr, UdpSocket};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The run identifier of the tests' MACs (a start time, unix nanoseconds).
const RUN: u64 = 1_767_225_600_000_000_000;
const A: u32 = 0x0a00_0001;
const R: u32 = 0x0a00_0002;
const B: u32 = 0x0a00_0003;

fn link(name: &str, from: u32, to: u32, rate_bps: u64, limit: u32) -> LinkPlan {
    LinkPlan { name: name.into(), from, to, rate_bps, delay: Dur::from_millis(2), loss: 0.0, limit, monitor: None }
}

/// A -> R -> B, R a node, A and B test sockets; R -> B at `rate_bps`.
fn line(rate_bps: u64, limit: u32, secs: f64) -> Plan {
    let node = |name: &str, router, addr| NodePlan { name: name.into(), router, addr, fixed: None };
    Plan {
        name: "line".into(),
        seed: 1,
        duration: Dur::from_secs_f64(secs),
        warmup: Dur::ZERO,
        grace: Dur::from_millis(200),
        nodes: vec![node("A", false, A), node("R", true, R), node("B", false, B)],
        links: vec![
            link("A->R", 0, 1, 1_000_000_000, 1000),
            link("R->A", 1, 0, 1_000_000_000, 1000),
            link("R->B", 1, 2, rate_bps, limit),
            link("B->R", 2, 1, 1_000_000_000, 1000),
        ],
        next_hop: vec![vec![None, Some(0), Some(0)], vec![Some(1), None, Some(2)], vec![Some(3), Some(3), None]],
        flows: vec![],
        flakeways: vec![],
        bind: "127.0.0.1".into(),
        key: None,
        pcap: vec![],
    }
}

struct Net {
    a: UdpSocket,
    b: UdpSocket,
    r: SocketAddr,
    router: JoinHandle<NodeReport>,
    start: Instant,
}

fn start(plan: Plan) -> Net {
    start_with(plan, None)
}

fn start_with(plan: Plan, auth: Option<Auth>) -> Net {
    let a = UdpSocket::bind("127.0.0.1:0").unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").unwrap();
    let rs = UdpSocket::bind("127.0.0.1:0").unwrap();
    let r = rs.local_addr().unwrap();
    let peers = vec![a.local_addr().unwrap(), r, b.local_addr().unwrap()];
    let start = Instant::now();
    let setup = Setup { plan, me: 1, socket: rs, peers, auth, start, out_dir: None };
    let router = std::thread::spawn(move || Node::new(setup).unwrap().run().unwrap());
    b.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
    ccsim_live::node::enlarge_buffers(&b);
    Net { a, b, r, router, start }
}

fn datagram(seq: u32, size: usize) -> Vec<u8> {
    let mut body = vec![0u8; size - wire::HEADER];
    body[..4].copy_from_slice(&seq.to_be_bytes());
    let mut buf = vec![0u8; size];
    wire::encode_rdp(&mut buf, A, B, 64, &body, None).unwrap();
    buf
}

/// Sends `n` datagrams of `size` bytes at `pps` per second from `sock` to `to`, paced.
fn pace(sock: &UdpSocket, to: SocketAddr, n: u32, size: usize, pps: f64, t0: Instant) {
    for i in 0..n {
        let due = t0 + Duration::from_secs_f64(i as f64 / pps);
        while Instant::now() < due {
            let left = due - Instant::now();
            if left > Duration::from_micros(200) {
                std::thread::sleep(left - Duration::from_micros(100));
            } else {
                std::hint::spin_loop();
            }
        }
        sock.send_to(&datagram(i, size), to).unwrap();
    }
}

/// The rate at which B receives a backlogged R -> B, measured from its 50th datagram to its
/// last: bits per second on the emulated wire.
fn measured_rate(rate_bps: u64, secs: f64) -> (f64, NodeReport) {
    let size = 972; // 1000 bytes on the wire
    let net = start(line(rate_bps, 2000, secs + 0.5));
    let pps = rate_bps as f64 / 8000.0;
    let n = (pps * 1.1 * secs) as u32; // 10% more than the link carries: always backlogged, never past the threshold
    let (a, r, t0) = (net.a.try_clone().unwrap(), net.r, net.start);
    let sender = std::thread::spawn(move || pace(&a, r, n, size, pps * 1.1, t0));
    let mut buf = [0u8; 2048];
    let mut times = vec![];
    let mut expect = 0u32;
    while let Ok(k) = net.b.recv(&mut buf) {
        assert_eq!(k, size);
        let seq = u32::from_be_bytes(buf[16..20].try_into().unwrap());
        assert_eq!(seq, expect, "in order, none lost below the threshold");
        expect += 1;
        times.push(Instant::now());
        if times.len() as f64 >= pps * secs {
            break;
        }
    }
    sender.join().unwrap();
    let report = net.router.join().unwrap();
    let (first, last) = (50, times.len() - 1);
    let span = times[last].duration_since(times[first]).as_secs_f64();
    ((last - first) as f64 * 8000.0 / span, report)
}

#[test]
fn the_link_holds_its_rate_within_five_percent_from_1_to_100_mbps() {
    for (rate, secs) in [(1_000_000u64, 2.0), (10_000_000, 1.5), (100_000_000, 1.0)] {
        let (got, report) = measured_rate(rate, secs);
        let err = got / rate as f64 - 1.0;
        eprintln!(
            "{} Mb/s: measured {:.4} Mb/s ({:+.2}%), mean lateness {:.1} us, router CPU {:.2} us per forwarded packet",
            rate / 1_000_000,
            got / 1e6,
            err * 100.0,
            report.queues[1].lateness_mean_us,
            report.cpu_per_forwarded_us
        );
        assert!(err.abs() < 0.05, "{rate}: {got}");
        assert_eq!(report.malformed, 0);
    }
}

#[test]
fn forwarding_goes_on_while_garbage_arrives_at_ten_thousand_per_second() {
    let secs = 2.0;
    let net = start(line(10_000_000, 1000, secs + 0.5));
    let junk = UdpSocket::bind("127.0.0.1:0").unwrap();
    let (r, t0) = (net.r, net.start);
    // 10,000 garbage datagrams per second for the whole run: random bytes, truncated and
    // wrong-version headers, and forged controls without a valid MAC.
    let garbage = std::thread::spawn(move || {
        let mut x = 0x9e37_79b9u32;
        let n = (10_000.0 * secs) as u32;
        for i in 0..n {
            let due = t0 + Duration::from_secs_f64(i as f64 / 10_000.0);
            if let Some(d) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(d);
            }
            let len = (i * 7919 % 1500) as usize;
            let mut g: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect();
            match i % 4 {
                0 if len >= 16 => g[..3].copy_from_slice(&[b'C', b'V', 1]),
                1 if len >= 16 => {
                    g[..4].copy_from_slice(&[b'C', b'V', 1, 2]);
                    g[8..12].copy_from_slice(&R.to_be_bytes());
                }
                _ => {}
            }
            junk.send_to(&g, r).unwrap();
        }
        n
    });
    let (a, r) = (net.a.try_clone().unwrap(), net.r);
    let sent = 1500u32;
    let sender = std::thread::spawn(move || pace(&a, r, sent, 500, 1000.0, t0));
    let mut buf = [0u8; 2048];
    let mut got = 0u32;
    while let Ok(k) = net.b.recv(&mut buf) {
        assert_eq!(k, 500);
        assert_eq!(u32::from_be_bytes(buf[16..20].try_into().unwrap()), got, "every datagram, in order");
        got += 1;
        if got == sent {
            break;
        }
    }
    sender.join().unwrap();
    let n_garbage = garbage.join().unwrap();
    let report = net.router.join().unwrap();
    assert_eq!(got, sent);
    assert_eq!(report.forwarded, sent as u64);
    let refused = report.malformed + report.acc.bad_mac + report.no_route;
    eprintln!("garbage {n_garbage}: malformed {}, bad MAC {}, no route {}", report.malformed, report.acc.bad_mac, report.no_route);
    assert!(refused + 100 >= n_garbage as u64 - n_garbage as u64 / 16, "nearly all garbage refused: {refused} of {n_garbage}");
    assert_eq!(report.buffers_in_use, 0, "no datagram leaked");
}

#[test]
fn only_authenticated_fresh_controls_and_requests_are_taken() {
    let key = Auth::new(b"the scenario's key, 16+ bytes", RUN).unwrap();
    let net = start_with(line(10_000_000, 100, 1.0), Some(key.clone()));
    let forger = Auth::new(b"not the scenario's key at all", RUN).unwrap();
    let conn = Conn { src: A, dst: B, sport: 1, dport: 2 };
    let req = |nonce| FilterRequest {
        conn,
        nonce,
        carried: 8,
        remaining: 4,
        lifetime_us: 100_000,
        cwnd: 4,
        ssthresh: 4,
        carried_slow_start: false,
        slow_start: false,
    };
    let ctl = Control { conn, nonce: 1, seq: 0, cwnd: 2, ssthresh: 2, srtt_us: 1000, slow_start: false };
    let mut buf = [0u8; wire::MAX_DATAGRAM];
    let send = |b: &[u8]| net.a.send_to(b, net.r).unwrap();
    let n = key.encode_filter(&mut buf, B, R, 64, &req(10));
    send(&buf[..n]); // taken: a filter is set
    send(&buf[..n]); // the same nonce again: a replay
    let n = key.encode_filter(&mut buf, B, R, 64, &req(9));
    send(&buf[..n]); // an older nonce: a replay
    let n = forger.encode_filter(&mut buf, B, R, 64, &req(11));
    send(&buf[..n]); // wrong key
    let n = forger.encode_control(&mut buf, B, R, 64, &ctl);
    send(&buf[..n]); // wrong key
    let n = key.encode_control(&mut buf, B, R, 64, &ctl);
    buf[n - 1] ^= 1;
    send(&buf[..n]); // a flipped bit
    let report = net.router.join().unwrap();
    assert_eq!(report.acc.filters_set, 1);
    assert_eq!(report.acc.replayed, 2);
    assert_eq!(report.acc.bad_mac, 3);
    assert_eq!(report.acc.filters_removed_timeout, 1, "the idle filter timed out");
}

#[test]
fn with_a_key_nothing_from_another_run_and_nothing_corrupted_is_taken() {
    // The issue's attack: datagrams captured in one run of a fixed key (CCSIM_LIVE_KEY)
    // sent into the next, whose nodes start their replay counters afresh; and data segments
    // with flipped bits, which RFC 1071's checksum lets through often enough.
    let key = Auth::new(b"the scenario's key, 16+ bytes", RUN).unwrap();
    let last_run = Auth::new(b"the scenario's key, 16+ bytes", RUN - 30_000_000_000).unwrap();
    let net = start_with(line(10_000_000, 100, 1.0), Some(key.clone()));
    let conn = Conn { src: A, dst: B, sport: 1, dport: 2 };
    let ctl = Control { conn, nonce: 1, seq: 0, cwnd: 2, ssthresh: 2, srtt_us: 1000, slow_start: false };
    let mut buf = [0u8; wire::MAX_DATAGRAM];
    let send = |b: &[u8]| net.a.send_to(b, net.r).unwrap();
    let n = last_run.encode_control(&mut buf, B, R, 64, &ctl);
    send(&buf[..n]); // a control of the last run, addressed to the router
    let segment = &datagram(1, 200)[wire::HEADER..];
    let n = wire::encode_rdp(&mut buf, A, B, 64, segment, Some(&last_run)).unwrap();
    send(&buf[..n]); // a data segment (or an RST) of the last run, in transit
    let n = wire::encode_rdp(&mut buf, A, B, 64, segment, None).unwrap();
    send(&buf[..n]); // a segment without a MAC
    let n = wire::encode_rdp(&mut buf, A, B, 64, segment, Some(&key)).unwrap();
    for bit in [8 * 20, 8 * 40 + 3, 8 * (n - 1)] {
        let mut b = buf;
        b[bit / 8] ^= 1 << (bit % 8);
        send(&b[..n]); // this run's segment with a flipped bit
    }
    send(&buf[..n]); // this run's segment, whole: forwarded
    let got = net.b.recv(&mut [0u8; wire::MAX_DATAGRAM]).expect("the authentic segment arrives");
    assert_eq!(got, n);
    let report = net.router.join().unwrap();
    assert_eq!(report.forwarded, 1);
    assert_eq!(report.acc.bad_mac, 6, "the last run's control and segment, the bare one and the three corrupted");
    assert_eq!((report.acc.replayed, report.acc.filters_set, report.malformed), (0, 0, 0));
}

/// tshark's output for `path` read with the overlay's dissector; None (the test skips) if
/// tshark is not installed.
fn tshark(path: &std::path::Path, args: &[&str]) -> Option<Vec<String>> {
    let lua = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/wireshark/ccsim_live.lua");
    let out = match std::process::Command::new("tshark").arg("-X").arg(format!("lua_script:{}", lua.display())).arg("-r").arg(path).args(args).output() {
        Ok(o) => o,
        Err(_) => {
            eprintln!("SKIPPED: tshark is not installed (apt-get install tshark)");
            return None;
        }
    };
    assert!(out.status.success(), "tshark: {}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("Lua"), "the dissector loads without error: {err}");
    Some(String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect())
}

#[test]
fn a_node_captures_what_it_sends_and_receives_and_tshark_reads_the_acc_fields() {
    let dir = std::env::temp_dir().join(format!("ccsim-live-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The folder goes however the test ends: tshark missing, an assertion failing.
    struct Gone(std::path::PathBuf);
    impl Drop for Gone {
        fn drop(&mut self) {
            std::fs::remove_dir_all(&self.0).ok();
        }
    }
    let _gone = Gone(dir.clone());
    let key = Auth::new(b"the scenario's key, 16+ bytes", RUN).unwrap();
    let mut plan = line(10_000_000, 100, 0.5);
    plan.pcap = vec![1];
    let a = UdpSocket::bind("127.0.0.1:0").unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").unwrap();
    let rs = UdpSocket::bind("127.0.0.1:0").unwrap();
    let r = rs.local_addr().unwrap();
    let setup = Setup {
        plan,
        me: 1,
        socket: rs,
        peers: vec![a.local_addr().unwrap(), r, b.local_addr().unwrap()],
        auth: Some(key.clone()),
        start: Instant::now(),
        out_dir: Some(dir.clone()),
    };
    let router = std::thread::spawn(move || Node::new(setup).unwrap().run().unwrap());
    let conn = Conn { src: A, dst: B, sport: 10000, dport: 80 };
    let mut buf = [0u8; wire::MAX_DATAGRAM];
    let n = key.encode_filter(
        &mut buf,
        B,
        R,
        64,
        &FilterRequest { conn, nonce: 5, carried: 12, remaining: 6, lifetime_us: 200_000, cwnd: 6, ssthresh: 6, carried_slow_start: false, slow_start: false },
    );
    a.send_to(&buf[..n], r).unwrap();
    let n = key.encode_control(&mut buf, R, A, 64, &Control { conn, nonce: 6, seq: 42, cwnd: 6, ssthresh: 6, srtt_us: 20_000, slow_start: false });
    b.send_to(&buf[..n], r).unwrap(); // routed on to A
    let n = wire::encode_rdp(&mut buf, A, B, 64, &datagram(7, 200)[wire::HEADER..], Some(&key)).unwrap();
    a.send_to(&buf[..n], r).unwrap(); // forwarded to B
    let report = router.join().unwrap();
    let pcap = std::path::PathBuf::from(report.pcap.expect("a capture"));
    assert_eq!(report.forwarded, 2);
    let Some(lines) =
        tshark(&pcap, &["-T", "fields", "-e", "ccsim.type", "-e", "ccsim.src", "-e", "ccsim.dst", "-e", "acc.remaining", "-e", "acc.cwnd", "-e", "acc.seq"])
    else {
        return;
    };
    // Received: the request, the control, the segment; sent: the control and the segment.
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert!(lines.contains(&"3\t10.0.0.3\t10.0.0.2\t6\t6\t".to_string()), "{lines:?}");
    assert_eq!(lines.iter().filter(|l| *l == "2\t10.0.0.2\t10.0.0.1\t\t6\t42").count(), 2, "{lines:?}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("1\t10.0.0.1\t10.0.0.3")).count(), 2, "{lines:?}");
}
