//! An RDP segment as bytes: RFC 1151's header (RFC 908's with 16-bit ports, the TCP
//! checksum and version 2), the variable area of SYN and EACK segments, and the ACC
//! extension. Every field is big-endian:
//!
//! ```text
//! offset size  field
//!      0    1  flags: SYN 0x80, ACK 0x40, EACK 0x20, RST 0x10, NUL 0x08, ACC 0x04 (this
//!              implementation's extension, RFC 908's unused bit 5), version 0x03 (= 2)
//!      1    1  header length, 2-octet units (9 = 18 bytes: no variable area)
//!      2    2  source port
//!      4    2  destination port
//!      6    2  data length, bytes after the header
//!      8    4  sequence number
//!     12    4  acknowledgement number
//!     16    2  checksum: RFC 1071's over header and data, this field taken as zero
//!     18       variable area, in this order, each part present only when its flag is:
//!           6    SYN: max. outstanding segments (2), max. segment size (2, RDP header and
//!                data), options (2; 0x8000 = SDM, sequenced delivery)
//!          16    ACC: cwnd (4, packets), ssthresh (4, packets), srtt (4, microseconds),
//!                flags (1; bit 0 slow start), reserved (3)  (`AccState::to_bytes`)
//!         4 n    EACK: n sequence numbers of segments received out of sequence
//!      h       data, `data length` bytes
//! ```
//!
//! [`decode`] checks the whole structure before it reads a field (length, version, header
//! length, data length, checksum, the parts the flags announce, and RFC 908's rules on
//! which segments may hold data: SYN, RST and NUL may not, SYN and RST go apart, an EACK
//! goes with an ACK). It returns a [`WireError`] for anything else and never panics, on any
//! input (`fuzz/fuzz_targets/rdp_segment.rs` runs it on millions; its corpus is replayed by
//! `crates/ccsim/tests/rdp_wire_corpus.rs`).
//!
//! EACK entries more than [`EACK_SPAN`](super::EACK_SPAN) + 1 above the ACK number, or
//! below it, are ignored (RFC 908 3.4.3 lets a sender ignore EACKs; see the module
//! documentation of [`super`]); so decoding then encoding gives the same header, not always
//! the same bytes.

use super::{flags, Fields, SynParams, VarArea, EACK_SPAN};
use crate::packet::checksum::{fold, sum};
use crate::packet::Seq;
use crate::packet::{AccState, Endpoints, FlowId, Kind, NodeId, Packet};
use crate::sim::SimTime;
use std::fmt;

/// RDP's version number (RFC 1151).
pub const VERSION: u8 = 2;
pub use crate::packet::rdp::{header_len, ACC_AREA, ACC_FLAG, EACK_ENTRY, FIXED_HEADER, SDM, SYN_AREA, VERSION_MASK};
/// The longest header this implementation writes.
pub const MAX_HEADER: usize = FIXED_HEADER + SYN_AREA + ACC_AREA + EACK_SPAN as usize * EACK_ENTRY;
// The header length field (2-octet units, 8 bits) can describe every header written.
const _: () = assert!(MAX_HEADER <= 255 * 2);

/// An RDP header: the ports and the fields the simulator's packets carry. The data length
/// is the length of the data that goes with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub sport: u16,
    pub dport: u16,
    pub fields: Fields,
}

/// Why bytes are not an RDP segment, or a segment does not fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Shorter than the fixed header.
    Short {
        len: usize,
    },
    /// A version other than 2.
    Version(u8),
    /// A header length (2-octet units) below 9 or beyond the bytes given.
    HeaderLength(u8),
    /// The header and the data length do not add up to the bytes given.
    DataLength {
        declared: u16,
        actual: usize,
    },
    Checksum {
        stored: u16,
        computed: u16,
    },
    /// The header's parts do not agree with its flags, or the flags with the data.
    Malformed(&'static str),
    /// Encoding: the buffer cannot hold the segment's `need` bytes.
    BufferTooSmall {
        need: usize,
    },
    /// Encoding: more data than a data length can say.
    DataTooLong(usize),
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            WireError::Short { len } => write!(f, "{len} bytes, shorter than an RDP header ({FIXED_HEADER})"),
            WireError::Version(v) => write!(f, "RDP version {v}, expected {VERSION}"),
            WireError::HeaderLength(h) => write!(f, "header length {h} (2-octet units) out of range"),
            WireError::DataLength { declared, actual } => write!(f, "data length {declared} but {actual} bytes of data"),
            WireError::Checksum { stored, computed } => write!(f, "checksum {stored:#06x}, computed {computed:#06x}"),
            WireError::Malformed(what) => write!(f, "malformed segment: {what}"),
            WireError::BufferTooSmall { need } => write!(f, "buffer too small for a {need}-byte segment"),
            WireError::DataTooLong(n) => write!(f, "{n} bytes of data, more than a segment holds"),
        }
    }
}

impl std::error::Error for WireError {}

impl Header {
    /// The header of an RDP packet of the simulator.
    pub fn of(pkt: &Packet) -> Header {
        Header { sport: pkt.sport, dport: pkt.dport, fields: pkt.rdp_fields() }
    }

    /// The simulator's packet for this header with `payload` bytes of data, from `src` to
    /// `dst`: a `Kind::RdpData` when it travels from the flow's sender, a `Kind::RdpAck`
    /// when from its receiver.
    #[allow(clippy::too_many_arguments)] // the addressing the header lacks, each named
    pub fn packet(&self, kind: Kind, flow: FlowId, src: NodeId, dst: NodeId, payload: u32, ttl: u8, now: SimTime) -> Packet {
        let ends = if kind == Kind::RdpAck {
            Endpoints { flow, sender: dst, receiver: src, sport: self.dport, dport: self.sport }
        } else {
            Endpoints { flow, sender: src, receiver: dst, sport: self.sport, dport: self.dport }
        };
        Packet::rdp(kind, &ends, self.fields, payload, ttl, now)
    }
}

/// Writes the segment `h` with `data` into `buf`; returns its length.
pub fn encode(h: &Header, data: &[u8], buf: &mut [u8]) -> Result<usize, WireError> {
    let hl = header_len(&h.fields);
    let need = hl + data.len();
    if buf.len() < need {
        return Err(WireError::BufferTooSmall { need });
    }
    let data_len = u16::try_from(data.len()).map_err(|_| WireError::DataTooLong(data.len()))?;
    buf[hl..need].copy_from_slice(data);
    write_header(h, data_len, sum(data), buf)?;
    Ok(need)
}

/// Writes the header of `h` for `data_len` bytes of data whose unfolded word sum is
/// `data_sum` (zero for zeros), checksum included; returns the header's length. The header
/// length is even, so the data's words are the segment's.
pub(crate) fn write_header(h: &Header, data_len: u16, data_sum: u32, buf: &mut [u8]) -> Result<usize, WireError> {
    let f = &h.fields;
    let hl = header_len(f);
    if buf.len() < hl {
        return Err(WireError::BufferTooSmall { need: hl });
    }
    let b = &mut buf[..hl];
    b[0] = (f.flags & flags::ALL) | if f.acc.is_some() { ACC_FLAG } else { 0 } | VERSION;
    b[1] = (hl / 2) as u8;
    b[2..4].copy_from_slice(&h.sport.to_be_bytes());
    b[4..6].copy_from_slice(&h.dport.to_be_bytes());
    b[6..8].copy_from_slice(&data_len.to_be_bytes());
    b[8..12].copy_from_slice(&f.seq.0.to_be_bytes());
    b[12..16].copy_from_slice(&f.ack.0.to_be_bytes());
    b[16..18].fill(0);
    let mut at = FIXED_HEADER;
    if f.flags & flags::SYN != 0 {
        let p = f.var.syn_params();
        b[at..at + 2].copy_from_slice(&p.max_outstanding.to_be_bytes());
        b[at + 2..at + 4].copy_from_slice(&p.max_segment.to_be_bytes());
        b[at + 4..at + 6].copy_from_slice(&(if p.sequenced { SDM } else { 0 }).to_be_bytes());
        at += SYN_AREA;
    }
    if let Some(acc) = f.acc {
        b[at..at + ACC_AREA].copy_from_slice(&acc.to_bytes());
        at += ACC_AREA;
    }
    if f.flags & flags::EAK != 0 {
        for s in super::eacked(f.ack, f.var.eack_bits()) {
            b[at..at + EACK_ENTRY].copy_from_slice(&s.0.to_be_bytes());
            at += EACK_ENTRY;
        }
    }
    let check = !fold(sum(b) + data_sum);
    b[16..18].copy_from_slice(&check.to_be_bytes());
    Ok(hl)
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([b[i], b[i + 1]])
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// Reads one segment, which must be all of `b`: its header and its data.
pub fn decode(b: &[u8]) -> Result<(Header, &[u8]), WireError> {
    if b.len() < FIXED_HEADER {
        return Err(WireError::Short { len: b.len() });
    }
    let version = b[0] & VERSION_MASK;
    if version != VERSION {
        return Err(WireError::Version(version));
    }
    let hl = b[1] as usize * 2;
    if hl < FIXED_HEADER || hl > b.len() {
        return Err(WireError::HeaderLength(b[1]));
    }
    let declared = u16_at(b, 6);
    if hl + declared as usize != b.len() {
        return Err(WireError::DataLength { declared, actual: b.len() - hl });
    }
    let stored = u16_at(b, 16);
    let computed = !fold(sum(&b[..16]) + sum(&b[18..]));
    if stored != computed {
        return Err(WireError::Checksum { stored, computed });
    }
    let fl = b[0] & flags::ALL;
    let has = |f: u8| fl & f != 0;
    if has(flags::SYN) && has(flags::RST) {
        return Err(WireError::Malformed("SYN and RST in one segment"));
    }
    if has(flags::SYN) && has(flags::EAK) {
        return Err(WireError::Malformed("EACKs in a SYN"));
    }
    if has(flags::EAK) && !has(flags::ACK) {
        return Err(WireError::Malformed("EACKs without an ACK"));
    }
    if declared > 0 && (has(flags::SYN) || has(flags::RST) || has(flags::NUL)) {
        return Err(WireError::Malformed("data in a SYN, RST or NUL segment"));
    }
    let (seq, ack) = (Seq(u32_at(b, 8)), Seq(u32_at(b, 12)));
    let mut at = FIXED_HEADER;
    let mut var = VarArea::NONE;
    if has(flags::SYN) {
        if at + SYN_AREA > hl {
            return Err(WireError::Malformed("SYN parameters missing"));
        }
        let sequenced = u16_at(b, at + 4) & SDM != 0;
        var = VarArea::syn(SynParams { max_outstanding: u16_at(b, at), max_segment: u16_at(b, at + 2), sequenced });
        at += SYN_AREA;
    }
    let mut acc = None;
    if b[0] & ACC_FLAG != 0 {
        if at + ACC_AREA > hl {
            return Err(WireError::Malformed("ACC extension missing"));
        }
        let mut block = [0; ACC_AREA];
        block.copy_from_slice(&b[at..at + ACC_AREA]);
        acc = Some(AccState::from_bytes(&block));
        at += ACC_AREA;
    }
    let rest = hl - at;
    if has(flags::EAK) {
        if !rest.is_multiple_of(EACK_ENTRY) {
            return Err(WireError::Malformed("EACK list not a whole number of entries"));
        }
        let mut bits = 0u64;
        for i in (at..hl).step_by(EACK_ENTRY) {
            let d = Seq(u32_at(b, i)).diff(ack) as i64 - 2;
            if (0..EACK_SPAN as i64).contains(&d) {
                bits |= 1 << d;
            }
        }
        var = VarArea::eacks(bits);
    } else if rest != 0 {
        return Err(WireError::Malformed("bytes in the header that no flag announces"));
    }
    let header = Header { sport: u16_at(b, 2), dport: u16_at(b, 4), fields: Fields { flags: fl, seq, ack, var, acc } };
    Ok((header, &b[hl..]))
}

/// The property the fuzz target (`fuzz/fuzz_targets/rdp_segment.rs`) and the corpus test
/// (`tests/rdp_wire_corpus.rs`) check on any bytes: [`decode`] returns (it never panics),
/// and what it decodes encodes again, to bytes that decode to the same header and data, and
/// makes a packet whose header is the same. Returns the decoded header and data length, or
/// the error; panics when the property fails.
#[doc(hidden)]
pub fn check_round_trip(bytes: &[u8]) -> Result<(Header, usize), WireError> {
    let (h, data) = decode(bytes)?;
    let mut buf = vec![0; MAX_HEADER + data.len()];
    let n = encode(&h, data, &mut buf).unwrap_or_else(|e| panic!("a decoded segment does not encode: {e}"));
    assert_eq!(decode(&buf[..n]), Ok((h, data)), "decode(encode(decode(x))) != decode(x)");
    let pkt = h.packet(Kind::RdpData, 0, 1, 2, data.len() as u32, 64, SimTime::ZERO);
    assert_eq!(Header::of(&pkt), h, "a packet keeps the header");
    assert_eq!(pkt.size as usize, crate::packet::IP_HEADER as usize + n, "a packet's size is the segment's");
    Ok((h, data.len()))
}

/// One fuzz input: [`check_round_trip`] on `bytes`, then on a copy whose checksum is made
/// right, so that mutations reach the checks behind the checksum's.
#[doc(hidden)]
pub fn fuzz_input(bytes: &[u8]) {
    let _ = check_round_trip(bytes);
    if bytes.len() >= FIXED_HEADER {
        let mut b = bytes.to_vec();
        b[16..18].fill(0);
        let c = !fold(sum(&b));
        b[16..18].copy_from_slice(&c.to_be_bytes());
        let _ = check_round_trip(&b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(fl: u8, var: VarArea, acc: Option<AccState>) -> Header {
        Header { sport: 10_000, dport: 80, fields: Fields { flags: fl, seq: Seq(0x0102_0304), ack: Seq(100), var, acc } }
    }

    fn bytes(h: &Header, data: &[u8]) -> Vec<u8> {
        let mut buf = vec![0; 2048];
        let n = encode(h, data, &mut buf).unwrap();
        buf.truncate(n);
        buf
    }

    #[test]
    fn fixed_header_layout_follows_rfc1151() {
        let b = bytes(&header(flags::ACK, VarArea::NONE, None), b"hello");
        assert_eq!(b.len(), 18 + 5);
        assert_eq!(b[0], 0x40 | 2, "ACK, version 2");
        assert_eq!(b[1], 9, "nine 2-octet units");
        assert_eq!(&b[2..8], &[0x27, 0x10, 0, 80, 0, 5]);
        assert_eq!(&b[8..16], &[1, 2, 3, 4, 0, 0, 0, 100]);
        assert_eq!(fold(sum(&b)), 0xffff, "the checksum makes the segment's sum all ones");
        assert_eq!(&b[18..], b"hello");
    }

    #[test]
    fn syn_parameters_acc_extension_and_eacks() {
        let syn = VarArea::syn(SynParams { max_outstanding: 300, max_segment: 1100, sequenced: true });
        let b = bytes(&header(flags::SYN | flags::ACK, syn, None), &[]);
        assert_eq!((b[0], b[1], b.len()), (0xc2, 12, 24));
        assert_eq!(&b[18..24], &[1, 44, 4, 76, 0x80, 0]);
        let acc = AccState { cwnd: 7, ssthresh: 9, srtt_us: 120_000, slow_start: true, fast_recovery: true };
        let b = bytes(&header(flags::ACK, VarArea::NONE, Some(acc)), &[0; 10]);
        assert_eq!((b[0], b[1]), (0x40 | ACC_FLAG | 2, 17));
        assert_eq!(&b[18..34], &acc.to_bytes());
        // EACKs for segments 102 and 104..=105 above ACK 100, ascending.
        let b = bytes(&header(flags::ACK | flags::EAK, VarArea::eacks(0b1101), None), &[]);
        assert_eq!((b[0], b[1], b.len()), (0x62, 15, 30));
        assert_eq!(&b[18..], &[0, 0, 0, 102, 0, 0, 0, 104, 0, 0, 0, 105]);
    }

    #[test]
    fn decode_inverts_encode() {
        let acc = Some(AccState { cwnd: 12, ssthresh: 6, srtt_us: 1, slow_start: false, fast_recovery: false });
        let syn = VarArea::syn(SynParams { max_outstanding: 64, max_segment: 1034, sequenced: false });
        let data = [7u8; 33];
        for (h, d) in [
            (header(flags::SYN, syn, None), &[][..]),
            (header(flags::ACK, VarArea::NONE, acc), &data[..]),
            (header(flags::ACK | flags::EAK, VarArea::eacks(u64::MAX), None), &[][..]),
            (header(flags::ACK | flags::EAK, VarArea::eacks(1 << 63 | 1), acc), &data[..3]),
            (header(flags::RST, VarArea::NONE, None), &[][..]),
            (header(flags::NUL | flags::ACK, VarArea::NONE, None), &[][..]),
        ] {
            let b = bytes(&h, d);
            assert_eq!(b.len(), header_len(&h.fields) + d.len());
            assert_eq!(decode(&b), Ok((h, d)), "{h:?}");
        }
    }

    #[test]
    fn the_packet_of_a_header_is_sized_and_addressed_by_direction() {
        let h = header(flags::ACK | flags::EAK, VarArea::eacks(0b11), None);
        let p = h.packet(Kind::RdpAck, 4, 7, 3, 0, 64, SimTime::ZERO);
        assert_eq!((p.src, p.dst, p.sport, p.dport, p.size), (7, 3, 10_000, 80, 20 + 18 + 8));
        assert_eq!(Header::of(&p), h);
        let d = header(flags::ACK, VarArea::NONE, Some(AccState::default())).packet(Kind::RdpData, 4, 3, 7, 1000, 64, SimTime::ZERO);
        assert_eq!((d.src, d.dst, d.sport, d.payload, d.size), (3, 7, 10_000, 1000, 20 + 18 + 16 + 1000));
    }

    #[test]
    fn eack_entries_out_of_reach_are_ignored() {
        let mut b = bytes(&header(flags::ACK | flags::EAK, VarArea::eacks(1), None), &[]);
        // Rewrite the entry (102) to 101 (the missing segment), then 166 (beyond the span),
        // then 165 (the last bit), fixing the checksum each time.
        for (entry, bits) in [(101u32, 0u64), (100, 0), (99, 0), (166, 0), (165, 1 << 63)] {
            b[18..22].copy_from_slice(&entry.to_be_bytes());
            b[16..18].fill(0);
            let c = !fold(sum(&b));
            b[16..18].copy_from_slice(&c.to_be_bytes());
            assert_eq!(decode(&b).unwrap().0.fields.var.eack_bits(), bits, "entry {entry}");
        }
    }

    #[test]
    fn every_malformation_is_an_error() {
        let good = bytes(&header(flags::ACK, VarArea::NONE, None), b"abcd");
        let with = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut b = good.clone();
            f(&mut b);
            decode(&b).map(|(h, d)| (h, d.len()))
        };
        // Re-checksums after a change, so that the structural check is the one that fails.
        let fix = |b: &mut Vec<u8>| {
            b[16..18].fill(0);
            let c = !fold(sum(b));
            b[16..18].copy_from_slice(&c.to_be_bytes());
        };
        assert_eq!(decode(&good[..17]), Err(WireError::Short { len: 17 }));
        assert_eq!(with(&|_| {}).map(|(_, n)| n), Ok(4));
        assert_eq!(with(&|b| b[0] = 0x41), Err(WireError::Version(1)));
        assert_eq!(with(&|b| b[1] = 8), Err(WireError::HeaderLength(8)));
        assert_eq!(with(&|b| b[1] = 12), Err(WireError::HeaderLength(12)), "beyond the 22 bytes given");
        assert_eq!(with(&|b| b[7] = 5), Err(WireError::DataLength { declared: 5, actual: 4 }));
        assert_eq!(with(&|b| b.push(0)), Err(WireError::DataLength { declared: 4, actual: 5 }));
        assert!(matches!(with(&|b| b[20] ^= 1), Err(WireError::Checksum { .. })));
        let malformed = |f: &dyn Fn(&mut Vec<u8>)| {
            with(&|b| {
                f(b);
                fix(b)
            })
        };
        assert_eq!(malformed(&|b| b[0] = 0x82 | 0x10), Err(WireError::Malformed("SYN and RST in one segment")));
        assert_eq!(malformed(&|b| b[0] = 0x10 | 2), Err(WireError::Malformed("data in a SYN, RST or NUL segment")));
        assert_eq!(malformed(&|b| b[0] = 0x08 | 0x40 | 2), Err(WireError::Malformed("data in a SYN, RST or NUL segment")));
        assert_eq!(malformed(&|b| b[0] = 0x20 | 2), Err(WireError::Malformed("EACKs without an ACK")));
        assert_eq!(malformed(&|b| b[0] = 0x80 | 0x20 | 0x40 | 2), Err(WireError::Malformed("EACKs in a SYN")));
        // Header parts announced but missing, or present but not announced: the 4 data
        // bytes become header (length 11 units, no data).
        let as_header = |first: u8| {
            malformed(&|b| {
                b[0] = first;
                b[1] = 11;
                b[7] = 0;
            })
        };
        assert_eq!(as_header(0x80 | 2), Err(WireError::Malformed("SYN parameters missing")));
        assert_eq!(as_header(0x40 | ACC_FLAG | 2), Err(WireError::Malformed("ACC extension missing")));
        assert_eq!(as_header(0x40 | 2), Err(WireError::Malformed("bytes in the header that no flag announces")));
        assert!(as_header(0x60 | 2).is_ok(), "one EACK entry");
        let odd = malformed(&|b| {
            b[0] = 0x62;
            b[1] = 10;
            b[7] = 2;
        });
        assert_eq!(odd, Err(WireError::Malformed("EACK list not a whole number of entries")));
    }

    #[test]
    fn encoding_checks_its_buffer_and_the_data_length() {
        let h = header(flags::ACK, VarArea::NONE, None);
        assert_eq!(encode(&h, &[1; 10], &mut [0; 27]), Err(WireError::BufferTooSmall { need: 28 }));
        let big = vec![0; 70_000];
        assert_eq!(encode(&h, &big, &mut vec![0; 80_000]), Err(WireError::DataTooLong(70_000)));
    }
}
