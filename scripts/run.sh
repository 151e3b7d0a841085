#!/usr/bin/env bash
# make run: run scx_mlb.
#
#   scripts/run.sh [SCX_MLB_ARGS...]        (make run ARGS="--slice-us 5000 -v")
#
# On a host with sched_ext (/sys/kernel/sched_ext): runs build/scx_mlb here (as root) with the
# arguments (default: --mode adaptive) until Ctrl-C. Otherwise: boots the numa2x2 test guest
# (8 vCPUs, 2 nodes x 2 LLCs) for the learning demo: scx_mlb --mode adaptive starts with the
# heuristic, collects decisions and outcomes under a ~90 s mixed workload, trains, deploys
# models and keeps retraining, streaming the guest console live, and ends with its summary
# line (records=N generations=G model_decisions=D fallback=F ...). DEMO_SECONDS changes the
# workload length.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=$root/build/scx_mlb
# shellcheck disable=SC2206
[ $# -gt 0 ] || set -- ${ARGS:-}

if [ "${1:-}" = --in-guest ]; then
	shift
	# Guest side of the demo.
	source "$MLB_ROOT/tests/vm/scenario-lib.sh"
	secs=${DEMO_SECONDS:-90}
	cd /tmp
	echo "== guest: $(nproc) CPUs, L3 groups: $(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list | sort -u | tr '\n' ' ')"
	[ $# -gt 0 ] || set -- --mode adaptive --stats 5 --state-dir /tmp/mlb-demo --retrain-s 15 \
		--retrain-samples 1000 --min-samples 300
	mlb_start --stats 5 "$@"
	mlb_wait_enabled
	echo "== demo workload for ${secs}s: duty-cycled stress-ng cpu workers, spinners, hackbench"
	# a demo, not a test: a failed workload is reported (mixed_load says so) and the demo goes on
	for ((r = 0; r < secs / 15; r++)); do MIXED_LOAD_SOFT=1 mixed_load 15 "demo$r"; done
	st=$(cat $SCX/state)
	mlb_stop INT
	echo "== make run: scx_mlb exit status $MLB_RC (state during the run: $st)"
	grep -a '^scx_mlb: summary:' "$MLB_LOG" | tail -n1
	[ "$MLB_RC" = 0 ]
	exit
fi

[ -x "$bin" ] || { echo "run: no $bin (make)" >&2; exit 1; }
if [ -d /sys/kernel/sched_ext ]; then
	echo "run: this host has sched_ext; running $bin $* (Ctrl-C stops it)" >&2
	[ $# -gt 0 ] || set -- --mode adaptive --stats 5
	if [ "$(id -u)" = 0 ]; then exec "$bin" "$@"; else exec sudo "$bin" "$@"; fi
fi
echo "run: no sched_ext on this host; booting the numa2x2 test guest (TCG, ~20 s to boot) for a ~${DEMO_SECONDS:-90} s learning demo" >&2
make --no-print-directory kernel >&2 || exit 1
out=$root/build/vm/run
bash tests/vm/guest.sh --topo numa2x2 --timeout $((${DEMO_SECONDS:-90} + 240)) --out "$out" --stream \
	-- "$root/scripts/run.sh" --in-guest "$@"
rc=$?
case $rc in
0) echo "run: demo finished OK (scx_mlb exited 0); console: $out/console.log" ;;
90) echo "run: HARNESS failure, the guest did not boot; console: $out/console.log" ;;
*) echo "run: demo FAILED (exit $rc); console: $out/console.log" ;;
esac
exit $rc
