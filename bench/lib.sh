# Sourced by the benchmarks' guest-side scripts (bench/workloads.sh, make bench; bench/kbuild.sh,
# make bench-kernel), with MLB_ROOT and MLB_OUT set: what every benchmark shares, so that both
# measure, train, rotate and record the same way.
#
#   bench_begin          set up (logs, the results files, a work folder removed at exit; reads
#                        BENCH_REPS, BENCH_SCHEDS, BENCH_MLB_ARGS, BENCH_QUICK)
#   bench_init TOOL...   check the tools, scx_mlb and its key lists; cd to the work folder
#   bench_meta           the environment lines every meta.txt has
#   bench_train          the learned model, trained on a run of its own (sets $model)
#   bench_turns FN       the repetitions: every scheduler takes one turn per repetition, the
#                        order rotated by one each time; FN SCHED REP SLOT TAG runs the turn's
#                        workloads (each with measure, then row)
#   measure, row         one measured run and its results.csv line
#   sched_start, sched_stop, learning_rows, learning_save
source "$MLB_ROOT/tests/vm/scenario-lib.sh"

log() { echo "bench: $*"; }

# bench_begin: the variables every benchmark uses. quick, reps, scheds (the default set:
# $BENCH_DEFAULT_SCHEDS or all four), mlb_args (extra scx_mlb options for its turns: tuning
# runs), ncpu, logs, csv (results.csv), work (a temporary folder, removed at exit with any
# scx_mlb still running), status (1 once a run failed), train_s (the training run, seconds).
bench_begin() {
	quick=${BENCH_QUICK:-0}
	reps=${BENCH_REPS:-3}
	scheds=(${BENCH_SCHEDS:-${BENCH_DEFAULT_SCHEDS:-eevdf heuristic learned adaptive}})
	mlb_args=${BENCH_MLB_ARGS:-}
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
	train_s=$([ "$quick" = 1 ] && echo 30 || echo 90)
}

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
	# every counter's delta over the run, for diagnosis (logs/counters-NAME.txt); in bash's
	# 64-bit arithmetic, which wraps as the u64 sums do (a class gauge's sum over the CPUs
	# may pass through 2^64: awk's doubles printed -18446744073709551616 for a delta of 0)
	[ -z "$all0" ] || paste -d' ' "$stat_keys" <(echo "$all0" | tr ' ' '\n') \
		<(mlb_counters $(cat "$stat_keys") | tr ' ' '\n') |
		while read -r k a b; do echo "$k=$((b - a))"; done >"$logs/counters-$name.txt"
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

# row REP SLOT SCHED WORKLOAD [P50 P99 MAX SAMPLES [PERIODS MISSED]]: one results.csv line from
# M_*; PERIODS and MISSED: the frame workload's periods and missed deadlines.
row() {
	local wall=$M_WALL
	[ "$M_OK" = 1 ] || { wall=fail; status=1; }
	run_no=$((run_no + 1))
	echo "$run_no $M_T" >>"$logs/times.txt"
	echo "$run_no,$1,$2,$3,$4,$wall,$M_MIGR,$M_CSW,${5:-},${6:-},${7:-},${8:-},$M_DEC,,$M_MC,${9:-},${10:-}" >>"$csv"
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
	if [ "$1" = adaptive ]; then
		learning_save adaptive "$rep" "$MLB_LOG"
		# its records so far, for mlb-model ope on the host (docs/model.md)
		cp "$work/adaptive-state/dataset.csv" "$logs/adaptive-dataset-r$rep.csv" 2>/dev/null || :
	fi
	grep -a '^scx_mlb: summary:' "$MLB_LOG" | tail -n1
}

# ---- setting up ------------------------------------------------------------------------

# bench_init TOOL...: fail unless TOOL... (and perf, bpftool, scx_mlb, mlb-docs) are there; the
# counter names of scx_mlb's stats and work maps into $stat_keys and $work_keys; cd $work.
bench_init() {
	cd "$work" || exit 1
	local t
	for t in perf bpftool "$@"; do
		command -v "$t" >/dev/null || fail "missing tool: $t (make deps)"
	done
	need_mlb
	stat_keys=$work/stat-keys
	"$MLB_ROOT/build/mlb-docs" stat-keys >"$stat_keys" || fail "no $MLB_ROOT/build/mlb-docs (make)"
	work_keys=$work/work-keys
	"$MLB_ROOT/build/mlb-docs" work-keys >"$work_keys" || fail "no $MLB_ROOT/build/mlb-docs (make)"
}

# bench_meta: the meta.txt lines of every benchmark (the workload's own follow them).
bench_meta() {
	echo "date=$(date -u +%FT%TZ)"
	echo "commit=$(git -C "$MLB_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "kernel=$(uname -r)"
	echo "vcpus=$ncpu"
	echo "topology=${MLB_TOPO:-host}: $(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | tr '\n' ' ')nodes $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
	echo "quick=$quick"
	echo "reps=$reps"
	echo "schedulers=${scheds[*]}"
	[ -z "$mlb_args" ] || echo "scx_mlb_args=$mlb_args"
}

# bench_train: $model, the learned model (when scheduler learned runs), trained on a run of its
# own: scx_mlb --mode collect for train_s seconds of the mixed training load (stress-ng
# duty-cycled workers, spinners, hackbench rounds), then mlb-model train. No measured workload
# is part of that run. BENCH_MODEL names a model file instead (no training).
bench_train() {
	model=${BENCH_MODEL:-}
	[[ " ${scheds[*]} " == *" learned "* ]] && [ -z "$model" ] || return 0
	log "training: scx_mlb --mode collect for ${train_s}s of the training mix"
	MLB_LOG=$logs/scx_mlb-collect.log
	mlb_start --mode collect --state-dir "$work/train" --stats 5
	mlb_wait_enabled
	local saved_out=$MLB_OUT i
	MLB_OUT=$logs
	for ((i = 0; i < train_s / 15; i++)); do mixed_load 15 "train$i"; done
	MLB_OUT=$saved_out
	mlb_stop INT
	learning_save train 0 "$MLB_LOG"
	model=$MLB_OUT/model.mlb
	cp "$work/train/dataset.csv" "$logs/train-dataset.csv" # for mlb-model ope on the host
	"$MLB_ROOT/build/mlb-model" train -e 30 -o "$model" "$work/train/dataset.csv" \
		>"$logs/train.log" 2>&1 || fail "training failed: $(tail -n 2 "$logs/train.log")"
	log "model: $(grep -a 'validation quantized wait' "$logs/train.log" | tr '\n' ' ')"
	echo "model=trained on $(awk 'END { print NR - 1 }' "$work/train/dataset.csv") decisions of a ${train_s}s collect run under the training mix (not a measured workload)" >>"$MLB_OUT/meta.txt"
}

# bench_turns FN: the results files' headers, then reps repetitions; in each, every scheduler
# takes one turn, the order rotated by one per repetition (rep 1: eevdf heuristic learned
# adaptive, rep 2: heuristic learned adaptive eevdf, ...) so that drift of the host favours
# nobody. scx_mlb is started for its turn and stopped after it; FN SCHED REP SLOT TAG runs the
# turn's workloads. Returns $status.
bench_turns() {
	local fn=$1 slot s
	echo "run,rep,slot,scheduler,workload,wall_s,migrations,ctx_switches,lat_p50_us,lat_p99_us,lat_max_us,lat_samples,by_model,by_heur,by_explore,steal_pct,migr_chosen,migr_forced,migr_unchosen,frame_periods,frame_missed" >"$csv"
	echo "run,callback,calls,cpus,tasks,doms,decisions,ns" >"$MLB_OUT/work.csv"
	run_no=0
	for ((rep = 1; rep <= reps; rep++)); do
		for ((slot = 1; slot <= ${#scheds[@]}; slot++)); do
			s=${scheds[$(((rep - 1 + slot - 1) % ${#scheds[@]}))]}
			log "rep $rep/$reps, turn $slot: $s"
			sched_start "$s"
			"$fn" "$s" "$rep" "$slot" "$s-r$rep"
			sched_stop "$s"
		done
	done
	log "done: $run_no runs, status $status"
	return $status
}
