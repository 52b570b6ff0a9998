//! `cargo +nightly fuzz run scenario`: see `ccsim::fuzz::scenario` and ../README.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ccsim::fuzz::scenario(data));
