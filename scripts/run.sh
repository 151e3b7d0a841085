#!/usr/bin/env bash
# make run: run scx_mlb.
#
#   scripts/run.sh [SCX_MLB_ARGS...]        (make run ARGS="--slice-us 5000 -v")
#
# On a host with sched_ext (/sys/kernel/sched_ext): runs build/scx_mlb here (as root) with the
# arguments until Ctrl-C. Otherwise: boots the numa2x2 test guest (8 vCPUs, 2 nodes x 2 LLCs)
# and runs scx_mlb --stats 1 beside a ~30 s demo workload (stress-ng cpu + hackbench),
# streaming the guest console live. DEMO_SECONDS changes the workload length.
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
	secs=${DEMO_SECONDS:-30}
	cd /tmp
	echo "== guest: $(nproc) CPUs, L3 groups: $(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list | sort -u | tr '\n' ' ')"
	mlb_start --stats 1 "$@"
	mlb_wait_enabled
	echo "== demo workload for ${secs}s: stress-ng --cpu 6 + hackbench loops"
	stress-ng --cpu 6 --timeout "${secs}s" --metrics-brief --temp-path /tmp &
	sp=$!
	end=$(($(now_ms) + secs * 1000)) n=0
	while [ "$(now_ms)" -lt $end ]; do
		hackbench -g 4 -l 50 | grep -a Time && n=$((n + 1))
	done
	wait $sp
	sp_rc=$?
	st=$(cat $SCX/state)
	mlb_stop INT
	echo "== make run: scx_mlb exit status $MLB_RC (state during the run: $st); stress-ng exit $sp_rc; $n hackbench runs"
	[ "$MLB_RC" = 0 ]
	exit
fi

[ -x "$bin" ] || { echo "run: no $bin (make)" >&2; exit 1; }
if [ -d /sys/kernel/sched_ext ]; then
	echo "run: this host has sched_ext; running $bin $* (Ctrl-C stops it)" >&2
	if [ "$(id -u)" = 0 ]; then exec "$bin" "$@"; else exec sudo "$bin" "$@"; fi
fi
echo "run: no sched_ext on this host; booting the numa2x2 test guest (TCG, ~20 s to boot) for a ~${DEMO_SECONDS:-30} s demo" >&2
make --no-print-directory kernel >&2 || exit 1
out=$root/build/vm/run
bash tests/vm/guest.sh --topo numa2x2 --timeout $((${DEMO_SECONDS:-30} + 120)) --out "$out" --stream \
	-- "$root/scripts/run.sh" --in-guest "$@"
rc=$?
case $rc in
0) echo "run: demo finished OK (scx_mlb exited 0); console: $out/console.log" ;;
90) echo "run: HARNESS failure, the guest did not boot; console: $out/console.log" ;;
*) echo "run: demo FAILED (exit $rc); console: $out/console.log" ;;
esac
exit $rc
