//! Running tshark on the captures the tests write (Debian package `tshark`).

use std::path::Path;
use std::process::Command;

/// Fails the calling test, saying why, when tshark is not installed (the tests that need it
/// are `#[ignore]`d and run on request).
pub fn require() {
    assert!(Command::new("tshark").arg("-v").output().is_ok(), "tshark is not installed (apt-get install tshark)");
}

/// Whether tshark is installed; says why the calling test skips its tshark checks when it is
/// not.
pub fn available() -> bool {
    if Command::new("tshark").arg("-v").output().is_ok() {
        return true;
    }
    eprintln!("SKIPPED: tshark is not installed (apt-get install tshark to run this test)");
    false
}

/// tshark's output lines for `path`, with checksum validation on.
pub fn run(path: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(path)
        .args(["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"])
        .args(args)
        .output()
        .expect("tshark runs");
    assert!(out.status.success(), "tshark {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect()
}

/// Frame numbers (1-based) that match a display filter.
pub fn frames(path: &Path, filter: &str) -> Vec<usize> {
    run(path, &["-Y", filter, "-T", "fields", "-e", "frame.number"]).iter().map(|l| l.parse().unwrap()).collect()
}
