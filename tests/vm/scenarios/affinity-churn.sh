#!/usr/bin/env bash
# topo: numa2x2
# timeout: 420
# Affinity and nice churn while the balancer runs: 4 spinners get a new random CPU set
# (taskset, across domains and nodes) and a new nice value (renice) in each of ROUNDS rounds
# (every fork costs about a second in this guest under load, so rounds, not seconds). After
# each change, and again 0.3 s later, every spinner must sit on a CPU of its set
# (/proc/PID/stat field 39; the kernel moves a task off a disallowed CPU before
# sched_setaffinity returns, so from then on only the scheduler places it), the scheduler must
# stay enabled without error, and every spinner must gain CPU time (utime + stime) in every
# round: placement alone the kernel guarantees; progress under the new set and weight is what
# the scheduler must give.
# The progress bound, GAIN_S: the worst round puts a nice-19 spinner (sched_ext weight 1) on
# one CPU with three nice -5 ones (weight 305 each). With vtime advancing by runtime x 100 /
# weight, after one 20 ms slice it waits until the others have run 3 x 20 ms x 305 = 18 s; and
# /proc counts CPU time in 10 ms ticks, so one slice shows. Worst case ~18 s of guest time
# (slices are wall-clock time, TCG slowness does not stretch them): GAIN_S = 60 s covers it
# with margin; a starved spinner never gains.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
ROUNDS=${CHURN_ROUNDS:-3}
GAIN_S=60
SETS=("0-7" "0-1" "2-3" "4-7" "0,7" "1,4,6" "5" "2-5" "0-3" "3,4")
trap spin_stop EXIT

mlb_start --stats 1
mlb_wait_enabled
wait_stats 1 30
spin_start 4
spin_progress 2

declare -A want=()
# check_placement: every spinner on a CPU of its set
check_placement() {
	local p c
	for p in "${SPIN_PIDS[@]}"; do
		c=$(task_cpu "$p")
		[ -n "$c" ] || fail "spinner $p is gone"
		cpu_in_list "$c" "${want[$p]}" || fail "spinner $p on CPU $c, allowed ${want[$p]} ($1)"
	done
}
rounds=0 checks=0
t0=$(now_ms)
while [ $rounds -lt $ROUNDS ]; do
	spin_mark
	for p in "${SPIN_PIDS[@]}"; do
		set=${SETS[RANDOM % ${#SETS[@]}]}
		taskset -p -c "$set" "$p" >/dev/null || fail "taskset $set $p failed"
		want[$p]=$set
		renice -n $((RANDOM % 25 - 5)) -p "$p" >/dev/null || fail "renice $p failed"
	done
	check_placement "right after the change"
	zzz 0.3
	check_placement "0.3 s later"
	checks=$((checks + 2 * ${#SPIN_PIDS[@]}))
	spin_gained $GAIN_S "churn round $rounds"
	note "round $rounds: every spinner gained CPU time within $SPIN_GAIN_MS ms after the checks"
	mlb_check_enabled "during churn round $rounds"
	rounds=$((rounds + 1))
done
note "$rounds rounds, $checks placement checks in $(($(now_ms) - t0)) ms"
for p in "${SPIN_PIDS[@]}"; do taskset -p -c 0-7 "$p" >/dev/null; done
spin_progress 3
wait_stats $(($(nstats) + 1)) 30
note "last stats: $LAST_STATS"
mlb_check_enabled
spin_stop
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
echo "affinity-churn: ok ($rounds rounds, $checks placement checks)"
