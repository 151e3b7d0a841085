/* SPDX-License-Identifier: GPL-2.0 */
/*
 * balance.bpf.h - periodic balancing between domains, in a BPF timer every
 * balance_interval_ns: it smooths each domain's runnable load, finds the most and least
 * loaded domains (first across nodes, then inside each node), and when the pair is
 * imbalanced (mlb_imbalance_exceeds(), the heuristic's own test) offers queued tasks of the
 * loaded domain's busiest CPU to the seam, each for the destination domain's CPU with the
 * least expected wait (the task's affinity permitting). A task the seam lets go is moved between
 * the two CPUs' queues at once (scx_bpf_dsq_move_vtime, with the deadline key ops.enqueue
 * uses: task_dl_key()), not at its next enqueue, and an idle destination is kicked.
 */
#ifndef __MLB_BALANCE_BPF_H
#define __MLB_BALANCE_BPF_H

struct balance_timer {
	struct bpf_timer timer;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct balance_timer);
} balance_timers SEC(".maps");

/*
 * mlb_least_wait_cpu - the CPU of domain @dom with the least expected wait, or NO_CPU. A
 * global function, verified once (see mlb_busiest_cpu_in); the caller checks the task's
 * affinity.
 */
__noinline u32 mlb_least_wait_cpu(u32 dom)
{
	u32 cpu = dom_first_cpu[IDX(dom, MLB_MAX_DOMS)], best = NO_CPU, i;
	u64 now = bpf_ktime_get_ns(), best_wait = ~0ULL;

	bpf_for(i, 0, MLB_MAX_LLC_SCAN)
	{
		u64 w;

		if (!cpu_valid(cpu))
			break;
		w = cpu_wait_ns(cpu, now);
		if (w < best_wait) {
			best_wait = w;
			best = cpu;
		}
		cpu = cpu_next_in_dom[IDX(cpu, MLB_MAX_CPUS)];
	}
	work_scan(i);
	return best;
}

/*
 * Move queued tasks of domain @src's busiest CPU to domain @dst while the seam agrees and
 * the move does not overshoot: the pair's per-CPU imbalance shrinks by
 * load * (1/src CPUs + 1/dst CPUs) per task. Returns the number moved. A global function,
 * verified once; it runs from the timer of the sleepable init program, so it takes the RCU
 * read lock itself for the queue iterator.
 */
__noinline int mlb_balance_pair(u32 src, u32 dst)
{
	s64 imbal = (s64)dom_load_per_cpu(src) - (s64)dom_load_per_cpu(dst);
	u32 ns = dom_cpu_count(src), nd = dom_cpu_count(dst), seen = 0, moved = 0;
	u32 victim = mlb_busiest_cpu_in(src, NO_CPU), to = mlb_least_wait_cpu(dst);
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;

	if (imbal <= 0 || victim == NO_CPU || to == NO_CPU)
		return 0;
	bpf_rcu_read_lock();
	bpf_iter_scx_dsq_new(&it, victim, 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		struct task_ctx *tctx;
		struct mlb_move mv;
		s64 shift;

		if (++seen > MLB_MAX_CANDIDATES || moved >= max_balance_moves)
			break;
		if (task_pinned(p))
			continue;
		tctx = lookup_task_ctx(p);
		if (!tctx)
			continue;
		shift = task_load(p, tctx) * (ns + nd) / (ns * nd);
		if (shift > imbal) /* would overshoot: make things worse */
			continue;
		if (!bpf_cpumask_test_cpu(to, p->cpus_ptr))
			continue;
		mv.src = victim;
		mv.dst = to;
		mv.kind = MLB_KIND_BALANCE;
		if (!decide_move(p, tctx, &mv, true))
			continue;
		vtime_rebase(tctx, to);
		scx_bpf_dsq_move_set_vtime(&it, task_dl_key(p, tctx)); /* as ops.enqueue */
		if (!scx_bpf_dsq_move_vtime(&it, p, to, 0)) {
			seam_abandon(tctx);
			continue;
		}
		queue_unaccount(tctx);
		queue_account(p, tctx, to);
		dom_move_runnable(tctx, dst);
		stat_inc(MLB_STAT_BAL_MOVED);
		if (cpu_is_idle(to))
			scx_bpf_kick_cpu(to, SCX_KICK_IDLE);
		imbal -= shift;
		moved++;
		to = mlb_least_wait_cpu(dst); /* the next one, now that this one has more */
		if (to == NO_CPU)
			break;
	}
	bpf_iter_scx_dsq_destroy(&it);
	bpf_rcu_read_unlock();
	work_add(MLB_WK_TASKS, seen);
	return moved;
}

/* Most and least loaded domains per CPU among those of node @node (all when -1). */
static void find_extremes(s32 node, u32 *busiest, u32 *idlest)
{
	u64 hi = 0, lo = ~0ULL;
	u32 i, visited = 0;

	*busiest = *idlest = MLB_MAX_DOMS;
	bpf_for(i, 0, nr_doms)
	{
		u64 l;

		if (node >= 0 && node_of_dom(i) != (u32)node)
			continue;
		visited++;
		l = dom_load_per_cpu(i);
		if (l >= hi) {
			hi = l;
			*busiest = i;
		}
		if (l < lo) {
			lo = l;
			*idlest = i;
		}
	}
	work_add(MLB_WK_DOMS, visited);
}

/* Smooth every domain's load and publish the per-domain stats. */
static void update_dom_loads(void)
{
	u32 i;

	bpf_for(i, 0, nr_doms)
	{
		struct dom_ctx *d = lookup_dom(i);
		s64 wt, q;

		if (!d || i >= MLB_MAX_DOMS)
			continue;
		wt = d->runnable_wt;
		if (wt < 0)
			wt = 0;
		q = d->nr_queued;
		if (q > 0 && !(READ_ONCE_U64(queued_doms) & (1ULL << IDX(i, MLB_MAX_DOMS))))
			__sync_fetch_and_or(&queued_doms, 1ULL << IDX(i, MLB_MAX_DOMS));
		d->load = mlb_ewma(d->load, mlb_weight_to_load(wt));
		dom_stats[IDX(i, MLB_MAX_DOMS)].load = d->load;
		dom_stats[IDX(i, MLB_MAX_DOMS)].nr_queued = q > 0 ? q : 0;
		dom_stats[IDX(i, MLB_MAX_DOMS)].nr_cpus = dom_cpu_count(i);
		dom_stats[IDX(i, MLB_MAX_DOMS)].avg_wait_ns = d->avg_wait_ns;
	}
	work_add(MLB_WK_DOMS, nr_doms);
}

/* Balance one pair if it is imbalanced beyond @pct; returns tasks moved. */
static u32 balance_if_needed(u32 src, u32 dst, u32 pct)
{
	struct dom_ctx *sd;
	u32 moved;

	if (src >= MLB_MAX_DOMS || dst >= MLB_MAX_DOMS || src == dst)
		return 0;
	if (!mlb_imbalance_exceeds(dom_load_per_cpu(src), dom_load_per_cpu(dst), pct))
		return 0;
	moved = mlb_balance_pair(src, dst);
	sd = lookup_dom(src);
	if (sd)
		sd->balance_fails = moved ? 0 : sd->balance_fails + 1;
	return moved;
}

static int balance_timerfn(void *map, int *key, struct bpf_timer *timer)
{
	u64 t0 = bpf_ktime_get_ns();
	struct mlb_work *w;
	u32 busiest, idlest, n;

	work_begin(MLB_WCB_BALANCE);
	stat_inc(MLB_STAT_BAL_ROUNDS);
	update_dom_loads();

	/* Nodes first: the busiest domain overall against the idlest overall if on
	 * different nodes, then inside each node. */
	find_extremes(-1, &busiest, &idlest);
	if (busiest < MLB_MAX_DOMS && idlest < MLB_MAX_DOMS &&
	    node_of_dom(busiest) != node_of_dom(idlest))
		balance_if_needed(busiest, idlest, numa_imbal_pct);
	bpf_for(n, 0, nr_nodes)
	{
		find_extremes(n, &busiest, &idlest);
		balance_if_needed(busiest, idlest, imbal_pct);
	}

	w = work_here();
	if (w) {
		w->bal_ns += bpf_ktime_get_ns() - t0;
		w->cur = MLB_NR_WORK_CBS; /* no callback: work outside one is not charged */
	}
	bpf_timer_start(timer, balance_interval_ns, 0);
	return 0;
}

#endif /* __MLB_BALANCE_BPF_H */
