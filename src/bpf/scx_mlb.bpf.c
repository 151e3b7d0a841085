/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_mlb - a multi-domain sched_ext scheduler whose migrations go through one decision seam.
 *
 * WHAT IT DOES
 * CPUs are grouped into domains, one per last-level cache within each NUMA node (the loader
 * reads the grouping from sysfs and hands it over in rodata). Each domain has a vtime-
 * ordered dispatch queue (DSQ id = domain id): inside a domain the scheduler is weighted
 * fair, a task's vtime advancing by runtime * 100 / weight (at least a whole slice when its
 * slice is gone, so sched_yield() does not buy the head of the queue), and a task waking from sleep
 * may not bank more than one slice of credit (its vtime is clamped to the domain's clock
 * minus one slice).
 *
 * Tasks lighter than nice 0 get proportionally shorter slices, so a light task's smaller share
 * comes as short runs at the normal turn, not as rare long ones (bounded waits).
 *
 * Placement at wake-up (select_cpu): pinned tasks stay; the previous CPU if its whole core
 * is idle, then if it is idle; an idle core, then an idle CPU of the task's domain; failing
 * that (and only when wake_spill or more tasks already wait in its domain: one waiting
 * task will soon get a CPU there) an idle CPU of its node, then anywhere it may run, each
 * of these last two only if the decision seam agrees. A chosen idle CPU gets the task
 * directly on its local DSQ. Optionally (wake_preempt_ns, off by default) a task with short
 * runs that finds no idle CPU at all preempts the task on its last CPU once that one has run
 * wake_preempt_ns (wake_preempt()): it cut cyclictest's p99 beside hogs, but hackbench took
 * twice as long (every wake-up of its 160 tasks preempts), so it is not the default.
 *
 * Dispatch: a CPU takes from its own domain's queue the first of the first affine_scan
 * tasks that did not last run on another CPU of the domain (that CPU takes those, within a
 * slice, cache still warm), else the head; failing that, it pulls from other domains of
 * its node (queue length at least steal_min_node), then from other nodes (at least
 * steal_min_remote), asking the seam for each candidate. These gates were set by measuring
 * (bench/, BENCHMARKS.md): with every one at its loosest, scx_mlb migrated 2-4x more than
 * EEVDF; each cut migrations, with wall times and latencies within the guest's noise.
 *
 * Balancing runs in the kernel, in a BPF timer every balance interval: it smooths each
 * domain's runnable load, finds the most and least loaded domains (first across nodes,
 * then inside each node), and offers queued tasks of the loaded one whose move does not
 * overshoot to the seam. A task the seam lets go is moved between DSQs at once
 * (scx_bpf_dsq_move_vtime), not at its next enqueue, and an idle CPU of the destination
 * is kicked.
 *
 * THE SEAM
 * Every move of a task between domains that is a choice (balance, pull, wake-up away from
 * its domain) fills one struct mlb_features (include/mlb/intf.h: 25 features, units and
 * ranges documented there) and calls decide_move(): the heuristic of include/mlb/heuristic.h
 * or, in infer mode, the deployed network. Moves that are not choices (the task's affinity
 * no longer allows its domain) are counted apart.
 *
 * THE LEARNING LOOP
 * rodata `mode` says who decides. In heuristic mode, the heuristic, and nothing is recorded.
 * Otherwise every decision (decide_move -> mlb_decide_rec, a global function) is written to
 * the `decisions` ring buffer with its features, and the task is observed until the horizon:
 * the waits of its next runs (runnable to running), a move back to its source within
 * bounce_ns, the pair's imbalance at the end; the `outcomes` ring buffer gets the result
 * (probe_start/probe_run/probe_end). The wait the other choice would have cost is the other
 * domain's smoothed wait per run. In infer mode the deployed model (two slots in the
 * `models` map, published by user space with a generation under a sequence number) scores
 * the features with include/mlb/nn_fixed.h in mlb_model_run(), another global function; if
 * none is valid or a swap raced the run, the heuristic decides. explore_ppm decisions in a
 * million go against the policy. The deepest call chain (balancer timer -> seam -> model ->
 * layer) must fit BPF's 512-byte stack: the features are filled in a frame of their own and
 * the record lives in a per-CPU map, not on the stack.
 *
 * LOAD TRACKING (formulas in include/mlb/load.h)
 * Per task: duty = decayed runnable fraction, run_frac = decayed running fraction (half-
 * life load_half_life_ns), average burst = 7/8 old + 1/8 new run length, slice use = last
 * run / slice, wake frequency = 3/4 old + 1/4 (1 s / interval between wake-ups), recent
 * migrations = count of domain changes decayed with a 1 s half-life. Load = weight * duty /
 * 100 (MLB_LOAD_ONE = one always-runnable nice-0 task).
 * Per domain: runnable weight summed at runnable() and removed at quiescent() (each task
 * remembers which domain holds its share and how much); the balancer smooths it per round
 * (3/4 old + 1/4 new) into the domain load; per-CPU load = load / CPUs of the domain.
 *
 * WHERE IT WORKS, HOW IT FAILS
 * Correctness rests on the kernel: every queued task sits on a domain its cpumask intersects
 * (enqueue repairs it), a CPU only takes tasks allowed on it (the kernel skips the rest when
 * consuming), and pinned or migration-disabled tasks are never offered for a move. Pinned
 * tasks share the domain's vtime order rather than jumping the queue through the local DSQ,
 * so a stream of them cannot starve the rest. The watchdog (timeout_ms) aborts the scheduler if a
 * task starves, and the kernel then runs everything in the fair class. Known limits: domain load
 * counts only runnable weight, so a domain of short sleepers looks lighter than it is; the
 * per-domain sums are updated without locks, so racing moves can leave them slightly off
 * until tasks sleep (they are clamped at zero); balancing moves only queued tasks, never a
 * running one; a hotplug event restarts the scheduler (the loader reattaches).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "mlb/intf.h"
#include "mlb/load.h"
#include "mlb/heuristic.h"
#include "mlb/nn_fixed.h"
#include "compat.bpf.h"

char _license[] SEC("license") = "GPL";

#define BPF_STRUCT_OPS(name, args...)		SEC("struct_ops/" #name) BPF_PROG(name, ##args)
#define BPF_STRUCT_OPS_SLEEPABLE(name, args...) SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)

#define ENOENT		2
#define ENOMEM		12
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

/* Topology, filled by the loader between open and load. */
const volatile u32 nr_cpus = 1;
const volatile u32 nr_doms = 1;
const volatile u32 nr_nodes = 1;
const volatile u32 cpu_dom[MLB_MAX_CPUS];
const volatile u32 dom_node[MLB_MAX_DOMS];
const volatile u32 dom_nr_cpus[MLB_MAX_DOMS];
const volatile u32 dom_capacity[MLB_MAX_DOMS]; /* mean, 1024 = the largest CPU */
const volatile u64 dom_cpus[MLB_MAX_DOMS][MLB_CPUMASK_WORDS];
const volatile u8 node_dist[MLB_MAX_NODES][MLB_MAX_NODES];

/* Tunables (defaults match the loader's). */
const volatile u64 slice_ns = 20000000ULL;
const volatile u64 balance_interval_ns = 100000000ULL;
const volatile u64 load_half_life_ns = 250000000ULL;
const volatile u64 migr_cost_ns = 500000ULL;
const volatile u32 imbal_pct = 10;
const volatile u32 numa_imbal_pct = 20;
const volatile u32 max_recent_migr = 8;
const volatile u32 steal_min_node = 2;
const volatile u32 steal_min_remote = 4;
const volatile u32 max_balance_moves = 4;
const volatile u32 wake_spill = 1;  /* waiting tasks before a wake-up looks outside its domain */
const volatile u32 affine_scan = 8; /* queue places a CPU looks through for its own tasks */
const volatile u64 wake_preempt_ns = 0; /* 0: a waking task never preempts */
/* The learning loop (see THE LEARNING LOOP above). */
const volatile u32 mode = MLB_MODE_HEURISTIC; /* enum mlb_mode */
const volatile u32 explore_ppm = 0;	      /* decisions taken against the policy, per 10^6 */
const volatile u64 horizon_ns = 50000000ULL;  /* observation of a decision's outcome */
const volatile u64 bounce_ns = 50000000ULL; /* a move back to the source within this is a bounce */

/* Read by user space. */
struct mlb_dom_stat dom_stats[MLB_MAX_DOMS];
struct mlb_exit_info exit_info;
s64 nr_tasks;	  /* tasks currently scheduled by scx_mlb */
s64 nr_task_ctxs; /* task contexts allocated (init_task) and not yet freed (exit_task) */

/*
 * The deployed model, written by user space only: models[model_slot] is the live one and
 * model_gen its generation (0: none). A swap writes the other slot, then publishes it; around
 * that model_seq is odd, and a decision that saw model_seq change while it ran discards the
 * model's answer (seqcount), so no decision ever uses a half-written model.
 */
u64 model_seq;
u32 model_slot;
u32 model_gen;
u32 model_gen_seen; /* the generation of the last model run that counted */
u64 decision_seq;   /* ids of decision records */

#define MLB_SEC_NS	      1000000000ULL
#define MLB_MIGR_HALF_LIFE_NS MLB_SEC_NS
#define MLB_MAX_CANDIDATES    8 /* tasks a pull or a balance move looks at */

struct task_ctx {
	u32 dom;	 /* domain whose queue the task belongs to */
	u32 last_cpu;	 /* CPU it last ran on */
	u32 acct_dom;	 /* domain whose runnable sum holds acct_wt */
	u32 acct_wt;	 /* weight added there, 0 when not runnable */
	u64 vtime;	 /* weighted virtual time */
	u64 duty_at;	 /* last duty/run_frac update */
	u32 duty;	 /* decayed runnable fraction, MLB_FRAC_ONE = 1 */
	u32 run_frac;	 /* decayed running fraction */
	u64 running_at;	 /* 0 when not running */
	u64 stopped_at;	 /* when it last stopped running */
	u64 woke_at;	 /* last wake-up */
	u64 burst_ns;	 /* decayed average run length */
	u32 slice_use;	 /* last run / slice, MLB_FRAC_ONE = whole slice */
	u32 wake_freq;	 /* decayed wake-ups per second */
	u64 migr_at;	 /* last domain change */
	u32 recent_migr; /* decayed domain changes, MLB_FRAC_ONE per change */
	u32 pad;
	u64 ready_at; /* when it last became runnable (woke up or was preempted) */
	/* Observation of the last recorded decision about this task (pr_id 0: none). */
	u64 pr_id;
	u64 pr_at;	  /* decision time */
	u64 pr_wait;	  /* total wait over the runs since */
	u64 pr_first;	  /* wait before the first run since, ~0 before it */
	u64 pr_est_other; /* smoothed wait of the domain not chosen */
	u32 pr_src, pr_dst;
	u32 pr_runs;
	u32 pr_flags;
	s32 pr_imbal;  /* IMBALANCE feature at the decision */
	u8 pr_migrate; /* the decision */
	u8 pad2[3];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctxs SEC(".maps");

struct dom_ctx {
	u64 vtime_now;	   /* the domain's clock: largest vtime started */
	s64 runnable_wt;   /* sum of the weights of its runnable tasks */
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

/* Per-CPU scratch cpumasks: [cpu * 2] for the ops, [cpu * 2 + 1] for the balancer timer. */
struct scratch_mask {
	struct bpf_cpumask __kptr *mask;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * MLB_MAX_CPUS);
	__type(key, u32);
	__type(value, struct scratch_mask);
} scratch_masks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MLB_NR_STATS);
	__type(key, u32);
	__type(value, u64);
} stats SEC(".maps");

/* The learning loop's records (include/mlb/intf.h) and the two model slots. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 512 * 1024);
} decisions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} outcomes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, struct mlb_nn_model);
} models SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct mlb_nn_scratch);
} nn_scratch SEC(".maps");

/* The decision being made, per CPU: [0] for the ops, [1] for the balancer timer. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, struct mlb_decision_rec);
} dec_scratch SEC(".maps");

struct balance_timer {
	struct bpf_timer timer;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct balance_timer);
} balance_timers SEC(".maps");

/* ---- small helpers ------------------------------------------------------------------- */

static void stat_inc(u32 idx)
{
	u64 *cnt = bpf_map_lookup_elem(&stats, &idx);

	if (cnt)
		(*cnt)++;
}

static struct task_ctx *lookup_task_ctx(struct task_struct *p)
{
	return bpf_task_storage_get(&task_ctxs, p, NULL, 0);
}

static struct dom_ctx *lookup_dom(u32 dom)
{
	return bpf_map_lookup_elem(&dom_ctxs, &dom);
}

static u32 dom_of_cpu(s32 cpu)
{
	if (cpu < 0 || cpu >= MLB_MAX_CPUS)
		return 0;
	return cpu_dom[IDX(cpu, MLB_MAX_CPUS)];
}

static u32 node_of_dom(u32 dom)
{
	return dom_node[IDX(dom, MLB_MAX_DOMS)];
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
	struct bpf_cpumask *m;

	if (!d)
		return NULL;
	m = d->cpumask;
	return (const struct cpumask *)m;
}

static struct bpf_cpumask *scratch(bool timer)
{
	u32 idx = bpf_get_smp_processor_id() * 2 + (timer ? 1 : 0);
	struct scratch_mask *s = bpf_map_lookup_elem(&scratch_masks, &idx);

	return s ? s->mask : NULL;
}

/*
 * A task that may not leave its CPU: one allowed CPU, or migration disabled. BPF programs
 * run with migration disabled on the current task, so when @p is current a count of one is
 * this program's own and does not pin @p (found the hard way: every CPU hog looked pinned
 * at its slice expiry and was requeued locally, invisible to idle CPUs).
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
 * The slice of @p: slice_ns scaled by weight / 100 for tasks lighter than nice 0 (at least
 * MLB_SLICE_MIN_NS), slice_ns for the rest. A light task then gets its smaller share as
 * shorter runs at the usual turn rather than as rare full slices: with vtime charged at
 * runtime * 100 / weight, a nice-19 task among 150 busy nice-0 tasks would otherwise wait
 * about 20 s between slices, past the watchdog (seen under stress-ng).
 */
#define MLB_SLICE_MIN_NS 500000ULL
static u64 task_slice(struct task_struct *p)
{
	u64 w = p->scx.weight, slice;

	if (w >= MLB_WEIGHT_DFL)
		return slice_ns;
	slice = slice_ns * w / MLB_WEIGHT_DFL;
	return slice < MLB_SLICE_MIN_NS ? MLB_SLICE_MIN_NS : slice;
}

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

/* ---- load tracking -------------------------------------------------------------------- */

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

/* The task now belongs to @dom: move its runnable share and record the migration. */
static void task_set_dom(struct task_ctx *tctx, u32 dom, u64 now, bool counted)
{
	u32 wt = tctx->acct_wt;
	struct dom_ctx *src = lookup_dom(tctx->dom), *dst = lookup_dom(dom);

	if (dom == tctx->dom || dom >= nr_doms)
		return;
	if (wt) {
		dom_remove_runnable(tctx);
		dom_add_runnable(tctx, dom, wt);
	}
	/* Keep the task's lag against the clock of the domain it leaves. */
	if (src && dst) {
		s64 lag = (s64)(tctx->vtime - src->vtime_now);

		if (lag < -(s64)slice_ns)
			lag = -(s64)slice_ns;
		tctx->vtime = dst->vtime_now + lag;
	}
	tctx->recent_migr =
	    mlb_decay_toward(tctx->recent_migr, 0, now - tctx->migr_at, MLB_MIGR_HALF_LIFE_NS) +
	    MLB_FRAC_ONE;
	tctx->migr_at = now;
	/* back where a recorded migration took it from, soon after: a bounce */
	if (tctx->pr_id && tctx->pr_migrate && dom == tctx->pr_src && now - tctx->pr_at < bounce_ns)
		tctx->pr_flags |= MLB_OUT_MOVED_BACK;
	tctx->dom = dom;
	stat_inc(counted ? MLB_STAT_DOM_MIGR : MLB_STAT_AFFN_MOVE);
}

/* ---- features and the decision seam --------------------------------------------------- */

/* Idle state of @dom for the features: 2 a whole idle core, 1 an idle CPU, 0 busy. */
static s32 dom_idle_state(u32 dom)
{
	const struct cpumask *m = dom_mask(dom), *idle, *smt;
	s32 ret = 0;

	if (!m)
		return 0;
	idle = scx_bpf_get_idle_cpumask();
	smt = scx_bpf_get_idle_smtmask();
	if (bpf_cpumask_intersects(smt, m))
		ret = 2;
	else if (bpf_cpumask_intersects(idle, m))
		ret = 1;
	scx_bpf_put_idle_cpumask(idle);
	scx_bpf_put_idle_cpumask(smt);
	return ret;
}

static s32 cpu_idle_state(s32 cpu)
{
	const struct cpumask *smt = scx_bpf_get_idle_smtmask();
	s32 ret = bpf_cpumask_test_cpu(cpu, smt) ? 2 : 1;

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

/* A candidate move: from domain src to domain dst, onto dst_cpu if known (else -1). */
struct mlb_move {
	u32 src, dst;
	s32 dst_cpu;
	u32 kind; /* enum mlb_kind */
};

/*
 * Fill @f for the move @mv of @p. Every value is clamped to the range declared in intf.h.
 * Not inlined: its frame (many live values, spilled) is gone before the model runs, which
 * keeps the deepest call chain (balancer -> seam -> model -> layer) under BPF's 512 bytes.
 */
static __noinline void fill_features(struct mlb_features *f, struct task_struct *p,
				     struct task_ctx *tctx, const struct mlb_move *mv, u64 now)
{
	u32 src = mv->src, dst = mv->dst, kind = mv->kind;
	s32 dst_cpu = mv->dst_cpu;
	u32 sn = node_of_dom(src), dn = node_of_dom(dst);
	s64 src_load = dom_load_per_cpu(src), dst_load = dom_load_per_cpu(dst);
	struct dom_ctx *sd = lookup_dom(src);
	u64 since = tctx->running_at ? 0 : now - tctx->stopped_at;
	u32 wake_freq = tctx->wake_freq;
	u64 since_woke = now - tctx->woke_at;
	s32 perf_cpu = dst_cpu;

	/* A task that stopped waking decays toward its actual rate. */
	if (since_woke > MLB_SEC_NS / 16 && wake_freq > MLB_SEC_NS / since_woke)
		wake_freq = MLB_SEC_NS / since_woke;
	if (perf_cpu < 0)
		perf_cpu = bpf_cpumask_first(dom_mask(dst) ?: p->cpus_ptr);

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
	SETF(TASK_VLAG_US, sd ? sdiv_1000((s64)(tctx->vtime - sd->vtime_now)) : 0);
	SETF(SRC_NR_QUEUED, scx_bpf_dsq_nr_queued(src));
	SETF(DST_NR_QUEUED, scx_bpf_dsq_nr_queued(dst));
	SETF(SRC_LOAD, src_load);
	SETF(DST_LOAD, dst_load);
	SETF(IMBALANCE, src_load - dst_load);
	SETF(DST_IDLE, dst_cpu >= 0 ? cpu_idle_state(dst_cpu) : dom_idle_state(dst));
	SETF(SAME_LLC, src == dst);
	SETF(SAME_NODE, sn == dn);
	SETF(NUMA_DIST, node_dist[IDX(sn, MLB_MAX_NODES)][IDX(dn, MLB_MAX_NODES)]);
	SETF(SRC_CAPACITY, dom_capacity[IDX(src, MLB_MAX_DOMS)]);
	SETF(DST_CAPACITY, dom_capacity[IDX(dst, MLB_MAX_DOMS)]);
	SETF(DST_PERF,
	     perf_cpu >= 0 && (u32)perf_cpu < nr_cpus ? scx_bpf_cpuperf_cur(perf_cpu) : 0);
	SETF(BALANCE_FAILS, sd ? sd->balance_fails : 0);
	SETF(KIND, kind);
#undef SETF
}

/* ---- the learning loop: the model, decision records, outcomes -------------------------- */

#define READ_ONCE_U64(x) (*(volatile u64 *)&(x))
#define READ_ONCE_U32(x) (*(volatile u32 *)&(x))

MLB_ASSERT(MLB_STAT_BY_MODEL == MLB_STAT_BY_HEURISTIC + MLB_BY_MODEL &&
	       MLB_STAT_BY_EXPLORE == MLB_STAT_BY_HEURISTIC + MLB_BY_EXPLORE,
	   "decider counters follow enum mlb_decider");

struct mlb_score {
	s32 score; /* migrate logit, Q15.16 */
	u32 gen;   /* generation of the model that computed it */
};

/*
 * mlb_model_run - the deployed model's migrate score for @f, into @out.
 * Returns 0, or -1 when no valid model is deployed or a swap raced the run (@out unset).
 * A global function: the verifier checks it once, whoever calls it.
 */
__noinline int mlb_model_run(const struct mlb_features *f, struct mlb_score *out)
{
	struct mlb_nn_scratch *s;
	struct mlb_nn_model *m;
	u32 zero = 0, slot, gen;
	u64 seq;

	if (!f || !out)
		return -1;
	seq = READ_ONCE_U64(model_seq);
	gen = READ_ONCE_U32(model_gen);
	if ((seq & 1) || !gen)
		return -1;
	slot = READ_ONCE_U32(model_slot) & 1;
	m = bpf_map_lookup_elem(&models, &slot);
	s = bpf_map_lookup_elem(&nn_scratch, &zero);
	if (!m || !s || m->magic != MLB_NN_MAGIC)
		return -1;
	if (mlb_nn_forward(m, f->v, MLB_NR_FEATURES, s))
		return -1;
	asm volatile("" ::: "memory"); /* read the sequence again only after the model */
	if (READ_ONCE_U64(model_seq) != seq)
		return -1;
	out->score = mlb_nn_score(s);
	out->gen = gen;
	return 0;
}

/* End the observation of @tctx's last recorded decision with @flags; send its outcome. */
static void probe_end(struct task_ctx *tctx, u64 now, u32 flags)
{
	struct mlb_outcome_rec o = {};
	s64 after;

	if (!tctx->pr_id)
		return;
	after = (s64)dom_load_per_cpu(tctx->pr_src) - (s64)dom_load_per_cpu(tctx->pr_dst);
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
	if (bpf_ringbuf_output(&outcomes, &o, sizeof(o), 0))
		stat_inc(MLB_STAT_DROP_OUTCOME);
	else
		stat_inc(MLB_STAT_OUTCOMES);
}

/* Start observing what follows the recorded decision @r about @tctx's task. */
static void probe_start(struct task_ctx *tctx, const struct mlb_decision_rec *r, u64 now)
{
	struct dom_ctx *other = lookup_dom(r->decision ? r->src_dom : r->dst_dom);

	probe_end(tctx, now, MLB_OUT_REPLACED);
	tctx->pr_id = r->id;
	tctx->pr_at = now;
	tctx->pr_wait = 0;
	tctx->pr_first = ~0ULL;
	tctx->pr_est_other = other ? other->avg_wait_ns : 0;
	tctx->pr_src = r->src_dom;
	tctx->pr_dst = r->dst_dom;
	tctx->pr_runs = 0;
	tctx->pr_flags = 0;
	tctx->pr_imbal = r->f.v[MLB_F_IMBALANCE];
	tctx->pr_migrate = r->decision;
}

/* The task starts a run after waiting @wait ns: count it for the domain and the probe. */
static void probe_run(struct task_ctx *tctx, struct dom_ctx *d, u64 wait, u64 now)
{
	if (d)
		d->avg_wait_ns = (7 * d->avg_wait_ns + wait) / 8;
	if (!tctx->pr_id)
		return;
	tctx->pr_wait += wait;
	tctx->pr_runs++;
	if (tctx->pr_first == ~0ULL)
		tctx->pr_first = wait;
	if (now - tctx->pr_at >= horizon_ns)
		probe_end(tctx, now, 0);
}

/*
 * mlb_decide_rec - the decision on the filled record @r about @tctx's task: the heuristic's
 * answer is in r->heuristic; in infer mode the deployed model decides when it can; outside
 * heuristic mode a few decisions explore, and the decision is recorded and its outcome
 * observed. Fills r->decision, decider, score, model_gen, id. Returns 1 to migrate, else 0.
 * A global function: verified once, however many callers and candidate loops there are.
 */
__noinline int mlb_decide_rec(struct mlb_decision_rec *r, struct task_ctx *tctx)
{
	struct mlb_score sc;
	bool go;

	if (!r || !tctx)
		return 0;
	go = r->heuristic;
	r->decider = MLB_BY_HEURISTIC;
	r->score = 0;
	r->model_gen = 0;
	if (mode == MLB_MODE_INFER) {
		if (!mlb_model_run(&r->f, &sc)) {
			go = mlb_nn_migrate(sc.score);
			r->decider = MLB_BY_MODEL;
			r->score = sc.score;
			r->model_gen = sc.gen;
			/* a shared line: written by one decision per swap, not by all */
			if (model_gen_seen != sc.gen)
				model_gen_seen = sc.gen;
		} else if (READ_ONCE_U32(model_gen)) {
			stat_inc(MLB_STAT_MODEL_FAIL);
		}
	}
	if (mode != MLB_MODE_HEURISTIC && explore_ppm &&
	    bpf_get_prandom_u32() % 1000000 < explore_ppm) {
		go = !go;
		r->decider = MLB_BY_EXPLORE;
	}
	stat_inc(MLB_STAT_BAL_CONSIDERED);
	if (go)
		stat_inc(MLB_STAT_BAL_TAKEN);
	stat_inc(MLB_STAT_BY_HEURISTIC + (r->decider & 3));
	if (mode == MLB_MODE_HEURISTIC)
		return go;
	r->id = __sync_fetch_and_add(&decision_seq, 1) + 1;
	r->decision = go;
	if (bpf_ringbuf_output(&decisions, r, sizeof(*r), 0))
		stat_inc(MLB_STAT_DROP_DECISION);
	else
		probe_start(tctx, r, r->ts_ns);
	return go;
}

/*
 * decide_move - THE SEAM: the one place that says whether @p moves as @mv proposes.
 * Fills the decision record (features included) in per-CPU scratch (@timer: the balancer
 * timer's slot, which may interrupt nothing but has its own anyway), asks the heuristic
 * (always: it is recorded beside every decision), then mlb_decide_rec(). True: migrate.
 */
static bool decide_move(struct task_struct *p, struct task_ctx *tctx, const struct mlb_move *mv,
			bool timer)
{
	struct mlb_heur_params hp = {
	    .imbal_pct = imbal_pct,
	    .numa_imbal_pct = numa_imbal_pct,
	    .max_recent_migr = max_recent_migr,
	};
	u32 idx = timer;
	struct mlb_decision_rec *r = bpf_map_lookup_elem(&dec_scratch, &idx);
	u64 now = bpf_ktime_get_ns();

	if (!r)
		return false;
	fill_features(&r->f, p, tctx, mv, now);
	r->heuristic = mlb_heuristic_decide(&r->f, &hp);
	r->ts_ns = now;
	r->pid = p->pid;
	r->kind = mv->kind;
	r->src_dom = mv->src;
	r->dst_dom = mv->dst;
	return mlb_decide_rec(r, tctx);
}

/* ---- wake-up placement ---------------------------------------------------------------- */

/* An idle CPU in @allowed & @area (cleared from the idle set), or -1; whole cores first
 * when @core. Uses the ops scratch mask. */
static s32 pick_idle_in(const struct cpumask *allowed, const struct cpumask *area, bool core)
{
	struct bpf_cpumask *tmp = scratch(false);

	if (!tmp || !area)
		return -1;
	bpf_cpumask_and(tmp, allowed, area);
	return scx_bpf_pick_idle_cpu((const struct cpumask *)tmp, core ? SCX_PICK_IDLE_CORE : 0);
}

/* An idle CPU of @allowed outside @dom, on @dom's node when @same_node, not claimed yet. */
static s32 peek_idle_outside(struct task_struct *p, u32 dom, bool same_node)
{
	const struct cpumask *idle = scx_bpf_get_idle_cpumask();
	s32 cpu, found = -1;
	u32 node = node_of_dom(dom), i;

	bpf_for(i, 0, nr_doms)
	{
		const struct cpumask *m;

		if (i == dom || (node_of_dom(i) == node) != same_node)
			continue;
		m = dom_mask(i);
		if (!m)
			continue;
		bpf_rcu_read_lock();
		cpu = bpf_cpumask_any_and_distribute(idle, m);
		if (cpu < nr_cpus && !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			cpu = nr_cpus; /* an idle CPU the task may not use: look further */
		bpf_rcu_read_unlock();
		if (cpu < nr_cpus) {
			found = cpu;
			break;
		}
	}
	scx_bpf_put_idle_cpumask(idle);
	return found;
}

/* Try the idle CPUs beyond the task's domain: its node first, then the rest. */
static s32 select_cpu_outside(struct task_struct *p, struct task_ctx *tctx)
{
	u32 pass;

	bpf_for(pass, 0, 2)
	{
		bool same_node = pass == 0;
		s32 cpu = peek_idle_outside(p, tctx->dom, same_node);

		if (cpu < 0)
			continue;
		struct mlb_move mv = {tctx->dom, dom_of_cpu(cpu), cpu, MLB_KIND_WAKEUP};

		if (!decide_move(p, tctx, &mv, false))
			return -1;
		if (scx_bpf_test_and_clear_cpu_idle(cpu)) {
			stat_inc(same_node ? MLB_STAT_WAKE_NODE : MLB_STAT_WAKE_ANY);
			return cpu;
		}
		return -1; /* lost the race for it: queue in the domain */
	}
	return -1;
}

s32 BPF_STRUCT_OPS(mlb_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	const struct cpumask *smt, *dm;
	bool prev_core_idle;
	s32 cpu;

	if (!tctx || task_pinned(p))
		return prev_cpu;

	/* The previous CPU, if its whole core is idle, then if it is idle at all. */
	smt = scx_bpf_get_idle_smtmask();
	prev_core_idle = bpf_cpumask_test_cpu(prev_cpu, smt);
	scx_bpf_put_idle_cpumask(smt);
	if (bpf_cpumask_test_cpu(prev_cpu, p->cpus_ptr) && dom_of_cpu(prev_cpu) == tctx->dom) {
		if (prev_core_idle && scx_bpf_test_and_clear_cpu_idle(prev_cpu)) {
			stat_inc(MLB_STAT_WAKE_PREV);
			cpu = prev_cpu;
			goto direct;
		}
	}

	dm = dom_mask(tctx->dom);
	cpu = pick_idle_in(p->cpus_ptr, dm, true);
	if (cpu < 0 && bpf_cpumask_test_cpu(prev_cpu, p->cpus_ptr) &&
	    dom_of_cpu(prev_cpu) == tctx->dom && scx_bpf_test_and_clear_cpu_idle(prev_cpu)) {
		stat_inc(MLB_STAT_WAKE_PREV);
		cpu = prev_cpu;
		goto direct;
	}
	if (cpu < 0)
		cpu = pick_idle_in(p->cpus_ptr, dm, false);
	if (cpu >= 0) {
		stat_inc(MLB_STAT_WAKE_DOM);
		goto direct;
	}

	if (scx_bpf_dsq_nr_queued(tctx->dom) < wake_spill)
		return prev_cpu;
	cpu = select_cpu_outside(p, tctx);
	if (cpu >= 0)
		goto direct;
	return prev_cpu;

direct:
	stat_inc(MLB_STAT_ENQ_LOCAL);
	mlb_insert(p, SCX_DSQ_LOCAL, task_slice(p), 0);
	return cpu;
}

/* ---- enqueue and dispatch ------------------------------------------------------------- */

/* Make sure the task's domain is one its cpumask allows (affinity may have changed). */
static void ensure_allowed_dom(struct task_struct *p, struct task_ctx *tctx)
{
	const struct cpumask *m = dom_mask(tctx->dom);
	u32 i, cpu;

	if (m && bpf_cpumask_intersects(m, p->cpus_ptr))
		return;
	cpu = bpf_cpumask_any_distribute(p->cpus_ptr);
	if (cpu >= nr_cpus)
		return;
	i = dom_of_cpu(cpu);
	stat_inc(MLB_STAT_AFFN_VIOL);
	task_set_dom(tctx, i, bpf_ktime_get_ns(), false);
}

/* Wake an idle CPU that can run @p: in its domain if any, else one that will pull. False if
 * no CPU @p may use is idle. */
static bool kick_for(struct task_struct *p, u32 dom)
{
	s32 cpu = pick_idle_in(p->cpus_ptr, dom_mask(dom), false);

	if (cpu < 0)
		cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu < 0)
		return false;
	scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
	return true;
}

/*
 * A task that woke up with no idle CPU to go to takes the CPU it last ran on, in its domain,
 * from the task running there when that one has run wake_preempt_ns or more and is further
 * along in virtual time, and the waker's runs are short (average burst under a quarter
 * slice): a periodic or interactive task then waits about wake_preempt_ns behind CPU hogs
 * instead of up to their whole slice; the hog goes back to the head of its queue's order
 * and its CPU (affine_scan) takes it again next. Needs scx_bpf_cpu_curr() (kernel >= 6.16);
 * on older kernels waking tasks never preempt.
 */
static void wake_preempt(struct task_struct *p, struct task_ctx *tctx)
{
	struct task_struct *curr;
	struct task_ctx *cctx;
	s32 cpu = scx_bpf_task_cpu(p);

	if (!wake_preempt_ns || !bpf_ksym_exists(scx_bpf_cpu_curr))
		return;
	if (tctx->burst_ns >= slice_ns / 4 || dom_of_cpu(cpu) != tctx->dom ||
	    !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
		return;
	curr = scx_bpf_cpu_curr(cpu);
	if (!curr || curr == p)
		return;
	cctx = lookup_task_ctx(curr);
	if (!cctx || !cctx->running_at || (s64)(cctx->vtime - tctx->vtime) <= 0)
		return;
	if (bpf_ktime_get_ns() - cctx->running_at < wake_preempt_ns)
		return;
	stat_inc(MLB_STAT_WAKE_PREEMPT);
	scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
}

void BPF_STRUCT_OPS(mlb_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	struct dom_ctx *d;
	u64 vtime;

	/*
	 * Pinned tasks too go to their domain's queue, in vtime order: a CPU only takes from
	 * there what may run on it, and the kernel skips the rest. Sending them straight to
	 * the local queue, which runs before anything else, let a stream of pinned tasks
	 * (stress-ng's affinity stressor) starve the domain queue into a watchdog stall.
	 */
	if (!tctx) {
		stat_inc(MLB_STAT_ENQ_LOCAL);
		mlb_insert(p, SCX_DSQ_LOCAL, task_slice(p), enq_flags);
		return;
	}
	ensure_allowed_dom(p, tctx);
	d = lookup_dom(tctx->dom);
	if (!d) {
		mlb_insert(p, SCX_DSQ_LOCAL, task_slice(p), enq_flags);
		return;
	}
	/* A sleeper may bank at most one slice of credit. */
	vtime = tctx->vtime;
	if ((s64)(vtime - (d->vtime_now - slice_ns)) < 0)
		vtime = d->vtime_now - slice_ns;
	tctx->vtime = vtime;
	stat_inc(MLB_STAT_ENQ_DOM);
	mlb_insert_vtime(p, tctx->dom, task_slice(p), vtime, enq_flags);
	if (!kick_for(p, tctx->dom) && (enq_flags & SCX_ENQ_WAKEUP))
		wake_preempt(p, tctx);
}

/*
 * Pull one task from domain @src onto @cpu (domain @dst), asking the seam per candidate.
 * A global function: the verifier checks it once, not once per caller loop iteration.
 */
__noinline int mlb_try_pull(s32 cpu, u32 dst, u32 src)
{
	struct mlb_move mv = {src, dst, cpu, MLB_KIND_PULL};
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	bool moved = false;
	u32 seen = 0;

	bpf_iter_scx_dsq_new(&it, src, 0);
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
		if (mlb_move(&it, p, SCX_DSQ_LOCAL, 0)) {
			moved = true;
			break;
		}
	}
	bpf_iter_scx_dsq_destroy(&it);
	return moved;
}

/* Pull from the other domains of @cpu's node (@same_node) or of the other nodes. */
static bool steal(s32 cpu, u32 dom, bool same_node)
{
	u32 node = node_of_dom(dom), min = same_node ? steal_min_node : steal_min_remote, i;

	bpf_for(i, 0, nr_doms)
	{
		if (i == dom || (node_of_dom(i) == node) != same_node)
			continue;
		if (scx_bpf_dsq_nr_queued(i) < min)
			continue;
		if (mlb_try_pull(cpu, dom, i)) {
			stat_inc(same_node ? MLB_STAT_STEAL_NODE : MLB_STAT_STEAL_REMOTE);
			return true;
		}
	}
	return false;
}

/*
 * Take for @cpu, among the first affine_scan tasks of its domain's queue, the first that last
 * ran on @cpu or outside the domain, skipping those that last ran on another CPU of the
 * domain: that CPU takes them at its next dispatch, within a slice, with their cache still
 * warm, where taking them here would move them (a migration inside the LLC). A global
 * function: verified once.
 */
__noinline int mlb_take_affine(s32 cpu, u32 dom)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	bool moved = false;
	u32 seen = 0;

	bpf_iter_scx_dsq_new(&it, dom, 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		s32 last = scx_bpf_task_cpu(p);

		if (++seen > affine_scan || seen > MLB_MAX_CANDIDATES)
			break;
		if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		if (last != cpu && dom_of_cpu(last) == dom)
			continue;
		moved = mlb_move(&it, p, SCX_DSQ_LOCAL, 0);
		break;
	}
	bpf_iter_scx_dsq_destroy(&it);
	return moved;
}

void BPF_STRUCT_OPS(mlb_dispatch, s32 cpu, struct task_struct *prev)
{
	u32 dom = dom_of_cpu(cpu);

	/*
	 * If prev is still runnable with slice left, the kernel keeps running it: a task
	 * fetched now would wait behind it in the local queue, invisible to idle CPUs and to
	 * the balancer. Fetch nothing.
	 */
	if (prev && (prev->scx.flags & SCX_TASK_QUEUED) && prev->scx.slice)
		return;
	if ((affine_scan && mlb_take_affine(cpu, dom)) || mlb_move_to_local(dom)) {
		stat_inc(MLB_STAT_DISPATCH_DOM);
		return;
	}
	/*
	 * prev's slice ran out but it is still runnable: with nothing else in its domain the
	 * kernel keeps running it. Stealing is for CPUs that would otherwise idle; a busy CPU
	 * pulling work would only push prev out to be pulled elsewhere (migration churn).
	 */
	if (prev && (prev->scx.flags & SCX_TASK_QUEUED))
		return;
	if (steal(cpu, dom, true))
		return;
	steal(cpu, dom, false);
}

/* ---- task life cycle ------------------------------------------------------------------ */

void BPF_STRUCT_OPS(mlb_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u64 now = bpf_ktime_get_ns();

	if (!tctx)
		return;
	update_fracs(tctx, now, false, false); /* it slept until now */
	if (tctx->woke_at) {
		u64 gap = now - tctx->woke_at;
		u32 inst = gap ? (MLB_SEC_NS / gap > 100000 ? 100000 : MLB_SEC_NS / gap) : 100000;

		tctx->wake_freq = (3 * tctx->wake_freq + inst) / 4;
	}
	tctx->woke_at = now;
	tctx->ready_at = now;
	dom_add_runnable(tctx, tctx->dom, p->scx.weight);
}

void BPF_STRUCT_OPS(mlb_running, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	s32 cpu = scx_bpf_task_cpu(p);
	u64 now = bpf_ktime_get_ns();
	u32 dom = dom_of_cpu(cpu);
	struct dom_ctx *d;

	if (!tctx)
		return;
	if (tctx->last_cpu != cpu)
		stat_inc(MLB_STAT_CPU_MIGR);
	tctx->last_cpu = cpu;
	/* Pulled or placed onto another domain: it belongs there now. */
	if (dom != tctx->dom)
		task_set_dom(tctx, dom, now, true);
	update_fracs(tctx, now, true, false); /* runnable, waiting */
	tctx->running_at = now;
	d = lookup_dom(dom);
	if (tctx->ready_at) {
		probe_run(tctx, d, now - tctx->ready_at, now);
		tctx->ready_at = 0;
	}
	if (d && (s64)(tctx->vtime - d->vtime_now) > 0)
		d->vtime_now = tctx->vtime;
}

void BPF_STRUCT_OPS(mlb_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u64 now = bpf_ktime_get_ns(), ran, slice, weight = p->scx.weight ?: 1;

	if (!tctx || !tctx->running_at)
		return;
	ran = now - tctx->running_at;
	slice = task_slice(p);
	/* A task whose slice is gone (used up, or given away by sched_yield()) pays at least
	 * the whole slice: yielders would otherwise keep the head of the queue forever. */
	tctx->vtime += (p->scx.slice || ran >= slice ? ran : slice) * MLB_WEIGHT_DFL / weight;
	tctx->burst_ns = (7 * tctx->burst_ns + ran) / 8;
	tctx->slice_use = ran >= slice ? MLB_FRAC_ONE : ran * MLB_FRAC_ONE / slice;
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
	tctx->dom = dom_of_cpu(scx_bpf_task_cpu(p));
	tctx->last_cpu = scx_bpf_task_cpu(p);
	tctx->duty_at = now;
	tctx->stopped_at = now;
	tctx->duty = MLB_FRAC_ONE / 2; /* unknown: start in the middle */
	return 0;
}

void BPF_STRUCT_OPS(mlb_enable, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	struct dom_ctx *d;

	__sync_fetch_and_add(&nr_tasks, 1);
	if (!tctx)
		return;
	d = lookup_dom(tctx->dom);
	if (d)
		tctx->vtime = d->vtime_now;
}

void BPF_STRUCT_OPS(mlb_disable, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	__sync_fetch_and_sub(&nr_tasks, 1);
	if (tctx)
		dom_remove_runnable(tctx);
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

/* ---- the balancer --------------------------------------------------------------------- */

/*
 * Move queued tasks of @src to @dst while the seam agrees and the move does not overshoot:
 * the pair's per-CPU imbalance shrinks by load * (1/src CPUs + 1/dst CPUs) per task.
 * Returns the number moved. A global function, verified once; it runs from the timer of
 * the sleepable init program, so it takes the RCU read lock itself for the cpumask kptrs.
 */
__noinline int mlb_balance_pair(u32 src, u32 dst)
{
	s64 imbal = (s64)dom_load_per_cpu(src) - (s64)dom_load_per_cpu(dst);
	u64 now = bpf_ktime_get_ns(), vtime;
	u32 ns = dom_cpu_count(src), nd = dom_cpu_count(dst), seen = 0, moved = 0;
	struct dom_ctx *sd = lookup_dom(src), *dd = lookup_dom(dst);
	const struct cpumask *dm;
	struct mlb_move mv = {src, dst, -1, MLB_KIND_BALANCE};
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;

	if (!sd || !dd || imbal <= 0)
		return 0;
	bpf_rcu_read_lock();
	dm = dom_mask(dst);
	if (!dm) {
		bpf_rcu_read_unlock();
		return 0;
	}
	bpf_iter_scx_dsq_new(&it, src, 0);
	while ((p = bpf_iter_scx_dsq_next(&it))) {
		struct task_ctx *tctx;
		s64 shift;

		if (++seen > MLB_MAX_CANDIDATES || moved >= max_balance_moves)
			break;
		if (task_pinned(p) || !bpf_cpumask_intersects(dm, p->cpus_ptr))
			continue;
		tctx = lookup_task_ctx(p);
		if (!tctx || tctx->dom != src)
			continue;
		shift = task_load(p, tctx) * (ns + nd) / (ns * nd);
		if (shift > imbal) /* would overshoot: make things worse */
			continue;
		if (!decide_move(p, tctx, &mv, true))
			continue;
		vtime = tctx->vtime - sd->vtime_now + dd->vtime_now;
		if (!mlb_move_vtime(&it, p, dst, vtime, 0))
			continue;
		task_set_dom(tctx, dst, now, true);
		imbal -= shift;
		moved++;
	}
	bpf_iter_scx_dsq_destroy(&it);
	if (moved) {
		s32 cpu = scx_bpf_pick_idle_cpu(dm, 0);

		if (cpu >= 0)
			scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
	}
	bpf_rcu_read_unlock();
	return moved;
}

/* Most and least loaded domains per CPU among those of node @node (all when -1). */
static void find_extremes(s32 node, u32 *busiest, u32 *idlest)
{
	u64 hi = 0, lo = ~0ULL;
	u32 i;

	*busiest = *idlest = MLB_MAX_DOMS;
	bpf_for(i, 0, nr_doms)
	{
		u64 l;

		if (node >= 0 && node_of_dom(i) != (u32)node)
			continue;
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
}

/* Smooth every domain's load and publish the per-domain stats. */
static void update_dom_loads(void)
{
	u32 i;

	bpf_for(i, 0, nr_doms)
	{
		struct dom_ctx *d = lookup_dom(i);
		s64 wt;

		if (!d || i >= MLB_MAX_DOMS)
			continue;
		wt = d->runnable_wt;
		if (wt < 0)
			wt = 0;
		d->load = mlb_ewma(d->load, mlb_weight_to_load(wt));
		dom_stats[IDX(i, MLB_MAX_DOMS)].load = d->load;
		dom_stats[IDX(i, MLB_MAX_DOMS)].nr_queued = scx_bpf_dsq_nr_queued(i);
		dom_stats[IDX(i, MLB_MAX_DOMS)].nr_cpus = dom_cpu_count(i);
		dom_stats[IDX(i, MLB_MAX_DOMS)].avg_wait_ns = d->avg_wait_ns;
	}
}

/* Balance one pair if it is imbalanced beyond @pct; returns tasks moved. */
static u32 balance_if_needed(u32 src, u32 dst, u32 pct)
{
	u64 sl, dl, ref;
	struct dom_ctx *sd;
	u32 moved;

	if (src >= MLB_MAX_DOMS || dst >= MLB_MAX_DOMS || src == dst)
		return 0;
	sl = dom_load_per_cpu(src);
	dl = dom_load_per_cpu(dst);
	ref = (sl + dl) / 2;
	if (ref < MLB_IMBAL_REF_MIN)
		ref = MLB_IMBAL_REF_MIN;
	if (sl <= dl || (sl - dl) * 100 <= pct * ref)
		return 0;
	moved = mlb_balance_pair(src, dst);
	sd = lookup_dom(src);
	if (sd)
		sd->balance_fails = moved ? 0 : sd->balance_fails + 1;
	return moved;
}

static int balance_timerfn(void *map, int *key, struct bpf_timer *timer)
{
	u32 busiest, idlest, n;

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

	bpf_timer_start(timer, balance_interval_ns, 0);
	return 0;
}

/* ---- init and exit -------------------------------------------------------------------- */

static s32 init_dom(u32 dom)
{
	struct bpf_cpumask *mask;
	struct dom_ctx *d;
	u32 cpu;
	s32 ret;

	ret = scx_bpf_create_dsq(dom, dom_node[IDX(dom, MLB_MAX_DOMS)]);
	if (ret)
		return ret;
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

static s32 init_scratch(u32 idx)
{
	struct scratch_mask *s = bpf_map_lookup_elem(&scratch_masks, &idx);
	struct bpf_cpumask *mask;

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

	bpf_for(i, 0, nr_doms)
	{
		ret = init_dom(i);
		if (ret) {
			mlb_error("domain %u init failed: %d", i, ret);
			return ret;
		}
	}
	bpf_for(i, 0, 2 * nr_cpus)
	{
		ret = init_scratch(i);
		if (ret)
			return ret;
	}
	bt = bpf_map_lookup_elem(&balance_timers, &key);
	if (!bt)
		return -ENOENT;
	bpf_timer_init(&bt->timer, &balance_timers, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&bt->timer, balance_timerfn);
	return bpf_timer_start(&bt->timer, balance_interval_ns, 0);
}

/* Copy the exit information for user space; kind last, since user space polls it. */
void BPF_STRUCT_OPS(mlb_exit, struct scx_exit_info *ei)
{
	exit_info.exit_code = ei->exit_code;
	bpf_probe_read_kernel_str(exit_info.reason, sizeof(exit_info.reason), ei->reason);
	bpf_probe_read_kernel_str(exit_info.msg, sizeof(exit_info.msg), ei->msg);
	asm volatile("" ::: "memory"); /* keep the order; x86 does not reorder stores */
	exit_info.kind = ei->kind;
}

SEC(".struct_ops.link")
struct sched_ext_ops mlb_ops = {
    .select_cpu = (void *)mlb_select_cpu,
    .enqueue = (void *)mlb_enqueue,
    .dispatch = (void *)mlb_dispatch,
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
    .timeout_ms = 10000,
    .name = "scx_mlb",
};
