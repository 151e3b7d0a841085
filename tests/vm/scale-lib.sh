#!/usr/bin/env bash
# The scale measurements (docs/scaling.md), sourced by vm/scale-8 and vm/stress-64 after
# scenario-lib.sh. The same load per CPU on 8 and on 64 vCPUs; two measures per callback:
# - work per call, from scx_mlb's `work` lines (the per-CPU work map: CPUs scanned, queued
#   tasks walked, domains visited, seam decisions): scale_work writes $MLB_OUT/work.txt;
# - time per call, from kernel.bpf_stats_enabled=1 (run_time_ns / run_cnt of the struct_ops
#   programs, in a load run of its own) and the balancer's own timing (its timer callback has
#   no run_cnt): scale_ns writes $MLB_OUT/ns.txt.
# Both files: one line per callback, "<callback> key=value...".

SCALE_CBS="select_cpu enqueue dispatch tick running stopping balance_round"

# scale_load SEC: the per-CPU load. One spinner per 2 CPUs (queues form, idle CPUs pull), and
# hackbench with one group (40 tasks) per 8 CPUs in rounds (wake-ups), for SEC seconds.
scale_load() {
	local n end i g sp=() rc rounds
	n=$(nproc) g=$(($(nproc) / 8))
	end=$(($(now_ms) + $1 * 1000))
	for ((i = 0; i < n / 2; i++)); do
		bash -c 'while :; do :; done' &
		sp+=($!)
	done
	cd /tmp || return 1
	hb_rounds "$end" "$MLB_OUT/hackbench-scale.log" -g $((g > 0 ? g : 1)) -l 5
	rounds=$HB_N rc=$HB_RC
	local left=$((end - $(now_ms))) # the spinners' part of the load runs the whole time
	[ $left -le 0 ] || zzz "$((left / 1000)).$(printf %03d $((left % 1000)))"
	kill "${sp[@]}" 2>/dev/null
	wait "${sp[@]}" 2>/dev/null
	[ $rc = 0 ] || fail "scale load: hackbench exited $rc"
	[ $rounds -ge 1 ] || fail "scale load: no hackbench round completed in $1 s"
	note "scale load: $1 s, $((n / 2)) spinners, hackbench -g $g: $rounds rounds"
}

# work_fields: the last `work` line of $MLB_LOG -> associative array WORK (key -> value)
declare -A WORK
work_fields() {
	local l w
	l=$(grep -a '^work ' "$MLB_LOG" | tail -n1)
	[ -n "$l" ] || fail "no work line in scx_mlb's log"
	WORK=()
	for w in $l; do [[ $w == *=* ]] && WORK[${w%%=*}]=${w#*=}; done
}
# wait_work: until a work line newer than the current last one is in the log
wait_work() {
	local n
	n=$(grep -ac '^work ' "$MLB_LOG")
	wait_stats $(($(nstats) + 1)) 60
	[ "$(grep -ac '^work ' "$MLB_LOG")" -gt "$n" ] || fail "a stats line without its work line"
}

# scale_work SEC: the load for SEC s between two work lines -> $MLB_OUT/work.txt, per callback:
# calls, then each kind per call (3 decimals), "units" (their sum) and, for balance_round, the
# mean ns per round measured inside the timer callback.
scale_work() {
	local -A w0
	local cb k c u v line
	wait_work
	work_fields
	for k in "${!WORK[@]}"; do w0[$k]=${WORK[$k]}; done
	scale_load "$1"
	wait_work
	work_fields
	: >"$MLB_OUT/work.txt"
	for cb in $SCALE_CBS; do
		c=$((WORK[${cb}_calls] - w0[${cb}_calls]))
		line="$cb calls=$c" u=0
		for k in cpus tasks doms decisions; do
			v=$((WORK[${cb}_$k] - w0[${cb}_$k]))
			u=$((u + v))
			line+=" $k=$(awk -v a=$v -v b=$c 'BEGIN { printf "%.3f", b ? a / b : 0 }')"
		done
		line+=" units=$(awk -v a=$u -v b=$c 'BEGIN { printf "%.3f", b ? a / b : 0 }')"
		[ $cb = balance_round ] && line+=" ns=$(awk -v a=$((WORK[balance_round_ns] - w0[balance_round_ns])) -v b=$c 'BEGIN { printf "%.0f", b ? a / b : 0 }')"
		echo "$line" >>"$MLB_OUT/work.txt"
	done
	cat "$MLB_OUT/work.txt"
	for cb in select_cpu enqueue dispatch balance_round; do
		grep -q "^$cb calls=[1-9]" "$MLB_OUT/work.txt" || fail "scale: $cb was never called under the load"
	done
}

# prog_stats: run_time_ns and run_cnt of scx_mlb's struct_ops programs -> "name ns cnt" lines
prog_stats() {
	bpftool -j prog show | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    if p.get("type") == "struct_ops" and p.get("name", "").startswith("mlb_"):
        print(p["name"], p.get("run_time_ns", 0), p.get("run_cnt", 0))'
}

# scale_ns SEC: bpf_stats on for a load run of its own -> $MLB_OUT/ns.txt: ns per call of
# each struct_ops callback measured; bpf_stats off again.
scale_ns() {
	local -A t0 c0
	local name ns cnt cb
	sysctl -qw kernel.bpf_stats_enabled=1 || fail "cannot enable kernel.bpf_stats_enabled"
	while read -r name ns cnt; do t0[$name]=$ns c0[$name]=$cnt; done < <(prog_stats)
	scale_load "$1"
	: >"$MLB_OUT/ns.txt"
	while read -r name ns cnt; do
		cb=${name#mlb_}
		[ "$cb" = select_cpu ] || [ "$cb" = enqueue ] || [ "$cb" = dispatch ] ||
			[ "$cb" = running ] || [ "$cb" = stopping ] || [ "$cb" = tick ] || continue
		cnt=$((cnt - ${c0[$name]:-0})) ns=$((ns - ${t0[$name]:-0}))
		echo "$cb calls=$cnt ns=$(awk -v a=$ns -v b=$cnt 'BEGIN { printf "%.0f", b ? a / b : 0 }')" >>"$MLB_OUT/ns.txt"
	done < <(prog_stats)
	sysctl -qw kernel.bpf_stats_enabled=0
	cat "$MLB_OUT/ns.txt"
	grep -q '^select_cpu calls=[1-9]' "$MLB_OUT/ns.txt" || fail "bpf_stats counted no select_cpu run"
}

# scale_measure: scx_mlb (heuristic) under the scale load: work, then time in a run of its own
scale_measure() {
	mlb_start --mode heuristic --stats 2
	mlb_wait_enabled
	scale_work "${SCALE_SEC:-20}"
	scale_ns "${SCALE_SEC:-20}"
	mlb_check_enabled
	mlb_stop INT
	[ "$MLB_RC" = 0 ] || fail "scx_mlb exit status $MLB_RC after SIGINT"
}
