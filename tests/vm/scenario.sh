#!/usr/bin/env bash
# Run one guest scenario and judge it.
#
#   tests/vm/scenario.sh tests/vm/scenarios/NAME.sh
#
# MLB_KERNEL_DIR (default build/kernel) picks the guest's kernel; MLB_SCENARIO_SUFFIX (the
# kernel matrix of tests/run.sh: "@oldest", "@6.18") is appended to NAME for the logs.
#
# Header comments in the scenario (first 30 lines):
#   # topo: flat4|numa2x2|numa2x2smt|llc8smt|numa4x2smt (default flat4; tests/vm/guest.sh)
#   # timeout: SEC               (script time once the guest is up; default 180)
#   # allow: EXTENDED-REGEX      (console lines matching it are exempt from the check; repeatable)
# Boots the guest with tests/vm/guest.sh (results and console in build/test-logs/vm/NAME/),
# then fails the test, even when the script passed, if the kernel console shows BUG:,
# WARNING:, Oops, Call Trace, a panic, an RCU stall, or a sched_ext error/stall
# (runnable task stall, "disabled (runtime error|scx_bpf_error|...)", "sched_ext: ... error").
# Exit status: 0 pass, 77 skip (script said so, or no test kernel / QEMU), 90 harness failure
# (guest never reached the script), else fail; the last line says why. guest.sh runs one guest
# at a time per machine.
{ # the whole script is parsed before it runs: editing this file cannot break a running instance
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sc=${1:?usage: scenario.sh SCENARIO.sh}
[ -f "$sc" ] || { echo "scenario.sh: no such scenario: $sc"; exit 2; }
name=$(basename "$sc" .sh)${MLB_SCENARIO_SUFFIX:-}
kdir=${MLB_KERNEL_DIR:-$root/build/kernel}
hdr() { sed -n '1,30p' "$sc" | sed -n "s/^# *$1: *//p"; }
topo=$(hdr topo | head -n1)
timeout=$(hdr timeout | head -n1)
topo=${topo:-flat4} timeout=${timeout:-180}
mapfile -t allow < <(hdr allow)

[ -s "$kdir/vmlinuz" ] || { echo "skip: no test kernel in $kdir (make kernel kernels)"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "skip: no qemu-system-x86_64 (make deps)"; exit 77; }

out=$root/build/test-logs/vm/$name
rm -rf "$out"
mkdir -p "$out"
echo "scenario $name: kernel $(cat "$kdir/version") topo=$topo timeout=${timeout}s logs=$out"
hostload() { echo "host: load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cpus, $(pgrep -c qemu-system) QEMU running ($1)"; }
hostload before
# MLB_RUN_ID (tests/run.sh): the scenarios that reuse another's output check it
MLB_KERNEL_DIR=$kdir bash "$here/guest.sh" --topo "$topo" --timeout "$timeout" --out "$out" \
	--env "MLB_RUN_ID=${MLB_RUN_ID:-}" --env "MLB_SHORT=${MLB_SHORT:-0}" -- "$sc"
rc=$?
hostload after
con=$out/console.log

# The script's part of the console (what the scenario printed plus kernel messages meanwhile).
show() {
	echo "--- console (from MLB-READY, last 40 lines) ---"
	tr -d '\r' <"$con" | sed -n '/^MLB-READY/,$p' | tail -n 40
	echo "---"
}
if [ $rc -eq 90 ]; then
	tr -d '\r' <"$con" 2>/dev/null | tail -n 30
	echo "HARNESS FAILURE (not a test verdict): the guest did not reach the script, twice; see $out"
	exit 90
fi

bad='BUG:|WARNING:|Oops|Call Trace|Kernel panic|general protection fault|rcu.*detected.*stall|runnable task stall'
bad+='|sched_ext: .*disabled \((runtime error|scx_bpf_error|runnable task stall)|sched_ext: .*error'
tr -d '\r' <"$con" | grep -aE "$bad" >"$out/console-bad.txt"
for a in "${allow[@]}"; do
	[ -n "$a" ] || continue
	grep -avE "$a" "$out/console-bad.txt" >"$out/console-bad.tmp"
	mv "$out/console-bad.tmp" "$out/console-bad.txt"
done
if [ -s "$out/console-bad.txt" ]; then
	show
	[ $rc = 124 ] && echo "(the scenario also timed out after ${timeout}s)"
	echo "FAIL: kernel console shows: $(head -n1 "$out/console-bad.txt") ($(wc -l <"$out/console-bad.txt") such lines, see $out/console-bad.txt)"
	# where it happened: the first report's RIP and call trace, for a CI log that keeps little
	tr -d '\r' <"$con" | sed -n "/$(head -n1 "$out/console-bad.txt" | sed 's/[][\/.*^$]/\\&/g')/,\$p" |
		grep -aE 'RIP:|Comm:|^\[ *[0-9.]+\] +[? ]*[A-Za-z_][A-Za-z0-9_.]*\+0x' | head -n 14 | sed 's/^/trace: /'
	exit 1
fi
rm -f "$out/console-bad.txt"
case $rc in
0) echo "PASS: $name" ;;
77) echo "skip: $(tr -d '\r' <"$con" | grep -a '^SKIP:' | tail -n1)" ;;
124) show; echo "FAIL: $name timed out after ${timeout}s" ;;
92) show; echo "FAIL: the guest died during $name (kernel panic?)" ;;
*) show; echo "FAIL: $name exited $rc: $(tr -d '\r' <"$con" | grep -a '^FAIL:' | tail -n1)" ;;
esac
exit $rc
exit
}
