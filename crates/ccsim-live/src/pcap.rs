//! A node's capture of what it sends and receives: classic pcap, nanosecond timestamps,
//! LINKTYPE_RAW (each frame an IPv4 header), every datagram wrapped in the IPv4 and UDP
//! headers it had on the underlying network (real addresses and ports, checksums zero:
//! "not computed" for UDP, and Wireshark does not check IPv4's by default). Wireshark's
//! dissector for the overlay (`scripts/wireshark/ccsim_live.lua`) finds the datagrams by
//! their magic and shows the VNet header, the RDP segment and the ACC fields.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

const LINKTYPE_RAW: u32 = 101;

pub struct Capture {
    out: BufWriter<File>,
    path: String,
    frame: Vec<u8>,
    error: Option<io::Error>,
    ident: u16,
}

fn v4(a: &SocketAddr) -> [u8; 4] {
    match a.ip() {
        IpAddr::V4(ip) => ip.octets(),
        IpAddr::V6(ip) => ip.to_ipv4_mapped().map_or([0; 4], |v| v.octets()),
    }
}

impl Capture {
    pub fn create(path: &Path) -> io::Result<Capture> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?);
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes()); // nanosecond magic
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&[0; 8]);
        h.extend_from_slice(&65535u32.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&h)?;
        Ok(Capture { out, path: path.display().to_string(), frame: Vec::with_capacity(2100), error: None, ident: 0 })
    }

    /// Records a datagram `payload` from `src` to `dst` (the run time `_now` is not used:
    /// frames carry the wall clock, to line up with other captures).
    pub fn record(&mut self, src: SocketAddr, dst: SocketAddr, payload: &[u8], _now: u64) {
        if self.error.is_some() {
            return;
        }
        let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let len = (28 + payload.len()).min(65535);
        let f = &mut self.frame;
        f.clear();
        f.extend_from_slice(&(t.as_secs() as u32).to_le_bytes());
        f.extend_from_slice(&t.subsec_nanos().to_le_bytes());
        f.extend_from_slice(&(len as u32).to_le_bytes());
        f.extend_from_slice(&(len as u32).to_le_bytes());
        self.ident = self.ident.wrapping_add(1);
        let mut ip = [0u8; 20];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        ip[4..6].copy_from_slice(&self.ident.to_be_bytes());
        ip[6] = 0x40;
        ip[8] = 64;
        ip[9] = 17;
        ip[12..16].copy_from_slice(&v4(&src));
        ip[16..20].copy_from_slice(&v4(&dst));
        let sum = ip.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).sum::<u32>();
        let sum = (sum & 0xffff) + (sum >> 16);
        let sum = !(((sum & 0xffff) + (sum >> 16)) as u16);
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        f.extend_from_slice(&ip);
        f.extend_from_slice(&src.port().to_be_bytes());
        f.extend_from_slice(&dst.port().to_be_bytes());
        f.extend_from_slice(&((len - 20) as u16).to_be_bytes());
        f.extend_from_slice(&[0, 0]);
        f.extend_from_slice(&payload[..len - 28]);
        if let Err(e) = self.out.write_all(f) {
            self.error = Some(e);
        }
    }

    /// Records an IP packet as it is, stamped `unix_ns` (a kernel run's router: the packets
    /// are real IPv4 datagrams).
    pub fn record_ip(&mut self, packet: &[u8], unix_ns: u64) {
        if self.error.is_some() {
            return;
        }
        let len = packet.len().min(65535);
        let f = &mut self.frame;
        f.clear();
        f.extend_from_slice(&((unix_ns / 1_000_000_000) as u32).to_le_bytes());
        f.extend_from_slice(&((unix_ns % 1_000_000_000) as u32).to_le_bytes());
        f.extend_from_slice(&(len as u32).to_le_bytes());
        f.extend_from_slice(&(len as u32).to_le_bytes());
        f.extend_from_slice(&packet[..len]);
        if let Err(e) = self.out.write_all(f) {
            self.error = Some(e);
        }
    }

    /// Flushes the file; returns its path, or the first write error.
    pub fn finish(mut self) -> io::Result<String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.path)
    }
}
