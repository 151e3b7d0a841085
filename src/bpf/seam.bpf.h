/* SPDX-License-Identifier: GPL-2.0 */
/*
 * seam.bpf.h - THE SEAM: the one place that says whether a task changes CPU. A caller
 * (wake-up placement, an idle pull, a push at enqueue, the balancer) describes the move as
 * (task, source CPU, destination CPU, kind) and calls decide_move(), which fills the
 * features (include/mlb/intf.h), asks the heuristic (include/mlb/heuristic.h), lets the
 * deployed model decide in infer mode (mlb_model_run), explores, applies the wait bound,
 * records the decision and starts its outcome probe. A move the seam allows is marked on the
 * task (chosen_cpu), so that ops.running can tell a chosen migration from any other.
 */
#ifndef __MLB_SEAM_BPF_H
#define __MLB_SEAM_BPF_H

/* The deployed model: model_seq/slot/gen, the models and nn_scratch maps, mlb_model_run(). */
#include "model.bpf.h"

u32 model_gen_seen; /* the generation of the last model run that counted */
u64 decision_seq;   /* ids of decision records */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, MLB_DEF_RING_KB * 1024); /* --ring-kb */
} decisions SEC(".maps");

/* The decision being made, per CPU: [0] for the ops, [1] for the balancer timer (as nn_scratch). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, struct mlb_decision_rec);
} dec_scratch SEC(".maps");

/*
 * The heuristic's parameters, copied from the tunables by heur_params_init() at ops.init: a
 * global rather than a struct built on the stack at every decision, which kept the deepest
 * call chain (balancer timer -> seam -> model -> layer) over BPF's 512 bytes.
 */
struct mlb_heur_params heur_params;

/* Every field of the heuristic's parameters, from rodata; scx_mlb.c fills the learner's copy
 * from the same options (the assert there counts the fields). */
static void heur_params_init(void)
{
	_Static_assert(sizeof(struct mlb_heur_params) == 8 * sizeof(u32), "every field set below");
	heur_params.imbal_pct = imbal_pct;
	heur_params.numa_imbal_pct = numa_imbal_pct;
	heur_params.max_recent_migr = max_recent_migr;
	heur_params.move_cost_core_us = move_cost_core_us;
	heur_params.move_cost_llc_us = move_cost_llc_us;
	heur_params.move_cost_xllc_us = move_cost_xllc_us;
	heur_params.move_cost_node_us = move_cost_node_us;
	heur_params.max_wait_us = max_wait_ns / 1000;
}

/* A candidate move of a task from CPU src to CPU dst. */
struct mlb_move {
	u32 src, dst;
	u32 kind; /* enum mlb_kind */
};

/* Idle state of CPU @cpu for the features: 2 its whole core idle, 1 idle, 0 busy. */
static s32 cpu_idle_state(u32 cpu)
{
	const struct cpumask *idle = scx_bpf_get_idle_cpumask();
	const struct cpumask *smt = scx_bpf_get_idle_smtmask();
	s32 ret = 0;

	if (bpf_cpumask_test_cpu(cpu, smt))
		ret = 2;
	else if (bpf_cpumask_test_cpu(cpu, idle))
		ret = 1;
	scx_bpf_put_idle_cpumask(idle);
	scx_bpf_put_idle_cpumask(smt);
	return ret;
}

static u32 recent_migr_per_sec(struct task_ctx *tctx, u64 now)
{
	u32 decayed =
	    mlb_decay_toward(tctx->recent_migr, 0, now - tctx->migr_at, MLB_MIGR_HALF_LIFE_NS);

	return decayed >> MLB_FRAC_SHIFT;
}

/* @v / 1000 rounded toward zero, without the signed division BPF ISA v3 lacks. */
static s64 sdiv_1000(s64 v)
{
	return v >= 0 ? (s64)((u64)v / 1000) : -(s64)((0 - (u64)v) / 1000);
}

/*
 * Fill @f for the move @mv of @p. Every value is clamped to the range declared in intf.h.
 * Not inlined: its frame (many live values, spilled) is gone before the model runs, which
 * keeps the deepest call chain (balancer -> seam -> model -> layer) under BPF's 512 bytes.
 */
static __noinline void fill_features(struct mlb_features *f, struct task_struct *p,
				     struct task_ctx *tctx, const struct mlb_move *mv, u64 now)
{
	u32 src = mv->src, dst = mv->dst, kind = mv->kind;
	u32 sd = dom_of_cpu(src), dd = dom_of_cpu(dst);
	u32 sn = node_of_dom(sd), dn = node_of_dom(dd);
	s64 src_load = dom_load_per_cpu(sd), dst_load = dom_load_per_cpu(dd);
	struct cpu_ctx *sc = lookup_cpu(src);
	struct dom_ctx *sdc = lookup_dom(sd);
	u64 since = tctx->running_at ? 0 : now - tctx->stopped_at;
	u64 waited = tctx->ready_at && kind != MLB_KIND_WAKEUP ? now - tctx->ready_at : 0;
	u64 resid = tctx->arrived_at && now > tctx->arrived_at ? now - tctx->arrived_at : 0;
	u32 wake_freq = tctx->wake_freq;
	u64 since_woke = now - tctx->woke_at;

	/* A task that stopped waking decays toward its actual rate. */
	if (since_woke > MLB_SEC_NS / 16 && wake_freq > MLB_SEC_NS / since_woke)
		wake_freq = MLB_SEC_NS / since_woke;

#define SETF(idx, val) f->v[MLB_F_##idx] = mlb_clamp((val), MLB_MIN_##idx, MLB_MAX_##idx)
	SETF(TASK_WEIGHT, p->scx.weight);
	SETF(TASK_DUTY, tctx->duty);
	SETF(TASK_RUN_FRAC, tctx->run_frac);
	SETF(TASK_BURST_US, tctx->burst_ns / 1000);
	SETF(TASK_SLICE_USE, tctx->slice_use);
	SETF(TASK_WAKE_FREQ, wake_freq);
	SETF(TASK_SINCE_RAN_US, since / 1000);
	SETF(TASK_CACHE_HOT, since < migr_cost_ns);
	SETF(TASK_RECENT_MIGR, recent_migr_per_sec(tctx, now));
	SETF(TASK_NR_CPUS, p->nr_cpus_allowed);
	SETF(TASK_VLAG_US, sc ? sdiv_1000((s64)(tctx->vtime - sc->vtime_now)) : 0);
	SETF(SRC_NR_QUEUED, scx_bpf_dsq_nr_queued(src));
	SETF(DST_NR_QUEUED, scx_bpf_dsq_nr_queued(dst));
	SETF(SRC_LOAD, src_load);
	SETF(DST_LOAD, dst_load);
	SETF(IMBALANCE, src_load - dst_load);
	SETF(DST_IDLE, cpu_idle_state(dst));
	SETF(SAME_LLC, sd == dd);
	SETF(SAME_NODE, sn == dn);
	SETF(NUMA_DIST, node_dist[IDX(sn, MLB_MAX_NODES)][IDX(dn, MLB_MAX_NODES)]);
	SETF(SRC_CAPACITY, cpu_capacity[IDX(src, MLB_MAX_CPUS)]);
	SETF(DST_CAPACITY, cpu_capacity[IDX(dst, MLB_MAX_CPUS)]);
	SETF(DST_PERF, cpu_valid(dst) ? scx_bpf_cpuperf_cur(dst) : 0);
	SETF(BALANCE_FAILS, sdc ? sdc->balance_fails : 0);
	SETF(KIND, kind);
	SETF(SAME_CORE, same_core(src, dst));
	SETF(SRC_WAIT_US, kind == MLB_KIND_WAKEUP && (lat_would_preempt(tctx, src, now) ||
						      wake_would_preempt(p, tctx, src, now))
			      ? 0
			      : cpu_wait_ns(src, now) / 1000);
	SETF(DST_WAIT_US, cpu_wait_ns(dst, now) / 1000);
	SETF(TASK_WAITED_US, waited / 1000);
	SETF(TASK_RESIDENCE_US, resid / 1000);
	SETF(WAKER_ON_DST, tctx->waker_cpu == dst);
	SETF(TASK_CLASS, tctx->cls.cls);
#undef SETF
}

MLB_ASSERT(MLB_STAT_BY_MODEL == MLB_STAT_BY_HEURISTIC + MLB_BY_MODEL &&
	       MLB_STAT_BY_EXPLORE == MLB_STAT_BY_HEURISTIC + MLB_BY_EXPLORE &&
	       MLB_STAT_BY_CONTROL == MLB_STAT_BY_HEURISTIC + MLB_BY_CONTROL,
	   "decider counters follow enum mlb_decider");

/*
 * mlb_decide_rec - the decision on the filled record @r about @tctx's task: the heuristic's
 * answer is in r->heuristic; in infer mode the deployed model decides when it can, except
 * for the control share (control_ppm), left to the heuristic; outside
 * heuristic mode a few decisions explore; a task past the wait bound with an idle
 * destination always moves. Outside heuristic mode the decision is recorded and its outcome
 * observed. Fills r->decision, decider, score, model_gen, prop_ppm (the probability of the
 * action taken), id. @ctx: 0 in the ops, 1 in the balancer timer (the model's scratch).
 * Returns 1 to migrate, else 0.
 * A global function: verified once, however many callers and candidate loops there are.
 */
__noinline int mlb_decide_rec(struct mlb_decision_rec *r, struct task_ctx *tctx, u32 ctx)
{
	struct mlb_score sc;
	bool go;

	if (!r || !tctx)
		return 0;
	go = r->heuristic;
	/* until the end, prop_ppm is the probability that the policy said move (in the record,
	 * not on the stack: the deepest call chain must fit 512 bytes, see heur_params) */
	r->prop_ppm = go ? MLB_PPM_ONE : 0;
	r->decider = MLB_BY_HEURISTIC;
	r->score = 0;
	r->model_gen = 0;
	if (mode == MLB_MODE_INFER) {
		if (!mlb_model_run(&r->f, &sc, ctx)) {
			r->score = sc.score;
			r->model_gen = sc.gen;
			/* a shared line: written by one decision per swap, not by all */
			if (model_gen_seen != sc.gen)
				model_gen_seen = sc.gen;
			/* the control share: the heuristic decides, to compare the two live */
			r->prop_ppm = (r->heuristic ? control_ppm : 0) +
				      (mlb_saving_decide(r->score, &r->f, &heur_params)
					   ? MLB_PPM_ONE - control_ppm
					   : 0);
			if (control_ppm && bpf_get_prandom_u32() % MLB_PPM_ONE < control_ppm) {
				r->decider = MLB_BY_CONTROL;
			} else {
				go = mlb_saving_decide(r->score, &r->f, &heur_params);
				r->decider = MLB_BY_MODEL;
			}
		} else if (READ_ONCE_U32(model_gen)) {
			stat_inc(MLB_STAT_MODEL_FAIL);
		}
	}
	if (mode != MLB_MODE_HEURISTIC && explore_ppm) {
		/* P(move) = (1 - explore) P(the policy said move) + explore P(it said stay) */
		r->prop_ppm = ((u64)r->prop_ppm * (MLB_PPM_ONE - explore_ppm) +
			       (u64)(MLB_PPM_ONE - r->prop_ppm) * explore_ppm) /
			      MLB_PPM_ONE;
		if (bpf_get_prandom_u32() % MLB_PPM_ONE < explore_ppm) {
			go = !go;
			r->decider = MLB_BY_EXPLORE;
		}
	}
	if (!go)
		r->prop_ppm = MLB_PPM_ONE - r->prop_ppm;
	/* work conservation, whoever decided: see mlb_wait_bound_hit() */
	if (!go && r->f.v[MLB_F_DST_IDLE] &&
	    (u64)r->f.v[MLB_F_TASK_WAITED_US] * 1000 >= max_wait_ns) {
		go = true;
		r->prop_ppm = MLB_PPM_ONE; /* forced: no other action was possible */
		stat_inc(MLB_STAT_STARVE_MOVE);
	}
	stat_inc(MLB_STAT_CONSIDERED);
	if (go)
		stat_inc(MLB_STAT_TAKEN);
	stat_inc(MLB_STAT_BY_HEURISTIC + (r->decider & 3));
	if (mode == MLB_MODE_HEURISTIC)
		return go;
	r->id = __sync_fetch_and_add(&decision_seq, 1) + 1;
	r->decision = go;
	if (rb_output(&decisions, r, sizeof(*r)))
		stat_inc(MLB_STAT_DROP_DECISION);
	else
		probe_start(tctx, r, r->ts_ns);
	return go;
}

/*
 * mlb_decide_move - THE SEAM: whether @p moves as @mv proposes. Fills the decision record
 * (features included) in per-CPU scratch (@timer: the balancer timer's slot), asks the
 * heuristic (always: it is recorded beside every decision), then mlb_decide_rec(). Returns 1
 * to migrate (the task is then marked as sent to mv->dst, and the caller makes the move or,
 * when it loses a race for it, calls seam_abandon()), else 0; 0 if @tctx or @mv is NULL.
 * A global function: the verifier checks it once per program, not once per call site and
 * state of each caller (inlined, the seam was most of what it verified in select_cpu,
 * enqueue, dispatch and the balancer).
 */
__noinline int mlb_decide_move(struct task_struct *p __arg_trusted, struct task_ctx *tctx,
			       const struct mlb_move *mv, u32 timer)
{
	u32 idx = timer & 1;
	struct mlb_decision_rec *r = bpf_map_lookup_elem(&dec_scratch, &idx);
	u64 now = bpf_ktime_get_ns();

	if (!r || !tctx || !mv)
		return 0;
	work_add(MLB_WK_DECIDE, 1);
	fill_features(&r->f, p, tctx, mv, now);
	r->heuristic = mlb_heuristic_decide(&r->f, &heur_params);
	r->ts_ns = now;
	r->pid = p->pid;
	r->kind = mv->kind;
	r->src_cpu = mv->src;
	r->dst_cpu = mv->dst;
	if (!mlb_decide_rec(r, tctx, idx))
		return 0;
	tctx->chosen_cpu = mv->dst;
	return 1;
}

/* decide_move - mlb_decide_move() as a bool, for the callers' conditions */
static __always_inline bool decide_move(struct task_struct *p, struct task_ctx *tctx,
					const struct mlb_move *mv, bool timer)
{
	return mlb_decide_move(p, tctx, mv, timer) == 1;
}

/* The move the seam allowed did not happen (a race was lost): nothing is pending. */
static void seam_abandon(struct task_ctx *tctx)
{
	tctx->chosen_cpu = NO_CPU;
}

#endif /* __MLB_SEAM_BPF_H */
