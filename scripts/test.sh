#!/usr/bin/env bash
# Installs what the tests need and runs every test: the Rust core and the live overlay
# (cargo test) and the Python package (pytest). This is the README's test command; .ci/run
# calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

# tshark checks our pcap files; those tests skip with a reason if it cannot be installed.
if ! command -v tshark >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null || true
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark; } >/dev/null 2>&1; then
        echo "note: tshark could not be installed; the pcap checks will be skipped"
    fi
fi

# Debian's Chromium runs the viewer's browser test (tests/test_viewer.py), jq the docs'
# examples that use it (tests/test_docs.py), and ns-2 (command `ns`, package ns2) the short
# cross-validation against ns-2.35 (tests/test_validation_ns2.py); without them those are
# skipped with a reason. Each entry is COMMAND:PACKAGE.
for entry in chromium:chromium jq:jq ns:ns2; do
    tool=${entry%%:*}
    package=${entry#*:}
    if ! command -v "$tool" >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package"; } >/dev/null 2>&1; then
            echo "note: $package could not be installed; the tests that need it will be skipped"
        fi
    fi
done

python3 -m pip install --quiet --disable-pip-version-check ".[test,dask]"

# The tree stays formatted and lint-clean.
cargo fmt --all -- --check
cargo clippy --all-targets --quiet -- -D warnings
python3 -m ruff check python tests scripts packaging benchmarks
python3 -m ruff format --check python tests scripts packaging benchmarks

cargo test -p ccsim -p ccsim-live --quiet
# The tests that read captures with tshark are #[ignore]d in a plain `cargo test` (a missing
# tool shows as ignored, never as a pass); they run here where tshark is installed.
if command -v tshark >/dev/null 2>&1; then
    cargo test -p ccsim --test pcap_tshark --test pcap_scenarios --quiet -- --ignored
else
    echo "skipped: the tshark checks (pcap_tshark, pcap_scenarios): tshark is not installed"
fi
python3 -m pytest tests -q
