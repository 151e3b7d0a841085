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
#    per CPU) and imbalance (one fixed-work process per CPU, all started on one LLC domain,
#    released to every CPU after a second).
# Writes $MLB_OUT/results.csv (one row per run; columns in bench/report.sh), $MLB_OUT/work.csv
# (scx_mlb's work per callback in each of its runs, by run number), $MLB_OUT/learning.csv (the
# learning curve: the stats, retrain and rollback lines of the training run's log and of each
# adaptive turn's; format in bench/report.sh), $MLB_OUT/lat/ (latency histograms),
# $MLB_OUT/meta.txt, logs under $MLB_OUT/logs/ (scx_mlb-collect.log, the training run;
# scx_mlb-SCHED-rREP.log, each turn). Exit status 0 when every run completed; 1 when a run
# failed (its row says "fail") or the scheduler could not start.
{ # parsed whole before it runs: editing this file cannot break a running instance
set -uo pipefail
: "${MLB_ROOT:?set MLB_ROOT to the repository}" "${MLB_OUT:?set MLB_OUT to the results folder}"
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
lua_tar=${1:?usage: workloads.sh LUA_TARBALL}
quick=${BENCH_QUICK:-0}
reps=${BENCH_REPS:-3}
scheds=(${BENCH_SCHEDS:-eevdf heuristic learned adaptive})
mlb_args=${BENCH_MLB_ARGS:-} # extra scx_mlb options for all its turns (tuning runs)
ncpu=$(nproc)
logs=$MLB_OUT/logs
mkdir -p "$logs" "$MLB_OUT/lat"
rm -f "$MLB_OUT/learning.csv" # appended to: by the training run, then after each adaptive turn
MLB_LOG=$logs/scx_mlb.log
# scx_mlb writes its log itself (mlb_start): a tee copying it to the console would be a task
# that only scx_mlb's turns have (it moved ~70 times per full build, make bench-trace).
MLB_LOG_ONLY=1
csv=$MLB_OUT/results.csv
work=$(mktemp -d /tmp/mlb-bench.XXXXXX)
trap 'mlb_kill; rm -rf "$work"' EXIT
status=0

# Sizes. Full: the whole of Lua at -O2 (lua and luac, 33 files), about 3 min per scheduler turn
# in the 8-vCPU TCG guest. Quick: Lua's first 12 core objects at -O0, about 45 s per turn.
if [ "$quick" = 1 ]; then
	build_target="lapi.o lcode.o lctype.o ldebug.o ldo.o ldump.o lfunc.o lgc.o llex.o lmem.o"
	build_target+=" lobject.o lopcodes.o"
	build_cflags="-O0" hb_loops=60 lat_s=5 imb_s=1 train_s=30
else
	build_target=linux build_cflags="-O2" hb_loops=200 lat_s=30 imb_s=6 train_s=90
fi
hb_groups=4

log() { echo "bench: $*"; }

# ---- measuring -------------------------------------------------------------------------

# stats_at: by_model by_heur by_explore migr_chosen migr_forced migr_unchosen of scx_mlb's
# latest stats line (nothing for EEVDF).
stats_at() {
	[ -n "$MLB_PID" ] || return 0
	scan_stats
	local w m=0 h=0 e=0 c=0 f=0 u=0
	for w in $LAST_STATS; do
		case $w in
		by_model=*) m=${w#*=} ;;
		by_heur=*) h=${w#*=} ;;
		by_explore=*) e=${w#*=} ;;
		migr_chosen=*) c=${w#*=} ;;
		migr_forced=*) f=${w#*=} ;;
		migr_unchosen=*) u=${w#*=} ;;
		esac
	done
	echo "$m $h $e $c $f $u"
}

# mlb_map_id NAME: the id of scx_mlb's newest per-CPU array map NAME (bpftool), or nothing.
mlb_map_id() {
	bpftool -j map show 2>/dev/null | python3 -c 'import json, sys
ids = [m["id"] for m in json.load(sys.stdin) if m.get("name") == sys.argv[1] and m.get("type") == "percpu_array"]
print(ids[-1] if ids else "")' "$1"
}

# mlb_counters KEY...: the current values of scx_mlb's counters KEY... (summed over CPUs),
# read straight from its BPF `stats` map with bpftool, so that a run's deltas cover exactly
# the run (the stats line comes once a second). Nothing for EEVDF.
mlb_counters() {
	[ -n "$MLB_PID" ] || return 0
	local map
	map=$(mlb_map_id stats)
	[ -n "$map" ] || return 0
	bpftool -j map dump id "$map" 2>/dev/null | python3 -c 'import json, sys
def num(x):  # an int (with BTF) or little-endian hex bytes (without)
    return int.from_bytes(bytes(int(b, 16) for b in x), "little") if isinstance(x, list) else int(x)
keys = open(sys.argv[1]).read().split()
vals = {}
for e in json.load(sys.stdin):
    vals[num(e["key"])] = sum(num(v["value"]) for v in e.get("values", []))
print(" ".join(str(vals.get(keys.index(w), 0)) if w in keys else "" for w in sys.argv[2:]))' "$stat_keys" "$@"
}

# mlb_work: the slots of scx_mlb's BPF `work` map (struct mlb_work, named by
# `mlb-docs work-keys`), each summed over the CPUs, on one line; nothing for EEVDF. Read with
# bpftool like mlb_counters: the work counters are plain adds, cheap enough to stay on in a
# measured run (no bpf_stats, which costs two clock reads per call, is enabled here).
mlb_work() {
	[ -n "$MLB_PID" ] || return 0
	local map
	map=$(mlb_map_id work)
	[ -n "$map" ] || return 0
	bpftool -j map dump id "$map" 2>/dev/null | python3 -c 'import json, sys
n = int(sys.argv[1])
def u64s(v):  # little-endian hex bytes, or the BTF-formatted struct flattened in order
    if isinstance(v, list) and v and isinstance(v[0], str):
        b = bytes(int(x, 16) for x in v)
        return [int.from_bytes(b[i:i + 8], "little") for i in range(0, len(b), 8)]
    out = []
    for x in (v.values() if isinstance(v, dict) else v):
        out += u64s(x) if isinstance(x, (list, dict)) else [int(x)]
    return out
tot = [0] * n
for e in json.load(sys.stdin):
    for c in e.get("values", []):
        for i, x in enumerate(u64s(c["value"])[:n]):
            tot[i] += x
print(" ".join(map(str, tot)))' "$(wc -l <"$work_keys")"
}

# measure NAME CMD...: run CMD under system-wide perf stat; sets M_WALL (s), M_MIGR, M_CSW,
# M_OK (1 when CMD exited 0), the decision deltas M_DEC ("model,heur,explore") and the
# migration-class deltas M_MC ("chosen,forced,unchosen" over exactly the run, from the BPF
# map; scx_mlb only, empty for EEVDF) and M_WORK, the work map's deltas over the run (one
# "callback,calls,cpus,tasks,doms,decisions,ns" line per callback; ns only for balance_round,
# the time inside the balancer's timer callback; empty for EEVDF).
measure() {
	local name=$1 t0 t1 s0 s1 n
	shift
	local pf=$logs/perf-$name.txt
	s0=$(stats_at) # the latest line: at most a second (idle) before the start
	local c0 c1
	c0=$(mlb_counters migr_chosen migr_forced migr_unchosen)
	local all0 w0 w1
	all0=$(mlb_counters $(cat "$stat_keys"))
	w0=$(mlb_work)
	t0=$EPOCHREALTIME
	perf stat -a -x, -e cpu-migrations,context-switches -o "$pf" -- "$@" \
		>"$logs/$name.log" 2>&1
	M_OK=$((! $?))
	t1=$EPOCHREALTIME
	c1=$(mlb_counters migr_chosen migr_forced migr_unchosen)
	w1=$(mlb_work)
	M_WORK=$(awk -v a="$w0" -v b="$w1" -v keys="$(tr '\n' ' ' <"$work_keys")" 'BEGIN {
		n = split(a, x, " "); m = split(b, y, " "); split(keys, k, " ")
		if (n < 3 || m != n) exit
		for (i = 3; i <= n; i++) {  # cur and bal_ns first, then <callback>_<kind>
			cb = k[i]; sub(/_[a-z]+$/, "", cb)
			kind = substr(k[i], length(cb) + 2)
			d[cb, kind] = y[i] - x[i]
			if (!(cb in seen)) { seen[cb] = 1; order[++ncb] = cb }
		}
		for (j = 1; j <= ncb; j++) {
			cb = order[j]
			printf "%s,%d,%d,%d,%d,%d,%s\n", cb, d[cb, "calls"], d[cb, "cpus"], d[cb, "tasks"],
				d[cb, "doms"], d[cb, "decisions"], cb == "balance_round" ? y[2] - x[2] : ""
		}
	}')
	# every counter's delta over the run, for diagnosis (logs/counters-NAME.txt)
	[ -z "$all0" ] || paste -d' ' "$stat_keys" <(echo "$all0" | tr ' ' '\n') \
		<(mlb_counters $(cat "$stat_keys") | tr ' ' '\n') |
		awk '{ print $1 "=" $3 - $2 }' >"$logs/counters-$name.txt"
	M_T="$t0 $t1"
	if [ -n "$MLB_PID" ]; then n=$(nstats); wait_stats $((n + 1)) 5; fi
	s1=$(stats_at)
	M_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	M_MIGR=$(awk -F, '$3 == "cpu-migrations" { print $1 }' "$pf")
	M_CSW=$(awk -F, '$3 == "context-switches" { print $1 }' "$pf")
	[[ $M_MIGR =~ ^[0-9]+$ && $M_CSW =~ ^[0-9]+$ ]] || { M_OK=0; log "$name: no perf counts"; }
	M_DEC=$(awk -v a="$s0" -v b="$s1" 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		if (n < 3) { print ",,"; exit }
		printf "%d,%d,%d", y[1] - x[1], y[2] - x[2], y[3] - x[3] }')
	M_MC=$(awk -v a="$c0" -v b="$c1" 'BEGIN {
		n = split(a, x, " "); m = split(b, y, " ")
		if (n < 3 || m < 3) { print ",,"; exit }
		printf "%d,%d,%d", y[1] - x[1], y[2] - x[2], y[3] - x[3] }')
}

# row REP SLOT SCHED WORKLOAD [P50 P99 MAX SAMPLES]: one results.csv line from M_*.
row() {
	local wall=$M_WALL
	[ "$M_OK" = 1 ] || { wall=fail; status=1; }
	run_no=$((run_no + 1))
	echo "$run_no $M_T" >>"$logs/times.txt"
	echo "$run_no,$1,$2,$3,$4,$wall,$M_MIGR,$M_CSW,${5:-},${6:-},${7:-},${8:-},$M_DEC,,$M_MC" >>"$csv"
	[ -z "$M_WORK" ] || sed "s/^/$run_no,/" <<<"$M_WORK" >>"$MLB_OUT/work.csv"
	log "run $run_no: rep $1 $3 $4: wall ${wall}s migrations $M_MIGR csw $M_CSW${6:+ p99 ${6}us} decisions(model,heur,explore) $M_DEC"
}

# ---- the learning curve ----------------------------------------------------------------

# learning_rows PHASE REP LOG: the learning.csv rows (columns in bench/report.sh) of one
# scx_mlb log, in its order: one per stats line (gen= and the decisions by source, by_model=
# by_heur= by_explore= by_control=, totals since the scheduler attached, as the line has
# them), one per retrain line that judged a candidate ("retrain: generation N deployed: saves
# X us/decision vs Y us for the heuristic|the live model on N recent samples (sign accuracy
# A vs B)", "retrain: kept the heuristic|the live model: candidate saves X us/decision < Y us
# ..."; or the same with "costs X us/decision" for "saves" and no sign accuracy, the form of
# the cost estimates) and one per rollback line ("rollback: generation N replaced by the
# heuristic ...").
# Retrain and rollback lines carry no time: they take the t= of the stats line that follows
# them (the daemon prints them just before the stats line of the same second), or of the last
# one when none follows before the end of that life of the scheduler (its exit line). Lines
# that do not parse are left out.
learning_rows() {
	awk -v phase="$1" -v rep="$2" '
	function num(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?$/ }
	function count(x) { return x ~ /^[0-9]+$/ ? x : 0 }
	function flush(t,    i) {
		for (i = 1; i <= np; i++)
			printf "%s,%s,%s,%s\n", phase, rep, t, pend[i]
		np = 0
	}
	BEGIN { last = "0.0" }
	/^stats t=/ {
		delete v
		for (i = 2; i <= NF; i++)
			if ((k = index($i, "=")) > 1)
				v[substr($i, 1, k - 1)] = substr($i, k + 1)
		if (!num(v["t"]) || v["t"] + 0 < 0)
			next
		last = v["t"]
		flush(last)
		printf "%s,%s,%s,stats,%s,%s,%s,%s,%s,,,,,,,\n", phase, rep, last, count(v["gen"]),
			count(v["by_model"]), count(v["by_heur"]), count(v["by_explore"]),
			count(v["by_control"])
		next
	}
	/^scx_mlb: retrain: (generation [0-9]+ deployed:|kept )/ {
		ms = x = y = a = b = ""
		for (i = 3; i < NF; i++) {
			if (ms == "" && ($i == "saves" || $i == "costs")) {
				ms = $i == "saves" ? "saving" : "cost"
				x = $(i + 1)
				y = $(i + 4)
			}
			if ($i == "accuracy") { a = $(i + 1); b = $(i + 3); sub(/\)$/, "", b) }
		}
		if (!num(x) || !num(y) || ((a != "" || b != "") && (!num(a) || !num(b))))
			next
		dep = $3 == "generation"
		pend[++np] = sprintf("retrain,%s,,,,,%s,%s,%s,%s,%d,%s,%s", dep ? $4 : "", ms, x, y,
			$0 ~ /(for|kept) the heuristic/ ? "heuristic" : "model", dep, a, b)
		next
	}
	/^scx_mlb: rollback: generation [0-9]+ / { pend[++np] = "rollback," $4 ",,,,,,,,,,," }
	/^scx_mlb: exit: / { flush(last) } # the end of a life: its lines keep its time
	END { flush(last) }' "$3"
}

# learning_save PHASE REP LOG: append the learning_rows of LOG to $MLB_OUT/learning.csv (its
# header first when new).
learning_save() {
	local f=$MLB_OUT/learning.csv
	[ -f "$f" ] ||
		echo "phase,rep,t_s,kind,gen,by_model,by_heur,by_explore,by_control,measure,candidate_us,live_us,incumbent,deployed,accuracy,live_accuracy" >"$f"
	learning_rows "$@" >>"$f"
}

# ---- workloads -------------------------------------------------------------------------

w_build() { # fresh tree each time: nothing is left from the previous run
	rm -rf "$work/lua" && mkdir -p "$work/lua" && tar -C "$work/lua" -xzf "$lua_tar" --strip-components=1
	measure "$1" make -C "$work/lua/src" -j"$ncpu" $build_target \
		CFLAGS="$build_cflags -Wall -DLUA_COMPAT_5_3 -DLUA_USE_LINUX"
}

w_hackbench() { # $2: "" (processes) or -T (threads)
	measure "$1" hackbench $2 -g $hb_groups -l $hb_loops
}

# The latency mix: one stress-ng hog per CPU and cyclictest at SCHED_OTHER (--policy=other;
# its default is SCHED_FIFO, which sched_ext never sees), half as many threads as CPUs, 2 ms
# period. Histogram in microseconds up to 100 ms; overflows are kept as the bucket 100000.
w_latency() { # NAME HISTFILE
	local hist=$work/cyclictest.hist
	stress-ng --cpu "$ncpu" --cpu-method int64 --timeout $((lat_s + 5))s >"$logs/$1-hogs.log" 2>&1 &
	local hogs=$!
	zzz 1
	measure "$1" cyclictest -q -t $(((ncpu + 1) / 2)) --policy=other -i 2000 -D "$lat_s" \
		-h 100000 --histfile="$hist"
	kill "$hogs" 2>/dev/null
	wait "$hogs" 2>/dev/null
	awk '/^#/ {
			if ($0 ~ /Histogram Overflows/) { for (i = 4; i <= NF; i++) ov += $i }
			next
		}
		NF > 1 { c = 0; for (i = 2; i <= NF; i++) c += $i; if (c) print $1 + 0, c }
		END { if (ov) print 100000, ov }' "$hist" >"$2"
	LAT=$(awk '{ n += $2; b[NR] = $1; c[NR] = $2 } END {
		if (!n) { print ",,,0"; exit }
		for (i = 1; i <= NR; i++) {
			s += c[i]
			if (p50 == "" && s >= 0.50 * n) p50 = b[i]
			if (p99 == "" && s >= 0.99 * n) p99 = b[i]
		}
		printf "%d,%d,%d,%d", p50, p99, b[NR], n }' "$2")
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

# ---- schedulers ------------------------------------------------------------------------

# learned is the model alone: no exploration, no control share left to the heuristic (the
# heuristic decides only where the model cannot). adaptive learns live from its own decisions,
# from the heuristic at first; its state directory (dataset, saved model) lives from turn to
# turn, so each turn starts from the model the previous one saved.
sched_start() { # eevdf | heuristic | learned | adaptive
	MLB_LOG=$logs/scx_mlb-$1-r$rep.log
	case $1 in
	eevdf) [ "$(rd $SCX/state)" = disabled ] || fail "sched_ext is $(rd $SCX/state), not EEVDF" ;;
	heuristic) mlb_start --mode heuristic --stats 1 $mlb_args ;;
	learned) mlb_start --mode infer --model "$model" --explore 0 --control 0 --stats 1 --state-dir "$work/state" $mlb_args ;;
	adaptive) mlb_start --mode adaptive --stats 1 --state-dir "$work/adaptive-state" $mlb_args ;;
	*) fail "unknown scheduler $1" ;;
	esac
	[ "$1" = eevdf ] || mlb_wait_enabled
}
sched_stop() {
	[ -n "$MLB_PID" ] || return 0
	mlb_check_enabled "after the $1 turn"
	mlb_stop INT
	[ "$MLB_RC" = 0 ] || { log "scx_mlb exited $MLB_RC"; status=1; }
	[ "$1" != adaptive ] || learning_save adaptive "$rep" "$MLB_LOG"
	grep -a '^scx_mlb: summary:' "$MLB_LOG" | tail -n1
}

# ---- main ------------------------------------------------------------------------------

cd "$work" || exit 1
work_bin=$MLB_ROOT/build/bench-work
[ -x "$work_bin" ] || fail "no $work_bin (make)"
for t in perf hackbench cyclictest stress-ng taskset make gcc; do
	command -v $t >/dev/null || fail "missing tool: $t (make deps)"
done
need_mlb
stat_keys=$work/stat-keys
"$MLB_ROOT/build/mlb-docs" stat-keys >"$stat_keys" || fail "no $MLB_ROOT/build/mlb-docs (make)"
work_keys=$work/work-keys
"$MLB_ROOT/build/mlb-docs" work-keys >"$work_keys" || fail "no $MLB_ROOT/build/mlb-docs (make)"
command -v bpftool >/dev/null || fail "missing tool: bpftool (make deps)"

# Calibrate the imbalance work to imb_s seconds per process when each has a CPU of its own.
t0=$EPOCHREALTIME
"$work_bin" 20000000
imb_iters=$(awk -v a="$t0" -v b="$EPOCHREALTIME" -v s=$imb_s 'BEGIN { printf "%d", 2e7 * s / (b - a) }')

{
	echo "date=$(date -u +%FT%TZ)"
	echo "commit=$(git -C "$MLB_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "kernel=$(uname -r)"
	echo "vcpus=$ncpu"
	echo "topology=${MLB_TOPO:-host}: $(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | tr '\n' ' ')nodes $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
	echo "quick=$quick"
	echo "reps=$reps"
	echo "schedulers=${scheds[*]}"
	[ -z "$mlb_args" ] || echo "scx_mlb_args=$mlb_args"
	echo "build_project=Lua $(basename "$lua_tar" .orig.tar.gz | sed 's/^lua[0-9.]*_//') (Debian source package lua5.4)"
	echo "build_cmd=make -j$ncpu $build_target CFLAGS=$build_cflags"
	echo "hackbench=-g $hb_groups -l $hb_loops (processes; -T threads)"
	echo "latency=cyclictest -t $(((ncpu + 1) / 2)) --policy=other -i 2000 -D $lat_s beside $ncpu stress-ng cpu hogs"
	echo "imbalance=$ncpu x bench-work $imb_iters (~${imb_s}s each alone), started on CPUs $(cat /sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list 2>/dev/null), released after 1 s"
} >>"$MLB_OUT/meta.txt"

# 1. the learned model, from a run of its own
model=${BENCH_MODEL:-}
if [[ " ${scheds[*]} " == *" learned "* ]] && [ -z "$model" ]; then
	log "training: scx_mlb --mode collect for ${train_s}s of the training mix"
	MLB_LOG=$logs/scx_mlb-collect.log
	mlb_start --mode collect --state-dir "$work/train" --stats 5
	mlb_wait_enabled
	saved_out=$MLB_OUT
	MLB_OUT=$logs
	for ((i = 0; i < train_s / 15; i++)); do mixed_load 15 "train$i"; done
	MLB_OUT=$saved_out
	mlb_stop INT
	learning_save train 0 "$MLB_LOG"
	model=$MLB_OUT/model.mlb
	"$MLB_ROOT/build/mlb-model" train -e 30 -o "$model" "$work/train/dataset.csv" \
		>"$logs/train.log" 2>&1 || fail "training failed: $(tail -n 2 "$logs/train.log")"
	log "model: $(grep -a 'validation quantized wait' "$logs/train.log" | tr '\n' ' ')"
	echo "model=trained on $(awk 'END { print NR - 1 }' "$work/train/dataset.csv") decisions of a ${train_s}s collect run under the training mix (not a measured workload)" >>"$MLB_OUT/meta.txt"
fi

# 2. one unmeasured build first (the kernel's own scheduler): the first build of a boot reads
# gcc, make and the sources from disk and ran ~1.3x slower with ~3x the migrations of the
# later ones (bench/results/2026-12-04-17*), which biased whichever scheduler ran first.
log "warm-up: one unmeasured build"
rm -rf "$work/lua" && mkdir -p "$work/lua" && tar -C "$work/lua" -xzf "$lua_tar" --strip-components=1
make -C "$work/lua/src" -j"$ncpu" $build_target CFLAGS="$build_cflags" >"$logs/warm-up.log" 2>&1 ||
	log "warm-up build failed (see logs/warm-up.log); measuring anyway"

echo "run,rep,slot,scheduler,workload,wall_s,migrations,ctx_switches,lat_p50_us,lat_p99_us,lat_max_us,lat_samples,by_model,by_heur,by_explore,steal_pct,migr_chosen,migr_forced,migr_unchosen" >"$csv"
echo "run,callback,calls,cpus,tasks,doms,decisions,ns" >"$MLB_OUT/work.csv"
run_no=0
for ((rep = 1; rep <= reps; rep++)); do
	for ((slot = 1; slot <= ${#scheds[@]}; slot++)); do
		s=${scheds[$(((rep - 1 + slot - 1) % ${#scheds[@]}))]}
		log "rep $rep/$reps, turn $slot: $s"
		sched_start "$s"
		tag=$s-r$rep
		w_build "build-$tag"
		row $rep $slot "$s" build
		w_hackbench "hackbench-proc-$tag" ""
		row $rep $slot "$s" hackbench-proc
		w_hackbench "hackbench-thread-$tag" -T
		row $rep $slot "$s" hackbench-thread
		w_latency "latency-$tag" "$MLB_OUT/lat/$tag.hist"
		IFS=, read -r p50 p99 pmax nlat <<<"$LAT"
		row $rep $slot "$s" latency "$p50" "$p99" "$pmax" "$nlat"
		w_imbalance "imbalance-$tag"
		row $rep $slot "$s" imbalance
		sched_stop "$s"
	done
done
log "done: $run_no runs, status $status"
exit $status
exit
}
