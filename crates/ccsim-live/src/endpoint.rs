//! RDP at the live hosts: the core's RDP state machines (`ccsim::rdp`) driven by a node's
//! clock and socket, and what a router reads of an RDP segment.

use crate::plan::Plan;
use crate::report::FlowReport;
use crate::wire::Control;
use ccsim::engine::Transport;
use ccsim::net::packet::AccState;

/// The RDP settings of one flow, as the simulator built them.
#[derive(Clone, Debug)]
pub struct RdpParams {
    pub sport: u16,
    pub dport: u16,
}

impl RdpParams {
    /// The settings of an RDP flow; None for other transports.
    pub fn of(_t: &Transport) -> Option<RdpParams> {
        None
    }
}

/// What a router reads of an RDP segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RdpView {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    /// The segment carries data (not a bare acknowledgement).
    pub data: bool,
    /// The sender's congestion state, if it carries it.
    pub acc: Option<AccState>,
}

/// Reads an RDP segment's header; None if it is not one.
pub fn view(_seg: &[u8]) -> Option<RdpView> {
    None
}

/// Segments the hosts of a node want sent: (destination address, segment) in order.
#[derive(Default)]
pub struct Outbox {
    data: Vec<u8>,
    segs: Vec<(u32, u32, u32)>,
}

impl Outbox {
    pub fn push(&mut self, dst: u32, seg: &[u8]) {
        let start = self.data.len() as u32;
        self.data.extend_from_slice(seg);
        self.segs.push((dst, start, self.data.len() as u32));
    }

    /// Takes every segment, in order.
    pub fn drain(&mut self, mut f: impl FnMut(u32, &[u8])) {
        for &(dst, a, b) in &self.segs {
            f(dst, &self.data[a as usize..b as usize]);
        }
        self.segs.clear();
        self.data.clear();
    }
}

/// The RDP connections whose one end is this node.
pub struct Hosts {}

impl Hosts {
    pub fn new(_plan: &Plan, _me: u32) -> Hosts {
        Hosts {}
    }

    pub fn is_empty(&self) -> bool {
        true
    }

    /// A segment from `src` arrived.
    pub fn on_segment(&mut self, _src: u32, _seg: &[u8], _now: u64, _out: &mut Outbox) {}

    /// An authenticated control arrived; false if no sender here has its connection.
    pub fn on_control(&mut self, _c: &Control, _now: u64) -> bool {
        false
    }

    /// Timers and new data at `now`.
    pub fn poll(&mut self, _now: u64, _out: &mut Outbox) {}

    pub fn next_wake(&self) -> Option<u64> {
        None
    }

    pub fn flows(&self, _window: (u64, u64)) -> Vec<FlowReport> {
        Vec::new()
    }
}
