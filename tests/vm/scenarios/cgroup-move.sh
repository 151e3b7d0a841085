#!/usr/bin/env bash
# topo: numa2x2
# timeout: 420
# Tasks moved between cgroups (v2) while scx_mlb runs: cgroup mlbA is unrestricted, mlbB has
# cpuset.cpus 4-5 (another node). 4 spinners are moved back and forth every round for
# MOVE_S seconds (a write to cgroup.procs). A spinner in mlbB must run on CPUs 4-5 only
# (checked right after the move and 0.3 s later), Cpus_allowed_list must follow the cgroup,
# the scheduler must stay enabled without error and the spinners must keep running.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
MOVE_S=${MOVE_S:-15}
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
t_end=$(($(now_ms) + MOVE_S * 1000))
while [ "$(now_ms)" -lt $t_end ]; do
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
	mlb_check_enabled "during round $rounds"
	rounds=$((rounds + 1))
done
note "$rounds rounds, $moves moves"
[ $rounds -ge 3 ] || fail "only $rounds rounds in $MOVE_S s"
for p in "${SPIN_PIDS[@]}"; do echo "$p" >$CG/mlbA/cgroup.procs; done
spin_progress 3
mlb_check_enabled
cleanup
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
echo "cgroup-move: ok ($rounds rounds, $moves moves)"
