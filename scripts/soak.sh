#!/usr/bin/env bash
# make soak MINUTES=N: scx_mlb --mode adaptive for N minutes (default 30) under a rotating
# workload mix, in the numa2x2 test guest.
# Rotation, one minute each: mixed (duty-cycled CPU workers, spinners, hackbench), stress-ng
# (cpu, fork, yield, affinity), hackbench only, quiet. Every minute (and once at the start) it
# samples what could leak: the daemon's RSS, the BPF side's task contexts (task_ctxs= of the
# stats line) and the memory of the scheduler's BPF maps (bpftool map show, bytes_memlock),
# with the samples written so far. Reports, as key=value lines at the end: minutes, restarts
# (reattaches), detached (scheduler not enabled at a check), stalls and kernel warnings on the
# console, records written, generations, rollbacks, ring-buffer and write drops, workload
# failures, and for each sampled quantity its first, middle and last value and whether it
# plateaus. build/soak/samples.tsv holds the samples, build/soak/report.md a table of them,
# every rollback and deploy verdict with the numbers it compared,
# and the verdicts, build/soak/soak.png a plot (if gnuplot is installed).
# Plateau: a quantity plateaus when its growth over the second half of the run is at most a
# quarter of its growth over the first half, or at most 2% of its middle value (a filling
# window or arena grows early and stops; a leak keeps growing at the same rate).
# This is a soak run, not a test: it reports, and exits non-zero only if the scheduler died.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
minutes=${MINUTES:-30}

if [ "${1:-}" = --in-guest ]; then
	minutes=${2:-30}
	source "$MLB_ROOT/tests/vm/scenario-lib.sh"
	cd /tmp
	STATE=/tmp/mlb-soak
	rm -rf $STATE
	mlb_start --mode adaptive --state-dir $STATE --stats 10
	mlb_wait_enabled
	rss() { local k v u; while read -r k v u; do [ "$k" = VmRSS: ] && { echo "$v"; return; }; done <"/proc/$MLB_PID/status"; }
	# map_kb: bytes_memlock of the daemon's BPF maps (those whose pids name it; all maps when
	# this bpftool cannot tell), in KiB
	map_kb() {
		bpftool -j map show 2>/dev/null | python3 -c '
import json, sys
pid = int(sys.argv[1])
maps = json.load(sys.stdin)
own = [m for m in maps if any(p.get("pid") == pid for p in m.get("pids", []))]
if not any("pids" in m for m in maps):
    own = maps
print(sum(int(m.get("bytes_memlock", 0)) for m in own) // 1024)' "$MLB_PID"
	}
	# sample MINUTE: one line the host side collects (soak_sample, key=value); fails, and
	# prints nothing, when no fresh stats line comes (scx_mlb exited): the caller stops
	# the rounds, and the summary and the events below are still printed
	sample() {
		(wait_stats $(($(nstats) + 1)) 60) >/dev/null 2>&1 || return 1
		echo "soak_sample minute=$1 rss_kb=$(rss) task_ctxs=$(last_stat task_ctxs) map_kb=$(map_kb) samples=$(last_stat samples) gen=$(last_stat gen)"
	}
	detached=0 wfail=0 end=$(($(now_ms) + minutes * 60000)) round=0
	sample 0 || fail "no stats line from scx_mlb"
	rss0=$(rss) ctx0=$(last_stat task_ctxs)
	while [ "$(now_ms)" -lt $end ]; do
		case $((round % 4)) in
		0) MIXED_LOAD_SOFT=1 mixed_load 60 "mixed$round" || wfail=$((wfail + 1)) ;;
		1) stress-ng --temp-path /tmp --timeout 60s --cpu 4 --fork 2 --yield 2 --affinity 2 \
			>"$MLB_OUT/stress-$round.log" 2>&1 || wfail=$((wfail + 1)) ;;
		2) t=$(($(now_ms) + 60000)); while [ "$(now_ms)" -lt $t ]; do hackbench -g 4 -l 50 >/dev/null 2>&1 || { wfail=$((wfail + 1)); break; }; done ;;
		3) zzz 60 ;;
		esac
		[ "$(rd $SCX/state)" = enabled ] || detached=$((detached + 1))
		sample $((round + 1)) || { echo "soak: scx_mlb died"; break; }
		round=$((round + 1))
	done
	rss1=$(rss)
	ctx1=$(last_stat task_ctxs)
	mlb_stop INT
	echo "soak_minutes=$minutes"
	echo "rounds=$round"
	echo "restarts=$(($(count_lines '^scx_mlb: attached') - 1))"
	echo "detached_checks=$detached"
	echo "workload_failures=$wfail"
	echo "exit_status=$MLB_RC"
	for k in records generations rollbacks rejected rb_drops write_dropped model_decisions fallback; do
		echo "$k=$(summary_field $k)"
	done
	# every rollback and every retrain verdict, with the numbers it compared, for the report
	grep -aE '^scx_mlb: (rollback|retrain: (generation|kept))' "$MLB_LOG" | sed 's/^scx_mlb: /soak_event: /'
	echo "rss_kb_first=$rss0"
	echo "rss_kb_last=$rss1"
	echo "task_ctxs_first=$ctx0"
	echo "task_ctxs_last=$ctx1"
	[ "$MLB_RC" = 0 ]
	exit
fi

make --no-print-directory all kernel >&2 || exit 1
out=$root/build/soak
rm -rf "$out"
mkdir -p "$out"
bash tests/vm/guest.sh --topo numa2x2 --timeout $((minutes * 60 + 600)) --out "$out" \
	-- "$root/scripts/soak.sh" --in-guest "$minutes" >"$out/run.log" 2>&1
rc=$?
bad='BUG:|WARNING:|Oops|Call Trace|rcu.*detected.*stall|runnable task stall|sched_ext: .*error'
echo "console_warnings=$(grep -aEc "$bad" "$out/console.log")"
grep -aE '^[a-z_]+=' "$out/console.log" | tr -d '\r'

# The samples: a table, a verdict per quantity, a plot.
tr -d '\r' <"$out/console.log" | grep -a '^soak_sample ' | sed 's/^soak_sample //' |
	awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[i] = kv[2]; k[i] = kv[1] }
	       if (NR == 1) { for (i = 1; i <= NF; i++) printf "%s%s", k[i], i < NF ? "\t" : "\n" }
	       for (i = 1; i <= NF; i++) printf "%s%s", v[i], i < NF ? "\t" : "\n" }' >"$out/samples.tsv"
awk -F '\t' '
NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; nf = NF; next }
{ n++; for (i = 1; i <= nf; i++) val[n, i] = $i }
END {
	print "| " name[1] " | " name[2] " | " name[3] " | " name[4] " | " name[5] " | " name[6] " |" >"/dev/stderr"
	print "|---|---|---|---|---|---|" >"/dev/stderr"
	for (r = 1; r <= n; r++)
		print "| " val[r, 1] " | " val[r, 2] " | " val[r, 3] " | " val[r, 4] " | " val[r, 5] " | " val[r, 6] " |" >"/dev/stderr"
	if (n < 3) { print "plateau=unknown (" n " samples; at least 3 needed)"; exit }
	m = int((n + 1) / 2)
	for (i = 2; i <= 4; i++) {
		a = val[1, i]; b = val[m, i]; c = val[n, i]
		g1 = b - a; g2 = c - b
		p = (g2 <= 0 || g2 <= g1 / 4 || g2 <= 0.02 * b) ? "yes" : "no"
		printf "%s_first=%s %s_mid=%s %s_last=%s %s_plateau=%s\n", name[i], a, name[i], b, name[i], c, name[i], p
	}
}' "$out/samples.tsv" 2>"$out/table.md" >"$out/verdicts.txt"
cat "$out/verdicts.txt"
if command -v gnuplot >/dev/null && [ "$(wc -l <"$out/samples.tsv")" -ge 2 ]; then
	gnuplot -e "set terminal png noenhanced size 900,600; set output '$out/soak.png'; set datafile separator '\t';
		set key autotitle columnhead; set xlabel 'minute'; set multiplot layout 3,1;
		plot '$out/samples.tsv' using 1:2 with linespoints; plot '' using 1:3 with linespoints;
		plot '' using 1:4 with linespoints; unset multiplot" 2>"$out/gnuplot.err" ||
		echo "soak: gnuplot failed: $(head -n1 "$out/gnuplot.err")" >&2
else
	echo "soak: no plot (gnuplot not installed, or fewer than 2 samples)" >&2
fi
{
	echo "# Soak, $(date -u +%F), $minutes minutes, commit $(git rev-parse --short HEAD 2>/dev/null)"
	echo
	echo "One sample a minute (minute 0: after attach). rss_kb: the daemon's VmRSS; task_ctxs:"
	echo "the BPF side's per-task contexts; map_kb: its BPF maps' memlock; samples: dataset rows."
	echo
	cat "$out/table.md"
	echo
	echo "Plateau (growth over the second half at most a quarter of the first half's, or at"
	echo "most 2% of the middle value):"
	echo
	sed 's/^/    /' "$out/verdicts.txt"
	echo
	echo "Rollbacks (the live model against the control share, the heuristic deciding"
	echo "--control per mille of its decisions at the same time) and deploy-gate verdicts:"
	echo
	tr -d '\r' <"$out/console.log" | grep -a '^soak_event: ' | sed 's/^soak_event: /    /' ||
		echo "    (none)"
	[ -s "$out/soak.png" ] && printf '\n![rss_kb, task_ctxs, map_kb by minute](soak.png)\n'
} >"$out/report.md"
echo "soak: guest exit $rc; report: $out/report.md; console: $out/console.log" >&2
exit $rc
