//! `cargo +nightly fuzz run pcap`: see `ccsim::fuzz::pcap` and ../README.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ccsim::fuzz::pcap(data));
