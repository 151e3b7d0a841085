/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_mlb: the fixed-point forward pass of the migration network.
 *
 * One header, two compilers: clang builds it for BPF (the scheduler's decision point) and gcc
 * for user space (the trainer's quantizer, the model tool, the tests). Only integer arithmetic
 * whose result C defines identically on both sides is used, so the same model and the same
 * features give bit-identical outputs in the kernel and in user space.
 *
 * Network: a multilayer perceptron of MLB_NN_MAX_LAYERS linear layers at most (up to two
 * hidden layers with ReLU, then a linear output layer). Sizes come from the model, bounded by
 * compile-time maxima so every loop has a constant bound (the verifier's requirement) and
 * breaks as soon as it is past the model's size.
 *
 * Number format ("MLB Q15.16"):
 *   - Activations, normalised inputs, biases and outputs are s32 in Q15.16: the real value is
 *     v / MLB_NN_ONE with MLB_NN_ONE = 1 << MLB_NN_FRAC_BITS = 65536. They are saturated to
 *     [-MLB_NN_ACT_MAX, MLB_NN_ACT_MAX] (about +-16384.0), which leaves one bit of headroom
 *     below the s32 limits.
 *   - Weights are s32 in Q(31-f).f where f = layer->w_frac <= MLB_NN_WFRAC_MAX is chosen per
 *     layer by the quantizer (the larger the layer's weights, the fewer fraction bits), with
 *     |w| <= MLB_NN_W_MAX.
 *   - A layer output is acc = (b << f) + sum_i w[j][i] * x[i], an s64 in Q.(16+f); it is
 *     rounded back to Q15.16 by mlb_nn_rshift_round(acc, f) and saturated.
 *   - Overflow cannot happen for any input: |x| <= 2^30, |w| <= 2^23, so one product is below
 *     2^53 and 32 of them plus the bias (below 2^31 << 24 = 2^55) stay below 2^59 < 2^63.
 *     The loader (src/ml/model.c, mlb_nn_validate()) enforces these bounds on every model.
 *
 * Rounding: round to nearest, ties toward +infinity: (v + 2^(s-1)) >> s with an arithmetic
 * shift (gcc and clang both define >> of a negative value as arithmetic; BPF has ARSH).
 *
 * Feature normalisation, per input i, stored in the model as integers:
 *   v = clamp(feature[i], lo, hi)
 *   x = sat(rshift_round((v - offset) * mult, shift))      (Q15.16)
 * which is x = (v - offset) * mult / 2^shift in real numbers, i.e. (v - offset) / std when
 * mult / 2^shift = 65536 / std. |v - offset| <= MLB_NN_SPAN_MAX (2^26) and
 * 0 <= mult <= MLB_NN_MULT_MAX (2^31 - 1) keep the product below 2^57.
 *
 * Memory: the model is a flat, fixed-size struct without pointers (it lives in a BPF array map
 * value); the activations live in struct mlb_nn_scratch (a per-CPU map value in BPF), so the
 * forward pass uses a few dozen bytes of BPF stack.
 */
#ifndef __MLB_NN_FIXED_H
#define __MLB_NN_FIXED_H

#include "intf.h"
#ifdef __bpf__
#include <bpf/bpf_helpers.h> /* bpf_loop() */
#endif

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif

/* Q15.16 activations: 1.0 is MLB_NN_ONE. */
#define MLB_NN_FRAC_BITS 16
#define MLB_NN_ONE	 (1 << MLB_NN_FRAC_BITS)
/* Saturation bound of every activation, input and output (2^30 - 1, about 16384.0). */
#define MLB_NN_ACT_MAX ((1 << 30) - 1)
/* Weights: at most MLB_NN_WFRAC_MAX fraction bits and |w| <= MLB_NN_W_MAX (2^23). */
#define MLB_NN_WFRAC_MAX 24
#define MLB_NN_W_MAX	 (1 << 23)
/* Normalisation bounds: hi - lo <= MLB_NN_SPAN_MAX, 0 <= mult <= MLB_NN_MULT_MAX, shift. */
#define MLB_NN_SPAN_MAX	 (1 << 26)
#define MLB_NN_MULT_MAX	 0x7fffffff
#define MLB_NN_SHIFT_MAX 62

/* Compile-time maxima of the network's shape. */
#define MLB_NN_MAX_IN	  32 /* inputs (features) */
#define MLB_NN_MAX_HIDDEN 32 /* units of a hidden layer */
#define MLB_NN_MAX_OUT	  4  /* outputs; output 0 is the migrate score */
#define MLB_NN_MAX_LAYERS 3  /* linear layers: two hidden + output */
#define MLB_NN_WIDTH	  32 /* row stride of weights and activations: max of the above */
/* Inner products run in chunks of MLB_NN_CHUNK inputs; weights past n_in are zero. */
#define MLB_NN_CHUNK 8

/* Model magic in the in-memory struct ("MLBN"), checked by the loader and the scheduler. */
#define MLB_NN_MAGIC 0x4e424c4d

/*
 * One linear layer: out[j] = act(b[j] + sum_{i < n_in} w[j][i] * in[i]) for j < n_out.
 * Entries of w and b past n_in / n_out are zero (the loader checks it), so the chunked inner
 * product may read up to the next multiple of MLB_NN_CHUNK.
 */
struct mlb_nn_layer {
	u32 n_in;	     /* inputs, 1..MLB_NN_WIDTH */
	u32 n_out;	     /* outputs, 1..MLB_NN_WIDTH (MLB_NN_MAX_OUT for the last layer) */
	u32 w_frac;	     /* fraction bits of w, 0..MLB_NN_WFRAC_MAX */
	u32 relu;	     /* 1: ReLU (hidden layers), 0: linear (output layer) */
	s32 b[MLB_NN_WIDTH]; /* bias, Q15.16 */
	/*
	 * w[out][in], Q(31-w_frac).w_frac: s32 values (|w| <= MLB_NN_W_MAX) kept sign-extended
	 * in s64 slots, because BPF ISA v3 has no sign-extending load and two extra shifts per
	 * product are a third of the inner loop.
	 */
	s64 w[MLB_NN_WIDTH][MLB_NN_WIDTH];
};

/* Normalisation of one input feature (see the top of this file). */
struct mlb_nn_norm {
	s32 lo, hi; /* clamp range, the feature's documented range */
	s32 offset; /* subtracted first, lo <= offset <= hi */
	s32 mult;   /* 0..MLB_NN_MULT_MAX */
	u32 shift;  /* 0..MLB_NN_SHIFT_MAX */
};

/* The whole network as the scheduler keeps it in a map value. */
struct mlb_nn_model {
	u32 magic;    /* MLB_NN_MAGIC */
	u32 n_in;     /* inputs: MLB_NR_FEATURES for the scheduler's models */
	u32 n_layers; /* linear layers, 1..MLB_NN_MAX_LAYERS; the last one is the output */
	u32 n_out;    /* outputs, 1..MLB_NN_MAX_OUT; equals layer[n_layers - 1].n_out */
	struct mlb_nn_norm norm[MLB_NN_MAX_IN];
	struct mlb_nn_layer layer[MLB_NN_MAX_LAYERS];
};

/*
 * Activations of one forward pass: two ping-pong buffers plus the outputs. Values are s32
 * Q15.16, kept sign-extended in s64 slots for the same reason as the weights.
 */
struct mlb_nn_scratch {
	s64 act[2][MLB_NN_WIDTH];
	/* Q15.16; out[0] is the migrate score (a logit), out[1..n_out) further outputs. The
	 * buffer is a full row (not MLB_NN_MAX_OUT) so that every layer writes to room of the
	 * same size, which lets the verifier check mlb_nn_units() once. */
	s64 out[MLB_NN_WIDTH];
};

MLB_ASSERT(sizeof(struct mlb_nn_layer) == 16 + 4 * MLB_NN_WIDTH + 8 * MLB_NN_WIDTH * MLB_NN_WIDTH,
	   "nn layer layout");
MLB_ASSERT(sizeof(struct mlb_nn_norm) == 20, "nn norm layout");
MLB_ASSERT(sizeof(struct mlb_nn_model) ==
	       16 + 20 * MLB_NN_MAX_IN + MLB_NN_MAX_LAYERS * sizeof(struct mlb_nn_layer),
	   "nn model layout");
MLB_ASSERT(sizeof(struct mlb_nn_model) % 8 == 0, "nn model is 8-byte aligned");
MLB_ASSERT(sizeof(struct mlb_nn_scratch) == 8 * 3 * MLB_NN_WIDTH, "nn scratch layout");
MLB_ASSERT(MLB_NN_WIDTH >= MLB_NN_MAX_IN && MLB_NN_WIDTH >= MLB_NN_MAX_HIDDEN &&
	       MLB_NN_WIDTH >= MLB_NN_MAX_OUT,
	   "the row stride holds every layer");
MLB_ASSERT(MLB_NN_WIDTH % MLB_NN_CHUNK == 0, "rows are whole chunks");
MLB_ASSERT((MLB_NN_WIDTH & (MLB_NN_WIDTH - 1)) == 0, "row indices can be masked");
MLB_ASSERT(MLB_NR_FEATURES <= MLB_NN_MAX_IN, "every feature is an input");
/* The overflow argument above: 32 products + the shifted bias stay below 2^63. */
MLB_ASSERT(30 + 23 + 5 + 1 < 63 && 31 + MLB_NN_WFRAC_MAX < 62, "s64 accumulator headroom");
MLB_ASSERT(26 + 31 < 63, "s64 normalisation headroom");
#ifndef __bpf__
MLB_ASSERT((-3 >> 1) == -2, "arithmetic right shift of negative values");
#endif

/*
 * mlb_nn_rshift_round - v / 2^s rounded to nearest, ties toward +infinity.
 * @v: a value with |v| < 2^62; @s: 0..63 (masked to 6 bits).
 */
static __always_inline s64 mlb_nn_rshift_round(s64 v, u32 s)
{
	/* half = 2^(s-1), or 0 when s == 0: no branch, so the verifier has one path */
	s64 half = (s64)(((u64)1 << (s & 63)) >> 1);

	return (v + half) >> (s & 63);
}

/* mlb_nn_sat - @v saturated to [-MLB_NN_ACT_MAX, MLB_NN_ACT_MAX]. */
static __always_inline s32 mlb_nn_sat(s64 v)
{
	if (v > MLB_NN_ACT_MAX)
		return MLB_NN_ACT_MAX;
	if (v < -MLB_NN_ACT_MAX)
		return -MLB_NN_ACT_MAX;
	return (s32)v;
}

/*
 * mlb_nn_normalise - feature value @v of input @n in Q15.16 (clamp, offset, scale, saturate).
 * Any @v is fine; @n must pass mlb_nn_validate() (its bounds keep every step below 2^58).
 */
static __always_inline s32 mlb_nn_normalise(const struct mlb_nn_norm *n, s32 v)
{
	if (v < n->lo)
		v = n->lo;
	if (v > n->hi)
		v = n->hi;
	return mlb_nn_sat(mlb_nn_rshift_round(((s64)v - n->offset) * n->mult, n->shift));
}

/* What one layer's units share; the per-unit function reads it (a bpf_loop() context). */
struct mlb_nn_layer_ctx {
	const struct mlb_nn_layer *l;
	const s64 *in; /* defined up to round_up(l->n_in, MLB_NN_CHUNK) */
	s64 *out;      /* room for MLB_NN_WIDTH values */
	u32 n_chunks;  /* round_up(l->n_in, MLB_NN_CHUNK) / MLB_NN_CHUNK, <= MLB_NN_WIDTH / 8 */
};

/* mlb_nn_act - the activation of accumulator @acc (Q.(16+f)): round to Q15.16, saturate, ReLU. */
static __always_inline s64 mlb_nn_act(s64 acc, u32 f, u32 relu)
{
	s32 y = mlb_nn_sat(mlb_nn_rshift_round(acc, f));

	if (relu && y < 0)
		y = 0;
	return y;
}

/*
 * mlb_nn_quad - outputs @j .. @j + 3 (@j a multiple of 4, < MLB_NN_WIDTH) of layer @l:
 * out[u] = act(b[u] + w[u] . in), reading @n_chunks chunks of @x; @f is l->w_frac.
 *
 * Units past l->n_out are computed too: their weights and bias are zero in a valid model, so
 * they come out 0, which is the padding the next layer's chunks need (and no branch on n_out
 * leaves the verifier fewer paths). The four units share the loads of @x: about 3.25 BPF
 * instructions per product instead of 4 (measured: 25-16-8-1 in ~460 ns instead of ~500).
 */
static __always_inline void mlb_nn_quad(const struct mlb_nn_layer *l, const s64 *x, s64 *out, u32 j,
					u32 n_chunks, u32 f, u32 relu)
{
	const s64 *w = l->w[j];
	s64 a0 = (s64)l->b[j] * ((s64)1 << f), a1 = (s64)l->b[j + 1] * ((s64)1 << f);
	s64 a2 = (s64)l->b[j + 2] * ((s64)1 << f), a3 = (s64)l->b[j + 3] * ((s64)1 << f);
	u32 k, i;

	for (k = 0; k < MLB_NN_WIDTH / MLB_NN_CHUNK; k++) {
		if (k >= n_chunks)
			break;
		for (i = 0; i < MLB_NN_CHUNK; i++) {
			s64 xi = x[k * MLB_NN_CHUNK + i];
			u32 c = k * MLB_NN_CHUNK + i;

			a0 += w[c] * xi;
			a1 += w[MLB_NN_WIDTH + c] * xi;
			a2 += w[2 * MLB_NN_WIDTH + c] * xi;
			a3 += w[3 * MLB_NN_WIDTH + c] * xi;
		}
	}
	out[j] = mlb_nn_act(a0, f, relu);
	out[j + 1] = mlb_nn_act(a1, f, relu);
	out[j + 2] = mlb_nn_act(a2, f, relu);
	out[j + 3] = mlb_nn_act(a3, f, relu);
}

/*
 * Units computed per mlb_nn_units() call (one mlb_nn_quad()): amortises the call. Eight
 * separate units per call took the verifier past its 1M-instruction budget.
 */
#define MLB_NN_GROUP 4
MLB_ASSERT(MLB_NN_WIDTH % MLB_NN_GROUP == 0 && MLB_NN_CHUNK % MLB_NN_GROUP == 0,
	   "groups tile rows and chunks");
MLB_ASSERT(MLB_NN_GROUP == 4, "a group is one mlb_nn_quad()");

/*
 * mlb_nn_units - units MLB_NN_GROUP * @g ... MLB_NN_GROUP * @g + MLB_NN_GROUP - 1 of the layer
 * of @data (a struct mlb_nn_layer_ctx), see mlb_nn_quad().
 * Returns 0 (bpf_loop(): go on), or 1 when the group is out of bounds (stop, nothing done).
 *
 * This is the whole arithmetic of a layer. In BPF, bpf_loop() iterates it over the groups, so
 * the verifier checks it once for any @g instead of once per unit and per model shape; in
 * user space a plain loop does. The results are the same because the function is.
 */
static long mlb_nn_units(u32 g, void *data)
{
	const struct mlb_nn_layer_ctx *c = data;
	const struct mlb_nn_layer *l = c->l;
	const s64 *in = c->in;
	s64 *out = c->out;
	u32 n_chunks = c->n_chunks, f = l->w_frac & 63, relu = l->relu;

	if (g >= MLB_NN_WIDTH / MLB_NN_GROUP)
		return 1;
	mlb_nn_quad(l, in, out, g * MLB_NN_GROUP, n_chunks, f, relu);
	return 0;
}

/*
 * mlb_nn_layer_forward - one layer: out[j] for j < l->n_out, then zeros up to the next chunk
 * (@pad: the next layer reads whole chunks) or the next group (!@pad: the output layer).
 * @in must hold defined values up to round_up(l->n_in, MLB_NN_CHUNK); @out has room for
 * MLB_NN_WIDTH values; @max_out bounds l->n_out (MLB_NN_WIDTH for hidden layers,
 * MLB_NN_MAX_OUT for the output layer). Returns -1 if l->n_in or l->n_out is out of bounds,
 * else 0.
 */
static __always_inline int mlb_nn_layer_forward(const struct mlb_nn_layer *l, const s64 *in,
						s64 *out, u32 max_out, int pad)
{
	struct mlb_nn_layer_ctx c = {.l = l, .in = in, .out = out};
	u32 n_in = l->n_in, n_out = l->n_out, n_groups, round;

	if (n_in < 1 || n_in > MLB_NN_WIDTH || n_out < 1 || n_out > max_out)
		return -1;
	c.n_chunks = (n_in + MLB_NN_CHUNK - 1) / MLB_NN_CHUNK;
	round = pad ? MLB_NN_CHUNK : MLB_NN_GROUP;
	n_groups = (n_out + round - 1) / round * (round / MLB_NN_GROUP);
#ifdef __bpf__
	bpf_loop(n_groups, mlb_nn_units, &c, 0);
#else
	for (u32 g = 0; g < n_groups; g++)
		mlb_nn_units(g, &c);
#endif
	return 0;
}

/*
 * mlb_nn_forward - run the network @m on @nr_x feature values @x.
 * @m: a model that passed mlb_nn_validate(). For any other contents every memory access
 *     still stays in bounds (indices are bounded by the compile-time maxima), but the
 *     arithmetic is only overflow-free, and the result meaningful, for valid models.
 * @x: @nr_x values, feature order of the model; @nr_x must equal m->n_in and be a
 *     compile-time constant <= MLB_NN_MAX_IN at BPF call sites (the verifier bounds reads of
 *     @x by it).
 * @s: scratch; its contents on entry do not matter. On success s->out[0..m->n_out) hold the
 *     outputs, s32 values in Q15.16, s->out[0] being the migrate score (a logit: > 0 means
 *     migrate); mlb_nn_score(@s) returns it as an s32.
 * Returns 0, or -1 (s->out untouched) when @nr_x or the model's shape is out of bounds.
 */
static __always_inline int mlb_nn_forward(const struct mlb_nn_model *m, const s32 *x, u32 nr_x,
					  struct mlb_nn_scratch *s)
{
	u32 n_layers = m->n_layers, n_out = m->n_out, i, l;
	u32 n_pad = (nr_x + MLB_NN_CHUNK - 1) & ~(MLB_NN_CHUNK - 1);
	const struct mlb_nn_layer *last;

	if (nr_x != m->n_in || nr_x > MLB_NN_MAX_IN || n_layers < 1 ||
	    n_layers > MLB_NN_MAX_LAYERS || n_out < 1 || n_out > MLB_NN_MAX_OUT)
		return -1;

	for (i = 0; i < MLB_NN_MAX_IN; i++) {
		if (i >= nr_x) {
			if (i >= n_pad)
				break;
			s->act[0][i] = 0;
			continue;
		}
		s->act[0][i] = mlb_nn_normalise(&m->norm[i], x[i]);
	}

	/* Hidden layers ping-pong between act[0] and act[1]; the output layer writes out[]. */
	for (l = 0; l + 1 < MLB_NN_MAX_LAYERS; l++) {
		if (l + 1 >= n_layers)
			break;
		if (mlb_nn_layer_forward(&m->layer[l], s->act[l & 1], s->act[(l + 1) & 1],
					 MLB_NN_WIDTH, 1))
			return -1;
	}
	/* The output layer reads act[(n_layers - 1) & 1] and writes at most MLB_NN_MAX_OUT. */
	last = &m->layer[n_layers - 1];
	if (last->n_out != n_out)
		return -1;
	return mlb_nn_layer_forward(last, s->act[(n_layers - 1) & 1], s->out, MLB_NN_MAX_OUT, 0);
}

/* mlb_nn_output - output @k of the last mlb_nn_forward() on @s, an s32 in Q15.16. */
static __always_inline s32 mlb_nn_output(const struct mlb_nn_scratch *s, u32 k)
{
	return (s32)s->out[k & (MLB_NN_WIDTH - 1)];
}

/* mlb_nn_score - the migrate score (output 0) of the last mlb_nn_forward() on @s. */
static __always_inline s32 mlb_nn_score(const struct mlb_nn_scratch *s)
{
	return (s32)s->out[0];
}

/* mlb_nn_migrate - the decision of a migrate score: migrate when the logit is positive. */
static __always_inline int mlb_nn_migrate(s32 score)
{
	return score > 0;
}

#endif /* __MLB_NN_FIXED_H */
