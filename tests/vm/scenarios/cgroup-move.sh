#!/usr/bin/env bash
# topo: numa2x2
# timeout: 420
# Tasks moved between cgroups (v2) while scx_mlb runs: cgroup mlbA is unrestricted, mlbB has
# cpuset.cpus 4-5 (another node). 4 spinners are moved at random every round, for ROUNDS
# rounds (a write to cgroup.procs). A spinner in mlbB must run on CPUs 4-5 only (checked right
# after the move and 0.3 s later), Cpus_allowed_list must follow the cgroup, the scheduler
# must stay enabled without error and every spinner must gain CPU time (utime + stime) in
# every round.
# Bounds: the property needs moves, not a rate, so the test counts rounds (it used to require
# 3 rounds in 15 s, which a loaded host can miss); the scenario's timeout bounds the whole.
# Per round, GAIN_S: the worst round puts all 4 spinners (nice 0, equal weight) in mlbB, on 2
# CPUs: each is entitled to half a CPU, so one 10 ms tick of CPU time takes ~20 ms plus at
# most 3 slices (60 ms) of waiting. GAIN_S = 30 s is a hundredfold margin for a starved TCG
# vCPU; a spinner the scheduler forgets never gains.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
ROUNDS=${MOVE_ROUNDS:-6}
GAIN_S=30
CG=/sys/fs/cgroup
B_CPUS=4-5
[ -f $CG/cgroup.controllers ] || skip "no cgroup v2 at $CG"
grep -qw cpuset $CG/cgroup.controllers || skip "no cpuset controller"
cleanup() {
	local p
	for p in "${SPIN_PIDS[@]}"; do echo "$p" >$CG/cgroup.procs 2>/dev/null; done
	spin_stop
	rmdir $CG/mlbA $CG/mlbB 2>/dev/null
}
trap cleanup EXIT
echo +cpuset >$CG/cgroup.subtree_control || fail "cannot enable the cpuset controller"
mkdir -p $CG/mlbA $CG/mlbB || fail "cannot create cgroups"
echo $B_CPUS >$CG/mlbB/cpuset.cpus || fail "cannot restrict mlbB to $B_CPUS"
echo 1 >$CG/mlbB/cpuset.mems 2>/dev/null

mlb_start --stats 1
mlb_wait_enabled
wait_stats 1 30
spin_start 4
spin_progress 2

# allowed PID -> its Cpus_allowed_list (no fork)
allowed() {
	local k v
	while read -r k v; do [ "$k" = Cpus_allowed_list: ] && { echo "$v"; return; }; done <"/proc/$1/status"
}
declare -A in_b=()
check() {
	local p c
	for p in "${SPIN_PIDS[@]}"; do
		[ "${in_b[$p]}" = 1 ] || continue
		c=$(task_cpu "$p")
		cpu_in_list "$c" $B_CPUS || fail "spinner $p in mlbB on CPU $c ($1)"
		[ "$(allowed "$p")" = $B_CPUS ] || fail "spinner $p in mlbB allows $(allowed "$p")"
	done
}
rounds=0 moves=0
t0=$(now_ms)
while [ $rounds -lt $ROUNDS ]; do
	spin_mark
	for p in "${SPIN_PIDS[@]}"; do
		if ((RANDOM % 2)); then
			echo "$p" >$CG/mlbB/cgroup.procs || fail "cannot move $p to mlbB"
			in_b[$p]=1
		else
			echo "$p" >$CG/mlbA/cgroup.procs || fail "cannot move $p to mlbA"
			in_b[$p]=0
		fi
		moves=$((moves + 1))
	done
	check "right after the move"
	zzz 0.3
	check "0.3 s later"
	spin_gained $GAIN_S "round $rounds"
	note "round $rounds: every spinner gained CPU time within $SPIN_GAIN_MS ms after the checks"
	mlb_check_enabled "during round $rounds"
	rounds=$((rounds + 1))
done
note "$rounds rounds, $moves moves in $(($(now_ms) - t0)) ms"
for p in "${SPIN_PIDS[@]}"; do echo "$p" >$CG/mlbA/cgroup.procs; done
spin_progress 3
mlb_check_enabled
cleanup
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
echo "cgroup-move: ok ($rounds rounds, $moves moves)"
