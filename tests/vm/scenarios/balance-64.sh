#!/usr/bin/env bash
# topo: numa4x2smt
# timeout: 600
# vm/balance on 64 vCPUs (4 nodes x 2 LLCs x 4 cores x 2 threads, single-threaded TCG): 24
# spinners start on CPUs 0-1, are then allowed everywhere, and within 3 x EEVDF's convergence
# time in the same boot + 5 s every spinner must run alone on a CPU (none waits while a CPU
# idles). 24 is more than node 0's 16 CPUs, so at least 8 must leave the node: pulls within
# the LLC, the node and across nodes all happen. vm/balance's checks on the migrations counted
# apply (tests/vm/scenarios/balance.sh). Not 64 spinners: with one TCG thread for 64 busy
# vCPUs the test's own shell gets 1/65 of it and a 1-s sample takes a minute.
NSPIN=24
EXPECT_ND=8
BOUND_RULE=cpus
source "$MLB_ROOT/tests/vm/scenarios/balance.sh"
