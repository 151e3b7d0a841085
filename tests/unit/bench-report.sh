#!/usr/bin/env bash
# unit/bench-report: bench/report.sh on synthetic results directories. The key=value lines of a
# hand-computed example in which the median of per-pair ratios differs from the ratio of the
# medians (with an even number of pairs, a failed run and a zero denominator); nan for a missing
# scheduler; the TCG paragraph only with accel=tcg; every meta key in the report; the plots are
# PNGs; the work-per-call tables from work.csv, pooled over ok runs; without gnuplot one line on
# stderr and no plots; bad input (results.csv or work.csv) refused with exit 2, one line on
# stderr and nothing written.
set -u
cd "$(dirname "$0")/../.." || exit 1
report=bench/report.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0 n=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
header=run,rep,slot,scheduler,workload,wall_s,migrations,ctx_switches,lat_p50_us,lat_p99_us,lat_max_us,lat_samples,by_model,by_heur,by_explore,steal_pct,migr_chosen,migr_forced,migr_unchosen

# run_report DIR: bench/report.sh DIR, its stdout, stderr and exit status in $out, $err, $rc
run_report() {
	out=$("$report" "$1" 2>"$work/stderr")
	rc=$?
	err=$(cat "$work/stderr")
	n=$((n + 1))
}

# expect_ok NAME EXPECTED_STDOUT: the last run succeeded with exactly that stdout and summary.txt
expect_ok() {
	[ $rc -eq 0 ] || { fail "$1: exit $rc, stderr '$err'"; return; }
	[ "$out" = "$2" ] || fail "$1: stdout
$out
expected
$2"
	[ "$(cat "$dir/summary.txt" 2>/dev/null)" = "$2" ] || fail "$1: summary.txt differs from the expected lines"
}

# is_png FILE
is_png() {
	[ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

# Example 1: all three schedulers, accel=tcg. Hand-computed (value / eevdf's in the same rep):
#   learned build wall: r1 9/10=0.9, r2 20/20=1.0, r3 failed (excluded), r4 24/30=0.8, r5 12/10=1.2
#     -> median of 0.8 0.9 1.0 1.2 = 0.950 (ratio of medians: 16/20 = 0.800)
#   learned build migrations: r1 50/100=0.5, r2 10/0 skipped, r3 failed (4000/400 would be 10),
#     r4 600/300=2.0, r5 25/50=0.5 -> 0.500 (ratio of medians: 37.5/100 = 0.375)
#   learned hackbench, proc and thread pooled: 5/10=0.5 15/10=1.5 | 12/4=3.0, 3/0 skipped
#     -> 1.500 (mean of the per-mode medians would be 2.0, ratio of pooled medians 8.5/7)
#   learned latency p99: 50/100=0.5 300/200=1.5 -> 1.000 (ratio of medians 175/150)
#   learned imbalance: no run -> nan
#   heuristic build wall: 11/10=1.1 18/20=0.9, r3 failed -> 1.000 (ratio of medians 14.5/20)
#   heuristic build migrations: 80/100=0.8, 5/0 skipped -> 0.800
#   heuristic hackbench: 12/10 -> 1.200; latency p99: 150/100 -> 1.500; imbalance 11/10 -> 1.100
dir=$work/ex1
mkdir -p "$dir/lat"
cat >"$dir/results.csv" <<EOF
$header
1,1,1,eevdf,build,10,100,1000,,,,,,,,1.5,,,
2,1,2,heuristic,build,11,80,1100,,,,,0,500,0,2,70,2,4
3,1,3,learned,build,9,50,900,,,,,400,50,10,1,,,
4,2,1,learned,build,20,10,950,,,,,300,40,10,,,,
5,2,2,heuristic,build,18,5,1000,,,,,0,450,0,,3,0,1
6,2,3,eevdf,build,20,0,1200,,,,,,,,,,,
7,3,1,eevdf,build,40,400,1300,,,,,,,,,,,
8,3,2,heuristic,build,,,,,,,,,,,,,,
9,3,3,learned,build,fail,4000,5000,,,,,100,100,100,,,,
10,4,1,learned,build,24,600,1000,,,,,200,20,5,,,,
11,4,2,eevdf,build,30,300,1000,,,,,,,,,,,
12,5,1,eevdf,build,10,50,1000,,,,,,,,,,,
13,5,2,learned,build,12,25,1000,,,,,100,10,0,,,,
14,1,1,eevdf,hackbench-proc,10,1000,50000,,,,,,,,,,,
15,1,2,heuristic,hackbench-proc,12,900,50000,,,,,0,90,0,,,,
16,1,3,learned,hackbench-proc,5,500,40000,,,,,80,10,1,,,,
17,2,1,learned,hackbench-proc,15,700,40000,,,,,80,10,1,,,,
18,2,2,eevdf,hackbench-proc,10,1100,50000,,,,,,,,,,,
19,1,1,eevdf,hackbench-thread,4,300,20000,,,,,,,,,,,
20,1,3,learned,hackbench-thread,12,200,20000,,,,,50,5,0,,,,
21,2,1,learned,hackbench-thread,3,250,20000,,,,,50,5,0,,,,
22,2,2,eevdf,hackbench-thread,0,310,20000,,,,,,,,,,,
23,1,1,eevdf,latency,30,20,3000,20,100,500,10000,,,,,,,
24,1,2,heuristic,latency,30,15,3000,22,150,800,10000,0,20,0,,,,
25,1,3,learned,latency,30,10,3000,18,50,400,10000,20,2,0,,,,
26,2,1,learned,latency,30,12,3000,19,300,900,10000,20,2,0,,,,
27,2,2,eevdf,latency,30,22,3000,21,200,600,10000,,,,,,,
28,1,1,eevdf,imbalance,10,40,100,,,,,,,,,,,
29,1,2,heuristic,imbalance,11,30,100,,,,,0,7,0,,,,
30,1,3,learned,schbench,5,30,100,,,,,1,2,3,,,,
EOF
cat >"$dir/meta.txt" <<EOF
date=2024-05-01 12:00
commit=abc123
kernel=6.12.0
qemu=8.2.2
accel=tcg
topology=numa2x2
vcpus=8
quick=1
reps=5
build_project=zstd
build_cmd=make -j8
host_cpus=16
EOF
# work.csv: heuristic build (run 2): select_cpu (300 + 0 + 40 + 10) / 100 = 3.50 per call,
# 100 calls per run; balance_round 290 / 10 = 29.00, 20 ms / 10 rounds = 2000 us a round.
# learned build: runs 3 and 4 pooled, (100 + 600 + 100) / 200 = 4.00, 100 calls per run; run 9
# failed, so its work (which would make it 84.25) is not pooled.
cat >"$dir/work.csv" <<EOF
run,callback,calls,cpus,tasks,doms,decisions,ns
2,select_cpu,100,300,0,40,10,
2,balance_round,10,200,5,80,5,20000000
3,select_cpu,50,100,0,0,0,
4,select_cpu,150,600,0,100,0,
9,select_cpu,1000,99999,0,0,0,
EOF
printf '# us count\n5 100\n10 50\n100 5\n' >"$dir/lat/eevdf-r1.hist"
printf '5 80\n12 40\n400 1\n' >"$dir/lat/eevdf-r2.hist"
printf '# learned\n0 3\n4 120\n9 20\n60 2\n' >"$dir/lat/learned-r1.hist"
run_report "$dir"
expect_ok "example 1" "build_time_ratio_vs_eevdf=0.950
build_migrations_ratio_vs_eevdf=0.500
hackbench_time_ratio_vs_eevdf=1.500
latency_p99_ratio_vs_eevdf=1.000
imbalance_time_ratio_vs_eevdf=nan
build_unchosen_migr_pct=nan
build_accounted_migr_pct=nan
heuristic_build_time_ratio_vs_eevdf=1.000
heuristic_build_migrations_ratio_vs_eevdf=0.800
heuristic_hackbench_time_ratio_vs_eevdf=1.200
heuristic_latency_p99_ratio_vs_eevdf=1.500
heuristic_imbalance_time_ratio_vs_eevdf=1.100
heuristic_build_unchosen_migr_pct=5.9
heuristic_build_accounted_migr_pct=94.1"
md=$dir/report.md
{ grep -q 'QEMU TCG' "$md" && grep -q 'no cache model' "$md"; } ||
	fail "example 1: no TCG paragraph with accel=tcg"
while IFS= read -r line; do
	grep -qxF "$line" "$md" || fail "example 1: meta line '$line' not in report.md"
done <"$dir/meta.txt"
grep -q '^# .*2024-05-01 12:00' "$md" || fail "example 1: no date in the title"
# build table: ok and failed counts, median (min-max), eevdf's own ratios, decision sums
grep -qF '| eevdf | 5 | 0 | 20.00 (10.00-40.00) | 100 (0-400) | 1000 (1000-1300) | 1.000 | 1.000 |' "$md" ||
	fail "example 1: eevdf build row"
grep -qF '| learned | 4 | 1 | 16.00 (9.00-24.00) | 38 (10-600) | 975 (900-1000) | 0.950 | 0.500 | 1000 / 120 / 25 | 87.3% |' "$md" ||
	fail "example 1: learned build row"
grep -qF '| learned | 2 | 18.5 (18-19) | 175 (50-300) | 650 (400-900) | 1.000 | 20000 |' "$md" ||
	fail "example 1: learned latency row"
grep -qF '| 0 / 950 / 0 | 0.0% | 2.00 | 73 / 2 / 5 (94.1%) |' "$md" ||
	fail "example 1: heuristic build row: migration classes"
grep -q '^### schbench$' "$md" || fail "example 1: no table for an unknown workload"
# the work section: one table per scx_mlb scheduler, pooled over the ok runs
awk '/^\*\*heuristic\*\*$/ { h = 1 } h && /^\| select_cpu \| 3\.50 \(100\) \|$/ { a = 1 }
	h && /^\| balance_round \| 29\.00 \(10\) \|$/ { b = 1 }
	h && /^\| balance_round us\/round \| 2000 \|$/ { c = 1 }
	/^\*\*learned\*\*$/ { h = 0; l = 1 } l && /^\| select_cpu \| 4\.00 \(100\) \|$/ { d = 1 }
	END { exit !(a && b && c && d) }' "$md" || fail "example 1: work per call table"
if grep -q '^\*\*eevdf\*\*$' "$md"; then fail "example 1: a work table for EEVDF"; fi
grep -q '2 failed' "$md" || fail "example 1: failed runs not counted"
{ grep -qF '```' "$md" && grep -qxF 'heuristic_imbalance_time_ratio_vs_eevdf=1.100' "$md"; } ||
	fail "example 1: no key results block"
if command -v gnuplot >/dev/null; then
	[ -z "$err" ] || fail "example 1: stderr '$err'"
	for p in walltime migrations latency; do
		is_png "$dir/$p.png" || fail "example 1: $p.png is not a PNG"
		grep -qF "]($p.png)" "$md" || fail "example 1: $p.png not embedded"
	done
fi

# Example 2: no learned runs, accel=host: unprefixed ratios nan, heuristic ones computed
dir=$work/ex2
mkdir -p "$dir"
cat >"$dir/results.csv" <<EOF
$header
1,1,1,eevdf,build,10.000,100,1000,,,,,,,,,,,
2,1,2,heuristic,build,12.000,50,1000,,,,,0,10,0,,,,
3,2,1,heuristic,build,9.000,30,1000,,,,,0,10,0,,,,
4,2,2,eevdf,build,10.000,60,1000,,,,,,,,,,,
5,1,1,eevdf,hackbench-thread,2.000,10,10,,,,,,,,,,,
6,1,2,heuristic,hackbench-thread,3.000,10,10,,,,,0,1,0,,,,
7,1,1,eevdf,latency,5,1,1,10,40,90,100,,,,,,,
8,1,2,heuristic,latency,5,1,1,10,30,90,100,0,1,0,,,,
EOF
printf 'date=2024-05-02\naccel=host\nvcpus=4\n' >"$dir/meta.txt"
run_report "$dir"
expect_ok "example 2" "build_time_ratio_vs_eevdf=nan
build_migrations_ratio_vs_eevdf=nan
hackbench_time_ratio_vs_eevdf=nan
latency_p99_ratio_vs_eevdf=nan
imbalance_time_ratio_vs_eevdf=nan
build_unchosen_migr_pct=nan
build_accounted_migr_pct=nan
heuristic_build_time_ratio_vs_eevdf=1.050
heuristic_build_migrations_ratio_vs_eevdf=0.500
heuristic_hackbench_time_ratio_vs_eevdf=1.500
heuristic_latency_p99_ratio_vs_eevdf=0.750
heuristic_imbalance_time_ratio_vs_eevdf=nan
heuristic_build_unchosen_migr_pct=nan
heuristic_build_accounted_migr_pct=nan"
if grep -q 'TCG' "$dir/report.md"; then fail "example 2: TCG paragraph with accel=host"; fi
grep -qxF 'accel=host' "$dir/report.md" || fail "example 2: meta not in report.md"
if command -v gnuplot >/dev/null; then
	is_png "$dir/walltime.png" || fail "example 2: walltime.png is not a PNG"
	[ ! -e "$dir/latency.png" ] || fail "example 2: latency.png without any histogram"
	grep -q 'No latency plot' "$dir/report.md" || fail "example 2: missing latency plot not explained"
fi

# Without gnuplot: the report, no plots, exactly one line on stderr
dir=$work/nognuplot
mkdir -p "$dir"
cp "$work/ex2/results.csv" "$work/ex2/meta.txt" "$dir/"
out=$(GNUPLOT=/nonexistent/gnuplot "$report" "$dir" 2>"$work/stderr")
rc=$?
n=$((n + 1))
{ [ $rc -eq 0 ] && [ "$(wc -l <"$work/stderr")" -eq 1 ] && [ -s "$dir/report.md" ] &&
	[ "$out" = "$(cat "$work/ex2/summary.txt")" ]; } ||
	fail "no gnuplot: exit $rc, stderr '$(cat "$work/stderr")'"
[ -z "$(find "$dir" -name '*.png')" ] || fail "no gnuplot: plots written"

# Bad input: exit 2, nothing on stdout, one line on stderr, nothing written
# refused NAME DIR
refused() {
	local before
	before=$(ls -A "$2" 2>/dev/null)
	run_report "$2"
	if [ $rc -ne 2 ] || [ -n "$out" ] || [ -z "$err" ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then
		fail "$1: exit $rc, stdout '$out', stderr '$err'"
	fi
	[ "$(ls -A "$2" 2>/dev/null)" = "$before" ] || fail "$1: files written: $(ls -A "$2")"
}
# bad NAME CSV_LINES...: a results directory whose results.csv has those lines, refused
bad() {
	local d=$work/bad-$1
	mkdir -p "$d"
	printf '%s\n' "${@:2}" >"$d/results.csv"
	cp "$work/ex1/meta.txt" "$d/"
	refused "$1" "$d"
}
ok_row=1,1,1,eevdf,build,10,100,1000,,,,,,,,,,,
bad wrong-header "${header/ctx_switches/ctx}" "$ok_row"
bad header-extra-column "$header,x" "$ok_row,"
bad no-header "$ok_row"
bad empty-file
bad unknown-scheduler "$header" "$ok_row" 2,1,2,cfs,build,10,100,1000,,,,,,,,,,,
bad scheduler-case "$header" 2,1,2,EEVDF,build,10,100,1000,,,,,,,,,,,
bad migrations-not-a-number "$header" "$ok_row" 2,1,2,learned,build,10,12x,1000,,,,,,,,,,,
bad wall-not-a-number "$header" 2,1,2,learned,build,abc,12,1000,,,,,,,,,,,
bad rep-not-a-number "$header" 2,x,2,learned,build,10,12,1000,,,,,,,,,,,
bad too-few-fields "$header" 2,1,2,learned,build,10,12,1000,,,,,,,,,,
bad too-many-fields "$header" 2,1,2,learned,build,10,12,1000,,,,,,,,,,,,
bad duplicate-ok-run "$header" "$ok_row" 2,1,2,eevdf,build,11,100,1000,,,,,,,,,,,
# badwork NAME WORK_LINES...: a valid results.csv beside a work.csv with those lines, refused
badwork() {
	local d=$work/badwork-$1
	mkdir -p "$d"
	printf '%s\n' "$header" "$ok_row" >"$d/results.csv"
	printf '%s\n' "${@:2}" >"$d/work.csv"
	refused "work $1" "$d"
}
wh=run,callback,calls,cpus,tasks,doms,decisions,ns
badwork wrong-header "${wh/doms/domains}" 1,dispatch,1,1,1,1,1,
badwork unknown-run "$wh" 2,dispatch,1,1,1,1,1,
badwork not-integer "$wh" 1,dispatch,1,1.5,1,1,1,
badwork negative "$wh" 1,dispatch,-1,1,1,1,1,
badwork bad-ns "$wh" 1,balance_round,1,1,1,1,1,x
badwork bad-callback "$wh" "1,Dispatch,1,1,1,1,1,"
badwork too-few-fields "$wh" 1,dispatch,1,1,1,1,1
badwork duplicate "$wh" 1,dispatch,1,1,1,1,1, 1,dispatch,1,1,1,1,1,
refused missing-dir "$work/no-such-dir"
mkdir -p "$work/no-csv"
cp "$work/ex1/meta.txt" "$work/no-csv/"
refused missing-results.csv "$work/no-csv"

echo "bench-report: $n cases, $fails failed"
[ $fails -eq 0 ]
