// SPDX-License-Identifier: GPL-2.0
/*
 * BPF side of unit/model-seq: the scheduler's mlb_model_run() (src/bpf/model.bpf.h, included,
 * not copied), run on the host kernel with BPF_PROG_TEST_RUN.
 *
 * User space writes models into the `models` map and sets model_seq, model_slot, model_gen,
 * the features and bump_seq through the skeleton, then runs `run_model`: one mlb_model_run(),
 * its return into run_ret, its output into out_score and out_gen.
 *
 * MLB_MODEL_RUN_HOOK(), which model.bpf.h runs between the forward pass and the second read of
 * model_seq, adds bump_seq to model_seq there: 2 is what a swap that completes during the run
 * does to the sequence (mlb_deploy in src/learn.c), 1 what a swap that has begun does.
 * hook_runs counts its runs: a run that got past the first checks and the forward pass.
 * With nest set, the hook also runs the live model's forward pass on nest_features in the
 * scratch of context nest_ctx, as a decision does that interrupts the run on the same CPU (a
 * hard-irq wake-up during the balancer timer's softirq): the run's own context is run_ctx.
 */
#include <scx/common.bpf.h> /* as the scheduler includes it (common.bpf.h needs it) */
#include "mlb/intf.h"
#include "mlb/options.h"
#include "mlb/load.h"
#include "mlb/class.h"
#include "mlb/policy.h"
#include "mlb/nn_fixed.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * The scheduler's shared state and helpers, for READ_ONCE_U32/U64 as the scheduler defines
 * them. This program uses none of its helpers: their unused-function warnings are off here.
 */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#include "common.bpf.h"
#pragma clang diagnostic pop

u64 bump_seq;  /* added to model_seq by the hook: 0 no swap, 2 a completed swap, 1 a begun one */
u32 hook_runs; /* runs of the hook */
u32 nest;      /* in: 1 to run a nested forward pass in the hook */
u32 nest_ctx;  /* in: the nested pass's context */
s32 nest_ret;  /* out: the nested mlb_nn_forward()'s return */
struct mlb_features nest_features; /* in: the nested pass's features */

/* In the hook, `m` is mlb_model_run()'s live model (the macro expands inside it). */
#define MLB_MODEL_RUN_HOOK()                                                                       \
	do {                                                                                       \
		hook_runs++;                                                                       \
		if (bump_seq)                                                                      \
			model_seq += bump_seq;                                                     \
		if (nest) {                                                                        \
			struct mlb_nn_scratch *ns = bpf_map_lookup_elem(&nn_scratch, &nest_ctx);   \
			nest_ret =                                                                 \
			    ns ? mlb_nn_forward(m, nest_features.v, MLB_NR_FEATURES, ns) : -100;   \
		}                                                                                  \
	} while (0)
#include "model.bpf.h"

struct mlb_features features; /* in: the run's features */
u32 run_ctx;		      /* in: the run's context (0 the ops, 1 the timer) */
s32 run_ret;		      /* out: mlb_model_run()'s return */
/* In: a sentinel; out: the struct mlb_score the run left (the sentinel unless run_ret is 0). */
s32 out_score;
u32 out_gen;

/* The score on the stack, as the scheduler's caller (mlb_decide_rec) keeps it. */
SEC("syscall")
int run_model(void *ctx)
{
	struct mlb_score sc = {.score = out_score, .gen = out_gen};

	run_ret = mlb_model_run(&features, &sc, run_ctx);
	out_score = sc.score;
	out_gen = sc.gen;
	return 0;
}
