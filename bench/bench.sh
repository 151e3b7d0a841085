#!/usr/bin/env bash
# make bench: EEVDF against scx_mlb, side by side, with a report and plots. The schedulers:
# eevdf, heuristic (scx_mlb --mode heuristic), learned (--mode infer with a model trained in the
# same boot, the model alone) and adaptive (--mode adaptive, learning live turn after turn, from
# the heuristic); BENCH_SCHEDS="eevdf heuristic" (make bench SCHEDS=...) runs a subset.
#
#   bench/bench.sh            (make bench)          the full set, ~30 min in the test guest
#                                                   for three schedulers, a third more for four
#   QUICK=1 bench/bench.sh    (make bench QUICK=1)  shorter workloads, ~26 min for four schedulers (single-threaded TCG)
#   HOST=1 bench/bench.sh     (make bench HOST=1)   on this machine, which must run a sched_ext
#                                                   kernel (real hardware: real numbers)
#   REPS=N                    repetitions (default 3; each runs every scheduler once)
#   BENCH_FRAME="T P W"       (make bench FRAME=...) the frame workload: T tasks of W us of CPU
#                                                   every P us (default: CPUs/2, 4000, 1000)
#   bench/bench.sh kernel     (make bench-kernel)   the reference's own benchmark: part of a
#                                                   Linux tree instead of the five workloads
#                                                   (bench/kbuild.sh); HOST=1: a full defconfig
#
# Kernel: fetches Debian's linux source package (scripts/fetch-linux-source.sh, into
# build/bench/linux), configures and prepares an object tree on this machine before the guest
# boots (bench/kbuild.sh prepare: tinyconfig and a few directories for the guest, defconfig and
# everything with HOST=1), then runs bench/kbuild.sh where bench/workloads.sh would run, with
# EEVDF, the heuristic and the learned model by default. Results go to
# bench/results/<date-time>-kernel/, the rest as below.
#
# Lua: fetches the build workload (Lua 5.4, Debian's source package lua5.4, with apt in a private
# state folder: the system's apt sources are not touched), then runs bench/workloads.sh in the
# numa2x2 test guest (8 vCPUs, 2 NUMA nodes x 2 LLCs, QEMU TCG) or here, samples the host's
# steal time beside it, and writes bench/results/<UTC date-time>/: results.csv, meta.txt,
# lat/*.hist (lat-fifo/*.hist: the floor), work.csv, learning.csv (the training run's and the
# adaptive turns' learning curve), report.md and PNG plots (bench/report.sh), model.mlb (the
# learned model). Logs go to build/bench/<date-time>/. Ends with the key=value lines of
# bench/report.sh.
# Exit status: 0 when every run completed and the report was written, else 1.
{ # parsed whole before it runs: editing this file cannot break a running instance
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
quick=${QUICK:-0} reps=${REPS:-3} on_host=${HOST:-0} kind=${1:-lua}
[[ $kind =~ ^(lua|kernel)$ ]] || { echo "bench: usage: bench/bench.sh [lua|kernel]" >&2; exit 2; }
[[ $quick =~ ^[01]$ && $on_host =~ ^[01]$ ]] || { echo "bench: QUICK and HOST take 0 or 1" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]?$ ]] || { echo "bench: REPS must be 1..99, not '$reps'" >&2; exit 2; }
stamp=$(date -u +%Y-%m-%d-%H%M%S)
sfx=$([ "$kind" = kernel ] && echo -kernel)
res=$root/bench/results/$stamp$sfx
logdir=$root/build/bench/$stamp$sfx
say() { echo "bench: $*" >&2; }

source bench/lua.sh # lua_tarball

# steal_sampler FILE: "epoch steal total" of the host's /proc/stat every second, until killed.
steal_sampler() {
	local cpu user nice sys idle iow irq sirq steal rest
	while :; do
		read -r cpu user nice sys idle iow irq sirq steal rest </proc/stat
		echo "$EPOCHREALTIME $steal $((user + nice + sys + idle + iow + irq + sirq + steal))"
		sleep 1
	done >"$1"
}

# fill_steal DIR: the steal_pct column of DIR/results.csv from the host's samples around each
# run (guest and host clocks agree to well under a second: QEMU's clock follows the host's).
fill_steal() {
	[ -s "$logdir/host-steal.txt" ] && [ -s "$1/logs/times.txt" ] || return 0
	awk -F'[ ,]' -v OFS=, 'FILENAME == ARGV[1] { t[++n] = $1; s[n] = $2; a[n] = $3; next }
		FILENAME == ARGV[2] { t0[$1] = $2; t1[$1] = $3; next }
		FNR == 1 { print; next }
		{
			# the samples just around the run: the last one before it, the first one after
			i = 1; j = n
			for (k = 1; k <= n; k++) {
				if (t[k] <= t0[$1]) i = k
				if (t[k] >= t1[$1] && j == n) j = k
			}
			v = ""
			if (i && j > i && a[j] > a[i]) v = sprintf("%.1f", 100 * (s[j] - s[i]) / (a[j] - a[i]))
			$16 = v # steal_pct
			print
		}' "$logdir/host-steal.txt" "$1/logs/times.txt" "$1/results.csv" >"$1/results.csv.tmp" &&
		mv "$1/results.csv.tmp" "$1/results.csv"
}

[ "$(id -u)" = 0 ] || { echo "bench: run as root (make bench installs packages and loads a scheduler)" >&2; exit 1; }
[ "$on_host" = 0 ] || [ -d /sys/kernel/sched_ext ] ||
	{ echo "bench: HOST=1 needs a kernel with sched_ext (no /sys/kernel/sched_ext); without HOST=1 it runs in the test guest" >&2; exit 1; }
bash scripts/install-deps.sh || exit 1
make --no-print-directory all build/bench-work >&2 || exit 1
if [ "$kind" = kernel ]; then
	# the workload script and its arguments; the default set of schedulers
	ksrc=$root/build/bench/linux
	kobj=$root/build/bench/kbuild/obj-$([ "$on_host" = 1 ] && echo defconfig || echo tiny)
	bash scripts/fetch-linux-source.sh "$ksrc" >/dev/null ||
		{ echo "bench: cannot fetch the Linux source package" >&2; exit 1; }
	bash bench/kbuild.sh prepare "$ksrc/linux" "$kobj" "$([ "$on_host" = 1 ] && echo defconfig || echo tiny)" ||
		{ echo "bench: cannot prepare the kernel tree" >&2; exit 1; }
	wl=("$root/bench/kbuild.sh" run "$ksrc/linux" "$kobj")
	all_scheds="eevdf heuristic learned"
	turn_s=900 # a build of 3-6 min plus scx_mlb's start and stop
else
	lua=$(lua_tarball) || { echo "bench: cannot fetch the Lua source package" >&2; exit 1; }
	wl=("$root/bench/workloads.sh" "$lua")
	all_scheds="eevdf heuristic learned adaptive"
	# a turn: two builds (alone, and beside the frame tasks) and the rest
	turn_s=$([ "$quick" = 1 ] && echo 240 || echo 800)
fi
mkdir -p "$logdir" "$res"
say "results in $res, logs in $logdir"
steal_sampler "$logdir/host-steal.txt" &
sampler=$!
trap 'kill $sampler 2>/dev/null' EXIT

export BENCH_QUICK=$quick BENCH_REPS=$reps
if [ "$on_host" = 1 ]; then
	[ "$(cat /sys/kernel/sched_ext/state)" = disabled ] ||
		{ echo "bench: a sched_ext scheduler is already running ($(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)): stop it first" >&2; exit 1; }
	MLB_ROOT=$root MLB_OUT=$logdir MLB_TOPO=host bash "${wl[@]}" 2>&1 | tee "$logdir/workloads.log"
	rc=${PIPESTATUS[0]}
	accel=host
else
	make --no-print-directory kernel >&2 || exit 1
	# the time budget of a scheduler turn ($turn_s: Lua 180 s quick, 600 s full, a quick turn
	# took about 120 s under single-threaded TCG, 2026-12-06; the kernel build 900 s), plus
	# the training run, the warm-up build and the boot
	nsched=$(wc -w <<<"${BENCH_SCHEDS:-$all_scheds}")
	limit=$([ "$quick" = 1 ] && echo $((reps * nsched * turn_s + 400)) || echo $(((reps * nsched + 1) * turn_s + 300)))
	say "booting the numa2x2 test guest (QEMU TCG); the bench runs for up to $limit s"
	# the console streams into the log; the terminal gets the bench's own progress lines
	bash tests/vm/guest.sh --topo numa2x2 --timeout "$limit" --out "$logdir" --stream \
		--env BENCH_QUICK="$quick" --env BENCH_REPS="$reps" \
		--env BENCH_SCHEDS="${BENCH_SCHEDS:-}" --env BENCH_MLB_ARGS="${BENCH_MLB_ARGS:-}" \
		--env BENCH_KB_TARGETS="${BENCH_KB_TARGETS:-}" --env BENCH_FRAME="${BENCH_FRAME:-}" -- \
		"${wl[@]}" 2>&1 | tee "$logdir/workloads.log" |
		grep --line-buffered -a -E '^(bench|guest\.sh|FAIL)'
	rc=${PIPESTATUS[0]}
	accel=tcg
fi
kill $sampler 2>/dev/null
[ -s "$logdir/results.csv" ] || { echo "bench: no results (exit $rc); see $logdir" >&2; exit 1; }

fill_steal "$logdir"
cp -r "$logdir/results.csv" "$logdir/meta.txt" "$logdir/lat" "$res"/
[ -d "$logdir/frame" ] && cp -r "$logdir/frame" "$res"/
[ -d "$logdir/lat-fifo" ] && cp -r "$logdir/lat-fifo" "$res"/
[ -f "$logdir/work.csv" ] && cp "$logdir/work.csv" "$res"/
[ -f "$logdir/learning.csv" ] && cp "$logdir/learning.csv" "$res"/
[ -f "$logdir/model.mlb" ] && cp "$logdir/model.mlb" "$res"/
{
	echo "accel=$accel"
	echo "host_cpus=$(nproc)"
	echo "host_kernel=$(uname -r)"
	[ "$accel" = tcg ] && echo "qemu=$(qemu-system-x86_64 --version | head -n1)"
	echo "host_steal_pct=$(awk 'NR == 1 { s = $2; a = $3 } END { if ($3 > a) printf "%.1f", 100 * ($2 - s) / ($3 - a) }' "$logdir/host-steal.txt") (whole bench)"
	echo "bench_exit=$rc"
} >>"$res/meta.txt"
bash bench/report.sh "$res" || exit 1
say "report: $res/report.md"
# The full default run is the record: its report and plots go where BENCHMARKS.md links
# them (docs/bench/<date>/, kept in git); the raw results stay in bench/results/ (ignored).
if [ "$quick" != 1 ] && [ -z "${BENCH_SCHEDS:-}${BENCH_MLB_ARGS:-}${BENCH_KB_TARGETS:-}${BENCH_FRAME:-}" ]; then
	doc=docs/bench/$(basename "$res")
	mkdir -p "$doc" && cp "$res/report.md" "$res"/*.png "$doc"/ 2>/dev/null
	say "report and plots for BENCHMARKS.md: $doc"
fi
[ "$rc" = 0 ] || { say "some runs failed (exit $rc); see $logdir"; exit 1; }
exit
}
