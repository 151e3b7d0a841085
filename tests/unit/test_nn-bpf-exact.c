// SPDX-License-Identifier: GPL-2.0
/*
 * unit/nn-bpf-exact: the BPF build of include/mlb/nn_fixed.h (tests/bpf/nn_test.bpf.c, clang
 * for BPF) computes exactly what the gcc build computes. Random valid models of several shapes
 * (weights over their whole range, so saturation and clamping happen too) and random inputs
 * (inside and outside the feature ranges) are run on both sides through BPF_PROG_TEST_RUN;
 * every output must match bit for bit.
 *
 * Exit 77 only when BPF itself is unavailable (no permission, no bpf() syscall).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "ml/model.h"
#include "ml/rng.h"
#include "../bpf/nn_test.h"
#include "ml/nn_test.skel.h"

#define NR_MODELS	10
#define PER_MODEL	2048   /* inputs per model: 20480 in all */
#define VERIFIER_BUDGET 200000 /* of the kernel's 1,000,000 per program */

static s32 rand_s32(struct mlb_rng *r, s64 lo, s64 hi)
{
	return (s32)mlb_rng_range(r, lo, hi);
}

/* A random model that mlb_nn_validate() accepts. @wide: weights over their whole range. */
static void random_model(struct mlb_rng *r, struct mlb_nn_model *m, u32 n_in, int wide)
{
	u32 sizes[MLB_NN_MAX_LAYERS + 1], l, i, j, in_frac;
	char err[256];

	memset(m, 0, sizeof(*m));
	m->magic = MLB_NN_MAGIC;
	m->n_in = n_in;
	m->n_layers = 1 + mlb_rng_below(r, MLB_NN_MAX_LAYERS);
	m->n_out = 1 + mlb_rng_below(r, MLB_NN_MAX_OUT);
	sizes[0] = n_in;
	for (l = 1; l < m->n_layers; l++)
		sizes[l] = 1 + mlb_rng_below(r, MLB_NN_MAX_HIDDEN);
	sizes[m->n_layers] = m->n_out;
	for (i = 0; i < n_in; i++) {
		struct mlb_nn_norm *n = &m->norm[i];
		s32 span = rand_s32(r, 0, mlb_rng_below(r, 2) ? 100 : MLB_NN_SPAN_MAX);

		n->lo = rand_s32(r, -1000000, 1000000);
		n->hi = n->lo + span;
		n->offset = rand_s32(r, n->lo, n->hi);
		if (wide) {
			n->mult = rand_s32(r, 0, MLB_NN_MULT_MAX);
			n->shift = mlb_rng_below(r, MLB_NN_SHIFT_MAX + 1);
		} else {
			/* like a trained model: the range maps to a few units of Q4.11 */
			double mult;

			n->shift = 10 + mlb_rng_below(r, 20);
			mult = (double)((s64)1 << (MLB_NN_IN_FRAC + n->shift)) / (span + 1) *
			       (0.25 + mlb_rng_uniform(r));
			n->mult = mult > MLB_NN_MULT_MAX ? MLB_NN_MULT_MAX : (s32)mult;
		}
		n->half = mlb_nn_half((u32)n->shift);
	}
	for (l = 0, in_frac = MLB_NN_IN_FRAC; l < m->n_layers; l++) {
		struct mlb_nn_layer *ly = &m->layer[l];
		int last = l + 1 == m->n_layers;
		u32 f = mlb_rng_below(r, MLB_NN_WFRAC_MAX + 1);
		u32 of_max = last ? MLB_NN_FRAC_BITS : MLB_NN_OUT_FRAC_MAX;
		/* every row's |w| sum within MLB_NN_ROW_L1_MAX; narrow: |w| <= 1.0 as well */
		s64 wmax = MLB_NN_ROW_L1_MAX / sizes[l];
		s64 bmax = wide ? MLB_NN_B_MAX : (s64)1 << (in_frac + f);

		if (!wide && wmax > (s64)1 << f)
			wmax = (s64)1 << f;
		if (bmax > MLB_NN_B_MAX)
			bmax = MLB_NN_B_MAX;
		if (of_max > in_frac + f)
			of_max = in_frac + f;
		ly->n_in = sizes[l];
		ly->n_out = sizes[l + 1];
		ly->w_frac = f;
		ly->out_frac = mlb_rng_below(r, of_max + 1);
		ly->shift = in_frac + f - ly->out_frac;
		ly->relu = !last;
		for (j = 0; j < ly->n_out; j++) {
			mlb_nn_set_bias(ly, j, mlb_rng_range(r, -bmax, bmax));
			if (wide && !mlb_rng_below(r, 4)) {
				/* the whole row budget on one input */
				i = mlb_rng_below(r, ly->n_in);
				mlb_nn_set_weight(ly, j, i,
						  mlb_rng_below(r, 2) ? MLB_NN_ROW_L1_MAX
								      : -MLB_NN_ROW_L1_MAX);
				continue;
			}
			for (i = 0; i < ly->n_in; i++)
				mlb_nn_set_weight(ly, j, i, mlb_rng_range(r, -wmax, wmax));
		}
		in_frac = ly->out_frac;
	}
	if (mlb_nn_validate(m, err, sizeof(err))) {
		fprintf(stderr, "FAIL: generated an invalid model: %s\n", err);
		exit(1);
	}
}

static void random_input(struct mlb_rng *r, const struct mlb_nn_model *m, s32 *x)
{
	for (u32 i = 0; i < MLB_NN_MAX_IN; i++) {
		const struct mlb_nn_norm *n = &m->norm[i];

		switch (mlb_rng_below(r, 8)) {
		case 0: /* anything, clamped by the network */
			if (mlb_rng_below(r, 4))
				goto in_range;
			x[i] = (s32)mlb_rng_next(r);
			break;
		case 1:
			x[i] = mlb_rng_below(r, 2) ? INT_MIN : INT_MAX;
			break;
		default: /* within the feature's range */
		in_range:
			x[i] = i < m->n_in ? rand_s32(r, n->lo, n->hi) : 0;
		}
	}
}

static int run(struct nn_test *skel, u32 n, u32 n_in, s32 *err)
{
	struct nn_test_args args = {.n = n, .n_in = n_in};
	/* syscall programs take no ctx_out: the kernel copies the context back into ctx_in */
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &args, .ctx_size_in = sizeof(args));
	int ret;

	ret = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.run_batch), &opts);
	if (ret || opts.retval) {
		fprintf(stderr, "FAIL: BPF_PROG_TEST_RUN: ret %d retval %d errno %d\n", ret,
			opts.retval, errno);
		return -1;
	}
	*err = args.err;
	return 0;
}

int main(void)
{
	struct mlb_nn_scratch s;
	struct nn_test *skel;
	struct mlb_rng r;
	u64 compared = 0, saturated = 0, mismatches = 0, narrow = 0, narrow_sat = 0;
	s32 err;

	libbpf_set_print(NULL);
	skel = nn_test__open_and_load();
	if (!skel) {
		int e = errno;

		if (e == EPERM || e == EACCES || e == ENOSYS || e == EOPNOTSUPP) {
			printf("BPF unavailable on this host (%s): cannot load the test program\n",
			       strerror(e));
			return 77;
		}
		fprintf(stderr, "FAIL: loading tests/bpf/nn_test.bpf.c: %s (verifier?)\n",
			strerror(e));
		return 1;
	}
	if (sizeof(skel->bss->inputs[0]) != 4 * MLB_NN_MAX_IN ||
	    sizeof(skel->bss->inputs) / sizeof(skel->bss->inputs[0]) < PER_MODEL) {
		fprintf(stderr, "FAIL: tests/bpf/nn_test.bpf.c input layout changed\n");
		goto fail;
	}

	/*
	 * The scheduler embeds this inference in larger programs: one call site (the bench
	 * program has one; run_batch has two, for 25 and 32 inputs) must leave most of the
	 * verifier's 1M-instruction budget to the rest.
	 */
	{
		struct bpf_program *progs[] = {skel->progs.run_batch, skel->progs.bench};

		for (int p = 0; p < 2; p++) {
			struct bpf_prog_info info = {};
			u32 len = sizeof(info);

			if (bpf_prog_get_info_by_fd(bpf_program__fd(progs[p]), &info, &len)) {
				fprintf(stderr, "FAIL: bpf_prog_get_info_by_fd: %s\n",
					strerror(errno));
				goto fail;
			}
			printf("%s: %u instructions verified, %u bytes jited\n",
			       bpf_program__name(progs[p]), info.verified_insns,
			       info.jited_prog_len);
			if (!info.verified_insns ||
			    info.verified_insns > VERIFIER_BUDGET * (p == 0 ? 2 : 1)) {
				fprintf(stderr, "FAIL: %s takes more than %d verifier steps\n",
					bpf_program__name(progs[p]),
					VERIFIER_BUDGET * (p == 0 ? 2 : 1));
				goto fail;
			}
		}
	}

	mlb_rng_seed(&r, 20261203);
	for (int k = 0; k < NR_MODELS; k++) {
		/* mostly the scheduler's input count, and the maximum */
		u32 n_in = k % 4 == 3 ? MLB_NN_MAX_IN : MLB_NR_FEATURES;
		struct mlb_nn_model *m = &skel->bss->model;

		random_model(&r, m, n_in, k % 2);
		for (int t = 0; t < PER_MODEL; t++)
			random_input(&r, m, skel->bss->inputs[t].v);
		memset(skel->bss->outputs, 0x5a, sizeof(skel->bss->outputs));
		if (run(skel, PER_MODEL, n_in, &err))
			goto fail;
		if (err) {
			fprintf(stderr, "FAIL: model %d: %d BPF inferences failed\n", k, err);
			goto fail;
		}
		for (int t = 0; t < PER_MODEL; t++) {
			if (mlb_nn_forward(m, skel->bss->inputs[t].v, n_in, &s)) {
				fprintf(stderr, "FAIL: model %d: user-space inference failed\n", k);
				goto fail;
			}
			for (u32 o = 0; o < m->n_out; o++) {
				s32 u = mlb_nn_output(&s, o), b = skel->bss->outputs[t][o];
				/* a saturated output, in Q15.16 */
				s64 smax =
				    (s64)MLB_NN_ACT_MAX
				    << (MLB_NN_FRAC_BITS - m->layer[m->n_layers - 1].out_frac);
				int sat = u == smax || u == -smax;

				compared++;
				saturated += sat;
				narrow += !(k % 2);
				narrow_sat += !(k % 2) && sat;
				if (u != b && mismatches++ < 10)
					fprintf(stderr,
						"mismatch: model %d input %d output %u: user %d "
						"bpf %d\n",
						k, t, o, u, b);
			}
		}
		printf("model %d: %u-", k, m->n_in);
		for (u32 l = 0; l < m->n_layers; l++)
			printf("%u%s", m->layer[l].n_out, l + 1 < m->n_layers ? "-" : "");
		printf(" %s weights, %d inputs compared\n", k % 2 ? "wide" : "narrow", PER_MODEL);
	}
	/* A model whose input count is not the call's is refused on both sides. */
	skel->bss->model.n_in = MLB_NR_FEATURES - 1;
	if (run(skel, 16, MLB_NR_FEATURES, &err))
		goto fail;
	if (err != 16 ||
	    !mlb_nn_forward(&skel->bss->model, skel->bss->inputs[0].v, MLB_NR_FEATURES, &s)) {
		fprintf(stderr, "FAIL: an input-count mismatch was not refused (bpf errors %d)\n",
			err);
		goto fail;
	}

	printf("%llu outputs compared, %llu mismatches (%llu saturated; narrow models: %llu of "
	       "%llu saturated)\n",
	       (unsigned long long)compared, (unsigned long long)mismatches,
	       (unsigned long long)saturated, (unsigned long long)narrow_sat,
	       (unsigned long long)narrow);
	if (mismatches)
		goto fail;
	/*
	 * the inputs must have exercised ordinary values as well as saturation: most outputs
	 * of the narrow (trained-like) models unsaturated (measured: 8-10% saturated at 25
	 * inputs, 17% at 31; the bound is 25%)
	 */
	if (compared < 10000 || !saturated || narrow_sat * 4 > narrow) {
		fprintf(stderr, "FAIL: weak coverage\n");
		goto fail;
	}
	nn_test__destroy(skel);
	return 0;
fail:
	nn_test__destroy(skel);
	return 1;
}
