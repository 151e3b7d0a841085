#!/usr/bin/env bash
# topo: flat4
# timeout: 360
# 30 s (MLB_SHORT: 12 s) of stress-ng --aggressive (cpu, fork, affinity, yield) plus
# hackbench under scx_mlb: the scheduler stays enabled, both workloads exit 0 and leave no
# process behind, scx_mlb exits 0 on SIGINT, and scenario.sh finds no BUG/WARNING/stall on
# the console.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
mlb_start --stats 5
mlb_wait_enabled
stress_check 4 4 50 10
echo "stress: ok"
