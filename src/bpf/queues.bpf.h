/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queues.bpf.h - per-CPU queues and placement. Every CPU has its own DSQ (id = CPU id),
 * ordered by deadline (task_dl_key(), include/mlb/policy.h); a queued task belongs to exactly
 * one CPU, and only that CPU takes it without asking: every other change of CPU is a decision
 * of the seam (seam.bpf.h). Owns wake-up placement (ops.select_cpu), queueing (ops.enqueue,
 * ops.dequeue), a CPU's own dispatch and its idle pulls (ops.dispatch; ops.update_idle for a
 * queue filled as its CPU went idle), wake-up preemption
 * (lat_preempt(), wake_preempt()), the slice cut and the work-conservation kick (ops.tick),
 * and the accounting of every change of CPU (account_migration, from ops.running).
 */
#ifndef __MLB_QUEUES_BPF_H
#define __MLB_QUEUES_BPF_H

/* Result of a scan of one domain's CPUs for a task. */
struct dom_scan {
	u32 sibling;   /* an idle SMT sibling of the reference CPU */
	u32 idle_core; /* an idle CPU whose whole core is idle */
	u32 idle;      /* any idle CPU */
	u32 least;     /* the allowed CPU with the least expected wait (not the reference) */
	u64 least_wait;
};

/*
 * mlb_scan_dom - scan the CPUs of domain @dom that @p may use (up to MLB_MAX_LLC_SCAN): idle
 * ones, by preference, and the one with the least expected wait, leaving out @ref (the CPU
 * the task is on), into @s. Idle CPUs are only looked at, not claimed. Returns 0, or -1 with
 * @s untouched if @s is NULL.
 *
 * A global function: the verifier checks it once, on its own, and its callers see its
 * results as plain numbers. Inlined, its branches multiplied the states of mlb_select_cpu
 * and mlb_enqueue, and 6.18's verifier failed on it with a bug of its own (a kernel WARNING,
 * "backtracking call unexpected regs") while tracking precision back through the caller.
 */
__noinline int mlb_scan_dom(struct task_struct *p __arg_trusted, u32 dom, u32 ref, u64 now,
			    struct dom_scan *s)
{
	const struct cpumask *idle, *smt;
	u32 cpu = dom_first_cpu[IDX(dom, MLB_MAX_DOMS)], i;

	if (!s)
		return -1;
	idle = scx_bpf_get_idle_cpumask();
	smt = scx_bpf_get_idle_smtmask();
	s->sibling = s->idle_core = s->idle = s->least = NO_CPU;
	s->least_wait = ~0ULL;
	bpf_for(i, 0, MLB_MAX_LLC_SCAN)
	{
		u64 w;

		if (!cpu_valid(cpu))
			break;
		if (cpu != ref && bpf_cpumask_test_cpu(cpu, p->cpus_ptr)) {
			if (bpf_cpumask_test_cpu(cpu, idle)) {
				if (same_core(cpu, ref) && s->sibling == NO_CPU)
					s->sibling = cpu;
				else if (bpf_cpumask_test_cpu(cpu, smt) && s->idle_core == NO_CPU)
					s->idle_core = cpu;
				else if (s->idle == NO_CPU)
					s->idle = cpu;
			}
			w = cpu_wait_ns(cpu, now);
			if (w < s->least_wait) {
				s->least_wait = w;
				s->least = cpu;
			}
		}
		cpu = cpu_next_in_dom[IDX(cpu, MLB_MAX_CPUS)];
	}
	scx_bpf_put_idle_cpumask(idle);
	scx_bpf_put_idle_cpumask(smt);
	work_scan(i);
	return 0;
}

/* The preferred idle CPU of a scan: the sibling, a whole idle core, any idle; or NO_CPU. */
static u32 scan_idle(const struct dom_scan *s)
{
	if (s->sibling != NO_CPU)
		return s->sibling;
	if (s->idle_core != NO_CPU)
		return s->idle_core;
	return s->idle;
}

/*
 * pick_idle_cap - on a machine whose CPUs differ in capacity (cap_asym), the idle CPU of
 * domain @dom that @p should take, leaving out @ref (the CPU it is on): the placement rule of
 * include/mlb/place.h, by its class and load, over the same CPUs mlb_scan_dom() visits, in the
 * same order (mlb_place_pick(), written as a loop over the domain's list). NO_CPU if none
 * is idle. Only looked at, not claimed.
 */
static u32 pick_idle_cap(struct task_struct *p, struct task_ctx *tctx, u32 dom, u32 ref)
{
	const struct cpumask *idle = scx_bpf_get_idle_cpumask();
	const struct cpumask *smt = scx_bpf_get_idle_smtmask();
	u32 cpu = dom_first_cpu[IDX(dom, MLB_MAX_DOMS)], best = NO_CPU, i, rank;
	u32 want = mlb_place_want(tctx->cls.cls, task_load_running(p, tctx));
	s32 best_score = -1, score;

	bpf_for(i, 0, MLB_MAX_LLC_SCAN)
	{
		if (!cpu_valid(cpu))
			break;
		if (cpu != ref && bpf_cpumask_test_cpu(cpu, p->cpus_ptr) &&
		    bpf_cpumask_test_cpu(cpu, idle)) {
			rank = same_core(cpu, ref)		? MLB_RANK_SIBLING
			       : bpf_cpumask_test_cpu(cpu, smt) ? MLB_RANK_CORE
								: MLB_RANK_IDLE;
			score = mlb_place_score(want, cpu_capacity[IDX(cpu, MLB_MAX_CPUS)], rank);
			if (score > best_score) {
				best_score = score;
				best = cpu;
			}
		}
		cpu = cpu_next_in_dom[IDX(cpu, MLB_MAX_CPUS)];
	}
	scx_bpf_put_idle_cpumask(idle);
	scx_bpf_put_idle_cpumask(smt);
	work_scan(i);
	return best;
}

/* The idle CPU of a scan of domain @dom for @p (on CPU @ref) to take: the usual preference
 * (scan_idle()), or on a machine of asymmetric capacities the placement rule's choice. */
static u32 choose_idle(struct task_struct *p, struct task_ctx *tctx, const struct dom_scan *s,
		       u32 dom, u32 ref)
{
	if (cap_asym)
		return pick_idle_cap(p, tctx, dom, ref);
	return scan_idle(s);
}

/* An idle CPU @p may use outside domain @dom, on its node when @same_node (else on the other
 * nodes); only looked at, not claimed. NO_CPU if none. Struct_ops callbacks run under RCU,
 * which keeps the cpumask kptrs valid here. */
static u32 peek_idle_outside(struct task_struct *p, u32 dom, bool same_node)
{
	const struct cpumask *idle = scx_bpf_get_idle_cpumask();
	struct bpf_cpumask *tmp = scratch();
	u32 node = node_of_dom(dom), i, cpu, found = NO_CPU, visited = 0;

	if (!tmp)
		goto out;
	bpf_for(i, 0, nr_doms)
	{
		const struct cpumask *m;

		if (i == dom || (node_of_dom(i) == node) != same_node)
			continue;
		visited++;
		m = dom_mask(i);
		if (!m)
			continue;
		bpf_cpumask_and(tmp, m, p->cpus_ptr);
		cpu = bpf_cpumask_any_and_distribute((const struct cpumask *)tmp, idle);
		if (cpu < nr_cpus) {
			found = cpu;
			break;
		}
	}
out:
	scx_bpf_put_idle_cpumask(idle);
	work_add(MLB_WK_DOMS, visited);
	return found;
}

/* Ask the seam about moving @p from @src to the idle CPU @dst and claim @dst if it agrees.
 * True when @p now goes to @dst. */
static bool try_idle_move(struct task_struct *p, struct task_ctx *tctx, u32 src, u32 dst, u32 kind)
{
	struct mlb_move mv = {src, dst, kind};

	if (!decide_move(p, tctx, &mv, false))
		return false;
	if (scx_bpf_test_and_clear_cpu_idle(dst))
		return true;
	seam_abandon(tctx); /* lost the race for it */
	return false;
}

/*
 * Wake-up placement. The previous CPU if it is idle. Otherwise the seam is asked about the
 * best idle CPU of the LLC: an idle SMT sibling, a whole idle core, any idle CPU; with none,
 * about the CPU of the LLC with the least expected wait. When the seam says stay, the task
 * queues on its busy previous CPU. A CPU the task is sent to and claimed idle gets it
 * straight on its local DSQ. Wake-ups do not leave the LLC (as EEVDF's select_idle_sibling
 * does not): a task that then waits too long is pulled by an idle CPU of its node or of
 * another node (the ski-rental rule), and only then pays for the longer move.
 */
s32 BPF_STRUCT_OPS(mlb_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u32 prev = prev_cpu, dom, cpu;
	struct dom_scan s = {};
	u64 now;

	work_begin(MLB_WCB_SELECT);
	if (!tctx || task_pinned(p) || !cpu_valid(prev))
		return prev_cpu;
	tctx->waker_cpu = bpf_get_smp_processor_id();
	if (!bpf_cpumask_test_cpu(prev, p->cpus_ptr))
		return prev_cpu; /* the kernel picks an allowed CPU: counted forced */
	if (scx_bpf_test_and_clear_cpu_idle(prev)) {
		stat_inc(MLB_STAT_WAKE_PREV);
		cpu = prev;
		goto direct;
	}

	now = bpf_ktime_get_ns();
	dom = dom_of_cpu(prev);
	mlb_scan_dom(p, dom, prev, now, &s);
	cpu = choose_idle(p, tctx, &s, dom, prev);
	/*
	 * A task that never ran (a new one, placed at fork) has no cache to lose and its first
	 * CPU is not a migration (nor for the kernel's count): it takes the best idle CPU,
	 * anywhere, or the least waiting one of the LLC, without asking the seam.
	 */
	if (tctx->last_cpu == NO_CPU) {
		if (cpu == NO_CPU)
			cpu = peek_idle_outside(p, dom, true);
		if (cpu == NO_CPU)
			cpu = peek_idle_outside(p, dom, false);
		if (cpu != NO_CPU && scx_bpf_test_and_clear_cpu_idle(cpu)) {
			stat_inc(MLB_STAT_WAKE_NEW);
			goto direct;
		}
		if (s.least != NO_CPU && s.least_wait < cpu_wait_ns(prev, now)) {
			stat_inc(MLB_STAT_WAKE_NEW);
			return s.least;
		}
		return prev_cpu;
	}
	if (cpu != NO_CPU) {
		if (try_idle_move(p, tctx, prev, cpu, MLB_KIND_WAKEUP)) {
			stat_inc(MLB_STAT_WAKE_MOVE);
			goto direct;
		}
	} else if (s.least != NO_CPU) {
		struct mlb_move mv = {prev, s.least, MLB_KIND_WAKEUP};

		if (decide_move(p, tctx, &mv, false)) {
			stat_inc(MLB_STAT_WAKE_MOVE);
			return s.least; /* queued there by ops.enqueue */
		}
	}
	stat_inc(MLB_STAT_WAKE_STAY);
	return prev_cpu;

direct:
	stat_inc(MLB_STAT_ENQ_LOCAL);
	scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, task_slice(p), 0);
	return cpu;
}

/*
 * A task that woke up with no idle CPU to go to takes the CPU it queues on from the task
 * running there when that one has run wake_preempt_ns or more and is further along in
 * virtual time, and the waker's runs are short (average burst under a quarter slice).
 * Needs scx_bpf_cpu_curr() (kernel >= 6.18); on older kernels waking tasks never preempt.
 */
static void wake_preempt(struct task_struct *p, struct task_ctx *tctx, u32 cpu)
{
	if (!wake_would_preempt(p, tctx, cpu, bpf_ktime_get_ns()))
		return;
	stat_inc(MLB_STAT_WAKE_PREEMPT);
	scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
}

static bool cpu_is_idle(u32 cpu)
{
	const struct cpumask *idle = scx_bpf_get_idle_cpumask();
	bool ret = bpf_cpumask_test_cpu(cpu, idle);

	scx_bpf_put_idle_cpumask(idle);
	return ret;
}

/*
 * A latency-critical task that woke up onto @cpu, busy with a batch task that has run
 * lat_preempt_ns, takes the CPU at once (lat_would_preempt(), include/mlb/policy.h): the
 * kick makes the kernel end the running slice, and the head of the queue, by deadline the
 * waker, runs next. True when it kicked.
 */
static bool lat_preempt(struct task_ctx *tctx, u32 cpu)
{
	if (!lat_would_preempt(tctx, cpu, bpf_ktime_get_ns()))
		return false;
	stat_inc(MLB_STAT_PREEMPT_LAT_BATCH);
	scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
	return true;
}

/*
 * Queue @p on the CPU it is on (the one select_cpu returned, or where it was preempted), by
 * its deadline key (task_dl_key()). A task that did not just wake up (select_cpu placed those)
 * and would wait behind others while a CPU of its LLC or node idles is offered to the seam
 * for that CPU first (a push). A waking task may preempt the running one (lat_preempt(),
 * then --wake-preempt-us).
 */
void BPF_STRUCT_OPS(mlb_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u32 cpu = scx_bpf_task_cpu(p), dst;
	struct cpu_ctx *c;
	struct dom_scan s = {};
	u64 vtime, now;

	work_begin(MLB_WCB_ENQUEUE);
	if (!tctx || !cpu_valid(cpu)) {
		stat_inc(MLB_STAT_ENQ_LOCAL);
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, task_slice(p), enq_flags);
		return;
	}
	if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr)) {
		u32 any = bpf_cpumask_any_distribute(p->cpus_ptr);

		if (cpu_valid(any)) {
			stat_inc(MLB_STAT_AFFN_VIOL);
			cpu = any;
		}
	}
	if (!(enq_flags & SCX_ENQ_WAKEUP) && !task_pinned(p) && scx_bpf_dsq_nr_queued(cpu) &&
	    !cpu_is_idle(cpu)) {
		now = bpf_ktime_get_ns();
		mlb_scan_dom(p, dom_of_cpu(cpu), cpu, now, &s);
		dst = choose_idle(p, tctx, &s, dom_of_cpu(cpu), cpu);
		if (dst == NO_CPU)
			dst = peek_idle_outside(p, dom_of_cpu(cpu), true);
		if (dst != NO_CPU && try_idle_move(p, tctx, cpu, dst, MLB_KIND_PULL)) {
			stat_inc(MLB_STAT_PUSH);
			vtime_rebase(tctx, dst);
			scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | dst, task_slice(p), enq_flags);
			scx_bpf_kick_cpu(dst, SCX_KICK_IDLE);
			return;
		}
	}

	vtime_rebase(tctx, cpu);
	c = lookup_cpu(cpu);
	vtime = tctx->vtime;
	/* A sleeper may bank at most one slice of credit. */
	if (c && (s64)(vtime - (c->vtime_now - slice_ns)) < 0)
		vtime = c->vtime_now - slice_ns;
	tctx->vtime = vtime;
	stat_inc(MLB_STAT_ENQ_CPU);
	scx_bpf_dsq_insert_vtime(p, cpu, task_slice(p), task_dl_key(p, tctx), enq_flags);
	queue_account(p, tctx, cpu);
	if (cpu_is_idle(cpu))
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
	else if ((enq_flags & SCX_ENQ_WAKEUP) && !lat_preempt(tctx, cpu))
		wake_preempt(p, tctx, cpu);
}

/* The task left its queue without running (affinity or priority change, exit). */
void BPF_STRUCT_OPS(mlb_dequeue, struct task_struct *p, u64 deq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	if (tctx)
		queue_unaccount(tctx);
}

/*
 * Pull one task queued on CPU @victim onto @cpu, asking the seam per candidate (the first
 * MLB_MAX_CANDIDATES of the queue). A global function: verified once for every caller.
 */
__noinline int mlb_try_pull(u32 cpu, u32 victim)
{
	struct mlb_move mv = {victim, cpu, MLB_KIND_PULL};
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	bool moved = false;
	u32 seen = 0;

	if (!cpu_valid(cpu) || !cpu_valid(victim))
		return 0;
	bpf_iter_scx_dsq_new(&it, victim, 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		struct task_ctx *tctx;

		if (++seen > MLB_MAX_CANDIDATES)
			break;
		if (task_pinned(p) || !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		tctx = lookup_task_ctx(p);
		if (!tctx)
			continue;
		if (!decide_move(p, tctx, &mv, false))
			continue;
		if (scx_bpf_dsq_move(&it, p, SCX_DSQ_LOCAL, 0)) {
			queue_unaccount(tctx);
			moved = true;
			break;
		}
		seam_abandon(tctx);
	}
	bpf_iter_scx_dsq_destroy(&it);
	work_add(MLB_WK_TASKS, seen);
	return moved;
}

/*
 * mlb_busiest_cpu_in - the CPU of domain @dom other than @self with the longest expected
 * wait among those with queued tasks, or NO_CPU. A global function: verified once, not once
 * per state of each caller's loops (inlined into the balancer's queue walk, it took the
 * verifier near its limit of a million instructions).
 */
__noinline u32 mlb_busiest_cpu_in(u32 dom, u32 self)
{
	u64 now = bpf_ktime_get_ns();
	u32 cpu = dom_first_cpu[IDX(dom, MLB_MAX_DOMS)], best = NO_CPU, i;
	u64 best_wait = 0;

	bpf_for(i, 0, MLB_MAX_LLC_SCAN)
	{
		u64 w;

		if (!cpu_valid(cpu))
			break;
		if (cpu != self && scx_bpf_dsq_nr_queued(cpu)) {
			w = cpu_wait_ns(cpu, now);
			if (best == NO_CPU || w > best_wait) {
				best_wait = w;
				best = cpu;
			}
		}
		cpu = cpu_next_in_dom[IDX(cpu, MLB_MAX_CPUS)];
	}
	work_scan(i);
	return best;
}

/* The domain on node @node (or on the other nodes when !@same_node) other than @dom with
 * the most queued tasks per CPU, or MLB_MAX_DOMS when none has any. Visits only the domains
 * whose bit in queued_doms is set, lowest first (ties go to the lowest domain). */
static u32 busiest_dom(u32 dom, bool same_node)
{
	u64 here = node_doms[IDX(node_of_dom(dom), MLB_MAX_NODES)];
	u64 m = READ_ONCE_U64(queued_doms) & ~(1ULL << IDX(dom, MLB_MAX_DOMS));
	u32 best = MLB_MAX_DOMS, i, k, visited = 0;
	u64 best_q = 0;

	m &= same_node ? here : ~here;
	bpf_for(k, 0, MLB_MAX_DOMS)
	{
		struct dom_ctx *d;
		u64 q;

		if (!m)
			break;
		i = mlb_lowest_bit(m);
		m &= m - 1;
		if (i >= nr_doms)
			break;
		visited++;
		d = lookup_dom(i);
		if (!d || d->nr_queued <= 0)
			continue;
		q = (u64)d->nr_queued * 1024 / dom_cpu_count(i);
		if (q > best_q) {
			best_q = q;
			best = i;
		}
	}
	work_add(MLB_WK_DOMS, visited);
	return best;
}

/* An idle @cpu looks for work queued on other CPUs: its LLC, then its node, then the rest. */
static void idle_pull(u32 cpu)
{
	u32 dom = dom_of_cpu(cpu), victim, d;

	victim = mlb_busiest_cpu_in(dom, cpu);
	if (victim != NO_CPU && mlb_try_pull(cpu, victim)) {
		stat_inc(MLB_STAT_PULL_LLC);
		return;
	}
	d = busiest_dom(dom, true);
	if (d < MLB_MAX_DOMS) {
		victim = mlb_busiest_cpu_in(d, cpu);
		if (victim != NO_CPU && mlb_try_pull(cpu, victim)) {
			stat_inc(MLB_STAT_PULL_NODE);
			return;
		}
	}
	d = busiest_dom(dom, false);
	if (d < MLB_MAX_DOMS) {
		victim = mlb_busiest_cpu_in(d, cpu);
		if (victim != NO_CPU && mlb_try_pull(cpu, victim))
			stat_inc(MLB_STAT_PULL_REMOTE);
	}
}

void BPF_STRUCT_OPS(mlb_dispatch, s32 cpu, struct task_struct *prev)
{
	work_begin(MLB_WCB_DISPATCH);
	/*
	 * If prev is still runnable with slice left, the kernel keeps running it: a task
	 * fetched now would wait behind it in the local queue, invisible to idle CPUs and to
	 * the balancer. Fetch nothing.
	 */
	if (prev && (prev->scx.flags & SCX_TASK_QUEUED) && prev->scx.slice)
		return;
	if (scx_bpf_dsq_move_to_local(cpu, 0)) {
		stat_inc(MLB_STAT_DISPATCH_OWN);
		return;
	}
	/*
	 * prev's slice ran out but it is still runnable: with nothing else queued here the
	 * kernel keeps running it. Pulling is for CPUs that would otherwise idle; a busy CPU
	 * pulling work would only push prev out to be pulled elsewhere (migration churn).
	 */
	if (prev && (prev->scx.flags & SCX_TASK_QUEUED))
		return;
	idle_pull(cpu);
}

/*
 * @cpu goes idle (@idle) or back to work. An enqueue on another CPU can insert into this CPU's
 * queue after this CPU's dispatch found it empty and before the kernel marked it idle: it then
 * saw the CPU busy and did not kick it, and nothing else looks at that queue until a wake-up
 * or a pull comes by (in an idle system, possibly never: the watchdog's runnable task stall).
 * Going idle with its own queue not empty, the CPU kicks itself to dispatch again. With
 * SCX_OPS_KEEP_BUILTIN_IDLE the kernel's idle tracking stays on.
 */
void BPF_STRUCT_OPS(mlb_update_idle, s32 cpu, bool idle)
{
	if (!idle || !cpu_valid(cpu) || !scx_bpf_dsq_nr_queued(cpu))
		return;
	stat_inc(MLB_STAT_IDLE_REKICK);
	scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
}

/* An idle CPU near @cpu (its LLC, then its node), only looked at; NO_CPU if none. */
static u32 idle_cpu_near(u32 cpu)
{
	const struct cpumask *idle = scx_bpf_get_idle_cpumask();
	u32 dom = dom_of_cpu(cpu), node = node_of_dom(dom), found = NO_CPU, i, c, visited = 0;

	bpf_for(i, 0, nr_doms)
	{
		/* the CPU's own domain first, then the others of its node */
		u32 d = i == 0 ? dom : (i == dom ? 0 : i);
		const struct cpumask *m;

		if (node_of_dom(d) != node)
			continue;
		visited++;
		m = dom_mask(d);
		if (!m)
			continue;
		c = bpf_cpumask_any_and_distribute(m, idle);
		if (c < nr_cpus) {
			found = c;
			break;
		}
	}
	scx_bpf_put_idle_cpumask(idle);
	work_add(MLB_WK_DOMS, visited);
	return found;
}

#define MLB_KICK_GAP_NS 2000000ULL /* a busy CPU wakes an idle one at most this often */

/*
 * The running task's tick. While tasks wait on this CPU its slice is cut to its share of the
 * slice (mlb_run_slice(): slice / (waiting + 1), a batch task's at most slice / 4 while a
 * latency-critical task waits, at least slice_min_ns), so a task queued behind a CPU hog
 * does not wait out a whole slice; a batch task that has run lat_preempt_ns while a
 * latency-critical task waits ends now (the rule of lat_preempt(), for a waker that came
 * before the batch task had run that long). And when the queued work is worth moving while a CPU
 * nearby idles, that CPU is woken (at most every MLB_KICK_GAP_NS) to try an idle pull: the
 * seam still decides, and the wait bound makes sure an idle CPU takes a task that waited
 * too long.
 */
static void tick(struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u32 cpu = scx_bpf_task_cpu(p), n, nl, idle;
	u64 now, target, ran, allowed;
	struct cpu_ctx *c;

	if (!tctx || !tctx->running_at || !cpu_valid(cpu))
		return;
	n = scx_bpf_dsq_nr_queued(cpu);
	if (!n)
		return;
	c = lookup_cpu(cpu);
	if (!c)
		return;
	now = bpf_ktime_get_ns();
	nl = nr_lat_waiting(c);
	target = mlb_run_slice(task_slice(p), slice_min_ns, tctx->cls.cls, n, nl);
	ran = now - tctx->running_at;
	allowed = target > ran ? target - ran : 0;
	if (nl && p->scx.slice &&
	    mlb_may_preempt(MLB_CLASS_LAT, tctx->cls.cls, ran, lat_preempt_ns)) {
		allowed = 0;
		stat_inc(MLB_STAT_PREEMPT_LAT_BATCH);
	}
	if (p->scx.slice > allowed) {
		scx_bpf_task_set_slice(p, allowed);
		c->curr_end = now + allowed;
		stat_inc(MLB_STAT_SLICE_CUT);
	}
	if (c->queued_ns < (s64)move_cost_llc_us * 1000 || now - c->kick_at < MLB_KICK_GAP_NS)
		return;
	idle = idle_cpu_near(cpu);
	if (idle == NO_CPU)
		return;
	c->kick_at = now;
	stat_inc(MLB_STAT_TICK_KICK);
	scx_bpf_kick_cpu(idle, SCX_KICK_IDLE);
}

/* The tick comes in a hard interrupt, which may land inside the balancer's timer callback
 * (a softirq) on this CPU: the callback's work goes on being charged to it afterwards. */
void BPF_STRUCT_OPS(mlb_tick, struct task_struct *p)
{
	struct mlb_work *w = work_here();
	u64 prev = w ? w->cur : MLB_NR_WORK_CBS;

	work_begin(MLB_WCB_TICK);
	tick(p);
	w = work_here();
	if (w)
		w->cur = prev;
}

/*
 * account_migration - @p starts on @cpu, having last run on tctx->last_cpu: count the
 * change of CPU as chosen (the seam sent it here), forced (its affinity no longer allows the
 * old CPU) or unchosen, per topology level. Called from ops.running.
 */
static void account_migration(struct task_struct *p, struct task_ctx *tctx, u32 cpu, u64 now)
{
	u32 last = tctx->last_cpu, cls, level;

	if (last == NO_CPU || last == cpu) {
		if (last == NO_CPU)
			tctx->arrived_at = now;
		return;
	}
	level = cpu_level(last, cpu);
	if (tctx->chosen_cpu == cpu)
		cls = MLB_MIGR_CHOSEN;
	else if (!cpu_valid(last) || !bpf_cpumask_test_cpu(last, p->cpus_ptr))
		cls = MLB_MIGR_FORCED;
	else
		cls = MLB_MIGR_UNCHOSEN;
	stat_inc(MLB_STAT_CPU_MIGR);
	stat_inc(MLB_STAT_MIGR_CHOSEN + cls);
	stat_inc(MLB_STAT_MIGR_CHOSEN_CORE + cls * MLB_NR_LEVELS + level);
	tctx->recent_migr =
	    mlb_decay_toward(tctx->recent_migr, 0, now - tctx->migr_at, MLB_MIGR_HALF_LIFE_NS) +
	    MLB_FRAC_ONE;
	tctx->migr_at = now;
	tctx->arrived_at = now;
	probe_ran_on(tctx, cpu, now);
}

#endif /* __MLB_QUEUES_BPF_H */
