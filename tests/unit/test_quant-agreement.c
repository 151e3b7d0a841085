// SPDX-License-Identifier: GPL-2.0
/*
 * unit/quant-agreement: the quantized network decides like the float one.
 *
 * A 25-16-8-1 network trained on synthetic scheduler decisions is quantized; on held-out
 * samples (a separate random stream, not seen in training or scaling) its decisions must agree
 * with the float network's on >= MLB_TRAIN_MIN_AGREEMENT (99.5%) of them, its scores be within
 * 0.02 (logit units) of the float ones, and its accuracy within 0.5% of the float accuracy.
 * (The packed format keeps activations to 16 bits and weights to about 12 fraction bits: the
 * worst score error measured is about 0.011, a probability error under 0.3%.)
 * The quantizer must leave the float network unchanged, and the whole pipeline (mlb_train_model)
 * must pass its own gate and record what it measured.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mlb/features.h"
#include "ml/train.h"

#define NT	20000
#define NH	5000
#define MAX_ERR 0.02

int main(void)
{
	const u32 d = MLB_NR_FEATURES;
	const int hidden[2] = {16, 8};
	struct mlb_dataset train = {}, held = {};
	struct mlb_nn_norm norm[MLB_NR_FEATURES];
	s32 lo[MLB_NR_FEATURES], hi[MLB_NR_FEATURES];
	struct mlp_train_opts o = {
	    .epochs = 15, .batch = 64, .lr = 3e-3, .class_w = {1.0, 1.0}, .patience = 5, .seed = 9};
	struct mlp_train_stats st;
	struct mlb_quant_report rep;
	struct mlb_metrics mf, mq;
	struct mlb_train_opts to;
	struct mlb_train_report tr;
	struct mlb_nn_model *nn = malloc(sizeof(*nn));
	struct mlb_model *model = malloc(sizeof(*model));
	double *xf = malloc(sizeof(double) * NT * d), *xh = malloc(sizeof(double) * NH * d);
	double *before = malloc(sizeof(double) * NH), *qs = malloc(sizeof(double) * NH);
	double *fs = malloc(sizeof(double) * NH), drift = 0.0;
	double *ty = malloc(sizeof(double) * NT);
	struct mlp net;
	char err[256];
	int fail = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!nn || !model || !xf || !xh || !before || !qs || !fs || !ty ||
	    mlb_synth(&train, NT, 3, 0.02) || mlb_synth(&held, NH, 4, 0.02))
		return 1;
	for (u32 i = 0; i < d; i++) {
		lo[i] = mlb_feature_descs[i].min;
		hi[i] = mlb_feature_descs[i].max;
	}
	mlb_norm_fit(train.x, NT, d, lo, hi, norm);
	for (size_t k = 0; k < NT; k++)
		mlb_norm_apply(norm, d, train.x + k * d, xf + k * d);
	for (size_t k = 0; k < NH; k++)
		mlb_norm_apply(norm, d, held.x + k * d, xh + k * d);

	for (size_t k = 0; k < NT; k++)
		ty[k] = train.y[k];
	/* the last 20% of the training stream is the early-stopping validation set */
	if (mlp_init(&net, d, hidden, 2, 9) ||
	    mlp_train(&net, xf, ty, NULL, NT * 4 / 5, xf + NT * 4 / 5 * d, ty + NT * 4 / 5, NULL,
		      NT / 5, &o, &st))
		return 1;
	for (size_t k = 0; k < NH; k++)
		before[k] = mlp_forward(&net, xh + k * d, NULL);

	if (mlb_quantize(&net, norm, d, xf, NT * 4 / 5, nn, &rep, err, sizeof(err))) {
		fprintf(stderr, "FAIL: quantize: %s\n", err);
		return 1;
	}
	if (mlb_nn_validate(nn, err, sizeof(err))) {
		fprintf(stderr, "FAIL: the quantizer made an invalid network: %s\n", err);
		return 1;
	}
	mlb_quant_compare(&net, nn, d, held.x, xh, NH, &rep, qs, fs);
	for (size_t k = 0; k < NH; k++)
		drift = fmax(drift, fabs(fs[k] - before[k]) / fmax(1.0, fabs(before[k])));
	if (mlb_metrics_compute(fs, held.y, NH, &mf) || mlb_metrics_compute(qs, held.y, NH, &mq))
		return 1;

	printf("scales: w_frac %u %u %u, out_frac %u %u %u, peaks %.1f %.1f %.1f\n", rep.w_frac[0],
	       rep.w_frac[1], rep.w_frac[2], rep.out_frac[0], rep.out_frac[1], rep.out_frac[2],
	       rep.max_act[0], rep.max_act[1], rep.max_act[2]);
	mlb_metrics_print(stdout, "held-out float", &mf);
	mlb_metrics_print(stdout, "held-out quantized", &mq);
	printf("held-out agreement %.4f%%, max score error %.6f, float drift %.3g\n",
	       100.0 * rep.agreement, rep.max_err, drift);
	if (rep.n != NH || rep.agreement < MLB_TRAIN_MIN_AGREEMENT) {
		fprintf(stderr, "FAIL: agreement %.4f below %.4f\n", rep.agreement,
			MLB_TRAIN_MIN_AGREEMENT);
		fail = 1;
	}
	if (rep.max_err > MAX_ERR) {
		fprintf(stderr, "FAIL: max score error %.6f above %.3f\n", rep.max_err, MAX_ERR);
		fail = 1;
	}
	if (fabs(mq.accuracy - mf.accuracy) > 0.005 || mf.accuracy < 0.9) {
		fprintf(stderr, "FAIL: accuracy float %.4f quantized %.4f\n", mf.accuracy,
			mq.accuracy);
		fail = 1;
	}
	if (drift > 1e-9) {
		fprintf(stderr, "FAIL: the quantizer changed the float network (%.3g)\n", drift);
		fail = 1;
	}

	/* the gate refuses below the threshold, with a reason */
	err[0] = 0;
	if (mlb_train_gate(0.994, MLB_TRAIN_MIN_AGREEMENT, err, sizeof(err)) != -ERANGE ||
	    !strstr(err, "threshold") || mlb_train_gate(0.995, 0.995, err, sizeof(err)) ||
	    mlb_train_gate(1.0, 0.995, err, sizeof(err))) {
		fprintf(stderr, "FAIL: agreement gate\n");
		fail = 1;
	}

	/* the pipeline: gate passed, metadata consistent with its report */
	mlb_train_defaults(&to);
	to.label = "label"; /* synth data: 0/1 labels */
	to.mlp.epochs = 10;
	if (mlb_train_model(&train, &to, model, &tr, err, sizeof(err))) {
		fprintf(stderr, "FAIL: mlb_train_model: %s\n", err);
		fail = 1;
	} else {
		mlb_train_report_print(stdout, &tr);
		if (tr.quant.agreement < to.min_agreement ||
		    model->meta.agree_ppm != (u32)llround(tr.quant.agreement * MLB_PPM) ||
		    model->meta.n_train + model->meta.n_val != NT ||
		    mlb_model_validate(model, err, sizeof(err))) {
			fprintf(stderr, "FAIL: pipeline report/metadata mismatch\n");
			fail = 1;
		}
	}

	mlp_free(&net);
	mlb_dataset_free(&train);
	mlb_dataset_free(&held);
	free(nn);
	free(model);
	free(xf);
	free(xh);
	free(before);
	free(qs);
	free(fs);
	free(ty);
	return fail;
}
