/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.bpf.h - the state every part of scx_mlb's BPF side shares: the topology and
 * tunables handed over by the loader (rodata), the per-task, per-CPU and per-domain
 * contexts, the maps, small helpers, and load tracking (the formulas are in
 * include/mlb/load.h). Included first by scx_mlb.bpf.c; owns no callback.
 */
#ifndef __MLB_COMMON_BPF_H
#define __MLB_COMMON_BPF_H

#define CLOCK_MONOTONIC 1

/*
 * IDX(v, n): @v masked to [0, n) for a power-of-two n, in an asm statement the compiler can
 * neither drop nor hoist, so the verifier sees every array index bounded where it is used
 * (clang otherwise folds range checks into forms the verifier cannot follow). Callers keep
 * indexes in range anyway; the mask only proves it.
 */
#define IDX(v, n)                                                                                  \
	({                                                                                         \
		u64 ___v = (v);                                                                    \
		asm volatile("%0 &= %1" : "+r"(___v) : "i"((n)-1));                                \
		___v;                                                                              \
	})

#define NO_CPU ((u32)-1)

#define READ_ONCE_U64(x) (*(volatile u64 *)&(x))
#define READ_ONCE_U32(x) (*(volatile u32 *)&(x))

/* Topology, filled by the loader between open and load. */
const volatile u32 nr_cpus = 1;
const volatile u32 nr_doms = 1;
const volatile u32 nr_nodes = 1;
const volatile u32 cpu_dom[MLB_MAX_CPUS];
const volatile u32 cpu_core[MLB_MAX_CPUS];     /* lowest CPU id of its core (SMT siblings) */
const volatile u32 cpu_capacity[MLB_MAX_CPUS]; /* 1024 = the largest CPU */
/* 1: capacities differ (include/mlb/place.h): idle CPUs are chosen by capacity and class.
 * 0 (symmetric machines): a load-time constant, so the verifier drops that code. */
const volatile u32 cap_asym = 0;
const volatile u32 dom_node[MLB_MAX_DOMS];
const volatile u32 dom_nr_cpus[MLB_MAX_DOMS];
const volatile u32 dom_first_cpu[MLB_MAX_DOMS];	  /* domain CPUs as a list: the first, then */
const volatile u32 cpu_next_in_dom[MLB_MAX_CPUS]; /* ... each one's next, NO_CPU at the end */
const volatile u64 dom_cpus[MLB_MAX_DOMS][MLB_CPUMASK_WORDS];
const volatile u8 node_dist[MLB_MAX_NODES][MLB_MAX_NODES];
const volatile u64 node_doms[MLB_MAX_NODES]; /* bit d: domain d is on the node */

/*
 * Tunables. The loader writes every one of them; the initialisers are the defaults of the
 * options they come from (MLB_DEF_<ID>, include/mlb/options.h, where --help's text is too).
 */
const volatile u64 slice_ns = MLB_DEF_SLICE_US * 1000ULL;
const volatile u64 slice_min_ns = MLB_DEF_SLICE_MIN_US * 1000ULL;
const volatile u64 balance_interval_ns = MLB_DEF_INTERVAL_MS * 1000000ULL;
const volatile u64 load_half_life_ns = MLB_DEF_HALF_LIFE_MS * 1000000ULL;
const volatile u64 migr_cost_ns = MLB_DEF_MIGR_COST_US * 1000ULL;
const volatile u64 max_wait_ns = MLB_DEF_MAX_WAIT_MS * 1000000ULL;
const volatile u32 imbal_pct = MLB_DEF_IMBAL_PCT;
const volatile u32 numa_imbal_pct = MLB_DEF_NUMA_IMBAL_PCT;
const volatile u32 max_recent_migr = MLB_DEF_MAX_RECENT_MIGR;
const volatile u32 max_balance_moves = 4; /* not an option */
const volatile u32 move_cost_core_us = MLB_DEF_MOVE_COST_CORE_US;
const volatile u32 move_cost_llc_us = MLB_DEF_MOVE_COST_LLC_US;
const volatile u32 move_cost_xllc_us = MLB_DEF_MOVE_COST_XLLC_US;
const volatile u32 move_cost_node_us = MLB_DEF_MOVE_COST_NODE_US;
const volatile u64 wake_preempt_ns = MLB_DEF_WAKE_PREEMPT_US * 1000ULL; /* 0: never preempts */
/* The minimum slice of a batch task before a latency-critical waker may preempt it
 * (include/mlb/policy.h); 0: never. */
const volatile u64 lat_preempt_ns = MLB_DEF_LAT_PREEMPT_US * 1000ULL;
/* The learning loop (see THE LEARNING LOOP in scx_mlb.bpf.c). */
const volatile u32 mode = MLB_MODE_HEURISTIC; /* enum mlb_mode: --mode heuristic */
const volatile u32 explore_ppm = 0; /* decisions against the policy, per 10^6: none in heuristic */
const volatile u32 control_ppm = 0; /* with a model, decisions left to the heuristic, per 10^6 */
const volatile u64 horizon_ns = MLB_DEF_HORIZON_MS * 1000000ULL; /* a decision's observation */
const volatile u64 bounce_ns = MLB_DEF_BOUNCE_MS * 1000000ULL; /* a move back within it: a bounce */

/* Read by user space. */
struct mlb_dom_stat dom_stats[MLB_MAX_DOMS];
UEI_DEFINE(uei);  /* the exit's kind, code, reason, message and debug dump, for the loader */
s64 nr_tasks;	  /* tasks currently scheduled by scx_mlb */
s64 nr_task_ctxs; /* task contexts allocated (init_task) and not yet freed (exit_task) */
/*
 * Bit d: domain d has tasks queued on its CPUs (nr_queued > 0), so that an idle pull visits
 * only those domains, not all of them. Kept exact by queue_account/queue_unaccount (see
 * there); the balance round also sets the bit of every domain it finds with queued tasks.
 */
u64 queued_doms;
_Static_assert(MLB_MAX_DOMS <= 64, "queued_doms and node_doms hold one bit per domain");

#define MLB_SEC_NS	      1000000000ULL
#define MLB_MIGR_HALF_LIFE_NS MLB_SEC_NS
#define MLB_MAX_CANDIDATES    8	 /* queued tasks one pull or balance step looks at */
#define MLB_MAX_LLC_SCAN      64 /* CPUs of one domain a scan visits */

struct task_ctx {
	u32 last_cpu;	 /* CPU it last ran on, NO_CPU before its first run */
	u32 chosen_cpu;	 /* where the seam last sent it, NO_CPU when nothing is pending */
	u32 q_cpu;	 /* CPU whose queued work holds q_ns, NO_CPU when not queued */
	u32 vclock_cpu;	 /* CPU whose clock vtime is relative to */
	u64 q_ns;	 /* expected run counted in q_cpu's queued work */
	u32 acct_dom;	 /* domain whose runnable sum holds acct_wt */
	u32 acct_wt;	 /* weight added there, 0 when not runnable */
	u64 vtime;	 /* weighted virtual time */
	u64 duty_at;	 /* last duty/run_frac update */
	u32 duty;	 /* decayed runnable fraction, MLB_FRAC_ONE = 1 */
	u32 run_frac;	 /* decayed running fraction */
	u64 running_at;	 /* 0 when not running */
	u64 stopped_at;	 /* when it last stopped running */
	u64 woke_at;	 /* last wake-up */
	u64 arrived_at;	 /* when it came to last_cpu (first run there) */
	u64 burst_ns;	 /* decayed average run length */
	u32 slice_use;	 /* last run / slice, MLB_FRAC_ONE = whole slice */
	u32 wake_freq;	 /* decayed wake-ups per second */
	u64 migr_at;	 /* last CPU change */
	u32 recent_migr; /* decayed CPU changes, MLB_FRAC_ONE per change */
	u32 waker_cpu;	 /* CPU of the task that last woke it, NO_CPU if none */
	u64 ready_at;	 /* when it last became runnable (woke up or was preempted) */
	/* Observation of the last recorded decision about this task (pr_id 0: none). */
	u64 pr_id;
	u64 pr_at;	    /* decision time */
	u64 pr_wait;	    /* total wait over the runs since */
	u64 pr_first;	    /* wait before the first run since, ~0 before it */
	u64 pr_est_other;   /* expected wait at the CPU not chosen */
	u32 pr_src, pr_dst; /* CPUs */
	u32 pr_runs;
	u32 pr_flags;
	s32 pr_imbal;	/* IMBALANCE feature at the decision */
	u8 pr_migrate;	/* the decision */
	u8 cls_counted; /* its class is counted in the class gauges (enabled, not disabled) */
	u8 q_lat;	/* counted in q_cpu's nr_lat_queued (queued as latency-critical) */
	u8 pad2;
	struct mlb_class_ctx cls; /* its class and the classifier's state (include/mlb/class.h) */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctxs SEC(".maps");

/*
 * Per CPU: its queue's clock and expected work, and what it is running. curr_cls is how a
 * waking task on another CPU learns the running task's class without scx_bpf_cpu_curr()
 * (absent before 6.18): written in ops.running, valid while curr_at is not 0.
 */
struct cpu_ctx {
	u64 vtime_now;	   /* the queue's clock: largest vtime started here */
	s64 queued_ns;	   /* expected runs of the tasks queued on it */
	u64 curr_at;	   /* when the running task started, 0 when idle */
	u64 curr_exp_ns;   /* how long that run is expected to last */
	u64 curr_end;	   /* when its slice runs out */
	u64 avg_wait_ns;   /* smoothed wait per run of the tasks that ran here */
	u64 kick_at;	   /* when its tick last woke an idle CPU */
	u32 curr_cls;	   /* class of the running task (enum mlb_class) */
	s32 nr_lat_queued; /* latency-critical tasks queued on it */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MLB_MAX_CPUS);
	__type(key, u32);
	__type(value, struct cpu_ctx);
} cpu_ctxs SEC(".maps");

struct dom_ctx {
	s64 runnable_wt;   /* sum of the weights of its runnable tasks */
	s64 nr_queued;	   /* tasks queued on its CPUs */
	u64 load;	   /* smoothed load, MLB_LOAD_ONE units (whole domain) */
	u32 balance_fails; /* consecutive rounds it was overloaded and nothing moved */
	u32 pad;
	u64 avg_wait_ns; /* smoothed run-queue wait per run (7/8 old + 1/8 new) */
	struct bpf_cpumask __kptr *cpumask;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MLB_MAX_DOMS);
	__type(key, u32);
	__type(value, struct dom_ctx);
} dom_ctxs SEC(".maps");

/* Per-CPU scratch cpumask for the ops (the balancer timer needs none). */
struct scratch_mask {
	struct bpf_cpumask __kptr *mask;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MLB_MAX_CPUS);
	__type(key, u32);
	__type(value, struct scratch_mask);
} scratch_masks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MLB_NR_STATS);
	__type(key, u32);
	__type(value, u64);
} stats SEC(".maps");

/* Work per call (struct mlb_work in include/mlb/intf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct mlb_work);
} work SEC(".maps");

/* ---- small helpers ------------------------------------------------------------------- */

static void stat_inc(u32 idx)
{
	u64 *cnt = bpf_map_lookup_elem(&stats, &idx);

	if (cnt)
		(*cnt)++;
}

/*
 * rb_output - bpf_ringbuf_output() of @size bytes at @data to the ring buffer @rb without
 * waking its reader, unless the ring is half full. Waking the daemon for every record made
 * it a task the scheduler placed once per record, each placement a decision recorded in
 * turn: a feedback loop (a 19 s build made 48,700 decisions and 81,900 context switches in
 * infer mode, 3,000 and 11,300 in heuristic mode). The daemon reads both rings every 100 ms.
 */
static long rb_output(void *rb, void *data, u64 size)
{
	u64 flags =
	    bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) > bpf_ringbuf_query(rb, BPF_RB_RING_SIZE) / 2
		? BPF_RB_FORCE_WAKEUP
		: BPF_RB_NO_WAKEUP;

	return bpf_ringbuf_output(rb, data, size, flags);
}

/* Add @delta to class @cls's gauge on this CPU (atomic: a gauge that lost an update would
 * stay wrong). */
static void class_gauge_add(u32 cls, s64 delta)
{
	u32 idx = MLB_STAT_CLASS_LAT + (cls < MLB_NR_CLASSES ? cls : 0);
	u64 *cnt = bpf_map_lookup_elem(&stats, &idx);

	if (cnt)
		__sync_fetch_and_add(cnt, (u64)delta);
}

/* A task enters (@enter, at ops.enable) or leaves (at ops.disable) the gauges of the classes
 * (stats class_lat, class_inter, class_batch). */
static void class_count(struct task_ctx *tctx, bool enter)
{
	if (enter == !!tctx->cls_counted)
		return;
	class_gauge_add(tctx->cls.cls, enter ? 1 : -1);
	tctx->cls_counted = enter;
}

/*
 * class_observe_stop - a run of @ran ns of the task of @tctx ended (@runnable: it did not go
 * to sleep), its full slice being @slice: feed the classifier (include/mlb/class.h), with the
 * burst and wake frequency just updated, and move the task between the class gauges when its
 * class changes. The class is counted, offered to the model, and read by the policy
 * (include/mlb/policy.h: preemption, slices) and by the capacity-aware idle CPU choice.
 */
static void class_observe_stop(struct task_ctx *tctx, u64 ran, u64 slice, bool runnable)
{
	u32 old = tctx->cls.cls;

	mlb_class_stop(&tctx->cls, ran, slice, runnable);
	if (!mlb_class_update(&tctx->cls, tctx->burst_ns, tctx->wake_freq) || !tctx->cls_counted)
		return;
	class_gauge_add(old, -1);
	class_gauge_add(tctx->cls.cls, 1);
}

static struct mlb_work *work_here(void)
{
	u32 key = 0;

	return bpf_map_lookup_elem(&work, &key);
}

/* Callback @cb starts on this CPU: count the call, and charge the helpers' work to it. */
static void work_begin(u32 cb)
{
	struct mlb_work *w = work_here();

	if (w && cb < MLB_NR_WORK_CBS) {
		w->cur = cb;
		w->n[cb][MLB_WK_CALLS]++;
	}
}

/* @n units of work of kind @kind, charged to the callback running on this CPU. */
static void work_add(u32 kind, u64 n)
{
	struct mlb_work *w = work_here();
	u64 cb;

	if (!w || kind >= MLB_NR_WORK_KINDS)
		return;
	cb = w->cur;
	if (cb < MLB_NR_WORK_CBS)
		w->n[cb][kind] += n;
}

/* One domain's CPUs scanned (@cpus of them): a domain visit and its CPU scans, one lookup. */
static void work_scan(u64 cpus)
{
	struct mlb_work *w = work_here();
	u64 cb;

	if (!w)
		return;
	cb = w->cur;
	if (cb < MLB_NR_WORK_CBS) {
		w->n[cb][MLB_WK_DOMS]++;
		w->n[cb][MLB_WK_CPUS] += cpus;
	}
}

static struct task_ctx *lookup_task_ctx(struct task_struct *p)
{
	return bpf_task_storage_get(&task_ctxs, p, NULL, 0);
}

static struct dom_ctx *lookup_dom(u32 dom)
{
	return bpf_map_lookup_elem(&dom_ctxs, &dom);
}

static struct cpu_ctx *lookup_cpu(u32 cpu)
{
	return bpf_map_lookup_elem(&cpu_ctxs, &cpu);
}

static bool cpu_valid(u32 cpu)
{
	return cpu < nr_cpus && cpu < MLB_MAX_CPUS;
}

static u32 dom_of_cpu(u32 cpu)
{
	return cpu_valid(cpu) ? cpu_dom[IDX(cpu, MLB_MAX_CPUS)] : 0;
}

static u32 node_of_dom(u32 dom)
{
	return dom_node[IDX(dom, MLB_MAX_DOMS)];
}

static u32 node_of_cpu(u32 cpu)
{
	return node_of_dom(dom_of_cpu(cpu));
}

static bool same_core(u32 a, u32 b)
{
	return cpu_valid(a) && cpu_valid(b) &&
	       cpu_core[IDX(a, MLB_MAX_CPUS)] == cpu_core[IDX(b, MLB_MAX_CPUS)];
}

/* Topology level of a move from CPU @a to CPU @b (enum mlb_level). */
static u32 cpu_level(u32 a, u32 b)
{
	if (same_core(a, b))
		return MLB_LEVEL_CORE;
	if (dom_of_cpu(a) == dom_of_cpu(b))
		return MLB_LEVEL_LLC;
	if (node_of_cpu(a) == node_of_cpu(b))
		return MLB_LEVEL_NODE;
	return MLB_LEVEL_REMOTE;
}

static u32 dom_cpu_count(u32 dom)
{
	u32 n = dom_nr_cpus[IDX(dom, MLB_MAX_DOMS)];

	return n ? n : 1;
}

/* The domain's cpumask (RCU-protected kptr), or NULL before init. */
static const struct cpumask *dom_mask(u32 dom)
{
	struct dom_ctx *d = lookup_dom(dom);

	return d ? (const struct cpumask *)d->cpumask : NULL;
}

static struct bpf_cpumask *scratch(void)
{
	u32 idx = bpf_get_smp_processor_id();
	struct scratch_mask *s = bpf_map_lookup_elem(&scratch_masks, &idx);

	return s ? s->mask : NULL;
}

/*
 * A task that may not leave its CPU: one allowed CPU, or migration disabled. BPF programs
 * run with migration disabled on the current task, so when @p is current a count of one is
 * this program's own and does not pin @p (found the hard way: every CPU hog looked pinned
 * at its slice expiry).
 */
static bool task_pinned(struct task_struct *p)
{
	u16 md = p->migration_disabled;

	if (p->nr_cpus_allowed == 1)
		return true;
	if (md == 1 && p == bpf_get_current_task_btf())
		return false;
	return md != 0;
}

/*
 * The full slice of @p: slice_ns scaled by weight / 100 for tasks lighter than nice 0 (at
 * least MLB_SLICE_LIGHT_MIN_NS), slice_ns for the rest. A light task then gets its smaller
 * share as shorter runs at the usual turn rather than as rare full slices: with vtime
 * charged at runtime * 100 / weight, a nice-19 task among 150 busy nice-0 tasks would
 * otherwise wait about 20 s between slices, past the watchdog (seen under stress-ng).
 */
#define MLB_SLICE_LIGHT_MIN_NS 500000ULL
static u64 task_slice(struct task_struct *p)
{
	u64 w = p->scx.weight, slice;

	if (w >= MLB_WEIGHT_DFL)
		return slice_ns;
	slice = slice_ns * w / MLB_WEIGHT_DFL;
	return slice < MLB_SLICE_LIGHT_MIN_NS ? MLB_SLICE_LIGHT_MIN_NS : slice;
}

/* The expected length of @p's next run: its average burst, within its slice. */
static u64 task_exp_run(struct task_struct *p, struct task_ctx *tctx)
{
	u64 slice = task_slice(p);

	return tctx->burst_ns < slice ? tctx->burst_ns : slice;
}

/* ---- load tracking (per task and per domain) ------------------------------------------ */

/* Domain load per CPU, MLB_LOAD_ONE = one always-busy nice-0 task per CPU. */
static u64 dom_load_per_cpu(u32 dom)
{
	struct dom_ctx *d = lookup_dom(dom);

	return d ? d->load / dom_cpu_count(dom) : 0;
}

static u64 task_load(struct task_struct *p, struct task_ctx *tctx)
{
	return mlb_task_load(p->scx.weight, tctx->duty);
}

/* The load of the CPU time @p takes: weight x running fraction (MLB_LOAD_ONE units). */
static u64 task_load_running(struct task_struct *p, struct task_ctx *tctx)
{
	return mlb_task_load(p->scx.weight, tctx->run_frac);
}

/* Account the interval since duty_at: the task was runnable (@was_runnable) and running
 * (@was_running) during it. */
static void update_fracs(struct task_ctx *tctx, u64 now, bool was_runnable, bool was_running)
{
	u64 dt = now > tctx->duty_at ? now - tctx->duty_at : 0;

	tctx->duty =
	    mlb_decay_toward(tctx->duty, was_runnable ? MLB_FRAC_ONE : 0, dt, load_half_life_ns);
	tctx->run_frac =
	    mlb_decay_toward(tctx->run_frac, was_running ? MLB_FRAC_ONE : 0, dt, load_half_life_ns);
	tctx->duty_at = now;
}

static void dom_add_runnable(struct task_ctx *tctx, u32 dom, u32 weight)
{
	struct dom_ctx *d = lookup_dom(dom);

	if (!d)
		return;
	__sync_fetch_and_add(&d->runnable_wt, weight);
	tctx->acct_dom = dom;
	tctx->acct_wt = weight;
}

static void dom_remove_runnable(struct task_ctx *tctx)
{
	struct dom_ctx *d;

	if (!tctx->acct_wt)
		return;
	d = lookup_dom(tctx->acct_dom);
	if (d)
		__sync_fetch_and_sub(&d->runnable_wt, (s64)tctx->acct_wt);
	tctx->acct_wt = 0;
}

/* The task's runnable share now belongs to @dom's sum. */
static void dom_move_runnable(struct task_ctx *tctx, u32 dom)
{
	u32 wt = tctx->acct_wt;

	if (!wt || tctx->acct_dom == dom)
		return;
	dom_remove_runnable(tctx);
	dom_add_runnable(tctx, dom, wt);
}

/*
 * vtime_rebase - make @tctx's vtime relative to @cpu's clock: the lag it had against the
 * clock of the CPU it was relative to is kept (a credit of at most one slice). The one place
 * vtime crosses queues, whoever moves the task.
 */
static void vtime_rebase(struct task_ctx *tctx, u32 cpu)
{
	struct cpu_ctx *src, *dst;
	s64 lag;

	if (tctx->vclock_cpu == cpu || !cpu_valid(cpu))
		return;
	src = lookup_cpu(tctx->vclock_cpu);
	dst = lookup_cpu(cpu);
	if (!dst)
		return;
	lag = src ? (s64)(tctx->vtime - src->vtime_now) : 0;
	if (lag < -(s64)slice_ns)
		lag = -(s64)slice_ns;
	tctx->vtime = dst->vtime_now + lag;
	tctx->vclock_cpu = cpu;
}

/*
 * task_dl_key - the key @p is queued with on a per-CPU queue: its vtime plus the deadline
 * term of its average burst, at most one slice (include/mlb/policy.h). The one formula every
 * insertion into or move between per-CPU queues uses (ops.enqueue, the balancer); the burst
 * changes only in ops.stopping, so a queued task's key is the same wherever it is computed.
 */
static u64 task_dl_key(struct task_struct *p, struct task_ctx *tctx)
{
	return mlb_dl_key(tctx->vtime, tctx->burst_ns, p->scx.weight, slice_ns);
}

/* ---- expected waits -------------------------------------------------------------------- */

/* Count @tctx's next run in @cpu's queued work (it was just queued there). */
static void queue_account(struct task_struct *p, struct task_ctx *tctx, u32 cpu)
{
	struct cpu_ctx *c = lookup_cpu(cpu);
	struct dom_ctx *d = lookup_dom(dom_of_cpu(cpu));

	if (!c || !d)
		return;
	tctx->q_ns = task_exp_run(p, tctx);
	tctx->q_cpu = cpu;
	__sync_fetch_and_add(&c->queued_ns, tctx->q_ns);
	tctx->q_lat = tctx->cls.cls == MLB_CLASS_LAT;
	if (tctx->q_lat)
		__sync_fetch_and_add(&c->nr_lat_queued, 1);
	if (__sync_fetch_and_add(&d->nr_queued, 1) <= 0)
		__sync_fetch_and_or(&queued_doms, 1ULL << IDX(dom_of_cpu(cpu), MLB_MAX_DOMS));
}

/* The task left the queue it was counted in (it runs, moved, or was dequeued). */
static void queue_unaccount(struct task_ctx *tctx)
{
	struct cpu_ctx *c;
	struct dom_ctx *d;

	if (tctx->q_cpu == NO_CPU)
		return;
	c = lookup_cpu(tctx->q_cpu);
	d = lookup_dom(dom_of_cpu(tctx->q_cpu));
	if (c)
		__sync_fetch_and_sub(&c->queued_ns, (s64)tctx->q_ns);
	if (c && tctx->q_lat)
		__sync_fetch_and_sub(&c->nr_lat_queued, 1);
	tctx->q_lat = 0;
	/*
	 * The last queued task of the domain left: clear its bit, then look again. An enqueue
	 * racing with this either set the bit after the clear (it saw the count at 0) or made the
	 * count positive before the second look, which sets the bit again: a domain with queued
	 * tasks never stays without its bit.
	 */
	if (d && __sync_fetch_and_sub(&d->nr_queued, 1) <= 1) {
		u64 bit = 1ULL << IDX(dom_of_cpu(tctx->q_cpu), MLB_MAX_DOMS);

		__sync_fetch_and_and(&queued_doms, ~bit);
		if (READ_ONCE_U64(d->nr_queued) > 0)
			__sync_fetch_and_or(&queued_doms, bit);
	}
	tctx->q_cpu = NO_CPU;
}

/*
 * cpu_wait_ns - the wait a task arriving on @cpu now can expect: the expected runs queued
 * there plus what is left of the running task's run (0 for an idle CPU with an empty queue).
 * The running task is expected to run its average burst; once past it, about as long again
 * as it has run; never past its slice. An estimate: vtime order may put a newcomer ahead of
 * some queued tasks.
 */
static u64 cpu_wait_ns(u32 cpu, u64 now)
{
	struct cpu_ctx *c = lookup_cpu(cpu);
	u64 wait, ran, rest, at, end;

	if (!c)
		return 0;
	wait = c->queued_ns > 0 ? c->queued_ns : 0;
	at = c->curr_at;
	end = c->curr_end;
	if (at && now >= at && end > now) {
		ran = now - at;
		rest = ran < c->curr_exp_ns ? c->curr_exp_ns - ran : ran;
		wait += rest < end - now ? rest : end - now;
	}
	return wait;
}

/* nr_lat_waiting - latency-critical tasks queued on the CPU of @c (0 if the racy sum dipped). */
static u32 nr_lat_waiting(struct cpu_ctx *c)
{
	s32 n = READ_ONCE_U32(c->nr_lat_queued);

	return n > 0 ? n : 0;
}

/*
 * lat_would_preempt - would the task of @tctx, woken onto the busy @cpu at @now, take it from
 * the running task by the class rule (mlb_may_preempt(), include/mlb/policy.h: a
 * latency-critical waker, a batch task that has run lat_preempt_ns)? Reads the running task's
 * class and start from @cpu's cpu_ctx (ops.running writes the class before the start,
 * ops.stopping clears the start), not scx_bpf_cpu_curr(), so it works on every kernel of the
 * matrix. Without a lock: a kick that lands after the batch task stopped preempts whatever
 * started in the few microseconds since, which the rule did not mean (a known limit).
 */
static bool lat_would_preempt(struct task_ctx *tctx, u32 cpu, u64 now)
{
	struct cpu_ctx *c;
	u64 at;

	if (!lat_preempt_ns || tctx->cls.cls != MLB_CLASS_LAT)
		return false;
	c = lookup_cpu(cpu);
	if (!c)
		return false;
	at = READ_ONCE_U64(c->curr_at);
	if (!at || now < at)
		return false;
	return mlb_may_preempt(tctx->cls.cls, READ_ONCE_U32(c->curr_cls), now - at, lat_preempt_ns);
}

/*
 * wake_would_preempt - would @p, woken onto the busy @cpu now, take it from the running task
 * at once? True when wake-up preemption is on (--wake-preempt-us, and the kernel has
 * scx_bpf_cpu_curr()), @p runs in short bursts (under a quarter slice, and a quarter of the
 * running task's), the running task has run wake_preempt_ns or more, and @p is ahead of it
 * in virtual time once its sleep
 * credit is capped at one slice (as ops.enqueue caps it). The one rule wake_preempt() acts
 * on and the wake-up's expected wait (cpu_wait_ns) assumes.
 */
static bool curr_would_yield(struct task_struct *p, struct task_ctx *tctx, struct task_struct *curr,
			     u32 cpu, u64 now)
{
	struct task_ctx *cctx = lookup_task_ctx(curr);
	struct cpu_ctx *c = lookup_cpu(cpu);
	u64 vtime = tctx->vtime;

	if (!cctx || !c || !cctx->running_at || now - cctx->running_at < wake_preempt_ns)
		return false;
	/* only a task with longer runs: short-burst tasks among themselves would churn */
	if (cctx->burst_ns < 4 * tctx->burst_ns)
		return false;
	if ((s64)(vtime - (c->vtime_now - slice_ns)) < 0)
		vtime = c->vtime_now - slice_ns;
	return (s64)(cctx->vtime - vtime) > 0;
}

static bool wake_would_preempt(struct task_struct *p, struct task_ctx *tctx, u32 cpu, u64 now)
{
	struct task_struct *curr;
	bool ret = false;

	if (!wake_preempt_ns || !bpf_ksym_exists(scx_bpf_cpu_curr))
		return false;
	if (tctx->burst_ns >= slice_ns / 4)
		return false;
	/*
	 * The running task is only safe to look at under RCU. Callbacks run under it anyway, but
	 * the seam is a global function that the balancer's timer calls too, and 6.18's verifier
	 * checks that from the sleepable ops.init that armed the timer: it wants the section
	 * spelled out ("requires RCU critical section protection").
	 */
	bpf_rcu_read_lock();
	curr = scx_bpf_cpu_curr(cpu);
	if (curr && curr != p)
		ret = curr_would_yield(p, tctx, curr, cpu, now);
	bpf_rcu_read_unlock();
	return ret;
}

#endif /* __MLB_COMMON_BPF_H */
