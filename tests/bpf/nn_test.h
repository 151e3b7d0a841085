/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between tests/bpf/nn_test.bpf.c and its user-space drivers (unit/nn-bpf-exact,
 * bench-nn): the layout of the inputs in .bss and of the syscall programs' context.
 * Include after the s32/u32/s64/u64 types (vmlinux.h or mlb/intf.h).
 */
#ifndef __MLB_NN_TEST_H
#define __MLB_NN_TEST_H

#define NN_TEST_BATCH 4096 /* inputs per run_batch call */
/* Inputs of the small benchmark network (15-16-8-1, the reference's shape). */
#define NN_BENCH_SMALL_IN 15

/* Inputs have a row stride of MLB_NN_MAX_IN; the model uses the first n_in. */
struct nn_test_input {
	s32 v[32];
};

struct nn_test_args {
	u32 n;	  /* run_batch: inputs to run; bench: inferences */
	u32 n_in; /* features per input: run_batch MLB_NR_FEATURES or MLB_NN_MAX_IN, bench
		   * MLB_NR_FEATURES or NN_BENCH_SMALL_IN */
	s32 err;  /* out: inferences that returned an error */
	u32 pad;
	u64 ns;	 /* bench out: elapsed ns */
	s64 sum; /* bench out: sum of the scores, keeps the work observable */
};

#endif /* __MLB_NN_TEST_H */
