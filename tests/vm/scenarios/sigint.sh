#!/usr/bin/env bash
# topo: flat4
# timeout: 300
# SIGINT detaches the scheduler: exit status 0, sched_ext state back to "disabled", and the
# "scx_mlb: exit: kind=..." line in its output (a user-space unregister, not an error).
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
mlb_start --stats 1
mlb_wait_enabled
wait_stats 2 30
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
line=$(grep -a '^scx_mlb: exit: ' "$MLB_LOG" | tail -n1)
[ -n "$line" ] || fail "no 'scx_mlb: exit:' line in its output"
note "exit line: $line"
[[ $line =~ kind=([A-Za-z_]+)\(([0-9]+)\) ]] || fail "exit line has no kind=NAME(num): $line"
kind=${BASH_REMATCH[1]}
case "$kind" in
*ERROR*) fail "exit kind $kind after SIGINT, expected a user-space unregister" ;;
esac
[[ "$(cat $SCX/root/ops 2>/dev/null)" != scx_mlb* ]] || fail "root/ops still $(cat $SCX/root/ops)"
echo "sigint: ok (kind=$kind, state=$(cat $SCX/state))"
