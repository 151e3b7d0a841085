// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quant.h"
#include "err.h"

/* Hidden activations are rescaled to peak in [QUANT_ACT_LO, QUANT_ACT_HI) on training data. */
#define QUANT_ACT_LO  64.0
#define QUANT_ACT_HI  256.0
#define QUANT_EXP_MAX 24 /* rescaling exponents stay within +-24 */
#define NORM_MULT_MAX (1 << 30)


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
		/* x = (v - offset) * mult / 2^shift with mult / 2^shift ~ 65536 / std */
		scale = MLB_NN_ONE / sqrt(var);
		while (shift < MLB_NN_SHIFT_MAX && scale * 2.0 < NORM_MULT_MAX) {
			scale *= 2.0;
			shift++;
		}
		nm->mult = scale >= NORM_MULT_MAX ? NORM_MULT_MAX : (s32)llround(scale);
		nm->shift = shift;
	}
}

void mlb_norm_apply(const struct mlb_nn_norm *norm, u32 d, const s32 *x, double *out)
{
	const double lim = (double)MLB_NN_ACT_MAX / MLB_NN_ONE;

	for (u32 i = 0; i < d; i++) {
		const struct mlb_nn_norm *nm = &norm[i];
		double v = (double)clamp32(x[i], nm->lo, nm->hi) - nm->offset;

		v = v * nm->mult / ldexp(1.0, (int)nm->shift) / MLB_NN_ONE;
		out[i] = v > lim ? lim : v < -lim ? -lim : v;
	}
}

/* max over @n rows of |pre-activation| of layer @l of @net (after the layers before it) */
static double max_preact(const struct mlp *net, int l, const double *xf, size_t n)
{
	struct mlp_acts act;
	double m = 0.0;

	for (size_t k = 0; k < n; k++) {
		mlp_forward(net, xf + k * net->size[0], &act);
		for (int j = 0; j < net->size[l + 1]; j++)
			m = fmax(m, fabs(act.z[l][j]));
	}
	return m;
}

int mlb_quantize(struct mlp *net, const struct mlb_nn_norm *norm, u32 d, const double *xf, size_t n,
		 struct mlb_nn_model *out, struct mlb_quant_report *rep, char *err, size_t errsz)
{
	int L = net->n_layers, l;

	if ((int)d != net->size[0] || d > MLB_NN_MAX_IN || net->size[L] != 1 ||
	    L > MLB_NN_MAX_LAYERS) {
		set_err(err, errsz, "network shape does not fit the fixed-point format");
		return -ERANGE;
	}
	memset(out, 0, sizeof(*out));
	memset(rep, 0, sizeof(*rep));
	rep->n_layers = L;

	/* 1. Scales: bring each hidden layer's peak pre-activation into [64, 256). */
	for (l = 0; l < L; l++) {
		double m = max_preact(net, l, xf, n);
		int e = 0;

		if (l + 1 < L && m > 0.0) {
			while (m * ldexp(1.0, e) >= QUANT_ACT_HI && e > -QUANT_EXP_MAX)
				e--;
			while (m * ldexp(1.0, e) < QUANT_ACT_LO && e < QUANT_EXP_MAX)
				e++;
			/* relu(k z) = k relu(z) for k > 0: scale layer l by k, l + 1 by 1/k */
			for (int j = 0; j < net->size[l + 1] * net->size[l]; j++)
				net->w[l][j] = ldexp(net->w[l][j], e);
			for (int j = 0; j < net->size[l + 1]; j++)
				net->b[l][j] = ldexp(net->b[l][j], e);
			for (int j = 0; j < net->size[l + 2] * net->size[l + 1]; j++)
				net->w[l + 1][j] = ldexp(net->w[l + 1][j], -e);
			m = ldexp(m, e);
		}
		rep->act_exp[l] = e;
		rep->max_act[l] = m;
	}

	/* 2. Quantize: per layer, the most fraction bits its largest weight allows. */
	out->magic = MLB_NN_MAGIC;
	out->n_in = d;
	out->n_layers = L;
	out->n_out = 1;
	memcpy(out->norm, norm, sizeof(*norm) * d);
	for (l = 0; l < L; l++) {
		struct mlb_nn_layer *ly = &out->layer[l];
		int n_in = net->size[l], n_out = net->size[l + 1];
		double wmax = 0.0;
		int f = MLB_NN_WFRAC_MAX;

		for (int j = 0; j < n_out * n_in; j++)
			wmax = fmax(wmax, fabs(net->w[l][j]));
		while (f > 0 && wmax * ldexp(1.0, f) > MLB_NN_W_MAX)
			f--;
		if (wmax * ldexp(1.0, f) > MLB_NN_W_MAX) {
			set_err(err, errsz, "layer %d: weight %.3g too large for s32 weights", l,
				wmax);
			return -ERANGE;
		}
		ly->n_in = n_in;
		ly->n_out = n_out;
		ly->w_frac = f;
		ly->relu = l + 1 < L;
		rep->w_frac[l] = f;
		for (int j = 0; j < n_out; j++) {
			double b = net->b[l][j] * MLB_NN_ONE;

			if (fabs(b) > MLB_NN_ACT_MAX) {
				set_err(err, errsz, "layer %d: bias %.3g out of the Q15.16 range",
					l, net->b[l][j]);
				return -ERANGE;
			}
			ly->b[j] = (s32)llround(b);
			for (int i = 0; i < n_in; i++)
				ly->w[j][i] = (s32)llround(ldexp(net->w[l][j * n_in + i], f));
		}
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
		double f = mlp_forward(net, xf + k * d, NULL), q;

		if (mlb_nn_forward(nn, xi + k * d, d, &s))
			abort(); /* the caller passes a quantized, hence valid, network */
		q = mlb_nn_score(&s) / (double)MLB_NN_ONE;
		agree += mlb_nn_migrate(mlb_nn_score(&s)) == (f > 0.0);
		rep->max_err = fmax(rep->max_err, fabs(q - f));
		if (qscore)
			qscore[k] = q;
		if (fscore)
			fscore[k] = f;
	}
	rep->agreement = n ? (double)agree / n : 1.0;
}
