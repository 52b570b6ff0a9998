//! RDP, the Reliable Data Protocol, version 2 (RFC 908 as RFC 1151 revises it), with the
//! congestion control and the ACC extensions of Faber's implementation ("Experience with
//! Active Congestion Control", Section 4.2.1): a packet-oriented, connection-oriented,
//! reliable transport that delivers every segment once and in order, acknowledges out of
//! sequence arrivals with EACKs, and carries its sender's congestion state for the routers.
//!
//! Like the TCP sender (`tcp/sender.rs`), both ends are pure state machines: inputs are the
//! segments that arrive, timer expiries and the application; outputs are the packets to send
//! (pushed to an outbox) and a deadline that the caller polls. They know no engine type and
//! keep no clock: time is whatever [`SimTime`](crate::sim::SimTime) the caller passes, so the
//! simulator's event loop and a live node on real sockets run the same code.
//!
//! # API
//!
//! - [`RdpSender`] (`sender.rs`): the active opener, which sends the data. [`RdpSender::new`]
//!   from a [`SenderConfig`] and the flow's [`Endpoints`](crate::packet::Endpoints);
//!   [`start`](RdpSender::start) (the Open request: sends the SYN),
//!   [`on_segment`](RdpSender::on_segment) (a segment from the receiver),
//!   [`on_acc_control`](RdpSender::on_acc_control) (a congested router's control),
//!   [`on_timer`](RdpSender::on_timer) once [`deadline`](RdpSender::deadline) is reached,
//!   [`close`](RdpSender::close). Counters in `stats` (the TCP sender's
//!   [`SenderStats`](crate::tcp::SenderStats), same meanings, windows counted in bytes as
//!   packets times the segment size), RDP's own in `rdp_stats`.
//! - [`RdpReceiver`] (`receiver.rs`): the passive opener (LISTEN from construction), which
//!   receives the data. [`on_segment`](RdpReceiver::on_segment) returns what it
//!   [`Delivered`] to the application, in order; [`on_timer`](RdpReceiver::on_timer) at
//!   [`deadline`](RdpReceiver::deadline) (CLOSE-WAIT's end). Counters in `stats` (the TCP
//!   receiver's [`ReceiverStats`](crate::tcp::ReceiverStats)).
//! - [`wire`]: the bytes of a segment. [`wire::decode`] checks every bound and returns an
//!   error, never panics; [`wire::encode`] writes a segment; [`wire::Header::of`] and
//!   [`wire::Header::packet`] convert between a decoded header and the simulator's
//!   [`Packet`](crate::net::Packet), which the state machines speak.
//!
//! In the simulator (`transport = "rdp"`) the segments travel as IPv4 protocol 27, RDP's
//! IANA number: `Kind::RdpData` from the sender, `Kind::RdpAck` from the receiver.
//!
//! # The rules, as implemented
//!
//! RFC 908 with RFC 1151's changes, section by section:
//!
//! - **Header** (RFC 1151 Figure 1; RFC 908 4.2): control flags SYN, ACK, EACK, RST, NUL in
//!   the first octet's high bits, the version (2) in its low two bits; the header length in
//!   2-octet units (9 without a variable area); 16-bit source and destination ports (RFC
//!   1151); the data length; 32-bit sequence and acknowledgement numbers; a 16-bit checksum,
//!   "the 16-bit TCP checksum" of RFC 793 (RFC 1151), the one's complement of the one's
//!   complement sum of the segment's 16-bit words. Layout in `wire.rs`.
//! - **Opening** (RFC 908 3.2.1, 3.2.3, 3.7.1, 3.7.2): the active Open sends
//!   `<SEQ=SND.ISS><MAX=SND.MAX><MAXBUF=RMAX.BUF><SYN>` and waits in SYN-SENT with
//!   `SND.NXT = SND.ISS + 1`. A LISTEN endpoint receiving a SYN sets `RCV.CUR = RCV.IRS =
//!   SEG.SEQ`, takes the peer's maximum outstanding segments and maximum segment size,
//!   answers `<SEQ=SND.ISS><ACK=RCV.CUR><MAX=RCV.MAX><BUFMAX=RBUF.MAX><ACK><SYN>` and enters
//!   SYN-RCVD; the SYN-SENT end receiving it, with `SEG.ACK = SND.ISS`, is OPEN; the
//!   SYN-RCVD end is OPEN on the first segment acknowledging its SYN. An ACK that
//!   acknowledges something other than the SYN, in SYN-SENT or SYN-RCVD, is answered with
//!   `<SEQ=SEG.ACK+1><RST>`; so is an ACK or NUL reaching a LISTEN endpoint.
//! - **Sequence numbers** (3.4.1, 4.4.2): the SYN has the initial sequence number; each
//!   segment carrying data the next one; segments without data take no number and carry
//!   `SND.NXT`.
//! - **Acceptance window** (3.5, 3.7.2): a segment is acceptable when `RCV.CUR < SEG.SEQ <=
//!   RCV.CUR + 2 * RCV.MAX`; an unacceptable one is answered with `<SEQ=SND.NXT>
//!   <ACK=RCV.CUR><ACK>` and discarded (a duplicate is unacceptable, so it is acknowledged
//!   again).
//! - **Acknowledgements** (3.4.3, 3.5, 4.4, 4.5): every acceptable segment with data is
//!   acknowledged; the ACK number is the last segment received in sequence; segments
//!   received out of sequence are buffered and acknowledged with EACKs, the list of their
//!   sequence numbers (RFC 908 5.3: the list names every such segment held, `EA=102,103`);
//!   segments that only acknowledge are not acknowledged.
//! - **SND.UNA** (RFC 1151, which corrects RFC 908's pseudo-code): the oldest
//!   unacknowledged segment, so an ACK of segment `n` makes it `n + 1`.
//! - **Flow control** (3.5): the sender keeps at most `SND.MAX` (the receiver's maximum
//!   outstanding segments, from its SYN) unacknowledged segments, EACKed ones counted as
//!   acknowledged, and never sends beyond the receiver's acceptance window (`SND.UNA - 1 +
//!   2 * SND.MAX`): a hole that stays unacknowledged stops new data there.
//! - **Sequenced delivery** (3.3, 4.3.2): the SYN asks for it (the SDM option); the receiver
//!   hands segments to the application in sequence-number order, each once.
//! - **Maximum segment size** (3.3, 4.3.2): a receiver aborts the connection with an RST
//!   when a segment holds more data than it said it accepts.
//! - **Closing** (3.2.5, 3.7.1, 3.7.3): Close sends `<SEQ=SND.NXT><RST>` and waits in
//!   CLOSE-WAIT, discarding what arrives, until a timeout ends it; an RST received while
//!   OPEN does the same. A SYN received while OPEN resets the connection.
//! - **NUL** (4.7): acknowledged when acceptable; this implementation sends none.
//!
//! The congestion control (Faber 4.2.1: "The system behaves like Reno TCP, but with a
//! congestion window sized by packets [...] until the fractional packet size reaches one
//! packet, that capacity is unused [...] Fast retransmission is implemented"):
//!
//! - The window is the controller [`PacketReno`](crate::tcp::cc::PacketReno) of the
//!   congestion-control seam: Reno's arithmetic (RFC 5681) in whole packets, congestion
//!   avoidance adding one packet once cwnd ACKs have arrived (1/cwnd per ACK, the fraction
//!   held until whole). It limits the segments between `SND.UNA` and `SND.NXT`, as TCP's
//!   window limits bytes; the flow control above applies as well.
//! - Loss recovery is the TCP sender's, in segments: the third duplicate ACK (an ACK that
//!   acknowledges nothing new while segments are outstanding: the receiver sends one, with
//!   EACKs, for each segment out of sequence) retransmits `SND.UNA` and starts fast
//!   recovery (RFC 5681 3.2), at most once per window of data (RFC 6582's `recover`); a
//!   partial ACK retransmits the next hole (RFC 6582 3.2 step 3, a hole the EACKs confirm);
//!   the ACK that covers `recover` ends it.
//! - The retransmission timer is RFC 6298's (Karn's rule, backoff), one per connection; on
//!   expiry the window falls to one packet and every unacknowledged segment is resent as
//!   the window opens, except those the receiver has EACKed (RFC 908 5.3: "only the missing
//!   segment need be retransmitted").
//! - ACC (Faber 4.2.1, 3.1): with `acc`, every data segment carries cwnd, ssthresh (both in
//!   packets), srtt and slow start in the header's ACC extension, and a control from a
//!   congested router is obeyed as the TCP sender obeys one (`tcp/sender.rs`): the router's
//!   window, once per window of data, the dropped segment and those after it resent.
//!
//! # Where this implementation differs, and why
//!
//! As Faber's did ("the packet format is modified slightly to mesh better with VNet"):
//!
//! - **The ACC extension.** The first octet's unused control bit (bit 5, `0x04`) says that a
//!   16-byte ACC state block follows the fixed header (after a SYN's parameters, before the
//!   EACK list). RFC 908 has no place for the state the routers read.
//! - **The checksum** covers the RDP segment alone, with no pseudo-header: the segment
//!   travels in the overlay's datagrams, whose addresses are virtual (Faber likewise relied
//!   on "the end-to-end UDP checksum underlying the VNet links").
//! - **The maximum segment size** of a SYN counts the RDP header and the data, not an IP
//!   header (RFC 908 counts one), for the same reason.
//! - **EACK lists are bounded**: a receiver lists the segments it holds among the
//!   [`EACK_SPAN`] (64) sequence numbers above `RCV.CUR + 1`, not those further on (they are
//!   listed once the cumulative ACK moves up), and a sender ignores entries beyond them.
//!   RFC 908 3.4.3 allows both ("the receiver may choose not to implement out-of-sequence
//!   acknowledgements [...] the sender may choose to ignore" them); a header has room for
//!   123 entries at most anyway. In the simulator an ACK carries the set as a 64-bit map
//!   ([`VarArea`]), the same information as the list on the wire.
//! - **One retransmission timer**, with congestion control, instead of one timer per segment
//!   (RFC 908 3.4.4, 3.7.3): per-segment timers would resend a window's worth of segments on
//!   one expiry each, against the congestion window that a timeout has just closed.
//! - **A retransmitted SYN in SYN-RCVD** is answered with the SYN-ACK again. RFC 908's
//!   pseudo-code finds its sequence number unacceptable and answers with a bare ACK, which
//!   SYN-SENT discards: with the first SYN-ACK lost, the connection would never open.
//! - **One-way data, one direction of opening.** The sending side opens actively, the
//!   receiving side listens, and only the sender has data: the flows of a scenario are
//!   one-way. A SYN without ACK reaching SYN-SENT (a simultaneous open) is discarded, and
//!   the sender ignores data, NUL and EACKs about its own (never sent) data from the
//!   receiver. The sender's SYN-ACK acknowledgement rides on its first data segment (RFC 908
//!   4.4: "it should be combined with data whenever possible"), or goes alone when no data
//!   may be sent.
//! - **A NUL out of sequence** is acknowledged but does not move `RCV.CUR` (RFC 908's
//!   pseudo-code sets `RCV.CUR = SEG.SEQ` for any acceptable NUL, which would skip the
//!   segments below it).
//! - **A finite transfer closes** its connection once every segment is acknowledged (the
//!   application's Close; RFC 908 3.2.5 leaves it to the user to know that the data is
//!   delivered). The CLOSE-WAIT delay, which RFC 908 does not size, is a setting.
//!
//! In the simulator the SYN exchange is modelled, as a live run has one: a flow's first data
//! leaves one round trip after it starts, so that a run and its simulated twin agree.

pub mod receiver;
pub mod sender;
pub mod wire;

pub use receiver::{Delivered, RdpReceiver, RdpReceiverStats, ReceiverConfig};
pub use sender::{RdpSender, RdpSenderStats, SenderConfig};

/// The states of a connection (RFC 908 3.2.3). A sender goes CLOSED, SYN-SENT, OPEN,
/// CLOSE-WAIT, CLOSED; a receiver LISTEN, SYN-RCVD, OPEN, CLOSE-WAIT, CLOSED.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynRcvd,
    Open,
    CloseWait,
}

pub use crate::packet::rdp::{eacked, flags, Fields, SynParams, VarArea, EACK_SPAN};

#[cfg(test)]
mod tests;
