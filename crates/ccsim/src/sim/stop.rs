//! A request from outside a run to stop it (Ctrl-C), seen between events and inside the
//! loops that can run long within one event, so that a run stops within a fraction of a
//! second whatever it is doing.
//!
//! A signal handler calls [`request`]: it only adds one to an atomic counter, which is safe
//! in a signal handler. A thread that runs a simulation [`arm`]s its watch first; from then
//! on [`requested`] says whether a request has come since. The run loop
//! (`Simulation::run_slice`) looks every [`CHECK_EVENTS`] events and ends the slice; a loop
//! inside one event (PIE's catch-up of its periodic updates) looks every [`CHECK_STEPS`]
//! steps, leaves the rest of its work undone and says so with [`cut`]. A run whose step was
//! cut cannot go on: the run loop marks it stopped (`StallReason::Interrupted`). A thread
//! that has not armed its watch never sees a request (tests and tools that call the queues
//! directly).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Requests so far, in this process.
static REQUESTS: AtomicU64 = AtomicU64::new(0);

/// Events between two looks of the run loop.
pub const CHECK_EVENTS: u64 = 1 << 12;
/// Steps between two looks of a loop inside one event.
pub const CHECK_STEPS: u64 = 1 << 12;

thread_local! {
    /// The count of requests when this thread armed its watch; None: not armed.
    static ARMED: Cell<Option<u64>> = const { Cell::new(None) };
    /// Whether a loop of this thread left work undone for a request.
    static CUT: Cell<bool> = const { Cell::new(false) };
}

/// Asks every armed run to stop. Safe to call from a signal handler.
pub fn request() {
    REQUESTS.fetch_add(1, Ordering::Relaxed);
}

/// Arms this thread's watch: requests from now on are [`requested`]. Arming again forgets
/// earlier requests (one that its caller has dealt with).
pub fn arm() {
    ARMED.with(|a| a.set(Some(REQUESTS.load(Ordering::Relaxed))));
    CUT.with(|c| c.set(false));
}

/// Disarms this thread's watch.
pub fn disarm() {
    ARMED.with(|a| a.set(None));
}

/// Whether a request has come since this thread armed its watch.
pub fn requested() -> bool {
    ARMED.with(|a| a.get().is_some_and(|at| at != REQUESTS.load(Ordering::Relaxed)))
}

/// Says that a loop of this thread left work undone for a request.
pub fn cut() {
    CUT.with(|c| c.set(true));
}

/// Whether a loop of this thread left work undone since the watch was armed.
pub fn was_cut() -> bool {
    CUT.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_armed_thread_sees_a_request_made_after_it_armed() {
        disarm();
        request();
        assert!(!requested(), "not armed");
        arm();
        assert!(!requested(), "the request came before");
        request();
        assert!(requested());
        let other = std::thread::spawn(requested).join().unwrap();
        assert!(!other, "another thread has its own watch");
        arm();
        assert!(!requested() && !was_cut(), "arming again forgets it");
        disarm();
    }
}
