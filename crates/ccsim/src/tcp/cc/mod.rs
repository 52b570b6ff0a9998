//! Congestion control: the window arithmetic of the TCP sender, behind one small trait, and
//! the registry of the algorithms a scenario can name.
//!
//! The sender (`tcp/sender.rs`) owns loss detection and loss recovery: it counts duplicate
//! ACKs, keeps `recover`, decides whether a new ACK in fast recovery is full or partial,
//! retransmits, runs the retransmission timer (RFC 6298) and decides when a congestion
//! signal is answered at all (once per window for ECN and ACC). A [`Controller`] owns a
//! [`Window`] (`cwnd`, `ssthresh`) and every rule that changes it. The sender calls it at
//! fixed points:
//!
//! | the sender sees | hook | default rule ([`Window`]) |
//! | --- | --- | --- |
//! | new data acknowledged, not in fast recovery | [`on_ack`](Controller::on_ack) | none: the algorithm's growth (Reno: RFC 5681 3.1) |
//! | a congestion signal to answer | [`reduce`](Controller::reduce) | none: the algorithm's decrease (Reno: eq. (4)) |
//! | the duplicate-ACK threshold is reached | [`on_fast_retransmit`](Controller::on_fast_retransmit) | `reduce` for a loss (RFC 5681 3.2 step 2) |
//! | ... and the segment is retransmitted | [`on_recovery_start`](Controller::on_recovery_start) | cwnd = the reduced window + 3 SMSS (step 3) |
//! | ... or, with SACK, RFC 6675's recovery starts | [`on_sack_recovery_start`](Controller::on_sack_recovery_start) | cwnd = the reduced window (RFC 6675 section 5 step (4.2)) |
//! | a further duplicate ACK in fast recovery (not SACK's) | [`on_recovery_dupack`](Controller::on_recovery_dupack) | cwnd += SMSS (step 4) |
//! | a partial ACK (NewReno recovery only, not SACK's) | [`on_partial_ack`](Controller::on_partial_ack) | deflation (RFC 6582 3.2 step 3) |
//! | the ACK that ends fast recovery | [`on_recovery_end`](Controller::on_recovery_end) | RFC 6582's exit, or RFC 5681 step 6 |
//! | the retransmission timer expires | [`on_timeout`](Controller::on_timeout) | `reduce` on the first expiry, cwnd = LW (RFC 5681 3.1) |
//! | ECN-Echo, once per window, outside recovery | [`on_ecn_echo`](Controller::on_ecn_echo) | `reduce` for ECN, cwnd no larger (RFC 3168 6.1.2) |
//! | a loss in the window an ECN-Echo answered | [`on_loss_in_answered_window`](Controller::on_loss_in_answered_window) | fast recovery, no second cut (RFC 3168 6.1.2) |
//! | an ACC control message it obeys | [`on_acc_control`](Controller::on_acc_control) | the router's window (Faber, Section 3.1) |
//! | an ACK delivered data, if it asked for samples | [`on_rate_sample`](Controller::on_rate_sample) | nothing (`tcp/rate.rs` computes the sample) |
//! | it may send new data | [`pacing_rate`](Controller::pacing_rate) | none: send as the window allows |
//! | a data segment leaves | [`header`](Controller::header) | none: no congestion header |
//! | an ACK of new data echoes router feedback | [`on_feedback`](Controller::on_feedback) | nothing |
//!
//! An algorithm writes the two hooks that have no sensible default (its growth and its
//! decrease) and overrides any other hook it changes, calling the [`Window`]'s rules it
//! keeps: the standard arithmetic is composed, never forwarded by hand from another
//! algorithm. The trait is shaped like smoltcp's `socket/tcp/congestion.rs`: hooks with
//! defaults, an enum ([`AnyController`]) that dispatches with a `match` (no `Box<dyn>`, no
//! allocation; the per-ACK cost is one branch on the variant and a small [`Ack`] built on
//! the stack). As in quinn's `congestion/`, each algorithm has a config struct whose
//! documented defaults cite its RFC and which builds the controller.
//!
//! # The registry
//!
//! Each algorithm registers itself ([`spec::Registration`]): the name `tcp.variant` selects
//! it by, the loss recovery it pairs with, what it needs of ECN, the keys of its own table
//! (`tcp.cubic.beta`) and a builder. The `controllers!` list below declares the [`CcConfig`]
//! and [`AnyController`] variants and the [`registry`]; the scenario builder names no
//! algorithm. Adding one is one file (config, controller, registration, tests), one line in
//! `controllers!`, and its rows in `docs/scenario-format.md` (a test checks every registered
//! key is documented); `docs/architecture.md` ("Adding an algorithm") walks through it.
//!
//! # Where Reno and NewReno differ
//!
//! RFC 6582 changes only fast recovery, and its changes fall on both sides of the seam:
//!
//! - Loss recovery, in the sender ([`Recovery`]): whether a new ACK below `recover` ends fast
//!   recovery (Reno: any new ACK does) or is a partial ACK that retransmits the next hole and
//!   restarts the timer (NewReno, RFC 6582 step 3 and section 4), and the check that keeps a
//!   second fast retransmit out of a window already recovered (RFC 6582 step 2). These decide
//!   which segments go out and when recovery ends.
//! - Window arithmetic, in the controller: what `cwnd` becomes. NewReno deflates the window on
//!   a partial ACK and leaves recovery with `min(ssthresh, max(FlightSize, SMSS) + SMSS)` (RFC
//!   6582 step 3, full ACK, option (1)); Reno leaves it with `cwnd = ssthresh` (RFC 5681 step
//!   6, the [`FullAck::Ssthresh`] rule) and meets no partial ACK, since its recovery has none.
//!   Both are the [`Reno`] controller; the registrations `reno` and `newreno` pair it with
//!   its recovery and exit rule.
//!
//! Why this split: the published window algorithms that come next (CUBIC, RFC 9438; DCTCP,
//! RFC 8257) specify the window's response and leave loss recovery to RFC 5681/6582, as
//! Linux leaves it to `tcp_input.c` whatever congestion-control module is loaded. With the
//! recovery in the sender, they get NewReno's recovery by their registration, not by copying
//! it. Deflation and the exit rule stay on the controller's side because they are arithmetic
//! on a window whose units and state only the controller knows (a packet-counted window
//! deflates in packets; CUBIC's epoch must see the window it leaves recovery with).
//!
//! # SACK recovery
//!
//! With SACK (RFC 6675, `SenderConfig::sack`) the sender counts what is in flight (`pipe`,
//! from its scoreboard) and sends while `cwnd - pipe >= SMSS`, so the window is not inflated
//! by duplicates nor deflated by partial ACKs: the sender calls neither
//! `on_recovery_dupack` nor `on_partial_ack`. It calls `on_fast_retransmit` (ssthresh, as
//! for RFC 5681), then, the first lost segment retransmitted,
//! [`on_sack_recovery_start`](Controller::on_sack_recovery_start) for RFC 6675's `cwnd =
//! ssthresh`, and `on_recovery_end` when the cumulative ACK reaches the recovery point, as
//! NewReno's full ACK. Which recovery runs is the sender's business; a controller sees only
//! which of its hooks are called.
//!
//! Fast retransmit takes two hooks because RFC 5681 orders it that way: step 2 sets ssthresh
//! when the third duplicate arrives, step 3 retransmits and sets cwnd. The retransmitted
//! segment carries the sender's state of that moment (the ACC state block), so the two steps
//! stay apart.
//!
//! The initial window and the initial ssthresh belong to the sender's configuration
//! ([`SenderConfig`](super::SenderConfig)`::init_cwnd` and `init_ssthresh`, RFC 5681 section
//! 3.1), which hands them to [`CcConfig::build`]: every algorithm starts from the same
//! values, and a profile that changes the initial window (ns-2's is 2 segments) then changes
//! one parameter whatever the algorithm.
//!
//! # The algorithms
//!
//! - **Reno and NewReno** ([`Reno`], `reno.rs`; RFC 5681, RFC 6582): the [`Window`]'s rules.
//! - **CUBIC** ([`Cubic`], `cubic.rs`, RFC 9438). [`CubicConfig`] holds C = 0.4, β = 0.7,
//!   fast convergence and the Reno-friendly region (`tcp.cubic.*`). Slow start and fast
//!   recovery are the window's; the controller keeps `W_max`, `K`, `W_est` and the epoch's
//!   start; time comes from `Ack::now`, the RTT of the target `W_cubic(t + RTT)` from
//!   `Ack::srtt`. Its decrease is by β; `on_timeout` sets ssthresh by β on the first expiry
//!   and restarts the curve (4.8).
//! - **DCTCP** ([`Dctcp`], `dctcp.rs`, RFC 8257). The ACK hooks count `Ack::acked` and, when
//!   `Ack::ece`, the bytes marked; once `Ack::una` passes the SND.MAX recorded when the
//!   observation window began, α = (1 - g) α + g M (`tcp.dctcp.g`). Its decrease for ECN sets
//!   cwnd = cwnd (1 - α/2). The sender answers ECN-Echo at most once per window, as RFC 8257
//!   asks; losses are the window's. Marked ACKs grow the window (RFC 3168's "no increase" is
//!   Reno's rule, and the controller sees `ece`). Its registration asks for per-packet ECN
//!   echo from the receiver (`EcnEcho::PerPacket`, `tcp/receiver.rs`).
//! - **Packet-counted Reno** for the RDP transport is [`PacketReno`] (`packet_reno.rs`): the
//!   window's rules with the window and threshold in whole packets, congestion avoidance
//!   counting ACKs and adding one packet once the count reaches cwnd (1/cwnd per ACK, the
//!   fraction held until whole). `cwnd()` reports packets times the MSS it was built with,
//!   so a byte-counting sender needs nothing else. It is not registered: RDP builds it.
//! - **The ns-2 profile** (`settings::profile`, `docs/profiles.md`): the initial window of 2
//!   is `SenderConfig::init_cwnd`; what a reduction halves (RFC 5681's FlightSize, or ns-2's
//!   `window()`, `min(cwnd, rwnd)`, counted in whole segments and at every timeout) is
//!   [`RenoConfig::ssthresh_from`], which reads `Event::rwnd`; the window on leaving
//!   recovery is [`NewRenoConfig::full_ack`]; Reno's guard against a second fast retransmit
//!   in one window (ns-2's `bugFix_`) is loss recovery, `SenderConfig::reno_recover_check`,
//!   next to NewReno's `recover` check, and so is Limited Transmit
//!   (`SenderConfig::limited_transmit`, ns-2's `singledup_`).

#[cfg(test)]
pub mod aimd;
pub mod bbr;
pub mod bbr3;
pub mod bbr_core;
pub mod cubic;
pub mod dctcp;
pub mod external;
pub mod packet_reno;
pub mod prague;
#[cfg(test)]
pub mod probe;
pub mod rcp;
pub mod reno;
pub mod spec;
pub mod variant;
pub mod window;
pub mod xcp;

pub use cubic::{Cubic, CubicConfig};
pub use dctcp::{Dctcp, DctcpConfig};
pub use packet_reno::{PacketReno, PacketRenoConfig};
pub use reno::Reno;
pub use spec::{CcContext, EcnUse, Recovery, Registration};
pub use window::{FullAck, NewRenoConfig, RenoConfig, SsthreshFrom, Window};

use super::rate::RateSample;
use crate::packet::Explicit;
use crate::sim::{Dur, SimTime};

/// An ACK of new data, as a controller sees it. Sequence positions are byte offsets from
/// the initial sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    pub now: SimTime,
    /// Bytes this ACK newly acknowledges.
    pub acked: u64,
    /// SND.UNA after this ACK.
    pub una: u64,
    /// The highest byte sent so far (SND.MAX): `max - una` is the FlightSize.
    pub max: u64,
    /// The ACK carries ECN-Echo (on an ECN-capable connection); under Accurate ECN, the ACKs
    /// since the last ACK of new data reported CE marks.
    pub ece: bool,
    /// Under Accurate ECN (RFC 9768), the packets newly reported CE-marked by the ACKs since
    /// the last ACK of new data, this one included; None under RFC 3168's or DCTCP's echo,
    /// where `ece` is all the sender learns.
    pub ce: Option<u32>,
    /// The window limited sending when the ACK arrived (FlightSize + SMSS > cwnd, as
    /// Linux's `tcp_is_cwnd_limited`, in the spirit of RFC 7661): a flow held back by the
    /// receiver's window or by its application should not grow a window it does not use.
    pub cwnd_limited: bool,
    /// The RTT sample this ACK gave (Karn's rule applied), if any.
    pub rtt: Option<Dur>,
    /// The smoothed RTT (RFC 6298), once there is one.
    pub srtt: Option<Dur>,
}

impl Ack {
    /// Bytes sent and not yet acknowledged after this ACK (RFC 5681 FlightSize).
    pub fn flight(&self) -> u32 {
        (self.max - self.una) as u32
    }
}

/// Any other moment a controller hears of: a duplicate ACK, a congestion signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub now: SimTime,
    /// Bytes sent and not yet acknowledged (RFC 5681 FlightSize).
    pub flight: u32,
    /// Duplicate ACKs received in a row (the threshold's number at fast retransmit).
    pub dupacks: u32,
    /// Expiries of the retransmission timer since the last valid RTT sample: 0 on the first
    /// timeout of a segment (RFC 5681 3.1: ssthresh is set only "if the segment has not yet
    /// been resent by way of the retransmission timer").
    pub backoffs: u32,
    /// The receiver's advertised window, bytes: what limits sending besides `cwnd` (ns-2
    /// halves `min(cwnd, rwnd)`, its `window()`, where RFC 5681 halves the FlightSize).
    pub rwnd: u32,
    /// The last reduction was an ECN-Echo's and still covers this event: a timeout then
    /// keeps ssthresh (RFC 3168 6.1.2: "the TCP source should not decrease the slow-start
    /// threshold, ssthresh, if it has been decreased within the last round trip time").
    pub ecn_answered: bool,
}

/// The congestion signal a reduction answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// A loss detected by duplicate ACKs (fast retransmit).
    Loss,
    /// An ECN-Echo the sender answers.
    Ecn,
    /// The retransmission timer expired (first expiry, or every expiry under ns-2's rule).
    Timeout,
}

/// The window arithmetic of a congestion-control algorithm. Windows are in bytes.
///
/// [`on_ack`](Self::on_ack) (growth) and [`reduce`](Self::reduce) (decrease) have no default:
/// they are what makes an algorithm. Every other hook defaults to the standard rule of the
/// [`Window`] (see the module documentation), so an algorithm overrides only what it changes.
pub trait Controller {
    /// The window and threshold, with the standard rules.
    fn window(&self) -> &Window;

    /// The same, to change.
    fn window_mut(&mut self) -> &mut Window;

    /// The congestion window, bytes.
    fn cwnd(&self) -> u32 {
        self.window().cwnd
    }

    /// The slow-start threshold, bytes.
    fn ssthresh(&self) -> u32 {
        self.window().ssthresh
    }

    /// New data acknowledged outside fast recovery: the window's growth.
    fn on_ack(&mut self, ack: &Ack);

    /// The multiplicative decrease for `signal`: sets ssthresh and returns the window to
    /// leave (fast recovery inflates it; an ECN-Echo leaves no more than it).
    fn reduce(&mut self, ev: &Event, signal: Signal) -> u32;

    /// The duplicate-ACK threshold is reached and the sender starts fast retransmit: the
    /// response to the loss, before the retransmission (RFC 5681 3.2 step 2).
    fn on_fast_retransmit(&mut self, ev: &Event) {
        let left = self.reduce(ev, Signal::Loss);
        self.window_mut().set_base(left);
    }

    /// The lost segment has been retransmitted: fast recovery starts (RFC 5681 3.2 step 3).
    fn on_recovery_start(&mut self, ev: &Event) {
        self.window_mut().start_recovery(ev.dupacks);
    }

    /// SACK loss recovery starts, the first lost segment retransmitted: RFC 6675 section 5
    /// step (4.2), "ssthresh = cwnd = (FlightSize / 2)", takes ssthresh from
    /// [`on_fast_retransmit`](Controller::on_fast_retransmit), called before; this hook sets
    /// the window of the recovery, which the sender does not inflate (it sends while `cwnd -
    /// pipe >= SMSS`). Called instead of [`on_recovery_start`](Controller::on_recovery_start).
    fn on_sack_recovery_start(&mut self, _ev: &Event) {
        self.window_mut().start_sack_recovery();
    }

    /// A further duplicate ACK during fast recovery (RFC 5681 3.2 step 4).
    fn on_recovery_dupack(&mut self, _ev: &Event) {
        self.window_mut().inflate();
    }

    /// A partial ACK in NewReno recovery: new data acknowledged, but not up to `recover`;
    /// the sender has just retransmitted the next hole (RFC 6582 3.2 step 3).
    fn on_partial_ack(&mut self, ack: &Ack) {
        self.window_mut().deflate(ack);
    }

    /// The ACK that ends fast recovery (RFC 5681 3.2 step 6; RFC 6582 3.2 step 3, full
    /// acknowledgment).
    fn on_recovery_end(&mut self, ack: &Ack) {
        self.window_mut().end_recovery(ack);
    }

    /// The retransmission timer expired and everything outstanding will be resent.
    fn on_timeout(&mut self, ev: &Event) {
        if self.window().timeout_reduces(ev) {
            self.reduce(ev, Signal::Timeout);
        }
        self.window_mut().collapse();
    }

    /// ECN-Echo that the sender answers: at most once per window, never in fast recovery
    /// (RFC 3168 6.1.2).
    fn on_ecn_echo(&mut self, ev: &Event) {
        let left = self.reduce(ev, Signal::Ecn);
        self.window_mut().cut_to(left);
    }

    /// A loss in a window whose congestion an ECN-Echo already answered: the sender
    /// retransmits and enters fast recovery at the current window, without a second
    /// reduction (RFC 3168 6.1.2: "the TCP sender's congestion window should be reduced only
    /// once in response to a series of dropped and/or CE packets from a single window of
    /// data"; ns-2's `dupack_action()` after `CWND_ACTION_ECN`).
    fn on_loss_in_answered_window(&mut self, ev: &Event) {
        self.window_mut().recover_without_reduction(ev.dupacks);
    }

    /// An ACC control message that the sender obeys: a congested router's window and
    /// threshold, bytes. The sender obeys only controls with `cwnd` below the current
    /// window, at most once per window.
    fn on_acc_control(&mut self, _ev: &Event, cwnd: u32, ssthresh: u32) {
        self.window_mut().obey(cwnd, ssthresh);
    }

    /// Whether the sender should sample delivery rates for it
    /// ([`on_rate_sample`](Self::on_rate_sample)); asked once, when the sender is made.
    fn wants_rate_samples(&self) -> bool {
        false
    }

    /// After each ACK that delivered data, when [`wants_rate_samples`](Self::wants_rate_samples):
    /// the delivery rate, RTT and in-flight sample it gave (`tcp/rate.rs`), after the ACK's
    /// other hooks and before the sender sends.
    fn on_rate_sample(&mut self, _rs: &RateSample) {}

    /// Whether the sender paces new data at [`pacing_rate`](Self::pacing_rate); asked once,
    /// when the sender is made.
    fn paces(&self) -> bool {
        false
    }

    /// Whether the controller sets the window on every ACK, in loss recovery and CWR too
    /// (Linux's `cong_control`, which BBR has): then Proportional Rate Reduction does not
    /// spread its reductions, whatever `tcp.prr` says (Linux's `tcp_cong_control()` calls
    /// `cong_control` instead of `tcp_cwnd_reduction()`). Asked once, when the sender is made.
    fn sets_window_in_recovery(&self) -> bool {
        false
    }

    /// The rate to pace new data at, bytes per second, for a controller that
    /// [`paces`](Self::paces); None sends as the window allows. A segment counts as its
    /// payload and 40 bytes of TCP/IP headers, its options not (Linux paces payload, so a
    /// timestamped flow paces as an untimestamped one does).
    fn pacing_rate(&self) -> Option<f64> {
        None
    }

    /// The congestion header each data segment carries (XCP's, RCP's: `packet::explicit`),
    /// written as the segment leaves; None for an algorithm without one. Some always or
    /// never: the sender asks once, when it is made, whether there is one.
    fn header(&self) -> Option<Explicit> {
        None
    }

    /// An ACK of new data echoed the routers' feedback (XCP's window change, RCP's rate),
    /// after the ACK's other hooks and before the sender sends.
    fn on_feedback(&mut self, _echo: Explicit) {}
}

/// Declares the controllers: the [`CcConfig`] and [`AnyController`] enums, their dispatch,
/// and the registry ([`registry`]), one line per controller type:
/// `Variant(Config) -> Controller = [registrations],`, attributes first (`#[cfg(test)]` for
/// one that only the tests build). `Config::build(mss, init_cwnd, init_ssthresh)` makes the
/// controller. Every TCP sender holds an `AnyController` as large as its largest variant, so
/// a controller whose state is larger than CUBIC's is declared boxed (`-> Box<Type>`).
macro_rules! controllers {
    ($($(#[$attr:meta])* $variant:ident($config:ty) -> $controller:ty = [$($registration:expr),*],)*) => {
        /// The algorithm and its parameters, as the sender's configuration holds them.
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcConfig {
            $($(#[$attr])* $variant($config),)*
        }

        impl CcConfig {
            /// The controller at the start of a connection: `mss` bytes per segment, an
            /// initial window of `init_cwnd` segments and an initial threshold of
            /// `init_ssthresh` bytes.
            pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> AnyController {
                match self {
                    $($(#[$attr])* CcConfig::$variant(c) => AnyController::$variant(c.build(mss, init_cwnd, init_ssthresh).into()),)*
                }
            }

            /// The same controller outside the enum, for the tests that compare the two.
            #[cfg(test)]
            pub fn build_direct(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Box<dyn Controller> {
                match self {
                    $($(#[$attr])* CcConfig::$variant(c) => Box::new(c.build(mss, init_cwnd, init_ssthresh)),)*
                }
            }
        }

        /// One of the algorithms, dispatched by `match`.
        #[derive(Clone, Debug, PartialEq)]
        pub enum AnyController {
            $($(#[$attr])* $variant($controller),)*
        }

        impl Controller for AnyController {
            #[inline]
            fn window(&self) -> &Window {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.window(),)* }
            }
            #[inline]
            fn window_mut(&mut self) -> &mut Window {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.window_mut(),)* }
            }
            #[inline]
            fn on_ack(&mut self, ack: &Ack) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_ack(ack),)* }
            }
            #[inline]
            fn reduce(&mut self, ev: &Event, signal: Signal) -> u32 {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.reduce(ev, signal),)* }
            }
            #[inline]
            fn on_fast_retransmit(&mut self, ev: &Event) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_fast_retransmit(ev),)* }
            }
            #[inline]
            fn on_recovery_start(&mut self, ev: &Event) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_recovery_start(ev),)* }
            }
            #[inline]
            fn on_sack_recovery_start(&mut self, ev: &Event) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_sack_recovery_start(ev),)* }
            }
            #[inline]
            fn on_recovery_dupack(&mut self, ev: &Event) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_recovery_dupack(ev),)* }
            }
            #[inline]
            fn on_partial_ack(&mut self, ack: &Ack) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_partial_ack(ack),)* }
            }
            #[inline]
            fn on_recovery_end(&mut self, ack: &Ack) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_recovery_end(ack),)* }
            }
            #[inline]
            fn on_timeout(&mut self, ev: &Event) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_timeout(ev),)* }
            }
            #[inline]
            fn on_ecn_echo(&mut self, ev: &Event) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_ecn_echo(ev),)* }
            }
            #[inline]
            fn on_loss_in_answered_window(&mut self, ev: &Event) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_loss_in_answered_window(ev),)* }
            }
            #[inline]
            fn on_acc_control(&mut self, ev: &Event, cwnd: u32, ssthresh: u32) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_acc_control(ev, cwnd, ssthresh),)* }
            }
            #[inline]
            fn wants_rate_samples(&self) -> bool {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.wants_rate_samples(),)* }
            }
            #[inline]
            fn on_rate_sample(&mut self, rs: &RateSample) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_rate_sample(rs),)* }
            }
            #[inline]
            fn paces(&self) -> bool {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.paces(),)* }
            }
            #[inline]
            fn sets_window_in_recovery(&self) -> bool {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.sets_window_in_recovery(),)* }
            }
            #[inline]
            fn pacing_rate(&self) -> Option<f64> {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.pacing_rate(),)* }
            }
            #[inline]
            fn header(&self) -> Option<Explicit> {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.header(),)* }
            }
            #[inline]
            fn on_feedback(&mut self, echo: Explicit) {
                match self { $($(#[$attr])* AnyController::$variant(c) => c.on_feedback(echo),)* }
            }
        }

        /// The registrations, line by line.
        const REGISTRATIONS: &[&[Registration]] = &[$($(#[$attr])* &[$($registration),*],)*];
    };
}

controllers! {
    Reno(NewRenoConfig) -> Reno = [reno::RENO, reno::NEWRENO],
    Cubic(CubicConfig) -> Cubic = [cubic::REGISTRATION],
    Dctcp(DctcpConfig) -> Dctcp = [dctcp::REGISTRATION],
    Bbr(Box<bbr::BbrConfig>) -> Box<bbr::Bbr> = [bbr::REGISTRATION],
    Xcp(xcp::XcpConfig) -> xcp::Xcp = [xcp::REGISTRATION],
    Rcp(rcp::RcpConfig) -> rcp::Rcp = [rcp::REGISTRATION],
    Prague(prague::PragueConfig) -> Box<prague::Prague> = [prague::REGISTRATION],
    Bbr3(Box<bbr3::Bbr3Config>) -> Box<bbr3::Bbr3> = [bbr3::REGISTRATION],
    PacketReno(PacketRenoConfig) -> PacketReno = [],
    External(external::ExternalConfig) -> external::External = [],
    #[cfg(test)]
    Aimd(aimd::AimdConfig) -> aimd::Aimd = [aimd::REGISTRATION],
    #[cfg(test)]
    Probe(probe::ProbeConfig) -> probe::Probe = [probe::REGISTRATION],
}

/// Every algorithm a scenario can name (`tcp.variant`), in the order messages list them.
pub fn registry() -> impl Iterator<Item = &'static Registration> {
    REGISTRATIONS.iter().flat_map(|line| line.iter())
}

impl Default for CcConfig {
    /// NewReno, the scenario's default `tcp.variant`.
    fn default() -> Self {
        CcConfig::Reno(NewRenoConfig::default())
    }
}

/// Hand-built inputs for the controllers' tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Ack, Event};
    use crate::sim::SimTime;

    pub const MSS: u32 = 1000;

    /// An ACK of `acked` bytes that leaves `flight` bytes outstanding, on a window-limited
    /// flow, without ECN-Echo.
    pub fn ack(acked: u32, flight: u32) -> Ack {
        Ack {
            now: SimTime::ZERO,
            acked: acked as u64,
            una: 1_000_000,
            max: 1_000_000 + flight as u64,
            ece: false,
            ce: None,
            cwnd_limited: true,
            rtt: None,
            srtt: None,
        }
    }

    /// An event with `flight` bytes outstanding after `dupacks` duplicates, on a timer not
    /// yet backed off.
    pub fn event(flight: u32, dupacks: u32) -> Event {
        Event { now: SimTime::ZERO, flight, dupacks, backoffs: 0, rwnd: u32::MAX, ecn_answered: false }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    /// The enum forwards every hook: the same sequence through `AnyController` and through
    /// the algorithm itself gives the same windows at every step, for every registered
    /// algorithm with its defaults (and the RDP sender's, which is not registered).
    #[test]
    fn any_controller_forwards_every_hook() {
        let ctx = CcContext { window: NewRenoConfig::default(), full_ack_given: false, profile: Default::default() };
        let registered = registry().map(|r| spec::build(r, &crate::settings::table::Table::new(), &ctx).unwrap_or_else(|e| panic!("{}: {e}", r.name)));
        let all: Vec<CcConfig> = registered.chain([CcConfig::PacketReno(PacketRenoConfig::default())]).collect();
        assert!(all.contains(&CcConfig::Reno(NewRenoConfig { full_ack: FullAck::Ssthresh, ..NewRenoConfig::default() })), "reno");
        for cfg in all {
            let mut any = cfg.build(MSS, 1, u32::MAX / 2);
            let mut direct = cfg.build_direct(MSS, 1, u32::MAX / 2);
            let steps: [fn(&mut dyn Controller); 12] = [
                |c| c.on_ack(&ack(MSS, 20 * MSS)),
                |c| c.on_ack(&ack(MSS, 20 * MSS)),
                |c| c.on_fast_retransmit(&event(20 * MSS, 3)),
                |c| c.on_recovery_start(&event(20 * MSS, 3)),
                |c| c.on_sack_recovery_start(&event(20 * MSS, 3)),
                |c| c.on_recovery_dupack(&event(20 * MSS, 4)),
                |c| c.on_partial_ack(&ack(3 * MSS, 12 * MSS)),
                |c| c.on_recovery_end(&ack(2 * MSS, 3 * MSS)),
                |c| c.on_ecn_echo(&event(8 * MSS, 0)),
                |c| c.on_loss_in_answered_window(&event(8 * MSS, 3)),
                |c| c.on_acc_control(&event(8 * MSS, 0), 2 * MSS, 2 * MSS),
                |c| c.on_timeout(&event(4 * MSS, 0)),
            ];
            for (i, step) in steps.iter().enumerate() {
                let before = (any.cwnd(), any.ssthresh());
                step(&mut any);
                step(direct.as_mut());
                assert_eq!((any.cwnd(), any.ssthresh()), (direct.cwnd(), direct.ssthresh()), "{cfg:?} step {i}");
                if cfg == CcConfig::default() {
                    assert_ne!((any.cwnd(), any.ssthresh()), before, "step {i} changes NewReno's window, so a hook left out shows");
                }
            }
        }
    }
}
#[cfg(test)]
mod size {
    /// A sender holds its controller inline, as large as the largest variant: one with much
    /// state is boxed, so that a NewReno flow does not carry BBR's filters.
    #[test]
    fn the_controller_inline_is_no_larger_than_cubics() {
        assert!(std::mem::size_of::<super::AnyController>() <= std::mem::size_of::<super::Cubic>() + 8);
    }

    /// The same for the configuration every sender holds: a large one is boxed.
    #[test]
    fn the_config_inline_is_no_larger_than_cubics() {
        assert!(std::mem::size_of::<super::CcConfig>() <= std::mem::size_of::<super::CubicConfig>() + 8);
    }
}
