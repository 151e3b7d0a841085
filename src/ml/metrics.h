/* SPDX-License-Identifier: GPL-2.0 */
/* Binary classification metrics of migrate scores (decision: score > 0), and regression
 * metrics of predicted savings. */
#ifndef __MLB_ML_METRICS_H
#define __MLB_ML_METRICS_H

#include <stddef.h>
#include <stdio.h>
#include "mlb/intf.h"

struct mlb_metrics {
	u64 n, tp, fp, tn, fn; /* confusion matrix, positive = label 1 = migrate */
	double accuracy;       /* (tp + tn) / n */
	double precision;      /* tp / (tp + fp), 0 when nothing is predicted positive */
	double recall;	       /* tp / (tp + fn), 0 when there are no positives */
	double auc;	       /* ROC AUC (ties count one half), 0.5 when a class is absent */
	double logloss;	       /* mean binary cross-entropy of sigmoid(score), the trainer's loss */
};

/*
 * mlb_metrics_compute - metrics of the @n scores @score (the decision is score > 0; the
 * log loss reads a score as a logit, as the model's output is) against the labels @y (0/1).
 * Returns 0, or -ENOMEM (then @m is zeroed).
 */
int mlb_metrics_compute(const double *score, const u8 *y, size_t n, struct mlb_metrics *m);

/* mlb_metrics_print - "TITLE: accuracy=... auc=..." then the confusion matrix, to @f. */
void mlb_metrics_print(FILE *f, const char *title, const struct mlb_metrics *m);

/* Regression metrics of predictions against real targets (the learned saving, in ms). */
struct mlb_reg_metrics {
	u64 n;
	double mae;	  /* mean |prediction - target| */
	double rmse;	  /* root mean squared error */
	double base_rmse; /* RMSE of always predicting @base (the training mean) */
	double r2;	  /* 1 - (rmse / base_rmse)^2: > 0 beats predicting the mean */
};

/* mlb_reg_metrics_compute - the metrics of @n predictions @pred for targets @t, against the
 * constant prediction @base. */
void mlb_reg_metrics_compute(const double *pred, const double *t, size_t n, double base,
			     struct mlb_reg_metrics *m);

/* mlb_reg_metrics_print - "TITLE: n=... mae=... rmse=... base_rmse=... r2=..." to @f. */
void mlb_reg_metrics_print(FILE *f, const char *title, const struct mlb_reg_metrics *m);

#endif /* __MLB_ML_METRICS_H */
