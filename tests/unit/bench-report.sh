#!/usr/bin/env bash
# unit/bench-report: bench/report.sh on synthetic results directories. The key=value lines of a
# hand-computed example in which the median of per-pair ratios differs from the ratio of the
# medians (with an even number of pairs, a failed run and a zero denominator), for the learned,
# heuristic and adaptive schedulers and learned against the heuristic; nan for a missing
# scheduler; the frame workload's keys and latency table (missed deadlines) on a hand-computed
# example, and results written before it (no frame columns) still read; the TCG paragraph only
# with accel=tcg; every meta key in the report; the plots are
# PNGs; the work-per-call tables from work.csv, pooled over ok runs; learning.csv made by
# bench/lib.sh's own parser (learning_rows) from synthetic scx_mlb logs, its table and the
# learning and policy plots; without gnuplot one line on stderr and no plots; bad input
# (results.csv, work.csv or learning.csv) refused with exit 2, one line on stderr and nothing
# written.
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
# header: the results before the frame workload (still read); header2: with its two columns
header=run,rep,slot,scheduler,workload,wall_s,migrations,ctx_switches,lat_p50_us,lat_p99_us,lat_max_us,lat_samples,by_model,by_heur,by_explore,steal_pct,migr_chosen,migr_forced,migr_unchosen
header2=$header,frame_periods,frame_missed

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
#   learned latency p99: 50/100=0.5 300/200=1.5 -> 1.000 (ratio of medians 175/150); p50:
#     18/20=0.9 19/21=0.905 -> 0.902 (ratio of medians 18.5/20.5 = 0.902 too, by chance)
#   learned imbalance: no run -> nan
#   heuristic build wall: 11/10=1.1 18/20=0.9, r3 failed, 30/30=1.0 10/10=1.0 -> 1.000 (ratio of
#     medians 14.5/20)
#   heuristic build migrations: 80/100=0.8, 5/0 skipped, 240/300=0.8, 0/50=0 -> 0.800
#   heuristic hackbench: 12/10 -> 1.200; latency p99: 150/100 -> 1.500, p50 22/20 -> 1.100;
#     imbalance 11/10 -> 1.100
#   adaptive build wall: 8/10=0.8 30/20=1.5 27/30=0.9, r5 failed -> 0.900 (ratio of medians
#     27/20 = 1.350)
#   adaptive build migrations: 30/100=0.3, 40/0 skipped, 150/300=0.5 -> 0.400
#   adaptive build classes, over r1 and r2 (r4 has none): unchosen 3+1 of 30+40 -> 5.7,
#     accounted (20+2+3) + (30+1+1) = 57 of 70 -> 81.4
#   adaptive hackbench: proc 11/10=1.1, thread 2/4=0.5, 5/0 skipped -> 0.800
#   adaptive latency p99: 80/100=0.8 100/200=0.5 -> 0.650, p50 17/20=0.85 18/21=0.857 -> 0.854;
#     imbalance 12/10 -> 1.200
#   no frame runs: every frame key nan
#   learned vs heuristic, build migrations: r1 50/80=0.625, r2 10/5=2.0, r3 both failed,
#     r4 600/240=2.5, r5 25/0 skipped -> 2.000 (ratio of medians 37.5/80 = 0.469)
#   latency floor (eevdf latency-fifo / eevdf latency): p50 r1 10/20=0.5, r2 7/21=0.333, r3 no
#     latency run (skipped), r4 failed -> 0.417; p99 60/100=0.6 40/200=0.2 -> 0.400
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
31,4,3,heuristic,build,30,240,1000,,,,,,,,,,,
32,5,3,heuristic,build,10,0,1000,,,,,,,,,,,
33,1,4,adaptive,build,8,30,1000,,,,,100,300,6,,20,2,3
34,2,4,adaptive,build,30,40,1100,,,,,200,250,5,,30,1,1
35,4,4,adaptive,build,27,150,900,,,,,300,200,4,,,,
36,5,4,adaptive,build,fail,9999,1,,,,,1,1,1,,,,
37,1,4,adaptive,hackbench-proc,11,800,45000,,,,,60,30,1,,,,
38,1,4,adaptive,hackbench-thread,2,150,20000,,,,,40,10,0,,,,
39,2,4,adaptive,hackbench-thread,5,160,20000,,,,,40,10,0,,,,
40,1,4,adaptive,latency,30,11,3000,17,80,300,10000,10,10,0,,,,
41,2,4,adaptive,latency,30,13,3000,18,100,350,10000,10,10,0,,,,
42,1,4,adaptive,imbalance,12,35,100,,,,,2,5,0,,,,
43,1,1,eevdf,latency-fifo,30,20,3000,10,60,300,10000,,,,,,,
44,2,2,eevdf,latency-fifo,30,20,3000,7,40,300,10000,,,,,,,
45,3,1,eevdf,latency-fifo,30,20,3000,100,1000,3000,10000,,,,,,,
46,4,1,eevdf,latency-fifo,fail,20,3000,1,1,1,10000,,,,,,,
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
printf '3 100\n20 5\n' >"$dir/lat/adaptive-r1.hist"
# learning.csv from scx_mlb logs, by bench/lib.sh's own functions (learning_rows and
# learning_save, taken from the file): the training run (collect, stats every 5 s) and two
# adaptive turns. Turn 1 restarts (t goes back to 1.0: the daemon reattached), so its totals
# are those of both lives: model 80, heur 105 + 20, control 5, explore 4, in 4 + 1 s; turn 2
# starts with the saved model (gen 1). Lines that are not stats, a judged retrain or a rollback
# are left out, as is a retrain line whose numbers do not parse.
eval "$(sed -n '/^learning_rows() {$/,/^}$/p; /^learning_save() {$/,/^}$/p' bench/lib.sh)"
cat >"$work/collect.log" <<EOF
scx_mlb: attached, slice 5000 us, balance every 100 ms, mode collect
stats t=5.0 migr_s=3.0 queued=0 tasks=90 task_ctxs=80 by_heur=100 by_model=0 by_explore=2 by_control=0 dom0_load=0.50 gen=0 live_gen=0 samples=40 pending=3 rb_drops=0 write_dropped=0 live_acc=-1.000 live_saving_us=0.0
work t=5.0 select_cpu_calls=10 balance_round_ns=100
stats t=10.0 migr_s=3.0 queued=0 tasks=90 task_ctxs=80 by_heur=250 by_model=0 by_explore=5 by_control=0 gen=0 live_gen=0 live_acc=-1.000 live_saving_us=0.0
scx_mlb: exit: kind=UNREG(64) code=0 reason="unregistered from user space" msg=""
scx_mlb: summary: records=400 generations=0 model_decisions=0
EOF
cat >"$work/adaptive-1.log" <<EOF
scx_mlb: attached, slice 5000 us, balance every 100 ms, mode adaptive
stats t=1.0 migr_s=3.0 by_heur=40 by_model=0 by_explore=1 by_control=0 gen=0 live_gen=0 live_acc=-1.000 live_saving_us=0.0
scx_mlb: retrain: training on 800 samples, 200 held out
stats t=2.0 migr_s=3.0 by_heur=90 by_model=0 by_explore=2 by_control=0 gen=0 live_gen=0 live_acc=-1.000 live_saving_us=0.0
scx_mlb: retrain: generation 1 deployed: saves 12.5 us/decision vs -3.0 us for the heuristic on 200 recent samples (sign accuracy 0.7100 vs 0.6500)
stats t=3.0 migr_s=3.0 by_heur=100 by_model=30 by_explore=3 by_control=2 gen=1 live_gen=1 live_acc=0.710 live_saving_us=12.5
stats t=4.0 migr_s=3.0 by_heur=105 by_model=80 by_explore=4 by_control=5 gen=1 live_gen=1 live_acc=0.710 live_saving_us=12.5
scx_mlb: retrain: kept the live model: candidate saves 10.1 us/decision < 12.5 us on 300 recent samples (sign accuracy 0.7000 vs 0.7100)
scx_mlb: rollback: generation 1 replaced by the heuristic after 3 bad checks: the model's decisions cost 900 us each (40 recent), the control share's 300 us (35 recent), limit 120% and 100 us more
scx_mlb: exit: kind=ERROR(1024) code=0 reason="" msg=""
scx_mlb: the kernel asked for a restart (CPU hotplug): reattaching
stats t=1.0 migr_s=3.0 by_heur=20 by_model=0 by_explore=0 by_control=0 gen=0 live_gen=1 live_acc=-1.000 live_saving_us=0.0
scx_mlb: retrain: kept the heuristic: candidate saves -nan us/decision < 1.0 us on 0 recent samples (sign accuracy 1.0000 vs 1.0000)
EOF
cat >"$work/adaptive-2.log" <<EOF
scx_mlb: model /tmp/state/model.mlb loaded: generation 1
stats t=1.0 migr_s=3.0 by_heur=5 by_model=50 by_explore=1 by_control=3 gen=1 live_gen=1 live_acc=-1.000 live_saving_us=0.0
scx_mlb: retrain: generation 2 deployed: saves 20.0 us/decision vs 15.0 us for the live model on 400 recent samples (sign accuracy 0.8000 vs 0.7500)
stats t=2.0 migr_s=3.0 by_heur=10 by_model=120 by_explore=2 by_control=6 gen=2 live_gen=2 live_acc=0.800 live_saving_us=20.0
EOF
MLB_OUT=$dir learning_save train 0 "$work/collect.log"
MLB_OUT=$dir learning_save adaptive 1 "$work/adaptive-1.log"
MLB_OUT=$dir learning_save adaptive 2 "$work/adaptive-2.log"
learn_header=phase,rep,t_s,kind,gen,by_model,by_heur,by_explore,by_control,measure,candidate_us,live_us,incumbent,deployed,accuracy,live_accuracy
[ "$(cat "$dir/learning.csv")" = "$learn_header
train,0,5.0,stats,0,0,100,2,0,,,,,,,
train,0,10.0,stats,0,0,250,5,0,,,,,,,
adaptive,1,1.0,stats,0,0,40,1,0,,,,,,,
adaptive,1,2.0,stats,0,0,90,2,0,,,,,,,
adaptive,1,3.0,retrain,1,,,,,saving,12.5,-3.0,heuristic,1,0.7100,0.6500
adaptive,1,3.0,stats,1,30,100,3,2,,,,,,,
adaptive,1,4.0,stats,1,80,105,4,5,,,,,,,
adaptive,1,4.0,retrain,,,,,,saving,10.1,12.5,model,0,0.7000,0.7100
adaptive,1,4.0,rollback,1,,,,,,,,,,,
adaptive,1,1.0,stats,0,0,20,0,0,,,,,,,
adaptive,2,1.0,stats,1,50,5,1,3,,,,,,,
adaptive,2,2.0,retrain,2,,,,,saving,20.0,15.0,model,1,0.8000,0.7500
adaptive,2,2.0,stats,2,120,10,2,6,,,,,,," ] || fail "learning_rows: learning.csv
$(cat "$dir/learning.csv")"
run_report "$dir"
expect_ok "example 1" "build_time_ratio_vs_eevdf=0.950
build_migrations_ratio_vs_eevdf=0.500
hackbench_time_ratio_vs_eevdf=1.500
latency_p99_ratio_vs_eevdf=1.000
latency_p50_ratio_vs_eevdf=0.902
imbalance_time_ratio_vs_eevdf=nan
frame_missed_pct=nan
frame_missed_ratio_vs_eevdf=nan
frame_build_time_ratio_vs_eevdf=nan
build_unchosen_migr_pct=nan
build_accounted_migr_pct=nan
heuristic_build_time_ratio_vs_eevdf=1.000
heuristic_build_migrations_ratio_vs_eevdf=0.800
heuristic_hackbench_time_ratio_vs_eevdf=1.200
heuristic_latency_p99_ratio_vs_eevdf=1.500
heuristic_latency_p50_ratio_vs_eevdf=1.100
heuristic_imbalance_time_ratio_vs_eevdf=1.100
heuristic_frame_missed_pct=nan
heuristic_frame_missed_ratio_vs_eevdf=nan
heuristic_frame_build_time_ratio_vs_eevdf=nan
heuristic_build_unchosen_migr_pct=5.9
heuristic_build_accounted_migr_pct=94.1
adaptive_build_time_ratio_vs_eevdf=0.900
adaptive_build_migrations_ratio_vs_eevdf=0.400
adaptive_hackbench_time_ratio_vs_eevdf=0.800
adaptive_latency_p99_ratio_vs_eevdf=0.650
adaptive_latency_p50_ratio_vs_eevdf=0.854
adaptive_imbalance_time_ratio_vs_eevdf=1.200
adaptive_frame_missed_pct=nan
adaptive_frame_missed_ratio_vs_eevdf=nan
adaptive_frame_build_time_ratio_vs_eevdf=nan
adaptive_build_unchosen_migr_pct=5.7
adaptive_build_accounted_migr_pct=81.4
learned_vs_heuristic_build_migrations_ratio=2.000
eevdf_frame_missed_pct=nan
latency_p50_floor_ratio_vs_eevdf=0.417
latency_p99_floor_ratio_vs_eevdf=0.400"
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
grep -q '4 failed' "$md" || fail "example 1: failed runs not counted"
{ grep -qF '```' "$md" && grep -qxF 'heuristic_imbalance_time_ratio_vs_eevdf=1.100' "$md"; } ||
	fail "example 1: no key results block"
grep -qF '| adaptive | 3 | 1 | 27.00 (8.00-30.00) | 40 (30-150) | 1000 (900-1100) | 0.900 | 0.400 | 600 / 750 / 15 | 44.0% | - | 50 / 3 / 4 (81.4%) |' "$md" ||
	fail "example 1: adaptive build row"
grep -qF '| adaptive | 2 | 17.5 (17-18) | 90 (80-100) | 325 (300-350) | 0.650 | 20000 |' "$md" ||
	fail "example 1: adaptive latency row"
# the learning table: totals over each run's lives (turn 1: 80 + 0 model, 105 + 20 heur, ...),
# seconds 10, 4 + 1 and 2; model share 80 / 214 and 120 / 138
awk '/^## Learning$/ { l = 1 } l && /^## / && !/^## Learning$/ { l = 0 }
	l && $0 == "| training run (collect) | 10 | 0 / 250 / 0 / 5 | 0.0% | - | - | - |" { a = 1 }
	l && $0 == "| adaptive, rep 1 | 5 | 80 / 125 / 5 / 4 | 37.4% | 1 / 1 | 1 | saves 10.1 vs 12.5 (0.7000 vs 0.7100) |" { b = 1 }
	l && $0 == "| adaptive, rep 2 | 2 | 120 / 10 / 6 / 2 | 87.0% | 1 / 0 | 0 | saves 20.0 vs 15.0 (0.8000 vs 0.7500) |" { c = 1 }
	END { exit !(a && b && c) }' "$md" || fail "example 1: learning table"
if command -v gnuplot >/dev/null; then
	[ -z "$err" ] || fail "example 1: stderr '$err'"
	for p in walltime migrations latency learning policy; do
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
latency_p50_ratio_vs_eevdf=nan
imbalance_time_ratio_vs_eevdf=nan
frame_missed_pct=nan
frame_missed_ratio_vs_eevdf=nan
frame_build_time_ratio_vs_eevdf=nan
build_unchosen_migr_pct=nan
build_accounted_migr_pct=nan
heuristic_build_time_ratio_vs_eevdf=1.050
heuristic_build_migrations_ratio_vs_eevdf=0.500
heuristic_hackbench_time_ratio_vs_eevdf=1.500
heuristic_latency_p99_ratio_vs_eevdf=0.750
heuristic_latency_p50_ratio_vs_eevdf=1.000
heuristic_imbalance_time_ratio_vs_eevdf=nan
heuristic_frame_missed_pct=nan
heuristic_frame_missed_ratio_vs_eevdf=nan
heuristic_frame_build_time_ratio_vs_eevdf=nan
heuristic_build_unchosen_migr_pct=nan
heuristic_build_accounted_migr_pct=nan
adaptive_build_time_ratio_vs_eevdf=nan
adaptive_build_migrations_ratio_vs_eevdf=nan
adaptive_hackbench_time_ratio_vs_eevdf=nan
adaptive_latency_p99_ratio_vs_eevdf=nan
adaptive_latency_p50_ratio_vs_eevdf=nan
adaptive_imbalance_time_ratio_vs_eevdf=nan
adaptive_frame_missed_pct=nan
adaptive_frame_missed_ratio_vs_eevdf=nan
adaptive_frame_build_time_ratio_vs_eevdf=nan
adaptive_build_unchosen_migr_pct=nan
adaptive_build_accounted_migr_pct=nan
learned_vs_heuristic_build_migrations_ratio=nan
eevdf_frame_missed_pct=nan
latency_p50_floor_ratio_vs_eevdf=nan
latency_p99_floor_ratio_vs_eevdf=nan"
if grep -q 'TCG' "$dir/report.md"; then fail "example 2: TCG paragraph with accel=host"; fi
grep -qxF 'accel=host' "$dir/report.md" || fail "example 2: meta not in report.md"
if command -v gnuplot >/dev/null; then
	is_png "$dir/walltime.png" || fail "example 2: walltime.png is not a PNG"
	[ ! -e "$dir/latency.png" ] || fail "example 2: latency.png without any histogram"
	grep -q 'No latency plot' "$dir/report.md" || fail "example 2: missing latency plot not explained"
fi
if grep -q '^## Learning' "$dir/report.md"; then fail "example 2: a learning section without learning.csv"; fi
[ ! -e "$dir/learning.png" ] && [ ! -e "$dir/policy.png" ] || fail "example 2: learning plots without learning.csv"

# Example 3: a learning.csv of the training run alone (no adaptive turn): its table row and
# learning.png, no policy.png and a line that says why. Example 4: a learning.csv that is only
# its header: said so, no learning plot. Both with example 2's results.
dir=$work/ex3
mkdir -p "$dir"
cp "$work/ex2/results.csv" "$work/ex2/meta.txt" "$dir/"
grep -e '^phase,' -e '^train,' "$work/ex1/learning.csv" >"$dir/learning.csv"
run_report "$dir"
[ $rc -eq 0 ] && [ "$out" = "$(cat "$work/ex2/summary.txt")" ] || fail "example 3: exit $rc, stderr '$err'"
grep -qxF '| training run (collect) | 10 | 0 / 250 / 0 / 5 | 0.0% | - | - | - |' "$dir/report.md" ||
	fail "example 3: learning table"
if command -v gnuplot >/dev/null; then
	is_png "$dir/learning.png" || fail "example 3: learning.png is not a PNG"
	[ ! -e "$dir/policy.png" ] || fail "example 3: policy.png without a retrain row"
	grep -q '^No policy.png: no retrain line' "$dir/report.md" || fail "example 3: missing policy plot not explained"
fi
dir=$work/ex4
mkdir -p "$dir"
cp "$work/ex2/results.csv" "$dir/"
head -n 1 "$work/ex1/learning.csv" >"$dir/learning.csv"
run_report "$dir"
[ $rc -eq 0 ] || fail "example 4: exit $rc, stderr '$err'"
grep -qxF 'learning.csv has no rows.' "$dir/report.md" || fail "example 4: empty learning.csv not said"
[ ! -e "$dir/learning.png" ] && [ ! -e "$dir/policy.png" ] || fail "example 4: learning plots without rows"

# Example 5: retrain lines that estimate costs ("costs X us/decision", no sign accuracy), as
# the cost-estimating scx_mlb prints them: measure cost, empty accuracies, a one-panel
# policy.png
dir=$work/ex5
mkdir -p "$dir"
cp "$work/ex2/results.csv" "$dir/"
cat >"$work/adaptive-cost.log" <<EOF
stats t=1.0 migr_s=3.0 by_heur=40 by_model=0 by_explore=1 by_control=0 gen=0 live_gen=0 live_cost_us=0.0
scx_mlb: retrain: generation 1 deployed: costs 850.2 us/decision vs 900.0 us for the heuristic on 1500 recent decisions (doubly robust estimate)
stats t=2.0 migr_s=3.0 by_heur=42 by_model=30 by_explore=2 by_control=2 gen=1 live_gen=1 live_cost_us=850.2
scx_mlb: retrain: kept the live model: candidate costs 870.0 us/decision > 850.2 us on 1600 recent decisions (doubly robust estimate)
EOF
MLB_OUT=$dir learning_save adaptive 1 "$work/adaptive-cost.log"
[ "$(cat "$dir/learning.csv")" = "$learn_header
adaptive,1,1.0,stats,0,0,40,1,0,,,,,,,
adaptive,1,2.0,retrain,1,,,,,cost,850.2,900.0,heuristic,1,,
adaptive,1,2.0,stats,1,30,42,2,2,,,,,,,
adaptive,1,2.0,retrain,,,,,,cost,870.0,850.2,model,0,," ] || fail "learning_rows, costs: learning.csv
$(cat "$dir/learning.csv")"
run_report "$dir"
[ $rc -eq 0 ] || fail "example 5: exit $rc, stderr '$err'"
grep -qxF '| adaptive, rep 1 | 2 | 30 / 42 / 2 / 2 | 39.5% | 1 / 1 | 0 | costs 870.0 vs 850.2 |' "$dir/report.md" ||
	fail "example 5: learning table"
if command -v gnuplot >/dev/null; then
	is_png "$dir/policy.png" || fail "example 5: policy.png is not a PNG"
fi

# Without gnuplot: the report, no plots, exactly one line on stderr
dir=$work/nognuplot
mkdir -p "$dir"
cp "$work/ex2/results.csv" "$work/ex2/meta.txt" "$work/ex1/learning.csv" "$dir/"
out=$(GNUPLOT=/nonexistent/gnuplot "$report" "$dir" 2>"$work/stderr")
rc=$?
n=$((n + 1))
{ [ $rc -eq 0 ] && [ "$(wc -l <"$work/stderr")" -eq 1 ] && [ -s "$dir/report.md" ] &&
	[ "$out" = "$(cat "$work/ex2/summary.txt")" ]; } ||
	fail "no gnuplot: exit $rc, stderr '$(cat "$work/stderr")'"
[ -z "$(find "$dir" -name '*.png')" ] || fail "no gnuplot: plots written"
grep -qxF '| adaptive, rep 2 | 2 | 120 / 10 / 6 / 2 | 87.0% | 1 / 0 | 0 | saves 20.0 vs 15.0 (0.8000 vs 0.7500) |' "$dir/report.md" ||
	fail "no gnuplot: no learning table"

# make bench-kernel's results (workload kbuild), three schedulers, no adaptive. Hand-computed:
#   learned time 180/200=0.9 330/300=1.1 250/250=1.0 -> 1.000; migrations 200/1000=0.2
#     400/800=0.5, r3 0 skipped -> 0.350
#   heuristic time 220/200=1.1 240/300=0.8, r3 failed -> 0.950; migrations 1.5 1.5 -> 1.500
#   learned vs heuristic: 200/1500 400/1200 -> 0.233
# Alone: only the kbuild keys (no adaptive_ ones: it did not run). Beside make bench's build:
# make bench's 23 keys first, then these.
dir=$work/kbuild
mkdir -p "$dir"
cat >"$dir/results.csv" <<EOF
$header
1,1,1,eevdf,kbuild,200,1000,9000,,,,,,,,,,,
2,1,2,heuristic,kbuild,220,1500,9000,,,,,0,900,0,,1400,20,30
3,1,3,learned,kbuild,180,200,9000,,,,,800,10,0,,150,20,10
4,2,1,heuristic,kbuild,240,1200,9000,,,,,0,800,0,,,,
5,2,2,learned,kbuild,330,400,9000,,,,,700,5,0,,,,
6,2,3,eevdf,kbuild,300,800,9000,,,,,,,,,,,
7,3,1,learned,kbuild,250,100,9000,,,,,600,4,0,,,,
8,3,2,eevdf,kbuild,250,0,9000,,,,,,,,,,,
9,3,3,heuristic,kbuild,fail,1300,9000,,,,,,,,,,,
EOF
kb_keys="kbuild_time_ratio_vs_eevdf=1.000
kbuild_migrations_ratio_vs_eevdf=0.350
heuristic_kbuild_time_ratio_vs_eevdf=0.950
heuristic_kbuild_migrations_ratio_vs_eevdf=1.500
learned_vs_heuristic_kbuild_migrations_ratio=0.233"
GNUPLOT=/nonexistent/gnuplot run_report "$dir"
expect_ok kbuild-only "$kb_keys"
grep -q '^### kbuild\|^## kbuild\|kbuild' "$dir/report.md" 2>/dev/null || fail "kbuild-only: no kbuild in report.md"
echo "10,1,4,eevdf,build,10,100,1000,,,,,,,,,,," >>"$dir/results.csv"
GNUPLOT=/nonexistent/gnuplot run_report "$dir"
{ [ $rc -eq 0 ] && [ "$(head -n1 <<<"$out")" = "build_time_ratio_vs_eevdf=nan" ] &&
	[ "$(tail -n5 <<<"$out")" = "$kb_keys" ] && [ "$(wc -l <<<"$out")" -eq $((3 * 11 + 4 + 5)) ]; } ||
	fail "kbuild beside build: exit $rc, stdout
$out"

# Example 6: the frame workload (header2), eevdf, heuristic and learned. Hand-computed:
#   missed % per run: eevdf 100/1000=10, 100/2000=5, 0/1000=0; heuristic 20/1000=2, 10/500=2,
#     30/1000=3; learned 50/1000=5 (r2 failed: left out)
#   heuristic_frame_missed_ratio_vs_eevdf: 2/10=0.2, 2/5=0.4, r3 3/0 skipped -> 0.300
#   heuristic_frame_build_time_ratio_vs_eevdf: 95/100, 132/120=1.1, 90/100 -> 0.950
#   heuristic_frame_missed_pct, pooled: (20+10+30)/(1000+500+1000) -> 2.4; eevdf's 200/4000 -> 5.0
#   learned: 5/10 -> 0.500, 110/100 -> 1.100, 50/1000 -> 5.0; adaptive: nan
#   heuristic frame latency row: p50 50 (40-60), p99 1000 (800-1200), p99 vs EEVDF 0.2 each,
#     samples 990+495+980, missed % 2.0 (2.0-3.0), pooled 2.4%
dir=$work/frame
mkdir -p "$dir"
cat >"$dir/results.csv" <<EOF
$header2
1,1,1,eevdf,frame,100,10,10,200,5000,9000,1000,,,,,,,,1000,100
2,1,2,heuristic,frame,95,10,10,50,1000,3000,990,0,5,0,,,,,1000,20
3,1,3,learned,frame,110,10,10,60,2000,4000,980,5,0,0,,,,,1000,50
4,2,1,heuristic,frame,132,10,10,60,1200,3000,495,0,5,0,,,,,500,10
5,2,2,eevdf,frame,120,10,10,210,6000,9000,1990,,,,,,,,2000,100
6,2,3,learned,frame,fail,10,10,,,,,,,,,,,,800,800
7,3,1,heuristic,frame,90,10,10,40,800,3000,980,0,5,0,,,,,1000,30
8,3,2,eevdf,frame,100,10,10,190,4000,9000,1000,,,,,,,,1000,0
9,3,3,eevdf,build,10,100,1000,,,,,,,,,,,,,
EOF
GNUPLOT=/nonexistent/gnuplot run_report "$dir"
frame_keys() { # the output's frame keys and eevdf_frame_missed_pct
	grep -E '^([a-z]+_)?frame_|^eevdf_frame' <<<"$out"
}
[ $rc -eq 0 ] && [ "$(frame_keys)" = "frame_missed_pct=5.0
frame_missed_ratio_vs_eevdf=0.500
frame_build_time_ratio_vs_eevdf=1.100
heuristic_frame_missed_pct=2.4
heuristic_frame_missed_ratio_vs_eevdf=0.300
heuristic_frame_build_time_ratio_vs_eevdf=0.950
adaptive_frame_missed_pct=nan
adaptive_frame_missed_ratio_vs_eevdf=nan
adaptive_frame_build_time_ratio_vs_eevdf=nan
eevdf_frame_missed_pct=5.0" ] || fail "frame: exit $rc, stdout
$out"
grep -qF '| heuristic | 3 | 50 (40-60) | 1000 (800-1200) | 3000 | 0.200 | 2465 | 2.0 (2.0-3.0) | 2.4% | 0.300 |' "$dir/report.md" ||
	fail "frame: heuristic frame latency row"
grep -qF '| eevdf | 3 | 200 (190-210) | 5000 (4000-6000) | 9000 | 1.000 | 3990 | 5.0 (0.0-10.0) | 5.0% | 1.000 |' "$dir/report.md" ||
	fail "frame: eevdf frame latency row"

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
bad frame-fields-under-old-header "$header" "$ok_row" 2,1,2,learned,frame,10,12,1000,,,,,,,,,,,,10,1
bad old-row-under-new-header "$header2" "$ok_row"
bad frame-missed-over-periods "$header2" 2,1,2,learned,frame,10,12,1000,,,,,,,,,,,,10,11
bad frame-missed-without-periods "$header2" 2,1,2,learned,frame,10,12,1000,,,,,,,,,,,,,1
bad frame-periods-not-a-number "$header2" 2,1,2,learned,frame,10,12,1000,,,,,,,,,,,,1x,1
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
# badlearn NAME LEARNING_LINES...: a valid results.csv beside a learning.csv with those lines,
# refused
badlearn() {
	local d=$work/badlearn-$1
	mkdir -p "$d"
	printf '%s\n' "$header" "$ok_row" >"$d/results.csv"
	printf '%s\n' "${@:2}" >"$d/learning.csv"
	refused "learning $1" "$d"
}
lh=$learn_header
ls_row=adaptive,1,2.0,stats,0,0,90,2,0,,,,,,,
lr_row=adaptive,1,3.0,retrain,1,,,,,saving,12.5,-3.0,heuristic,1,0.7100,0.6500
badlearn wrong-header "${lh/incumbent/baseline}" "$ls_row"
badlearn no-header "$ls_row"
badlearn empty-file
badlearn too-few-fields "$lh" "${ls_row%,}"
badlearn too-many-fields "$lh" "$ls_row,"
badlearn unknown-phase "$lh" "${ls_row/adaptive/learned}"
badlearn unknown-kind "$lh" "${ls_row/stats/status}"
badlearn train-rep-not-0 "$lh" "${ls_row/adaptive,1/train,1}"
badlearn adaptive-rep-0 "$lh" "${ls_row/adaptive,1/adaptive,0}"
badlearn negative-time "$lh" "${ls_row/2.0/-1.0}"
badlearn stats-not-integer "$lh" "${ls_row/90/90.5}"
badlearn stats-extra-field "$lh" adaptive,1,2.0,stats,0,0,90,2,0,,1.0,,,,,
badlearn retrain-in-training "$lh" "${lr_row/adaptive,1/train,0}"
badlearn retrain-not-a-number "$lh" "${lr_row/12.5/12.5us}"
badlearn retrain-deployed-2 "$lh" adaptive,1,3.0,retrain,,,,,,saving,12.5,-3.0,heuristic,2,0.7100,0.6500
badlearn retrain-incumbent "$lh" "${lr_row/heuristic/eevdf}"
badlearn retrain-accuracy-above-1 "$lh" "${lr_row/0.7100/1.7100}"
badlearn retrain-kept-with-gen "$lh" "${lr_row/heuristic,1/heuristic,0}"
badlearn retrain-with-decisions "$lh" adaptive,1,3.0,retrain,1,5,,,,saving,12.5,-3.0,heuristic,1,0.7100,0.6500
badlearn retrain-unknown-measure "$lh" "${lr_row/saving/value}"
badlearn retrain-two-measures "$lh" "$lr_row" "${lr_row/saving/cost}"
badlearn retrain-one-accuracy "$lh" "${lr_row/,0.6500/,}"
badlearn rollback-without-gen "$lh" adaptive,1,3.0,rollback,,,,,,,,,,,,
refused missing-dir "$work/no-such-dir"
mkdir -p "$work/no-csv"
cp "$work/ex1/meta.txt" "$work/no-csv/"
refused missing-results.csv "$work/no-csv"

echo "bench-report: $n cases, $fails failed"
[ $fails -eq 0 ]
