//! The RDP segment decoder (`ccsim::rdp::wire`) on arbitrary bytes, as they are and with
//! their checksum made right: it never panics, and what it decodes round-trips
//! (`wire::check_round_trip`, `wire::fuzz_input`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ccsim::rdp::wire::fuzz_input(data);
});
