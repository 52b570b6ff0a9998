//! `cargo +nightly fuzz run overrides`: see `ccsim::fuzz::overrides` and ../README.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ccsim::fuzz::overrides(data));
