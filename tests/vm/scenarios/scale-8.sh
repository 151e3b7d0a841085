#!/usr/bin/env bash
# topo: llc8smt
# timeout: 300
# The 8-vCPU side of the scale comparison (docs/scaling.md): one LLC of vm/stress-64's
# machine (4 cores x 2 threads, single-threaded TCG as there), the same per-CPU load, the
# same two measures per callback (tests/vm/scale-lib.sh): work per call from scx_mlb's work
# map, then time per call with kernel.bpf_stats_enabled=1 in a load run of its own.
# Writes work.txt and ns.txt, stamped with the suite's run id, for vm/stress-64, which prints
# the scale_* key lines. Fails when a hot callback is never called, when bpf_stats counts
# nothing, or when scx_mlb does not stay enabled and exit 0.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
source "$MLB_ROOT/tests/vm/scale-lib.sh"
[ "$(nproc)" = 8 ] || fail "guest has $(nproc) CPUs, expected 8"
l3=$(cat /sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list)
[ "$l3" = 0-7 ] || fail "CPU 0's L3 group is $l3, expected 0-7"
t0=$(now_ms)
scale_measure
note "scale-8: measured in $(($(now_ms) - t0)) ms"
made_by_this_run
echo "scale-8: ok"
