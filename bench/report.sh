#!/usr/bin/env bash
# bench/report.sh RESULTS_DIR: turn the results of one benchmark run into a report with plots
# and key=value lines.
#
# Inputs, in RESULTS_DIR:
#   results.csv          a header line, exactly
#                          run,rep,slot,scheduler,workload,wall_s,migrations,ctx_switches,
#                          lat_p50_us,lat_p99_us,lat_max_us,lat_samples,by_model,by_heur,
#                          by_explore,steal_pct,migr_chosen,migr_forced,migr_unchosen,
#                          frame_periods,frame_missed
#                        (or the same without the last two fields, the format before the frame
#                        workload) then one row per run. scheduler is eevdf, heuristic, learned or adaptive
#                        (any may be missing); workload is any name (build, hackbench-proc,
#                        hackbench-thread, latency, latency-fifo, imbalance and frame come first
#                        in the tables; kbuild is make bench-kernel's).
#                        run, rep and slot are positive integers; the other numeric fields are
#                        empty or a decimal number. A row whose wall_s is empty or "fail" is a
#                        failed run: counted, otherwise ignored. Blank lines and a CR before the
#                        newline are ignored.
#   lat/SCHED-rREP.hist  optional latency histograms: lines "US COUNT", "#" comments
#   meta.txt             optional key=value lines describing the environment (date=, accel=, ...)
#   work.csv             optional: scx_mlb's work per callback in its runs, a header line, exactly
#                          run,callback,calls,cpus,tasks,doms,decisions,ns
#                        then one row per run and callback (bench/workloads.sh). run is a run of
#                        results.csv; callback a name of [a-z_]; calls..decisions non-negative
#                        integers; ns empty or a non-negative integer (the time inside the
#                        balancer's timer callback, balance_round only).
#   learning.csv         optional: the learning curve, from the scx_mlb logs of the training run
#                        and of each adaptive turn (bench/lib.sh, learning_rows), a header
#                        line, exactly
#                          phase,rep,t_s,kind,gen,by_model,by_heur,by_explore,by_control,
#                          measure,candidate_us,live_us,incumbent,deployed,accuracy,
#                          live_accuracy
#                        then one row per stats, retrain or rollback line, in the logs' order.
#                        phase is train (the collect run that trains the learned model; rep 0)
#                        or adaptive (an adaptive turn; rep is its repetition, 1 or more). t_s:
#                        seconds since that scheduler attached, a non-negative number (a t_s
#                        below the previous row's of the same turn starts a new life of the
#                        scheduler: it reattached). kind, and the fields it fills (the others
#                        are empty):
#                          stats     gen (the generation user space deployed, 0: none), by_model,
#                                    by_heur, by_explore, by_control: non-negative integers, the
#                                    decisions by source since the scheduler attached (totals)
#                          retrain   a candidate model judged (adaptive only): measure, saving
#                                    (the line says "saves X us/decision": higher is better) or
#                                    cost ("costs X us/decision": lower is better), one of the
#                                    two in every retrain row of the file; candidate_us and
#                                    live_us, numbers, that estimate per decision (us, on the
#                                    recent held-out samples) for the candidate and for the
#                                    incumbent, which is the heuristic or the live model
#                                    (incumbent: heuristic or model); deployed 0 or 1; gen the
#                                    new generation when deployed (else empty); accuracy and
#                                    live_accuracy, both empty (the line has none) or numbers in
#                                    0..1: the sign accuracies of candidate and incumbent there
#                          rollback  gen, the generation handed back to the heuristic (adaptive
#                                    only)
# Outputs, into RESULTS_DIR (nothing is written unless the input is valid):
#   report.md            environment, per-workload tables, key results, the plots embedded; with
#                        learning.csv, a learning section: per run (the training run, each
#                        adaptive turn), its decisions by source, retrains deployed and kept,
#                        rollbacks and last retrain's estimates
#   walltime.png, migrations.png, latency.png, learning.png, policy.png
#                        gnuplot plots; without gnuplot the report has none and one line on
#                        stderr says so. With learning.csv: learning.png, the decisions by
#                        source per second (each stats row against the previous one of that
#                        life, the first against zero), the training run in one panel and the
#                        adaptive turns end to end in another (turn after turn on one time
#                        axis); policy.png, when there are retrain rows, their candidate and
#                        incumbent estimates (deployed or kept) and sign accuracies on that
#                        adaptive time axis, rollbacks marked
#   summary.txt          these lines, also printed on stdout (and nothing else is):
#                          build_time_ratio_vs_eevdf=          build_migrations_ratio_vs_eevdf=
#                          hackbench_time_ratio_vs_eevdf=      latency_p99_ratio_vs_eevdf=
#                          latency_p50_ratio_vs_eevdf=         imbalance_time_ratio_vs_eevdf=
#                          frame_missed_pct=                   frame_missed_ratio_vs_eevdf=
#                          frame_build_time_ratio_vs_eevdf=
#                          build_unchosen_migr_pct=            build_accounted_migr_pct=
#                        for scheduler "learned", then the same eleven prefixed heuristic_
#                        (scheduler "heuristic"), then prefixed adaptive_ ("adaptive"), then
#                          learned_vs_heuristic_build_migrations_ratio=
#                          eevdf_frame_missed_pct=
#                          latency_p50_floor_ratio_vs_eevdf=   latency_p99_floor_ratio_vs_eevdf=
#                        the last two: the median over reps of lat_pXX_us of eevdf's
#                        latency-fifo run (cyclictest at SCHED_FIFO, the floor no sched_ext
#                        scheduler can go below) / that of its latency run, 3 decimals, "nan"
#                        without a pair: the lowest latency_pXX_ratio_vs_eevdf this machine allows.
#                        When results.csv has runs of workload kbuild (make bench-kernel), then
#                          kbuild_time_ratio_vs_eevdf=         kbuild_migrations_ratio_vs_eevdf=
#                        for "learned", the same two prefixed heuristic_, prefixed adaptive_
#                        only when scheduler adaptive ran, then
#                          learned_vs_heuristic_kbuild_migrations_ratio=
#                        and the lines above are left out when kbuild is the only workload.
#                        A *_ratio_vs_eevdf is the median over reps of value(SCHED, rep) /
#                        value(eevdf, rep), over the reps where both have an ok run of that
#                        workload with that value (a zero denominator skips the rep): wall_s,
#                        migrations, or lat_p99_us (lat_p50_us) of the latency workload; hackbench
#                        pools the reps of hackbench-proc and hackbench-thread; frame_build_time
#                        is the wall_s of workload frame (the build beside the frame tasks),
#                        frame_missed the per-run 100 * frame_missed / frame_periods of it. 3 decimals, "nan" when
#                        there is no pair. learned_vs_heuristic_build_migrations_ratio is the
#                        same with heuristic for eevdf: the median over reps of
#                        migrations(learned, rep) / migrations(heuristic, rep) of the build
#                        (learned_vs_heuristic_kbuild_migrations_ratio: of the kbuild).
#                        frame_missed_pct (eevdf_ for EEVDF) is 100 * sum(frame_missed) /
#                        sum(frame_periods) over the ok frame runs, pooled; 1 decimal, "nan"
#                        without such runs.
#                        The build_*_pct are scx_mlb's own migration classes over the ok build
#                        runs that have them, pooled: 100 * sum(migr_unchosen) / sum(migrations) and
#                        100 * sum(chosen + forced + unchosen) / sum(migrations), where
#                        migrations is perf's count; 1 decimal, "nan" without such runs.
# Environment: GNUPLOT names the gnuplot program (default: gnuplot).
# Exit status: 0 success; 2, with one line on stderr and nothing written, for a usage error, a
#   missing RESULTS_DIR or results.csv, a header that differs, a row with the wrong number of
#   fields, an unknown scheduler, a bad workload name, a non-numeric value in a numeric field,
#   two ok runs of one scheduler and workload in one rep, a work.csv row that breaks its
#   format or names a run results.csv does not have, or a learning.csv row that breaks its
#   format (header, field count, phase, rep, t_s, kind, a field its kind fills or leaves
#   empty); 1 on any other failure (e.g. a RESULTS_DIR that cannot be written).
set -euo pipefail

prog=bench/report.sh
HEADER=run,rep,slot,scheduler,workload,wall_s,migrations,ctx_switches,lat_p50_us,lat_p99_us,lat_max_us,lat_samples,by_model,by_heur,by_explore,steal_pct,migr_chosen,migr_forced,migr_unchosen,frame_periods,frame_missed
HEADER_V1=${HEADER%,frame_periods,frame_missed} # results written before the frame workload
SCHEDS="eevdf heuristic learned adaptive"
declare -A COLOR=([eevdf]="#0072b2" [heuristic]="#e69f00" [learned]="#009e73"
	[adaptive]="#cc79a7") # in the plots
LEARN_HEADER=phase,rep,t_s,kind,gen,by_model,by_heur,by_explore,by_control,measure,candidate_us,live_us,incumbent,deployed,accuracy,live_accuracy
GNUPLOT=${GNUPLOT:-gnuplot}

die() { # MESSAGE: the one line on stderr for bad input, exit 2
	echo "$prog: $*" >&2
	exit 2
}

warn() {
	echo "$prog: $*" >&2
}

# validate_csv FILE: print nothing and succeed, or print one line saying what is wrong and fail.
validate_csv() {
	awk -v hdr="$HEADER" -v hdr1="$HEADER_V1" -v scheds="$SCHEDS" -v file="$1" '
	function bad(msg) {
		printf "%s:%d: %s\n", file, FNR, msg
		err = 1
		exit 1
	}
	function isnum(x) {
		return x ~ /^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/
	}
	BEGIN {
		FS = ","
		nf = split(hdr, name, ",")
		split(scheds, s, " ")
		for (i in s)
			known[s[i]] = 1
	}
	{ sub(/\r$/, "") }
	FNR == 1 {
		if ($0 == hdr1)
			nf = split(hdr1, name, ",")
		else if ($0 != hdr)
			bad("header is not \"" hdr "\"")
		next
	}
	/^[ \t]*$/ { next }
	{
		if (NF != nf)
			bad(NF " fields, expected " nf)
		for (i = 1; i <= 3; i++)
			if ($i !~ /^[0-9]+$/ || $i + 0 < 1)
				bad(name[i] " \"" $i "\" is not a positive integer")
		if (!($4 in known))
			bad("unknown scheduler \"" $4 "\"")
		if ($5 !~ /^[A-Za-z0-9][A-Za-z0-9_.+-]*$/)
			bad("bad workload name \"" $5 "\"")
		for (i = 6; i <= nf; i++)
			if ($i != "" && !isnum($i) && !(i == 6 && $i == "fail"))
				bad(name[i] " \"" $i "\" is not a number")
		if (nf > 19 && $21 != "" && ($20 == "" || $21 + 0 > $20 + 0))
			bad("frame_missed \"" $21 "\" without frame_periods, or more than them")
		if ($6 != "" && $6 != "fail") {
			k = $4 SUBSEP $5 SUBSEP ($2 + 0)
			if (k in ok)
				bad("second ok run of " $4 " on " $5 " in rep " ($2 + 0))
			ok[k] = 1
		}
	}
	END {
		if (err)
			exit 1
		if (FNR == 0) {
			printf "%s: empty, no header\n", file
			exit 1
		}
	}' "$1"
}

# validate_work WORK RESULTS: print nothing and succeed, or one line saying what is wrong in
# WORK (work.csv) and fail.
validate_work() {
	awk -v file="$1" '
	function bad(msg) {
		printf "%s:%d: %s\n", file, FNR, msg
		err = 1
		exit 1
	}
	BEGIN { FS = "," }
	{ sub(/\r$/, "") }
	NR == FNR {
		if (FNR > 1 && $1 != "")
			runs[$1] = 1
		next
	}
	FNR == 1 {
		if ($0 != "run,callback,calls,cpus,tasks,doms,decisions,ns")
			bad("header is not run,callback,calls,cpus,tasks,doms,decisions,ns")
		next
	}
	/^[ \t]*$/ { next }
	{
		if (NF != 8)
			bad(NF " fields, expected 8")
		if (!($1 in runs))
			bad("run " $1 " is not in results.csv")
		if ($2 !~ /^[a-z_]+$/)
			bad("bad callback name \"" $2 "\"")
		for (i = 3; i <= 7; i++)
			if ($i !~ /^[0-9]+$/)
				bad("field " i " is not a non-negative integer: \"" $i "\"")
		if ($8 !~ /^[0-9]*$/)
			bad("ns is not empty or a non-negative integer: \"" $8 "\"")
		if (++seen[$1, $2] > 1)
			bad("run " $1 " has callback " $2 " twice")
	}
	END { exit err }' "$2" "$1"
}

# validate_learning FILE: print nothing and succeed, or one line saying what is wrong in FILE
# (learning.csv) and fail.
validate_learning() {
	awk -v hdr="$LEARN_HEADER" -v file="$1" '
	function bad(msg) {
		printf "%s:%d: %s\n", file, FNR, msg
		err = 1
		exit 1
	}
	function isnum(x) {
		return x ~ /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/
	}
	function isint(i) {
		if ($i !~ /^[0-9]+$/)
			bad(name[i] " \"" $i "\" is not a non-negative integer")
	}
	function empty(from, to,    i) {
		for (i = from; i <= to; i++)
			if ($i != "")
				bad(name[i] " \"" $i "\" in a " $4 " row, where it is empty")
	}
	BEGIN {
		FS = ","
		nf = split(hdr, name, ",")
	}
	{ sub(/\r$/, "") }
	FNR == 1 {
		if ($0 != hdr)
			bad("header is not \"" hdr "\"")
		next
	}
	/^[ \t]*$/ { next }
	{
		if (NF != nf)
			bad(NF " fields, expected " nf)
		if ($1 != "train" && $1 != "adaptive")
			bad("phase \"" $1 "\" is not train or adaptive")
		isint(2)
		if ($1 == "train" && $2 + 0 != 0)
			bad("rep " $2 " of the training run, not 0")
		if ($1 == "adaptive" && $2 + 0 < 1)
			bad("rep " $2 " of an adaptive turn, not 1 or more")
		if (!isnum($3) || $3 < 0)
			bad("t_s \"" $3 "\" is not a non-negative number")
		if ($4 == "stats") {
			for (i = 5; i <= 9; i++)
				isint(i)
			empty(10, nf)
		} else if ($4 == "retrain" || $4 == "rollback") {
			if ($1 != "adaptive")
				bad($4 " row in phase " $1 " (only adaptive turns retrain)")
			empty(6, 9)
			if ($4 == "rollback") {
				isint(5)
				empty(10, nf)
				next
			}
			if ($10 != "saving" && $10 != "cost")
				bad("measure \"" $10 "\" is not saving or cost")
			if (measure != "" && $10 != measure)
				bad("measure " $10 " after " measure " (one scx_mlb, one measure)")
			measure = $10
			for (i = 11; i <= 12; i++)
				if (!isnum($i))
					bad(name[i] " \"" $i "\" is not a number")
			if ($13 != "heuristic" && $13 != "model")
				bad("incumbent \"" $13 "\" is not heuristic or model")
			if ($14 != "0" && $14 != "1")
				bad("deployed \"" $14 "\" is not 0 or 1")
			if ($14 == "1")
				isint(5)
			else if ($5 != "")
				bad("gen \"" $5 "\" in a retrain row that was not deployed")
			if ($15 == "" && $16 == "")
				next
			for (i = 15; i <= 16; i++)
				if (!isnum($i) || $i < 0 || $i > 1)
					bad(name[i] " \"" $i "\" is not a number in 0..1 (or both empty)")
		} else
			bad("kind \"" $4 "\" is not stats, retrain or rollback")
	}
	END {
		if (err)
			exit 1
		if (FNR == 0) {
			printf "%s: empty, no header\n", file
			exit 1
		}
	}' "$1"
}

# work_table RESULTS WORK: the report section on scx_mlb's work per call, into $tmp/work.md.
# Per scheduler, callback and workload, pooled over its ok runs: units per call (CPUs scanned
# + queued tasks walked + domains visited + decisions, per call) and calls per run; for the
# balancer, also the time per round.
work_table() {
	awk -v scheds="$SCHEDS" '
	BEGIN { FS = ","; ns = split(scheds, S, " ") }
	{ sub(/\r$/, "") }
	NR == FNR {
		if (FNR == 1 || $1 == "" || $6 == "" || $6 == "fail")
			next
		sched[$1] = $4; wl[$1] = $5
		if (!($5 in wseen)) { wseen[$5] = 1; W[++nw] = $5 }
		next
	}
	FNR == 1 || /^[ \t]*$/ { next }
	!($1 in sched) { next }  # a failed run: its work is not pooled
	{
		s = sched[$1]; w = wl[$1]; cb = $2
		if (!(cb in cbseen)) { cbseen[cb] = 1; C[++nc] = cb }
		has[s] = 1
		calls[s, cb, w] += $3
		units[s, cb, w] += $4 + $5 + $6 + $7
		if ($8 != "") nsum[s, cb, w] += $8
		if (!((s, w, $1) in rseen)) { rseen[s, w, $1] = 1; nruns[s, w]++ }
	}
	END {
		print "## Work per call (scx_mlb'"'"'s own counters)"
		print ""
		print "Counted by the scheduler in its per-CPU `work` map over exactly each run (README," \
			" the `work` line; docs/scaling.md): units per call are CPUs scanned + queued" \
			" tasks walked + domains visited + seam decisions, divided by calls, pooled over the" \
			" ok runs; in brackets, calls per run. Deterministic for a given load, unlike the" \
			" times; the balancer'"'"'s time per round is measured inside its timer callback" \
			" and, under TCG, includes the time its vCPU was not running."
		any = 0
		for (i = 1; i <= ns; i++) {
			s = S[i]
			if (!(s in has))
				continue
			any = 1
			print ""
			print "**" s "**"
			print ""
			line = "| callback |"; sep = "|---|"
			for (j = 1; j <= nw; j++)
				if ((s, W[j]) in nruns) { line = line " " W[j] " |"; sep = sep "--:|" }
			print line; print sep
			for (k = 1; k <= nc; k++) {
				cb = C[k]; line = "| " cb " |"
				for (j = 1; j <= nw; j++) {
					w = W[j]
					if (!((s, w) in nruns)) continue
					c = calls[s, cb, w]
					line = line (c ? sprintf(" %.2f (%d) |", units[s, cb, w] / c, c / nruns[s, w]) : " - (0) |")
				}
				print line
				if (cb == "balance_round") {
					line = "| balance_round us/round |"
					for (j = 1; j <= nw; j++) {
						w = W[j]
						if (!((s, w) in nruns)) continue
						c = calls[s, cb, w]
						line = line (c ? sprintf(" %.0f |", nsum[s, cb, w] / c / 1000) : " - |")
					}
					print line
				}
			}
		}
		if (!any)
			print "\nNo scx_mlb run with work counters."
	}' "$1" "$2" >"$tmp/work.md"
}

# learning_data CSV TERM: from the validated learning.csv, $tmp/learning.md (a table: per run,
# its decisions by source, retrains and rollbacks) and, when TERM is set, the gnuplot scripts
# learning.gp (decisions by source per second) and policy.gp (the retrain lines' estimates and
# sign accuracies; only with retrain rows) with their data files. A rate is a stats row against
# the previous one of the same life (the first against zero at attach). The adaptive turns are
# laid end to end on one time axis, each from where the previous one ended, as are the lives
# of one turn.
learning_data() {
	awk -v out="$tmp" -v term="$2" -v cheur="${COLOR[heuristic]}" -v cmodel="${COLOR[learned]}" \
		-v cadapt="${COLOR[adaptive]}" '
	# the terminal line for a picture h pixels high
	function terminal(h,    t) {
		t = term
		sub(/size 960,540/, "size 960," h, t)
		return t
	}
	# the dotted line and label at the start of each adaptive turn, into gnuplot script f
	function turn_marks(f,    i, x) {
		for (i = 1; i <= nturn["adaptive"]; i++) {
			x = tstart["adaptive", TURN["adaptive", i]]
			if (i > 1)
				printf "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dashtype 3 linecolor rgb \"gray50\"\n", x, x > f
			printf "set label \"rep %s\" at %.1f, graph 0.95 offset character 0.5, 0\n",
				TURN["adaptive", i], x > f
		}
	}
	function plot_learning(    f, n, p, i) {
		n = ("train" in wrote) + ("adaptive" in wrote)
		if (!n)
			return
		f = out "/learning.gp"
		print terminal(n == 2 ? 810 : 540) > f
		print "set output \"learning.png\"" > f
		printf "set multiplot layout %d, 1\n", n > f
		print "set grid\nset key outside right top\nset yrange [0:*]\nset offsets 0, 0, graph 0.05, 0" > f
		print "set ylabel \"decisions per second\"" > f
		for (i = 1; i <= 2; i++) {
			p = i == 1 ? "train" : "adaptive"
			if (!(p in wrote))
				continue
			printf "set xrange [0:%.1f]\n", xmax[p] > f
			if (p == "train") {
				print "set title \"Decisions by source: the training run (scx_mlb --mode collect)\"" > f
				print "set xlabel \"seconds since the scheduler attached\"" > f
			} else {
				turn_marks(f)
				print "set title \"Decisions by source: the adaptive turns, end to end\"" > f
				print "set xlabel \"seconds of adaptive scheduling (turns end to end)\"" > f
			}
			printf "plot \"learning-%s.dat\" using 1:2 with lines linewidth 1.5 linecolor rgb \"%s\" title \"model\", \\\n", p, cmodel > f
			printf "\t\"\" using 1:3 with lines linewidth 1.5 linecolor rgb \"%s\" title \"heuristic\", \\\n", cheur > f
			print "\t\"\" using 1:5 with lines linewidth 1.5 linecolor rgb \"#d55e00\" title \"control\", \\" > f
			print "\t\"\" using 1:4 with lines linewidth 1.5 linecolor rgb \"#56b4e9\" title \"explore\"" > f
		}
		print "unset multiplot" > f
	}
	# one series of policy.gp: column c of policy-NAME.dat, when it has rows
	function series(name, c, style, title) {
		if (!(name in has))
			return ""
		return sprintf("%s\"policy-%s.dat\" using 1:%d with points %s title \"%s\"",
			NPS++ ? ", \\\n\t" : "", name, c, style, title)
	}
	function policy_series(c,    s) {
		NPS = 0
		s = series("deployed", c, "pointtype 7 pointsize 1.5 linecolor rgb \"" cmodel "\"",
			"candidate, deployed")
		s = s series("kept", c, "pointtype 6 pointsize 1.5 linecolor rgb \"gray30\"",
			"candidate, kept out")
		s = s series("heuristic", c, "pointtype 5 pointsize 1 linecolor rgb \"" cheur "\"",
			"incumbent: the heuristic")
		s = s series("model", c, "pointtype 13 pointsize 1 linecolor rgb \"" cadapt "\"",
			"incumbent: the live model")
		if (nrbx)
			s = s ", \\\n\tNaN with lines dashtype 2 linewidth 1.5 linecolor rgb \"#d55e00\" title \"rollback\""
		return s
	}
	function plot_policy(    f, i) {
		if (!anyret)
			return
		f = out "/policy.gp"
		print terminal(anyacc ? 810 : 540) > f
		print "set output \"policy.png\"" > f
		printf "set multiplot layout %d, 1\n", anyacc ? 2 : 1 > f
		print "set grid\nset key outside right top\nset offsets 0, 0, graph 0.05, graph 0.05" > f
		# a little room right of the last retrain, which is often at the end
		printf "set xrange [0:%.1f]\n", (xmax["adaptive"] > 0 ? 1.03 * xmax["adaptive"] : 1) > f
		turn_marks(f)
		for (i = 1; i <= nrbx; i++)
			printf "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dashtype 2 linewidth 1.5 linecolor rgb \"#d55e00\"\n", RB[i], RB[i] > f
		print "set xlabel \"seconds of adaptive scheduling (turns end to end)\"" > f
		printf "set title \"Retrains: estimated %s per decision on the recent held-out samples (%s is better)\"\n",
			measure, measure == "cost" ? "lower" : "higher" > f
		print "set ylabel \"us per decision\"" > f
		print "plot " policy_series(2) > f
		if (anyacc) {
			print "set title \"Retrains: sign accuracy on the same samples\"" > f
			print "set ylabel \"sign accuracy\"" > f
			print "plot " policy_series(3) > f
		}
		print "unset multiplot" > f
	}
	BEGIN { FS = "," }
	{ sub(/\r$/, "") }
	FNR == 1 || /^[ \t]*$/ { next }
	{
		p = $1; r = $2 + 0; t = $3 + 0
		if (!(p in started) || r != lrep[p] || t < lt[p]) {
			# a new life: the next turn, or the scheduler reattached within one
			if (p in started)
				base[p] += lt[p]
			started[p] = 1
			for (k = 1; k <= 4; k++)
				prev[p, k] = 0
			pt[p] = 0
			newlife[p] = 1
			if (!((p, r) in tstart)) {
				TURN[p, ++nturn[p]] = r
				tstart[p, r] = base[p]
			}
		}
		lrep[p] = r
		lt[p] = t
		x = base[p] + t
		if (x > xmax[p])
			xmax[p] = x
		if ($4 == "stats") {
			dt = t - pt[p]
			neg = 0
			for (k = 1; k <= 4; k++)
				if ((d[k] = $(5 + k) - prev[p, k]) < 0)
					neg = 1
			if (dt > 0 && !neg) {
				f = out "/learning-" p ".dat"
				if (term != "" && newlife[p] && (p in wrote))
					print "" > f # a gap in the lines
				wrote[p] = 1
				newlife[p] = 0
				if (term != "")
					printf "%.1f %.3f %.3f %.3f %.3f\n", x, d[1] / dt, d[2] / dt, d[3] / dt,
						d[4] / dt > f
				for (k = 1; k <= 4; k++)
					tot[p, r, k] += d[k]
				secs[p, r] += dt
			}
			for (k = 1; k <= 4; k++)
				prev[p, k] = $(5 + k)
			pt[p] = t
		} else if ($4 == "retrain") {
			k = $14 == 1 ? "deployed" : "kept"
			has[k] = has[$13] = anyret = 1
			measure = $10
			if ($15 != "")
				anyacc = 1
			if (term != "") {
				printf "%.1f %s %s\n", x, $11, ($15 == "" ? "NaN" : $15) > (out "/policy-" k ".dat")
				printf "%.1f %s %s\n", x, $12, ($16 == "" ? "NaN" : $16) > (out "/policy-" $13 ".dat")
			}
			nret[p, r, $14]++
			last[p, r] = sprintf("%s %s vs %s%s", measure == "cost" ? "costs" : "saves", $11, $12,
				$15 == "" ? "" : " (" $15 " vs " $16 ")")
		} else {
			nrb[p, r]++
			RB[++nrbx] = x
		}
	}
	END {
		f = out "/learning.md"
		for (i = 1; i <= 2; i++) {
			p = i == 1 ? "train" : "adaptive"
			for (j = 1; j <= nturn[p]; j++) {
				r = TURN[p, j]
				if (!rows++) {
					print "| run | seconds | decisions model / heur / control / explore | model share | retrains deployed / kept | rollbacks | last retrain: candidate vs incumbent, us/decision (sign accuracies) |" > f
					print "|---|--:|--:|--:|--:|--:|---|" > f
				}
				m = tot[p, r, 1]; h = tot[p, r, 2]; e = tot[p, r, 3]; c = tot[p, r, 4]
				share = m + h + e + c ? sprintf("%.1f%%", 100 * m / (m + h + e + c)) : "-"
				if (p == "train") {
					name = "training run (collect)"
					rt = rb = lr = "-"
				} else {
					name = "adaptive, rep " r
					rt = (nret[p, r, 1] + 0) " / " (nret[p, r, 0] + 0)
					rb = nrb[p, r] + 0
					lr = ((p, r) in last) ? last[p, r] : "-"
				}
				printf "| %s | %.0f | %.0f / %.0f / %.0f / %.0f | %s | %s | %s | %s |\n", name,
					secs[p, r], m, h, c, e, share, rt, rb, lr > f
			}
		}
		if (!rows)
			print "learning.csv has no rows." > f
		if (term != "") {
			plot_learning()
			plot_policy()
		}
	}' "$1"
}

# meta_get KEY: the value of KEY= in meta.txt (empty if none)
meta_get() {
	[ -f "$dir/meta.txt" ] || return 0
	awk -v k="$1" '{ sub(/\r$/, "") } index($0, "=") && substr($0, 1, index($0, "=") - 1) == k {
		print substr($0, index($0, "=") + 1); exit }' "$dir/meta.txt"
}

# gnuplot_terminal: the gnuplot terminal line to use, or nothing if gnuplot cannot be run
gnuplot_terminal() {
	command -v "$GNUPLOT" >/dev/null 2>&1 || return 0
	if "$GNUPLOT" -e 'set terminal pngcairo' >/dev/null 2>&1; then
		echo "set terminal pngcairo size 960,540 noenhanced font ',10'"
	elif "$GNUPLOT" -e 'set terminal png' >/dev/null 2>&1; then
		echo "set terminal png size 960,540 noenhanced"
	fi
}

# analyse CSV TERM: from the validated CSV, write into $tmp tables.md (run counts and the
# per-workload tables), summary.txt (the key=value lines), and, when TERM is set, the gnuplot
# scripts walltime.gp and migrations.gp with their data files and plotnotes.md.
analyse() {
	local s colors=""
	for s in $SCHEDS; do
		colors+="$s=${COLOR[$s]}\n"
	done
	awk -v out="$tmp" -v term="$2" -v scheds="$SCHEDS" -v colors="$colors" '
	# insertion sort of a[1..n], ascending
	function isort(a, n,    i, j, t) {
		for (i = 2; i <= n; i++) {
			t = a[i]
			for (j = i - 1; j >= 1 && a[j] > t; j--)
				a[j + 1] = a[j]
			a[j + 1] = t
		}
	}
	# median of a[1..n], n > 0 (sorts a)
	function median(a, n) {
		isort(a, n)
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	# the values of metric m over the ok runs of s on w: returns their number, sets VMED, VMIN,
	# VMAX
	function gather(m, s, w,    i, n, r) {
		delete V
		n = 0
		for (i = 1; i <= nok[s, w]; i++) {
			r = reps[s, w, i]
			if ((m, s, w, r) in val)
				V[++n] = val[m, s, w, r]
		}
		if (n) {
			VMED = median(V, n)
			VMIN = V[1]
			VMAX = V[n]
		}
		return n
	}
	# append to P[1..NP] the ratios value(s, r) / value(base, r) of metric m on w, for every rep
	# r where both have the value and the denominator is not 0
	function add_pairs(m, s, w, base,    i, r, d) {
		for (i = 1; i <= nok[s, w]; i++) {
			r = reps[s, w, i]
			if (!((m, s, w, r) in val) || !((m, base, w, r) in val))
				continue
			d = val[m, base, w, r]
			if (d != 0)
				P[++NP] = val[m, s, w, r] / d
		}
	}
	function pairs_start() {
		delete P
		NP = 0
	}
	function pairs_median() {
		return NP ? sprintf("%.3f", median(P, NP)) : "nan"
	}
	# median of the per-pair ratios of metric m, scheduler s to eevdf, on workload w
	function ratio(m, s, w) {
		pairs_start()
		add_pairs(m, s, w, "eevdf")
		return pairs_median()
	}
	# kind: s (seconds), us (microseconds), n (count), pct; values are never negative
	function fmt(x, kind) {
		if (kind == "pct")
			return sprintf("%.1f", x)
		if (kind == "s")
			return sprintf("%.2f", x)
		if (kind == "us" && x != int(x))
			return sprintf("%.1f", x)
		return sprintf("%.0f", int(x + 0.5))
	}
	# "median (min-max)" of metric m of s on w, "-" without values
	function spread(m, s, w, kind) {
		if (!gather(m, s, w))
			return "-"
		if (VMIN == VMAX)
			return fmt(VMED, kind)
		return fmt(VMED, kind) " (" fmt(VMIN, kind) "-" fmt(VMAX, kind) ")"
	}
	function decisions(s, w,    t) {
		if (s == "eevdf" || !hasby[s, w])
			return "- | -"
		t = bym[s, w] + byh[s, w] + bye[s, w]
		return sprintf("%.0f / %.0f / %.0f | %s", bym[s, w], byh[s, w], bye[s, w],
			t > 0 ? sprintf("%.1f%%", 100 * bym[s, w] / t) : "-")
	}
	function has_latency(w,    i, s) {
		for (i = 1; i <= nsch; i++) {
			s = SCH[i]
			if (gather("p50", s, w) || gather("p99", s, w) || gather("max", s, w))
				return 1
		}
		return 0
	}
	function table(w,    f, i, s, n) {
		f = out "/tables.md"
		printf "\n### %s\n\n", w > f
		print "| scheduler | ok | failed | wall s, median (min-max) | cpu-migrations | context switches | wall vs EEVDF | migrations vs EEVDF | decisions model / heur / explore | model share | steal % | migrations chosen / forced / unchosen (sum vs perf) |" > f
		print "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|" > f
		for (i = 1; i <= nsch; i++) {
			s = SCH[i]
			if (!((s, w) in present))
				continue
			printf "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", s, nok[s, w],
				nfail[s, w], spread("wall", s, w, "s"), spread("migr", s, w, "n"),
				spread("ctx", s, w, "n"), ratio("wall", s, w), ratio("migr", s, w),
				decisions(s, w), spread("steal", s, w, "s"), classes(s, w) > f
		}
		if (!has_latency(w))
			return
		printf "\nLatency (%s):\n\n", w > f
		printf "| scheduler | ok | p50 us, median (min-max) | p99 us | max us | p99 vs EEVDF | samples |%s\n",
			hasframe[w] ? " missed deadlines %, median (min-max) | missed, pooled | missed vs EEVDF |" : "" > f
		print "|---|--:|--:|--:|--:|--:|--:|" (hasframe[w] ? "--:|--:|--:|" : "") > f
		for (i = 1; i <= nsch; i++) {
			s = SCH[i]
			if (!((s, w) in present))
				continue
			n = "-"
			if ((s, w) in samples)
				n = sprintf("%.0f", samples[s, w])
			printf "| %s | %d | %s | %s | %s | %s | %s |", s, nok[s, w],
				spread("p50", s, w, "us"), spread("p99", s, w, "us"),
				spread("max", s, w, "us"), ratio("p99", s, w),
				n > f
			if (hasframe[w])
				printf " %s | %s%s | %s |", spread("missed", s, w, "pct"),
					missed_pct(s, w), missed_pct(s, w) == "nan" ? "" : "%",
					ratio("missed", s, w) > f
			print "" > f
		}
	}
	function keys(pfx, s,    f) {
		f = out "/summary.txt"
		print pfx "build_time_ratio_vs_eevdf=" ratio("wall", s, "build") > f
		print pfx "build_migrations_ratio_vs_eevdf=" ratio("migr", s, "build") > f
		pairs_start()
		add_pairs("wall", s, "hackbench-proc", "eevdf")
		add_pairs("wall", s, "hackbench-thread", "eevdf")
		print pfx "hackbench_time_ratio_vs_eevdf=" pairs_median() > f
		print pfx "latency_p99_ratio_vs_eevdf=" ratio("p99", s, "latency") > f
		print pfx "latency_p50_ratio_vs_eevdf=" ratio("p50", s, "latency") > f
		print pfx "imbalance_time_ratio_vs_eevdf=" ratio("wall", s, "imbalance") > f
		print pfx "frame_missed_pct=" missed_pct(s, "frame") > f
		print pfx "frame_missed_ratio_vs_eevdf=" ratio("missed", s, "frame") > f
		print pfx "frame_build_time_ratio_vs_eevdf=" ratio("wall", s, "frame") > f
		print pfx "build_unchosen_migr_pct=" migr_pct(s, "build", mun[s, "build"]) > f
		print pfx "build_accounted_migr_pct=" migr_pct(s, "build",
			mch[s, "build"] + mfo[s, "build"] + mun[s, "build"]) > f
	}
	# the keys of make bench-kernel (workload kbuild)
	function kbuild_keys(pfx, s,    f) {
		f = out "/summary.txt"
		print pfx "kbuild_time_ratio_vs_eevdf=" ratio("wall", s, "kbuild") > f
		print pfx "kbuild_migrations_ratio_vs_eevdf=" ratio("migr", s, "kbuild") > f
	}
	# median over reps of metric m of the eevdf latency-fifo run / the eevdf latency run
	function floor_ratio(m,    i, r) {
		pairs_start()
		for (i = 1; i <= nok["eevdf", "latency-fifo"]; i++) {
			r = reps["eevdf", "latency-fifo", i]
			if ((m, "eevdf", "latency-fifo", r) in val && (m, "eevdf", "latency", r) in val &&
			    val[m, "eevdf", "latency", r] != 0)
				P[++NP] = val[m, "eevdf", "latency-fifo", r] / val[m, "eevdf", "latency", r]
		}
		return pairs_median()
	}
	# 100 * missed / periods of s on w, pooled over its ok runs with frame counts
	function missed_pct(s, w) {
		if (fper[s, w] <= 0)
			return "nan"
		return sprintf("%.1f", 100 * fmis[s, w] / fper[s, w])
	}
	# 100 * x / perf migrations of s on w, over the runs with migration classes
	function migr_pct(s, w, x) {
		if (!hasmc[s, w] || mperf[s, w] <= 0)
			return "nan"
		return sprintf("%.1f", 100 * x / mperf[s, w])
	}
	function classes(s, w) {
		if (!hasmc[s, w])
			return "-"
		return sprintf("%.0f / %.0f / %.0f (%s%%)", mch[s, w], mfo[s, w], mun[s, w],
			migr_pct(s, w, mch[s, w] + mfo[s, w] + mun[s, w]))
	}
	# gnuplot script NAME.gp (and NAME-SCHED.dat) plotting metric m of every scheduler and
	# workload, normalised to the EEVDF median of that workload; workloads without one are
	# left out and named in plotnotes.md
	function plot(name, m, title, ylabel,    i, j, s, w, e, x, tics, lo, hi, skipped, f, sep) {
		x = 0
		lo = hi = 1
		for (i = 1; i <= nw; i++) {
			w = WL[i]
			if (!gather(m, "eevdf", w) || VMED <= 0) {
				skipped = skipped (skipped == "" ? "" : ", ") w
				continue
			}
			e = VMED
			for (j = 1; j <= nsch; j++) {
				s = SCH[j]
				if (!gather(m, s, w))
					continue
				printf "%.3f %g %g %g\n", x + OFF[s], VMED / e, VMIN / e, VMAX / e > (out "/" name "-" s ".dat")
				dat[name, s] = 1
				if (VMIN / e < lo) lo = VMIN / e
				if (VMAX / e > hi) hi = VMAX / e
			}
			tics = tics (x ? ", " : "") "\"" w "\" " x
			x++
		}
		if (skipped != "")
			printf "%s.png leaves out %s: no EEVDF %s median to normalise to.\n\n", name,
				skipped, (m == "wall" ? "wall-time" : "migrations") > (out "/plotnotes.md")
		if (!x)
			return
		f = out "/" name ".gp"
		print term > f
		print "set output \"" name ".png\"" > f
		print "set title \"" title "\"" > f
		print "set ylabel \"" ylabel "\"" > f
		print "set xtics (" tics ")" > f
		printf "set xrange [-0.6:%f]\n", x - 0.4 > f
		print "set grid ytics" > f
		print "set key outside right top" > f
		print "set bars 2" > f
		if (lo > 0 && hi / lo > 20)
			print "set logscale y\nset offsets 0, 0, graph 0.05, graph 0.05" > f
		else
			print "set yrange [0:*]\nset offsets 0, 0, graph 0.05, 0" > f
		printf "plot 1 with lines dashtype 2 linecolor rgb \"gray40\" title \"EEVDF = 1\"" > f
		for (j = 1; j <= nsch; j++) {
			s = SCH[j]
			if ((name, s) in dat)
				printf ", \\\n\t\"%s-%s.dat\" using 1:2:3:4 with yerrorbars pointtype %d pointsize 1.5 linewidth 1.5 linecolor rgb \"%s\" title \"%s\"",
					name, s, PT[s], COLOR[s], s > f
		}
		print "" > f
	}
	BEGIN {
		FS = ","
		nsch = split(scheds, SCH, " ")
		n = split(colors, color, "\n")
		for (i = 1; i <= n; i++) {
			split(color[i], kv, "=")
			COLOR[kv[1]] = kv[2]
		}
		nknown = split("build hackbench-proc hackbench-thread latency latency-fifo imbalance frame", KNOWN, " ")
		split("wall migr ctx p50 p99 max steal", metric, " ")
		split("6 7 8 9 10 11 16", column, " ")
		for (i in metric)
			COL[metric[i]] = column[i]
		PT["eevdf"] = 7; PT["heuristic"] = 5; PT["learned"] = 9; PT["adaptive"] = 13
	}
	{ sub(/\r$/, "") }
	FNR == 1 || /^[ \t]*$/ { next }
	{
		s = $4
		w = $5
		r = $2 + 0
		nruns++
		if (!(w in seen))
			seen[w] = ++nseen
		present[s, w] = 1
		hassched[s] = 1
		if ($6 == "" || $6 == "fail") {
			nfail[s, w]++
			nfailed++
			next
		}
		reps[s, w, ++nok[s, w]] = r
		for (k in COL)
			if ($(COL[k]) != "")
				val[k, s, w, r] = $(COL[k]) + 0
		if ($12 != "")
			samples[s, w] += $12
		if ($17 != "" && $18 != "" && $19 != "" && $7 != "") {
			hasmc[s, w] = 1
			mch[s, w] += $17
			mfo[s, w] += $18
			mun[s, w] += $19
			mperf[s, w] += $7
		}
		if (NF > 19 && $20 != "" && $21 != "") {
			hasframe[w] = 1
			fper[s, w] += $20
			fmis[s, w] += $21
			if ($20 > 0)
				val["missed", s, w, r] = 100 * $21 / $20
		}
		if ($13 != "" || $14 != "" || $15 != "") {
			hasby[s, w] = 1
			bym[s, w] += $13
			byh[s, w] += $14
			bye[s, w] += $15
		}
	}
	END {
		# the known workloads in their order, then the others in order of appearance
		nw = 0
		for (i = 1; i <= nknown; i++)
			if (KNOWN[i] in seen) {
				WL[++nw] = KNOWN[i]
				isknown[KNOWN[i]] = 1
			}
		for (i = 1; i <= nseen; i++)
			for (w in seen)
				if (seen[w] == i && !(w in isknown))
					WL[++nw] = w
		printf "%d runs, %d failed (failed runs are left out of every median and ratio).\n",
			nruns, nfailed > (out "/tables.md")
		for (i = 1; i <= nw; i++)
			table(WL[i])
		# the keys of make bench, unless the results are those of make bench-kernel alone
		if (!(nw == 1 && WL[1] == "kbuild")) {
			keys("", "learned")
			keys("heuristic_", "heuristic")
			keys("adaptive_", "adaptive")
			pairs_start()
			add_pairs("migr", "learned", "build", "heuristic")
			print "learned_vs_heuristic_build_migrations_ratio=" pairs_median() > (out "/summary.txt")
			print "eevdf_frame_missed_pct=" missed_pct("eevdf", "frame") > (out "/summary.txt")
			print "latency_p50_floor_ratio_vs_eevdf=" floor_ratio("p50") > (out "/summary.txt")
			print "latency_p99_floor_ratio_vs_eevdf=" floor_ratio("p99") > (out "/summary.txt")
		}
		if ("kbuild" in seen) {
			kbuild_keys("", "learned")
			kbuild_keys("heuristic_", "heuristic")
			if ("adaptive" in hassched)
				kbuild_keys("adaptive_", "adaptive")
			pairs_start()
			add_pairs("migr", "learned", "kbuild", "heuristic")
			print "learned_vs_heuristic_kbuild_migrations_ratio=" pairs_median() > (out "/summary.txt")
		}
		if (term != "") {
			# the schedulers side by side around the tick of each workload, 0.2 apart
			n = 0
			for (i = 1; i <= nsch; i++)
				if (SCH[i] in hassched)
					n++
			k = 0
			for (i = 1; i <= nsch; i++)
				if (SCH[i] in hassched)
					OFF[SCH[i]] = 0.2 * (++k - (n + 1) / 2)
			plot("walltime", "wall", "Wall time relative to the EEVDF median (median, min-max)",
				"wall time / EEVDF median")
			plot("migrations", "migr", "cpu-migrations relative to the EEVDF median (median, min-max)",
				"cpu-migrations / EEVDF median")
		}
	}' "$1"
}

# latency_data: merge the histograms lat/SCHED-r*.hist of each scheduler into $tmp/lat-SCHED.dat
# ("US FRACTION" with FRACTION the share of samples at US or above) and write the gnuplot script
# latency.gp if any has samples; one line per scheduler into $tmp/latnotes.md
latency_data() {
	local s f files plots=""
	for s in $SCHEDS; do
		files=()
		for f in "$dir/lat/$s"-r*.hist; do
			[ -f "$f" ] && files+=("$f")
		done
		[ ${#files[@]} -gt 0 ] || continue
		awk -v prog="$prog" '
		FNR == 1 && bad { printf "%s: warning: %s: %d malformed lines ignored\n", prog, last, bad > "/dev/stderr"; bad = 0 }
		FNR == 1 { last = FILENAME }
		{ sub(/\r$/, "") }
		/^[ \t]*(#|$)/ { next }
		NF == 2 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n[$1 + 0] += $2; next }
		{ bad++ }
		END {
			if (bad)
				printf "%s: warning: %s: %d malformed lines ignored\n", prog, last, bad > "/dev/stderr"
			for (us in n)
				if (n[us])
					print us, n[us]
		}' "${files[@]}" | sort -n -k1,1 | awk -v s="$s" -v files=${#files[@]} -v notes="$tmp/latnotes.md" '
		{ us[NR] = $1; n[NR] = $2; total += $2 }
		END {
			printf "- %s: %d histogram%s, %d samples\n", s, files, files == 1 ? "" : "s", total >> notes
			for (i = 1; i <= NR; i++) {
				if (us[i] > 0)
					printf "%s %.9g\n", us[i], (total - below) / total
				below += n[i]
			}
		}' >"$tmp/lat-$s.dat"
		[ -s "$tmp/lat-$s.dat" ] || continue
		plots+="${plots:+, }\"lat-$s.dat\" using 1:2 with fsteps linewidth 2 linecolor rgb \"${COLOR[$s]}\" title \"$s\""
	done
	[ -n "$plots" ] || return 0
	cat >"$tmp/latency.gp" <<-EOF
		$term
		set output "latency.png"
		set title "Wakeup latency distribution (all latency runs merged)"
		set xlabel "latency (us)"
		set ylabel "fraction of samples at or above"
		set logscale xy
		set grid
		set key outside right top
		plot $plots
	EOF
}

# run_gnuplot NAME: NAME.png from NAME.gp in $tmp; a failure leaves no png and warns
run_gnuplot() {
	[ -f "$tmp/$1.gp" ] || return 0
	if ! (cd "$tmp" && "$GNUPLOT" "$1.gp") >"$tmp/$1.log" 2>&1 || [ ! -s "$tmp/$1.png" ]; then
		warn "gnuplot failed on $1.png: $(grep -m 1 . "$tmp/$1.log" || true)"
		rm -f "$tmp/$1.png"
	fi
}

# write_report TITLE_DATE ACCEL: assemble $tmp/report.md
write_report() {
	local f=$tmp/report.md
	{
		echo "# scx_mlb benchmark report, $1"
		echo
		echo "## Environment"
		echo
		if [ -f "$dir/meta.txt" ]; then
			echo '```'
			tr -d '\r' <"$dir/meta.txt" | grep -v '^[[:space:]]*$' || true
			echo '```'
		else
			echo "No meta.txt in the results directory."
		fi
		case $2 in
		tcg | tcg,*)
			echo
			echo "**The guest was emulated by QEMU TCG** (accel=$2), not run with hardware" \
				"virtualisation. TCG has no cache model, so any cache-affinity benefit of fewer" \
				"migrations cannot appear in the wall times here. Migration counts, context" \
				"switches and latencies are still real (the guest kernel counts them), but wall" \
				"times on the shared host swing 15-35% between runs: compare the per-pair ratios" \
				"and medians below, not single runs."
			;;
		esac
		echo
		echo "## Results per workload"
		echo
		echo "Ratios vs EEVDF are medians of per-pair ratios: for each rep in which both the" \
			"scheduler and EEVDF have an ok run, value(scheduler) / value(EEVDF); a zero" \
			"EEVDF value skips the pair; nan when there is no pair. Decisions are summed over" \
			"the ok runs; model share = model / (model + heur + explore); the control share" \
			"that a live model leaves to the heuristic (adaptive) is not in these columns."
		echo
		cat "$tmp/tables.md"
		echo
		if [ -f "$tmp/work.md" ]; then
			cat "$tmp/work.md"
			echo
		fi
		if [ -f "$tmp/learning.md" ]; then
			learning_section
			echo
		fi
		echo "## Key results"
		echo
		echo '```'
		cat "$tmp/summary.txt"
		echo '```'
		echo
		echo "## Plots"
		echo
		if [ -z "$term" ]; then
			echo "No plots: gnuplot ($GNUPLOT) with a png terminal is not available."
		else
			plot_link walltime "Wall time relative to EEVDF"
			plot_link migrations "cpu-migrations relative to EEVDF"
			[ ! -f "$tmp/plotnotes.md" ] || cat "$tmp/plotnotes.md"
			if [ -f "$tmp/latency.png" ]; then
				plot_link latency "Latency distribution"
				cat "$tmp/latnotes.md"
			elif [ -f "$tmp/latency.gp" ]; then
				echo "latency.png: gnuplot failed."
			else
				echo "No latency plot: no latency histogram (lat/*.hist) with samples."
			fi
		fi
	} >"$f"
}

# learning_section: the report's section on learning.csv (the table and its plots)
learning_section() {
	echo "## Learning"
	echo
	echo "From learning.csv: scx_mlb's stats, retrain and rollback lines in the training run" \
		"(\`--mode collect\`, the run the learned model is trained on: the heuristic decides," \
		"exploration goes against it) and in the adaptive turns (\`--mode adaptive\`, one state" \
		"directory for all its turns: the first starts from the heuristic, each later one from" \
		"the model the previous one saved). Decisions are summed over each run's stats lines;" \
		"control is the share left to the heuristic beside a live model to compare the two," \
		"and the model share here counts all four sources. A retrain line judges a candidate" \
		"model on the most recent held-out samples: it is deployed when its estimate per" \
		"decision beats the incumbent's (the live model's, or the heuristic's when none is" \
		"live); the estimate is a saving (\"saves\", higher is better) or, in versions of" \
		"scx_mlb that estimate costs, a cost (\"costs\", lower is better). A rollback gives" \
		"the CPU back to the heuristic when the model's decisions cost clearly more than the" \
		"control share's."
	echo
	cat "$tmp/learning.md"
	echo
	[ -n "$term" ] || return 0
	plot_link learning "Decisions by source per second"
	if [ -f "$tmp/learning.png" ]; then
		echo "learning.png: decisions per second by source, each stats line against the one" \
			"before (the training run's come every 5 s, the adaptive turns' every second): the" \
			"training run above, the adaptive turns end to end below (dotted: a new turn). The" \
			"model's line rising as the heuristic's falls is the adaptive scheduler taking over" \
			"from the heuristic."
		echo
	fi
	if [ ! -f "$tmp/policy.gp" ]; then
		echo "No policy.png: no retrain line judged a candidate."
		return 0
	fi
	plot_link policy "Retrain estimates and sign accuracies"
	[ ! -f "$tmp/policy.png" ] ||
		echo "policy.png: at each retrain of the adaptive turns, the candidate's estimate per" \
			"decision (filled: deployed, open: kept out) against the incumbent's on the same" \
			"samples, and below, when the retrain lines give them, their sign accuracies;" \
			"dashed: rollbacks, dotted: a new turn."
}

# plot_link NAME CAPTION: embed NAME.png, or say why it is not there
plot_link() {
	if [ -f "$tmp/$1.png" ]; then
		printf '![%s](%s.png)\n\n' "$2" "$1"
	elif [ -f "$tmp/$1.gp" ]; then
		printf '%s.png: gnuplot failed.\n\n' "$1"
	else
		printf 'No %s.png: nothing to plot.\n\n' "$1"
	fi
}

[ $# -eq 1 ] || die "usage: bench/report.sh RESULTS_DIR"
dir=${1%/}
[ -n "$dir" ] || dir=/
[ -d "$dir" ] || die "$1: no such directory"
[ -f "$dir/results.csv" ] || die "$dir/results.csv: no such file"
msg=$(validate_csv "$dir/results.csv") || die "${msg:-$dir/results.csv: cannot be read}"
if [ -f "$dir/work.csv" ]; then
	msg=$(validate_work "$dir/work.csv" "$dir/results.csv") ||
		die "${msg:-$dir/work.csv: cannot be read}"
fi
if [ -f "$dir/learning.csv" ]; then
	msg=$(validate_learning "$dir/learning.csv") || die "${msg:-$dir/learning.csv: cannot be read}"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

term=$(gnuplot_terminal)
[ -n "$term" ] || warn "gnuplot ($GNUPLOT) with a png terminal not found: report without plots"
analyse "$dir/results.csv" "$term"
[ ! -f "$dir/work.csv" ] || work_table "$dir/results.csv" "$dir/work.csv"
[ ! -f "$dir/learning.csv" ] || learning_data "$dir/learning.csv" "$term"
plots="walltime migrations latency learning policy"
if [ -n "$term" ]; then
	latency_data
	for p in $plots; do
		run_gnuplot $p
	done
fi
date=$(meta_get date)
[ -n "$date" ] || date=$(date -r "$dir/results.csv" '+%Y-%m-%d %H:%M')
write_report "$date" "$(meta_get accel)"

for p in $plots; do
	[ ! -f "$tmp/$p.png" ] || cp -f "$tmp/$p.png" "$dir/"
done
cp -f "$tmp/summary.txt" "$tmp/report.md" "$dir/"
cat "$tmp/summary.txt"
