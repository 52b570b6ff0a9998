//! Captures of chosen links into pcap or pcapng files while a simulation runs.
//!
//! The capture point is the end of transmission: a packet is written when its last bit
//! leaves the link's transmitter, stamped with that simulated time. It has
//! passed the link's egress queue (queue drops are not seen, ECN marks of that queue are)
//! and is still subject to the link's own random loss and to everything downstream.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::PathBuf;

use super::{PcapFormat, PcapWriter};
use crate::engine::Simulation;
use crate::net::{LinkId, Packet};
use crate::sim::SimTime;

/// One capture file and the first error writing it met.
struct Capture {
    path: PathBuf,
    writer: PcapWriter<BufWriter<File>>,
    error: Option<io::Error>,
}

/// Every capture of a run, and which captures record each link.
pub struct Tracer {
    /// By link: (capture, interface) pairs that record it; empty for links not captured.
    taps: Vec<Vec<(u32, u32)>>,
    captures: Vec<Capture>,
}

impl Tracer {
    /// A tracer of `n_links` links that records nothing yet.
    pub fn new(n_links: usize) -> Tracer {
        Tracer { taps: vec![Vec::new(); n_links], captures: Vec::new() }
    }

    /// Creates `path` (and its missing parent directories) and writes its header; `links`
    /// become its interfaces in this order, named by `names`.
    pub fn add(&mut self, path: PathBuf, format: PcapFormat, snaplen: u32, links: &[LinkId], names: &[String]) -> io::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = BufWriter::with_capacity(1 << 16, File::create(&path)?);
        let writer = PcapWriter::new(file, format, snaplen, names)?;
        let c = self.captures.len() as u32;
        for (i, &l) in links.iter().enumerate() {
            self.taps[l as usize].push((c, i as u32));
        }
        self.captures.push(Capture { path, writer, error: None });
        Ok(())
    }

    /// Whether some capture records `link`.
    pub fn records(&self, link: LinkId) -> bool {
        !self.taps[link as usize].is_empty()
    }

    /// `pkt` finished transmission on `link` at `t`. A capture that failed to write stops
    /// writing; [`Tracer::finish`] reports its error.
    #[inline]
    pub fn record(&mut self, link: LinkId, t: SimTime, pkt: &Packet) {
        for &(c, iface) in &self.taps[link as usize] {
            let cap = &mut self.captures[c as usize];
            if cap.error.is_none() {
                if let Err(e) = cap.writer.write(iface, t, pkt) {
                    cap.error = Some(e);
                }
            }
        }
    }

    /// Flushes every file; the first error of any capture, with its file name.
    pub fn finish(&mut self) -> Result<(), String> {
        let mut first = None;
        for cap in &mut self.captures {
            if cap.error.is_none() {
                if let Err(e) = cap.writer.flush() {
                    cap.error = Some(e);
                }
            }
            if let (None, Some(e)) = (&first, &cap.error) {
                first = Some(format!("{}: cannot write the capture: {e}", cap.path.display()));
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// The capture files, in scenario order.
    pub fn files(&self) -> impl Iterator<Item = &std::path::Path> {
        self.captures.iter().map(|c| c.path.as_path())
    }
}

impl Simulation {
    /// Flushes the capture files (when the scenario has any). Call it at the end of a run:
    /// writing errors met during the run are reported here, with the file name.
    pub fn finish_traces(&mut self) -> Result<(), String> {
        self.trace.as_mut().map_or(Ok(()), |t| t.finish())
    }
}
