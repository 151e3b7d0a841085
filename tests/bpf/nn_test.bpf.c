// SPDX-License-Identifier: GPL-2.0
/*
 * BPF side of the nn-bpf-exact test and of `make bench-nn`: the fixed-point forward pass of
 * include/mlb/nn_fixed.h, built by clang for BPF exactly as the scheduler builds it, run on the
 * host kernel with BPF_PROG_TEST_RUN.
 *
 * User space writes the model and a batch of inputs into .bss through the skeleton, runs
 * `run_batch` (one inference per input, results into out[]) or `bench` (inferences repeated
 * inside bpf_loop, timed with bpf_ktime_get_ns()).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "mlb/intf.h"
#include "mlb/nn_fixed.h"
#include "nn_test.h"

char LICENSE[] SEC("license") = "GPL";

_Static_assert(sizeof(struct nn_test_input) == 4 * MLB_NN_MAX_IN, "input rows");

struct mlb_nn_model model;
struct nn_test_input inputs[NN_TEST_BATCH];
s32 outputs[NN_TEST_BATCH][MLB_NN_MAX_OUT];

/* Scratch in a per-CPU array, as the scheduler keeps it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct mlb_nn_scratch);
} scratch_map SEC(".maps");

struct loop_ctx {
	struct mlb_nn_scratch *s;
	u32 n_in;
	s32 err;
	s64 sum;
};

/* The feature count is a constant at the call site, as in the scheduler. */
static __always_inline int infer(const s32 *x, u32 n_in, struct mlb_nn_scratch *s)
{
	if (n_in == MLB_NR_FEATURES)
		return mlb_nn_forward(&model, x, MLB_NR_FEATURES, s);
	return mlb_nn_forward(&model, x, MLB_NN_MAX_IN, s);
}

static long batch_one(u32 i, void *data)
{
	struct loop_ctx *c = data;
	u32 k;

	if (i >= NN_TEST_BATCH)
		return 1;
	if (infer(inputs[i].v, c->n_in, c->s)) {
		c->err++;
		return 0;
	}
	for (k = 0; k < MLB_NN_MAX_OUT; k++)
		outputs[i][k] = mlb_nn_output(c->s, k);
	return 0;
}

SEC("syscall")
int run_batch(struct nn_test_args *args)
{
	struct loop_ctx c = {};
	u32 key = 0;

	c.s = bpf_map_lookup_elem(&scratch_map, &key);
	if (!c.s)
		return -1;
	c.n_in = args->n_in;
	bpf_loop(args->n < NN_TEST_BATCH ? args->n : NN_TEST_BATCH, batch_one, &c, 0);
	args->err = c.err;
	return 0;
}

static long bench_one(u32 i, void *data)
{
	struct loop_ctx *c = data;
	const s32 *x = inputs[i % NN_TEST_BATCH].v;
	int err;

	/* the feature count is a constant at each call site */
	if (c->n_in == NN_BENCH_SMALL_IN)
		err = mlb_nn_forward(&model, x, NN_BENCH_SMALL_IN, c->s);
	else
		err = mlb_nn_forward(&model, x, MLB_NR_FEATURES, c->s);
	if (err) {
		c->err++;
		return 1;
	}
	c->sum += mlb_nn_score(c->s);
	return 0;
}

SEC("syscall")
int bench(struct nn_test_args *args)
{
	struct loop_ctx c = {};
	u32 key = 0;
	u64 t0;

	c.s = bpf_map_lookup_elem(&scratch_map, &key);
	if (!c.s)
		return -1;
	c.n_in = args->n_in;
	t0 = bpf_ktime_get_ns();
	bpf_loop(args->n, bench_one, &c, 0);
	args->ns = bpf_ktime_get_ns() - t0;
	args->err = c.err;
	args->sum = c.sum;
	return 0;
}
