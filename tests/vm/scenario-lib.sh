# Helpers for guest scenarios (tests/vm/scenarios/*.sh): source "$MLB_ROOT/tests/vm/scenario-lib.sh".
# Runs inside the test guest (see tests/vm/guest.sh for MLB_ROOT, MLB_OUT, MLB_BIN).
# Convention: a scenario prints "FAIL: why" and exits 1, or "SKIP: why" and exits 77.
set -uo pipefail
: "${MLB_ROOT:?not in the test guest}" "${MLB_OUT:?}" "${MLB_BIN:=$MLB_ROOT/build/scx_mlb}"
SCX=/sys/kernel/sched_ext
MLB_PID=""
MLB_LOG=$MLB_OUT/scx_mlb.log

# short LONG SHORT: LONG, or SHORT under MLB_SHORT=1 (the kernel matrix's second and third
# kernels run a scenario's load phases shorter: the same checks, less time; tests/run.sh)
short() { if [ "${MLB_SHORT:-0}" = 1 ]; then echo "$2"; else echo "$1"; fi; }

fail() {
	echo "FAIL: $*"
	mlb_kill
	exit 1
}
skip() { echo "SKIP: $*"; exit 77; }
# note TEXT: a progress line, "# [SECONDS] TEXT", the seconds since the scenario started (where
# a scenario's time goes, for the suite's budget)
_MLB_T0=${EPOCHREALTIME/[.,]/}
note() {
	local t=${EPOCHREALTIME/[.,]/}
	t=$(((t - _MLB_T0) / 100000))
	echo "# [$((t / 10)).$((t % 10))s] $*"
}
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }
# The guest is slow under load (TCG, 8 vCPUs on 2 host cores): loops below avoid forks.
# zzz SEC: sleep without a fork (read with a timeout on a FIFO nobody writes).
_ZZZ=""
zzz() {
	if [ -z "$_ZZZ" ]; then
		_ZZZ=$(mktemp -u /tmp/zzz.XXXXXX)
		mkfifo "$_ZZZ"
		exec {_ZZZ_FD}<>"$_ZZZ"
	fi
	read -r -t "$1" -u "$_ZZZ_FD" _ || true
}
# rd FILE: its first line, no fork (empty if unreadable).
rd() { local l=""; { read -r l <"$1"; } 2>/dev/null; printf '%s' "$l"; }

# mlb_ops_name: the ops name MLB_BIN says it registers ("scx_mlb_<version>_g<hash>", from -V),
# in MLB_OPS; what root/ops must show while it runs.
mlb_ops_name() {
	MLB_OPS=$("$MLB_BIN" -V | sed -n 's/^scx_mlb .*, ops \(scx_mlb_[A-Za-z0-9_.]*\))$/\1/p')
	[ -n "$MLB_OPS" ] || fail "$MLB_BIN -V names no ops scx_mlb_*: $("$MLB_BIN" -V)"
}

need_mlb() {
	[ -d $SCX ] || fail "this kernel has no $SCX"
	[ -x "$MLB_BIN" ] || fail "no scheduler binary $MLB_BIN (run make)"
	mlb_ops_name
	[ "$(cat $SCX/state)" = disabled ] || fail "sched_ext state is '$(cat $SCX/state)' before the test"
}

# mlb_start ARGS...: start scx_mlb in the background; its output goes to the console and
# $MLB_LOG (with MLB_LOG_ONLY=1 to $MLB_LOG alone, without tee: a benchmark then measures
# no helper task beside the scheduler). Monitor mode so that it gets default SIGINT handling
# like from a terminal.
# On a guest of more than 8 vCPUs: --watchdog-ms $MLB_WATCHDOG_MS when set, else 30000 (the
# kernel's maximum), because single-threaded TCG runs one vCPU at a time (100 ms turns) and the
# watchdog's own check-in, a scan of every CPU's run-queue lock, can take seconds there
# (docs/scaling.md); and 1 MiB for the kernel's debug dump of an error exit
# (--exit-dump-len), whose default 32 KiB holds about ten of 64 CPUs. Elsewhere
# $MLB_WATCHDOG_MS alone, when set.
mlb_start() {
	local wd=${MLB_WATCHDOG_MS:-}
	if [ "$(nproc)" -gt 8 ]; then
		set -- "$@" --watchdog-ms "${wd:-30000}" --exit-dump-len 1048576
	elif [ -n "$wd" ]; then
		set -- "$@" --watchdog-ms "$wd"
	fi
	need_mlb
	: >"$MLB_LOG"
	note "starting: $MLB_BIN $*"
	if [ "${MLB_LOG_ONLY:-0}" = 1 ]; then
		MLB_TEE_PID="" MLB_FIFO=""
		set -m
		stdbuf -oL -eL "$MLB_BIN" "$@" >>"$MLB_LOG" 2>&1 &
		MLB_PID=$!
		set +m
		return 0
	fi
	# tee reads a FIFO (not a process substitution) so that its PID is known: mlb_log_drain
	# waits for it to copy the last lines.
	MLB_FIFO=$(mktemp -u /tmp/mlb-out.XXXXXX)
	mkfifo "$MLB_FIFO" || fail "mkfifo $MLB_FIFO"
	tee -a "$MLB_LOG" <"$MLB_FIFO" &
	MLB_TEE_PID=$!
	set -m
	stdbuf -oL -eL "$MLB_BIN" "$@" >"$MLB_FIFO" 2>&1 &
	MLB_PID=$!
	set +m
}

# mlb_log_drain: once scx_mlb has exited, wait until tee has copied its last lines to $MLB_LOG
# (tee exits at end of file, when scx_mlb's output closes). 30 s: tee copies a few KB.
mlb_log_drain() {
	local i
	[ -n "${MLB_TEE_PID:-}" ] || return 0
	for ((i = 0; i < 150; i++)); do
		kill -0 "$MLB_TEE_PID" 2>/dev/null || break
		zzz 0.2
	done
	kill -0 "$MLB_TEE_PID" 2>/dev/null && fail "tee still copying scx_mlb's output 30 s after it exited"
	wait "$MLB_TEE_PID" 2>/dev/null
	rm -f "$MLB_FIFO"
	MLB_TEE_PID="" MLB_FIFO=""
}

# mlb_wait_enabled [SEC]: until state=enabled and root/ops=$MLB_OPS (default MLB_ENABLE_TIMEOUT,
# 180 s: loading, i.e. the BPF verifier, takes ~50 s under TCG).
mlb_wait_enabled() {
	local lim=$(($(now_ms) + ${1:-${MLB_ENABLE_TIMEOUT:-180}} * 1000)) t0=$(now_ms) st ops
	while :; do
		st=$(rd $SCX/state)
		ops=$(rd $SCX/root/ops)
		[ "$st" = enabled ] && [ "$ops" = "$MLB_OPS" ] && break
		kill -0 "$MLB_PID" 2>/dev/null || { wait "$MLB_PID"; fail "scx_mlb exited ($?) before enabling (state=$st ops=$ops)"; }
		[ "$(now_ms)" -lt $lim ] || fail "scheduler not enabled after ${1:-${MLB_ENABLE_TIMEOUT:-180}}s (state=$st ops=$ops)"
		zzz 0.2
	done
	note "enabled after $(($(now_ms) - t0)) ms: state=$st ops=$ops"
}

# mlb_check_enabled: still state=enabled, ops=$MLB_OPS, and the process is alive.
mlb_check_enabled() {
	local st ops
	st=$(rd $SCX/state)
	ops=$(rd $SCX/root/ops)
	[ "$st" = enabled ] && [ "$ops" = "$MLB_OPS" ] || fail "scheduler no longer enabled: state=$st ops=$ops${1:+ ($1)}; $(grep -a '^scx_mlb: exit:' "$MLB_LOG" | tail -n1)"
	kill -0 "$MLB_PID" 2>/dev/null || fail "scx_mlb process is gone"
}

# mlb_wait_reattached N: after a hotplug restart, until the log has N "attached" lines (240 s)
# and the scheduler is enabled again; fails if scx_mlb exits instead of restarting.
mlb_wait_reattached() {
	local lim=$(($(now_ms) + 240000))
	while [ "$(count_lines '^scx_mlb: attached')" -lt "$1" ]; do
		[ "$(now_ms)" -lt $lim ] || fail "no reattach ($1) within 240 s"
		kill -0 "$MLB_PID" 2>/dev/null || fail "scx_mlb exited instead of restarting"
		zzz 0.5
	done
	mlb_wait_enabled 240
}

# mlb_stop [SIG]: send SIGINT (or SIG), wait up to 20 s; sets MLB_RC.
mlb_stop() {
	local sig=${1:-INT} i
	MLB_RC=""
	[ -n "$MLB_PID" ] || return 0
	kill -"$sig" "$MLB_PID" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$MLB_PID" 2>/dev/null || break
		zzz 0.2
	done
	if kill -0 "$MLB_PID" 2>/dev/null; then
		MLB_PID=""
		fail "scx_mlb did not exit within 20 s of SIG$sig"
	fi
	wait "$MLB_PID"
	MLB_RC=$?
	MLB_PID=""
	mlb_log_drain # the summary and exit lines are in $MLB_LOG after this
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
		st=$(rd $SCX/state)
		[ "$st" = "$1" ] && return 0
		zzz 0.2
	done
	fail "sched_ext state is '$st', expected '$1'"
}

# Stats lines of $MLB_LOG, read without forks: sets NSTATS and LAST_STATS.
scan_stats() {
	local l
	NSTATS=0 LAST_STATS=""
	while IFS= read -r l; do
		[[ $l == "stats "* ]] && { NSTATS=$((NSTATS + 1)); LAST_STATS=$l; }
	done <"$MLB_LOG"
}
# last_stat KEY: the value of KEY= in the last stats line.
# corpus_model SHAPE: CORPUS_MODEL = the valid model of the fuzz corpus whose hidden and
# output layers are SHAPE ("4-2": valid-<features>-4-2.mlb; the input count follows the
# feature table). Fails the scenario when there is none: a missing file would let a check
# pass (vm/perm's "nobody cannot copy a model in" did, after the corpus was renamed).
corpus_model() {
	local m
	CORPUS_MODEL=
	for m in "$MLB_ROOT"/tests/fuzz/model-corpus/valid-[0-9]*-"$1".mlb; do
		[ -s "$m" ] && { CORPUS_MODEL=$m; return 0; }
	done
	fail "no valid-*-$1.mlb in tests/fuzz/model-corpus (make fuzz-corpus)"
}
# held_stat KEY: KEY's value in the stats line of the last scan_stats, without reading a newer
# one (so that several keys come from the same line).
held_stat() {
	local w
	for w in $LAST_STATS; do [[ $w == "$1="* ]] && { echo "${w#*=}"; return; }; done
}
last_stat() {
	local w
	scan_stats
	for w in $LAST_STATS; do [[ $w == "$1="* ]] && { echo "${w#*=}"; return; }; done
}
nstats() { scan_stats; echo "$NSTATS"; }
# wait_stats N [SEC]: until at least N stats lines are in the log.
wait_stats() {
	local lim=$(($(now_ms) + ${2:-30} * 1000))
	while :; do
		scan_stats
		[ "$NSTATS" -ge "$1" ] && return 0
		[ -n "$MLB_PID" ] && ! kill -0 "$MLB_PID" 2>/dev/null && fail "scx_mlb exited while waiting for stats"
		[ "$(now_ms)" -lt $lim ] || fail "fewer than $1 stats lines after ${2:-30}s"
		zzz 0.3
	done
}

# ext_enabled PID -> the ext.enabled field of /proc/PID/sched (1: scheduled by sched_ext).
ext_enabled() { sched_field "$1" ext.enabled; }
# sched_field PID KEY -> KEY's value in /proc/PID/sched
sched_field() {
	local k c v
	while read -r k c v; do [ "$k" = "$2" ] && { echo "$v"; return; }; done <"/proc/$1/sched"
}
# task_cpu PID -> the CPU it last ran on (field 39 of /proc/PID/stat)
task_cpu() {
	local s a
	read -r s <"/proc/$1/stat" || return
	s=${s##*) }
	read -r -a a <<<"$s"
	echo "${a[36]}"
}

# expand_cpus "0-1,4" -> "0 1 4"
expand_cpus() {
	local p out=""
	for p in ${1//,/ }; do
		if [[ $p == *-* ]]; then out+=" $(seq -s' ' "${p%-*}" "${p#*-}")"; else out+=" $p"; fi
	done
	echo $out
}

# ---- helpers for the robustness scenarios ----

# spin_start N [CPUS]: start N busy-looping bash processes (pinned to CPUS when given);
# their PIDs go to SPIN_PIDS. spin_stop kills them.
SPIN_PIDS=()
spin_start() {
	local i
	for ((i = 0; i < $1; i++)); do
		if [ -n "${2:-}" ]; then
			taskset -c "$2" bash -c 'while :; do :; done' &
		else
			bash -c 'while :; do :; done' &
		fi
		SPIN_PIDS+=($!)
	done
}
spin_stop() {
	[ ${#SPIN_PIDS[@]} -gt 0 ] && kill "${SPIN_PIDS[@]}" 2>/dev/null
	SPIN_PIDS=()
}

# cpu_ticks PID -> utime + stime of PID in clock ticks (no fork)
cpu_ticks() {
	local s a
	read -r s <"/proc/$1/stat" || { echo 0; return; }
	s=${s##*) }
	read -r -a a <<<"$s"
	echo $((a[11] + a[12]))
}

# spin_progress SEC: every spinner must gain CPU time within SEC seconds, else fail.
spin_progress() {
	local -A t0=()
	local p
	[ ${#SPIN_PIDS[@]} -gt 0 ] || fail "spin_progress: no spinners running"
	for p in "${SPIN_PIDS[@]}"; do t0[$p]=$(cpu_ticks "$p"); done
	zzz "$1"
	for p in "${SPIN_PIDS[@]}"; do
		kill -0 "$p" 2>/dev/null || fail "spinner $p died"
		[ "$(cpu_ticks "$p")" -gt "${t0[$p]}" ] || fail "spinner $p got no CPU time in $1 s"
	done
}

# spin_mark: note every spinner's CPU time (utime + stime) now; spin_gained SEC WHAT then
# requires that each one gains CPU time after the mark, polling for up to SEC seconds (the
# bound is the caller's: it depends on the share each spinner is entitled to).
declare -A SPIN_MARK=()
spin_mark() {
	local p
	SPIN_MARK=()
	for p in "${SPIN_PIDS[@]}"; do SPIN_MARK[$p]=$(cpu_ticks "$p"); done
}
spin_gained() {
	local lim=$(($(now_ms) + $1 * 1000)) p left t0=$(now_ms)
	[ ${#SPIN_PIDS[@]} -gt 0 ] || fail "spin_gained: no spinners running"
	while :; do
		left=""
		for p in "${SPIN_PIDS[@]}"; do
			kill -0 "$p" 2>/dev/null || fail "spinner $p died ($2)"
			[ "$(cpu_ticks "$p")" -gt "${SPIN_MARK[$p]}" ] || left+=" $p"
		done
		[ -z "$left" ] && break
		[ "$(now_ms)" -lt $lim ] || fail "spinner(s)$left gained no CPU time in $1 s ($2)"
		zzz 0.2
	done
	SPIN_GAIN_MS=$(($(now_ms) - t0))
}

# count_lines PATTERN: lines of $MLB_LOG matching the bash regex PATTERN (no fork)
count_lines() {
	local l n=0
	while IFS= read -r l; do [[ $l =~ $1 ]] && n=$((n + 1)); done <"$MLB_LOG"
	echo $n
}

# cpu_in_list CPU "0-1,4": whether CPU is in the list
cpu_in_list() {
	local c
	for c in $(expand_cpus "$2"); do [ "$c" = "$1" ] && return 0; done
	return 1
}

# stress_check WORKERS GROUPS LOOPS DISABLE_S: with scx_mlb running (mlb_start), 30 s
# (STRESS_SEC; 12 under MLB_SHORT) of stress-ng --aggressive (WORKERS each of cpu, fork,
# affinity, yield) beside rounds of hackbench -g GROUPS -l LOOPS; every workload exits 0,
# the scheduler stays enabled, exits 0 on SIGINT and is disabled within DISABLE_S s, and no
# workload process is left (vm/stress, vm/stress-64).
stress_check() {
	local sp sp_rc hb_rc hb_n left d
	d=${STRESS_SEC:-$(short 30 12)} # vm/stress-64: 15 (one hackbench round there takes ~40 s)
	cd /tmp || fail "cd /tmp"
	note "stress-ng and hackbench for $d s"
	stress-ng --aggressive --temp-path /tmp --timeout ${d}s --metrics-brief \
		--cpu "$1" --fork "$1" --affinity "$1" --yield "$1" >"$MLB_OUT/stress-ng.log" 2>&1 &
	sp=$!
	hb_rounds $(($(now_ms) + d * 1000)) "$MLB_OUT/hackbench.log" -g "$2" -l "$3"
	hb_n=$HB_N hb_rc=$HB_RC
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
	mlb_wait_state disabled "$4"
	zzz 1
	left=$(pgrep -l 'stress-ng|hackbench')
	[ -z "$left" ] || fail "workload processes left: $left"
}

# ---- helpers for the learning-loop scenarios ----

# hb_rounds END_MS LOG ARG...: `hackbench ARG...` in rounds (output appended to LOG) until
# END_MS: the first round always runs, a later one only while the last one's duration still
# fits before END_MS. Under TCG one round can take seconds (a 64-vCPU round 15 s); starting
# one at the deadline made a "5 s" load take up to 23 s. Sets HB_N (rounds that exited 0) and
# HB_RC (the exit status of the round that failed and ended the loop; 0 if none did).
hb_rounds() {
	local end=$1 log=$2 t0 dt=0
	shift 2
	HB_N=0 HB_RC=0
	while :; do
		t0=$(now_ms)
		[ $HB_N = 0 ] || [ $((t0 + dt)) -le "$end" ] || break
		hackbench "$@" >>"$log" 2>&1 || { HB_RC=$?; break; }
		dt=$(($(now_ms) - t0))
		HB_N=$((HB_N + 1))
	done
}

# mixed_load SEC [TAG]: a mix that makes the balancer decide: duty-cycled stress-ng cpu
# workers (6 x MIXED_SCALE), 2 spinners and hackbench rounds (2 x MIXED_SCALE groups; MIXED_SCALE
# defaults to 1, the 64-vCPU scenarios set 4; a round starts only while it fits, hb_rounds),
# for SEC seconds (blocks). Logs under $MLB_OUT.
# Every workload must succeed (stress-ng and each hackbench exit 0, the spinners still run at
# the end), else the load was lighter than the caller claims: fail, or with MIXED_LOAD_SOFT=1
# (a report, not a test) say why and return 1.
mixed_load() {
	local end=$(($(now_ms) + $1 * 1000)) tag=${2:-load} sp hb rc err=""
	cd /tmp || return
	stress-ng --temp-path /tmp --timeout "$1"s --cpu $((6 * ${MIXED_SCALE:-1})) --cpu-load 60 \
		--cpu-method int64 >"$MLB_OUT/stress-ng-$tag.log" 2>&1 &
	sp=$!
	# its own spinners, not SPIN_PIDS: the caller's spinners keep running
	bash -c 'while :; do :; done' &
	local s1=$!
	bash -c 'while :; do :; done' &
	local s2=$!
	hb_rounds "$end" "$MLB_OUT/hackbench-$tag.log" -g $((2 * ${MIXED_SCALE:-1})) -l 20
	hb=$HB_N
	[ $HB_RC = 0 ] || err="hackbench round $((hb + 1)) exited $HB_RC"
	kill -0 $s1 2>/dev/null && kill -0 $s2 2>/dev/null || err+="${err:+; }a spinner died"
	if [ -n "$err" ]; then
		kill $sp 2>/dev/null # failed already: stop it, its status says nothing more
		wait $sp
	else
		wait $sp
		rc=$?
		[ $rc = 0 ] || err="stress-ng exited $rc ($MLB_OUT/stress-ng-$tag.log)"
	fi
	kill $s1 $s2 2>/dev/null
	wait $s1 $s2 2>/dev/null
	if [ -n "$err" ]; then
		[ "${MIXED_LOAD_SOFT:-0}" = 1 ] || fail "mixed load $tag: $err"
		note "mixed load $tag: $err"
		return 1
	fi
	note "$tag: $1 s of mixed load, $hb hackbench rounds, every workload exit 0"
}

# ---- output reused by a later scenario (vm/collect -> vm/train -> vm/infer) ----
# made_by_this_run: record in $MLB_OUT that this run of the suite (MLB_RUN_ID, set by
# tests/run.sh) made what is there. from_this_run NAME: whether scenario NAME's output was made
# by this run (never when MLB_RUN_ID is empty: a scenario run alone makes its own input).
made_by_this_run() { [ -z "${MLB_RUN_ID:-}" ] || echo "$MLB_RUN_ID" >"$MLB_OUT/run-id"; }
from_this_run() {
	local id
	id=$(rd "$MLB_ROOT/build/test-logs/vm/$1/run-id")
	[ -n "${MLB_RUN_ID:-}" ] && [ "$id" = "$MLB_RUN_ID" ]
}

# summary_field KEY: KEY's value in scx_mlb's final "scx_mlb: summary:" line
summary_field() {
	local l w
	l=$(grep -a '^scx_mlb: summary:' "$MLB_LOG" | tail -n1)
	for w in $l; do [[ $w == "$1="* ]] && { echo "${w#*=}"; return; }; done
}
