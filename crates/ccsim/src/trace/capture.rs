//! Captures of chosen links into pcap or pcapng files while a simulation runs.
//!
//! The capture point is the end of transmission: a packet is written when its last bit
//! leaves the link's transmitter, stamped with that simulated time. It has
//! passed the link's egress queue (queue drops are not seen, ECN marks of that queue are)
//! and is still subject to the link's own random loss and to everything downstream.
//!
//! A capture file is created, and its header written through to it, when the scenario is
//! built, so that a file that cannot be written is reported before the run, against the
//! scenario's field (`pcap[0].file`). A capture that does not end well (the run was
//! interrupted, or writing failed) is removed when the simulation is dropped: no file is
//! left that looks like a complete capture. Only regular files are removed.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::PathBuf;

use super::{PcapFormat, PcapWriter};
use crate::net::{LinkId, Packet};
use crate::sim::SimTime;

/// One capture file and the first error writing it met.
struct Capture {
    path: PathBuf,
    writer: PcapWriter<BufWriter<File>>,
    error: Option<io::Error>,
    /// Flushed at the end of the run with no error: the file is complete.
    complete: bool,
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

    /// Creates `path` (and its missing parent directories) and writes its header through to
    /// the file; `links` become its interfaces in this order, named by `names`. Captures are
    /// numbered in the order they are added (the scenario's `pcap[i]`).
    pub fn add(&mut self, path: PathBuf, format: PcapFormat, snaplen: u32, links: &[LinkId], names: &[String]) -> io::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = BufWriter::with_capacity(1 << 16, File::create(&path)?);
        let written = PcapWriter::new(file, format, snaplen, names).and_then(|mut w| w.flush().map(|()| w));
        let writer = match written {
            Ok(w) => w,
            Err(e) => {
                remove_if_regular(&path);
                return Err(e);
            }
        };
        let c = self.captures.len() as u32;
        for (i, &l) in links.iter().enumerate() {
            self.taps[l as usize].push((c, i as u32));
        }
        self.captures.push(Capture { path, writer, error: None, complete: false });
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

    /// Flushes every file; the first error of any capture as (its field path, `pcap[i].file`,
    /// and the message naming the file). A capture that failed is removed.
    pub fn finish(&mut self) -> Result<(), (String, String)> {
        let mut first = None;
        for (i, cap) in self.captures.iter_mut().enumerate() {
            if cap.error.is_none() {
                if let Err(e) = cap.writer.flush() {
                    cap.error = Some(e);
                }
            }
            cap.complete = cap.error.is_none();
            if let (None, Some(e)) = (&first, &cap.error) {
                first = Some((format!("pcap[{i}].file"), format!("cannot write {}: {e}", cap.path.display())));
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// The capture files, in scenario order.
    pub fn files(&self) -> impl Iterator<Item = &std::path::Path> {
        self.captures.iter().map(|c| c.path.as_path())
    }
}

impl Drop for Tracer {
    /// Removes the captures that did not end well: no partial file is left behind.
    fn drop(&mut self) {
        for cap in &self.captures {
            if !cap.complete {
                remove_if_regular(&cap.path);
            }
        }
    }
}

/// Removes `path` if it is a regular file (never a device, a pipe or a directory).
fn remove_if_regular(path: &std::path::Path) {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        let _ = std::fs::remove_file(path);
    }
}
