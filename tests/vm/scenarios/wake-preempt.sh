#!/usr/bin/env bash
# topo: flat4
# timeout: 240
# Wake-up preemption (--wake-preempt-us 1000; off by default): with two CPU hogs per CPU
# (every CPU busy, every queue non-empty), a periodic SCHED_OTHER task (cyclictest, 2
# threads, 2 ms period) must get its CPU within a fraction of the 20 ms slice: the hog on its
# CPU is preempted once it has run 1 ms. Without preemption a waker waits out the running
# hog's slice, on average half of it. Checks: the stats key preempt grows, cyclictest's
# median wake-up latency is under P50_BOUND_US (6 ms; waiting out a slice would give about
# 10 ms), every hog keeps getting CPU time, and the scheduler stays enabled. Prints
# p50/p99/max.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
P50_BOUND_US=${WAKE_PREEMPT_P50_US:-6000}
trap spin_stop EXIT
hist=/tmp/cyclictest.hist

mlb_start --stats 1 --wake-preempt-us 1000
mlb_wait_enabled
spin_start $((2 * $(nproc)))
spin_progress 1
wait_stats $(($(nstats) + 1)) 10
p0=$(last_stat preempt)
[ -n "$p0" ] || fail "no preempt= key in the stats line: $LAST_STATS"
cyclictest -q -t 2 --policy=other -i 2000 -D 6 -h 100000 --histfile=$hist >"$MLB_OUT/cyclictest.log" 2>&1 ||
	fail "cyclictest failed: $(tail -n 2 "$MLB_OUT/cyclictest.log")"
wait_stats $(($(nstats) + 1)) 10
p1=$(last_stat preempt)
spin_progress 1
mlb_check_enabled
cp $hist "$MLB_OUT/" 2>/dev/null
read -r n p50 p99 max < <(awk '/^#/ { next }
	NF > 1 { c = 0; for (i = 2; i <= NF; i++) c += $i; if (c) { b[++k] = $1 + 0; v[k] = c; n += c } }
	END {
		for (i = 1; i <= k; i++) {
			s += v[i]
			if (p50 == "" && s >= 0.5 * n) p50 = b[i]
			if (p99 == "" && s >= 0.99 * n) p99 = b[i]
		}
		print n + 0, p50 + 0, p99 + 0, b[k] + 0
	}' $hist)
note "cyclictest beside $((2 * $(nproc))) hogs: $n wake-ups, p50 ${p50} us, p99 ${p99} us, max ${max} us; preemptions $p0 -> $p1"
[ "$n" -gt 100 ] || fail "cyclictest recorded only $n wake-ups"
[ "$p1" -gt "$p0" ] || fail "no wake-up preemption (preempt stayed $p0)"
[ "$p50" -lt "$P50_BOUND_US" ] || fail "median wake-up latency $p50 us, bound $P50_BOUND_US us"
spin_stop
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "scx_mlb exit status $MLB_RC after SIGINT, expected 0"
echo "wake-preempt: ok (p50 $p50 us, p99 $p99 us, $((p1 - p0)) preemptions)"
