#!/usr/bin/env bash
# topo: flat4
# timeout: 420
# Thousands of short-lived tasks (stress-ng fork, vfork and clone stressors, STORM_S s): no
# stall (scenario.sh checks the console), the scheduler stays enabled, at least MIN_FORKS
# tasks were created, and afterwards the BPF side holds no more task contexts than before the
# storm plus SLACK (the stats line's task_ctxs: contexts are freed in ops.exit_task).
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
STORM_S=${STORM_S:-12}
MIN_FORKS=2000
SLACK=16
cd /tmp

mlb_start --stats 1
mlb_wait_enabled
wait_stats 3 30
before=$(last_stat task_ctxs)
[ -n "$before" ] || fail "no task_ctxs in the stats line"
note "before the storm: task_ctxs=$before tasks=$(last_stat tasks)"

stress-ng --temp-path /tmp --timeout ${STORM_S}s --metrics-brief \
	--fork 2 --vfork 1 --clone 1 >"$MLB_OUT/stress-ng.log" 2>&1
rc=$?
tail -n 6 "$MLB_OUT/stress-ng.log"
[ $rc = 0 ] || fail "stress-ng exit status $rc"
forks=0
re='metrc: \[[0-9]+\] (fork|vfork|clone) +([0-9]+) +[0-9.]+ +[0-9.]+'
while IFS= read -r l; do
	[[ $l =~ $re ]] && forks=$((forks + BASH_REMATCH[2]))
done <"$MLB_OUT/stress-ng.log"
note "tasks created by stress-ng: $forks"
[ "$forks" -ge $MIN_FORKS ] || fail "only $forks tasks created, expected >= $MIN_FORKS"
mlb_check_enabled

zzz 2
wait_stats $(($(nstats) + 2)) 30
after=$(last_stat task_ctxs)
note "after the storm: task_ctxs=$after tasks=$(last_stat tasks)"
[ "$after" -le $((before + SLACK)) ] || fail "task_ctxs grew from $before to $after"
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
echo "fork-storm: ok ($forks tasks created, task_ctxs $before -> $after)"
