// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quant.h"
#include "err.h"

/*
 * A layer's output scale leaves this factor of headroom above the largest |pre-activation|
 * seen on the training data before MLB_NN_ACT_MAX saturates: inputs the training data did
 * not show may go further.
 */
#define QUANT_HEADROOM 2.0
#define NORM_MULT_MAX  (1 << 30)

static s32 clamp32(s32 v, s32 lo, s32 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void mlb_norm_fit(const s32 *x, size_t n, u32 d, const s32 *lo, const s32 *hi,
		  struct mlb_nn_norm *norm)
{
	for (u32 i = 0; i < d; i++) {
		struct mlb_nn_norm *nm = &norm[i];
		double sum = 0.0, sq = 0.0, mean, var, scale;
		u32 shift = 0;

		for (size_t k = 0; k < n; k++)
			sum += clamp32(x[k * d + i], lo[i], hi[i]);
		mean = n ? sum / n : 0.0;
		for (size_t k = 0; k < n; k++) {
			double dv = clamp32(x[k * d + i], lo[i], hi[i]) - mean;

			sq += dv * dv;
		}
		var = n ? sq / n : 0.0;
		memset(nm, 0, sizeof(*nm));
		nm->lo = lo[i];
		nm->hi = hi[i];
		nm->offset = clamp32((s32)llround(mean), lo[i], hi[i]);
		if (var <= 0.0)
			continue; /* constant input: mult 0, it contributes nothing */
		/* x = (v - offset) * mult / 2^shift with mult / 2^shift ~ 2^IN_FRAC / std */
		scale = (1 << MLB_NN_IN_FRAC) / sqrt(var);
		while (shift < MLB_NN_SHIFT_MAX && scale * 2.0 < NORM_MULT_MAX) {
			scale *= 2.0;
			shift++;
		}
		nm->mult = scale >= NORM_MULT_MAX ? NORM_MULT_MAX : (s32)llround(scale);
		nm->shift = shift;
		nm->half = mlb_nn_half(shift);
	}
}

void mlb_norm_apply(const struct mlb_nn_norm *norm, u32 d, const s32 *x, double *out)
{
	const double one = 1 << MLB_NN_IN_FRAC, lim = MLB_NN_ACT_MAX / one;

	for (u32 i = 0; i < d; i++) {
		const struct mlb_nn_norm *nm = &norm[i];
		double v = (double)clamp32(x[i], nm->lo, nm->hi) - nm->offset;

		v = v * nm->mult / ldexp(1.0, (int)nm->shift) / one;
		out[i] = v > lim ? lim : v < -lim ? -lim : v;
	}
}

/* peak[l]: max over the @n rows of @xf of |pre-activation| of layer @l of @net, every layer
 * in one pass over the data (the quantizer does not change @net) */
static void max_preacts(const struct mlp *net, const double *xf, size_t n, double *peak)
{
	struct mlp_acts act;

	for (int l = 0; l < net->n_layers; l++)
		peak[l] = 0.0;
	for (size_t k = 0; k < n; k++) {
		mlp_forward(net, xf + k * net->size[0], &act);
		for (int l = 0; l < net->n_layers; l++)
			for (int j = 0; j < net->size[l + 1]; j++)
				peak[l] = fmax(peak[l], fabs(act.z[l][j]));
	}
}

/*
 * Whether layer @l of @net fits the format with @f weight fraction bits when its inputs have
 * @in_frac: every unit's rounded |weights| sum to at most MLB_NN_ROW_L1_MAX and its rounded
 * bias is within MLB_NN_B_MAX.
 */
static int layer_fits(const struct mlp *net, int l, int f, int in_frac)
{
	int n_in = net->size[l], n_out = net->size[l + 1];

	for (int j = 0; j < n_out; j++) {
		double l1 = 0.0;

		for (int i = 0; i < n_in; i++)
			l1 += fabs((double)llround(ldexp(net->w[l][j * n_in + i], f)));
		if (l1 > MLB_NN_ROW_L1_MAX ||
		    fabs((double)llround(ldexp(net->b[l][j], in_frac + f))) > MLB_NN_B_MAX)
			return 0;
	}
	return 1;
}

int mlb_quantize(struct mlp *net, const struct mlb_nn_norm *norm, u32 d, const double *xf, size_t n,
		 struct mlb_nn_model *out, struct mlb_quant_report *rep, char *err, size_t errsz)
{
	int L = net->n_layers, l, in_frac = MLB_NN_IN_FRAC;
	double peaks[MLB_NN_MAX_LAYERS];

	if ((int)d != net->size[0] || d > MLB_NN_MAX_IN || net->size[L] > MLB_NN_MAX_OUT ||
	    L > MLB_NN_MAX_LAYERS) {
		set_err(err, errsz, "network shape does not fit the fixed-point format");
		return -ERANGE;
	}
	memset(out, 0, sizeof(*out));
	memset(rep, 0, sizeof(*rep));
	rep->n_layers = L;
	out->magic = MLB_NN_MAGIC;
	out->n_in = d;
	out->n_layers = L;
	out->n_out = net->size[L];
	memcpy(out->norm, norm, sizeof(*norm) * d);
	max_preacts(net, xf, n, peaks);

	for (l = 0; l < L; l++) {
		struct mlb_nn_layer *ly = &out->layer[l];
		int n_in = net->size[l], n_out = net->size[l + 1], last = l + 1 == L;
		double peak = peaks[l];
		int of = last ? MLB_NN_FRAC_BITS : MLB_NN_OUT_FRAC_MAX, f = MLB_NN_WFRAC_MAX;

		/* 1. outputs: the most fraction bits that keep the headroom below saturation */
		while (of > 0 && peak * QUANT_HEADROOM * ldexp(1.0, of) > MLB_NN_ACT_MAX)
			of--;
		/* 2. weights: the most fraction bits the row sums and the biases allow */
		while (f >= 0 && !layer_fits(net, l, f, in_frac))
			f--;
		if (f < 0) {
			set_err(err, errsz,
				"layer %d: weights or biases too large for the fixed-point format",
				l);
			return -ERANGE;
		}
		/* a unit's sum has in_frac + f fraction bits: no more in its output */
		if (of > in_frac + f)
			of = in_frac + f;
		ly->n_in = n_in;
		ly->n_out = n_out;
		ly->w_frac = f;
		ly->out_frac = of;
		ly->shift = in_frac + f - of;
		ly->relu = !last;
		for (int j = 0; j < n_out; j++) {
			mlb_nn_set_bias(ly, j, llround(ldexp(net->b[l][j], in_frac + f)));
			for (int i = 0; i < n_in; i++)
				mlb_nn_set_weight(ly, j, i,
						  llround(ldexp(net->w[l][j * n_in + i], f)));
		}
		rep->w_frac[l] = f;
		rep->out_frac[l] = of;
		rep->max_act[l] = peak;
		in_frac = of;
	}
	return 0;
}

void mlb_quant_compare(const struct mlp *net, const struct mlb_nn_model *nn, u32 d, const s32 *xi,
		       const double *xf, size_t n, struct mlb_quant_report *rep, double *qscore,
		       double *fscore)
{
	struct mlb_nn_scratch s;
	size_t agree = 0;

	rep->n = n;
	rep->max_err = 0.0;
	for (size_t k = 0; k < n; k++) {
		double f = mlp_score(net, xf + k * d), q;

		if (mlb_nn_forward(nn, xi + k * d, d, &s))
			abort(); /* the caller passes a quantized, hence valid, network */
		q = mlb_nn_saving(&s, nn->n_out) / (double)MLB_NN_ONE;
		agree += (q > 0.0) == (f > 0.0);
		rep->max_err = fmax(rep->max_err, fabs(q - f));
		if (qscore)
			qscore[k] = q;
		if (fscore)
			fscore[k] = f;
	}
	rep->agreement = n ? (double)agree / n : 1.0;
}
