#!/usr/bin/env bash
# topo: flat4
# timeout: 360
# 30 s of stress-ng --aggressive (cpu, fork, affinity, yield) plus hackbench under scx_mlb:
# the scheduler stays enabled, both workloads exit 0 and leave no process behind, scx_mlb exits
# 0 on SIGINT, and scenario.sh finds no BUG/WARNING/stall on the console.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
cd /tmp
mlb_start --stats 5
mlb_wait_enabled
note "stress-ng and hackbench for 30 s"
stress-ng --aggressive --temp-path /tmp --timeout 30s --metrics-brief \
	--cpu 4 --fork 4 --affinity 4 --yield 4 >"$MLB_OUT/stress-ng.log" 2>&1 &
sp=$!
hb_rc=0 hb_n=0
t_end=$(($(now_ms) + 28000))
while [ "$(now_ms)" -lt $t_end ]; do
	hackbench -g 4 -l 50 >>"$MLB_OUT/hackbench.log" 2>&1 || { hb_rc=$?; break; }
	hb_n=$((hb_n + 1))
done
wait $sp
sp_rc=$?
note "stress-ng exit $sp_rc; hackbench runs $hb_n, exit $hb_rc"
tail -n 8 "$MLB_OUT/stress-ng.log"
[ $sp_rc = 0 ] || fail "stress-ng exit status $sp_rc (log: stress-ng.log)"
[ $hb_rc = 0 ] || fail "hackbench exit status $hb_rc (log: hackbench.log)"
[ $hb_n -ge 1 ] || fail "hackbench never completed a run"
mlb_check_enabled
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "scx_mlb exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
zzz 1
left=$(pgrep -l 'stress-ng|hackbench')
[ -z "$left" ] || fail "workload processes left: $left"
echo "stress: ok"
