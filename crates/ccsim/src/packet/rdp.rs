//! RDP's header as a packet carries it (RFC 908 4.2, with the ACC extension of Faber's
//! implementation): the control flags, the variable area, the header fields and their
//! length on the wire. The protocol's state machines and its byte encoding are `crate::rdp`'s;
//! this is the part every layer that handles a packet sees.

use super::{AccState, Seq};

/// RDP's control flags, as the bits of the header's first octet (RFC 908 4.2.1: bit 0, the
/// most significant, is SYN).
pub mod flags {
    /// Establish a connection and synchronize sequence numbers.
    pub const SYN: u8 = 0x80;
    /// The acknowledgement number is significant.
    pub const ACK: u8 = 0x40;
    /// Extended (non-cumulative) acknowledgements follow.
    pub const EAK: u8 = 0x20;
    /// Reset the connection.
    pub const RST: u8 = 0x10;
    /// A null segment (no data; a liveness probe).
    pub const NUL: u8 = 0x08;
    /// Every control flag.
    pub const ALL: u8 = SYN | ACK | EAK | RST | NUL;
}

/// How far above `RCV.CUR + 1` the EACKs reach: segments `RCV.CUR + 2 ..= RCV.CUR + 65`.
pub const EACK_SPAN: u32 = 64;

/// A SYN's parameters (RFC 908 4.3): what its sender is willing to receive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SynParams {
    /// The most unacknowledged segments the peer may send (the Max. # of Outstanding
    /// Segments; the receiver's `RCV.MAX`).
    pub max_outstanding: u16,
    /// The largest segment the peer may send, bytes of RDP header and data.
    pub max_segment: u16,
    /// Sequenced delivery mode (the SDM option).
    pub sequenced: bool,
}

/// RDP's variable header area (RFC 908 4.2.1: "used to transmit parameters for the SYN and
/// EACK segments"), packed in three 32-bit words so that a packet stays a small `Copy` value.
/// In an RDP segment the header's flags say which it holds, in the first two words: a SYN's
/// [`SynParams`], or, with EACK, the set of segments received out of sequence, bit `i`
/// standing for segment `ACK + 2 + i` (segment `ACK + 1` is the one missing). A TCP segment
/// has no use for it and carries XCP's or RCP's congestion header there instead
/// ([`super::explicit`]); the third word fills what was the packet's padding, so the packet
/// is no larger for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VarArea([u32; 3]);

impl VarArea {
    /// Nothing (a segment with neither SYN nor EACK).
    pub const NONE: VarArea = VarArea([0; 3]);

    /// The area holding the 64 bits `v` (RDP's use) in its first two words.
    fn from_u64(v: u64) -> VarArea {
        VarArea([v as u32, (v >> 32) as u32, 0])
    }

    /// The first two words as 64 bits.
    fn as_u64(self) -> u64 {
        self.0[0] as u64 | (self.0[1] as u64) << 32
    }

    pub fn syn(p: SynParams) -> VarArea {
        VarArea::from_u64(p.max_outstanding as u64 | (p.max_segment as u64) << 16 | (p.sequenced as u64) << 32)
    }

    /// The EACK set, as a map relative to the ACK number.
    pub fn eacks(bits: u64) -> VarArea {
        VarArea::from_u64(bits)
    }

    /// The SYN parameters (meaningful when the SYN flag is set).
    pub fn syn_params(self) -> SynParams {
        let v = self.as_u64();
        SynParams { max_outstanding: v as u16, max_segment: (v >> 16) as u16, sequenced: v >> 32 & 1 == 1 }
    }

    /// The EACK map (meaningful when the EACK flag is set).
    pub fn eack_bits(self) -> u64 {
        self.as_u64()
    }

    /// The three words (a TCP segment's congestion header, [`super::explicit`]).
    pub const fn words(self) -> [u32; 3] {
        self.0
    }

    /// An area of three words.
    pub const fn from_words(w: [u32; 3]) -> VarArea {
        VarArea(w)
    }
}

/// The sequence numbers an EACK map relative to `ack` names, ascending.
pub fn eacked(ack: Seq, bits: u64) -> impl Iterator<Item = Seq> {
    (0..EACK_SPAN).filter(move |i| bits >> i & 1 == 1).map(move |i| ack + 2 + i)
}

/// The RDP header fields of a segment that the simulator's packets carry (ports and
/// addresses are the packet's own; the data length is its payload).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// Control flags ([`flags`]).
    pub flags: u8,
    pub seq: Seq,
    pub ack: Seq,
    pub var: VarArea,
    /// The ACC extension: the sender's congestion state, windows in packets.
    pub acc: Option<AccState>,
}

/// Bytes of the header without a variable area.
pub const FIXED_HEADER: usize = 18;
/// Bytes of a SYN's parameters.
pub const SYN_AREA: usize = 6;
/// Bytes of the ACC extension.
pub const ACC_AREA: usize = AccState::BYTES;
/// Bytes of one EACK entry.
pub const EACK_ENTRY: usize = 4;
/// The first octet's bit announcing the ACC extension.
pub const ACC_FLAG: u8 = 0x04;
/// The first octet's version bits.
pub const VERSION_MASK: u8 = 0x03;
/// The SDM bit of a SYN's options (RFC 908 4.3.2: bit 0, the most significant).
pub const SDM: u16 = 0x8000;

/// Bytes of the header of a segment with fields `f`.
pub fn header_len(f: &Fields) -> usize {
    let mut n = FIXED_HEADER;
    if f.flags & flags::SYN != 0 {
        n += SYN_AREA;
    }
    if f.acc.is_some() {
        n += ACC_AREA;
    }
    if f.flags & flags::EAK != 0 {
        n += f.var.eack_bits().count_ones() as usize * EACK_ENTRY;
    }
    n
}
