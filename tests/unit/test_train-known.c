// SPDX-License-Identifier: GPL-2.0
/*
 * unit/train-known: the trainer learns problems whose answer is known.
 *  - XOR of two noisy bits (not linearly separable): >= 98% on test samples.
 *  - a noisy linear rule over 10 inputs with 10% flipped labels: >= 85% against the noisy
 *    test labels (the Bayes rate is 90%) and >= 95% against the clean rule.
 *  - the same seed gives the same network, bit for bit.
 *  - regression with the Huber loss: a nonlinear function of 6 inputs whose targets carry
 *    heavy-tailed noise (5% outliers of +-40, as waits have): R^2 >= 0.9 against the clean
 *    function on test inputs, and a lower error there than the same network trained with the
 *    squared error (huber = 1e9): why the learned saving uses Huber.
 * Each problem is split three ways: training, validation (what early stopping watches, so it
 * chooses the epoch) and test (never seen by the trainer): the accuracies are measured on the
 * test set, so they are not flattered by the choice of the epoch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ml/metrics.h"
#include "ml/mlp.h"
#include "ml/rng.h"

static double accuracy(struct mlp *net, const double *x, const u8 *y, size_t n)
{
	size_t ok = 0;

	for (size_t k = 0; k < n; k++)
		ok += (mlp_forward(net, x + k * net->size[0], NULL) > 0.0) == y[k];
	return (double)ok / n;
}

static struct mlp_train_opts opts(int epochs, u64 seed)
{
	struct mlp_train_opts o = {
	    .epochs = epochs,
	    .batch = 32,
	    .lr = 5e-3,
	    .class_w = {1.0, 1.0},
	    .patience = 10,
	    .seed = seed,
	};
	return o;
}

static int xor_test(void)
{
	enum { NT = 2000, NV = 1000, NX = 1000 };
	static double x[(NT + NV + NX) * 2];
	static u8 y[NT + NV + NX];
	static double t[NT + NV + NX];
	const int hidden[1] = {16};
	struct mlp_train_opts o = opts(150, 11);

	o.patience = 25;
	struct mlp_train_stats st;
	struct mlp net;
	struct mlb_rng r;
	double acc;

	mlb_rng_seed(&r, 5);
	for (int k = 0; k < NT + NV + NX; k++) {
		int a = mlb_rng_below(&r, 2), b = mlb_rng_below(&r, 2);

		x[2 * k] = a + 0.15 * mlb_rng_normal(&r);
		x[2 * k + 1] = b + 0.15 * mlb_rng_normal(&r);
		y[k] = a ^ b;
		t[k] = y[k];
	}
	if (mlp_init(&net, 2, hidden, 1, 3) ||
	    mlp_train(&net, x, t, NULL, NT, x + 2 * NT, t + NT, NULL, NV, &o, &st))
		return 1;
	acc = accuracy(&net, x + 2 * (NT + NV), y + NT + NV, NX);
	printf("xor: test accuracy %.4f after %d epochs (best %d)\n", acc, st.epochs_run,
	       st.best_epoch);
	mlp_free(&net);
	if (acc < 0.98) {
		fprintf(stderr, "FAIL: xor accuracy %.4f < 0.98\n", acc);
		return 1;
	}
	return 0;
}

static int linear_test(void)
{
	enum { D = 10, NT = 8000, NV = 2000, NX = 2000 };
	static double x[(NT + NV + NX) * D];
	static u8 y[NT + NV + NX], clean[NT + NV + NX];
	static double t[NT + NV + NX];
	const int hidden[2] = {8, 4};
	struct mlp_train_opts o = opts(40, 12);
	struct mlp_train_stats st;
	struct mlp net, again;
	struct mlb_metrics m, mc;
	double w[D], score[NX], acc_noisy, acc_clean;
	const double *xt = x + D * (NT + NV); /* the test rows */
	const u8 *yt = y + NT + NV, *ct = clean + NT + NV;
	struct mlb_rng r;

	mlb_rng_seed(&r, 6);
	for (int i = 0; i < D; i++)
		w[i] = mlb_rng_normal(&r);
	for (int k = 0; k < NT + NV + NX; k++) {
		double s = 0.3;

		for (int i = 0; i < D; i++) {
			x[k * D + i] = mlb_rng_normal(&r);
			s += w[i] * x[k * D + i];
		}
		clean[k] = s > 0.0;
		y[k] = mlb_rng_uniform(&r) < 0.1 ? !clean[k] : clean[k];
		t[k] = y[k];
	}
	if (mlp_init(&net, D, hidden, 2, 4) ||
	    mlp_train(&net, x, t, NULL, NT, x + D * NT, t + NT, NULL, NV, &o, &st))
		return 1;
	acc_noisy = accuracy(&net, xt, yt, NX);
	acc_clean = accuracy(&net, xt, ct, NX);
	for (int k = 0; k < NX; k++)
		score[k] = mlp_forward(&net, xt + k * D, NULL);
	if (mlb_metrics_compute(score, yt, NX, &m) || mlb_metrics_compute(score, ct, NX, &mc))
		return 1;
	mlb_metrics_print(stdout, "linear rule, test", &m);
	printf("linear: accuracy %.4f (noisy labels), %.4f (clean rule), %d epochs\n", acc_noisy,
	       acc_clean, st.epochs_run);
	printf("linear: auc %.4f (noisy labels), %.4f (clean rule)\n", m.auc, mc.auc);
	if (acc_noisy < 0.85 || acc_clean < 0.95 || fabs(m.accuracy - acc_noisy) > 1e-12 ||
	    m.auc < 0.85 || mc.auc < 0.99) {
		fprintf(stderr, "FAIL: linear rule not learned well enough\n");
		mlp_free(&net);
		return 1;
	}

	/* determinism: the same seeds train the same parameters */
	if (mlp_init(&again, D, hidden, 2, 4) ||
	    mlp_train(&again, x, t, NULL, NT, x + D * NT, t + NT, NULL, NV, &o, &st))
		return 1;
	if (memcmp(net.params, again.params, sizeof(double) * net.n_params)) {
		fprintf(stderr, "FAIL: training is not deterministic\n");
		return 1;
	}
	mlp_free(&net);
	mlp_free(&again);
	return 0;
}

/*
 * The metrics' log loss against a direct evaluation of its definition: -log p for label 1
 * and -log(1 - p) for label 0, p = 1 / (1 + e^-score), with scores small enough to compute
 * it naively. The trainer's validation loss is this mean, so both must agree.
 */
static int logloss_test(void)
{
	static const double score[] = {0.0, 2.0, -3.0, 0.5, -0.25};
	static const u8 y[] = {1, 0, 0, 1, 1};
	struct mlb_metrics m;
	double want = 0.0;
	int n = (int)(sizeof(y) / sizeof(y[0]));

	for (int k = 0; k < n; k++) {
		double p = 1.0 / (1.0 + exp(-score[k]));

		want += y[k] ? -log(p) : -log(1.0 - p);
	}
	want /= n;
	if (mlb_metrics_compute(score, y, n, &m) || fabs(m.logloss - want) > 1e-12) {
		fprintf(stderr, "FAIL: logloss %.12f, by the definition %.12f\n", m.logloss, want);
		return 1;
	}
	printf("logloss: %.6f, as by the definition\n", m.logloss);
	return 0;
}

/* The regression problem: t = f(x) + noise, f nonlinear; returns f. */
static double reg_f(const double *x)
{
	return 2.0 * x[0] - fabs(x[1]) + (x[2] > 0.0 ? x[3] : 0.0) + 0.5 * x[4] * x[5];
}

/* Train on the noisy targets with Huber threshold @huber; the test RMSE against f. */
static int reg_fit(const double *x, const double *t, const double *clean, int d, int nt, int nv,
		   int nx, double huber, double *rmse, double *r2)
{
	const int hidden[2] = {16, 8};
	struct mlp_train_opts o = opts(60, 13);
	struct mlp_train_stats st;
	struct mlp net;
	struct mlb_reg_metrics m;
	double *pred = malloc(sizeof(double) * nx), mean = 0.0;

	o.huber = huber;
	o.class_w[0] = o.class_w[1] = 0.0; /* unused by a regression: must not matter */
	if (!pred || mlp_init(&net, d, hidden, 2, 5) ||
	    mlp_train(&net, x, t, NULL, nt, x + d * nt, t + nt, NULL, nv, &o, &st)) {
		free(pred);
		return 1;
	}
	for (int k = 0; k < nt; k++)
		mean += t[k] / nt;
	for (int k = 0; k < nx; k++)
		pred[k] = mlp_forward(&net, x + d * (nt + nv + k), NULL);
	mlb_reg_metrics_compute(pred, clean + nt + nv, nx, mean, &m);
	mlb_reg_metrics_print(stdout, huber < 1e6 ? "huber 1.0, test vs f" : "squared, test vs f",
			      &m);
	*rmse = m.rmse;
	*r2 = m.r2;
	free(pred);
	mlp_free(&net);
	return 0;
}

static int regression_test(void)
{
	enum { D = 6, NT = 6000, NV = 2000, NX = 2000, N = NT + NV + NX };
	static double x[N * D], t[N], clean[N];
	double rmse_h, r2_h, rmse_s, r2_s;
	struct mlb_rng r;

	mlb_rng_seed(&r, 8);
	for (int k = 0; k < N; k++) {
		for (int i = 0; i < D; i++)
			x[k * D + i] = mlb_rng_normal(&r);
		clean[k] = reg_f(x + k * D);
		t[k] = clean[k] + 0.1 * mlb_rng_normal(&r);
		if (mlb_rng_uniform(&r) < 0.05) /* a long wait nobody could predict */
			t[k] += mlb_rng_uniform(&r) < 0.5 ? 40.0 : -40.0;
	}
	if (reg_fit(x, t, clean, D, NT, NV, NX, 1.0, &rmse_h, &r2_h) ||
	    reg_fit(x, t, clean, D, NT, NV, NX, 1e9, &rmse_s, &r2_s))
		return 1;
	if (r2_h < 0.9 || rmse_h >= rmse_s) {
		fprintf(stderr,
			"FAIL: regression: huber r2 %.4f (>= 0.9 wanted), rmse %.4f vs %.4f "
			"squared\n",
			r2_h, rmse_h, rmse_s);
		return 1;
	}
	return 0;
}

int main(void)
{
	int fails;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fails = xor_test();

	fails += linear_test();
	fails += logloss_test();
	fails += regression_test();
	return fails ? 1 : 0;
}
