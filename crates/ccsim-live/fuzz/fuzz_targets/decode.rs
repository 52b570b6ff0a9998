//! Every datagram a node may receive goes through `ccsim_live::fuzz_one` first: the decoder,
//! the MAC check and the reading of an RDP segment's header. None may panic on any input.
//!
//!     cargo +nightly fuzz run decode -- -runs=1000000
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ccsim_live::fuzz_one(data);
});
