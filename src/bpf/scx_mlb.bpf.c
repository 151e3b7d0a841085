/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_mlb - a sched_ext scheduler with per-CPU queues whose every chosen change of CPU goes
 * through one decision seam, where a learned model can decide.
 *
 * WHAT IT DOES
 * Every CPU has its own deadline-ordered queue (DSQ id = CPU id; the key is vtime plus a term
 * of the task's burst, THE POLICY below). A queued task belongs to one
 * CPU, and only that CPU takes it without asking. CPUs are grouped into domains, one per
 * last-level cache within each NUMA node (the loader reads the grouping from sysfs and hands
 * it over in rodata): the domain is the unit of load accounting and the scope of balancing.
 * Inside a queue the scheduler is weighted fair: a task's vtime advances by
 * runtime * 100 / weight (at least a whole slice when its slice is gone, so sched_yield()
 * does not buy the head of the queue), and a task waking from sleep may not bank more than
 * one slice of credit against its CPU's clock. A task that changes CPU keeps its lag against
 * the clock of the CPU it leaves (vtime_rebase(), the one place vtime crosses queues).
 *
 * Tasks lighter than nice 0 get proportionally shorter slices (bounded waits under floods of
 * tasks), and while tasks wait on a CPU the running task's slice is cut to its share,
 * slice / (waiting + 1) but at least slice_min_ns (ops.tick), so a task queued behind a
 * CPU hog does not wait out a whole 20 ms slice.
 *
 * THE SEAM (seam.bpf.h)
 * Four places may move a task, and each asks decide_move() about one CPU-level move (task,
 * source CPU, destination CPU, kind):
 * - wake-up (ops.select_cpu, queues.bpf.h): the previous CPU if it is idle; otherwise the
 *   best idle CPU of the LLC (an idle SMT sibling, a whole idle core, any idle CPU) or, with
 *   none idle, the LLC's CPU with the least expected wait. If the seam says stay, the task
 *   queues on its busy previous CPU. Wake-ups never leave the LLC (nor does EEVDF's
 *   select_idle_sibling): longer moves are idle pulls, made once the wait proved real;
 * - push (ops.enqueue): a preempted task that would wait behind others while a CPU of its
 *   LLC or node idles;
 * - idle pull (ops.dispatch): a CPU with an empty queue looks at the busiest queue of its
 *   LLC, then of the busiest domain of its node, then of the other nodes;
 * - balance (balance.bpf.h): a BPF timer every balance interval moves queued tasks from the
 *   most to the least loaded domain, across nodes first, then inside each node, applied at
 *   once.
 * decide_move() fills struct mlb_features (include/mlb/intf.h: the features with their units
 * and ranges), asks the cost-aware heuristic (include/mlb/heuristic.h: move when the wait
 * the move saves exceeds its cost at that topology level) or, in infer mode, the deployed
 * network, and marks the task with the destination it chose. A task that has waited past
 * max_wait_ns moves to an idle destination whoever decided: work conservation. ops.tick
 * of a busy CPU with queued work wakes an idle CPU nearby so that it tries a pull.
 *
 * ACCOUNTING THAT PROVES IT (queues.bpf.h: account_migration)
 * At ops.running, a task on another CPU than it last ran on is counted as a chosen
 * migration (the seam sent it to this CPU), forced (its affinity no longer allows the old
 * CPU) or unchosen (anything else: the design means this to be none), per topology level.
 * Their sum is the kernel's own count of migrations of the tasks scx_mlb schedules.
 *
 * THE LEARNING LOOP (seam.bpf.h, model.bpf.h, probes.bpf.h)
 * rodata `mode` says who decides. In heuristic mode, the heuristic, and nothing is recorded.
 * Otherwise every decision is written to the `decisions` ring buffer with its features, and
 * the task is observed until the horizon: the waits of its next runs (runnable to running),
 * a run back on its source CPU within bounce_ns, the pair's imbalance at the end; the
 * `outcomes` ring buffer gets the result. The wait the other choice would have cost is the
 * expected wait, at decision time, at the CPU not chosen. In infer mode the deployed model
 * (two slots in the `models` map, published by user space with a generation under a
 * sequence number) scores the features with include/mlb/nn_fixed.h in mlb_model_run(): its
 * output is the move's predicted saving in ms, and the task moves when that exceeds the
 * move's cost at its topology level (mlb_saving_decide(), the heuristic's own cost); if no
 * model is valid or a swap raced the run, the heuristic decides. explore_ppm decisions in a
 * million go against the policy, and each record carries the probability its action was
 * taken with (prop_ppm), for evaluating other policies on the logged data. The deepest call chain
 * (balancer timer -> seam -> model -> layer) must fit BPF's 512-byte stack: the features are filled
 * in a frame of their own and the record lives in a per-CPU map, not on the stack.
 *
 * LOAD TRACKING (common.bpf.h; formulas in include/mlb/load.h)
 * Per task: duty = decayed runnable fraction, run_frac = decayed running fraction (half-
 * life load_half_life_ns), average burst = 7/8 old + 1/8 new run length, slice use = last
 * run / slice, wake frequency = 3/4 old + 1/4 (1 s / interval between wake-ups), recent
 * migrations = CPU changes decayed with a 1 s half-life. Per domain: runnable weight summed at
 * runnable() and removed at quiescent(), smoothed per balance round into the domain load.
 * Per CPU: the expected runs of its queued tasks (queue_account), and when its running task
 * started and is expected to stop: together the expected wait at that CPU (cpu_wait_ns).
 *
 * TASK CLASSES (include/mlb/class.h; common.bpf.h: class_observe_stop)
 * Each task is latency-critical, interactive or batch, learned from what it does: its burst,
 * wake-up frequency, the regularity of its wake-ups (ops.runnable) and its slice use (a run
 * ending still runnable used all it was given; ops.stopping, where the class is evaluated),
 * with hysteresis (looser thresholds to stay than to enter, and four agreeing evaluations to
 * change). The class is a feature (task_class) and three gauges (class_lat, class_inter,
 * class_batch, counted from ops.enable to ops.disable). The policy (below) reads it for
 * preemption and slices, and the idle CPU choice of a machine whose CPUs differ in capacity
 * for placement; the seam's decisions see it only as a feature.
 *
 * THE POLICY (include/mlb/policy.h; queues.bpf.h: ops.enqueue, tick; scx_mlb.bpf.c: running)
 * - Deadlines: a task is queued with key = vtime + min(burst, slice) * 100 / weight, the term
 *   at most one slice (task_dl_key(); the balancer's moves use the same key). A 0.3 ms waker
 *   runs before a CPU hog of equal vtime; vtime itself still advances by what each task ran,
 *   so CPU shares follow vtime over time, the key order differing from vtime order by at most
 *   one slice. vtime, vtime_rebase() and the queue clock never see the term.
 * - Preemption: a latency-critical task waking onto a CPU whose running task is batch and has
 *   run lat_preempt_ns (--lat-preempt-us, 1 ms) kicks it with SCX_KICK_PREEMPT; the tick
 *   applies the same rule to one that woke before the batch task had run that long. Never a
 *   latency-critical or interactive victim, never another class as the waker. The running
 *   task's class and start come from cpu_ctx (curr_cls, curr_at: ops.running writes them,
 *   ops.stopping clears curr_at), so it needs no scx_bpf_cpu_curr() and works from 6.16.
 *   Counted in preempt_lat_batch. Such a waker expects no wait at its CPU (src_wait_us 0).
 * - Slices: while tasks wait on a CPU the running task's slice is slice / (waiting + 1), a
 *   batch task's at most slice / 4 while a latency-critical task is among them (cpu_ctx
 *   nr_lat_queued, kept with the queued work), never below slice_min_ns.
 * - Placement: among idle CPUs of different capacities latency-critical tasks take the
 *   highest (below); on symmetric machines any idle CPU is as good, and a waking task takes
 *   its idle previous CPU first.
 * Limits: lat_would_preempt() reads another CPU's cpu_ctx without a lock, so a kick that
 * lands just after the batch task stopped preempts whatever started in those microseconds;
 * the kick ends the running slice whatever the queue's head is, and the head by deadline is
 * the waker in all but contrived cases (a queued task whose vtime is over a slice behind). A
 * task must show its regular short runs to become latency-critical: beside a hog that delays
 * it past its period (slices cut only to slice / 2 for interactive wakers) it may not.
 *
 * CPUS OF DIFFERENT CAPACITIES (include/mlb/place.h; queues.bpf.h: choose_idle)
 * Where sysfs reports asymmetric cpu_capacity (the smallest below 7/8 of the largest: Arm
 * big.LITTLE, hybrid cores), the loader sets rodata cap_asym, and the idle CPU a wake-up or
 * a push offers to the seam is ranked by capacity first: latency-critical and heavy tasks
 * prefer the big CPUs, batch tasks the others, then the usual preference (sibling, whole
 * idle core, any idle CPU). Elsewhere cap_asym is 0, a load-time constant, and the choice is
 * scan_idle()'s as before. Limits: a task whose previous CPU is idle keeps it (leaving an
 * idle CPU saves no wait, so the seam would not move it), and wake-ups stay in the LLC, so
 * on machines whose big and little cores have separate LLCs it changes nothing.
 *
 * THE PARTS
 * common.bpf.h (state, helpers, load, expected waits), probes.bpf.h (outcomes),
 * seam.bpf.h (features, decisions), model.bpf.h (the deployed model), queues.bpf.h (placement,
 * queues, pulls, tick, migration accounting), balance.bpf.h (the timer); this file: the task life
 * cycle, init/exit and the ops table. They are included in that order into one object, so the
 * verifier sees one program per callback, as before the split.
 *
 * WHERE IT WORKS, HOW IT FAILS
 * Correctness rests on the kernel: a task is queued on a CPU its cpumask allows (enqueue
 * repairs it), a CPU only takes tasks allowed on it, and pinned or migration-disabled tasks
 * are never offered for a move. The watchdog (timeout_ms) aborts the scheduler if a task
 * starves, and the kernel then runs everything in the fair class. Known limits: expected
 * waits are estimates from average bursts, so a queue of tasks whose bursts change
 * abruptly is misjudged for a while; domain load counts only runnable weight; the per-CPU
 * and per-domain sums are updated without locks, so racing moves can leave them slightly off
 * (they are clamped at zero where read); an idle CPU only pulls when it is woken, so work
 * conservation rests on the tick's kick, the wait bound and, for a task queued on a CPU as it
 * went idle, that CPU's kick of itself (ops.update_idle, counted in idle_rekick); balancing moves
 * only queued tasks, never a running one; a hotplug event restarts the scheduler (the loader
 * reattaches).
 */
/*
 * Kernels. One object runs on every sched_ext kernel Debian ships (6.16 to 7.3; trixie's 6.12
 * has sched_ext off). It is built against include/vmlinux/vmlinux.h.xz (the newest of them) and
 * upstream's sched_ext headers (include/scx, vendored from the same kernel's source), whose
 * compat layer picks each kfunc's form at load time (bpf_ksym_exists(), constant for the
 * verifier) and whose enum values are read from the running kernel's BTF by the loader
 * (SCX_OPS_OPEN). Differences that matter here: scx_bpf_cpu_curr() exists from 6.18
 * (--wake-preempt-us is off before; the loader says so; the class rule's preemption does not
 * need it), scx_bpf_task_set_slice() from
 * 6.19 (a direct write before). tests/run.sh's kernel matrix loads this object on the oldest,
 * the newest 6.18 and the newest of those kernels.
 */
#include <scx/common.bpf.h>

#include "mlb/intf.h"
#include "mlb-version.h" /* MLB_GIT, for MLB_OPS_NAME */
#include "mlb/options.h"
#include "mlb/load.h"
#include "mlb/bits.h"
#include "mlb/heuristic.h"
#include "mlb/class.h"
#include "mlb/place.h"
#include "mlb/policy.h"
#include "mlb/nn_fixed.h"

char _license[] SEC("license") = "GPL";

#include "common.bpf.h"
#include "probes.bpf.h"
#include "seam.bpf.h"
#include "queues.bpf.h"
#include "balance.bpf.h"

/* ---- task life cycle ------------------------------------------------------------------ */

void BPF_STRUCT_OPS(mlb_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u64 now = bpf_ktime_get_ns();

	if (!tctx)
		return;
	update_fracs(tctx, now, false, false); /* it slept until now */
	if (tctx->woke_at) {
		tctx->wake_freq = mlb_wake_freq_next(tctx->wake_freq, now - tctx->woke_at);
		mlb_class_wake(&tctx->cls, now - tctx->woke_at);
	}
	tctx->woke_at = now;
	tctx->ready_at = now;
	dom_add_runnable(tctx, dom_of_cpu(scx_bpf_task_cpu(p)), p->scx.weight);
}

void BPF_STRUCT_OPS(mlb_running, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u32 cpu = scx_bpf_task_cpu(p), n;
	u64 now = bpf_ktime_get_ns(), slice;
	struct cpu_ctx *c;

	work_begin(MLB_WCB_RUNNING);
	if (!tctx || !cpu_valid(cpu))
		return;
	account_migration(p, tctx, cpu, now);
	tctx->last_cpu = cpu;
	tctx->chosen_cpu = NO_CPU;
	queue_unaccount(tctx);
	dom_move_runnable(tctx, dom_of_cpu(cpu));
	vtime_rebase(tctx, cpu);
	update_fracs(tctx, now, true, false); /* runnable, waiting */
	tctx->running_at = now;
	c = lookup_cpu(cpu);
	if (tctx->ready_at) {
		probe_run(tctx, c, lookup_dom(dom_of_cpu(cpu)), now - tctx->ready_at, now);
		tctx->ready_at = 0;
	}
	if (!c)
		return;
	if ((s64)(tctx->vtime - c->vtime_now) > 0)
		c->vtime_now = tctx->vtime;
	/* Its share of the slice while others wait here (see mlb_tick). */
	n = scx_bpf_dsq_nr_queued(cpu);
	if (n) {
		slice =
		    mlb_run_slice(task_slice(p), slice_min_ns, tctx->cls.cls, n, nr_lat_waiting(c));
		if (p->scx.slice > slice)
			scx_bpf_task_set_slice(p, slice);
	}
	c->curr_cls = tctx->cls.cls; /* before curr_at: lat_would_preempt() reads them */
	c->curr_at = now;
	c->curr_exp_ns = task_exp_run(p, tctx);
	c->curr_end = now + p->scx.slice;
}

void BPF_STRUCT_OPS(mlb_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u64 now = bpf_ktime_get_ns(), ran, slice, weight = p->scx.weight ?: 1;
	struct cpu_ctx *c;

	work_begin(MLB_WCB_STOPPING);
	if (!tctx || !tctx->running_at)
		return;
	c = lookup_cpu(scx_bpf_task_cpu(p));
	if (c)
		c->curr_at = 0;
	ran = now - tctx->running_at;
	slice = task_slice(p);
	/* A task whose slice is gone (used up, cut, or given away by sched_yield()) pays at
	 * least its share: yielders would otherwise keep the head of the queue forever. */
	tctx->vtime += (p->scx.slice || ran >= slice ? ran : slice) * MLB_WEIGHT_DFL / weight;
	tctx->burst_ns = mlb_burst_next(tctx->burst_ns, ran);
	tctx->slice_use = ran >= slice ? MLB_FRAC_ONE : ran * MLB_FRAC_ONE / slice;
	class_observe_stop(tctx, ran, slice, runnable);
	update_fracs(tctx, now, true, true);
	tctx->running_at = 0;
	tctx->stopped_at = now;
	if (runnable) /* preempted or out of slice: it waits again from now */
		tctx->ready_at = now;
}

void BPF_STRUCT_OPS(mlb_quiescent, struct task_struct *p, u64 deq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	if (!tctx)
		return;
	update_fracs(tctx, bpf_ktime_get_ns(), true, false);
	dom_remove_runnable(tctx);
}

void BPF_STRUCT_OPS(mlb_set_weight, struct task_struct *p, u32 weight)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u32 dom;

	if (!tctx || !tctx->acct_wt)
		return;
	dom = tctx->acct_dom;
	dom_remove_runnable(tctx);
	dom_add_runnable(tctx, dom, weight);
}

s32 BPF_STRUCT_OPS(mlb_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	struct task_ctx *tctx;
	u64 now = bpf_ktime_get_ns();

	tctx = bpf_task_storage_get(&task_ctxs, p, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!tctx)
		return -ENOMEM;
	__sync_fetch_and_add(&nr_task_ctxs, 1);
	tctx->last_cpu = NO_CPU;
	tctx->chosen_cpu = NO_CPU;
	tctx->q_cpu = NO_CPU;
	tctx->waker_cpu = NO_CPU;
	tctx->vclock_cpu = scx_bpf_task_cpu(p);
	tctx->duty_at = now;
	tctx->stopped_at = now;
	tctx->duty = MLB_FRAC_ONE / 2; /* unknown: start in the middle */
	mlb_class_init(&tctx->cls);
	return 0;
}

void BPF_STRUCT_OPS(mlb_enable, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	struct cpu_ctx *c;

	__sync_fetch_and_add(&nr_tasks, 1);
	if (!tctx)
		return;
	class_count(tctx, true);
	c = lookup_cpu(tctx->vclock_cpu);
	if (c)
		tctx->vtime = c->vtime_now;
}

void BPF_STRUCT_OPS(mlb_disable, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	__sync_fetch_and_sub(&nr_tasks, 1);
	if (tctx) {
		dom_remove_runnable(tctx);
		queue_unaccount(tctx);
		class_count(tctx, false);
	}
}

/*
 * A task leaves scx_mlb (it exited, or the scheduler is going away): free its context now
 * rather than when the task_struct is freed, so nr_task_ctxs shows what is really held.
 */
void BPF_STRUCT_OPS(mlb_exit_task, struct task_struct *p, struct scx_exit_task_args *args)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	if (tctx)
		probe_end(tctx, bpf_ktime_get_ns(), MLB_OUT_EXITED);
	if (!bpf_task_storage_delete(&task_ctxs, p))
		__sync_fetch_and_sub(&nr_task_ctxs, 1);
}

/* ---- init and exit -------------------------------------------------------------------- */

static s32 init_dom(u32 dom)
{
	struct bpf_cpumask *mask;
	struct dom_ctx *d;
	u32 cpu;

	d = lookup_dom(dom);
	if (!d)
		return -ENOENT;
	mask = bpf_cpumask_create();
	if (!mask)
		return -ENOMEM;
	bpf_for(cpu, 0, nr_cpus)
	{
		if (dom_cpus[IDX(dom, MLB_MAX_DOMS)][IDX(cpu / 64, MLB_CPUMASK_WORDS)] &
		    (1ULL << (cpu % 64)))
			bpf_cpumask_set_cpu(cpu, mask);
	}
	mask = bpf_kptr_xchg(&d->cpumask, mask);
	if (mask)
		bpf_cpumask_release(mask);
	return 0;
}

/* CPU @cpu's queue (on its node) and scratch mask. */
static s32 init_cpu(u32 cpu)
{
	struct scratch_mask *s = bpf_map_lookup_elem(&scratch_masks, &cpu);
	struct bpf_cpumask *mask;
	s32 ret;

	ret = scx_bpf_create_dsq(cpu, node_of_cpu(cpu));
	if (ret)
		return ret;
	if (!s)
		return -ENOENT;
	mask = bpf_cpumask_create();
	if (!mask)
		return -ENOMEM;
	mask = bpf_kptr_xchg(&s->mask, mask);
	if (mask)
		bpf_cpumask_release(mask);
	return 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(mlb_init)
{
	struct balance_timer *bt;
	u32 i, key = 0;
	s32 ret;

	heur_params_init();
	bpf_for(i, 0, nr_doms)
	{
		ret = init_dom(i);
		if (ret) {
			scx_bpf_error("domain %u init failed: %d", i, ret);
			return ret;
		}
	}
	bpf_for(i, 0, nr_cpus)
	{
		ret = init_cpu(i);
		if (ret) {
			scx_bpf_error("cpu %u init failed: %d", i, ret);
			return ret;
		}
	}
	bt = bpf_map_lookup_elem(&balance_timers, &key);
	if (!bt)
		return -ENOENT;
	bpf_timer_init(&bt->timer, &balance_timers, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&bt->timer, balance_timerfn);
	return bpf_timer_start(&bt->timer, balance_interval_ns, 0);
}

/*
 * The debug dump (sysrq-D, and the kernel's dump at an error exit, which the loader prints):
 * scx_mlb's own state beside the kernel's view. Per domain its load and queue, per CPU its
 * queue clock and expected wait, per runnable task where scx_mlb queued it and since when.
 */
_Static_assert(MLB_LOAD_ONE == 1024 && MLB_FRAC_ONE == 1024, "the dump prints 1024ths");

void BPF_STRUCT_OPS(mlb_dump, struct scx_dump_ctx *dctx)
{
	u32 i;

	scx_bpf_dump("scx_mlb: mode %u, model generation %u, %u domains, %lld tasks\n", mode,
		     model_gen_seen, nr_doms, nr_tasks);
	bpf_for(i, 0, nr_doms)
	{
		struct dom_ctx *d = lookup_dom(i);

		if (!d)
			break;
		scx_bpf_dump("scx_mlb: dom %u: load %llu/1024, queued %lld, avg wait %llu us\n", i,
			     d->load, d->nr_queued, d->avg_wait_ns / 1000);
	}
}

void BPF_STRUCT_OPS(mlb_dump_cpu, struct scx_dump_ctx *dctx, s32 cpu, bool idle)
{
	struct cpu_ctx *c = lookup_cpu(cpu);
	u64 now = bpf_ktime_get_ns();

	if (!c)
		return;
	scx_bpf_dump(
	    "scx_mlb: cpu: queued work %llu us, expected wait %llu us, running for %llu us, "
	    "clock %llu\n",
	    c->queued_ns > 0 ? (u64)c->queued_ns / 1000 : 0, cpu_wait_ns(cpu, now) / 1000,
	    c->curr_at && now > c->curr_at ? (now - c->curr_at) / 1000 : 0, c->vtime_now);
}

void BPF_STRUCT_OPS(mlb_dump_task, struct scx_dump_ctx *dctx, struct task_struct *p)
{
	struct task_ctx *t = lookup_task_ctx(p);
	u64 now = bpf_ktime_get_ns();

	if (!t)
		return;
	scx_bpf_dump(
	    "scx_mlb: task: queue cpu %d, last cpu %d, chosen cpu %d (-1: none), vtime %llu\n",
	    (s32)t->q_cpu, (s32)t->last_cpu, (s32)t->chosen_cpu, t->vtime);
	scx_bpf_dump(
	    "scx_mlb: task: runnable for %llu us, stopped %llu us ago, burst %llu us, duty "
	    "%u/1024\n",
	    t->ready_at && now > t->ready_at ? (now - t->ready_at) / 1000 : 0,
	    t->stopped_at && now > t->stopped_at ? (now - t->stopped_at) / 1000 : 0,
	    t->burst_ns / 1000, t->duty * 1024 / MLB_FRAC_ONE);
	scx_bpf_dump("scx_mlb: task: class %u (0 latency-critical, 1 interactive, 2 batch), "
		     "wake-ups %u/s, period %u us, jitter %u us, slice use %u/1024\n",
		     (u32)t->cls.cls, t->wake_freq, t->cls.period_us, t->cls.jitter_us,
		     (u32)t->cls.use * 1024 / MLB_FRAC_ONE);
}

/* Record the exit for the loader (upstream's exit-info macro): at an error exit the kernel's
 * debug dump comes too; kind is written last, since the loader polls it. */
void BPF_STRUCT_OPS(mlb_exit, struct scx_exit_info *ei)
{
	UEI_RECORD(uei, ei);
}

_Static_assert(sizeof(MLB_OPS_NAME) <= sizeof(((struct sched_ext_ops *)0)->name),
	       "the ops name fits the kernel's");

SEC(".struct_ops.link")
struct sched_ext_ops mlb_ops = {
    .select_cpu = (void *)mlb_select_cpu,
    .enqueue = (void *)mlb_enqueue,
    .dequeue = (void *)mlb_dequeue,
    .dispatch = (void *)mlb_dispatch,
    .update_idle = (void *)mlb_update_idle,
    .tick = (void *)mlb_tick,
    .runnable = (void *)mlb_runnable,
    .running = (void *)mlb_running,
    .stopping = (void *)mlb_stopping,
    .quiescent = (void *)mlb_quiescent,
    .set_weight = (void *)mlb_set_weight,
    .init_task = (void *)mlb_init_task,
    .exit_task = (void *)mlb_exit_task,
    .enable = (void *)mlb_enable,
    .disable = (void *)mlb_disable,
    .init = (void *)mlb_init,
    .exit = (void *)mlb_exit,
    .dump = (void *)mlb_dump,
    .dump_cpu = (void *)mlb_dump_cpu,
    .dump_task = (void *)mlb_dump_task,
    .flags = SCX_OPS_KEEP_BUILTIN_IDLE, /* ops.update_idle and the kernel's idle tracking */
    .timeout_ms = MLB_DEF_WATCHDOG_MS,	/* --watchdog-ms */
    .name = MLB_OPS_NAME,
};
