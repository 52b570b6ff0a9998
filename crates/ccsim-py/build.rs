//! Records how the core was compiled, for `ccsim --version`: with a profile (`pip install .`
//! builds profile-guided where the toolchain allows, packaging/pgo.py), instrumented to
//! write one, or plain.

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let kind = if flags.contains("profile-use") {
        "profile-guided"
    } else if flags.contains("profile-generate") {
        "instrumented"
    } else {
        "plain"
    };
    println!("cargo:rustc-env=CCSIM_BUILD_KIND={kind}");
}
