// SPDX-License-Identifier: GPL-2.0
/*
 * unit/gradcheck: the analytic gradient of both losses (mlp_loss with grad), the class-weighted
 * BCE of a label and the Huber loss of a real target on two heads, each sample training the
 * head it names (targets drawn so that samples fall on both sides of the Huber threshold), matches
 * central finite differences for every parameter, on networks with 0, 1 and 2 hidden layers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "ml/mlp.h"
#include "ml/rng.h"

#define N    12 /* samples */
#define EPS  1e-6
#define TOL  1e-6 /* relative error bound ... */
#define ATOL 1e-9 /* ... above the finite differences' own rounding error */

static int check(int n_in, const int *hidden, int n_hidden, u64 seed, double huber)
{
	struct mlp_train_opts o = {.class_w = {0.7, 1.9}, .huber = huber};
	double x[N * MLP_MAX_WIDTH], *analytic, worst = 0.0;
	double y[N];
	u8 head[N];
	int outside = 0, n_out = huber > 0.0 ? 2 : 1;
	struct mlp_acts act;
	struct mlp net;
	struct mlb_rng r;
	size_t p;

	if (mlp_init_out(&net, n_in, hidden, n_hidden, n_out, seed)) {
		fprintf(stderr, "FAIL: mlp_init\n");
		return 1;
	}
	mlb_rng_seed(&r, seed * 31 + 7);
	for (int k = 0; k < N; k++) {
		for (int i = 0; i < n_in; i++)
			x[k * n_in + i] = mlb_rng_normal(&r);
		y[k] = huber > 0.0 ? 2.0 * mlb_rng_normal(&r) : mlb_rng_below(&r, 2);
		head[k] = n_out > 1 ? mlb_rng_below(&r, 2) : 0;
	}
	/* non-zero biases so every path is exercised */
	for (int l = 0; l < net.n_layers; l++)
		for (int j = 0; j < net.size[l + 1]; j++)
			net.b[l][j] = 0.1 * mlb_rng_normal(&r);

	analytic = malloc(sizeof(double) * net.n_params);
	if (!analytic)
		return 1;
	mlp_loss(&net, x, y, head, N, &o, 1);
	for (int k = 0; huber > 0.0 && k < N; k++) {
		mlp_forward(&net, x + k * n_in, &act);
		outside += fabs(act.z[net.n_layers - 1][head[k]] - y[k]) > huber;
	}
	if (huber > 0.0 && (outside == 0 || outside == N)) {
		fprintf(stderr, "FAIL: %d of %d samples beyond the Huber threshold\n", outside, N);
		return 1;
	}
	for (p = 0; p < net.n_params; p++)
		analytic[p] = net.grad[p];

	for (p = 0; p < net.n_params; p++) {
		double keep = net.params[p], lp, lm, num, rel;

		net.params[p] = keep + EPS;
		lp = mlp_loss(&net, x, y, head, N, &o, 0);
		net.params[p] = keep - EPS;
		lm = mlp_loss(&net, x, y, head, N, &o, 0);
		net.params[p] = keep;
		num = (lp - lm) / (2 * EPS);
		rel = fabs(num - analytic[p]) / fmax(1e-7, fabs(num) + fabs(analytic[p]));
		if (rel > worst)
			worst = rel;
		if (fabs(num - analytic[p]) > TOL * (fabs(num) + fabs(analytic[p])) + ATOL) {
			fprintf(stderr,
				"FAIL: shape %d/%d hidden, param %zu: analytic %.9g numeric %.9g\n",
				n_in, n_hidden, p, analytic[p], num);
			free(analytic);
			mlp_free(&net);
			return 1;
		}
	}
	printf("%s, %d inputs, %d hidden layers, %d outputs, %zu params: worst relative error "
	       "%.3g\n",
	       huber > 0.0 ? "huber" : "bce", n_in, n_hidden, n_out, net.n_params, worst);
	free(analytic);
	mlp_free(&net);
	return 0;
}

int main(void)
{
	const int h2[2] = {7, 5}, h1[1] = {9};
	int fails = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);

	for (int loss = 0; loss < 2; loss++) {
		double huber = loss ? 0.5 : 0.0;

		fails += check(6, h2, 2, 1, huber);
		fails += check(25, h2, 2, 2, huber);
		fails += check(4, h1, 1, 3, huber);
		fails += check(5, NULL, 0, 4, huber);
	}
	return fails ? 1 : 0;
}
