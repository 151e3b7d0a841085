#!/usr/bin/env bash
# topo: numa4x2smt
# timeout: 600
# vm/infer on 64 vCPUs (4 nodes x 2 LLCs x 4 cores x 2 threads, single-threaded TCG), with
# the mixed load scaled 4x: the scheduler stays enabled through the stress and the model
# decides (see tests/vm/scenarios/infer.sh).
# Without stress-ng's yield workers (INFER_YIELD=0): 64 sched_yield() loops on 64 vCPUs of
# single-threaded TCG keep their run-queue locks held most of the time, and the sched_ext
# watchdog's scan, which takes every CPU's run-queue lock in turn, then waits for vCPUs that
# hold one and lost their turn: scans of 1.3 to 14.5 s measured (0 to 0.47 s without the
# yielders) and "watchdog failed to check in" (docs/scaling.md). The yield path at 64 vCPUs
# is vm/stress-64's; with the model, vm/infer's.
MIXED_SCALE=4
INFER_YIELD=0
source "$MLB_ROOT/tests/vm/scenarios/infer.sh"
