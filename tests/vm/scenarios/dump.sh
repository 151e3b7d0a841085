#!/usr/bin/env bash
# topo: flat4
# timeout: 300
# allow: sched_ext: BPF scheduler "scx_mlb_[^"]*" disabled \(runnable task stall\)
# allow: ^ +runnable task stall \(
# allow: ^scx_mlb: exit: kind=ERROR_STALL
# The debug dump carries scx_mlb's own state. (1) sysrq-D, scheduler running: the kernel's
# dump (to the sched_ext_dump trace event) has scx_mlb's lines from ops.dump (mode, every
# domain), ops.dump_cpu (queued work, expected wait) and ops.dump_task (where a runnable
# task is queued). (2) An error exit: CPU 1 is taken by a SCHED_FIFO spinner, with the
# deadline server that would give sched_ext tasks time beside it (ext_server, debugfs) off on
# that CPU, so a spinner pinned there starves and the watchdog (--watchdog-ms 2000) ends the
# scheduler with a runnable task stall. scx_mlb exits 1 and prints the kernel's debug dump,
# with its own lines, before the exit line, which stays the last line of its output.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
T=/sys/kernel/tracing
srv=(/sys/kernel/debug/sched/ext_server/cpu1/runtime)
rt_was=$(sysctl -n kernel.sched_rt_runtime_us)
srv_was=""
cleanup() {
	spin_stop
	[ -n "${hog:-}" ] && kill "$hog" 2>/dev/null
	[ -n "$srv_was" ] && echo "$srv_was" >"${srv[0]}"
	sysctl -qw kernel.sched_rt_runtime_us="$rt_was"
	echo 0 >$T/events/sched_ext/sched_ext_dump/enable 2>/dev/null
}
trap cleanup EXIT
[ -w "${srv[0]}" ] || fail "no ${srv[0]}: this kernel has no ext_server to turn off"
[ -d $T/events/sched_ext/sched_ext_dump ] || fail "no sched_ext_dump trace event"

mlb_start --stats 1 --watchdog-ms 2000
mlb_wait_enabled
spin_start 3
spin_progress 1

# (1) sysrq-D while it runs
echo >$T/trace
echo 1 >$T/events/sched_ext/sched_ext_dump/enable
echo D >/proc/sysrq-trigger
zzz 1
echo 0 >$T/events/sched_ext/sched_ext_dump/enable
cp $T/trace "$MLB_OUT/sysrq-dump.txt"
for want in 'scx_mlb: mode 0, model generation 0, 1 domains' 'scx_mlb: dom 0: load ' \
	'scx_mlb: cpu: queued work .* expected wait ' 'scx_mlb: task: queue cpu -\?[0-9], last cpu [0-3]'; do
	grep -aq "$want" "$MLB_OUT/sysrq-dump.txt" || fail "sysrq-D dump lacks '$want' (sysrq-dump.txt)"
done
note "sysrq-D: $(grep -ac 'scx_mlb: ' "$MLB_OUT/sysrq-dump.txt") scx_mlb lines in the dump"
mlb_check_enabled "after sysrq-D"

# (2) a runnable task stall, and the dump at the error exit
srv_was=$(cat "${srv[0]}")
echo 0 >"${srv[0]}" || fail "cannot turn the ext_server of CPU 1 off"
sysctl -qw kernel.sched_rt_runtime_us=-1
# The hog ends itself after 15 s, whatever else happens. While it runs, a task preempted on
# CPU 1 inside an RCU read-side section holds up every grace period, and the scheduler's exit
# waits for one: an unbounded hog that the script fails to kill (the script's own shell can
# be starved on CPU 1 too) wedged the whole guest until its timeout, with RCU stall reports
# from 21 s on. 15 s is well past the watchdog's 2 s and short of RCU's 21 s stall report.
taskset -c 1 chrt -f 50 bash -c 'end=$((SECONDS + 15)); while [ $SECONDS -lt $end ]; do :; done' &
hog=$!
taskset -c 1 bash -c 'while :; do :; done' &
SPIN_PIDS+=($!)
lim=$(($(now_ms) + 30000))
while kill -0 "$MLB_PID" 2>/dev/null; do
	[ "$(now_ms)" -lt $lim ] || fail "no error exit 30 s after starving a task on CPU 1 (the hog ran 15 s of it)"
	zzz 0.2
done
kill "$hog" 2>/dev/null || true
hog=""
mlb_stop INT
mlb_log_drain
[ "$MLB_RC" = 1 ] || fail "exit status $MLB_RC after the stall, expected 1"
last=$(tail -n1 "$MLB_LOG")
[[ $last == "scx_mlb: exit: kind=ERROR_STALL"* ]] || fail "last line is not the stall's exit line: $last"
sed -n '/^scx_mlb: debug dump/,/^scx_mlb: end of the debug dump/p' "$MLB_LOG" >"$MLB_OUT/exit-dump.txt"
[ -s "$MLB_OUT/exit-dump.txt" ] || fail "no debug dump before the exit line"
for want in 'runnable task stall' 'scx_mlb: mode 0, model generation 0, 1 domains' \
	'scx_mlb: dom 0: load ' 'scx_mlb: task: queue cpu 1, '; do
	grep -aq "$want" "$MLB_OUT/exit-dump.txt" || fail "the exit's debug dump lacks '$want' (exit-dump.txt)"
done
echo "dump: ok (sysrq-D and the stall's dump carry scx_mlb's lines; $(wc -l <"$MLB_OUT/exit-dump.txt") dump lines)"
