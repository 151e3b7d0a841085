// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mlb/features.h"
#include "mlb/heuristic.h"
#include "rng.h"
#include "train.h"
#include "err.h"

void mlb_train_defaults(struct mlb_train_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->n_hidden = 2;
	o->hidden[0] = 16;
	o->hidden[1] = 8;
	o->val_frac = 0.2;
	o->min_agreement = MLB_TRAIN_MIN_AGREEMENT;
	o->label = MLB_TARGET_WAIT;
	o->huber_ms = 1.0;
	o->mlp.epochs = 50;
	o->mlp.batch = 64;
	o->mlp.lr = 3e-3;
	o->mlp.class_w[0] = o->mlp.class_w[1] = 1.0;
	o->mlp.patience = 8;
	o->mlp.seed = 1;
}

static u32 ppm(double v)
{
	return (u32)llround(fmin(fmax(v, 0.0), 1.0) * MLB_PPM);
}

int mlb_train_gate(double agreement, double min_agreement, char *err, size_t errsz)
{
	if (agreement >= min_agreement)
		return 0;
	set_err(err, errsz,
		"quantized model agrees with the float one on %.3f%% of validation decisions, "
		"below the %.3f%% threshold: not written",
		100.0 * agreement, 100.0 * min_agreement);
	return -ERANGE;
}

/*
 * The wait model's validation metrics, per output: each of the @n rows (@xi raw, @xf
 * normalised, targets @t in ms, @head its action) scores the output of its action, float
 * (@net) and fixed (@nn), against the training mean of that output's targets @base. @qs and
 * @fs are scratch for n values.
 */
static void head_metrics(const struct mlp *net, const struct mlb_nn_model *nn, u32 d, const s32 *xi,
			 const double *xf, const double *t, const u8 *head, size_t n,
			 const double *base, struct mlb_train_report *rep, double *qs, double *fs)
{
	double *tt = malloc(sizeof(double) * (n ? n : 1));
	struct mlb_nn_scratch s;
	struct mlp_acts act;

	for (int h = 0; h < 2 && tt; h++) {
		size_t m = 0;

		for (size_t k = 0; k < n; k++) {
			if (head[k] != h)
				continue;
			mlp_forward(net, xf + k * d, &act);
			if (mlb_nn_forward(nn, xi + k * d, d, &s))
				abort(); /* a quantized network is valid */
			fs[m] = act.z[net->n_layers - 1][h];
			qs[m] = mlb_nn_output(&s, h) / (double)MLB_NN_ONE;
			tt[m++] = t[k];
		}
		mlb_reg_metrics_compute(fs, tt, m, base[h], &rep->reg_float[h]);
		mlb_reg_metrics_compute(qs, tt, m, base[h], &rep->reg_quant[h]);
	}
	free(tt);
}

int mlb_train_model(const struct mlb_dataset *ds, const struct mlb_train_opts *o,
		    struct mlb_model *out, struct mlb_train_report *rep, char *err, size_t errsz)
{
	const u32 d = MLB_NR_FEATURES;
	struct mlb_nn_model *nn = NULL;
	struct mlp_train_opts mo = o->mlp;
	struct mlb_nn_norm norm[MLB_NR_FEATURES];
	s32 lo[MLB_NR_FEATURES], hi[MLB_NR_FEATURES];
	size_t n = ds->n, nv, nt, *perm = NULL;
	s32 *xi = NULL;		       /* [n][d] raw features, train rows then validation rows */
	double *xf = NULL;	       /* [n][d] normalised */
	double *qs = NULL, *fs = NULL; /* [nv] validation scores, fixed and float */
	u8 *y = NULL;		       /* [n] labels: target > 0 */
	double *t = NULL;	       /* [n] targets: ms for the saving, else the 0/1 label */
	bool reg = o->label && !strcmp(o->label, MLB_TARGET_WAIT);
	u8 *head = NULL; /* [n] the action of the row: its output (the wait model) */
	double hbase[2] = {}, hn[2] = {};
	struct mlp net = {};
	struct mlb_rng rng;
	struct timespec t0, t1;
	u64 pos = 0;
	int ret;

	memset(rep, 0, sizeof(*rep));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (n < 10 || !(o->val_frac > 0.0 && o->val_frac < 1.0) || o->mlp.epochs < 1 ||
	    o->mlp.batch < 1 || !(o->mlp.lr > 0.0) || o->mlp.patience < 1 ||
	    !(o->min_agreement >= 0.0 && o->min_agreement <= 1.0) || !o->label ||
	    strlen(o->label) >= MLB_MODEL_NAME_LEN || (reg && !(o->huber_ms > 0.0))) {
		set_err(err, errsz,
			n < 10 ? "need at least 10 samples, have %zu"
			       : "bad training options (%zu samples)",
			n);
		return -EINVAL;
	}
	nv = (size_t)llround(n * o->val_frac);
	if (nv < 1)
		nv = 1;
	if (nv >= n)
		nv = n - 1;
	nt = n - nv;

	perm = malloc(sizeof(*perm) * n);
	xi = malloc(sizeof(*xi) * n * d);
	xf = malloc(sizeof(*xf) * n * d);
	y = malloc(n);
	t = malloc(sizeof(*t) * n);
	head = calloc(n, 1);
	qs = malloc(sizeof(*qs) * nv);
	fs = malloc(sizeof(*fs) * nv);
	nn = malloc(sizeof(*nn));
	if (!perm || !xi || !xf || !y || !t || !head || !qs || !fs || !nn) {
		set_err(err, errsz, "out of memory");
		ret = -ENOMEM;
		goto out;
	}

	/* Split: a seeded shuffle, the first nt rows train, the last nv validate. */
	mlb_rng_seed(&rng, o->mlp.seed ^ 0x73706c6974ULL);
	for (size_t k = 0; k < n; k++)
		perm[k] = k;
	for (size_t k = n; k > 1; k--) {
		size_t r = mlb_rng_below(&rng, k), t = perm[k - 1];

		perm[k - 1] = perm[r];
		perm[r] = t;
	}
	for (size_t k = 0; k < n; k++) {
		memcpy(xi + k * d, ds->x + perm[k] * d, sizeof(s32) * d);
		y[k] = ds->y[perm[k]];
		t[k] = reg ? (ds->t[perm[k]] < MLB_WAIT_MAX_US ? ds->t[perm[k]] : MLB_WAIT_MAX_US) /
				 1000.0
			   : y[k];
		head[k] = reg ? ds->a[perm[k]] : 0;
		pos += k < nt && y[k];
		if (k < nt) {
			hbase[head[k]] += t[k];
			hn[head[k]]++;
		}
	}
	if (reg && (hn[0] < 1 || hn[1] < 1)) {
		set_err(err, errsz, "the training split has no decision to %s",
			hn[0] < 1 ? "stay" : "move");
		ret = -EINVAL;
		goto out;
	}
	for (int h = 0; h < 2; h++)
		hbase[h] = hn[h] ? hbase[h] / hn[h] : 0.0;
	mo.huber = reg ? o->huber_ms : 0.0;

	/* Class weights: "auto" balances the classes of the training split. */
	if (o->auto_class_w && reg) {
		set_err(err, errsz, "class weights apply to 0/1 labels, not to %s", o->label);
		ret = -EINVAL;
		goto out;
	}
	if (o->auto_class_w) {
		if (!pos || pos == nt) {
			set_err(err, errsz, "the training split has a single class");
			ret = -EINVAL;
			goto out;
		}
		mo.class_w[0] = nt / (2.0 * (nt - pos));
		mo.class_w[1] = nt / (2.0 * pos);
	}
	if (!(mo.class_w[0] > 0.0) || !(mo.class_w[1] > 0.0)) {
		set_err(err, errsz, "class weights must be positive");
		ret = -EINVAL;
		goto out;
	}

	/* Normalisation from the training split only, then the float view of every row. */
	for (u32 i = 0; i < d; i++) {
		lo[i] = mlb_feature_descs[i].min;
		hi[i] = mlb_feature_descs[i].max;
	}
	mlb_norm_fit(xi, nt, d, lo, hi, norm);
	for (size_t k = 0; k < n; k++)
		mlb_norm_apply(norm, d, xi + k * d, xf + k * d);

	ret = mlp_init_out(&net, d, o->hidden, o->n_hidden, reg ? 2 : 1, o->mlp.seed);
	if (ret) {
		set_err(err, errsz, ret == -EINVAL ? "bad hidden layer sizes" : "out of memory");
		goto out;
	}
	ret =
	    mlp_train(&net, xf, t, head, nt, xf + nt * d, t + nt, head + nt, nv, &mo, &rep->train);
	if (ret) {
		set_err(err, errsz, "out of memory");
		goto out;
	}
	rep->n_train = nt;
	rep->n_val = nv;

	ret = mlb_quantize(&net, norm, d, xf, nt, nn, &rep->quant, err, errsz);
	if (ret)
		goto out;
	mlb_quant_compare(&net, nn, d, xi + nt * d, xf + nt * d, nv, &rep->quant, qs, fs);
	/* a label's metrics mean nothing for waits (left zero): the wait's are per output */
	if (!reg && (mlb_metrics_compute(fs, y + nt, nv, &rep->val_float) ||
		     mlb_metrics_compute(qs, y + nt, nv, &rep->val_quant))) {
		set_err(err, errsz, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	rep->regression = reg;
	if (reg)
		head_metrics(&net, nn, d, xi + nt * d, xf + nt * d, t + nt, head + nt, nv, hbase,
			     rep, qs, fs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rep->train_seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	ret = mlb_train_gate(rep->quant.agreement, o->min_agreement, err, errsz);
	if (ret)
		goto out;

	memset(out, 0, sizeof(*out));
	out->nn = *nn;
	for (u32 i = 0; i < d; i++)
		snprintf(out->feature[i], MLB_MODEL_NAME_LEN, "%s", mlb_feature_descs[i].name);
	out->meta.created = (u64)time(NULL);
	out->meta.n_train = nt;
	out->meta.n_val = nv;
	out->meta.seed = o->mlp.seed;
	out->meta.epochs = rep->train.epochs_run;
	out->meta.acc_ppm = ppm(rep->val_float.accuracy);
	out->meta.prec_ppm = ppm(rep->val_float.precision);
	out->meta.rec_ppm = ppm(rep->val_float.recall);
	out->meta.auc_ppm = ppm(rep->val_float.auc);
	out->meta.q_acc_ppm = ppm(rep->val_quant.accuracy);
	out->meta.q_prec_ppm = ppm(rep->val_quant.precision);
	out->meta.q_rec_ppm = ppm(rep->val_quant.recall);
	out->meta.q_auc_ppm = ppm(rep->val_quant.auc);
	out->meta.agree_ppm = ppm(rep->quant.agreement);
	out->meta.max_err = (u32)fmin(llround(rep->quant.max_err * MLB_NN_ONE), 0x7fffffff);
	snprintf(out->meta.label, MLB_MODEL_NAME_LEN, "%s", o->label);
	ret = mlb_model_validate(out, err, errsz);
	if (ret) /* the pipeline built something the loader would refuse: a bug */
		abort();
out:
	mlp_free(&net);
	free(perm);
	free(xi);
	free(xf);
	free(y);
	free(t);
	free(head);
	free(qs);
	free(fs);
	free(nn);
	return ret;
}

void mlb_train_report_print(FILE *f, const struct mlb_train_report *rep)
{
	const struct mlb_quant_report *q = &rep->quant;

	fprintf(f,
		"samples: %zu train, %zu validation; %d epochs run, best epoch %d "
		"(validation loss %.5f)\n",
		rep->n_train, rep->n_val, rep->train.epochs_run, rep->train.best_epoch,
		rep->train.best_val_loss);
	if (!rep->regression) {
		mlb_metrics_print(f, "validation float", &rep->val_float);
		mlb_metrics_print(f, "validation quantized", &rep->val_quant);
	}
	for (int h = 0; rep->regression && h < 2; h++) {
		char title[64];

		snprintf(title, sizeof(title), "validation float wait if %s",
			 h ? "moved" : "staying");
		mlb_reg_metrics_print(f, title, &rep->reg_float[h]);
		snprintf(title, sizeof(title), "validation quantized wait if %s",
			 h ? "moved" : "staying");
		mlb_reg_metrics_print(f, title, &rep->reg_quant[h]);
	}
	fprintf(f,
		"quantization: agreement=%.4f%% max_score_error=%.6f scales:", 100.0 * q->agreement,
		q->max_err);
	for (int l = 0; l < q->n_layers; l++)
		fprintf(f, " L%d(w_frac=%u out_frac=%u peak=%.1f)", l, q->w_frac[l], q->out_frac[l],
			q->max_act[l]);
	fprintf(f, "\n");
}
