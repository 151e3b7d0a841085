#!/usr/bin/env bash
# topo: numa2x2smt
# timeout: 360
# vm/balance on SMT pairs (16 vCPUs: 2 nodes x 2 LLCs x 2 cores x 2 threads): the same 8
# spinners start on CPUs 0-1 (the two threads of one core), are then allowed everywhere, and
# must spread over the four LLC domains within the same bound. The migrations the scheduler
# counts must include moves between SMT siblings of one core or to other cores (chosen ones:
# the seam decided them).
source "$MLB_ROOT/tests/vm/scenarios/balance.sh"
