#!/usr/bin/env bash
# scx_mlb test runner.
#
#   tests/run.sh [unit|vm|@oldest|@6.18|NAME...]
#
# Runs the host unit tests (build/tests/unit/NAME for every tests/unit/test_NAME.c, every
# tests/unit/*.sh) and the guest scenarios (tests/vm/scenarios/*.sh, each booted in its own
# test guest by tests/vm/scenario.sh). Prints one line per test, "ok - NAME" or "not ok - NAME"
# (a test that exits 77 is skipped: "ok - NAME # SKIP"), then "N passed, N failed". Exit status
# 1 if any test failed, 2 if an argument names no test (one line on stderr, nothing run).
# Per-test output goes to build/test-logs/NAME.log and is shown on failure.
#
# Each run exports a fresh MLB_RUN_ID (also in build/test-logs/run-id): a scenario that
# reuses another's output (vm/train: vm/collect's dataset, vm/infer: vm/train's model) does so
# only when the producer recorded the same id beside it, i.e. ran in this run of the suite.
#
# Strict mode (CI=true, or MLB_TEST_STRICT=1, which `make test` sets): a skip is a failure,
# unless the test is named in MLB_ALLOW_SKIP ("vm/attach unit/nn-bpf-exact"; "vm" or "unit"
# allows a whole part). A suite that tests nothing must not pass.
# Each unit test gets MLB_UNIT_TIMEOUT seconds (300: the slowest, the fuzzers, take ~25 s);
# a unit test that runs longer is killed and fails. Guest scenarios have their own timeouts
# (the `# timeout:` header, enforced by tests/vm/guest.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
B=build
logs=$B/test-logs
mkdir -p "$logs/unit" "$logs/vm"
unit_timeout=${MLB_UNIT_TIMEOUT:-300}
strict=0
[ "${CI:-}" = true ] || [ "${MLB_TEST_STRICT:-0}" = 1 ] && strict=1

declare -a names cmds
# Only executables whose source still exists: a binary left in build/ by a deleted or renamed
# test is not a test. A test whose source exists but was not built fails (not run silently).
for src in tests/unit/test_*.c; do
	[ -f "$src" ] || continue
	n=${src#tests/unit/test_}
	n=${n%.c}
	names+=("unit/$n")
	cmds+=("unitbin $B/tests/unit/$n")
done
for t in tests/unit/*.sh; do
	[ -f "$t" ] || continue
	names+=("unit/$(basename "$t" .sh)")
	cmds+=("unitsh $t")
done
# The data pipeline first, in its order (vm/train uses vm/collect's dataset, vm/infer
# vm/train's model; each makes its own when run alone), then the rest.
# A scenario with a `# manual: WHY` header runs only when named (vm/NAME or NAME): it is
# known to fail sometimes for a reason WHY gives, and must not make the suite flaky.
declare -A seen=() manual=()
for t in tests/vm/scenarios/{collect,train,infer}.sh tests/vm/scenarios/*.sh; do
	[ -f "$t" ] && [ -z "${seen[$t]:-}" ] || continue
	seen[$t]=1
	names+=("vm/$(basename "$t" .sh)")
	cmds+=("bash tests/vm/scenario.sh $t")
	manual["vm/$(basename "$t" .sh)"]=$(sed -n '1,30s/^# *manual: *//p' "$t" | head -n1)
done

# The kernel matrix: a subset of the scenarios again on the oldest sched_ext kernel Debian
# ships and on the newest 6.18 (LTS) build, as vm/NAME@oldest and vm/NAME@6.18; the rest runs
# on build/kernel, the newest. tests/vm/fetch-kernel.sh resolves the versions (`make kernels`
# fetches them into build/kernel-oldest and build/kernel-6.18). They run with MLB_SHORT=1: the
# same checks with shorter load phases (scenario-lib.sh's short()), for the suite's budget.
# lat-preempt runs on the oldest only: its preemption reads the running task's class from
# scx_mlb's own per-CPU state, not scx_bpf_cpu_curr() (6.18+), so 6.16 is the kernel that
# could differ; 6.18 would add ~50 s to the budget and test the same path as 7.3.
matrix_kernels=(oldest 6.18)
matrix_scenarios=(attach sigint stress balance infer hotplug)
declare -A matrix_extra=([oldest]=lat-preempt)
for k in "${matrix_kernels[@]}"; do
	# shellcheck disable=SC2206 # a space-separated list
	extra=(${matrix_extra[$k]:-})
	for m in "${matrix_scenarios[@]}" "${extra[@]}"; do
		t=tests/vm/scenarios/$m.sh
		names+=("vm/$m@$k")
		cmds+=("env MLB_KERNEL_DIR=$B/kernel-$k MLB_SCENARIO_SUFFIX=@$k MLB_SHORT=1 bash tests/vm/scenario.sh $t")
		manual["vm/$m@$k"]=${manual["vm/$m"]}
	done
done

unitbin() { # a unit test binary, under the per-test timeout
	[ -x "$1" ] || { echo "not built: $1 (make all)"; return 1; }
	timeout -k 10 "$unit_timeout" "$1"
	unit_rc $?
}
unitsh() {
	timeout -k 10 "$unit_timeout" bash "$1"
	unit_rc $?
}
unit_rc() {
	[ "$1" -eq 124 ] || [ "$1" -eq 137 ] && echo "timed out after ${unit_timeout}s (MLB_UNIT_TIMEOUT), or killed"
	return "$1"
}

# match NAME PATTERN: NAME is selected by PATTERN (unit, vm, unit/x, vm/x, a bare x, or
# @KERNEL: the kernel matrix's scenarios on that kernel)
match() {
	case "$2" in
	unit | vm) [[ $1 == "$2"/* ]] ;;
	@*) [[ $1 == vm/*"$2" ]] ;;
	*) [[ $1 == "$2" || $1 == *"/$2" ]] ;;
	esac
}
want() { # NAME -> selected by the arguments?
	local n=$1 a
	shift
	[ $# -eq 0 ] && return 0
	for a in "$@"; do match "$n" "$a" && return 0; done
	return 1
}
# every pattern of a list must select a test: a typo must not pass by testing nothing
check_patterns() { # WHAT PATTERN...
	local what=$1 a n ok
	shift
	for a in "$@"; do
		ok=0
		for n in "${names[@]}"; do match "$n" "$a" && { ok=1; break; }; done
		[ $ok = 1 ] || { echo "run.sh: $what '$a' names no test (unit, vm, unit/NAME or vm/NAME)" >&2; exit 2; }
	done
}
check_patterns "argument" "$@"
read -r -a allow_skip <<<"${MLB_ALLOW_SKIP:-}"
check_patterns "MLB_ALLOW_SKIP entry" "${allow_skip[@]}"
skip_allowed() { [ $strict = 0 ] || want "$1" "${allow_skip[@]}"; }
# MLB_ALLOW_SKIP empty: nothing is allowed in strict mode (want with no pattern says yes)
[ ${#allow_skip[@]} -gt 0 ] || skip_allowed() { [ $strict = 0 ]; }

MLB_RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)-$$-$RANDOM
export MLB_RUN_ID
echo "$MLB_RUN_ID" >"$logs/run-id"

pass=0 fail=0 skip=0
t0=$SECONDS
for i in "${!names[@]}"; do
	n=${names[$i]}
	want "$n" "$@" || continue
	if [ -n "${manual[$n]:-}" ]; then
		named=0
		for a in "$@"; do [[ $a == "$n" || "vm/$a" == "$n" ]] && named=1; done
		[ $named = 1 ] || { echo "# not run (manual, name it to run it): $n: ${manual[$n]}"; continue; }
	fi
	log=$logs/$n.log
	s=$SECONDS
	${cmds[$i]} >"$log" 2>&1 </dev/null
	rc=$?
	dt=$((SECONDS - s))
	if [ $rc -eq 0 ]; then
		echo "ok - $n (${dt}s)"
		pass=$((pass + 1))
		# key lines a scenario reports (vm/stress-64: scale_*), printed with its result;
		# scenario.sh empties the scenario's folder first, so the file is this run's
		[ -s "$logs/$n/keys.txt" ] && sed 's/^/# /' "$logs/$n/keys.txt"
	elif [ $rc -eq 77 ] && skip_allowed "$n"; then
		echo "ok - $n # SKIP $(tail -n1 "$log")"
		skip=$((skip + 1))
	elif [ $rc -eq 77 ]; then
		echo "not ok - $n # SKIP not allowed in strict mode (CI / make test; MLB_ALLOW_SKIP=\"$n\" allows it): $(tail -n1 "$log")"
		fail=$((fail + 1))
	else
		echo "not ok - $n (exit $rc, ${dt}s)"
		# the cause first (a long log's tail can be all stats lines), then the tail, cut to
		# 300 columns so that a CI log that keeps only part of the output keeps the cause
		grep -a -m 20 -E '^(FAIL|not ok|trace:)' "$log" | cut -c1-300 | sed 's/^/#   cause: /'
		tail -n 30 "$log" | cut -c1-300 | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
done
echo "# total $((SECONDS - t0))s"
if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ $fail -eq 0 ]
