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
 * Number format ("MLB packed Q", model format version 2):
 *   - Activations are integers with |a| <= MLB_NN_ACT_MAX = 2^15 - 1 (saturated), each layer
 *     with its own number of fraction bits: the normalised inputs have MLB_NN_IN_FRAC (Q4.11,
 *     +-16.0), layer l's outputs have layer[l].out_frac, chosen by the quantizer from the
 *     range the layer reaches on the training data.
 *   - Weights of layer l are integers with w_frac fraction bits, and for every unit the sum
 *     of |w| over its inputs is at most MLB_NN_ROW_L1_MAX = 2^15. Biases are integers in the
 *     scale of the products (in_frac + w_frac fraction bits), |b| <= MLB_NN_B_MAX = 2^30.
 *   - So a unit's sum S = b + sum_i w[i] * x[i] satisfies |S| < 2^30 + 2^15 * 2^15 = 2^31,
 *     for ANY input, and this at every partial sum: it is an exact s32 quantity.
 *   - Two units share one s64 multiply: units 2p and 2p + 1 of a layer are stored as one
 *     word per input, W = w[2p+1][i] * 2^32 + w[2p][i], and their biases likewise. Then
 *     sum_i x[i] * W[i] + B = S[2p+1] * 2^32 + S[2p] exactly (no s64 overflow: the high part
 *     is below 2^31 * 2^32), and since |S[2p]| < 2^31 the low 32 bits, sign-extended, are
 *     S[2p], and (acc - S[2p]) >> 32 is S[2p+1]. Half the multiplies, half the loads.
 *   - A unit's output is y = sat(rshift_round(S, shift)) with shift = in_frac + w_frac -
 *     out_frac >= 0, then max(y, 0) on hidden layers.
 *   - The outputs (last layer, out_frac <= 16) are handed out in Q15.16 (y * 2^(16 - out_frac)),
 *     so a score is a logit in the same unit whatever the model's scales.
 * The loader (src/ml/model.c, mlb_nn_validate()) enforces every bound on every model.
 *
 * Rounding, rshift_round(v, s): to nearest, ties toward +infinity: (v + 2^(s-1)) >> s, an
 * arithmetic shift (gcc and clang both define >> of a negative value as arithmetic; BPF has ARSH).
 *
 * Feature normalisation, per input i, stored in the model as integers:
 *   v = clamp(feature[i], lo, hi)
 *   x = sat(rshift_round((v - offset) * mult, shift))      (Q4.11)
 * which is x = (v - offset) * mult / 2^shift in real numbers, i.e. (v - offset) / std when
 * mult / 2^shift = 2^11 / std. |v - offset| <= MLB_NN_SPAN_MAX (2^26) and
 * 0 <= mult <= MLB_NN_MULT_MAX (2^31 - 1) keep the product below 2^57.
 *
 * Speed: about 1.6 BPF instructions per multiply-add (one load of x per input for four
 * words, then load, multiply, add per word); a compiler barrier per input keeps clang from
 * reordering the loads into register spills (BPF has ten registers).
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

/* Scores (the outputs handed out) are Q15.16: 1.0 is MLB_NN_ONE. */
#define MLB_NN_FRAC_BITS 16
#define MLB_NN_ONE	 (1 << MLB_NN_FRAC_BITS)
/* Saturation bound of every activation and normalised input. */
#define MLB_NN_ACT_MAX ((1 << 15) - 1)
/* Fraction bits of the normalised inputs: Q4.11, up to +-16 standard deviations. */
#define MLB_NN_IN_FRAC 11
/* Bounds of a layer's scales: w_frac <= MLB_NN_WFRAC_MAX, out_frac <= MLB_NN_OUT_FRAC_MAX
 * (<= MLB_NN_FRAC_BITS for the output layer), shift = in_frac + w_frac - out_frac >= 0. */
#define MLB_NN_WFRAC_MAX    30
#define MLB_NN_OUT_FRAC_MAX 24
/* Per unit: sum of |w| <= MLB_NN_ROW_L1_MAX and |b| <= MLB_NN_B_MAX (see the top). */
#define MLB_NN_ROW_L1_MAX (1 << 15)
#define MLB_NN_B_MAX	  (1 << 30)
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
#define MLB_NN_PAIRS	  (MLB_NN_WIDTH / 2) /* packed unit pairs of a layer */
/* Inner products read inputs four at a time; weights past n_in are zero. */
#define MLB_NN_STEP 4
/* Pairs computed together by mlb_nn_quad(): four accumulators fit BPF's registers. */
#define MLB_NN_QUAD 4

/* Model magic in the in-memory struct ("MLBN"), checked by the loader and the scheduler. */
#define MLB_NN_MAGIC 0x4e424c4d

/*
 * One linear layer: out[j] = act(b[j] + sum_{i < n_in} w[j][i] * in[i]) for j < n_out,
 * stored as packed pairs (see the top; mlb_nn_weight() and mlb_nn_set_weight() read and
 * write single values). Units past n_out and inputs past n_in have zero weights and biases
 * (the loader checks it), so the inner products may read whole steps and pairs.
 */
struct mlb_nn_layer {
	u32 n_in;	     /* inputs, 1..MLB_NN_WIDTH */
	u32 n_out;	     /* outputs, 1..MLB_NN_WIDTH (MLB_NN_MAX_OUT for the last layer) */
	u32 w_frac;	     /* fraction bits of w, 0..MLB_NN_WFRAC_MAX */
	u32 out_frac;	     /* fraction bits of the outputs, 0..MLB_NN_OUT_FRAC_MAX */
	u32 shift;	     /* in_frac + w_frac - out_frac: the rounding shift of a unit's sum */
	u32 relu;	     /* 1: ReLU (hidden layers), 0: linear (output layer) */
	s64 b[MLB_NN_PAIRS]; /* packed biases: b[p] = B[2p+1] * 2^32 + B[2p] */
	s64 w[MLB_NN_PAIRS][MLB_NN_WIDTH]; /* packed weights: w[p][i], likewise */
};

/*
 * Normalisation of one input feature (see the top of this file): s32 values (as in the model
 * file) kept in s64 slots, so BPF needs no sign extension per load.
 */
struct mlb_nn_norm {
	s64 lo, hi; /* clamp range, within the feature's documented range */
	s64 offset; /* subtracted first, lo <= offset <= hi */
	s64 mult;   /* 0..MLB_NN_MULT_MAX */
	u64 shift;  /* 0..MLB_NN_SHIFT_MAX */
	s64 half;   /* derived: mlb_nn_half(shift), the rounding constant (not in the file) */
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
 * Activations of one forward pass, in s64 slots (BPF ISA v3 has no sign-extending load, and
 * they are multiplied by s64 words): rows 0 and 1 are the hidden layers' ping-pong buffers,
 * row MLB_NN_OUT_ROW the outputs (row[2][0] is the migrate score, a Q15.16 logit). Whole
 * rows, so every layer writes to room of the same size.
 */
#define MLB_NN_OUT_ROW 2
struct mlb_nn_scratch {
	s64 row[3][MLB_NN_WIDTH];
};

MLB_ASSERT(sizeof(struct mlb_nn_layer) == 24 + 8 * MLB_NN_PAIRS + 8 * MLB_NN_PAIRS * MLB_NN_WIDTH,
	   "nn layer layout");
MLB_ASSERT(sizeof(struct mlb_nn_norm) == 48, "nn norm layout");
MLB_ASSERT(sizeof(struct mlb_nn_model) ==
	       16 + 48 * MLB_NN_MAX_IN + MLB_NN_MAX_LAYERS * sizeof(struct mlb_nn_layer),
	   "nn model layout");
MLB_ASSERT(sizeof(struct mlb_nn_model) % 8 == 0, "nn model is 8-byte aligned");
MLB_ASSERT(sizeof(struct mlb_nn_scratch) == 8 * 3 * MLB_NN_WIDTH, "nn scratch layout");
MLB_ASSERT(MLB_NN_WIDTH >= MLB_NN_MAX_IN && MLB_NN_WIDTH >= MLB_NN_MAX_HIDDEN &&
	       MLB_NN_WIDTH >= MLB_NN_MAX_OUT,
	   "the row stride holds every layer");
MLB_ASSERT(MLB_NN_WIDTH % MLB_NN_STEP == 0 && MLB_NN_PAIRS % MLB_NN_QUAD == 0,
	   "rows are whole steps, layers whole quads");
MLB_ASSERT(MLB_NN_STEP == 4 && MLB_NN_QUAD == 4, "mlb_nn_quad() is written out for 4 x 4");
MLB_ASSERT(MLB_NR_FEATURES <= MLB_NN_MAX_IN, "every feature is an input");
/* The packing argument above: |S| < 2^31, so the low half of a pair never carries. */
MLB_ASSERT((s64)MLB_NN_B_MAX + (s64)MLB_NN_ROW_L1_MAX * MLB_NN_ACT_MAX < ((s64)1 << 31),
	   "a unit's sum fits 32 bits");
MLB_ASSERT(MLB_NN_IN_FRAC <= MLB_NN_OUT_FRAC_MAX && MLB_NN_FRAC_BITS <= MLB_NN_OUT_FRAC_MAX,
	   "input and score formats are layer formats");
MLB_ASSERT((s64)MLB_NN_ACT_MAX << MLB_NN_FRAC_BITS <= 0x7fffffff, "a score fits s32");
MLB_ASSERT(26 + 31 < 63, "s64 normalisation headroom");
#ifndef __bpf__
MLB_ASSERT((-3 >> 1) == -2, "arithmetic right shift of negative values");
MLB_ASSERT((s32)0xffffffffu == -1, "u32 to s32 conversion wraps (gcc defines it)");
#endif

/*
 * mlb_nn_half - 2^(@s - 1), or 0 when @s is 0 (@s masked to 6 bits): what rounding adds
 * before an arithmetic shift by @s, so (v + half) >> s is v / 2^s rounded to nearest, ties
 * toward +infinity (no branch: the verifier has one path).
 */
static __always_inline s64 mlb_nn_half(u32 s)
{
	return (s64)(((u64)1 << (s & 63)) >> 1);
}

/* mlb_nn_sat - @v saturated to [-MLB_NN_ACT_MAX, MLB_NN_ACT_MAX]. */
static __always_inline s64 mlb_nn_sat(s64 v)
{
	if (v > MLB_NN_ACT_MAX)
		return MLB_NN_ACT_MAX;
	if (v < -MLB_NN_ACT_MAX)
		return -MLB_NN_ACT_MAX;
	return v;
}

/*
 * mlb_nn_normalise - feature value @v of input @n in Q4.11 (clamp, offset, scale, saturate).
 * Any @v is fine; @n must pass mlb_nn_validate() (its bounds keep every step below 2^58).
 */
static __always_inline s64 mlb_nn_normalise(const struct mlb_nn_norm *n, s32 v)
{
	s64 x = v;

	if (x < n->lo)
		x = n->lo;
	if (x > n->hi)
		x = n->hi;
	/* rshift_round (see the top) with the model's precomputed rounding constant */
	return mlb_nn_sat(((x - n->offset) * n->mult + n->half) >> (n->shift & 63));
}

/*
 * mlb_nn_pack - the packed word of the pair (@lo: unit 2p, @hi: unit 2p + 1), i.e.
 * hi * 2^32 + lo, for s32 @lo and @hi; computed modulo 2^64 (u64) so no step is undefined
 * (gcc and clang convert an out-of-range u64 to s64 modulo 2^64).
 * mlb_nn_unpack_lo/hi - the inverse: the two s32 halves of a word @v = hi * 2^32 + lo, again
 * modulo 2^64, so any s32 pair round-trips, -2^31 included.
 */
static __always_inline s64 mlb_nn_pack(s64 lo, s64 hi)
{
	return (s64)(((u64)hi << 32) + (u64)lo);
}

static __always_inline s64 mlb_nn_unpack_lo(s64 v)
{
	return (s32)(u32)v;
}

static __always_inline s64 mlb_nn_unpack_hi(s64 v)
{
	return (s64)((u64)v - (u64)mlb_nn_unpack_lo(v)) >> 32;
}

/* mlb_nn_weight / mlb_nn_bias - weight [@j][@i] / bias @j of @l (indices within bounds). */
static __always_inline s64 mlb_nn_weight(const struct mlb_nn_layer *l, u32 j, u32 i)
{
	s64 v = l->w[j / 2][i];

	return j & 1 ? mlb_nn_unpack_hi(v) : mlb_nn_unpack_lo(v);
}

static __always_inline s64 mlb_nn_bias(const struct mlb_nn_layer *l, u32 j)
{
	return j & 1 ? mlb_nn_unpack_hi(l->b[j / 2]) : mlb_nn_unpack_lo(l->b[j / 2]);
}

/* mlb_nn_set_weight / mlb_nn_set_bias - store @v (|v| < 2^31) into one half of a pair. */
static __always_inline void mlb_nn_set_weight(struct mlb_nn_layer *l, u32 j, u32 i, s64 v)
{
	s64 *word = &l->w[j / 2][i];

	*word = j & 1 ? mlb_nn_pack(mlb_nn_unpack_lo(*word), v)
		      : mlb_nn_pack(v, mlb_nn_unpack_hi(*word));
}

static __always_inline void mlb_nn_set_bias(struct mlb_nn_layer *l, u32 j, s64 v)
{
	s64 *word = &l->b[j / 2];

	*word = j & 1 ? mlb_nn_pack(mlb_nn_unpack_lo(*word), v)
		      : mlb_nn_pack(v, mlb_nn_unpack_hi(*word));
}

/* What every unit of one layer shares. */
struct mlb_nn_pass {
	const struct mlb_nn_layer *l;
	const s64 *in; /* defined up to round_up(l->n_in, MLB_NN_STEP) */
	s64 *out;      /* room for MLB_NN_WIDTH values */
	u32 shift;     /* l->shift & 63 */
	s64 half;      /* 2^(shift - 1), or 0: rounding */
	s64 floor;     /* lowest output: 0 with ReLU, else -MLB_NN_ACT_MAX */
};

/*
 * mlb_nn_act - the output of unit sum @acc: round (@half = mlb_nn_half(@shift)) and shift,
 * then saturate and ReLU in one clamp to [@floor, MLB_NN_ACT_MAX] (@floor 0 for ReLU layers,
 * -MLB_NN_ACT_MAX otherwise),
 * which is relu(mlb_nn_sat(rshift_round(acc, shift))). For |acc| < 2^62 (valid models:
 * < 2^31), so the addition cannot overflow.
 */
static __always_inline s64 mlb_nn_act(s64 acc, s64 half, u32 shift, s64 floor)
{
	s64 y = (acc + half) >> shift;

	if (y < floor)
		y = floor;
	if (y > MLB_NN_ACT_MAX)
		y = MLB_NN_ACT_MAX;
	return y;
}

/*
 * mlb_nn_unpair - outputs 2p and 2p + 1 from the packed sum @acc of pair @p (< MLB_NN_PAIRS).
 * The layer's constants are read into locals first: in registers, not reloaded per unit.
 */
static __always_inline void mlb_nn_unpair(const struct mlb_nn_pass *c, u32 p, s64 acc)
{
	s64 lo = mlb_nn_unpack_lo(acc), half = c->half, floor = c->floor;
	u32 shift = c->shift;
	s64 *out = c->out + 2 * p;

	out[0] = mlb_nn_act(lo, half, shift, floor);
	out[1] = mlb_nn_act((acc - lo) >> 32, half, shift, floor);
}

/*
 * mlb_nn_steps - input steps of layer @l: round_up(n_in, MLB_NN_STEP) / MLB_NN_STEP. Read
 * afresh by each quad and pair (a volatile load): in BPF the verifier then forgets, after each
 * one, which n_in its loop exit implied, and the paths of all values of n_in merge again
 * instead of multiplying quad after quad.
 */
static __always_inline u32 mlb_nn_steps(const struct mlb_nn_layer *l)
{
	return (*(const volatile u32 *)&l->n_in + MLB_NN_STEP - 1) / MLB_NN_STEP;
}

/*
 * Keep the accumulators in registers across inputs: an empty asm that "changes" them stops
 * clang from hoisting later loads above it (which spilled them to the BPF stack). Values and
 * results are unaffected; gcc gets the same barrier so both sides compile the same source.
 */
#define MLB_NN_KEEP(a, b, c, d) asm volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d))

/*
 * Make the compiler forget what it knows of @x (its value is unchanged), so that a bounds
 * check or mask right after it stays in the object. Older verifiers (6.16, 6.18) lose the
 * bounds of a value that clang spilled or derived from another register (a check on one copy,
 * an index computed from another); a check the compiler proved redundant would be dropped.
 */
#define MLB_NN_OPAQUE(x) asm volatile("" : "+r"(x))

/*
 * mlb_nn_quad - pairs @p .. @p + 3 (@p a multiple of MLB_NN_QUAD, < MLB_NN_PAIRS) of the
 * layer of @c: eight units, four s64 accumulators sharing each load of an input.
 */
static __always_inline void mlb_nn_quad(const struct mlb_nn_pass *c, u32 p)
{
	const s64 *w = c->l->w[p], *x = c->in;
	s64 a0 = c->l->b[p], a1 = c->l->b[p + 1], a2 = c->l->b[p + 2], a3 = c->l->b[p + 3], v;
	u32 n_steps = mlb_nn_steps(c->l);

/* input i: w[p + r][i] is r * MLB_NN_WIDTH words after w[p][i] */
#define MLB_NN_MAC4(i)                                                                             \
	do {                                                                                       \
		v = x[i];                                                                          \
		a0 += w[i] * v;                                                                    \
		a1 += w[MLB_NN_WIDTH + (i)] * v;                                                   \
		a2 += w[2 * MLB_NN_WIDTH + (i)] * v;                                               \
		a3 += w[3 * MLB_NN_WIDTH + (i)] * v;                                               \
		MLB_NN_KEEP(a0, a1, a2, a3);                                                       \
	} while (0)
/*
 * step k: inputs 4k .. 4k + 3. Written out for every k (a loop clang will not unroll, as its
 * exit depends on the model): constant offsets, and no loop counter taking a register.
 */
#define MLB_NN_QSTEP(k)                                                                            \
	do {                                                                                       \
		if ((k) >= n_steps)                                                                \
			goto done;                                                                 \
		MLB_NN_MAC4(4 * (k));                                                              \
		MLB_NN_MAC4(4 * (k) + 1);                                                          \
		MLB_NN_MAC4(4 * (k) + 2);                                                          \
		MLB_NN_MAC4(4 * (k) + 3);                                                          \
	} while (0)
	MLB_NN_QSTEP(0);
	MLB_NN_QSTEP(1);
	MLB_NN_QSTEP(2);
	MLB_NN_QSTEP(3);
	MLB_NN_QSTEP(4);
	MLB_NN_QSTEP(5);
	MLB_NN_QSTEP(6);
	MLB_NN_QSTEP(7);
#undef MLB_NN_QSTEP
#undef MLB_NN_MAC4
done:
	/* one pair after the other: computing all eight at once spills to the stack */
	mlb_nn_unpair(c, p, a0);
	asm volatile("" : "+r"(a1), "+r"(a2), "+r"(a3));
	mlb_nn_unpair(c, p + 1, a1);
	asm volatile("" : "+r"(a2), "+r"(a3));
	mlb_nn_unpair(c, p + 2, a2);
	asm volatile("" : "+r"(a3));
	mlb_nn_unpair(c, p + 3, a3);
}
MLB_ASSERT(MLB_NN_WIDTH / MLB_NN_STEP == 8, "mlb_nn_quad() and mlb_nn_pair() write out 8 steps");

/* mlb_nn_pair - pair @p (< MLB_NN_PAIRS) alone, for the pairs left after the quads. */
static __always_inline void mlb_nn_pair(const struct mlb_nn_pass *c, u32 p)
{
	const s64 *w = c->l->w[p], *x = c->in;
	s64 a = c->l->b[p];
	u32 n_steps = mlb_nn_steps(c->l);

#define MLB_NN_PSTEP(k)                                                                            \
	do {                                                                                       \
		if ((k) >= n_steps)                                                                \
			goto done;                                                                 \
		a += w[4 * (k)] * x[4 * (k)] + w[4 * (k) + 1] * x[4 * (k) + 1] +                   \
		     w[4 * (k) + 2] * x[4 * (k) + 2] + w[4 * (k) + 3] * x[4 * (k) + 3];            \
	} while (0)
	MLB_NN_PSTEP(0);
	MLB_NN_PSTEP(1);
	MLB_NN_PSTEP(2);
	MLB_NN_PSTEP(3);
	MLB_NN_PSTEP(4);
	MLB_NN_PSTEP(5);
	MLB_NN_PSTEP(6);
	MLB_NN_PSTEP(7);
#undef MLB_NN_PSTEP
done:
	mlb_nn_unpair(c, p, a);
}

#ifdef __bpf__
/*
 * A global BPF function: the verifier checks it once, on its own, for any arguments (so its
 * cost does not grow with call sites or model shapes), and calls to it are direct calls.
 */
#define MLB_NN_GLOBAL __attribute__((noinline))
#else
#define MLB_NN_GLOBAL static inline
#endif

/*
 * mlb_nn_dense - layer @l from row @src of @s into row @dst (rows masked into bounds; @dst ==
 * MLB_NN_OUT_ROW for the output layer): out[j] for j < l->n_out, then zeros up to the next
 * multiple of MLB_NN_STEP (what the next layer reads). Row @src must hold defined values up to
 * round_up(l->n_in, MLB_NN_STEP).
 * Returns -1 if a pointer is NULL or l->n_in, l->n_out is out of bounds (nothing written;
 * the output layer has at most MLB_NN_MAX_OUT units), else 0.
 */
MLB_NN_GLOBAL int mlb_nn_dense(const struct mlb_nn_layer *l, struct mlb_nn_scratch *s, u32 src,
			       u32 dst)
{
	struct mlb_nn_pass c;
	u32 n_in, n_out, n_pairs, q, p, j;

	if (!l || !s)
		return -1;
	dst = dst >= MLB_NN_OUT_ROW ? MLB_NN_OUT_ROW : dst;
	n_in = l->n_in;
	n_out = l->n_out;
	if (n_in < 1 || n_in > MLB_NN_WIDTH || n_out < 1 ||
	    n_out > (dst == MLB_NN_OUT_ROW ? MLB_NN_MAX_OUT : MLB_NN_WIDTH))
		return -1;
	c.l = l;
	c.in = s->row[src & 1];
	c.out = s->row[dst];
	c.shift = l->shift & 63;
	c.half = mlb_nn_half(c.shift);
	c.floor = l->relu ? 0 : -MLB_NN_ACT_MAX;
	n_pairs = (n_out + 1) / 2;
	for (q = 0; q < MLB_NN_PAIRS / MLB_NN_QUAD; q++) {
		if ((q + 1) * MLB_NN_QUAD > n_pairs)
			break;
		mlb_nn_quad(&c, q * MLB_NN_QUAD);
	}
	for (p = q * MLB_NN_QUAD, j = 0; j < MLB_NN_QUAD - 1; j++, p++) {
		if (p >= n_pairs || p >= MLB_NN_PAIRS)
			break;
		mlb_nn_pair(&c, p);
	}
	/* pairs wrote 2 * n_pairs units; the next layer reads whole steps */
	for (j = 2 * n_pairs; j < MLB_NN_WIDTH; j++) {
		u32 k = j;

		if (j % MLB_NN_STEP == 0)
			break;
		MLB_NN_OPAQUE(k);
		c.out[k & (MLB_NN_WIDTH - 1)] = 0; /* k < MLB_NN_WIDTH: the mask is for 6.16 */
	}
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
 * @s: scratch; its contents on entry do not matter. On success mlb_nn_output(@s, k) for
 *     k < m->n_out are the outputs, s32 values in Q15.16, output 0 being the migrate score (a
 *     logit: > 0 means migrate), also mlb_nn_score(@s).
 * Returns 0, or -1 (outputs unspecified) when @nr_x or the model's shape is out of bounds.
 */
static __always_inline int mlb_nn_forward(const struct mlb_nn_model *m, const s32 *x, u32 nr_x,
					  struct mlb_nn_scratch *s)
{
	u32 n_layers = m->n_layers, n_out = m->n_out, i, l, up, last_l;
	u32 n_pad = (nr_x + MLB_NN_STEP - 1) & ~(MLB_NN_STEP - 1);
	const struct mlb_nn_layer *last;

	if (nr_x != m->n_in || nr_x > MLB_NN_MAX_IN || n_layers < 1 ||
	    n_layers > MLB_NN_MAX_LAYERS || n_out < 1 || n_out > MLB_NN_MAX_OUT)
		return -1;

		/* nr_x is a constant at BPF call sites: unrolled there, straight-line code */
#ifdef __clang__
#pragma clang loop unroll(full)
#endif
	for (i = 0; i < nr_x; i++)
		s->row[0][i] = mlb_nn_normalise(&m->norm[i], x[i]);
	for (; i < n_pad; i++)
		s->row[0][i] = 0;

	/* Hidden layers ping-pong between rows 0 and 1; the output layer writes the out row. */
	for (l = 0; l + 1 < MLB_NN_MAX_LAYERS; l++) {
		if (l + 1 >= n_layers)
			break;
		if (mlb_nn_dense(&m->layer[l], s, l & 1, (l + 1) & 1))
			return -1;
	}
	/* the output layer's index, checked again where it is used (see MLB_NN_OPAQUE) */
	last_l = n_layers - 1;
	MLB_NN_OPAQUE(last_l);
	if (last_l >= MLB_NN_MAX_LAYERS)
		return -1;
	last = &m->layer[last_l];
	if (last->n_out != n_out || mlb_nn_dense(last, s, last_l & 1, MLB_NN_OUT_ROW))
		return -1;
	/* the outputs in Q15.16 (out_frac <= 16 in a valid model; masked for the verifier) */
	up = (MLB_NN_FRAC_BITS - last->out_frac) & 31;
	for (i = 0; i < MLB_NN_MAX_OUT; i++)
		s->row[MLB_NN_OUT_ROW][i] = s->row[MLB_NN_OUT_ROW][i] * ((s64)1 << up);
	return 0;
}

/* mlb_nn_output - output @k of the last mlb_nn_forward() on @s, an s32 in Q15.16. */
static __always_inline s32 mlb_nn_output(const struct mlb_nn_scratch *s, u32 k)
{
	return (s32)s->row[MLB_NN_OUT_ROW][k & (MLB_NN_WIDTH - 1)];
}

/* mlb_nn_score - the migrate score (output 0) of the last mlb_nn_forward() on @s. */
static __always_inline s32 mlb_nn_score(const struct mlb_nn_scratch *s)
{
	return (s32)s->row[MLB_NN_OUT_ROW][0];
}

/*
 * mlb_nn_saving - the score of the last mlb_nn_forward() on @s for a model with @n_out
 * outputs: for the wait model (two outputs: the task's predicted wait if it stays, and if it
 * moves, ms in Q15.16) their difference, output 0 - output 1, the predicted saving of the
 * move, saturated to s32; for a one-output model, output 0.
 */
static __always_inline s32 mlb_nn_saving(const struct mlb_nn_scratch *s, u32 n_out)
{
	s64 d = s->row[MLB_NN_OUT_ROW][0];

	if (n_out < 2)
		return (s32)d;
	d -= s->row[MLB_NN_OUT_ROW][1];
	if (d > 0x7fffffff)
		d = 0x7fffffff;
	if (d < -0x7fffffff)
		d = -0x7fffffff;
	return (s32)d;
}

#endif /* __MLB_NN_FIXED_H */
