//! Optional sampled time series (cwnd of chosen flows, queue length, RED state...), taken at
//! a fixed interval and bounded in size so that a long run cannot fill memory by accident.

use serde::Serialize;

/// What a series samples.
#[derive(Clone, Debug, PartialEq)]
pub enum SeriesTarget {
    /// Congestion window of a flow, in segments.
    Cwnd { flow: u32 },
    /// Slow-start threshold of a flow, in segments; not a number while it still has its
    /// initial, arbitrarily high value (RFC 5681 section 3.1).
    Ssthresh { flow: u32 },
    /// The flow's latest round-trip time sample, ms (one timed segment per round trip, RFC
    /// 6298 with Karn's rule); not a number before the first.
    Rtt { flow: u32 },
    /// The flow's smoothed round-trip time (RFC 6298's SRTT), ms; not a number before the
    /// first sample.
    Srtt { flow: u32 },
    /// The flow's pacing rate on the wire, bit/s (BBR's `pacing_gain * BtlBw`); not a number
    /// for a sender that does not pace.
    PacingRate { flow: u32 },
    /// Instantaneous queue length of a link's egress queue, packets.
    QueueLen { link: u32 },
    /// The discipline's average queue estimate (RED's avg), packets.
    QueueAvg { link: u32 },
    /// The discipline's current max_p.
    MaxP { link: u32 },
    /// The discipline's current drop/mark probability.
    DropProb { link: u32 },
    /// Bytes delivered in order to a flow's application during each interval, as bit/s.
    Goodput { flow: u32 },
    /// Bytes carried by a link during each interval, as bit/s, split by nothing.
    LinkRate { link: u32 },
    /// Packets a link's egress queue dropped during each interval (every reason).
    Drops { link: u32 },
}

#[derive(Clone, Debug)]
pub struct SeriesSpec {
    pub name: String,
    pub target: SeriesTarget,
    pub interval_ns: u64,
    pub max_points: usize,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Series {
    /// `KIND TARGET`, e.g. `queue R1->R2`, `cwnd bulk[0]`.
    pub name: String,
    /// Sample times, seconds.
    pub t: Vec<f64>,
    /// The sampled values (null where not a number).
    pub value: Vec<f64>,
    /// True when `max_points` was reached and later samples were not kept.
    pub truncated: bool,
}

impl Series {
    pub fn new(name: String, capacity: usize) -> Series {
        Series { name, t: Vec::with_capacity(capacity), value: Vec::with_capacity(capacity), truncated: false }
    }

    pub fn push(&mut self, t: f64, v: f64, max_points: usize) {
        if self.t.len() >= max_points {
            self.truncated = true;
        } else {
            self.t.push(t);
            self.value.push(v);
        }
    }
}
