#!/usr/bin/env bash
# topo: numa4x2smt
# timeout: 600
# 64 vCPUs (4 nodes x 2 LLCs x 4 cores x 2 threads, single-threaded TCG): the guest's topology
# is what the scenario asks for (L3 groups of 8, 16 CPUs per node, node distances 20/30) and
# what scx_mlb reads (8 domains on 4 nodes); then 30 s of stress-ng (cpu, fork, affinity,
# yield, one worker per 2 CPUs each) plus hackbench rounds, as vm/stress on 4 vCPUs: the
# scheduler stays enabled, every workload exits 0, SIGINT -> 0, nothing left behind. Then the
# scale measurement of vm/scale-8 at 64 vCPUs; with vm/scale-8's files from this run of the
# suite it writes keys.txt, the scale_*_64_vs_8 lines tests/run.sh prints: work per call and
# time per call at 64 vCPUs over those at 8, the boot and the scheduler's load (verifier)
# and attach time. The goals (docs/scaling.md) are reported there, not asserted: time under
# 32x overcommitted TCG is not a verdict, and work growth is what the design is judged by.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
source "$MLB_ROOT/tests/vm/scale-lib.sh"
[ "$(nproc)" = 64 ] || fail "guest has $(nproc) CPUs, expected 64"
for c in 0 7 8 31 63; do
	g=$(cat /sys/devices/system/cpu/cpu$c/cache/index3/shared_cpu_list)
	want="$((c / 8 * 8))-$((c / 8 * 8 + 7))"
	[ "$g" = "$want" ] || fail "CPU $c's L3 group is $g, expected $want"
	s=$(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list)
	want="$((c / 2 * 2))-$((c / 2 * 2 + 1))"
	[ "$s" = "$want" ] || fail "CPU $c's SMT siblings are $s, expected $want"
done
for n in 0 1 2 3; do
	l=$(cat /sys/devices/system/node/node$n/cpulist)
	[ "$l" = "$((n * 16))-$((n * 16 + 15))" ] || fail "node $n has CPUs $l"
done
[ "$(cat /sys/devices/system/node/node0/distance)" = "10 20 30 20" ] ||
	fail "node 0's distances are $(cat /sys/devices/system/node/node0/distance)"

t0=$(now_ms)
mlb_start --stats 5
mlb_wait_enabled
attach_ms=$(($(now_ms) - t0))
grep -aq '^scx_mlb: topology: 8 domains on 4 nodes, 64 cpus' "$MLB_LOG" ||
	fail "scx_mlb read another topology: $(grep -a '^scx_mlb: topology' "$MLB_LOG")"
note "scx_mlb loaded, verified and attached in $attach_ms ms"
# 15 s, not 30: on 64 vCPUs one hackbench round takes about 40 s and stress-ng's 30 s ran to
# 92 s in all (2026-12-07); the same workers and checks in half the time
STRESS_SEC=15 stress_check 32 8 10 30
note "stress: ok"

scale_measure
base=$MLB_ROOT/build/test-logs/vm/scale-8
{
	echo "scale_boot_s_64=$(rd /run/mlb-out/.mlb/boot_s)"
	echo "scale_attach_ms_64=$attach_ms"
} >"$MLB_OUT/keys.txt"
if from_this_run scale-8 && [ -s "$base/work.txt" ] && [ -s "$base/ns.txt" ]; then
	ratio() { # FILE8 FILE64 CALLBACK KEY -> value64 / value8 (3 decimals), "n/a" if either is 0
		local a b
		a=$(sed -n "s/^$3 .*\b$4=\([0-9.]*\).*/\1/p" "$1")
		b=$(sed -n "s/^$3 .*\b$4=\([0-9.]*\).*/\1/p" "$2")
		awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", b / a; else printf "n/a" }'
	}
	for cb in select_cpu enqueue dispatch balance_round; do
		echo "scale_${cb}_work_growth_64_vs_8=$(ratio "$base/work.txt" "$MLB_OUT/work.txt" $cb units)"
	done
	for cb in select_cpu enqueue dispatch running stopping; do
		echo "scale_${cb}_ns_64_vs_8=$(ratio "$base/ns.txt" "$MLB_OUT/ns.txt" $cb ns)"
	done
	echo "scale_balance_round_ns_64_vs_8=$(ratio "$base/work.txt" "$MLB_OUT/work.txt" balance_round ns)"
	echo "scale_domains_64_vs_8=8"
	echo "scale_boot_s_8=$(rd "$base/.mlb/boot_s")"
else
	note "no vm/scale-8 output from this run of the suite: 64-vCPU numbers only (run vm/scale-8 first)"
fi >>"$MLB_OUT/keys.txt"
cat "$MLB_OUT/keys.txt"
echo "stress-64: ok"
