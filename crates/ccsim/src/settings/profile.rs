//! Profiles: one switch that chooses a set of defaults. `rfc` (the default) follows the RFCs
//! and the papers' algorithms as written; `ns2` follows ns-2.35's agents and queues where
//! they differ, so that a reproduction of a paper simulated in ns-2 simulates what ns-2
//! simulated; `linux` takes Linux's TCP defaults (and ns-3.37's, where the two agree) where
//! ccsim has the setting, and the RFC profile's queues. Every member of the set is also a parameter of its own, and a value the
//! scenario sets explicitly always wins over the profile. `docs/profiles.md` lists each
//! difference: the parameter, the RFC behaviour, ns-2's variable and default, and what it
//! changes.

use crate::sim::Dur;
use serde::Deserialize;

/// The `profile` key at the top of a scenario.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The RFCs' behaviour.
    #[default]
    Rfc,
    /// ns-2.35's defaults.
    Ns2,
    /// Linux's (and ns-3.37's) TCP defaults; queues as under `rfc`.
    Linux,
}

impl Profile {
    /// The name as written in a scenario.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Rfc => "rfc",
            Profile::Ns2 => "ns2",
            Profile::Linux => "linux",
        }
    }

    /// `ns2` under ns-2's profile, `rfc` under the others.
    pub fn pick<T>(self, rfc: T, ns2: T) -> T {
        match self {
            Profile::Rfc | Profile::Linux => rfc,
            Profile::Ns2 => ns2,
        }
    }
}

/// The TCP defaults of a profile: each is also a `[flows.tcp]` key, and a value the scenario
/// gives wins. ns-2's variables and defaults are ns-2.35's `tcl/lib/ns-default.tcl` (and the
/// installed binary's, which agree); `tcp/` cites the code each follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpDefaults {
    /// `init_cwnd`: 1 segment (RFC 5681's lower bound) / 2 (`windowInit_`).
    pub init_cwnd: u32,
    /// `initial_rto`: 1 s (RFC 6298 (2.1)) / 3 s (`rtxcur_init_`).
    pub initial_rto: Dur,
    /// `clock_granularity`: 1 ms / 10 ms (`tcpTick_`).
    pub clock_granularity: Dur,
    /// `rtt_arithmetic`: `rfc6298` / `ns2` (`rtt_update()`, `rtt_timeout()`).
    pub rtt_arithmetic: &'static str,
    /// `ssthresh_from`: `flight` (RFC 5681 eq. (4)) / `window` (`slowdown()`) (`linux`:
    /// `cwnd`, `tcp_reno_ssthresh()`).
    pub ssthresh_from: &'static str,
    /// `ca_increase`: `floor` (whole bytes) / `exact` (`cwnd_ += 1 / cwnd_` in reals).
    pub ca_increase: &'static str,
    /// `delayed_ack`: none / none (`linux`: 40 ms, `TCP_DELACK_MIN`; an ACK for every second
    /// full segment, `__tcp_ack_snd_check()`).
    pub delayed_ack: Option<Dur>,
    /// `byte_counting`: false (RFC 5681: per ACK) / false (`linux`: true, `tcp_slow_start()`
    /// and `tcp_cong_avoid_ai()` count the segments acknowledged).
    pub byte_counting: bool,
    /// `full_ack`: `min-flight` (RFC 6582 option 1) / `ssthresh` (`exit_recovery_fix_ 0`).
    pub full_ack: &'static str,
    /// `reno_recover_check`: false (RFC 5681 has none) / true (`bugFix_`).
    pub reno_recover_check: bool,
    /// `limited_transmit`: false / true (`singledup_ 1`).
    pub limited_transmit: bool,
    /// `limited_transmit_resends`: false (RFC 3042: new data only) / true (`send_one()`
    /// sends `t_seqno_`, the go-back-N point after a timeout).
    pub limited_transmit_resends: bool,
    /// `fast_retransmit_resets_timer`: false (RFC 6298) / true (`reset_rtx_timer()`).
    pub fast_retransmit_resets_timer: bool,
    /// `rto_min_on`: `rto` (RFC 6298 (2.4)) / `rto` (`linux`: `variance`, `tcp_rtt_estimator()`
    /// floors the variance term at `tcp_rto_min`).
    pub rto_min_on: &'static str,
    /// `head_retransmit_resets_timer`: false (RFC 6298) / false (`linux`: true,
    /// `tcp_xmit_retransmit_queue()` rearms the timer when it resends the first segment).
    pub head_retransmit_resets_timer: bool,
    /// `recover_again`: false (RFC 8985: a recovery for a segment newly deemed lost) / false
    /// (`linux`: true, `tcp_time_to_recover()` tests `lost_out`).
    pub recover_again: bool,
    /// `ecn_answered`: `window` (RFC 3168 6.1.2) / `next-reduction` (`last_cwnd_action_ ==
    /// CWND_ACTION_ECN`).
    pub ecn_answered: &'static str,
    /// `ecn_after_timeout`: `next-window` (RFC 3168 6.1.2) / `at-once` (`ecn()` answers
    /// while `last_cwnd_action_ == CWND_ACTION_TIMEOUT`).
    pub ecn_after_timeout: &'static str,
    /// `cwr_on_retransmit`: false (RFC 3168 6.1.2: the first new data packet) / true
    /// (`SetCWRonRetransmit_ true`).
    pub cwr_on_retransmit: bool,
    /// `sack`: false / false (`linux`: true, `net.ipv4.tcp_sack = 1`).
    pub sack: bool,
    /// `prr`: false (RFC 6675's `cwnd - pipe` in SACK recovery) / false (`linux`: true, RFC
    /// 6937 in `tcp_cwnd_reduction()`, ns-3.37's `TcpPrrRecovery`).
    pub prr: bool,
    /// `rack`: false (RFC 6675's DupThresh and `IsLost()`) / false (`linux`: true, RACK-TLP
    /// of RFC 8985, `net.ipv4.tcp_recovery = 1` and `tcp_early_retrans = 3`).
    pub rack: bool,
    /// `ecn_response`: `immediate` (RFC 3168 6.1.2: cwnd halved at once) / `immediate`
    /// (`linux`: `cwr`, `tcp_enter_cwr()`, ns-3.37's `CA_CWR`).
    pub ecn_response: &'static str,
    /// `ect_on_retransmit`: false (RFC 3168 6.1.5) / true (ns-2 sets `ect()` on every data
    /// packet of an ECN agent, retransmissions included).
    pub ect_on_retransmit: bool,
    /// `timestamps`: false / false (ns-2's `timestamps_ false`; ns-3's `Timestamp` is true,
    /// and so is Linux's `tcp_timestamps`).
    pub timestamps: bool,
}

impl TcpDefaults {
    pub fn of(profile: Profile) -> TcpDefaults {
        match profile {
            Profile::Rfc => TcpDefaults {
                init_cwnd: 1,
                initial_rto: Dur::from_secs(1),
                clock_granularity: Dur::from_millis(1),
                rtt_arithmetic: "rfc6298",
                ssthresh_from: "flight",
                ca_increase: "floor",
                byte_counting: false,
                delayed_ack: None,
                full_ack: "min-flight",
                reno_recover_check: false,
                limited_transmit: false,
                limited_transmit_resends: false,
                fast_retransmit_resets_timer: false,
                rto_min_on: "rto",
                head_retransmit_resets_timer: false,
                recover_again: false,
                ecn_answered: "window",
                ecn_after_timeout: "next-window",
                cwr_on_retransmit: false,
                ect_on_retransmit: false,
                sack: false,
                prr: false,
                rack: false,
                ecn_response: "immediate",
                timestamps: false,
            },
            Profile::Ns2 => TcpDefaults {
                init_cwnd: 2,
                initial_rto: Dur::from_secs(3),
                clock_granularity: Dur::from_millis(10),
                rtt_arithmetic: "ns2",
                ssthresh_from: "window",
                ca_increase: "exact",
                byte_counting: false,
                delayed_ack: None,
                full_ack: "ssthresh",
                reno_recover_check: true,
                limited_transmit: true,
                limited_transmit_resends: true,
                fast_retransmit_resets_timer: true,
                rto_min_on: "rto",
                head_retransmit_resets_timer: false,
                recover_again: false,
                ecn_answered: "next-reduction",
                ecn_after_timeout: "at-once",
                cwr_on_retransmit: true,
                ect_on_retransmit: true,
                sack: false,
                prr: false,
                rack: false,
                ecn_response: "immediate",
                timestamps: false,
            },
            // Linux's values (docs/profiles.md cites each); where ccsim's rule is the RFC's
            // and Linux has no other, the `rfc` value.
            Profile::Linux => TcpDefaults {
                init_cwnd: 10,
                initial_rto: Dur::from_secs(1),
                limited_transmit: true,
                full_ack: "ssthresh",
                sack: true,
                prr: true,
                rack: true,
                ecn_response: "cwr",
                timestamps: true,
                rto_min_on: "variance",
                ssthresh_from: "cwnd",
                head_retransmit_resets_timer: true,
                recover_again: true,
                byte_counting: true,
                delayed_ack: Some(Dur::from_millis(40)),
                ..TcpDefaults::of(Profile::Rfc)
            },
        }
    }
}
