/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.bpf.h - the deployed model on the BPF side. It owns the two model slots (the `models`
 * map), the sequence, slot and generation under which user space publishes a model
 * (model_seq, model_slot, model_gen: src/learn.c, mlb_deploy), the per-CPU scratch of the
 * forward pass (`nn_scratch`), struct mlb_score, and mlb_model_run(), which scores a
 * decision's features with the live model. No callback.
 *
 * Included by seam.bpf.h, the model's one user in the scheduler, and by
 * tests/bpf/model_seq.bpf.c, which runs mlb_model_run() on the host (unit/model-seq). Needs
 * vmlinux.h, bpf_helpers.h, mlb/intf.h, mlb/nn_fixed.h and READ_ONCE_U32/U64 (common.bpf.h).
 *
 * The scratch is per CPU and per context, like the seam's decision scratch (dec_scratch): [0]
 * for the ops, [1] for the balancer timer. The timer runs in a softirq, and a hard interrupt
 * that lands during its forward pass can wake a task, whose ops.select_cpu decides on the same
 * CPU: with one scratch, that decision's activations overwrote the timer's, and the timer
 * recorded (and acted on) a score that was not its features'.
 *
 * MLB_MODEL_RUN_HOOK() runs in mlb_model_run() between the forward pass and the second read of
 * model_seq. It is empty in the scheduler; a test defines it before including this header to
 * act as a swap that happens while the model runs.
 */
#ifndef __MLB_MODEL_BPF_H
#define __MLB_MODEL_BPF_H

#ifndef MLB_MODEL_RUN_HOOK
#define MLB_MODEL_RUN_HOOK()                                                                       \
	do {                                                                                       \
	} while (0)
#endif

/*
 * The deployed model, written by user space only: models[model_slot] is the live one and
 * model_gen its generation (0: none). A swap writes the other slot, then publishes it; around
 * that model_seq is odd, and a decision that saw model_seq change while it ran discards the
 * model's answer (seqcount), so no decision ever uses a half-written model.
 */
u64 model_seq;
u32 model_slot;
u32 model_gen;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, struct mlb_nn_model);
} models SEC(".maps");

#define MLB_NR_RUN_CTX 2 /* the contexts a decision runs in: 0 the ops, 1 the balancer timer */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MLB_NR_RUN_CTX);
	__type(key, u32);
	__type(value, struct mlb_nn_scratch);
} nn_scratch SEC(".maps");

struct mlb_score {
	s32 score; /* migrate logit, Q15.16 */
	u32 gen;   /* generation of the model that computed it */
};

/*
 * mlb_model_run - the deployed model's migrate score for @f, into @out, computed in the
 * scratch of context @ctx (0 the ops, 1 the balancer timer; see above).
 * Returns 0, or -1 when no valid model is deployed, a swap raced the run or @ctx is out of
 * range (@out unset). A global function: the verifier checks it once, whoever calls it.
 */
__noinline int mlb_model_run(const struct mlb_features *f, struct mlb_score *out, u32 ctx)
{
	struct mlb_nn_scratch *s;
	struct mlb_nn_model *m;
	u32 slot, gen;
	u64 seq;

	if (!f || !out || ctx >= MLB_NR_RUN_CTX)
		return -1;
	seq = READ_ONCE_U64(model_seq);
	gen = READ_ONCE_U32(model_gen);
	if ((seq & 1) || !gen)
		return -1;
	slot = READ_ONCE_U32(model_slot) & 1;
	m = bpf_map_lookup_elem(&models, &slot);
	s = bpf_map_lookup_elem(&nn_scratch, &ctx);
	if (!m || !s || m->magic != MLB_NN_MAGIC)
		return -1;
	if (mlb_nn_forward(m, f->v, MLB_NR_FEATURES, s))
		return -1;
	MLB_MODEL_RUN_HOOK();
	asm volatile("" ::: "memory"); /* read the sequence again only after the model */
	if (READ_ONCE_U64(model_seq) != seq)
		return -1;
	out->score = mlb_nn_saving(s, m->n_out);
	out->gen = gen;
	return 0;
}

#endif /* __MLB_MODEL_BPF_H */
