#!/usr/bin/env bash
# topo: numa4x2smt
# timeout: 600
# vm/collect on 64 vCPUs (4 nodes x 2 LLCs x 4 cores x 2 threads, single-threaded TCG), with
# the mixed load scaled 4x (24 stress-ng workers, 8 hackbench groups of 40 tasks): at least 1,000
# labelled samples, a dataset the trainer accepts, no decision lost silently, and the
# topology features take both values (see tests/vm/scenarios/collect.sh). Its dataset is not
# reused: vm/train trains on vm/collect's.
MIXED_SCALE=4
source "$MLB_ROOT/tests/vm/scenarios/collect.sh"
