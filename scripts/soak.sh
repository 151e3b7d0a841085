#!/usr/bin/env bash
# make soak MINUTES=N: scx_mlb --mode adaptive for N minutes (default 30) under a rotating
# workload mix, in the numa2x2 test guest (or here, on a sched_ext host, with --here).
# Rotation, one minute each: mixed (duty-cycled CPU workers, spinners, hackbench), stress-ng
# (cpu, fork, yield, affinity), hackbench only, quiet. Reports, as key=value lines at the end:
# minutes, restarts (reattaches), detached (scheduler not enabled at a 10 s check), stalls
# and kernel warnings on the console, records written, generations, rollbacks, ring-buffer and
# write drops, the daemon's RSS at the first and last check (growth), task_ctxs first/last.
# This is a soak run, not a test: it reports, and exits non-zero only if the scheduler died.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
minutes=${MINUTES:-30}

if [ "${1:-}" = --in-guest ]; then
	minutes=${2:-30}
	source "$MLB_ROOT/tests/vm/scenario-lib.sh"
	cd /tmp
	STATE=/tmp/mlb-soak
	rm -rf $STATE
	mlb_start --mode adaptive --state-dir $STATE --stats 10
	mlb_wait_enabled
	rss() { local k v u; while read -r k v u; do [ "$k" = VmRSS: ] && { echo "$v"; return; }; done <"/proc/$MLB_PID/status"; }
	rss0=$(rss) detached=0 ctx0="" end=$(($(now_ms) + minutes * 60000)) round=0
	while [ "$(now_ms)" -lt $end ]; do
		case $((round % 4)) in
		0) mixed_load 60 "mixed$round" ;;
		1) stress-ng --temp-path /tmp --timeout 60s --cpu 4 --fork 2 --yield 2 --affinity 2 \
			>"$MLB_OUT/stress-$round.log" 2>&1 ;;
		2) t=$(($(now_ms) + 60000)); while [ "$(now_ms)" -lt $t ]; do hackbench -g 4 -l 50 >/dev/null 2>&1; done ;;
		3) zzz 60 ;;
		esac
		[ "$(rd $SCX/state)" = enabled ] || detached=$((detached + 1))
		kill -0 "$MLB_PID" 2>/dev/null || { echo "soak: scx_mlb died"; break; }
		[ -n "$ctx0" ] || ctx0=$(last_stat task_ctxs)
		round=$((round + 1))
		note "soak: round $round done, $(last_stat samples) samples, gen $(last_stat gen)"
	done
	rss1=$(rss)
	ctx1=$(last_stat task_ctxs)
	mlb_stop INT
	echo "soak_minutes=$minutes"
	echo "rounds=$round"
	echo "restarts=$(($(count_lines '^scx_mlb: attached') - 1))"
	echo "detached_checks=$detached"
	echo "exit_status=$MLB_RC"
	for k in records generations rollbacks rejected rb_drops write_dropped model_decisions fallback; do
		echo "$k=$(summary_field $k)"
	done
	echo "rss_kb_first=$rss0"
	echo "rss_kb_last=$rss1"
	echo "task_ctxs_first=$ctx0"
	echo "task_ctxs_last=$ctx1"
	[ "$MLB_RC" = 0 ]
	exit
fi

make --no-print-directory all kernel >&2 || exit 1
out=$root/build/soak
mkdir -p "$out"
bash tests/vm/guest.sh --topo numa2x2 --timeout $((minutes * 60 + 600)) --out "$out" \
	-- "$root/scripts/soak.sh" --in-guest "$minutes" >"$out/run.log" 2>&1
rc=$?
bad='BUG:|WARNING:|Oops|Call Trace|rcu.*detected.*stall|runnable task stall|sched_ext: .*error'
echo "console_warnings=$(grep -aEc "$bad" "$out/console.log")"
grep -aE '^[a-z_]+=' "$out/console.log" | tr -d '\r'
echo "soak: guest exit $rc; console: $out/console.log" >&2
exit $rc
