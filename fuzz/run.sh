#!/usr/bin/env bash
# Runs one fuzz target for RUNS executions (default 1000000) from its checked-in corpus,
# with libFuzzer's working corpus in corpus-work/ (not checked in):
#   bash fuzz/run.sh scenario [RUNS]
# Needs a nightly toolchain (rustup toolchain install nightly) and cargo-fuzz
# (cargo install cargo-fuzz). Crash reproducers land in artifacts/TARGET/. No sanitizer:
# the crate has no unsafe code, and overflow checks stay on (-a).
set -euo pipefail
cd "$(dirname "$0")"
target=$1
runs=${2:-1000000}
mkdir -p "corpus-work/$target" "artifacts/$target"
args=(-runs="$runs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
case $target in
    # libFuzzer takes one dictionary: the scenario keys, deep paths and non-ASCII text, joined.
    scenario | overrides)
        cat dict/scenario.dict dict/deep_path.dict dict/unicode.dict > "corpus-work/$target.dict"
        args+=(-dict="corpus-work/$target.dict" -max_len=4096)
        ;;
esac
exec cargo +nightly fuzz run -O -a -s none "$target" "corpus-work/$target" "corpus/$target" -- "${args[@]}"
