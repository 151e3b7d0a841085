#!/usr/bin/env bash
# scx_mlb test runner.
#
#   tests/run.sh [unit|vm|NAME...]
#
# Runs the host unit tests (every executable in build/tests/unit, every tests/unit/*.sh) and
# the guest scenarios (tests/vm/scenarios/*.sh, each booted in its own test guest by
# tests/vm/scenario.sh). Prints one line per test, "ok - NAME" or "not ok - NAME" (a test that
# exits 77 is skipped: "ok - NAME # SKIP"), then "N passed, N failed". Exit status 1 if any
# test failed. Per-test output goes to build/test-logs/NAME.log and is shown on failure.
set -uo pipefail
cd "$(dirname "$0")/.."
B=build
logs=$B/test-logs
mkdir -p "$logs/unit" "$logs/vm"

declare -a names cmds
for t in "$B"/tests/unit/*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	names+=("unit/$(basename "$t")")
	cmds+=("$t")
done
for t in tests/unit/*.sh; do
	[ -f "$t" ] || continue
	names+=("unit/$(basename "$t" .sh)")
	cmds+=("bash $t")
done
# The data pipeline first, in its order (vm/train uses vm/collect's dataset, vm/infer
# vm/train's model; each makes its own when run alone), then the rest.
declare -A seen=()
for t in tests/vm/scenarios/{collect,train,infer}.sh tests/vm/scenarios/*.sh; do
	[ -f "$t" ] && [ -z "${seen[$t]:-}" ] || continue
	seen[$t]=1
	names+=("vm/$(basename "$t" .sh)")
	cmds+=("bash tests/vm/scenario.sh $t")
done

want() { # NAME -> selected by the arguments?
	[ $# -ge 1 ] || return 1
	local n=$1; shift
	[ $# -eq 0 ] && return 0
	local a
	for a in "$@"; do
		case "$a" in
		unit | vm) [[ $n == "$a"/* ]] && return 0 ;;
		*) [[ $n == "$a" || $n == *"/$a" ]] && return 0 ;;
		esac
	done
	return 1
}

pass=0 fail=0 skip=0
t0=$SECONDS
for i in "${!names[@]}"; do
	n=${names[$i]}
	want "$n" "$@" || continue
	log=$logs/$n.log
	s=$SECONDS
	${cmds[$i]} >"$log" 2>&1 </dev/null
	rc=$?
	dt=$((SECONDS - s))
	if [ $rc -eq 0 ]; then
		echo "ok - $n (${dt}s)"
		pass=$((pass + 1))
	elif [ $rc -eq 77 ]; then
		echo "ok - $n # SKIP $(tail -n1 "$log")"
		skip=$((skip + 1))
	else
		echo "not ok - $n (exit $rc, ${dt}s)"
		tail -n 30 "$log" | sed 's/^/#   /'
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
