//! Replays the fuzz target's corpus (`fuzz/corpus/decode`, checked in) through what the
//! target runs, so that an ordinary `cargo test` catches a regression on any input the
//! fuzzer found interesting; and checks that the corpus's seeds decode as they should.

use ccsim_live::wire::{self, Auth, Body};
use std::path::Path;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/decode");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.unwrap().path()).collect();
    files.sort();
    files.into_iter().map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())).collect()
}

#[test]
fn every_corpus_input_goes_through_without_panic() {
    let inputs = corpus();
    assert!(inputs.len() >= 15, "the corpus is checked in");
    for (_, data) in &inputs {
        ccsim_live::fuzz_one(data);
    }
}

#[test]
fn the_seeds_decode_as_made() {
    let auth = Auth::new(ccsim_live::FUZZ_KEY, ccsim_live::FUZZ_RUN).unwrap();
    let get = |name: &str| corpus().into_iter().find(|(n, _)| n == name).map(|(_, d)| d).unwrap();
    assert!(matches!(wire::accept(&get("control"), Some(&auth)).unwrap().body, Body::Control(c) if c.cwnd == 8 && c.seq == 77));
    assert!(matches!(wire::accept(&get("filter"), Some(&auth)).unwrap().body, Body::Filter(f) if f.remaining == 8 && f.carried_slow_start));
    assert_eq!(wire::accept(&get("control_badmac"), Some(&auth)), Err(wire::WireError::Mac));
    assert!(matches!(wire::accept(&get("rdp_small"), None).unwrap().body, Body::Rdp(s) if s.len() == 8));
    assert_eq!(wire::accept(&get("rdp_small"), Some(&auth)), Err(wire::WireError::Mac), "with a key a segment needs the run's MAC");
    assert!(matches!(wire::accept(&get("rdp_small_mac"), Some(&auth)).unwrap().body, Body::Rdp(s) if s.len() == 8));
    assert_eq!(wire::accept(&get("short"), None), Err(wire::WireError::Short));
    assert_eq!(wire::accept(&get("badversion"), None), Err(wire::WireError::Version));
    assert!(matches!(wire::accept(&get("udp"), None).unwrap().body, Body::Udp(u) if u.seq == 7 && u.payload.len() == 12));
}

/// The documented fuzz command (`cargo +nightly fuzz run decode`, docs/live.md) resolves
/// the fuzz crate's dependencies from `fuzz/Cargo.lock`: the lock must be current, or the
/// command rewrites it. `cargo tree --locked` fails exactly when it would. It runs offline
/// first; on a machine whose cargo has not downloaded the fuzz crate's dependencies
/// (`libfuzzer-sys`: the workspace does not build it) it reads the registry's index.
#[test]
fn the_fuzz_lock_file_is_current() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/Cargo.toml");
    let tree = |offline: bool| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = std::process::Command::new(cargo);
        cmd.args(["tree", "--locked", "--depth", "0", "--manifest-path"]).arg(&manifest);
        if offline {
            cmd.arg("--offline");
        }
        let out = cmd.output().expect("cargo runs");
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (mut ok, mut err) = tree(true);
    if !ok && err.contains("offline") {
        (ok, err) = tree(false);
    }
    assert!(ok, "fuzz/Cargo.lock is not current (`cd crates/ccsim-live/fuzz && cargo update -w` refreshes it): {err}");
}
