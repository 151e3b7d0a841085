// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-nn: cost of the fixed-point migration network, key=value lines on stdout.
 *
 *   train_seconds_100k_x20   the whole mlb-model train pipeline on 100,000 synthetic training
 *                            samples (plus 25,000 for validation), 20 epochs, one thread
 *   network                  the benchmark's network: 15-16-8-1, the shape of the reference
 *                            in-kernel MLP, trained on the first 15 scheduler features
 *   bpf_ns_per_inference     that network inside BPF: one syscall program runs BENCH_N
 *                            inferences in bpf_loop(), timed by bpf_ktime_get_ns(); the best
 *                            of BENCH_REPS runs (the least disturbed)
 *   user_ns_per_inference    the same header compiled by gcc, same inputs
 *   mismatches               BPF vs user-space outputs on every benchmark input, both networks
 *   scheduler_network, scheduler_bpf_ns_per_inference, scheduler_user_ns_per_inference
 *                            the same for the scheduler's own shape (all 25 features, 25-16-8-1)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "mlb/features.h"
#include "ml/train.h"
#include "../tests/bpf/nn_test.h"
#include "ml/nn_test.skel.h"

#define BENCH_N	   20000 /* inferences per measurement */
#define BENCH_REPS 200	 /* measurements; the fastest counts (least disturbed) */
#define SMALL_N	   20000 /* training samples of the small network */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int test_run(struct bpf_program *prog, struct nn_test_args *args)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args[0]));
	int ret = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);

	if (ret || opts.retval || args->err) {
		fprintf(stderr, "bench-nn: BPF_PROG_TEST_RUN: ret %d retval %d err %d\n", ret,
			opts.retval, args->err);
		return -1;
	}
	return 0;
}

/*
 * The 15-16-8-1 network: the first NN_BENCH_SMALL_IN features of @ds, normalised, a float
 * MLP trained for 10 epochs, quantized like mlb-model does it. Returns 0 or -1.
 */
static int small_model(const struct mlb_dataset *ds, struct mlb_nn_model *nn)
{
	const u32 d = NN_BENCH_SMALL_IN;
	const int hidden[2] = {16, 8};
	struct mlp_train_opts o = {.epochs = 10,
				   .batch = 64,
				   .lr = 3e-3,
				   .class_w = {1.0, 1.0},
				   .patience = 10,
				   .seed = 5};
	struct mlb_nn_norm norm[NN_BENCH_SMALL_IN];
	s32 lo[NN_BENCH_SMALL_IN], hi[NN_BENCH_SMALL_IN];
	s32 *xi = malloc(sizeof(s32) * SMALL_N * d);
	double *xf = malloc(sizeof(double) * SMALL_N * d);
	struct mlp_train_stats st;
	struct mlb_quant_report rep;
	struct mlp net = {};
	char err[256];
	int ret = -1;

	if (!xi || !xf || ds->n < SMALL_N)
		goto out;
	for (u32 i = 0; i < d; i++) {
		lo[i] = mlb_feature_descs[i].min;
		hi[i] = mlb_feature_descs[i].max;
	}
	for (size_t k = 0; k < SMALL_N; k++)
		memcpy(xi + k * d, ds->x + k * MLB_NR_FEATURES, sizeof(s32) * d);
	mlb_norm_fit(xi, SMALL_N, d, lo, hi, norm);
	for (size_t k = 0; k < SMALL_N; k++)
		mlb_norm_apply(norm, d, xi + k * d, xf + k * d);
	if (mlp_init(&net, d, hidden, 2, 5) ||
	    mlp_train(&net, xf, ds->y, SMALL_N * 4 / 5, xf + SMALL_N * 4 / 5 * d,
		      ds->y + SMALL_N * 4 / 5, SMALL_N / 5, &o, &st))
		goto out;
	if (mlb_quantize(&net, norm, d, xf, SMALL_N * 4 / 5, nn, &rep, err, sizeof(err))) {
		fprintf(stderr, "bench-nn: quantizing the 15-input network: %s\n", err);
		goto out;
	}
	ret = 0;
out:
	mlp_free(&net);
	free(xi);
	free(xf);
	return ret;
}

/*
 * Time @nn (@n_in inputs) in BPF and in user space on the first NN_TEST_BATCH rows of @ds;
 * add BPF-vs-user differences to *@mismatches. Returns 0 or -1.
 */
static int measure(struct nn_test *skel, const struct mlb_nn_model *nn, u32 n_in,
		   const struct mlb_dataset *ds, double *bpf_ns, double *user_ns, u64 *mismatches)
{
	struct nn_test_args a = {.n = NN_TEST_BATCH, .n_in = n_in};
	struct mlb_nn_scratch s;
	volatile s64 sink = 0;

	skel->bss->model = *nn;
	for (int i = 0; i < NN_TEST_BATCH; i++) {
		memset(skel->bss->inputs[i].v, 0, sizeof(skel->bss->inputs[i].v));
		memcpy(skel->bss->inputs[i].v, ds->x + (size_t)i * MLB_NR_FEATURES,
		       sizeof(s32) * n_in);
	}
	/* run_batch takes MLB_NR_FEATURES or MLB_NN_MAX_IN inputs, bench any of its two */
	if (n_in == MLB_NR_FEATURES) {
		if (test_run(skel->progs.run_batch, &a))
			return -1;
		for (int i = 0; i < NN_TEST_BATCH; i++) {
			if (mlb_nn_forward(nn, skel->bss->inputs[i].v, n_in, &s))
				return -1;
			*mismatches += mlb_nn_score(&s) != skel->bss->outputs[i][0];
		}
	}
	*bpf_ns = *user_ns = 1e30;
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		struct nn_test_args b = {.n = BENCH_N, .n_in = n_in};
		s64 sum = 0;
		double t;

		if (test_run(skel->progs.bench, &b))
			return -1;
		if ((double)b.ns / BENCH_N < *bpf_ns)
			*bpf_ns = (double)b.ns / BENCH_N;

		t = now();
		for (int i = 0; i < BENCH_N; i++) {
			mlb_nn_forward(nn, skel->bss->inputs[i % NN_TEST_BATCH].v, n_in, &s);
			sum += mlb_nn_score(&s);
		}
		t = (now() - t) * 1e9 / BENCH_N;
		sink += sum;
		if (t < *user_ns)
			*user_ns = t;
		/* the bench program sums the same scores: a cheap check of every inference */
		*mismatches += sum != b.sum;
	}
	return 0;
}

static void print_shape(const char *key, const struct mlb_nn_model *nn)
{
	printf("%s=%u", key, nn->n_in);
	for (u32 l = 0; l < nn->n_layers; l++)
		printf("-%u", nn->layer[l].n_out);
	printf("\n");
}

int main(void)
{
	struct mlb_dataset ds = {};
	struct mlb_train_opts o;
	struct mlb_train_report rep;
	struct mlb_model *m = malloc(sizeof(*m));
	struct mlb_nn_model *small = malloc(sizeof(*small));
	struct nn_test *skel;
	double t0, bpf_ns, user_ns, sbpf_ns, suser_ns;
	u64 mismatches = 0;
	char err[512];

	if (!m || !small || mlb_synth(&ds, 125000, 1, 0.02)) {
		fprintf(stderr, "bench-nn: out of memory\n");
		return 1;
	}
	mlb_train_defaults(&o);
	o.n_hidden = 2;
	o.hidden[0] = 16;
	o.hidden[1] = 8;
	o.val_frac = 0.2; /* 100,000 train + 25,000 validation */
	o.mlp.epochs = 20;
	o.mlp.patience = 20; /* run all 20 epochs */
	t0 = now();
	if (mlb_train_model(&ds, &o, m, &rep, err, sizeof(err))) {
		fprintf(stderr, "bench-nn: training failed: %s\n", err);
		return 1;
	}
	printf("train_seconds_100k_x20=%.2f\n", now() - t0);
	printf("train_samples=%zu\n", rep.n_train);
	printf("train_epochs=%d\n", rep.train.epochs_run);
	printf("val_accuracy_quantized=%.4f\n", rep.val_quant.accuracy);
	printf("quant_agreement=%.5f\n", rep.quant.agreement);
	if (small_model(&ds, small)) {
		fprintf(stderr, "bench-nn: cannot build the 15-16-8-1 network\n");
		return 1;
	}

	libbpf_set_print(NULL);
	skel = nn_test__open_and_load();
	if (!skel) {
		fprintf(stderr, "bench-nn: cannot load the BPF program: %s\n", strerror(errno));
		return 1;
	}
	if (measure(skel, small, NN_BENCH_SMALL_IN, &ds, &bpf_ns, &user_ns, &mismatches) ||
	    measure(skel, &m->nn, MLB_NR_FEATURES, &ds, &sbpf_ns, &suser_ns, &mismatches))
		return 1;
	print_shape("network", small);
	printf("bpf_ns_per_inference=%.1f\n", bpf_ns);
	printf("user_ns_per_inference=%.1f\n", user_ns);
	print_shape("scheduler_network", &m->nn);
	printf("scheduler_bpf_ns_per_inference=%.1f\n", sbpf_ns);
	printf("scheduler_user_ns_per_inference=%.1f\n", suser_ns);
	printf("mismatches=%llu\n", (unsigned long long)mismatches);
	nn_test__destroy(skel);
	mlb_dataset_free(&ds);
	free(small);
	free(m);
	return mismatches ? 1 : 0;
}
