#!/usr/bin/env bash
# topo: flat4
# timeout: 420
# The daemon stopped (SIGSTOP) for 20 s under load: scheduling is BPF's job, user space only
# reports, so the scheduler stays enabled, spinners and hackbench runs keep making progress,
# and the console shows no stall (scenario.sh checks it). After SIGCONT the stats lines resume
# and SIGINT ends it with status 0.
# (Ring buffer overflow and drop counters belong to the learning loop: extend here.)
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
STOP_S=20
trap spin_stop EXIT
cd /tmp

mlb_start --stats 1
mlb_wait_enabled
wait_stats 2 30
spin_start 3
spin_progress 2

kill -STOP "$MLB_PID"
n0=$(nstats)
t_end=$(($(now_ms) + STOP_S * 1000))
hb=0
while [ "$(now_ms)" -lt $t_end ]; do
	hackbench -g 2 -l 20 >>"$MLB_OUT/hackbench.log" 2>&1 || fail "hackbench failed while the daemon was stopped"
	hb=$((hb + 1))
	st=$(rd $SCX/state) ops=$(rd $SCX/root/ops)
	[ "$st" = enabled ] && [ "$ops" = scx_mlb ] || fail "scheduler gone while stopped: state=$st ops=$ops"
done
spin_progress 1
n1=$(nstats)
note "daemon stopped $STOP_S s: $hb hackbench runs, stats lines $n0 -> $n1"
[ $hb -ge 1 ] || fail "no hackbench run completed while the daemon was stopped"
[ $((n1 - n0)) -le 1 ] || fail "stats lines kept coming while the daemon was stopped"

kill -CONT "$MLB_PID"
wait_stats $((n1 + 2)) 30
mlb_check_enabled
spin_stop
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
echo "sigstop: ok ($hb hackbench runs while stopped, stats resumed)"
