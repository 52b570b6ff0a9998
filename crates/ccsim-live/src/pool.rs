//! Datagram buffers, allocated once and reused: a packet in a node is an index into the
//! pool ([`Pkt`]), so receiving, queueing and forwarding allocate nothing per packet. The
//! pool doubles when a burst outgrows it (rare; never shrinks).

use crate::wire::MAX_DATAGRAM;

/// No node: a packet the node made itself, or whose sender is not a known neighbour.
pub const NOBODY: u32 = u32::MAX;

/// A datagram held by a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pkt {
    pub buf: u32,
    pub len: u16,
    /// The neighbour it came from ([`NOBODY`] if made here or unknown).
    pub from: u32,
    /// When it entered the queue it is in, ns.
    pub at: u64,
}

pub struct Pool {
    data: Vec<u8>,
    free: Vec<u32>,
}

impl Pool {
    pub fn new(n: usize) -> Pool {
        Pool { data: vec![0; n * MAX_DATAGRAM], free: (0..n as u32).rev().collect() }
    }

    /// A free buffer.
    pub fn alloc(&mut self) -> u32 {
        if let Some(i) = self.free.pop() {
            return i;
        }
        let n = self.data.len() / MAX_DATAGRAM;
        self.data.resize(2 * n * MAX_DATAGRAM, 0);
        self.free.extend((n as u32 + 1..2 * n as u32).rev());
        n as u32
    }

    pub fn release(&mut self, buf: u32) {
        self.free.push(buf);
    }

    pub fn buf(&mut self, i: u32) -> &mut [u8] {
        let at = i as usize * MAX_DATAGRAM;
        &mut self.data[at..at + MAX_DATAGRAM]
    }

    pub fn bytes(&self, p: &Pkt) -> &[u8] {
        let at = p.buf as usize * MAX_DATAGRAM;
        &self.data[at..at + p.len as usize]
    }

    /// Buffers in use.
    pub fn in_use(&self) -> usize {
        self.data.len() / MAX_DATAGRAM - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_when_exhausted_and_reuses_released_buffers() {
        let mut p = Pool::new(2);
        let (a, b) = (p.alloc(), p.alloc());
        let c = p.alloc();
        assert_eq!((a, b, c), (0, 1, 2));
        assert_eq!(p.in_use(), 3);
        p.buf(c)[0] = 7;
        p.release(b);
        assert_eq!(p.alloc(), 1);
        assert_eq!(p.alloc(), 3);
        assert_eq!(p.bytes(&Pkt { buf: c, len: 1, from: NOBODY, at: 0 }), &[7]);
    }
}
