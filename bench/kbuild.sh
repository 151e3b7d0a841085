#!/usr/bin/env bash
# make bench-kernel's workload: part of a real Linux tree built with make -j<CPUs>, under EEVDF,
# the heuristic and the learned model, measured as make bench measures (bench/lib.sh).
#
#   bench/kbuild.sh prepare SRC OBJ tiny|defconfig     on the host, before the guest boots
#   MLB_ROOT=REPO MLB_OUT=DIR bench/kbuild.sh run SRC OBJ   the benchmark (guest or host)
#
# SRC is an unpacked kernel tree (scripts/fetch-linux-source.sh: Debian's source package
# linux), used read-only: every object goes to OBJ (make O=OBJ).
#
# prepare configures OBJ and builds what every compile needs (make prepare: the generated
# headers, fixdep, objtool and the other host tools), then saves the prepared tree as OBJ.tar
# and writes OBJ.env, which names the targets of a measured run:
#   tiny       the test guest's: x86_64 tinyconfig, and the directories below; 3-6 min per
#              build in the 8-vCPU single-threaded TCG guest
#   defconfig  a real machine's (make bench-kernel HOST=1): x86_64 defconfig, the full
#              `make` (vmlinux, bzImage, modules)
# The tiny object set, KB_TINY_TARGETS: kernel/time/, 16 objects with tinyconfig
# (timekeeping, timers, hrtimers, clockevents, the tick), two per vCPU. Chosen by measuring,
# since single-threaded TCG runs all 8 vCPUs on one host thread, ~15-20x slower than a host
# core: a host core needs ~1.2 s per object of mm/ and fs/, ~0.6 s per object of kernel/time/
# and kernel/irq/, ~0.5 s of lib/, plus ~4 s of make's own walk; with tinyconfig kernel/ has
# 89 objects, mm/ 51, lib/ 85, fs/ 46: any one of those is 15-45 min in the guest (a probe
# built 30 of mm/'s objects in about 14 min). Measured in the guest (2026-12-06, numa2x2,
# QEMU 10, under EEVDF): kernel/irq/ (12 objects) 135 s cold, 155 s warm; kernel/time/ init/
# (22 objects; the set of the first REPS=2 run) 291-443 s per build, median 367 s, over the
# 3-6 min aimed at, and ~53 min for REPS=2 with the fetch; kernel/time/ 192 s warm (one
# build; its cold warm-up build ~3 min).
#
# run: like bench/workloads.sh (its training run, warm-up, rotated turns), with one workload
# per turn, kbuild: the prepared tree restored into OBJ from OBJ.tar (a clean object tree, the
# same one each time: untimed), then `make -C SRC O=OBJ -j<CPUs> TARGETS`, timed. OBJ keeps
# the path it was prepared at, since objtool's and the host tools' dependency files name it
# (a copy elsewhere rebuilds them). In the guest, where the host's folders are read-only, a
# tmpfs is mounted over OBJ. BENCH_KB_TARGETS overrides the targets (sizing runs). Environment
# as bench/workloads.sh (BENCH_REPS, BENCH_SCHEDS, default
# "eevdf heuristic learned", BENCH_MLB_ARGS, BENCH_MODEL, BENCH_QUICK: a 30 s training run).
# Writes results.csv (workload kbuild), work.csv, learning.csv, meta.txt and logs/ in
# $MLB_OUT, as bench/workloads.sh does. Exit status 0 when every run completed, 1 when one
# failed or the scheduler could not start, 2 usage.
{ # parsed whole before it runs: editing this file cannot break a running instance
set -uo pipefail

# the tiny object set (measured in the guest, BENCHMARKS.md)
KB_TINY_TARGETS="kernel/time/"

usage() { sed -n '2,/^{ #/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 3 ] || usage
cmd=$1 src=$2 obj=$3
[ -f "$src/Makefile" ] || { echo "kbuild: $src: not a kernel tree" >&2; exit 2; }
obj=$(realpath -m "$obj")
src=$(realpath "$src")

# ---- prepare (host) --------------------------------------------------------------------

if [ "$cmd" = prepare ]; then
	kind=${4:-}
	case $kind in
	tiny) targets=$KB_TINY_TARGETS conf=tinyconfig ;;
	defconfig) targets="" conf=defconfig ;;
	*) usage ;;
	esac
	envf=$(printf 'KB_KIND=%s\nKB_TARGETS="%s"\nKB_SRC=%s\n' "$kind" "$targets" "$src")
	# prepared already from this tree, this way: only the targets may have changed
	if [ -f "$obj.tar" ] && grep -qxF "KB_KIND=$kind" "$obj.env" 2>/dev/null &&
		grep -qxF "KB_SRC=$src" "$obj.env"; then
		echo "$envf" >"$obj.env"
		echo "kbuild: $obj prepared already ($kind)" >&2
		exit 0
	fi
	rm -rf "$obj" "$obj.tar" "$obj.env"
	mkdir -p "$obj"
	echo "kbuild: configuring $obj ($conf, ARCH=x86_64) and make prepare" >&2
	make -s -C "$src" O="$obj" ARCH=x86_64 "$conf" >&2 &&
		make -s -C "$src" O="$obj" ARCH=x86_64 -j"$(nproc)" prepare >&2 ||
		{ echo "kbuild: configuring the tree failed" >&2; exit 1; }
	tar -C "$obj" -cf "$obj.tar" . || exit 1
	echo "$envf" >"$obj.env"
	echo "kbuild: prepared $obj.tar ($(du -sh "$obj.tar" | cut -f1))" >&2
	exit 0
fi
[ "$cmd" = run ] && [ $# -eq 3 ] || usage

# ---- run (guest or host) ---------------------------------------------------------------

: "${MLB_ROOT:?set MLB_ROOT to the repository}" "${MLB_OUT:?set MLB_OUT to the results folder}"
[ -f "$obj.tar" ] && [ -f "$obj.env" ] || { echo "kbuild: $obj is not prepared (bench/kbuild.sh prepare)" >&2; exit 2; }
source "$obj.env"
BENCH_DEFAULT_SCHEDS="eevdf heuristic learned"
source "$MLB_ROOT/bench/lib.sh" # measure, row, the schedulers, training, the turns
bench_begin
KB_TARGETS=${BENCH_KB_TARGETS:-$KB_TARGETS} # a different object set: sizing runs
read -r -a kb_targets <<<"$KB_TARGETS"
kb_make=(make -C "$src" O="$obj" ARCH=x86_64 -j"$ncpu" "${kb_targets[@]}")

# kb_restore: OBJ as prepare left it, nothing built in it
kb_restore() {
	find "$obj" -mindepth 1 -delete 2>/dev/null
	tar -C "$obj" -xf "$obj.tar"
}

# kb_sync: the configuration re-read in this environment, untimed. Kconfig records the tools
# it saw (rustc's version among them), and the guest's environment is not the host's: left to
# the timed build, its first step was a syncconfig (2026-12-06 run).
kb_sync() {
	make -s -C "$src" O="$obj" ARCH=x86_64 syncconfig >/dev/null 2>&1
}

# w_kbuild NAME: one measured build from the clean object tree
w_kbuild() {
	kb_restore && kb_sync || { M_OK=0; log "$1: cannot restore $obj"; return; }
	sync
	measure "$1" "${kb_make[@]}"
	[ "$M_OK" = 1 ] || log "$1: make failed: $(grep -a -m1 -E 'Error|error:' "$logs/$1.log")"
}

turn() { # SCHED REP SLOT TAG
	w_kbuild "kbuild-$4"
	row "$2" "$3" "$1" kbuild
}

bench_init make gcc tar find
# the host's folders are read-only in the guest: OBJ becomes a tmpfs there, at the same path
if ! { mkdir -p "$obj" && touch "$obj/.mlb-w" && rm -f "$obj/.mlb-w"; } 2>/dev/null; then
	mount -t tmpfs -o mode=0755 kbuild-obj "$obj" || fail "cannot mount a tmpfs on $obj"
	log "object tree: a tmpfs on $obj"
fi
{
	bench_meta
	echo "build_project=Linux $(make -s -C "$src" kernelversion 2>/dev/null) ($(cat "$src/../source.txt" 2>/dev/null | sed -n 's/^version=/Debian source package linux /p'))"
	echo "build_config=$KB_KIND (x86_64), $(grep -c '=[ym]$' "$obj/.config" 2>/dev/null || tar -xOf "$obj.tar" ./.config | grep -c '=[ym]$') options set"
	echo "build_cmd=make -j$ncpu ${KB_TARGETS:-(all)} from a clean object tree (O=, restored from make prepare's)"
} >>"$MLB_OUT/meta.txt"

# 1. the learned model, from a run of its own
bench_train

# 2. one unmeasured build under the kernel's scheduler: the first build of a boot reads the
# compilers and the sources through the guest's cold 9p page cache.
log "warm-up: one unmeasured build of ${KB_TARGETS:-all}"
kb_restore && kb_sync && "${kb_make[@]}" >"$logs/warm-up.log" 2>&1 ||
	log "warm-up build failed (see logs/warm-up.log); measuring anyway"
bench_turns turn
exit
}
