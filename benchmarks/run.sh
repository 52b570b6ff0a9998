#!/usr/bin/env bash
# DUMBBELL-N speed benchmark: ccsim, ns-2 and ns-3 side by side.
#
# Usage:
#   benchmarks/run.sh [--n "10 100 1000"] [--sim-time 60] [--seed 1]
#                     [--tiny] [--scale] [--bottleneck MBPS] [--timeout 1800]
#                     [--sims "ns2 ns3 ccsim"] [--ns3-sack 1|0] [--ccsim CMD]
#                     [--csv FILE] [--no-install] [--report-only]
#
#   --n          flow counts to run (default "10 100 1000")
#   --sim-time   simulated seconds (default 60)
#   --seed       seed handed to every simulator (default 1; must be >= 1)
#   --tiny       quick check: N=10, 5 s (ccsim alone if ns-2/ns-3 cannot be
#                installed)
#   --scale      the scale table: N = 10 100 1000 10000 100000, 5 s each,
#                ns-2 and ccsim, 600 s per run, the bottleneck growing with N
#                (max(100, N/10) Mb/s, the buffer with it), CSV
#                results/scale.csv; --n, --sims, --timeout given after it win
#   --bottleneck bottleneck rate in Mb/s, a multiple of 100 (default 100);
#                ns-2 and ccsim scale the RED buffer with it, ns-3 runs only
#                at 100
#   --timeout    wall-clock limit per simulator run, in seconds (default
#                1800); a run that hits it shows as "timeout"
#   --sims       which simulators to run (default: ns2 ns3 ccsim)
#   --ns3-sack   1 (default) or 0: SACK in ns-3; see README.md for why 1
#   --ccsim CMD  same as setting CCSIM_CMD (default "ccsim bench dumbbell")
#   --csv FILE   where to write the raw results (default results/latest.csv)
#   --no-install do not try to apt-get install missing packages
#   --report-only  run nothing; print the table from an existing CSV
#
# Installs what is missing (ns2, libns3-dev, g++, pkg-config, time) with
# apt-get, and ccsim with pip from this repository when no `ccsim` command
# is found; builds the ns-3 program into benchmarks/build/, runs each
# simulator for each N, measures wall time and peak RSS with
# /usr/bin/time, prints a table and writes benchmarks/results/latest.csv.
#
# ---------------------------------------------------------------------------
# ccsim hook
# ---------------------------------------------------------------------------
# ccsim runs as "ccsim bench dumbbell" unless CCSIM_CMD (or --ccsim) names
# another command line; it is run as
#
#     $CCSIM_CMD N SIMTIME SEED
#
# (word-split, so CCSIM_CMD may carry its own arguments, e.g.
# CCSIM_CMD="python -m ccsim bench dumbbell").  It must simulate the
# DUMBBELL-N scenario described in benchmarks/README.md and print, on
# stdout, one key=value per line (other lines are ignored):
#
#     simulator=ccsim
#     n_flows=N
#     sim_time_s=SIMTIME             simulated seconds actually run
#     delivered_packets=INT          data packets delivered in order to the
#                                    sinks (in-order payload bytes / 1000)
#     goodput_bps=NUMBER             in-order payload bits delivered to the
#                                    sinks / SIMTIME
#     bottleneck_drops=INT           all drops at R1->R2 (RED early + forced
#                                    + overflow)
#     bottleneck_early_drops=INT     optional: RED early (random) drops
#     bottleneck_forced_drops=INT    optional: the rest
#     mean_queue_packets=NUMBER      optional: time-weighted mean length of
#                                    the R1->R2 queue, packets
#     setup_s, run_s, events_processed  optional (ccsim): wall seconds to
#                                    build the network and to run it, and
#                                    the events it handled
#
# The same keys are printed by ns2/dumbbell.tcl and ns3/dumbbell.cc.  Once
# ccsim results are present the script also prints ccsim's ratios to ns-2
# and ns-3 for each N.
# ---------------------------------------------------------------------------

set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$HERE/build"
RESULTS="$HERE/results"

NS_LIST="10 100 1000"
SIM_TIME=60
SEED=1
TIMEOUT=1800
SIMS=""
NS3_SACK=1
INSTALL=1
REPORT_ONLY=0
CSV="$RESULTS/latest.csv"
CCSIM_CMD="${CCSIM_CMD:-}"
BOTTLENECK=""
SCALE=0

while [ $# -gt 0 ]; do
    case "$1" in
        --n) NS_LIST="$2"; shift 2 ;;
        --sim-time) SIM_TIME="$2"; shift 2 ;;
        --seed) SEED="$2"; shift 2 ;;
        --tiny) NS_LIST="10"; SIM_TIME=5; shift ;;
        --scale) SCALE=1; NS_LIST="10 100 1000 10000 100000"; SIM_TIME=5; TIMEOUT=600
                 SIMS="ns2 ccsim"; CSV="$RESULTS/scale.csv"; shift ;;
        --bottleneck) BOTTLENECK="$2"; shift 2 ;;
        --timeout) TIMEOUT="$2"; shift 2 ;;
        --sims) SIMS="$2"; shift 2 ;;
        --ns3-sack) NS3_SACK="$2"; shift 2 ;;
        --ccsim) CCSIM_CMD="$2"; shift 2 ;;
        --csv) CSV="$2"; shift 2 ;;
        --no-install) INSTALL=0; shift ;;
        --report-only) REPORT_ONLY=1; shift ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option: $1 (try --help)" >&2; exit 2 ;;
    esac
done
[ -z "$SIMS" ] && SIMS="ns2 ns3 ccsim"
if [ -n "$BOTTLENECK" ] && { ! [ "$BOTTLENECK" -ge 100 ] 2>/dev/null || [ $((BOTTLENECK % 100)) -ne 0 ]; }; then
    echo "--bottleneck must be a multiple of 100 (Mb/s), not $BOTTLENECK" >&2; exit 2
fi
# The bottleneck for N flows: as given, or in the scale table max(100, N/10) Mb/s.
bottleneck_for() {
    if [ -n "$BOTTLENECK" ]; then echo "$BOTTLENECK"
    elif [ "$SCALE" -eq 1 ]; then awk -v n="$1" 'BEGIN{b = int(n / 1000) * 100; print (b < 100 ? 100 : b)}'
    else echo 100; fi
}
wants() { case " $SIMS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

log() { echo "[bench] $*" >&2; }

# ------------------------------------------------------------------ table --
# The head of every awk program below: columns are found by name (`v("wall_s")`), so a
# CSV from before a column was added still prints.
COLUMNS='
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
function v(k) { return (k in c) ? $(c[k]) : "" }
'
print_report() {
    echo
    echo "DUMBBELL-N, $(awk -F, 'NR==2{print $3" s simulated, seed "$4}' "$CSV") ($(nproc) cores, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1))"
    awk -F, "$COLUMNS"'
    {
        if (v("status") != "ok") {
            printf "%-7s %6s  %-9s\n", v("simulator"), v("n_flows"), v("status"); next
        }
        q = v("mean_queue_packets"); q = (q == "") ? "n/a" : sprintf("%.1f", q)
        b = v("bottleneck_mbps"); b = (b == "") ? 100 : b
        printf "%-7s %6s %7s %9.2f %9.1f %12s %9.2f %10s %8s %14s\n", v("simulator"), v("n_flows"), b, v("wall_s"), v("peak_mib"), v("delivered_packets"), v("goodput_bps")/1e6, v("bottleneck_drops"), q, v("delivered_per_wall_s")
    }
    BEGIN {
        printf "%-7s %6s %7s %9s %9s %12s %9s %10s %8s %14s\n", "sim", "N", "bn_Mb/s", "wall_s", "peak_MiB", "delivered", "Mb/s", "drops", "mean_q", "deliv/wall_s"
    }' "$CSV"

    if grep -q '^ccsim,.*,ok,' "$CSV"; then
        echo
        echo "ccsim compared (speedup = other wall / ccsim wall; memory = other peak / ccsim peak;"
        echo "goodput, drops and mean queue = ccsim / other)"
        awk -F, "$COLUMNS"'
        v("status") == "ok" {
            k = v("simulator") "," v("n_flows")
            wall[k] = v("wall_s"); mem[k] = v("peak_mib"); gp[k] = v("goodput_bps"); dr[k] = v("bottleneck_drops")
            mq[k] = v("mean_queue_packets"); ns[v("n_flows")] = 1
        }
        END {
            printf "%6s %-6s %9s %9s %9s %9s %9s\n", "N", "vs", "speedup", "memory", "goodput", "drops", "mean_q"
            for (n in ns) {
                cc = "ccsim," n
                if (!(cc in wall)) continue
                for (i = 1; i <= 2; i++) {
                    o = (i == 1 ? "ns2" : "ns3") "," n
                    if (!(o in wall)) continue
                    sp = (wall[cc] > 0) ? sprintf("%.1fx", wall[o] / wall[cc]) : "inf"
                    me = (mem[cc] > 0) ? sprintf("%.1fx", mem[o] / mem[cc]) : "n/a"
                    g  = (gp[o] > 0) ? sprintf("%.3f", gp[cc] / gp[o]) : "n/a"
                    d  = (dr[o] > 0) ? sprintf("%.3f", dr[cc] / dr[o]) : "n/a"
                    q  = (mq[o] > 0 && mq[cc] != "") ? sprintf("%.3f", mq[cc] / mq[o]) : "n/a"
                    printf "%6s %-6s %9s %9s %9s %9s %9s\n", n, substr(o, 1, 3), sp, me, g, d, q
                }
            }
        }' "$CSV" | { IFS= read -r h; echo "$h"; sort -n; }
    fi
    if grep -q '^ccsim,.*,ok,' "$CSV" && head -n 1 "$CSV" | grep -q events_processed; then
        echo
        echo "ccsim's own split (setup: building the network; run: the event loop; ns/event: run / events)"
        awk -F, "$COLUMNS"'
        v("simulator") == "ccsim" && v("status") == "ok" && v("events_processed") > 0 {
            printf "%6s %9.3f %9.2f %12s %9.0f %9.1f\n", v("n_flows"), v("setup_s"), v("run_s"), v("events_processed"), 1e9 * v("run_s") / v("events_processed"), v("peak_mib")
        }
        BEGIN { printf "%6s %9s %9s %12s %9s %9s\n", "N", "setup_s", "run_s", "events", "ns/event", "peak_MiB" }' "$CSV"
    fi
    echo
    echo "raw results: $CSV"
}

if [ "$REPORT_ONLY" -eq 1 ]; then
    [ -f "$CSV" ] || { echo "no results file $CSV" >&2; exit 1; }
    print_report
    exit 0
fi

# ---------------------------------------------------------------- install --
install_missing() {
    local want=() missing=() p
    want=(time)
    wants ns2 && want+=(ns2)
    wants ns3 && want+=(libns3-dev g++ pkg-config)
    for p in "${want[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$INSTALL" -eq 0 ]; then
        log "missing packages (not installing, --no-install): ${missing[*]}"
        return 0
    fi
    local SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
            log "not root and no sudo: cannot install ${missing[*]}"; return 0
        fi
    fi
    log "installing: ${missing[*]}"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 \
        || log "apt-get update failed; trying the install anyway"
    if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
        # Try one by one so that one unavailable package does not block the rest.
        for p in "${missing[@]}"; do
            if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null 2>&1; then
                log "could not install $p; continuing without it"
            fi
        done
    fi
}
install_missing

# ccsim: the installed command, else this repository installed with pip.
find_ccsim() {
    [ -n "$CCSIM_CMD" ] && return 0
    if ! command -v ccsim >/dev/null 2>&1 && [ "$INSTALL" -eq 1 ]; then
        local py
        py="$(command -v python3 || command -v python)" || { log "no python: cannot install ccsim"; return 0; }
        log "no ccsim command: installing ccsim from $(dirname "$HERE") with pip"
        "$py" -m pip install -q "$(dirname "$HERE")" >&2 || log "pip install failed"
        hash -r
    fi
    if command -v ccsim >/dev/null 2>&1; then
        CCSIM_CMD="ccsim bench dumbbell"
        # Which build runs: profile-guided or plain (README.md, "Installing").
        log "$(ccsim --version 2>/dev/null || echo 'ccsim --version failed')"
    else
        log "no ccsim command (pip install . from the repository root, or set CCSIM_CMD)"
    fi
}
wants ccsim && find_ccsim
if wants ns2 && wants ns3 && ! command -v ns >/dev/null 2>&1 && ! dpkg -s libns3-dev >/dev/null 2>&1; then
    log "ns-2 and ns-3 are not installed and could not be installed here: only ccsim runs"
fi

if [ ! -x /usr/bin/time ]; then
    log "/usr/bin/time is missing (package 'time'); cannot measure"
    exit 1
fi

# ------------------------------------------------------------------ build --
NS3_BIN="$BUILD/ns3-dumbbell"
build_ns3() {
    mkdir -p "$BUILD"
    if [ -x "$NS3_BIN" ] && [ "$NS3_BIN" -nt "$HERE/ns3/dumbbell.cc" ]; then
        return 0
    fi
    if ! command -v g++ >/dev/null 2>&1; then
        log "g++ missing: cannot build the ns-3 program"; return 1
    fi
    # Debian's ns3 .pc files carry a broken include flag ("-I/usr\;"), so
    # the ns-3 libraries are named directly; headers are in /usr/include/ns3.
    local libs="-lns3-traffic-control -lns3-applications -lns3-point-to-point -lns3-internet -lns3-network -lns3-core"
    log "building $NS3_BIN"
    g++ -O2 -std=c++17 -o "$NS3_BIN" "$HERE/ns3/dumbbell.cc" $libs 2>"$BUILD/ns3-build.log" || {
        log "ns-3 build failed (see $BUILD/ns3-build.log)"; return 1; }
}

# -------------------------------------------------------------------- run --
mkdir -p "$(dirname "$CSV")"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
echo "simulator,n_flows,sim_time_s,seed,status,wall_s,peak_mib,delivered_packets,goodput_bps,bottleneck_drops,bottleneck_early_drops,bottleneck_forced_drops,delivered_per_wall_s,bottleneck_mbps,mean_queue_packets,setup_s,run_s,events_processed" > "$CSV"

# command line for simulator $1 with N=$2 and a bottleneck of $3 Mb/s
sim_cmd() {
    case "$1" in
        ns2)   command -v ns >/dev/null 2>&1 || return 1
               echo "ns $HERE/ns2/dumbbell.tcl $2 $SIM_TIME $SEED $3" ;;
        ns3)   [ -x "$NS3_BIN" ] && [ "$3" -eq 100 ] || return 1
               echo "$NS3_BIN $2 $SIM_TIME $SEED $NS3_SACK" ;;
        ccsim) [ -n "$CCSIM_CMD" ] || return 1
               if [ "$3" -eq 100 ]; then echo "$CCSIM_CMD $2 $SIM_TIME $SEED"
               else echo "$CCSIM_CMD $2 $SIM_TIME $SEED --bottleneck $3"; fi ;;
        *) return 1 ;;
    esac
}

val() { sed -n "s/^$1=//p" "$2" | tail -n 1; }

for s in $SIMS; do
    [ "$s" = ns3 ] && { build_ns3 || true; }
done

for n in $NS_LIST; do
    for s in $SIMS; do
        out="$TMP/$s-$n.out"; err="$TMP/$s-$n.err"; tm="$TMP/$s-$n.time"
        status=ok wall="" mib="" deliv="" gput="" drops="" edrops="" fdrops="" rate=""
        meanq="" setup="" run="" events=""
        bn="$(bottleneck_for "$n")"
        if ! cmd="$(sim_cmd "$s" "$n" "$bn")"; then
            status=missing
            log "$s: not available, skipped"
        else
            log "$s N=$n T=$SIM_TIME: $cmd"
            (cd "$TMP" && /usr/bin/time -f "%e %M" -o "$tm" \
                timeout --kill-after=10 "$TIMEOUT" $cmd >"$out" 2>"$err")
            rc=$?
            read -r wall kib < "$tm" 2>/dev/null || true
            # /usr/bin/time notes a non-zero exit on its first line
            if grep -q "exited with non-zero status\|Command terminated" "$tm" 2>/dev/null; then
                read -r wall kib < <(tail -n 1 "$tm")
            fi
            [ -n "${kib:-}" ] && mib=$(awk -v k="$kib" 'BEGIN{printf "%.1f", k/1024}')
            if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
                status=timeout
                log "$s N=$n: timeout after ${TIMEOUT}s"
            elif [ "$rc" -ne 0 ]; then
                status=failed
                log "$s N=$n: exit status $rc; stderr tail:"; tail -n 5 "$err" >&2
            fi
            if [ "$status" = ok ]; then
                deliv=$(val delivered_packets "$out"); gput=$(val goodput_bps "$out")
                drops=$(val bottleneck_drops "$out")
                edrops=$(val bottleneck_early_drops "$out"); fdrops=$(val bottleneck_forced_drops "$out")
                meanq=$(val mean_queue_packets "$out"); setup=$(val setup_s "$out")
                run=$(val run_s "$out"); events=$(val events_processed "$out")
                if [ -z "$deliv" ] || [ -z "$gput" ] || [ -z "$drops" ]; then
                    status=failed; log "$s N=$n: output lacks the expected keys"
                else
                    rate=$(awk -v d="$deliv" -v w="$wall" 'BEGIN{ if (w > 0) printf "%.0f", d/w; else print "" }')
                fi
            fi
        fi
        echo "$s,$n,$SIM_TIME,$SEED,$status,$wall,$mib,$deliv,$gput,$drops,$edrops,$fdrops,$rate,$bn,$meanq,$setup,$run,$events" >> "$CSV"
    done
done

print_report
