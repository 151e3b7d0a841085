#!/usr/bin/env bash
# topo: flat4
# timeout: 240
# Wake-up preemption (--wake-preempt-us): its contract, under two CPU hogs per CPU (every CPU
# busy, every queue non-empty) and a periodic SCHED_OTHER task (cyclictest, 2 threads, 2 ms):
# by default (0) no waking task ever preempts (the stats key preempt stays 0); with
# --wake-preempt-us 1000 waking tasks preempt the hogs (preempt grows). Both times every hog
# keeps getting CPU time, cyclictest completes and the scheduler stays enabled. The
# latencies are printed, not judged: under TCG the median swung from 2 to 13 ms between two
# runs with preemption on (BENCHMARKS.md has the measured effect).
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
trap spin_stop EXIT
hist=/tmp/cyclictest.hist

# run_case TAG ARGS...: scheduler with ARGS under the load; sets P0, P1 (preempt before and
# after cyclictest) and LAT (its wake-ups, p50, p99, max)
run_case() {
	local tag=$1
	shift
	MLB_LOG=$MLB_OUT/scx_mlb-$tag.log
	mlb_start --stats 1 "$@"
	mlb_wait_enabled
	spin_start $((2 * $(nproc)))
	spin_progress 1
	wait_stats $(($(nstats) + 1)) 10
	P0=$(last_stat preempt)
	[ -n "$P0" ] || fail "$tag: no preempt= key in the stats line: $LAST_STATS"
	cyclictest -q -t 2 --policy=other -i 2000 -D 5 -h 100000 --histfile=$hist \
		>"$MLB_OUT/cyclictest-$tag.log" 2>&1 ||
		fail "$tag: cyclictest failed: $(tail -n 2 "$MLB_OUT/cyclictest-$tag.log")"
	wait_stats $(($(nstats) + 1)) 10
	P1=$(last_stat preempt)
	spin_progress 1
	mlb_check_enabled "$tag"
	spin_stop # first: under 8 hogs the awk below took 14 s
	LAT=$(awk '/^#/ { next }
		NF > 1 { c = 0; for (i = 2; i <= NF; i++) c += $i; if (c) { b[++k] = $1 + 0; v[k] = c; n += c } }
		END {
			for (i = 1; i <= k; i++) {
				s += v[i]
				if (p50 == "" && s >= 0.5 * n) p50 = b[i]
				if (p99 == "" && s >= 0.99 * n) p99 = b[i]
			}
			printf "%d wake-ups, p50 %d us, p99 %d us, max %d us", n, p50, p99, b[k]
		}' $hist)
	note "$tag: cyclictest beside $((2 * $(nproc))) hogs: $LAT; preempt $P0 -> $P1"
	mlb_stop INT
	[ "$MLB_RC" = 0 ] || fail "$tag: scx_mlb exit status $MLB_RC after SIGINT, expected 0"
}

run_case default
[ "$P1" = 0 ] || fail "preemption is off by default, yet preempt=$P1"
off="$LAT"
run_case on --wake-preempt-us 1000
[ "$P1" -gt "$P0" ] || fail "--wake-preempt-us 1000: no wake-up preempted (preempt stayed $P0)"
echo "wake-preempt: ok (off: $off, preempt 0; on: $LAT, $((P1 - P0)) preemptions)"
