/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The training pipeline behind `mlb-model train`: split, normalise, train the float MLP,
 * quantize, compare, gate on agreement, fill a model with its metadata.
 */
#ifndef __MLB_ML_TRAIN_H
#define __MLB_ML_TRAIN_H

#include "data.h"
#include "metrics.h"
#include "model.h"
#include "mlp.h"
#include "quant.h"

#define MLB_TRAIN_MIN_AGREEMENT 0.995 /* default gate: quantized vs float decisions */

struct mlb_train_opts {
	int n_hidden;		   /* 0..2 hidden layers */
	int hidden[2];		   /* their sizes, 1..MLB_NN_MAX_HIDDEN */
	int auto_class_w;	   /* class weights n / (2 n_class), overriding mlp.class_w */
	double val_frac;	   /* share of samples held out for validation, (0, 1) */
	double min_agreement;	   /* refuse the model below this agreement, [0, 1] */
	const char *label;	   /* label column name, recorded in the model; the learned
				    * wait MLB_TARGET_WAIT makes it the two-output wait model */
	double huber_ms;	   /* the wait model's Huber threshold, ms (> 0) */
	struct mlp_train_opts mlp; /* epochs, batch, lr, class weights, patience, seed */
};

struct mlb_train_report {
	size_t n_train, n_val;
	struct mlp_train_stats train;
	struct mlb_metrics val_float; /* float model on the validation split */
	struct mlb_metrics val_quant; /* quantized model on the validation split */
	int regression;		      /* the wait model (two outputs): the two below are set */
	struct mlb_reg_metrics reg_float[2], reg_quant[2]; /* per output: wait if staying, if
							    * moved, ms */
	struct mlb_quant_report quant; /* scales; agreement and max error on validation */
	double train_seconds;
};

/* mlb_train_defaults - 16-8 hidden, 50 epochs, batch 64, lr 3e-3, patience 8, seed 1, the
 * wait model (MLB_TARGET_WAIT) with a Huber threshold of 1 ms. */
void mlb_train_defaults(struct mlb_train_opts *o);

/*
 * mlb_train_model - train on @ds (at least 10 samples) and fill @out with the quantized
 * model and its metadata.
 * Fills @rep as far as it got. Returns 0; -EINVAL (bad options or dataset, reason in @err);
 * -ERANGE when quantization fails or the agreement is below o->min_agreement (then @out is
 * not written); -ENOMEM.
 */
int mlb_train_model(const struct mlb_dataset *ds, const struct mlb_train_opts *o,
		    struct mlb_model *out, struct mlb_train_report *rep, char *err, size_t errsz);

/*
 * mlb_train_gate - the agreement gate: 0 when @agreement >= @min_agreement (both in [0, 1]),
 * else -ERANGE with a one-line reason in @err.
 */
int mlb_train_gate(double agreement, double min_agreement, char *err, size_t errsz);

/* mlb_train_report_print - the validation metrics, float and quantized, and the scales. */
void mlb_train_report_print(FILE *f, const struct mlb_train_report *rep);

#endif /* __MLB_ML_TRAIN_H */
