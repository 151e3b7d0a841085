#!/usr/bin/env bash
# make bench-trace: where a parallel build's migrations come from, EEVDF against scx_mlb.
#
#   bench/trace.sh            (make bench-trace)          the full Lua build, ~5 min
#   QUICK=1 bench/trace.sh    (make bench-trace QUICK=1)  make bench QUICK=1's build, ~2 min
#   MLB_ARGS="..."            more options for scx_mlb (it runs --mode heuristic unless they say)
#
# Boots the numa2x2 test guest, builds Lua once unmeasured, then once under EEVDF and once
# under scx_mlb with the scheduler's events in ftrace, and splits each build's migrations
# (bench/trace-report.py): placed at wake-up or moved otherwise, by task, and how often a
# waking task found its previous CPU busy and then moved. A diagnosis, not a benchmark: one
# build each, no repetitions. Traces in build/trace/<UTC date-time>/; the report is also
# written there as report.txt. Exit status 0 when both builds were traced and reported.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
quick=${QUICK:-0}
[[ $quick =~ ^[01]$ ]] || { echo "bench-trace: QUICK takes 0 or 1" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench-trace: run as root (it installs packages)" >&2; exit 1; }
bash scripts/install-deps.sh || exit 1
source bench/lua.sh
lua=$(lua_tarball) || { echo "bench-trace: cannot fetch the Lua source package" >&2; exit 1; }
out=$root/build/trace/$(date -u +%Y-%m-%d-%H%M%S)
mkdir -p "$out"
bash tests/vm/guest.sh --topo numa2x2 --timeout 1200 --out "$out" --env LUA="$lua" \
	--env QUICK="$quick" --env MLB_ARGS="${MLB_ARGS:-}" -- bench/trace-guest.sh ||
	{ echo "bench-trace: the guest run failed; console: $out/console.log" >&2; exit 1; }
python3 bench/trace-report.py "$out/seq-eevdf.txt" "$out/seq-scx_mlb.txt" | tee "$out/report.txt"
