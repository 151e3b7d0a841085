#!/usr/bin/env bash
# The benchmark proper: EEVDF against scx_mlb (heuristic), scx_mlb (learned model) and scx_mlb
# (adaptive: learning live), run on the machine it is on (the test guest, booted by
# bench/bench.sh, or a sched_ext host).
#
#   MLB_ROOT=REPO MLB_OUT=DIR bench/workloads.sh LUA_TARBALL
#
# Environment: BENCH_QUICK=1 (short workloads), BENCH_REPS (default 3), BENCH_SCHEDS (default
# "eevdf heuristic learned adaptive"), BENCH_MODEL (a model file: skip the training step),
# BENCH_MLB_ARGS (extra scx_mlb options for its turns: tuning runs, recorded in meta.txt).
#
# 1. Trains the learned model on a run of its own: scx_mlb --mode collect under the mixed
#    training load (stress-ng duty-cycled workers, spinners, hackbench rounds), then
#    mlb-model train. The measured workloads below are never part of that run.
# 2. One unmeasured build under the kernel's scheduler, so that no measured run is the cold
#    first build of the boot.
# 3. BENCH_REPS repetitions; in each, every scheduler in turn, the order rotated by one per
#    repetition (rep 1: eevdf heuristic learned adaptive, rep 2: heuristic learned adaptive
#    eevdf, ...), so that drift of the host favours nobody. scx_mlb is started once per turn
#    and stopped after it. The adaptive scheduler keeps its state directory from turn to turn:
#    it starts from the heuristic in its first turn and from its last saved model in the next.
# 4. Each turn runs every workload once: build (Lua 5.4 from Debian's archive, make -j<CPUs>),
#    hackbench-proc, hackbench-thread, latency (cyclictest at SCHED_OTHER beside one CPU hog
#    per CPU; in EEVDF's turns also latency-fifo, the same at SCHED_FIFO: the machine's floor,
#    which no sched_ext scheduler can go below since the RT class runs before it), imbalance
#    (one fixed-work process per CPU, all started on one LLC domain, released to every CPU
#    after a second) and frame (periodic tasks with deadlines beside the
#    same build; BENCH_FRAME="TASKS PERIOD_US WORK_US" sizes them).
# Writes $MLB_OUT/results.csv (one row per run; columns in bench/report.sh), $MLB_OUT/work.csv
# (scx_mlb's work per callback in each of its runs, by run number), $MLB_OUT/learning.csv (the
# learning curve: the stats, retrain and rollback lines of the training run's log and of each
# adaptive turn's; format in bench/report.sh), $MLB_OUT/lat/ (latency histograms;
# $MLB_OUT/lat-fifo/, the floor's),
# $MLB_OUT/frame/ (the frame tasks' wake-up latencies and lines), $MLB_OUT/meta.txt, logs under $MLB_OUT/logs/ (scx_mlb-collect.log, the training run;
# scx_mlb-SCHED-rREP.log, each turn). Exit status 0 when every run completed; 1 when a run
# failed (its row says "fail") or the scheduler could not start.
{ # parsed whole before it runs: editing this file cannot break a running instance
set -uo pipefail
: "${MLB_ROOT:?set MLB_ROOT to the repository}" "${MLB_OUT:?set MLB_OUT to the results folder}"
source "$MLB_ROOT/bench/lib.sh" # measure, row, the schedulers, training, the turns
lua_tar=${1:?usage: workloads.sh LUA_TARBALL}
bench_begin

# Sizes. Full: the whole of Lua at -O2 (lua and luac, 33 files), about 3 min per scheduler turn
# in the 8-vCPU TCG guest. Quick: Lua's first 12 core objects at -O0, about 45 s per turn.
if [ "$quick" = 1 ]; then
	build_target="lapi.o lcode.o lctype.o ldebug.o ldo.o ldump.o lfunc.o lgc.o llex.o lmem.o"
	build_target+=" lobject.o lopcodes.o"
	build_cflags="-O0" hb_loops=60 lat_s=5 imb_s=1
else
	build_target=linux build_cflags="-O2" hb_loops=200 lat_s=30 imb_s=6
fi
hb_groups=4
# The frame mix: TASKS periodic tasks, each WORK_US of CPU time every PERIOD_US with the next
# release as its deadline (the shape scx_mlb classifies latency-critical: bursts of 2 ms or
# less at 10 or more regular wake-ups a second, include/mlb/class.h), half as many as CPUs,
# beside a build with one job per CPU. 1 ms every 50 ms: in the TCG guest a wake-up waits
# about 7 ms (median) under EEVDF beside the build, so shorter periods are missed nearly
# always by every scheduler (4 ms: 96%, 20 ms with 0.5 ms: 38%); this one EEVDF misses ~9%.
read -r frame_tasks frame_period_us frame_work_us <<<"${BENCH_FRAME:-$(((ncpu + 1) / 2)) 50000 1000}"
for v in "$frame_tasks" "$frame_period_us" "$frame_work_us"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || fail "BENCH_FRAME='${BENCH_FRAME:-}': expected TASKS PERIOD_US WORK_US, positive integers"
done

# ---- workloads -------------------------------------------------------------------------

fresh_tree() { # nothing is left from the previous run
	rm -rf "$work/lua" && mkdir -p "$work/lua" && tar -C "$work/lua" -xzf "$lua_tar" --strip-components=1
}
# the build command, one job per CPU, in the tree fresh_tree makes
# shellcheck disable=SC2206 # build_target is a list of make targets
build_cmd=(make -C "$work/lua/src" -j"$ncpu" $build_target
	CFLAGS="$build_cflags -Wall -DLUA_COMPAT_5_3 -DLUA_USE_LINUX")
w_build() {
	fresh_tree
	measure "$1" "${build_cmd[@]}"
}

w_hackbench() { # $2: "" (processes) or -T (threads)
	measure "$1" hackbench $2 -g $hb_groups -l $hb_loops
}

# The latency mix: one stress-ng hog per CPU and cyclictest at SCHED_OTHER (--policy=other;
# its default is SCHED_FIFO, which sched_ext never sees), half as many threads as CPUs, 2 ms
# period. Histogram in microseconds up to 100 ms; overflows are kept as the bucket 100000.
# POLICY "fifo" runs cyclictest at SCHED_FIFO priority 50 instead: it preempts the hogs at
# once under any scheduler, so its latency is the floor of the machine (in the TCG guest: the
# emulator's turn among the vCPUs, see BENCHMARKS.md), the bound on any *_latency_*_ratio.
w_latency() { # NAME HISTFILE [POLICY]
	local hist=$work/cyclictest.hist
	mkdir -p "${2%/*}"
	stress-ng --cpu "$ncpu" --cpu-method int64 --timeout $((lat_s + 5))s >"$logs/$1-hogs.log" 2>&1 &
	local hogs=$!
	zzz 1
	local pol=(--policy=other)
	[ "${3:-other}" = fifo ] && pol=(--policy=fifo -p 50)
	measure "$1" cyclictest -q -t $(((ncpu + 1) / 2)) "${pol[@]}" -i 2000 -D "$lat_s" \
		-h 100000 --histfile="$hist"
	kill "$hogs" 2>/dev/null
	wait "$hogs" 2>/dev/null
	awk '/^#/ {
			if ($0 ~ /Histogram Overflows/) { for (i = 4; i <= NF; i++) ov += $i }
			next
		}
		NF > 1 { c = 0; for (i = 2; i <= NF; i++) c += $i; if (c) print $1 + 0, c }
		END { if (ov) print 100000, ov }' "$hist" >"$2"
	LAT=$(hist_pct "$2")
}

# hist_pct HIST: "p50,p99,max,samples" of a histogram of lines "US COUNT" in ascending US
hist_pct() {
	awk '{ n += $2; b[NR] = $1; c[NR] = $2 } END {
		if (!n) { print ",,,0"; exit }
		for (i = 1; i <= NR; i++) {
			s += c[i]
			if (p50 == "" && s >= 0.50 * n) p50 = b[i]
			if (p99 == "" && s >= 0.99 * n) p99 = b[i]
		}
		printf "%d,%d,%d,%d", p50, p99, b[NR], n }' "$1"
}

# w_frame NAME DIR: the frame mix, frame_tasks of lat-task -c (BENCH_FRAME) started with the
# build and stopped (SIGTERM) when it ends; the wall time is the build's. Sets
# FRAME="p50,p99,max,wakes,periods,missed" over all the tasks: wake-up latency percentiles
# (us), wake-ups, periods, and periods whose work ended after the next release or that were
# skipped. Each task's line and latencies (and their histogram, DIR/hist) go to DIR.
w_frame() {
	local i pids=() rc=0 k v wakes=0 periods=0 missed=0 line
	fresh_tree
	rm -rf "$2" && mkdir -p "$2"
	for ((i = 0; i < frame_tasks; i++)); do
		"$lat_bin" -c -o "$2/lat-$i.txt" "$frame_period_us" "$frame_work_us" 3600 \
			>"$2/task-$i.txt" 2>&1 &
		pids+=($!)
	done
	measure "$1" "${build_cmd[@]}"
	kill -TERM "${pids[@]}" 2>/dev/null
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	for ((i = 0; i < frame_tasks; i++)); do
		line=" $(grep -a '^lat-task:' "$2/task-$i.txt")"
		for k in wakes periods missed; do
			v=${line#* $k=}
			v=${v%% *}
			[[ $line == *" $k="* && $v =~ ^[0-9]+$ ]] || { rc=1; v=0; }
			case $k in
			wakes) wakes=$((wakes + v)) ;;
			periods) periods=$((periods + v)) ;;
			missed) missed=$((missed + v)) ;;
			esac
		done
	done
	if [ $rc != 0 ]; then
		log "frame tasks failed: $(cat "$2"/task-*.txt | tr '\n' ' ')"
		M_OK=0
	fi
	cat "$2"/lat-*.txt | sort -n | uniq -c | awk '{ print $2, $1 }' >"$2/hist"
	FRAME=$(hist_pct "$2/hist"),$periods,$missed
	[ "${FRAME%%,*}" != "" ] || log "frame: no wake-ups ($wakes)"
}

# The imbalance: ncpu processes of fixed work, started on the CPUs of one LLC (CPU 0's; only
# CPU 0 when that LLC is the whole machine), released to every CPU after a second. Wall time
# is until the last one ends.
w_imbalance() {
	local dom all pids=() p
	dom=$(cat /sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list 2>/dev/null || echo 0)
	all=0-$((ncpu - 1))
	[ "$dom" = "$all" ] && dom=0
	measure "$1" bash -c '
		dom=$1 all=$2 n=$3 iters=$4 pids=()
		for ((i = 0; i < n; i++)); do taskset -c "$dom" "$5" "$iters" & pids+=($!); done
		sleep 1
		for p in "${pids[@]}"; do taskset -a -p -c "$all" "$p" >/dev/null || exit 1; done
		rc=0
		for p in "${pids[@]}"; do wait "$p" || rc=1; done
		exit $rc' imbalance "$dom" "$all" "$ncpu" "$imb_iters" "$work_bin"
}

# turn SCHED REP SLOT TAG: every workload once.
turn() {
	local s=$1 rep=$2 slot=$3 tag=$4 p50 p99 pmax nlat periods missed
	w_build "build-$tag"
	row $rep $slot "$s" build
	w_hackbench "hackbench-proc-$tag" ""
	row $rep $slot "$s" hackbench-proc
	w_hackbench "hackbench-thread-$tag" -T
	row $rep $slot "$s" hackbench-thread
	w_latency "latency-$tag" "$MLB_OUT/lat/$tag.hist"
	IFS=, read -r p50 p99 pmax nlat <<<"$LAT"
	row $rep $slot "$s" latency "$p50" "$p99" "$pmax" "$nlat"
	if [ "$s" = eevdf ]; then
		w_latency "latency-fifo-$tag" "$MLB_OUT/lat-fifo/$tag.hist" fifo
		IFS=, read -r p50 p99 pmax nlat <<<"$LAT"
		row $rep $slot "$s" latency-fifo "$p50" "$p99" "$pmax" "$nlat"
	fi
	w_imbalance "imbalance-$tag"
	row $rep $slot "$s" imbalance
	w_frame "frame-$tag" "$MLB_OUT/frame/$tag"
	IFS=, read -r p50 p99 pmax nlat periods missed <<<"$FRAME"
	row $rep $slot "$s" frame "$p50" "$p99" "$pmax" "$nlat" "$periods" "$missed"
}

# ---- main ------------------------------------------------------------------------------

bench_init hackbench cyclictest stress-ng taskset make gcc
work_bin=$MLB_ROOT/build/bench-work lat_bin=$MLB_ROOT/build/tests/lat-task
for b in "$work_bin" "$lat_bin"; do [ -x "$b" ] || fail "no $b (make)"; done

# Calibrate the imbalance work to imb_s seconds per process when each has a CPU of its own.
t0=$EPOCHREALTIME
"$work_bin" 20000000
imb_iters=$(awk -v a="$t0" -v b="$EPOCHREALTIME" -v s=$imb_s 'BEGIN { printf "%d", 2e7 * s / (b - a) }')

{
	bench_meta
	echo "build_project=Lua $(basename "$lua_tar" .orig.tar.gz | sed 's/^lua[0-9.]*_//') (Debian source package lua5.4)"
	echo "build_cmd=make -j$ncpu $build_target CFLAGS=$build_cflags"
	echo "hackbench=-g $hb_groups -l $hb_loops (processes; -T threads)"
	echo "latency=cyclictest -t $(((ncpu + 1) / 2)) --policy=other -i 2000 -D $lat_s beside $ncpu stress-ng cpu hogs"
	echo "latency_fifo=the same at --policy=fifo -p 50, in EEVDF's turns (the machine's latency floor)"
	echo "frame=$frame_tasks x lat-task -c $frame_period_us $frame_work_us ($frame_work_us us of CPU every $frame_period_us us, deadline the next release) beside make -j$ncpu $build_target"
	echo "imbalance=$ncpu x bench-work $imb_iters (~${imb_s}s each alone), started on CPUs $(cat /sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list 2>/dev/null), released after 1 s"
} >>"$MLB_OUT/meta.txt"

# 1. the learned model, from a run of its own
bench_train

# 2. one unmeasured build first (the kernel's own scheduler): the first build of a boot reads
# gcc, make and the sources from disk and ran ~1.3x slower with ~3x the migrations of the
# later ones (bench/results/2026-12-04-17*), which biased whichever scheduler ran first.
log "warm-up: one unmeasured build"
rm -rf "$work/lua" && mkdir -p "$work/lua" && tar -C "$work/lua" -xzf "$lua_tar" --strip-components=1
make -C "$work/lua/src" -j"$ncpu" $build_target CFLAGS="$build_cflags" >"$logs/warm-up.log" 2>&1 ||
	log "warm-up build failed (see logs/warm-up.log); measuring anyway"

bench_turns turn
exit
}
