#!/usr/bin/env bash
# unit/trace-report: bench/trace-report.py on a hand-written trace whose answer is known: one
# wake-up move off a busy CPU, one move that is not a wake-up, a wake-up that stays on its
# busy CPU, one on its idle CPU, and a kernel thread's wake-up that is left out; an empty trace
# is refused with exit 1 and one line on stderr, no argument with exit 2.
set -u
cd "$(dirname "$0")/../.." || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
sw() { # CPU TIME PREV_COMM PREV_PID PREV_STATE NEXT_COMM NEXT_PID
	printf '  %s-%s [%03d] d..2. %s: sched_switch: prev_comm=%s prev_pid=%s prev_prio=120 prev_state=%s ==> next_comm=%s next_pid=%s next_prio=120\n' \
		"$3" "$4" "$1" "$2" "$3" "$4" "$5" "$6" "$7"
}
mig() { # CPU TIME COMM PID ORIG DEST
	printf '  x-1 [%03d] d..2. %s: sched_migrate_task: comm=%s pid=%s prio=120 orig_cpu=%s dest_cpu=%s\n' \
		"$1" "$2" "$3" "$4" "$5" "$6"
}
wk() { # CPU TIME COMM PID TARGET
	printf '  x-1 [%03d] d..2. %s: sched_wakeup: comm=%s pid=%s prio=120 target_cpu=%03d\n' \
		"$1" "$2" "$3" "$4" "$5"
}
{
	echo "# tracer: nop"
	sw 0 1.000000 gcc 300 S cc1 100               # gcc sleeps on CPU 0, cc1 runs there
	sw 1 1.000100 swapper/1 0 R as 200
	sw 1 1.000200 as 200 S swapper/1 0            # CPU 1 idles
	sw 3 1.000250 make 400 S swapper/3 0          # CPU 3 idles after make
	mig 0 1.000300 gcc 300 0 1                    # gcc wakes, CPU 0 busy: moved (wake)
	wk 0 1.000301 gcc 300 1
	sw 1 1.000400 swapper/1 0 R gcc 300
	mig 2 1.000500 cc1 100 0 2                    # cc1 moved to CPU 2: not a wake-up
	sw 2 1.000501 swapper/2 0 R cc1 100
	wk 2 1.000600 as 200 1                        # as wakes on its busy CPU 1: stays
	wk 2 1.000700 kworker/1:0 50 1                # a kernel thread: not counted
	wk 2 1.000800 make 400 3                      # make wakes on its idle CPU 3
} >"$work/seq-x.txt"
expected="x_migrations=2
x_migr_wake=1
x_migr_other=1
x_user_wakeups=3
x_user_wakeups_prev_busy=2
x_user_wakeups_prev_busy_moved=1
x_user_wakeups_prev_idle_moved=0
x_prev_busy_pct=66.7
x_moved_when_busy_pct=50.0"
out=$(python3 bench/trace-report.py "$work/seq-x.txt" 2>"$work/err")
rc=$?
[ $rc -eq 0 ] || fail "exit $rc on the example: $(cat "$work/err")"
got=$(grep -v '^#' <<<"$out")
[ "$got" = "$expected" ] || fail "key=value lines
$got
expected
$expected"
grep -q '^# x: migrations by task (wake + other): gcc 1+0, cc1 0+1$' <<<"$out" ||
	fail "the by-task line: $(grep 'by task' <<<"$out")"
grep -q '^# x: a user wake-up found its previous CPU running: cc1 1, gcc 1$' <<<"$out" ||
	fail "the occupants line: $(grep 'previous CPU' <<<"$out")"

: >"$work/seq-empty.txt"
python3 bench/trace-report.py "$work/seq-empty.txt" >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 1 ] || fail "empty trace: exit $rc, expected 1"
[ "$(wc -l <"$work/err")" = 1 ] || fail "empty trace: stderr has $(wc -l <"$work/err") lines, expected 1"
python3 bench/trace-report.py >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || fail "no argument: exit $rc, expected 2"

[ $fails -eq 0 ] || exit 1
echo "ok: trace-report"
