//! Replays the fuzzers' checked-in corpus (`fuzz/corpus/TARGET/`) and any crash reproducers
//! (`fuzz/artifacts/TARGET/`) through the entry points the `cargo fuzz` targets call: every
//! input that once found a problem, or that covers a path, keeps doing so in the ordinary
//! test run, without a nightly toolchain.

use std::path::PathBuf;

fn replay(target: &str, run: fn(&[u8])) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut n = 0;
    for dir in ["corpus", "artifacts"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else { continue };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
        files.sort();
        for path in files {
            let data = std::fs::read(&path).expect("readable");
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{} panics", path.display());
            n += 1;
        }
    }
    assert!(n > 0, "no corpus for {target}");
}

#[test]
fn scenario_corpus() {
    replay("scenario", ccsim::fuzz::scenario);
}

#[test]
fn overrides_corpus() {
    replay("overrides", ccsim::fuzz::overrides);
}

#[test]
fn pcap_corpus() {
    replay("pcap", ccsim::fuzz::pcap);
}
