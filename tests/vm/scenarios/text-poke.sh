#!/usr/bin/env bash
# topo: numa2x2
# timeout: 400
# manual: a reproduction of an emulator defect, without scx_mlb; see docs/testing.md
# Kernel text patching under load, with no sched_ext scheduler at all: a static key
# (kernel.sched_schedstats) is flipped on and off for POKE_S seconds (default 240) while 6
# spinners and hackbench keep every vCPU busy. Each flip patches the key's jump sites with
# the int3 protocol (text_poke). Under multi-threaded TCG (MLB_TCG_THREAD=multi) this guest
# died twice in two runs with "Oops: int3" at a patched site (after about 40 and 118 flips);
# attaching or detaching a sched_ext scheduler flips keys the same way (__scx_enabled), which
# is how vm/hotplug and vm/sigstop died. Single-threaded TCG, the default, ran 126 flips
# clean. scenario.sh fails the run on the Oops.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
trap spin_stop EXIT
spin_start 6
(while :; do hackbench -g 2 -l 50 >/dev/null 2>&1; done) &
hb=$!
t0=$(now_ms) n=0
while [ $(($(now_ms) - t0)) -lt $((${POKE_S:-240} * 1000)) ]; do
	sysctl -qw kernel.sched_schedstats=1
	sysctl -qw kernel.sched_schedstats=0
	n=$((n + 2))
	[ $((n % 20)) = 0 ] && note "$n flips at $((($(now_ms) - t0) / 1000)) s"
done
kill $hb
echo "text-poke: ok ($n flips in $((($(now_ms) - t0) / 1000)) s)"
