// SPDX-License-Identifier: GPL-2.0
/*
 * unit/model-seq: the scheduler's mlb_model_run() (src/bpf/model.bpf.h), built by clang for BPF
 * as the scheduler builds it (tests/bpf/model_seq.bpf.c) and run on the host kernel with
 * BPF_PROG_TEST_RUN, takes both branches of its sequence check:
 *   - a clean read returns 0 with the score that user space (gcc, mlb_model_score) computes
 *     for the live slot's model and the same features, bit for bit, and the live generation;
 *   - a read during which a swap completes (model_seq + 2, by the test hook between the
 *     forward pass and the second read of model_seq) or begins (model_seq + 1) returns -1 and
 *     leaves the output as it was; read again after the swap, it succeeds;
 *   - a read that starts during a swap (model_seq odd) or with no model deployed (model_gen 0),
 *     or whose live slot holds no model, or names no context, returns -1 before the forward
 *     pass;
 *   - a read interrupted by another decision's forward pass on the same CPU (the test hook
 *     runs one) keeps its own score when the two run in different contexts (the ops and the
 *     balancer timer each have their scratch); in the same context the interrupting pass
 *     replaces it, which shows that the hook reaches the scratch the read uses.
 * The models are valid networks of the scheduler's input count (mlb_model_validate), in three
 * shapes, made here from a fixed seed; the other slot always holds a different model, so a
 * read of the wrong slot gives other scores.
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
#include "mlb/features.h"
#include "ml/model.h"
#include "ml/rng.h"
#include "scx/user_exit_info_common.h" /* the skeleton's uei (the scheduler's common.bpf.h) */
#include "tests/bpf/model_seq.skel.h"

#define NR_MODELS   3
#define PER_MODEL   256 /* clean reads per model */
#define RACED_READS 8	/* reads of each raced case per model */
#define MAX_REPORT  10	/* mismatches printed per model */

/* What a failed run leaves in the output: no score or generation of a run. */
#define SENTINEL_SCORE ((s32)0x5a5a5a5a)
#define SENTINEL_GEN   0xa5a5a5a5u

static int failures;
#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "FAIL: " __VA_ARGS__);                                             \
		fputc('\n', stderr);                                                               \
		failures++;                                                                        \
	} while (0)

/* One run of mlb_model_run() in BPF: what it returned and left behind. */
struct outcome {
	int ret;       /* mlb_model_run()'s return */
	s32 score;     /* out->score, SENTINEL_SCORE if untouched */
	u32 gen;       /* out->gen, SENTINEL_GEN if untouched */
	u32 hook_runs; /* 1: it got past the first checks and the forward pass */
	u64 seq_after; /* model_seq after the run */
};

/*
 * A valid model of shape MLB_NR_FEATURES-@h1[-@h2]-1 (@h1 0: no hidden layer; @h2 0: one)
 * from @seed, scaled like a trained one (normalised inputs of a few units, |w| <= 1.0), so that
 * most scores are neither saturated nor alike.
 */
static void make_model(struct mlb_model *m, u32 h1, u32 h2, u64 seed)
{
	u32 sizes[MLB_NN_MAX_LAYERS + 1], n_layers = 0, in_frac = MLB_NN_IN_FRAC;
	struct mlb_rng r;
	char err[256];

	memset(m, 0, sizeof(*m));
	mlb_rng_seed(&r, seed);
	sizes[n_layers] = MLB_NR_FEATURES;
	if (h1)
		sizes[++n_layers] = h1;
	if (h1 && h2)
		sizes[++n_layers] = h2;
	sizes[++n_layers] = 1;
	m->nn.magic = MLB_NN_MAGIC;
	m->nn.n_in = MLB_NR_FEATURES;
	m->nn.n_layers = n_layers;
	m->nn.n_out = 1;
	for (u32 i = 0; i < MLB_NR_FEATURES; i++) {
		const struct mlb_feature_desc *d = &mlb_feature_descs[i];
		struct mlb_nn_norm *n = &m->nn.norm[i];
		/* (v - offset) * mult / 2^shift spans about +-(0.5..1.5) over the range */
		double mult = (double)((s64)1 << (MLB_NN_IN_FRAC + 20)) /
			      ((double)d->max - d->min + 1) * 2 * (0.5 + mlb_rng_uniform(&r));

		snprintf(m->feature[i], MLB_MODEL_NAME_LEN, "%s", d->name);
		n->lo = d->min;
		n->hi = d->max;
		n->offset = d->min + (d->max - d->min) / 2;
		n->mult = mult > MLB_NN_MULT_MAX ? MLB_NN_MULT_MAX : (s64)mult;
		n->shift = 20;
		n->half = mlb_nn_half(20);
	}
	for (u32 l = 0; l < n_layers; l++) {
		struct mlb_nn_layer *ly = &m->nn.layer[l];
		int last = l + 1 == n_layers;
		s64 wmax = MLB_NN_ROW_L1_MAX / sizes[l]; /* every row's |w| sum within the bound */

		ly->n_in = sizes[l];
		ly->n_out = sizes[l + 1];
		ly->w_frac = 12;
		ly->out_frac = last ? 12 : 10;
		ly->shift = in_frac + ly->w_frac - ly->out_frac;
		ly->relu = !last;
		if (wmax > 1 << ly->w_frac)
			wmax = 1 << ly->w_frac;
		for (u32 j = 0; j < ly->n_out; j++) {
			/* biases up to +-1.0 in the products' scale */
			s64 bmax = (s64)1 << (in_frac + ly->w_frac);

			mlb_nn_set_bias(ly, j, mlb_rng_range(&r, -bmax, bmax));
			for (u32 i = 0; i < ly->n_in; i++)
				mlb_nn_set_weight(ly, j, i, mlb_rng_range(&r, -wmax, wmax));
		}
		in_frac = ly->out_frac;
	}
	snprintf(m->meta.label, MLB_MODEL_NAME_LEN, "label");
	if (mlb_model_validate(m, err, sizeof(err))) {
		fprintf(stderr, "FAIL: made an invalid model: %s\n", err);
		exit(1);
	}
}

/* Features mostly within their documented ranges, some outside (the network clamps them). */
static void random_features(struct mlb_rng *r, s32 *x)
{
	for (u32 i = 0; i < MLB_NR_FEATURES; i++) {
		const struct mlb_feature_desc *d = &mlb_feature_descs[i];

		switch (mlb_rng_below(r, 16)) {
		case 0:
			x[i] = mlb_rng_below(r, 2) ? INT_MIN : INT_MAX;
			break;
		case 1:
			x[i] = (s32)mlb_rng_range(r, (s64)d->min - 1000, (s64)d->max + 1000);
			break;
		default:
			x[i] = (s32)mlb_rng_range(r, d->min, d->max);
		}
	}
}

/* Write @nn into slot @slot of the `models` map. */
static int put_model(struct model_seq *skel, u32 slot, const struct mlb_nn_model *nn)
{
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.models), &slot, nn, BPF_ANY)) {
		FAIL("writing models[%u]: %s", slot, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * One mlb_model_run() in BPF on @x in context @ctx with model_seq @seq, model_slot @slot,
 * model_gen @gen, the hook adding @bump to model_seq and, when @nest_x is set, running the live
 * model on @nest_x in the scratch of context @nest_ctx; the output starts as the sentinel.
 * Returns 0, or -1 (FAIL printed) when BPF_PROG_TEST_RUN itself or the nested pass fails.
 */
static int run_in(struct model_seq *skel, const s32 *x, u64 seq, u32 slot, u32 gen, u64 bump,
		  u32 ctx, const s32 *nest_x, u32 nest_ctx, struct outcome *o)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct model_seq__bss *bss = skel->bss;
	int ret;

	memcpy(bss->features.v, x, sizeof(bss->features.v[0]) * MLB_NR_FEATURES);
	bss->run_ctx = ctx;
	bss->nest = nest_x != NULL;
	bss->nest_ctx = nest_ctx;
	bss->nest_ret = 12345;
	if (nest_x)
		memcpy(bss->nest_features.v, nest_x,
		       sizeof(bss->nest_features.v[0]) * MLB_NR_FEATURES);
	bss->model_seq = seq;
	bss->model_slot = slot;
	bss->model_gen = gen;
	bss->bump_seq = bump;
	bss->hook_runs = 0;
	bss->out_score = SENTINEL_SCORE;
	bss->out_gen = SENTINEL_GEN;
	bss->run_ret = 12345;
	ret = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.run_model), &opts);
	if (ret || opts.retval) {
		FAIL("BPF_PROG_TEST_RUN: ret %d retval %d errno %d", ret, opts.retval, errno);
		return -1;
	}
	*o = (struct outcome){.ret = bss->run_ret,
			      .score = bss->out_score,
			      .gen = bss->out_gen,
			      .hook_runs = bss->hook_runs,
			      .seq_after = bss->model_seq};
	if (nest_x && o->hook_runs && bss->nest_ret != 0) {
		FAIL("the nested forward pass returned %d", bss->nest_ret);
		return -1;
	}
	return 0;
}

/* run_in() in the ops' context, with no nested pass. */
static int run(struct model_seq *skel, const s32 *x, u64 seq, u32 slot, u32 gen, u64 bump,
	       struct outcome *o)
{
	return run_in(skel, x, seq, slot, gen, bump, 0, NULL, 0, o);
}

static void print_outcome(const char *what, const struct outcome *o)
{
	fprintf(stderr,
		"FAIL: %s: returned %d, score %d (sentinel %d), gen %u, hook runs %u, "
		"seq after %llu\n",
		what, o->ret, o->score, SENTINEL_SCORE, o->gen, o->hook_runs,
		(unsigned long long)o->seq_after);
	failures++;
}

/* A run that must fail: -1, the output untouched, the hook run @hook times, seq @seq_after. */
static void expect_refused(const char *what, const struct outcome *o, u32 hook, u64 seq_after)
{
	if (o->ret != -1 || o->score != SENTINEL_SCORE || o->gen != SENTINEL_GEN ||
	    o->hook_runs != hook || o->seq_after != seq_after)
		print_outcome(what, o);
}

/* A run that must succeed: 0, @score and @gen, one forward pass, the sequence unchanged. */
static void expect_read(const char *what, const struct outcome *o, s32 score, u32 gen, u64 seq)
{
	if (o->ret != 0 || o->score != score || o->gen != gen || o->hook_runs != 1 ||
	    o->seq_after != seq) {
		fprintf(stderr, "FAIL: %s: expected score %d gen %u seq %llu\n", what, score, gen,
			(unsigned long long)seq);
		print_outcome(what, o);
	}
}

int main(void)
{
	/* shapes: the trainer's default 16-8, one small hidden layer, linear */
	static const u32 shape[NR_MODELS][2] = {{16, 8}, {4, 0}, {0, 0}};
	/* per model: its slot, generation and sequence (even: no swap under way) */
	static const u32 slots[NR_MODELS] = {0, 1, 0};
	static const u32 gens[NR_MODELS] = {1, 2, 0xfffffffeu};
	static const u64 seqs[NR_MODELS] = {0, 2, 0x100000000ULL};
	static struct mlb_model models[NR_MODELS];
	static struct mlb_nn_model empty; /* no model: magic 0 */
	s32 x[MLB_NR_FEATURES];
	struct model_seq *skel;
	struct outcome o;
	struct mlb_rng r;
	u64 compared = 0, mismatches = 0, other_differs = 0, sat = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(NULL);
	/* scx/common.bpf.h's fentry probe on bpf_scx_reg needs a sched_ext kernel: not this one's
	 * business, and the host has none */
	skel = model_seq__open();
	if (skel && (bpf_program__set_autoload(skel->progs.scx_lib_init_probe, false) ||
		     model_seq__load(skel))) {
		int e = errno;

		model_seq__destroy(skel);
		skel = NULL;
		errno = e;
	}
	if (!skel) {
		int e = errno;

		if (e == EPERM || e == EACCES || e == ENOSYS || e == EOPNOTSUPP) {
			printf("BPF unavailable on this host (%s): cannot load the test program\n",
			       strerror(e));
			return 77;
		}
		fprintf(stderr, "FAIL: loading tests/bpf/model_seq.bpf.c: %s (verifier?)\n",
			strerror(e));
		return 1;
	}
	for (int k = 0; k < NR_MODELS; k++)
		make_model(&models[k], shape[k][0], shape[k][1], 1000 + k);
	mlb_rng_seed(&r, 20261206);

	/* (a) clean reads: the live slot's model, bit for bit as user space computes it */
	for (int k = 0; k < NR_MODELS; k++) {
		const struct mlb_model *m = &models[k], *other = &models[(k + 1) % NR_MODELS];
		/* a saturated score, in Q15.16 */
		s32 smax = MLB_NN_ACT_MAX
			   << (MLB_NN_FRAC_BITS - m->nn.layer[m->nn.n_layers - 1].out_frac);
		u64 model_mismatches = 0;
		s32 lo = INT_MAX, hi = INT_MIN;

		if (put_model(skel, slots[k], &m->nn) || put_model(skel, slots[k] ^ 1, &other->nn))
			goto out;
		for (int t = 0; t < PER_MODEL; t++) {
			s32 want;

			random_features(&r, x);
			want = mlb_model_score(m, x);
			if (run(skel, x, seqs[k], slots[k], gens[k], 0, &o))
				goto out;
			compared++;
			other_differs += mlb_model_score(other, x) != want;
			sat += want == smax || want == -smax;
			lo = want < lo ? want : lo;
			hi = want > hi ? want : hi;
			if (o.ret != 0 || o.score != want || o.gen != gens[k] || o.hook_runs != 1 ||
			    o.seq_after != seqs[k]) {
				mismatches++;
				if (model_mismatches++ < MAX_REPORT)
					fprintf(stderr,
						"FAIL: clean read, model %d input %d: returned %d, "
						"score %d (user space %d), gen %u (model_gen %u), "
						"hook runs %u, seq %llu -> %llu\n",
						k, t, o.ret, o.score, want, o.gen, gens[k],
						o.hook_runs, (unsigned long long)seqs[k],
						(unsigned long long)o.seq_after);
			}
		}
		printf("model %d (%u-", k, m->nn.n_in);
		for (u32 l = 0; l < m->nn.n_layers; l++)
			printf("%u%s", m->nn.layer[l].n_out, l + 1 < m->nn.n_layers ? "-" : "");
		printf(") in slot %u, gen %u, seq %llu: %d clean reads, %llu mismatches, scores "
		       "%d..%d\n",
		       slots[k], gens[k], (unsigned long long)seqs[k], PER_MODEL,
		       (unsigned long long)model_mismatches, lo, hi);
		if (lo == hi)
			FAIL("model %d: every score is %d: the comparison tests nothing", k, lo);
	}
	if (mismatches)
		FAIL("%llu of %llu clean reads differ from user space",
		     (unsigned long long)mismatches, (unsigned long long)compared);
	/* the other slot's model must answer differently, or a wrong-slot read would pass */
	if (other_differs * 2 < compared)
		FAIL("the other slot's model agrees on %llu of %llu inputs: weak test",
		     (unsigned long long)(compared - other_differs), (unsigned long long)compared);
	if (sat * 4 > compared)
		FAIL("%llu of %llu scores saturated: weak test", (unsigned long long)sat,
		     (unsigned long long)compared);

	/* (b) reads that a concurrent swap invalidates, then (c) reads refused at entry */
	for (int k = 0; k < NR_MODELS; k++) {
		const struct mlb_model *m = &models[k];
		u32 slot = slots[k], gen = gens[k];
		u64 seq = seqs[k] + 4;
		char what[128];

		if (put_model(skel, slot, &m->nn) ||
		    put_model(skel, slot ^ 1, &models[(k + 1) % NR_MODELS].nn))
			goto out;
		for (int t = 0; t < RACED_READS; t++) {
			s32 want;

			random_features(&r, x);
			want = mlb_model_score(m, x);

			/* a swap completes during the run: the answer is discarded */
			snprintf(what, sizeof(what),
				 "model %d input %d: swap completed during the run", k, t);
			if (run(skel, x, seq, slot, gen, 2, &o))
				goto out;
			expect_refused(what, &o, 1, seq + 2);
			/* read again after that swap: it counts */
			snprintf(what, sizeof(what), "model %d input %d: read after the swap", k,
				 t);
			if (run(skel, x, seq + 2, slot, gen, 0, &o))
				goto out;
			expect_read(what, &o, want, gen, seq + 2);
			/* a swap begins during the run: discarded as well */
			snprintf(what, sizeof(what), "model %d input %d: swap began during the run",
				 k, t);
			if (run(skel, x, seq, slot, gen, 1, &o))
				goto out;
			expect_refused(what, &o, 1, seq + 1);
			/* the run starts during a swap: refused before the forward pass */
			snprintf(what, sizeof(what), "model %d input %d: model_seq odd at entry", k,
				 t);
			if (run(skel, x, seq + 1, slot, gen, 0, &o))
				goto out;
			expect_refused(what, &o, 0, seq + 1);
			/* no model deployed */
			snprintf(what, sizeof(what), "model %d input %d: model_gen 0", k, t);
			if (run(skel, x, seq, slot, 0, 0, &o))
				goto out;
			expect_refused(what, &o, 0, seq);
		}
		/* the live slot holds no model (magic 0) */
		if (put_model(skel, slot, &empty))
			goto out;
		if (run(skel, x, seq, slot, gen, 0, &o))
			goto out;
		snprintf(what, sizeof(what), "model %d: live slot empty", k);
		expect_refused(what, &o, 0, seq);
		printf("model %d: %d reads each with a swap completed and begun during the run, "
		       "model_seq odd, model_gen 0; live slot empty\n",
		       k, RACED_READS);
	}

	/* (d) a read interrupted on its CPU by another decision's forward pass */
	{
		const struct mlb_model *m = &models[0];
		s32 y[MLB_NR_FEATURES];
		u32 same_replaced = 0, n = 0;
		char what[128];

		if (put_model(skel, 0, &m->nn) || put_model(skel, 1, &models[1].nn))
			goto out;
		for (int t = 0; t < RACED_READS * 4; t++) {
			u32 ctx = t & 1;
			s32 want, nest_want;

			random_features(&r, x);
			random_features(&r, y);
			want = mlb_model_score(m, x);
			nest_want = mlb_model_score(m, y);
			/* the other context's scratch: the run keeps its own score */
			snprintf(what, sizeof(what),
				 "input %d: context %u interrupted by context %u", t, ctx, ctx ^ 1);
			if (run_in(skel, x, 8, 0, 7, 0, ctx, y, ctx ^ 1, &o))
				goto out;
			expect_read(what, &o, want, 7, 8);
			/* the same scratch: the interrupting pass's score comes out instead */
			if (run_in(skel, x, 8, 0, 7, 0, ctx, y, ctx, &o))
				goto out;
			if (o.ret != 0 || o.score != nest_want) {
				snprintf(
				    what, sizeof(what),
				    "input %d: one scratch for both: expected the nested score %d",
				    t, nest_want);
				print_outcome(what, &o);
			}
			same_replaced += want != nest_want;
			n++;
		}
		if (same_replaced * 2 < n)
			FAIL(
			    "the nested pass changed only %u of %u reads in one scratch: weak test",
			    same_replaced, n);
		/* no such context: refused before the forward pass */
		if (run_in(skel, x, 8, 0, 7, 0, 2, NULL, 0, &o))
			goto out;
		expect_refused("context 2", &o, 0, 8);
		printf("%u reads interrupted by another context's forward pass kept their score "
		       "(in one scratch %u of them would not); context 2 refused\n",
		       n, same_replaced);
	}

out:
	model_seq__destroy(skel);
	if (failures) {
		fprintf(stderr, "FAIL: %d checks failed\n", failures);
		return 1;
	}
	printf("%llu clean reads equal to user space (other slot differs on %llu, %llu "
	       "saturated); every raced or refused read returned -1 with the output untouched\n",
	       (unsigned long long)compared, (unsigned long long)other_differs,
	       (unsigned long long)sat);
	return 0;
}
