#!/usr/bin/env bash
# topo: numa2x2
# timeout: 480
# The daemon stopped (SIGSTOP) for 20 s under load, in collect mode: scheduling is BPF's job,
# user space only records, so the scheduler stays enabled, spinners and hackbench runs keep
# making progress, and the console shows no stall (scenario.sh checks it). Nobody drains the
# ring buffers meanwhile: once they are full the BPF side must count what it cannot record
# (decision_drops > 0), and nothing may be lost silently (bpf_decisions = received +
# decision_drops); the ring buffers are made small (--ring-kb 16: about 110 decisions) so that
# they fill up within the 20 s. After SIGCONT the stats lines resume, SIGINT -> status 0.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
STOP_S=20
trap spin_stop EXIT
cd /tmp

rm -rf /tmp/mlb-state
mlb_start --mode collect --state-dir /tmp/mlb-state --stats 1 --ring-kb 16
mlb_wait_enabled
wait_stats 2 30
spin_start 3
spin_progress 2

stress-ng --temp-path /tmp --timeout ${STOP_S}s --cpu 6 --cpu-load 60 >"$MLB_OUT/stress-ng.log" 2>&1 &
sp=$!
kill -STOP "$MLB_PID"
n0=$(nstats)
t_end=$(($(now_ms) + STOP_S * 1000))
hb=0
while [ "$(now_ms)" -lt $t_end ]; do
	hackbench -g 4 -l 20 >>"$MLB_OUT/hackbench.log" 2>&1 || fail "hackbench failed while the daemon was stopped"
	hb=$((hb + 1))
	st=$(rd $SCX/state) ops=$(rd $SCX/root/ops)
	[ "$st" = enabled ] && [ "$ops" = "$MLB_OPS" ] || fail "scheduler gone while stopped: state=$st ops=$ops"
done
spin_progress 1
wait $sp
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
note "$(grep -a '^scx_mlb: summary:' "$MLB_LOG")"
made=$(summary_field bpf_decisions) got=$(summary_field received) dropped=$(summary_field decision_drops)
[ "${dropped:-0}" -gt 0 ] || fail "no decision record dropped in $STOP_S s without a reader ($made made)"
[ "$made" = $((got + dropped)) ] || fail "decisions made $made != received $got + dropped $dropped"
echo "sigstop: ok ($hb hackbench runs while stopped, stats resumed; $dropped of $made records dropped, all counted)"
