/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probes.bpf.h - the outcome probes of the learning loop. Each recorded decision starts an
 * observation of its task (probe_start); every run it starts adds its wait (probe_run,
 * from ops.running); a run back on the source CPU of a move within bounce_ns marks a
 * bounce (probe_ran_on, from ops.running); the horizon, the task's exit or a newer decision
 * ends it (probe_end) and sends a struct mlb_outcome_rec through the `outcomes` ring buffer.
 */
#ifndef __MLB_PROBES_BPF_H
#define __MLB_PROBES_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, MLB_DEF_RING_KB * 512); /* half of --ring-kb */
} outcomes SEC(".maps");

/* End the observation of @tctx's last recorded decision with @flags; send its outcome. */
static void probe_end(struct task_ctx *tctx, u64 now, u32 flags)
{
	struct mlb_outcome_rec o = {};
	s64 after;

	if (!tctx->pr_id)
		return;
	after = (s64)dom_load_per_cpu(dom_of_cpu(tctx->pr_src)) -
		(s64)dom_load_per_cpu(dom_of_cpu(tctx->pr_dst));
	o.id = tctx->pr_id;
	o.observed_ns = now - tctx->pr_at;
	o.wait_ns = tctx->pr_wait;
	o.first_wait_ns = tctx->pr_first == ~0ULL ? 0 : tctx->pr_first;
	o.est_other_ns = tctx->pr_est_other;
	o.runs = tctx->pr_runs;
	o.flags = tctx->pr_flags | flags;
	o.imbal_before = tctx->pr_imbal;
	o.imbal_after = mlb_clamp(after, MLB_MIN_IMBALANCE, MLB_MAX_IMBALANCE);
	tctx->pr_id = 0;
	if (rb_output(&outcomes, &o, sizeof(o)))
		stat_inc(MLB_STAT_DROP_OUTCOME);
	else
		stat_inc(MLB_STAT_OUTCOMES);
}

/* Start observing what follows the recorded decision @r about @tctx's task. */
static void probe_start(struct task_ctx *tctx, const struct mlb_decision_rec *r, u64 now)
{
	/* the expected wait at the CPU not chosen: what the other choice would have cost */
	s32 other_us = r->decision ? r->f.v[MLB_F_SRC_WAIT_US] : r->f.v[MLB_F_DST_WAIT_US];

	probe_end(tctx, now, MLB_OUT_REPLACED);
	tctx->pr_id = r->id;
	tctx->pr_at = now;
	tctx->pr_wait = 0;
	tctx->pr_first = ~0ULL;
	tctx->pr_est_other = (u64)other_us * 1000;
	tctx->pr_src = r->src_cpu;
	tctx->pr_dst = r->dst_cpu;
	tctx->pr_runs = 0;
	tctx->pr_flags = 0;
	tctx->pr_imbal = r->f.v[MLB_F_IMBALANCE];
	tctx->pr_migrate = r->decision;
}

/* The task starts a run on another CPU, @cpu: back on the source of a recorded move? */
static void probe_ran_on(struct task_ctx *tctx, u32 cpu, u64 now)
{
	if (tctx->pr_id && tctx->pr_migrate && cpu == tctx->pr_src && now - tctx->pr_at < bounce_ns)
		tctx->pr_flags |= MLB_OUT_MOVED_BACK;
}

/* The task starts a run on CPU context @c after waiting @wait ns: count it for the CPU, its
 * domain @d, and the probe. */
static void probe_run(struct task_ctx *tctx, struct cpu_ctx *c, struct dom_ctx *d, u64 wait,
		      u64 now)
{
	if (c)
		c->avg_wait_ns = (7 * c->avg_wait_ns + wait) / 8;
	if (d)
		d->avg_wait_ns = (7 * d->avg_wait_ns + wait) / 8;
	if (!tctx->pr_id)
		return;
	tctx->pr_wait += wait;
	tctx->pr_runs++;
	/* the wait the decision chose: from the decision, not from when the task became
	 * runnable (a queued task pulled had waited before anyone decided) */
	if (tctx->pr_first == ~0ULL)
		tctx->pr_first = now - tctx->pr_at < wait ? now - tctx->pr_at : wait;
	if (now - tctx->pr_at >= horizon_ns)
		probe_end(tctx, now, 0);
}

#endif /* __MLB_PROBES_BPF_H */
