//! Replays the fuzz corpus of the RDP segment decoder (`fuzz/corpus/rdp_segment`, seeds
//! written by `fuzz/make_seeds.py` from the documented layout, the rest found by the
//! fuzzer) through the fuzz target's property, so that `cargo test` keeps every input the
//! fuzzer ever found interesting from panicking. Seeds named `valid-*` must decode and
//! `invalid-*` must not; a few are checked field by field.

use ccsim::packet::AccState;
use ccsim::rdp::{flags, wire, SynParams};
use std::path::PathBuf;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/rdp_segment");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.unwrap().path()).collect();
    files.sort();
    files.into_iter().map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())).collect()
}

#[test]
fn every_corpus_input_keeps_the_decoders_property() {
    let inputs = corpus();
    assert!(inputs.len() >= 17, "the seeds are there");
    for (name, bytes) in &inputs {
        wire::fuzz_input(bytes);
        let result = wire::check_round_trip(bytes);
        if name.starts_with("valid-") {
            assert!(result.is_ok(), "{name}: {result:?}");
        } else if name.starts_with("invalid-") {
            assert!(result.is_err(), "{name} decoded: {result:?}");
        }
    }
}

#[test]
fn the_seeds_decode_to_the_fields_they_were_written_with() {
    let inputs = corpus();
    let get = |n: &str| wire::decode(&inputs.iter().find(|(name, _)| name == n).unwrap().1).unwrap();
    let (h, _) = get("valid-syn-ack");
    assert_eq!((h.fields.flags, h.fields.seq.0, h.fields.ack.0), (flags::SYN | flags::ACK, 7000, 100));
    assert_eq!(h.fields.var.syn_params(), SynParams { max_outstanding: 256, max_segment: 1034, sequenced: true });
    let (h, d) = get("valid-data-acc");
    assert_eq!((d.len(), h.sport, h.dport), (1000, 10_000, 80));
    assert_eq!(h.fields.acc, Some(AccState { cwnd: 12, ssthresh: 6, srtt_us: 150_000, slow_start: true, fast_recovery: false }));
    let (h, _) = get("valid-eack");
    assert_eq!(h.fields.var.eack_bits(), 0b11, "103 and 104 above ACK 101; 99 and 400 out of reach");
    let (h, _) = get("valid-eack-span");
    assert_eq!(h.fields.var.eack_bits(), u64::MAX, "64 entries across the wrap");
    for (n, e) in [("invalid-short", wire::WireError::Short { len: 17 }), ("invalid-version", wire::WireError::Version(1))] {
        let bytes = &inputs.iter().find(|(name, _)| name == n).unwrap().1;
        assert_eq!(wire::decode(bytes).err(), Some(e));
    }
}
