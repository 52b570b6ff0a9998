//! The scenario file format (TOML), as serde structures. Every table rejects unknown keys.
//! `docs/scenario-format.md` documents each field; keep the two in step.

use super::profile::Profile;
use super::units::{Duration, Rate, TimeDist};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Shown in reports.
    #[serde(default)]
    pub name: Option<String>,
    /// `rfc` (default), `ns2` or `linux`: the set of defaults in force (see `settings::profile`).
    #[serde(default)]
    pub profile: Profile,
    /// Simulated time to run.
    pub duration: Duration,
    /// Statistics exclude everything before this time.
    #[serde(default = "zero")]
    pub warmup: Duration,
    /// Seed of every random stream (the `--seed` option overrides it): an integer from 0 to
    /// 2^64 - 1 (beyond 2^63 - 1, TOML's largest integer, written as a string of digits).
    #[serde(default = "one", deserialize_with = "seed")]
    pub seed: u64,
    /// Host names; `"S{1..10}"` expands to S1 ... S10.
    #[serde(default)]
    pub hosts: Vec<String>,
    #[serde(default)]
    pub routers: Vec<String>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub failures: Vec<FailureSpec>,
    #[serde(default)]
    pub series: Vec<SeriesSpecToml>,
    /// IP fast reroute at every router; absent: failed links are never routed around.
    #[serde(default)]
    pub ipfrr: Option<IpFrrSpec>,
    /// Options of the ACK spoofer that every router with a `signal = "spoof"` queue runs
    /// (one per router, shared by its queues); absent: the defaults. Ignored when no queue
    /// spoofs, so that overrides can switch the signal without removing the table.
    #[serde(default)]
    pub ack_spoofing: Option<AckSpoofingSpec>,
    /// Packet captures (pcap or pcapng files) of chosen links; none by default.
    #[serde(default)]
    pub pcap: Vec<PcapSpec>,
    /// Settings of a live run on real sockets (`ccsim live`, the crate `ccsim-live`, which
    /// checks them); the simulator ignores this table.
    #[serde(default)]
    pub live: Option<toml::Value>,
    /// The per-packet event log (see `ccsim::trace::packet_log`); absent: none.
    #[serde(default)]
    pub packet_log: Option<PacketLogSpec>,
    /// Python modules that register the plug-ins the scenario names, imported before it is
    /// built (by the Python package; the core ignores the list).
    #[serde(default)]
    pub plugins: Vec<String>,
    /// What the report keeps beyond its counts; absent: everything.
    #[serde(default)]
    pub report: ReportSpec,
    /// Router mechanisms registered as plug-ins, one table each: `name` selects the plug-in,
    /// the other keys are its settings (`router::external`).
    #[serde(default)]
    pub mechanisms: Vec<toml::Table>,
}

/// What the report keeps beyond its counts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportSpec {
    /// Every queue's sojourn percentiles (`delay_p50_ms` ... `delay_p99_ms`) and time at each
    /// length (`len_hist_*`). `false`: those fields are null and empty, and a packet's
    /// passage through a queue costs less.
    #[serde(default = "yes")]
    pub queue_distributions: bool,
}

impl Default for ReportSpec {
    fn default() -> Self {
        ReportSpec { queue_distributions: true }
    }
}

/// Which packet events to log. Empty lists select everything of their kind.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacketLogSpec {
    /// `false` turns the log off (so that `--set packet_log.enabled=true` can turn it on).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Events to keep: `enqueue`, `dequeue`, `drop`, `mark`, `receive`.
    #[serde(default)]
    pub events: Vec<String>,
    /// Links ("R1->R2") whose events are kept.
    #[serde(default)]
    pub links: Vec<String>,
    /// Nodes whose events are kept (their queues' events, and what they receive or drop).
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Flows (`g[0]`) or flow groups (`g`) whose packets are kept.
    #[serde(default)]
    pub flows: Vec<String>,
    /// Records kept at most; later events are counted and not kept.
    #[serde(default)]
    pub max_events: Option<usize>,
}

fn yes() -> bool {
    true
}

/// One capture file. See `ccsim::trace` for what the frames hold.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// The file; a relative path is taken from the output directory the caller gives (the
    /// current directory when none is given).
    pub file: String,
    /// Links to capture, by name ("R1->R2").
    #[serde(default)]
    pub links: Vec<String>,
    /// Nodes whose every link, out of them and into them, is captured.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// `pcap` or `pcapng` (default: `pcap` if the file name ends in `.pcap`, else `pcapng`).
    #[serde(default)]
    pub format: Option<String>,
    /// Bytes kept of each frame (default 96: the headers; 65535 keeps every frame whole).
    #[serde(default)]
    pub snaplen: Option<u32>,
}

/// ACK spoofing (Xu & Molle; see `crate::router::ack_spoof`): options of the spoofer that every router with a
/// `signal = "spoof"` queue runs (one per router, shared by its queues). Ignored when no
/// queue spoofs, so that overrides can switch the signal without removing the table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AckSpoofingSpec {
    /// Spoofed duplicate ACKs per signal (default 3, the sender's duplicate-ACK threshold).
    #[serde(default)]
    pub dupacks: Option<u32>,
    /// Wait for the flow's next real ACK and send the spoofs just before it, numbered one
    /// segment below it (the paper's optimisation; default true). False: spoof at once
    /// with the highest ACK seen when it is known.
    #[serde(default)]
    pub spoof_below_real_ack: Option<bool>,
    /// Drop, once, the needless retransmission a spoof provokes when it passes the router
    /// (only if the receiver has acknowledged past it). Default: the value of
    /// `spoof_below_real_ack`, the only way the paper's "no wasted retransmission" holds.
    #[serde(default)]
    pub discard_retransmission: Option<bool>,
    /// Entries of the per-router flow table (default 1024; rounded up to a power of two).
    #[serde(default)]
    pub table_size: Option<u32>,
    /// Signals with no real ACK of the flow seen after which a flow is treated as having an
    /// asymmetric path and later signals drop (default 3).
    #[serde(default)]
    pub asymmetric_threshold: Option<u32>,
    /// Pending spoofs and armed discards older than this are given up (default 500 ms).
    #[serde(default)]
    pub pending_timeout: Option<Duration>,
}

/// IP fast reroute at every router (see `crate::router::frr`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IpFrrSpec {
    /// Time for the router at the head of a failed link to notice (default 0).
    #[serde(default)]
    pub detection_delay: Option<Duration>,
    /// Hold-down timer started at detection (default 10 s).
    #[serde(default)]
    pub hold_down: Option<Duration>,
    /// Delay of each router's table update in a reconvergence, drawn per router (default 0).
    #[serde(default)]
    pub reconvergence_delay: Option<TimeDist>,
    /// Compute loop-free alternates (RFC 5286) from the topology (default true).
    #[serde(default)]
    pub lfa: Option<bool>,
    /// Explicit repair paths, used instead of an alternate for their link.
    #[serde(default)]
    pub repair_paths: Vec<RepairPathSpec>,
    /// A packet's TTL on an explicit repair path: `tunnel` (IP in IP, unchanged inside the
    /// tunnel; the default) or `per-hop` (decremented by every router; the `ns2` profile's).
    #[serde(default)]
    pub tunnel_ttl: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepairPathSpec {
    /// The protected link, "A->C".
    pub link: String,
    /// The detour's nodes from the link's head, e.g. ["A", "B", "D", "C"].
    pub path: Vec<String>,
}

/// A seed: a non-negative integer, or a string of digits up to 2^64 - 1.
fn seed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct Seed;
    impl serde::de::Visitor<'_> for Seed {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "an integer from 0 to {}", u64::MAX)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("must be an integer from 0 to {}, got {v}", u64::MAX)))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u64, E> {
            let t = v.trim();
            t.parse::<u64>()
                .ok()
                .filter(|_| t.chars().all(|c| c.is_ascii_digit()))
                .ok_or_else(|| E::custom(format!("must be an integer from 0 to {}, got {v:?}", u64::MAX)))
        }
    }
    d.deserialize_any(Seed)
}

fn zero() -> Duration {
    Duration(0.0)
}
fn one() -> u64 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// A duplex link: two unidirectional links, one each way.
    #[serde(default)]
    pub between: Option<[String; 2]>,
    /// A unidirectional link (use with `to`).
    #[serde(default)]
    pub from: Option<String>,
    #[serde(default)]
    pub to: Option<String>,
    pub rate: Rate,
    /// Propagation delay; a distribution draws one value per link (both directions).
    pub delay: TimeDist,
    #[serde(default = "one_u32")]
    pub cost: u32,
    /// Probability that a packet is lost on the wire.
    #[serde(default)]
    pub loss: f64,
    /// The egress queue of each direction (of `from`, or of both ends for `between`).
    #[serde(default)]
    pub queue: Option<QueueSpec>,
    /// For `between`: the queue of the second node toward the first, if different.
    #[serde(default)]
    pub queue_reverse: Option<QueueSpec>,
}

fn one_u32() -> u32 {
    1
}

/// An egress queue: the keys every queue has, whatever its discipline, and the
/// discipline's own keys in `settings`. Each discipline owns its keys, their defaults and
/// their checks (`crate::queue::spec`); the builder hands `settings` to the discipline that
/// `discipline` names, which rejects a key it does not take. So this table too rejects
/// unknown keys, once the discipline is known.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct QueueSpec {
    /// A name in `crate::queue::REGISTRY`: `droptail` (default), `red`, `ared` (Adaptive
    /// RED), `rtred`, `step`, `pie`, `codel`, `fq_codel` or `dualpi2`.
    #[serde(default)]
    pub discipline: Option<String>,
    /// Buffer limit in packets (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Buffer limit in bytes, instead of packets.
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// How the limit counts: `waiting` (the packets or bytes that may wait besides the one in
    /// transmission, as a Linux qdisc's limit; the default) or `ns2` (ns-2's `DropTail`: an
    /// arrival that would bring the waiting queue to the limit is dropped, so `limit_ N`
    /// holds N - 1 waiting besides the one in transmission; the `ns2` profile's for
    /// `droptail`).
    #[serde(default)]
    pub limit_rule: Option<String>,
    /// `drop` (default), `ecn` or `spoof` (ACK spoofing, at routers only; options in the
    /// top-level `[ack_spoofing]` table).
    #[serde(default)]
    pub signal: Option<String>,
    /// Boundaries (packets) of the drop-area histogram, ascending.
    #[serde(default)]
    pub drop_areas: Option<Vec<u32>>,
    /// Active congestion control: a drop of an ACC flow's packet sends the sender a control
    /// and filters the flow upstream (default false; routers only).
    #[serde(default)]
    pub acc: Option<bool>,
    /// ACC: flows whose carried srtt is below this get no control (default: none).
    #[serde(default)]
    pub acc_rtt_floor: Option<Duration>,
    /// ACC: how long a filter works (default: two of the flow's carried RTTs).
    #[serde(default)]
    pub acc_filter_timeout: Option<Duration>,
    /// Every other key: the discipline's own (`min_th`, `max_p`, `risk_th`, ...).
    #[serde(flatten)]
    pub settings: toml::Table,
}

impl QueueSpec {
    /// The buffer of a queue whose table gives no limit, packets (ns-3's default).
    pub const DEFAULT_LIMIT: u32 = 100;

    /// The keys above, every queue's, for messages about a key no discipline takes and for
    /// checking the format's documentation.
    pub const COMMON_KEYS: &[&str] =
        &["discipline", "limit", "limit_bytes", "limit_rule", "signal", "drop_areas", "acc", "acc_rtt_floor", "acc_filter_timeout"];
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// The group's name, used in results as `name[i]`.
    #[serde(default)]
    pub name: Option<String>,
    pub from: String,
    pub to: String,
    /// Flows per (from, to) pair.
    #[serde(default = "one_u32")]
    pub count: u32,
    /// `tcp` (default), `udp` or `rdp`.
    #[serde(default)]
    pub transport: Option<String>,
    /// TCP and RDP: `bulk` (default) or `finite`; UDP: `cbr` (default), `onoff` or `poisson`.
    #[serde(default)]
    pub app: Option<String>,
    /// Bytes to send, for `finite`.
    #[serde(default)]
    pub bytes: Option<u64>,
    #[serde(default)]
    pub start: Option<TimeDist>,
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Maximum random delay added to each packet the sender emits (order is kept).
    #[serde(default)]
    pub jitter: Option<Duration>,
    #[serde(default)]
    pub ttl: Option<u8>,
    #[serde(default)]
    pub tcp: Option<TcpSpec>,
    #[serde(default)]
    pub udp: Option<UdpSpec>,
    #[serde(default)]
    pub rdp: Option<RdpSpec>,
}

/// RDP (`crate::rdp`): RFC 908/1151 with the ACC paper's congestion control.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RdpSpec {
    /// Data bytes per segment (default 1000).
    #[serde(default)]
    pub segment_size: Option<u32>,
    /// The receiver's maximum outstanding segments, said in its SYN-ACK (default 1024).
    #[serde(default)]
    pub max_outstanding: Option<u32>,
    /// Initial congestion window, packets (default 1).
    #[serde(default)]
    pub init_cwnd: Option<u32>,
    #[serde(default)]
    pub min_rto: Option<Duration>,
    #[serde(default)]
    pub initial_rto: Option<Duration>,
    /// Carry the congestion state in data segments and obey ACC controls (default true).
    #[serde(default)]
    pub acc: Option<bool>,
    /// With `acc`: obey ACC controls (default true; false makes a misbehaving sender that
    /// ignores them).
    #[serde(default)]
    pub obey_acc: Option<bool>,
    /// The sender's initial sequence number (default 0).
    #[serde(default)]
    pub isn: Option<u32>,
    /// How long CLOSE-WAIT lasts (default 1 s).
    #[serde(default)]
    pub close_wait: Option<Duration>,
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct TcpSpec {
    /// A congestion control of the registry (`crate::tcp::cc::registry`): `newreno`
    /// (default), `reno`, `cubic`, `dctcp`, `bbr` or `prague`.
    #[serde(default)]
    pub variant: Option<String>,
    /// Payload bytes per segment (default 1000).
    #[serde(default)]
    pub mss: Option<u32>,
    /// Initial window, segments (default 1; `ns2` profile 2, ns-2's `windowInit_`).
    #[serde(default)]
    pub init_cwnd: Option<u32>,
    #[serde(default)]
    pub min_rto: Option<Duration>,
    /// RTO before the first RTT sample (default 1 s, RFC 6298; `ns2` profile 3 s,
    /// `rtxcur_init_`).
    #[serde(default)]
    pub initial_rto: Option<Duration>,
    /// Clock granularity of the RTO (default 1 ms; `ns2` profile 10 ms, `tcpTick_`).
    #[serde(default)]
    pub clock_granularity: Option<Duration>,
    /// `rfc6298` (default) or `ns2`: RTT samples, SRTT, RTTVAR and the RTO in whole ticks
    /// of `clock_granularity` with ns-2's integer arithmetic (`tcp/rto.rs`).
    #[serde(default)]
    pub rtt_arithmetic: Option<String>,
    /// Where `min_rto` bounds the timeout: `rto` (default, RFC 6298 (2.4): the whole RTO) or
    /// `variance` (Linux: the variance term, so RTO >= SRTT + `min_rto`; `linux` profile).
    #[serde(default)]
    pub rto_min_on: Option<String>,
    /// What a reduction halves: `flight` (default, RFC 5681's FlightSize), `window` (ns-2:
    /// `min(cwnd, rwnd)` in whole segments, at every timeout) or `cwnd` (Linux; `linux`
    /// profile).
    #[serde(default)]
    pub ssthresh_from: Option<String>,
    /// Congestion avoidance's increase per ACK: `floor` (default, whole bytes, at least one)
    /// or `exact` (the fraction carried over, as ns-2's real-valued window).
    #[serde(default)]
    pub ca_increase: Option<String>,
    /// NewReno's window on leaving recovery: `min-flight` (default, RFC 6582 option 1) or
    /// `ssthresh` (option 2, ns-2's).
    #[serde(default)]
    pub full_ack: Option<String>,
    /// Reno checks `recover` before a fast retransmit (ns-2's `bugFix_`; default false).
    #[serde(default)]
    pub reno_recover_check: Option<bool>,
    /// Limited Transmit, RFC 3042 (ns-2's `singledup_`; default false).
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    /// While going back N after a timeout, Limited Transmit resends the next segment in
    /// sequence (ns-2's `send_one()`; default false, `ns2` profile true).
    #[serde(default)]
    pub limited_transmit_resends: Option<bool>,
    /// Fast retransmit restarts the retransmission timer and the RTT measurement (ns-2's
    /// `reset_rtx_timer()`; default false).
    #[serde(default)]
    pub fast_retransmit_resets_timer: Option<bool>,
    /// Every retransmission of the first unacknowledged segment restarts the retransmission
    /// timer (Linux's `tcp_xmit_retransmit_queue()`; default false, `linux` profile true).
    #[serde(default)]
    pub head_retransmit_resets_timer: Option<bool>,
    /// With RACK, a segment deemed lost and not yet delivered, though resent, starts a
    /// recovery (Linux's `lost_out` test; default false, `linux` profile true).
    #[serde(default)]
    pub recover_again: Option<bool>,
    /// Slow start and congestion avoidance count every segment an ACK acknowledges
    /// (Linux's `tcp_slow_start()` and `tcp_cong_avoid_ai()`; default false, `linux` profile
    /// true).
    #[serde(default)]
    pub byte_counting: Option<bool>,
    /// How long an ECN-Echo's reduction answers later losses and timeouts: `window`
    /// (default, RFC 3168 6.1.2) or `next-reduction` (ns-2's; `ns2` profile).
    #[serde(default)]
    pub ecn_answered: Option<String>,
    /// When an ECN-Echo after a timeout is answered: `next-window` (default, RFC 3168 6.1.2:
    /// only for data sent after the timeout) or `at-once` (ns-2's `ecn()`; `ns2` profile).
    #[serde(default)]
    pub ecn_after_timeout: Option<String>,
    /// CWR may go on a retransmitted segment (default false, RFC 3168 6.1.2; `ns2` profile
    /// true, `SetCWRonRetransmit_`).
    #[serde(default)]
    pub cwr_on_retransmit: Option<bool>,
    /// An ECN sender's retransmissions are ECT too (default false, RFC 3168 6.1.5; `ns2`
    /// profile and DCTCP true).
    #[serde(default)]
    pub ect_on_retransmit: Option<bool>,
    /// RFC 7323 timestamps on every segment, RTT samples from TSecr (default false in both
    /// profiles).
    #[serde(default)]
    pub timestamps: Option<bool>,
    /// Receiver's advertised window, bytes (default 1 MiB).
    #[serde(default)]
    pub rwnd: Option<u32>,
    /// The sender's socket buffer, bytes of payload from the oldest unacknowledged byte
    /// (default: no limit).
    #[serde(default)]
    pub send_buffer: Option<u32>,
    /// Delayed ACKs: `true` (100 ms timeout), `false` (default), or a timeout.
    #[serde(default)]
    pub delayed_ack: Option<DelayedAck>,
    #[serde(default)]
    pub ecn: Option<bool>,
    /// The sender asks for Accurate ECN feedback (RFC 9768) in the handshake (default true
    /// for a variant that needs L4S's ECN, false otherwise).
    #[serde(default)]
    pub accecn: Option<bool>,
    /// The ECN feedback the receiver supports: `accecn` (default), `rfc3168` or `none`; the
    /// handshake settles on what both ends support (`tcp/accecn.rs`).
    #[serde(default)]
    pub receiver_ecn: Option<String>,
    /// NewReno's timer during recovery: `impatient` (RFC 6582 and ns-2.35, default) or
    /// `slow-but-steady` (restart on every partial ACK, as ns-2 before 2003).
    #[serde(default)]
    pub partial_ack_timer: Option<String>,
    /// Duplicate-ACK suppression at the receiver.
    #[serde(default)]
    pub das: Option<bool>,
    /// Selective acknowledgements: SACK blocks from the receiver (RFC 2018) and the sender's
    /// SACK loss recovery (RFC 6675); default false.
    #[serde(default)]
    pub sack: Option<bool>,
    /// What a retransmission timeout does to the SACK scoreboard: `keep` (default; RFC 6675
    /// 5.1 with Errata 1610, as Linux and ns-3) or `clear` (RFC 2018 section 8).
    #[serde(default)]
    pub sack_after_timeout: Option<String>,
    /// Proportional Rate Reduction (RFC 6937) in SACK recovery and a `cwr` ECN response
    /// (default false; `linux` profile true).
    #[serde(default)]
    pub prr: Option<bool>,
    /// RACK-TLP loss detection (RFC 8985) with SACK (default false; `linux` profile true).
    #[serde(default)]
    pub rack: Option<bool>,
    /// The answer to an ECN-Echo: `immediate` (default, RFC 3168 6.1.2) or `cwr` (one
    /// round trip without growth, Linux's and ns-3.37's CWR state; `linux` profile).
    #[serde(default)]
    pub ecn_response: Option<String>,
    /// ACC/TCP: carry the congestion state in data packets and obey ACC controls.
    #[serde(default)]
    pub acc: Option<bool>,
    #[serde(default)]
    pub isn: Option<u32>,
    /// Every other key: a congestion control's own table, named after its variant
    /// (`cubic = { beta = 0.8 }`), which the scenario builder hands to that controller
    /// (`crate::tcp::cc::spec`); a key that names no variant is refused there.
    #[serde(flatten)]
    pub controllers: toml::Table,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(untagged, expecting = "true, false or a timeout such as \"100ms\"")]
pub enum DelayedAck {
    Enabled(bool),
    Timeout(Duration),
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    /// Sending rate (while on).
    pub rate: Rate,
    /// Payload bytes per datagram (default 1000).
    #[serde(default)]
    pub packet_size: Option<u32>,
    /// On-period length, for `onoff`.
    #[serde(default)]
    pub on: Option<TimeDist>,
    #[serde(default)]
    pub off: Option<TimeDist>,
}

impl Default for Rate {
    fn default() -> Self {
        Rate(1e6)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureSpec {
    /// A link by its name ("A->C"), or both directions with `between`.
    #[serde(default)]
    pub link: Option<String>,
    #[serde(default)]
    pub between: Option<[String; 2]>,
    /// When the link goes down.
    pub down: TimeDist,
    /// How long it stays down (omit for a permanent failure).
    #[serde(default)]
    pub duration: Option<TimeDist>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesSpecToml {
    /// `cwnd`, `ssthresh`, `rtt`, `srtt`, `pacing_rate`, `goodput` (flows); `queue`, `queue_avg`, `max_p`, `drop_prob`, `link_rate`, `drops` (links).
    pub kind: String,
    /// A flow (`g1[0]`) or a whole group (`g1`), for flow series.
    #[serde(default)]
    pub flow: Option<String>,
    /// A link by name ("R2->R3"), for link series.
    #[serde(default)]
    pub link: Option<String>,
    pub interval: Duration,
    #[serde(default = "default_max_points")]
    pub max_points: usize,
}

fn default_max_points() -> usize {
    100_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_queue_keys_are_the_fields_of_queue_spec() {
        let text = r#"
            discipline = "red"
            limit = 10
            limit_bytes = 1000
            limit_rule = "ns2"
            signal = "ecn"
            drop_areas = [1, 2]
            acc = true
            acc_rtt_floor = "1ms"
            acc_filter_timeout = "1s"
            min_th = 5
        "#;
        let spec: QueueSpec = toml::from_str(text).unwrap();
        // Naming every field without `..`: a new field fails to compile here until it is
        // added to this pattern, to the table above and to COMMON_KEYS.
        let QueueSpec { discipline, limit, limit_bytes, limit_rule, signal, drop_areas, acc, acc_rtt_floor, acc_filter_timeout, settings } = spec;
        let given = [
            discipline.is_some(),
            limit.is_some(),
            limit_bytes.is_some(),
            limit_rule.is_some(),
            signal.is_some(),
            drop_areas.is_some(),
            acc.is_some(),
            acc_rtt_floor.is_some(),
            acc_filter_timeout.is_some(),
        ];
        assert!(given.iter().all(|g| *g), "{given:?}");
        assert_eq!(given.len(), QueueSpec::COMMON_KEYS.len());
        assert_eq!(settings.keys().collect::<Vec<_>>(), ["min_th"], "only the discipline's keys are left over");
        for key in QueueSpec::COMMON_KEYS {
            assert!(text.contains(&format!("{key} = ")), "{key}");
        }
    }
}
