#!/usr/bin/env bash
# topo: flat4
# timeout: 300
# With --partial only SCHED_EXT (policy 7) tasks are scheduled by scx_mlb: two spinners set
# to SCHED_EXT show ext.enabled=1 in /proc/PID/sched, an ordinary spinner and this shell show
# 0, switch_all is 0, and the "tasks=" stat counts exactly the SCHED_EXT tasks.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
mlb_start --partial --stats 1
mlb_wait_enabled
sw=$(cat $SCX/switch_all)
[ "$sw" = 0 ] || fail "switch_all=$sw with --partial, expected 0"
wait_stats 2 30
t0=$(last_stat tasks)
note "tasks= before the SCHED_EXT spinners: $t0"
[ "$t0" = 0 ] || fail "tasks=$t0 with --partial and no SCHED_EXT task, expected 0"

bash -c 'while :; do :; done' &
plain=$!
ext=()
for i in 1 2; do
	python3 -c 'import os; os.sched_setscheduler(0, 7, os.sched_param(0)); os.execvp("bash", ["bash", "-c", "while :; do :; done"])' &
	ext+=($!)
done
cleanup() { kill "$plain" "${ext[@]}" 2>/dev/null; }
# Until each SCHED_EXT spinner has set its policy and become the spinning bash (python3 sets
# the policy, then execs): poll /proc/PID/cmdline for that, up to 60 s (starting python3 from
# 9p in this guest takes seconds). Not comm: between fork and exec the child is a copy of this
# shell, already named bash, which passed the wait before the policy was set (CI, stop 17).
want='bash -c while :; do :; done '
lim=$(($(now_ms) + 60000))
for p in "${ext[@]}"; do
	while [ "$(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)" != "$want" ]; do
		kill -0 "$p" 2>/dev/null || { cleanup; fail "SCHED_EXT spinner $p exited"; }
		[ "$(now_ms)" -lt $lim ] || { cleanup; fail "spinner $p did not exec bash within 60 s (comm $(rd /proc/$p/comm))"; }
		zzz 0.1
	done
done
for p in "${ext[@]}"; do
	pol=$(awk '/^policy/ {print $3}' /proc/$p/sched)
	e=$(ext_enabled $p)
	note "SCHED_EXT spinner $p: policy=$pol ext.enabled=$e"
	[ "$pol" = 7 ] || { cleanup; fail "spinner $p has policy $pol, expected 7"; }
	[ "$e" = 1 ] || { cleanup; fail "SCHED_EXT spinner $p not scheduled by sched_ext (ext.enabled=$e)"; }
done
e=$(ext_enabled $plain)
note "ordinary spinner $plain: ext.enabled=$e; this shell: ext.enabled=$(ext_enabled $$)"
[ "$e" = 0 ] || { cleanup; fail "ordinary task $plain is scheduled by sched_ext with --partial"; }
[ "$(ext_enabled $$)" = 0 ] || { cleanup; fail "this shell is scheduled by sched_ext with --partial"; }
n=$(nstats)
wait_stats $((n + 2)) 30
t1=$(last_stat tasks)
note "tasks= with 2 SCHED_EXT spinners: $t1"
grep -a '^stats ' "$MLB_LOG" | tail -n 2
[ "$t1" = 2 ] || { cleanup; fail "tasks=$t1 with 2 SCHED_EXT tasks, expected 2"; }
mlb_check_enabled
cleanup
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "scx_mlb exit status $MLB_RC after SIGINT, expected 0"
echo "partial: ok"
