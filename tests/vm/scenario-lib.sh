# Helpers for guest scenarios (tests/vm/scenarios/*.sh): source "$MLB_ROOT/tests/vm/scenario-lib.sh".
# Runs inside the test guest (see tests/vm/guest.sh for MLB_ROOT, MLB_OUT, MLB_BIN).
# Convention: a scenario prints "FAIL: why" and exits 1, or "SKIP: why" and exits 77.
set -uo pipefail
: "${MLB_ROOT:?not in the test guest}" "${MLB_OUT:?}" "${MLB_BIN:=$MLB_ROOT/build/scx_mlb}"
SCX=/sys/kernel/sched_ext
MLB_PID=""
MLB_LOG=$MLB_OUT/scx_mlb.log

fail() {
	echo "FAIL: $*"
	mlb_kill
	exit 1
}
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "# $*"; }
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }

need_mlb() {
	[ -d $SCX ] || fail "this kernel has no $SCX"
	[ -x "$MLB_BIN" ] || fail "no scheduler binary $MLB_BIN (run make)"
	[ "$(cat $SCX/state)" = disabled ] || fail "sched_ext state is '$(cat $SCX/state)' before the test"
}

# mlb_start ARGS...: start scx_mlb in the background; its output goes to the console and
# $MLB_LOG. Monitor mode so that it gets default SIGINT handling like from a terminal.
mlb_start() {
	need_mlb
	: >"$MLB_LOG"
	note "starting: $MLB_BIN $*"
	set -m
	stdbuf -oL -eL "$MLB_BIN" "$@" > >(tee -a "$MLB_LOG") 2>&1 &
	MLB_PID=$!
	set +m
}

# mlb_wait_enabled [SEC]: until state=enabled and root/ops=scx_mlb (default MLB_ENABLE_TIMEOUT,
# 180 s: loading, i.e. the BPF verifier, takes ~50 s under TCG).
mlb_wait_enabled() {
	local lim=$(($(now_ms) + ${1:-${MLB_ENABLE_TIMEOUT:-180}} * 1000)) t0=$(now_ms) st ops
	while :; do
		st=$(cat $SCX/state 2>/dev/null)
		ops=$(cat $SCX/root/ops 2>/dev/null)
		[ "$st" = enabled ] && [ "$ops" = scx_mlb ] && break
		kill -0 "$MLB_PID" 2>/dev/null || { wait "$MLB_PID"; fail "scx_mlb exited ($?) before enabling (state=$st ops=$ops)"; }
		[ "$(now_ms)" -lt $lim ] || fail "scheduler not enabled after ${1:-${MLB_ENABLE_TIMEOUT:-180}}s (state=$st ops=$ops)"
		sleep 0.2
	done
	note "enabled after $(($(now_ms) - t0)) ms: state=$st ops=$ops"
}

# mlb_check_enabled: still state=enabled, ops=scx_mlb, and the process is alive.
mlb_check_enabled() {
	local st ops
	st=$(cat $SCX/state 2>/dev/null)
	ops=$(cat $SCX/root/ops 2>/dev/null)
	[ "$st" = enabled ] && [ "$ops" = scx_mlb ] || fail "scheduler no longer enabled: state=$st ops=$ops"
	kill -0 "$MLB_PID" 2>/dev/null || fail "scx_mlb process is gone"
}

# mlb_stop [SIG]: send SIGINT (or SIG), wait up to 20 s; sets MLB_RC.
mlb_stop() {
	local sig=${1:-INT} i
	MLB_RC=""
	[ -n "$MLB_PID" ] || return 0
	kill -"$sig" "$MLB_PID" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$MLB_PID" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$MLB_PID" 2>/dev/null; then
		MLB_PID=""
		fail "scx_mlb did not exit within 20 s of SIG$sig"
	fi
	wait "$MLB_PID"
	MLB_RC=$?
	MLB_PID=""
	sleep 0.2 # let tee drain
	note "scx_mlb exited with status $MLB_RC after SIG$sig"
}
mlb_kill() {
	[ -n "$MLB_PID" ] && kill -KILL "$MLB_PID" 2>/dev/null
	MLB_PID=""
}

# mlb_wait_state STATE [SEC]
mlb_wait_state() {
	local i st
	for ((i = 0; i < ${2:-10} * 5; i++)); do
		st=$(cat $SCX/state)
		[ "$st" = "$1" ] && return 0
		sleep 0.2
	done
	fail "sched_ext state is '$st', expected '$1'"
}

# last_stat KEY: the value of KEY= in the last stats line of $MLB_LOG.
last_stat() { grep -a '^stats ' "$MLB_LOG" | tail -n1 | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# wait_stats N [SEC]: until at least N stats lines are in the log.
wait_stats() {
	local i
	for ((i = 0; i < ${2:-30} * 5; i++)); do
		[ "$(grep -ac '^stats ' "$MLB_LOG")" -ge "$1" ] && return 0
		sleep 0.2
	done
	fail "fewer than $1 stats lines after ${2:-30}s"
}

# ext_enabled PID -> the ext.enabled field of /proc/PID/sched (1: scheduled by sched_ext).
ext_enabled() { awk '/^ext.enabled/ {print $3}' "/proc/$1/sched"; }

# expand_cpus "0-1,4" -> "0 1 4"
expand_cpus() {
	local p out=""
	for p in ${1//,/ }; do
		if [[ $p == *-* ]]; then out+=" $(seq -s' ' "${p%-*}" "${p#*-}")"; else out+=" $p"; fi
	done
	echo $out
}
