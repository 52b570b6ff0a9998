#!/usr/bin/env bash
# The README's test command; .ci/run calls it. Three tiers:
#
#   bash scripts/test.sh           installs the package once (plain build), checks format and
#                                  lint, runs every Rust test (cargo test) and every Python
#                                  test (pytest) but those that compile the core again
#   bash scripts/test.sh --fast    the installed package's Python tests and the Rust unit
#                                  tests (--lib): no install, no lint, no integration tests,
#                                  nothing marked slow, rust_build or install
#   bash scripts/test.sh --all     the default tier with the profile-guided install and the
#                                  tests that compile the core again (the manylinux wheel,
#                                  the tutorial's copy of the workspace)
#
# Each phase prints its name and, when it ends, how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."

tier=default
case "${1:-}" in
    "") ;;
    --fast) tier=fast ;;
    --all) tier=all ;;
    -h | --help)
        sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "usage: bash scripts/test.sh [--fast | --all]" >&2
        exit 2
        ;;
esac

started=$SECONDS
phase_started=$SECONDS
phase() {
    if [ -n "${phase_name:-}" ]; then
        printf '== %s: %d s\n' "$phase_name" $((SECONDS - phase_started))
    fi
    phase_name=$1
    phase_started=$SECONDS
    [ -n "$phase_name" ] && printf '== %s\n' "$phase_name"
    return 0
}

if [ "$tier" = fast ]; then
    if ! python3 -c "import ccsim._core" 2>/dev/null; then
        echo "the fast tier tests the installed package, and there is none: run 'bash scripts/test.sh' once (or pip install '.[test,dask]')" >&2
        exit 2
    fi
    phase "Rust unit tests (cargo test --lib)"
    cargo test -p ccsim -p ccsim-live --lib --quiet
    phase "Python tests but the slow ones (pytest -m 'not slow')"
    python3 -m pytest tests -q -rs -m "not slow and not rust_build and not install"
    phase ""
    printf '== fast tier: %d s\n' $((SECONDS - started))
    exit 0
fi

phase "tools the tests use (apt-get, when root)"
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

# The one build of the package. The default tier builds it plain (CCSIM_PGO=0): the results
# are the same (scripts/golden.py check passes on both builds), the tests run the training
# set of the profile-guided build against it (tests/test_pgo.py), and --all builds and checks
# the profile-guided one. pip shows the build's phases and cargo's progress only with -v:
# those lines are shown here, the whole output is kept for a failure.
if [ "$tier" = all ]; then
    phase "pip install (profile-guided build)"
    pgo=1
else
    phase "pip install (plain build, CCSIM_PGO=0)"
    pgo=0
fi
# The tests read it: the check that the installed core is profile-guided skips when it is 0.
export CCSIM_PGO=$pgo
log=$(mktemp "${TMPDIR:-/tmp}/ccsim-pip.XXXXXX")
set +e
python3 -m pip install -v --disable-pip-version-check ".[test,dask]" 2>&1 | tee "$log" |
    { grep --line-buffered -E '^ *(ccsim build:|Compiling ccsim|Finished |Successfully installed)' | sed -u 's/^ */  /'; true; }
status=${PIPESTATUS[0]}
set -e
if [ "$status" != 0 ]; then
    tail -n 60 "$log" >&2
    echo "pip install failed; its whole output is in $log" >&2
    exit 1
fi
rm -f "$log"

# The tree stays formatted and lint-clean.
phase "format and lint (cargo fmt, clippy, ruff)"
cargo fmt --all -- --check
cargo clippy --all-targets --quiet -- -D warnings
python3 -m ruff check python tests scripts packaging benchmarks
python3 -m ruff format --check python tests scripts packaging benchmarks

phase "Rust tests (cargo test)"
cargo test -p ccsim -p ccsim-live --quiet
# The tests that read captures with tshark are #[ignore]d in a plain `cargo test` (a missing
# tool shows as ignored, never as a pass); they run here where tshark is installed.
if command -v tshark >/dev/null 2>&1; then
    cargo test -p ccsim --test pcap_tshark --test pcap_scenarios --quiet -- --ignored
else
    echo "skipped: the tshark checks (pcap_tshark, pcap_scenarios): tshark is not installed"
fi

if [ "$tier" = all ]; then
    phase "Python tests, with those that compile the core (pytest)"
    CCSIM_TEST_RUST_BUILDS=1 python3 -m pytest tests -q -rs
else
    phase "Python tests (pytest)"
    python3 -m pytest tests -q -rs
fi
phase ""
printf '== %s tier: %d s\n' "$tier" $((SECONDS - started))
