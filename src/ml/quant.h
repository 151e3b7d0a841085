/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From a float MLP to the fixed-point network of nn_fixed.h: integer feature normalisation,
 * scale selection, quantization and the float-vs-fixed comparison.
 */
#ifndef __MLB_ML_QUANT_H
#define __MLB_ML_QUANT_H

#include <stddef.h>
#include "mlb/nn_fixed.h"
#include "mlp.h"

/*
 * mlb_norm_fit - per-input normalisation from @n rows of @d (<= MLB_NN_MAX_IN) integer
 * features @x (row-major), each clamped to [lo[i], hi[i]] (hi - lo <= MLB_NN_SPAN_MAX):
 * offset = the rounded mean, mult / 2^shift = 2^MLB_NN_IN_FRAC / standard deviation (mult as large
 * as fits 2^30 for precision; mult = 0 for a constant input). Writes norm[0..d).
 */
void mlb_norm_fit(const s32 *x, size_t n, u32 d, const s32 *lo, const s32 *hi,
		  struct mlb_nn_norm *norm);

/*
 * mlb_norm_apply - the real value of the fixed-point normalisation of nn_fixed.h for the @d
 * features @x: clamp((clamp(v) - offset) * mult / 2^shift / 2^IN_FRAC, +-ACT_MAX / 2^IN_FRAC),
 * before rounding. The float model trains on these, so float and fixed see the same inputs.
 */
void mlb_norm_apply(const struct mlb_nn_norm *norm, u32 d, const s32 *x, double *out);

struct mlb_quant_report {
	int n_layers;			   /* layers of the quantized network */
	u32 w_frac[MLB_NN_MAX_LAYERS];	   /* chosen weight fraction bits per layer */
	u32 out_frac[MLB_NN_MAX_LAYERS];   /* chosen output fraction bits per layer */
	double max_act[MLB_NN_MAX_LAYERS]; /* max |pre-activation| on the training data */
	size_t n;			   /* compared samples */
	double agreement;		   /* fraction of the same decisions, float vs fixed */
	double max_err;			   /* max |fixed - float| logit */
};

/*
 * mlb_quantize - quantize @net (1 output, size[0] == @d inputs) with normalisation @norm into
 * @out (format of nn_fixed.h). Per layer, in order: the output fraction bits are the most
 * that keep 2x the largest |pre-activation| on the @n training rows @xf (normalised floats)
 * below saturation (at most 16 for the output layer); the weight fraction bits are the most
 * for which every unit's rounded |weights| sum to at most MLB_NN_ROW_L1_MAX and its bias fits
 * MLB_NN_B_MAX. Weights and biases are rounded to nearest. @net is not changed. Fills
 * @rep's w_frac, out_frac and max_act.
 * Returns 0, or -ERANGE with a one-line reason in @err when a layer cannot be represented;
 * @out is then unspecified.
 */
int mlb_quantize(struct mlp *net, const struct mlb_nn_norm *norm, u32 d, const double *xf, size_t n,
		 struct mlb_nn_model *out, struct mlb_quant_report *rep, char *err, size_t errsz);

/*
 * mlb_quant_compare - run @n rows through the float @net (inputs @xf, normalised) and the
 * fixed-point @nn (inputs @xi, raw integers, @d per row); fill rep->n, agreement and max_err,
 * and when not NULL write the fixed logits (as doubles) to @qscore and float ones to @fscore.
 */
void mlb_quant_compare(const struct mlp *net, const struct mlb_nn_model *nn, u32 d, const s32 *xi,
		       const double *xf, size_t n, struct mlb_quant_report *rep, double *qscore,
		       double *fscore);

#endif /* __MLB_ML_QUANT_H */
