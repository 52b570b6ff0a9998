//! The overlay's datagram format: one VNet datagram per UDP datagram.
//!
//! Every field is big-endian. A datagram is a 16-byte header, a body whose layout the type
//! gives, and a 16-byte keyed MAC over everything before it: always for the two packets
//! that change what a node or a sender does (ACC controls and filter requests), and for RDP
//! segments when the run has a key (flag bit 0):
//!
//! ```text
//! header   0  magic "CV"          2   0x43 0x56
//!          2  version             1   1
//!          3  type                1   1 RDP segment, 2 ACC control, 3 ACC filter request
//!          4  source address      4   virtual address 10.a.b.c of the node that made it
//!          8  destination address 4
//!         12  ttl                 1   decremented by every router; 0 is discarded
//!         13  flags               1   bit 0: a MAC follows the body (set on every datagram of a run with a key)
//!         14  body length         2   bytes after the header, MAC excluded
//! RDP     16  the RDP segment (crate::rdp's wire format), `body length` bytes
//!             [MAC 16, with flag bit 0]
//! control 16  connection          12  data direction: source, destination address; source, destination port
//!         28  nonce               8   strictly increasing per sending node (replay protection)
//!         36  seq                 4   the dropped segment's sequence number
//!         40  cwnd, ssthresh      8   the window the sender is to take, packets
//!         48  srtt                4   microseconds, as the dropped segment carried it
//!         52  flags               1   bit 0: slow start
//!         53  reserved            3
//!         56  MAC                 16
//! filter  16  connection          12
//!         28  nonce               8
//!         36  carried             4   the window the dropped segment carried, packets
//!         40  remaining           4   segments to discard
//!         44  lifetime            4   microseconds the filter works at most
//!         48  cwnd, ssthresh      8   the new congestion state sent to the sender
//!         56  flags               1   bit 0: the dropped segment's slow start, bit 1: the new one's
//!         57  reserved            3
//!         60  MAC                 16
//! ```
//!
//! The MAC is HMAC-SHA-256 (RFC 2104) truncated to its first 128 bits, as RFC 4868 does for
//! IPsec, over the header (its TTL taken as zero, since routers decrement it) and the body.
//! Its key is the run's: HMAC-SHA-256 of the scenario's key and the run's identifier (the
//! start time every node of the run is given, in unix nanoseconds), so that nothing sent in
//! one run verifies in another, whose nodes start their replay counters afresh
//! ([`Auth::new`]). [`decode`] checks the structure of any byte string and never panics (a
//! fuzz target and its corpus test this); [`Auth::verify`] checks the MAC in constant time.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt;

pub const MAGIC: [u8; 2] = *b"CV";
pub const VERSION: u8 = 1;
pub const HEADER: usize = 16;
pub const MAC_LEN: usize = 16;
/// Largest datagram a node sends or accepts.
pub const MAX_DATAGRAM: usize = 2048;
/// Bytes of an ACC control body, MAC excluded.
pub const CONTROL_BODY: usize = 40;
/// Bytes of a filter-request body, MAC excluded.
pub const FILTER_BODY: usize = 44;
/// Bytes the IPv4 and UDP headers of the underlying network add to a datagram; the link
/// emulation counts them, so a datagram occupies a link as an IP packet of the same size.
pub const UDP_IP_OVERHEAD: u32 = 28;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Type {
    Rdp = 1,
    AccControl = 2,
    FilterRequest = 3,
    /// A datagram of a constant-rate (UDP) source: ports, sequence number, payload.
    Udp = 4,
}

/// Flag bit 0 of the header: a MAC follows the body.
pub const FLAG_MAC: u8 = 1;

/// The 16-byte header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub ty: Type,
    pub src: u32,
    pub dst: u32,
    pub ttl: u8,
    pub len: u16,
    /// Whether a MAC follows the body (always for controls and filter requests).
    pub mac: bool,
}

/// One RDP connection, named as its data travels: source address and port to destination
/// address and port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conn {
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
}

/// An ACC control: the congested node tells the sender of `conn` to take this state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Control {
    pub conn: Conn,
    pub nonce: u64,
    pub seq: u32,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt_us: u32,
    pub slow_start: bool,
}

/// An ACC filter request: the congested node asks the node before it to filter `conn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilterRequest {
    pub conn: Conn,
    pub nonce: u64,
    pub carried: u32,
    pub remaining: u32,
    pub lifetime_us: u32,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub carried_slow_start: bool,
    pub slow_start: bool,
}

/// What a datagram carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body<'a> {
    Rdp(&'a [u8]),
    Control(Control),
    Filter(FilterRequest),
    Udp(UdpBody<'a>),
}

/// The body of a UDP source's datagram: its ports, its sequence number (from 0) and its
/// payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpBody<'a> {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub payload: &'a [u8],
}

/// Bytes of a UDP body before its payload.
pub const UDP_BODY: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datagram<'a> {
    pub header: Header,
    pub body: Body<'a>,
}

/// Why a datagram was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    Short,
    Magic,
    Version,
    Type,
    /// The body length disagrees with the datagram or the type.
    Length,
    /// The MAC is missing or wrong.
    Mac,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            WireError::Short => "shorter than a header",
            WireError::Magic => "not a ccsim datagram",
            WireError::Version => "unknown version",
            WireError::Type => "unknown type",
            WireError::Length => "length does not match",
            WireError::Mac => "bad MAC",
        })
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    (u32_at(b, at) as u64) << 32 | u32_at(b, at + 4) as u64
}

/// The header of `buf`, checked against its length; the body is not looked at.
pub fn header(buf: &[u8]) -> Result<Header, WireError> {
    if buf.len() < HEADER {
        return Err(WireError::Short);
    }
    if buf[0..2] != MAGIC {
        return Err(WireError::Magic);
    }
    if buf[2] != VERSION {
        return Err(WireError::Version);
    }
    let ty = match buf[3] {
        1 => Type::Rdp,
        2 => Type::AccControl,
        3 => Type::FilterRequest,
        4 => Type::Udp,
        _ => return Err(WireError::Type),
    };
    let len = u16_at(buf, 14);
    let mac = authenticated(ty) || buf[13] & FLAG_MAC != 0;
    let expect = match ty {
        Type::Rdp => HEADER + len as usize,
        Type::Udp if len as usize >= UDP_BODY => HEADER + len as usize,
        Type::AccControl if len as usize == CONTROL_BODY => HEADER + CONTROL_BODY,
        Type::FilterRequest if len as usize == FILTER_BODY => HEADER + FILTER_BODY,
        _ => return Err(WireError::Length),
    } + if mac { MAC_LEN } else { 0 };
    if buf.len() != expect {
        return Err(WireError::Length);
    }
    Ok(Header { ty, src: u32_at(buf, 4), dst: u32_at(buf, 8), ttl: buf[12], len, mac })
}

fn conn_at(b: &[u8], at: usize) -> Conn {
    Conn { src: u32_at(b, at), dst: u32_at(b, at + 4), sport: u16_at(b, at + 8), dport: u16_at(b, at + 10) }
}

/// Decodes `buf` (the MAC, if the type has one, is not checked: see [`Auth::verify`]).
pub fn decode(buf: &[u8]) -> Result<Datagram<'_>, WireError> {
    let header = header(buf)?;
    let b = &buf[HEADER..];
    let body = match header.ty {
        Type::Rdp => Body::Rdp(&b[..header.len as usize]),
        Type::Udp => Body::Udp(UdpBody { sport: u16_at(b, 0), dport: u16_at(b, 2), seq: u32_at(b, 4), payload: &b[UDP_BODY..header.len as usize] }),
        Type::AccControl => Body::Control(Control {
            conn: conn_at(b, 0),
            nonce: u64_at(b, 12),
            seq: u32_at(b, 20),
            cwnd: u32_at(b, 24),
            ssthresh: u32_at(b, 28),
            srtt_us: u32_at(b, 32),
            slow_start: b[36] & 1 != 0,
        }),
        Type::FilterRequest => Body::Filter(FilterRequest {
            conn: conn_at(b, 0),
            nonce: u64_at(b, 12),
            carried: u32_at(b, 20),
            remaining: u32_at(b, 24),
            lifetime_us: u32_at(b, 28),
            cwnd: u32_at(b, 32),
            ssthresh: u32_at(b, 36),
            carried_slow_start: b[40] & 1 != 0,
            slow_start: b[40] & 2 != 0,
        }),
    };
    Ok(Datagram { header, body })
}

/// Writes a header for a body of `len` bytes into `buf[..HEADER]`, with flag bit 0 (a MAC
/// follows) set for every type that has one and for an RDP segment when `mac` says.
pub fn put_header(buf: &mut [u8], ty: Type, src: u32, dst: u32, ttl: u8, len: u16, mac: bool) {
    buf[0..2].copy_from_slice(&MAGIC);
    buf[2] = VERSION;
    buf[3] = ty as u8;
    buf[4..8].copy_from_slice(&src.to_be_bytes());
    buf[8..12].copy_from_slice(&dst.to_be_bytes());
    buf[12] = ttl;
    buf[13] = if mac || authenticated(ty) { FLAG_MAC } else { 0 };
    buf[14..16].copy_from_slice(&len.to_be_bytes());
}

/// Decrements the TTL of an encoded datagram in place; false if it reached zero.
pub fn decrement_ttl(buf: &mut [u8]) -> bool {
    if buf.len() < HEADER || buf[12] <= 1 {
        return false;
    }
    buf[12] -= 1;
    true
}

fn put_conn(b: &mut [u8], c: &Conn) {
    b[0..4].copy_from_slice(&c.src.to_be_bytes());
    b[4..8].copy_from_slice(&c.dst.to_be_bytes());
    b[8..10].copy_from_slice(&c.sport.to_be_bytes());
    b[10..12].copy_from_slice(&c.dport.to_be_bytes());
}

/// Encodes an RDP segment's datagram into `buf`, with a MAC when `auth` is given; returns
/// its length, or None if the segment does not fit.
pub fn encode_rdp(buf: &mut [u8], src: u32, dst: u32, ttl: u8, segment: &[u8], auth: Option<&Auth>) -> Option<usize> {
    encode_body(buf, Type::Rdp, src, dst, ttl, segment, auth)
}

/// Encodes a datagram of type `ty` (RDP or UDP: a MAC only with a key) whose body is
/// `body`; returns its length, or None if it does not fit.
pub fn encode_body(buf: &mut [u8], ty: Type, src: u32, dst: u32, ttl: u8, body: &[u8], auth: Option<&Auth>) -> Option<usize> {
    let n = HEADER + body.len();
    if n + auth.map_or(0, |_| MAC_LEN) > buf.len().min(MAX_DATAGRAM) {
        return None;
    }
    put_header(buf, ty, src, dst, ttl, body.len() as u16, auth.is_some());
    buf[HEADER..n].copy_from_slice(body);
    Some(match auth {
        Some(a) => a.seal(buf, n),
        None => n,
    })
}

/// The run's MAC key; a node without one neither sends nor accepts controls, and sends RDP
/// segments without a MAC.
#[derive(Clone)]
pub struct Auth {
    mac: Hmac<Sha256>,
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("Auth(..)")
    }
}

impl Auth {
    /// The MAC key of run `run` (its identifier: the start time every node is given, unix
    /// nanoseconds) from the scenario's `key` of at least 16 bytes: HMAC-SHA-256 of the key
    /// and "ccsim-live run" with the identifier, so that what one run sends does not verify
    /// in another.
    pub fn new(key: &[u8], run: u64) -> Result<Auth, String> {
        if key.len() < 16 {
            return Err(format!("the MAC key has {} bytes; give at least 16", key.len()));
        }
        let mut derive = Hmac::<Sha256>::new_from_slice(key).map_err(|e| e.to_string())?;
        derive.update(b"ccsim-live run");
        derive.update(&run.to_be_bytes());
        let run_key = derive.finalize().into_bytes();
        Ok(Auth { mac: Hmac::<Sha256>::new_from_slice(&run_key).map_err(|e| e.to_string())? })
    }

    /// The MAC over `data` (a header and a body) with the TTL taken as zero: routers
    /// decrement the TTL of a control on its way to the sender.
    fn keyed(&self, data: &[u8]) -> Hmac<Sha256> {
        let mut m = self.mac.clone();
        m.update(&data[..12]);
        m.update(&[0]);
        m.update(&data[13..]);
        m
    }

    fn tag(&self, data: &[u8]) -> [u8; MAC_LEN] {
        let full = self.keyed(data).finalize().into_bytes();
        let mut t = [0; MAC_LEN];
        t.copy_from_slice(&full[..MAC_LEN]);
        t
    }

    /// Whether `buf` (a whole datagram of an authenticated type) ends with the right MAC.
    pub fn verify(&self, buf: &[u8]) -> bool {
        let Some(split) = buf.len().checked_sub(MAC_LEN).filter(|&s| s >= HEADER) else { return false };
        self.keyed(&buf[..split]).verify_truncated_left(&buf[split..]).is_ok()
    }

    /// Encodes an ACC control from `src` to `dst` into `buf`; returns its length.
    pub fn encode_control(&self, buf: &mut [u8], src: u32, dst: u32, ttl: u8, c: &Control) -> usize {
        put_header(buf, Type::AccControl, src, dst, ttl, CONTROL_BODY as u16, true);
        let b = &mut buf[HEADER..HEADER + CONTROL_BODY];
        b.fill(0);
        put_conn(b, &c.conn);
        b[12..20].copy_from_slice(&c.nonce.to_be_bytes());
        b[20..24].copy_from_slice(&c.seq.to_be_bytes());
        b[24..28].copy_from_slice(&c.cwnd.to_be_bytes());
        b[28..32].copy_from_slice(&c.ssthresh.to_be_bytes());
        b[32..36].copy_from_slice(&c.srtt_us.to_be_bytes());
        b[36] = c.slow_start as u8;
        self.seal(buf, HEADER + CONTROL_BODY)
    }

    /// Encodes a filter request from `src` to `dst` into `buf`; returns its length.
    pub fn encode_filter(&self, buf: &mut [u8], src: u32, dst: u32, ttl: u8, f: &FilterRequest) -> usize {
        put_header(buf, Type::FilterRequest, src, dst, ttl, FILTER_BODY as u16, true);
        let b = &mut buf[HEADER..HEADER + FILTER_BODY];
        b.fill(0);
        put_conn(b, &f.conn);
        b[12..20].copy_from_slice(&f.nonce.to_be_bytes());
        b[20..24].copy_from_slice(&f.carried.to_be_bytes());
        b[24..28].copy_from_slice(&f.remaining.to_be_bytes());
        b[28..32].copy_from_slice(&f.lifetime_us.to_be_bytes());
        b[32..36].copy_from_slice(&f.cwnd.to_be_bytes());
        b[36..40].copy_from_slice(&f.ssthresh.to_be_bytes());
        b[40] = f.carried_slow_start as u8 | (f.slow_start as u8) << 1;
        self.seal(buf, HEADER + FILTER_BODY)
    }

    fn seal(&self, buf: &mut [u8], n: usize) -> usize {
        let tag = self.tag(&buf[..n]);
        buf[n..n + MAC_LEN].copy_from_slice(&tag);
        n + MAC_LEN
    }
}

/// Whether a decoded datagram's type is always authenticated (controls, filter requests).
pub fn authenticated(ty: Type) -> bool {
    matches!(ty, Type::AccControl | Type::FilterRequest)
}

/// What a node does with one received datagram before anything else: decode it and check
/// its MAC. With a key every datagram must carry the run's MAC, RDP segments too; without
/// one, controls and filter requests are refused and RDP segments taken as they are. The
/// fuzz target calls exactly this.
pub fn accept<'a>(buf: &'a [u8], auth: Option<&Auth>) -> Result<Datagram<'a>, WireError> {
    let d = decode(buf)?;
    let good = match auth {
        Some(a) => d.header.mac && a.verify(buf),
        None => !authenticated(d.header.ty),
    };
    if !good {
        return Err(WireError::Mac);
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONN: Conn = Conn { src: 0x0a00_0001, dst: 0x0a00_0005, sport: 1000, dport: 2000 };

    const RUN: u64 = 1_767_225_600_000_000_000;

    fn auth() -> Auth {
        Auth::new(b"0123456789abcdef-key", RUN).unwrap()
    }

    #[test]
    fn rdp_round_trip_and_ttl() {
        let mut buf = [0u8; 64];
        let n = encode_rdp(&mut buf, 1, 2, 2, b"segment", None).unwrap();
        assert_eq!(n, HEADER + 7);
        let d = decode(&buf[..n]).unwrap();
        assert_eq!(d.header, Header { ty: Type::Rdp, src: 1, dst: 2, ttl: 2, len: 7, mac: false });
        assert_eq!(d.body, Body::Rdp(b"segment"));
        assert!(decrement_ttl(&mut buf[..n]));
        assert!(!decrement_ttl(&mut buf[..n]), "a TTL of 1 is not forwarded");
        assert_eq!(decode(&buf[..n - 1]), Err(WireError::Length));
        assert_eq!(decode(&buf[..3]), Err(WireError::Short));
        assert!(encode_rdp(&mut buf, 1, 2, 2, &[0; 60], None).is_none());
        assert!(encode_rdp(&mut buf, 1, 2, 2, &[0; 40], Some(&auth())).is_none(), "no room for the MAC");
    }

    #[test]
    fn udp_round_trip_with_and_without_a_mac() {
        let mut buf = [0u8; MAX_DATAGRAM];
        let body = [0x12, 0x34, 0x00, 0x07, 0, 0, 0, 9, b'p', b'q'];
        let n = encode_body(&mut buf, Type::Udp, 1, 2, 64, &body, None).unwrap();
        let d = accept(&buf[..n], None).unwrap();
        assert_eq!(d.body, Body::Udp(UdpBody { sport: 0x1234, dport: 7, seq: 9, payload: b"pq" }));
        let a = auth();
        let n = encode_body(&mut buf, Type::Udp, 1, 2, 64, &body, Some(&a)).unwrap();
        assert!(accept(&buf[..n], Some(&a)).is_ok());
        buf[HEADER + 9] ^= 1;
        assert_eq!(accept(&buf[..n], Some(&a)), Err(WireError::Mac));
        let n = encode_body(&mut buf, Type::Udp, 1, 2, 64, &body[..5], None).unwrap();
        assert_eq!(decode(&buf[..n]), Err(WireError::Length), "shorter than a UDP body");
    }

    #[test]
    fn control_and_filter_round_trip_with_their_macs() {
        let a = auth();
        let c = Control { conn: CONN, nonce: 77, seq: 9, cwnd: 4, ssthresh: 4, srtt_us: 120_000, slow_start: false };
        let mut buf = [0u8; MAX_DATAGRAM];
        let n = a.encode_control(&mut buf, 3, 1, 64, &c);
        assert_eq!(n, HEADER + CONTROL_BODY + MAC_LEN);
        assert_eq!(accept(&buf[..n], Some(&a)).unwrap().body, Body::Control(c));
        let f = FilterRequest {
            conn: CONN,
            nonce: 78,
            carried: 9,
            remaining: 5,
            lifetime_us: 240_000,
            cwnd: 4,
            ssthresh: 4,
            carried_slow_start: true,
            slow_start: false,
        };
        let n = a.encode_filter(&mut buf, 3, 2, 64, &f);
        assert_eq!(n, HEADER + FILTER_BODY + MAC_LEN);
        assert_eq!(accept(&buf[..n], Some(&a)).unwrap().body, Body::Filter(f));
    }

    #[test]
    fn a_wrong_key_a_flipped_bit_or_no_key_is_refused() {
        let a = auth();
        let c = Control { conn: CONN, nonce: 1, seq: 0, cwnd: 2, ssthresh: 2, srtt_us: 1, slow_start: false };
        let mut buf = [0u8; MAX_DATAGRAM];
        let n = a.encode_control(&mut buf, 3, 1, 64, &c);
        let other = Auth::new(b"another key of 16+ bytes", RUN).unwrap();
        assert_eq!(accept(&buf[..n], Some(&other)), Err(WireError::Mac));
        assert_eq!(accept(&buf[..n], None), Err(WireError::Mac));
        for bit in [0, 8 * 5, 8 * 20 + 3, 8 * (n - 1)] {
            let mut b = buf;
            b[bit / 8] ^= 1 << (bit % 8);
            assert!(accept(&b[..n], Some(&a)).is_err(), "bit {bit}");
        }
        // Everything but the TTL is covered: routers decrement it on the way.
        let mut b = buf;
        assert!(decrement_ttl(&mut b[..n]));
        assert!(accept(&b[..n], Some(&a)).is_ok());
        assert!(Auth::new(b"short", RUN).is_err());
    }

    #[test]
    fn what_one_run_sends_does_not_verify_in_another() {
        let (this_run, next_run) = (auth(), Auth::new(b"0123456789abcdef-key", RUN + 1).unwrap());
        let c = Control { conn: CONN, nonce: 1, seq: 0, cwnd: 2, ssthresh: 2, srtt_us: 1, slow_start: false };
        let mut buf = [0u8; MAX_DATAGRAM];
        let n = this_run.encode_control(&mut buf, 3, 1, 64, &c);
        assert!(accept(&buf[..n], Some(&this_run)).is_ok());
        assert_eq!(accept(&buf[..n], Some(&next_run)), Err(WireError::Mac), "a control replayed into the next run");
        let n = encode_rdp(&mut buf, 1, 2, 64, b"an RST from the last run", Some(&this_run)).unwrap();
        assert_eq!(n, HEADER + 24 + MAC_LEN);
        assert_eq!(accept(&buf[..n], Some(&this_run)).unwrap().body, Body::Rdp(b"an RST from the last run"));
        assert_eq!(accept(&buf[..n], Some(&next_run)), Err(WireError::Mac), "a segment replayed into the next run");
    }

    #[test]
    fn with_a_key_rdp_segments_are_authenticated_end_to_end() {
        let a = auth();
        let mut buf = [0u8; MAX_DATAGRAM];
        let n = encode_rdp(&mut buf, 1, 2, 64, b"data of a segment", Some(&a)).unwrap();
        // Any flipped bit (but the TTL's) is refused: 2^-128, not a 16-bit checksum's 2^-16.
        for bit in 0..8 * n {
            if bit / 8 == 12 {
                continue;
            }
            let mut b = buf;
            b[bit / 8] ^= 1 << (bit % 8);
            assert!(accept(&b[..n], Some(&a)).is_err(), "bit {bit}");
        }
        let mut b = buf;
        assert!(decrement_ttl(&mut b[..n]) && accept(&b[..n], Some(&a)).is_ok(), "routers decrement the TTL");
        // A segment without a MAC, or with the flag cleared, is refused where there is a key;
        // without a key an unauthenticated segment is taken as before.
        let m = encode_rdp(&mut buf, 1, 2, 64, b"data of a segment", None).unwrap();
        assert_eq!(accept(&buf[..m], Some(&a)), Err(WireError::Mac));
        assert!(accept(&buf[..m], None).is_ok());
        let n = encode_rdp(&mut buf, 1, 2, 64, b"data of a segment", Some(&a)).unwrap();
        buf[13] = 0;
        assert_eq!(accept(&buf[..n], Some(&a)), Err(WireError::Length), "the MAC is then taken as body");
    }

    #[test]
    fn every_prefix_and_garbage_is_refused_without_panic() {
        let a = auth();
        let mut buf = [0u8; MAX_DATAGRAM];
        let f = FilterRequest {
            conn: CONN,
            nonce: 1,
            carried: 9,
            remaining: 5,
            lifetime_us: 1,
            cwnd: 4,
            ssthresh: 4,
            carried_slow_start: false,
            slow_start: false,
        };
        let n = a.encode_filter(&mut buf, 3, 2, 64, &f);
        for k in 0..n {
            assert!(accept(&buf[..k], Some(&a)).is_err(), "prefix {k}");
        }
        let mut x = 0x1234_5678u32;
        for len in 0..300 {
            let g: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect();
            let _ = accept(&g, Some(&a));
        }
    }
}
