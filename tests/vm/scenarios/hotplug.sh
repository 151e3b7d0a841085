#!/usr/bin/env bash
# topo: numa2x2
# timeout: 600
# CPU hotplug under load. sched_ext asks a scheduler to restart when a CPU goes offline or
# online; scx_mlb restarts (it reloads and reattaches: the documented behaviour, see the
# README's Reliability section). Running in infer mode with a model and recording, with 2
# spinners running, CPU 7 goes offline, then online: after each change scx_mlb is attached
# again (a new "attached" line, state enabled, root/ops its ops name), its topology has the CPUs
# that are online, every spinner keeps getting CPU time, the model is deployed again (the
# BPF side runs generation 1) and the same dataset keeps growing, readable; SIGINT -> 0.
# MLB_SHORT (the kernel matrix) runs 1 spinner and skips the check before the first change:
# the dataset is then shown kept across one restart (CPU 7 online again), not two.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
ONLINE=/sys/devices/system/cpu/cpu7/online
STATE=/tmp/mlb-state
corpus_model 4-2
MODEL=$CORPUS_MODEL
[ -w $ONLINE ] || skip "CPU 7 cannot be hotplugged in this guest"
rm -rf $STATE
cp $MODEL /tmp/hp.mlb
chmod 0644 /tmp/hp.mlb
trap spin_stop EXIT

mlb_start --mode infer --model /tmp/hp.mlb --state-dir $STATE --stats 1
mlb_wait_enabled
wait_stats 1 30
# 2, not 4: on single-threaded TCG each spinner slows the reload (24 s with 2, 50 s with 4);
# 1 in the kernel matrix (MLB_SHORT), for the suite's budget
spin_start "$(short 2 1)"
spin_progress 1


# check_model_and_data PHASE: the model decides again and the dataset grew, readable
rows_prev=0
check_model_and_data() {
	local c r
	mixed_load 3 "$1"
	wait_stats $(($(nstats) + 1)) 30
	[ "$(last_stat live_gen)" = 1 ] || fail "$1: the BPF side runs generation $(last_stat live_gen), not 1"
	[ "$(last_stat by_model)" -gt 0 ] || fail "$1: the model makes no decision after the restart"
	c=$("$MLB_ROOT/build/mlb-model" check $STATE/dataset.csv 2>&1) || fail "$1: dataset unreadable: $c"
	r=${c#rows=}
	r=${r%% *}
	[ "$r" -gt "$rows_prev" ] || fail "$1: the dataset did not grow ($rows_prev -> $r rows)"
	note "$1: model generation 1 deciding, dataset $rows_prev -> $r rows"
	rows_prev=$r
}
[ "$(short 1 0)" = 1 ] && check_model_and_data start

t0=$(now_ms)
echo 0 >$ONLINE || fail "cannot take CPU 7 offline"
note "CPU 7 offline after $(($(now_ms) - t0)) ms"
mlb_wait_reattached 2
note "reattached after $(($(now_ms) - t0)) ms"
[ "$(rd $ONLINE)" = 0 ] || fail "CPU 7 is online again by itself"
grep -aq 'topology: .* 7 cpus' "$MLB_LOG" || fail "the restarted scheduler did not see 7 CPUs"
check_model_and_data offline
wait_stats $(($(nstats) + 2)) 30
spin_progress 1

t0=$(now_ms)
echo 1 >$ONLINE || fail "cannot bring CPU 7 back online"
note "CPU 7 online after $(($(now_ms) - t0)) ms"
mlb_wait_reattached 3
note "reattached after $(($(now_ms) - t0)) ms"
[ "$(count_lines 'topology: .* 8 cpus')" -ge 2 ] || fail "the scheduler did not see 8 CPUs again"
check_model_and_data online
wait_stats $(($(nstats) + 2)) 30
spin_progress 1
mlb_check_enabled

restarts=$(count_lines 'the kernel asked for a restart')
[ "$restarts" -ge 2 ] || fail "$restarts restarts logged, expected 2"
spin_stop
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
echo "hotplug: ok ($restarts restarts, spinners ran throughout, model and dataset kept)"
