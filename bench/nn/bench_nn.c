// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-nn: cost of the fixed-point migration network, key=value lines on stdout.
 *
 *   train_seconds_100k_x20   the whole mlb-model train pipeline on 100,000 synthetic training
 *                            samples (plus 25,000 for validation), 20 epochs, one thread
 *   bpf_ns_per_inference     the trained 25-16-8-1 network inside BPF: one syscall program
 *                            runs BENCH_N inferences in bpf_loop(), timed by bpf_ktime_get_ns()
 *   user_ns_per_inference    the same header compiled by gcc, same inputs
 *   mismatches               BPF vs user-space scores on the benchmark inputs (must be 0)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "ml/train.h"
#include "../tests/bpf/nn_test.h"
#include "ml/nn_test.skel.h"

#define BENCH_N	   1000000 /* inferences per BPF measurement */
#define BENCH_REPS 5	   /* measurements; the fastest counts (least disturbed) */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int test_run(struct bpf_program *prog, struct nn_test_args *args)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(*args));
	int ret = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);

	if (ret || opts.retval || args->err) {
		fprintf(stderr, "bench-nn: BPF_PROG_TEST_RUN: ret %d retval %d err %d\n", ret,
			opts.retval, args->err);
		return -1;
	}
	return 0;
}

int main(void)
{
	struct mlb_dataset ds = {};
	struct mlb_train_opts o;
	struct mlb_train_report rep;
	struct mlb_model *m = malloc(sizeof(*m));
	struct mlb_nn_scratch s;
	struct nn_test *skel;
	double t0, best_bpf = 1e30, best_user = 1e30;
	volatile s64 sink = 0;
	u64 mismatches = 0;
	char err[512];

	if (!m || mlb_synth(&ds, 125000, 1, 0.02)) {
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

	libbpf_set_print(NULL);
	skel = nn_test__open_and_load();
	if (!skel) {
		fprintf(stderr, "bench-nn: cannot load the BPF program: %s\n", strerror(errno));
		return 1;
	}
	skel->bss->model = m->nn;
	for (int i = 0; i < NN_TEST_BATCH; i++) {
		memset(skel->bss->inputs[i].v, 0, sizeof(skel->bss->inputs[i].v));
		memcpy(skel->bss->inputs[i].v, ds.x + (size_t)i * MLB_NR_FEATURES,
		       sizeof(s32) * MLB_NR_FEATURES);
	}

	/* mismatches: every benchmark input, BPF vs user space */
	{
		struct nn_test_args a = {.n = NN_TEST_BATCH, .n_in = MLB_NR_FEATURES};

		if (test_run(skel->progs.run_batch, &a))
			return 1;
		for (int i = 0; i < NN_TEST_BATCH; i++) {
			if (mlb_nn_forward(&m->nn, skel->bss->inputs[i].v, MLB_NR_FEATURES, &s))
				return 1;
			mismatches += mlb_nn_score(&s) != skel->bss->outputs[i][0];
		}
	}

	for (int rep_i = 0; rep_i < BENCH_REPS; rep_i++) {
		struct nn_test_args a = {.n = BENCH_N};
		double t;

		if (test_run(skel->progs.bench, &a))
			return 1;
		if ((double)a.ns / BENCH_N < best_bpf)
			best_bpf = (double)a.ns / BENCH_N;

		t = now();
		for (int i = 0; i < BENCH_N; i++) {
			mlb_nn_forward(&m->nn, skel->bss->inputs[i % NN_TEST_BATCH].v,
				       MLB_NR_FEATURES, &s);
			sink += mlb_nn_score(&s);
		}
		t = (now() - t) * 1e9 / BENCH_N;
		if (t < best_user)
			best_user = t;
	}
	printf("network=%u-%u-%u-%u\n", m->nn.n_in, m->nn.layer[0].n_out, m->nn.layer[1].n_out,
	       m->nn.layer[2].n_out);
	printf("bpf_ns_per_inference=%.1f\n", best_bpf);
	printf("user_ns_per_inference=%.1f\n", best_user);
	printf("mismatches=%llu\n", (unsigned long long)mismatches);
	nn_test__destroy(skel);
	mlb_dataset_free(&ds);
	free(m);
	return mismatches ? 1 : 0;
}
