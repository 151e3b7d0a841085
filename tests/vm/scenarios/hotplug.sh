#!/usr/bin/env bash
# topo: flat4
# timeout: 480
# CPU hotplug under load. sched_ext asks a scheduler to restart when a CPU goes offline or
# online; scx_mlb restarts (it reloads and reattaches: the documented behaviour, see the
# README's Reliability section). With 4 spinners running, CPU 3 goes offline, then online:
# after each change scx_mlb is attached again (a new "attached" line, state enabled,
# root/ops scx_mlb), its topology has the CPUs that are online, every spinner keeps getting
# CPU time, and SIGINT ends it with status 0.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
ONLINE=/sys/devices/system/cpu/cpu3/online
[ -w $ONLINE ] || skip "CPU 3 cannot be hotplugged in this guest"
trap spin_stop EXIT

mlb_start --stats 1
mlb_wait_enabled
wait_stats 1 30
spin_start 4
spin_progress 3

# reattached N: until the log has N "attached" lines and the scheduler is enabled again
reattached() {
	local lim=$(($(now_ms) + 240000))
	while [ "$(count_lines '^scx_mlb: attached')" -lt "$1" ]; do
		[ "$(now_ms)" -lt $lim ] || fail "no reattach ($1) within 240 s"
		kill -0 "$MLB_PID" 2>/dev/null || fail "scx_mlb exited instead of restarting"
		zzz 0.5
	done
	mlb_wait_enabled 240
}

t0=$(now_ms)
echo 0 >$ONLINE || fail "cannot take CPU 3 offline"
note "CPU 3 offline after $(($(now_ms) - t0)) ms"
reattached 2
note "reattached after $(($(now_ms) - t0)) ms"
[ "$(rd $ONLINE)" = 0 ] || fail "CPU 3 is online again by itself"
grep -aq 'topology: .* 3 cpus' "$MLB_LOG" || fail "the restarted scheduler did not see 3 CPUs"
wait_stats $(($(nstats) + 2)) 30
spin_progress 3

t0=$(now_ms)
echo 1 >$ONLINE || fail "cannot bring CPU 3 back online"
note "CPU 3 online after $(($(now_ms) - t0)) ms"
reattached 3
note "reattached after $(($(now_ms) - t0)) ms"
[ "$(count_lines 'topology: .* 4 cpus')" -ge 2 ] || fail "the scheduler did not see 4 CPUs again"
wait_stats $(($(nstats) + 2)) 30
spin_progress 3
mlb_check_enabled

restarts=$(count_lines 'the kernel asked for a restart')
[ "$restarts" -ge 2 ] || fail "$restarts restarts logged, expected 2"
spin_stop
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
echo "hotplug: ok ($restarts restarts, spinners ran throughout)"
