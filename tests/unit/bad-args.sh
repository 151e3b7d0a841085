#!/usr/bin/env bash
# unit/bad-args: every scx_mlb option given a malformed or out-of-range value (and unknown
# options, stray arguments) gets exactly one line on stderr, nothing on stdout, exit 2.
# Runs on the host: arguments are checked before anything touches the kernel.
set -u
cd "$(dirname "$0")/../.."
bin=build/scx_mlb
[ -x "$bin" ] || { echo "not built: $bin"; exit 1; }
fails=0 n=0
check() { # ARGS... : must be refused with one line and exit 2
	local out err rc
	out=$("$bin" "$@" 2>/tmp/bad-args.$$)
	rc=$?
	err=$(cat /tmp/bad-args.$$)
	n=$((n + 1))
	if [ $rc -ne 2 ] || [ -n "$out" ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [ -z "$err" ]; then
		echo "FAIL: scx_mlb $* -> exit $rc, stdout '$out', stderr '$err'"
		fails=$((fails + 1))
	fi
}
for opt in --slice-us --interval-ms --imbal-pct --numa-imbal-pct --stats --half-life-ms \
	--migr-cost-us --max-recent-migr --explore --horizon-ms --bounce-ms --retrain-s \
	--retrain-samples --min-samples --window --duration --ring-kb --slice-min-us \
	--max-wait-ms --move-cost-core-us --move-cost-llc-us --move-cost-cross-llc-us \
	--move-cost-node-us --wake-preempt-us --watchdog-ms; do
	for v in "" abc -1 12x 0x10 " 5" 99999999999999999999999 1.5; do
		check "$opt=$v"
	done
done
check -s 99       # below the minimum slice
check -s 1000001  # above the maximum
check -i 0
check -i 10001
check -I 0
check -N 1001
check -S 3601
check --max-recent-migr 0
check --half-life-ms 60001
check --migr-cost-us 1000001
check --watchdog-ms 999
check --watchdog-ms 30001
check --no-such-option
check -Z
check stray-argument
check -s # missing value
check --mode=learn      # not a mode
check --mode=""
check -m COLLECT        # modes are lower case
check --label=both
check --label=
check --explore 201     # above 200 per mille
check --horizon-ms 0
check --bounce-ms 10001
check --min-samples 19
check --window 99
check --state-dir=""
check --model=""
check --ring-kb 4       # below 8
check --ring-kb 100     # not a power of two
check --slice-min-us 99 # below 100 us
check --max-wait-ms 0
check --max-wait-ms 10001
check --move-cost-llc-us 1000001
check --move-cost-node-us 1000001
check --steal-min 2     # options of the shared-queue design, gone with it
check --affine-scan 4
check --wake-preempt-us 1000001
# A valid set of options must get past the parser and stop at the kernel check: exit 3 with
# one line, "no sched_ext" (this host) or "permission denied". Nothing else: a crash (139),
# a hang (124) or exit 2 is a failure. It must never attach a scheduler, even run as root on
# a sched_ext host: as root it runs without CAP_SYS_ADMIN (setpriv drops it from the bounding
# set, so root's effective set lacks it too), which scx_mlb checks before loading anything
# (and the kernel would refuse the load anyway); as another user it has no CAP_SYS_ADMIN.
nocap=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || { echo "FAIL: setpriv (util-linux) is needed to drop CAP_SYS_ADMIN"; exit 1; }
	nocap=(setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin)
fi
timeout 20 "${nocap[@]}" "$bin" -s 5000 -i 50 -I 5 -N 30 -S 0 --half-life-ms 100 --migr-cost-us 0 \
	--max-recent-migr 4 -p --mode collect --explore 0 --horizon-ms 20 --bounce-ms 100 \
	--label imitation --retrain-s 5 --retrain-samples 100 --min-samples 50 --window 1000 \
	--duration 1 --ring-kb 64 --slice-min-us 500 --max-wait-ms 30 --move-cost-core-us 5 \
	--move-cost-llc-us 50 --move-cost-cross-llc-us 400 --move-cost-node-us 900 \
	--wake-preempt-us 500 --watchdog-ms 20000 \
	--state-dir /tmp/bad-args-state.$$ --allow-writable-model >/tmp/bad-args.$$ 2>&1
rc=$?
err=$(cat /tmp/bad-args.$$)
n=$((n + 1))
if [ $rc -ne 3 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] ||
	! [[ $err == *"has no sched_ext"* || $err == *"permission denied"* ]]; then
	echo "FAIL: valid options: exit $rc (want 3, the kernel check), output '$err'"
	fails=$((fails + 1))
fi
# --help and --version answer on stdout and exit 0.
n=$((n + 1))
"$bin" --help | grep -q '^EXAMPLES:' && "$bin" -h | grep -q -- '--slice-us' ||
	{ echo "FAIL: --help"; fails=$((fails + 1)); }
n=$((n + 1))
[ "$("$bin" --version)" = "$("$bin" -V)" ] && "$bin" --version | grep -q '^scx_mlb [0-9]' ||
	{ echo "FAIL: --version"; fails=$((fails + 1)); }
rm -rf /tmp/bad-args.$$ /tmp/bad-args-state.$$
echo "bad-args: $n cases, $fails failed"
[ $fails -eq 0 ]
