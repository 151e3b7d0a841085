/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_mlb: the contract shared by the BPF scheduler and user space.
 *
 * Everything in here is compiled twice: by clang for BPF (with vmlinux.h providing the
 * kernel types) and by gcc for user space (with <stdint.h>). Layouts are fixed-size and
 * asserted below, so a struct written by one side is read bit for bit by the other.
 *
 * The migration-decision features are declared once, in MLB_FEATURES(), as an X-macro:
 * the enum of feature indices, the names written in dataset headers and model files, and
 * the documented ranges all come from the same line, so they cannot drift apart.
 */
#ifndef __MLB_INTF_H
#define __MLB_INTF_H

#ifndef __bpf__
#include <stdbool.h>
#include <stdint.h>
typedef int32_t s32;
typedef uint32_t u32;
typedef int64_t s64;
typedef uint64_t u64;
typedef uint16_t u16;
typedef uint8_t u8;
#endif

#define MLB_VERSION "0.2.0"
/*
 * The ops name: what /sys/kernel/sched_ext/root/ops shows while scx_mlb runs. It carries the
 * version and the git revision (MLB_GIT, from build/mlb-version.h, which the user includes),
 * as sched-ext's schedulers do, so that a report from a running machine says which build
 * ran. The kernel takes letters, digits, '_' and '.' in it, up to 127 of them.
 */
#define MLB_OPS_NAME "scx_mlb_" MLB_VERSION "_" MLB_GIT

/* Limits of the topology the scheduler handles (the same as scx_rusty's). */
#define MLB_MAX_CPUS	  512
#define MLB_MAX_DOMS	  64
#define MLB_MAX_NODES	  16
#define MLB_CPUMASK_WORDS (MLB_MAX_CPUS / 64)

/*
 * Fixed-point units used across the contract.
 *
 * MLB_LOAD_ONE: the load of one nice-0 task that is runnable all the time. A domain whose
 * load is 2 * MLB_LOAD_ONE carries two such tasks. Loads are u64 sums of
 * weight * duty / MLB_WEIGHT_DFL with duty in MLB_FRAC_ONE units.
 *
 * MLB_FRAC_ONE: 1.0 for fractions (duty cycles, slice use), a power of two so that scaling
 * is a shift.
 */
#define MLB_FRAC_SHIFT 10
#define MLB_FRAC_ONE   (1 << MLB_FRAC_SHIFT) /* 1.0 as a fraction */
#define MLB_LOAD_ONE   MLB_FRAC_ONE	     /* one always-runnable nice-0 task */
#define MLB_WEIGHT_DFL 100		     /* sched_ext weight of a nice-0 task */

/*
 * Migration-decision features: X(ENUM, "name", min, max, "unit and scaling").
 *
 * Every value is an s32 computed in BPF at decision time and clamped to [min, max] before it
 * is used or recorded. Times are microseconds, fractions are in MLB_FRAC_ONE units, loads in
 * MLB_LOAD_ONE units per CPU of the domain. Every decision is about CPUs: "src" is the CPU
 * the task is on or queued on, "dst" the CPU the move would take it to; the loads are those
 * of their domains (LLC within a node). Expected waits (src_wait_us, dst_wait_us) are what
 * a task arriving there now would wait: the expected runs of the tasks queued on that CPU
 * plus what is left of the running task's run (0 for an idle CPU); for a wake-up that will
 * preempt the task running at src (--wake-preempt-us), src_wait_us is 0.
 */
#define MLB_FEATURES(X)                                                                            \
	X(TASK_WEIGHT, "task_weight", 1, 10000, "sched_ext weight, 100 = nice 0")                  \
	X(TASK_DUTY, "task_duty", 0, 1024, "decayed runnable fraction, 1024 = always runnable")    \
	X(TASK_RUN_FRAC, "task_run_frac", 0, 1024, "decayed running fraction, 1024 = 1.0")         \
	X(TASK_BURST_US, "task_burst_us", 0, 1000000, "decayed average run burst, us")             \
	X(TASK_SLICE_USE, "task_slice_use", 0, 1024, "fraction of its slice it uses, 1024 = all")  \
	X(TASK_WAKE_FREQ, "task_wake_freq", 0, 100000, "decayed wake-ups per second")              \
	X(TASK_SINCE_RAN_US, "task_since_ran_us", 0, 10000000, "time since it last ran, us")       \
	X(TASK_CACHE_HOT, "task_cache_hot", 0, 1, "1 if it ran within --migr-cost-us")             \
	X(TASK_RECENT_MIGR, "task_recent_migr", 0, 1000, "decayed CPU changes per second")         \
	X(TASK_NR_CPUS, "task_nr_cpus", 1, MLB_MAX_CPUS, "CPUs its affinity allows")               \
	X(TASK_VLAG_US, "task_vlag_us", -1000000, 1000000,                                         \
	  "vtime ahead (+) of its CPU's clock, us")                                                \
	X(SRC_NR_QUEUED, "src_nr_queued", 0, 4096, "tasks queued on the source CPU")               \
	X(DST_NR_QUEUED, "dst_nr_queued", 0, 4096, "tasks queued on the destination CPU")          \
	X(SRC_LOAD, "src_load", 0, 65536, "source domain load per CPU, 1024 = one busy task")      \
	X(DST_LOAD, "dst_load", 0, 65536, "destination domain load per CPU, 1024 = one task")      \
	X(IMBALANCE, "imbalance", -65536, 65536, "src_load - dst_load, 1024 = one task per CPU")   \
	X(DST_IDLE, "dst_idle", 0, 2, "destination CPU: 0 busy, 1 idle, 2 its whole core idle")    \
	X(SAME_LLC, "same_llc", 0, 1, "1 if src and dst CPUs share the last-level cache")          \
	X(SAME_NODE, "same_node", 0, 1, "1 if src and dst CPUs are on the same NUMA node")         \
	X(NUMA_DIST, "numa_dist", 10, 255, "NUMA distance src to dst, 10 = local")                 \
	X(SRC_CAPACITY, "src_capacity", 0, 1024, "capacity of the source CPU, 1024 = the largest") \
	X(DST_CAPACITY, "dst_capacity", 0, 1024, "capacity of the destination CPU")                \
	X(DST_PERF, "dst_perf", 0, 1024, "current performance level of the destination CPU")       \
	X(BALANCE_FAILS, "balance_fails", 0, 64, "recent failed balance rounds of the source")     \
	X(KIND, "kind", 0, 2, "0 periodic balance, 1 idle pull, 2 wake-up placement")              \
	X(SAME_CORE, "same_core", 0, 1, "1 if src and dst CPUs are SMT siblings of one core")      \
	X(SRC_WAIT_US, "src_wait_us", 0, 1000000,                                                  \
	  "expected wait at src: work queued ahead + the running task's rest, us (0 if it "        \
	  "preempts)")                                                                             \
	X(DST_WAIT_US, "dst_wait_us", 0, 1000000, "expected wait at dst, the same way, us")        \
	X(TASK_WAITED_US, "task_waited_us", 0, 10000000, "time it has waited runnable so far, us") \
	X(TASK_RESIDENCE_US, "task_residence_us", 0, 10000000,                                     \
	  "time since it came to its CPU (cache heat), us")                                        \
	X(WAKER_ON_DST, "waker_on_dst", 0, 1, "1 if the task that last woke it runs on dst")       \
	X(TASK_CLASS, "task_class", 0, 2,                                                          \
	  "class learned from its behaviour: 0 latency-critical, 1 interactive, 2 batch")

enum mlb_feature {
#define MLB_X_ENUM(e, name, lo, hi, doc) MLB_F_##e,
	MLB_FEATURES(MLB_X_ENUM)
#undef MLB_X_ENUM
	    MLB_NR_FEATURES,
};

/* MLB_MIN_<FEATURE> and MLB_MAX_<FEATURE>: the clamp range of each feature. */
enum mlb_feature_range {
#define MLB_X_RANGE(e, name, lo, hi, doc) MLB_MIN_##e = lo, MLB_MAX_##e = hi,
	MLB_FEATURES(MLB_X_RANGE)
#undef MLB_X_RANGE
};

/* Decision kinds, the value of MLB_F_KIND. */
enum mlb_kind {
	MLB_KIND_BALANCE = 0, /* the periodic balancer moving a queued task between domains */
	MLB_KIND_PULL = 1,    /* an idle CPU taking a task queued on another CPU (or a queued
			       * task sent to an idle CPU at enqueue) */
	MLB_KIND_WAKEUP = 2,  /* a waking task placed on another CPU than its previous one */
};

/* Probabilities of recorded decisions (prop_ppm) are in parts per million. */
#define MLB_PPM_ONE 1000000

/* Who decided, recorded beside each decision. */
enum mlb_decider {
	MLB_BY_HEURISTIC = 0,
	MLB_BY_MODEL = 1,
	MLB_BY_EXPLORE = 2,
	MLB_BY_CONTROL = 3, /* a model was live and scored it, but the heuristic decided: the
			     * control share (--control), to compare the two live */
};

struct mlb_features {
	s32 v[MLB_NR_FEATURES];
};

/*
 * What the BPF side does at each decision (rodata `mode`). The daemon's "adaptive" mode is
 * MLB_MODE_INFER in BPF plus retraining in user space.
 */
enum mlb_mode {
	MLB_MODE_HEURISTIC = 0, /* the heuristic decides, nothing is recorded */
	MLB_MODE_COLLECT = 1,	/* the heuristic decides (plus exploration), all is recorded */
	MLB_MODE_INFER = 2,	/* the deployed model decides (the heuristic when there is none) */
};

/*
 * One decision, sent to user space through the `decisions` ring buffer as it is made.
 * id: unique within one scheduler instance (never 0). features: exactly what the decider saw.
 */
struct mlb_decision_rec {
	u64 id;
	u64 ts_ns;     /* bpf_ktime_get_ns() at the decision */
	u32 pid;       /* the task (tgid-independent thread id) */
	u32 model_gen; /* generation of the model that scored it; 0: no model ran */
	s32 score;     /* the model's migrate logit (Q15.16); 0 when no model ran */
	u8 decision;   /* 1 migrate, 0 stay: what was done */
	u8 decider;    /* enum mlb_decider */
	u8 heuristic;  /* what the heuristic said (computed for every decision) */
	u8 kind;       /* enum mlb_kind */
	u16 src_cpu;   /* where the task was (running, queued, or last ran) */
	u16 dst_cpu;   /* where the move would take it */
	u32 prop_ppm;  /* probability, per million, with which this action was taken: of the
			* policy's choice (the model's, or the heuristic's for the control share,
			* --control) and of exploration (--explore); 1e6 when forced (the
			* wait bound) */
	struct mlb_features f;
};

/* Outcome flags. */
#define MLB_OUT_MOVED_BACK (1U << 0) /* a migrated task went back to src_cpu within bounce_ns */
#define MLB_OUT_EXITED	   (1U << 1) /* the task left the scheduler before the horizon */
#define MLB_OUT_REPLACED   (1U << 2) /* a newer decision on the task ended the observation */

/*
 * What happened after decision `id`, sent through the `outcomes` ring buffer when its
 * observation ends (the horizon has passed at the task's next event, the task exited, or a
 * newer decision on it replaced it). Waits are run-queue waits: from runnable to running.
 * est_other_ns: the expected wait, at decision time, at the CPU NOT chosen (the destination
 * for "stay", the source for "migrate"): what the other choice would have cost.
 * Imbalance: src_load - dst_load (per-CPU load units, as the IMBALANCE feature) at the
 * decision and at the end of the observation.
 */
struct mlb_outcome_rec {
	u64 id;
	u64 observed_ns;   /* decision to end of observation */
	u64 wait_ns;	   /* total wait over the runs observed */
	u64 first_wait_ns; /* from the decision to the task's first run after it (at most
			    * that run's wait): the wait the decision chose */
	u64 est_other_ns;
	u32 runs;  /* runs started during the observation */
	u32 flags; /* MLB_OUT_* */
	s32 imbal_before;
	s32 imbal_after;
};

/*
 * Counters, one slot each in a per-CPU array; user space sums the CPUs and prints every one
 * as key=value in this order (src/stats.c): X(ENUM, "key", "what it counts").
 *
 * Migrations are counted at ops.running, where a task starts on another CPU than it last ran
 * on, in three classes that add up to every CPU change of a task scx_mlb schedules:
 * chosen (the seam said move, to this CPU), forced (its affinity no longer allowed the old
 * CPU) and unchosen (anything else), each per topology level: same core (SMT siblings), same
 * LLC, same node, remote. The first run of a new task is not a migration (the kernel does
 * not count fork placement either).
 *
 * class_lat, class_inter and class_batch are gauges, not counters: a task is added to its
 * class's slot on the CPU where it enters the class and taken away on the CPU where it
 * leaves it, so one CPU's value may wrap below zero, but the sum over the CPUs (modulo 2^64,
 * as user space adds them) is the number of tasks in the class now.
 */
#define MLB_STATS(X)                                                                               \
	X(ENQ_LOCAL, "direct", "wake-ups dispatched straight to an idle CPU")                      \
	X(ENQ_CPU, "enq_cpu", "tasks queued on a CPU's queue")                                     \
	X(DISPATCH_OWN, "disp_own", "a CPU took the head of its own queue")                        \
	X(PULL_LLC, "pull_llc", "an idle CPU pulled a task queued on a CPU of its LLC")            \
	X(PULL_NODE, "steal", "an idle CPU pulled from another LLC of its node")                   \
	X(PULL_REMOTE, "steal_remote", "an idle CPU pulled from another node")                     \
	X(CONSIDERED, "considered", "decisions asked of the seam")                                 \
	X(TAKEN, "taken", "decisions that said move")                                              \
	X(BAL_MOVED, "bal_moved", "queued tasks the balancer moved between domains")               \
	X(WAKE_PREV, "wake_prev", "wake-ups that kept the previous CPU (idle)")                    \
	X(WAKE_STAY, "wake_stay", "wake-ups that stay queued on the busy previous CPU")            \
	X(WAKE_NEW, "wake_new", "new tasks placed on another CPU than their parent's (no seam)")   \
	X(WAKE_MOVE, "wake_move", "wake-ups the seam sent to another CPU")                         \
	X(PUSH, "push", "queued tasks the seam sent to an idle CPU at enqueue")                    \
	X(AFFN_VIOL, "affn_moves", "a task queued where its affinity forbids, moved (forced)")     \
	X(BAL_ROUNDS, "rounds", "balancer timer rounds")                                           \
	X(TICK_KICK, "tick_kick", "a busy CPU with waiting tasks woke an idle CPU to pull")        \
	X(SLICE_CUT, "slice_cut", "running slices shortened because tasks wait")                   \
	X(STARVE_MOVE, "starve_move", "moves forced by the wait bound (--max-wait-ms)")            \
	X(BY_HEURISTIC, "by_heur", "decisions made by the heuristic")                              \
	X(BY_MODEL, "by_model", "decisions made by the model")                                     \
	X(BY_EXPLORE, "by_explore", "decisions taken against the policy (exploration)")            \
	X(BY_CONTROL, "by_control", "decisions of the control share: the heuristic, a model live") \
	X(MODEL_FAIL, "model_fail", "model runs that failed or raced a swap: heuristic used")      \
	X(DROP_DECISION, "drop_dec", "decision records lost: ring buffer full")                    \
	X(DROP_OUTCOME, "drop_out", "outcome records lost: ring buffer full")                      \
	X(OUTCOMES, "outcomes", "outcome records sent")                                            \
	X(WAKE_PREEMPT, "preempt", "a waking task preempted its CPU's current task")               \
	X(CPU_MIGR, "migr", "tasks that started on another CPU than last time (all classes)")      \
	X(MIGR_CHOSEN, "migr_chosen", "... the seam chose the move")                               \
	X(MIGR_FORCED, "migr_forced", "... affinity forced it")                                    \
	X(MIGR_UNCHOSEN, "migr_unchosen", "... neither")                                           \
	X(MIGR_CHOSEN_CORE, "migr_chosen_core", "chosen, same core")                               \
	X(MIGR_CHOSEN_LLC, "migr_chosen_llc", "chosen, same LLC")                                  \
	X(MIGR_CHOSEN_NODE, "migr_chosen_node", "chosen, same node")                               \
	X(MIGR_CHOSEN_REMOTE, "migr_chosen_remote", "chosen, another node")                        \
	X(MIGR_FORCED_CORE, "migr_forced_core", "forced, same core")                               \
	X(MIGR_FORCED_LLC, "migr_forced_llc", "forced, same LLC")                                  \
	X(MIGR_FORCED_NODE, "migr_forced_node", "forced, same node")                               \
	X(MIGR_FORCED_REMOTE, "migr_forced_remote", "forced, another node")                        \
	X(MIGR_UNCHOSEN_CORE, "migr_unchosen_core", "unchosen, same core")                         \
	X(MIGR_UNCHOSEN_LLC, "migr_unchosen_llc", "unchosen, same LLC")                            \
	X(MIGR_UNCHOSEN_NODE, "migr_unchosen_node", "unchosen, same node")                         \
	X(MIGR_UNCHOSEN_REMOTE, "migr_unchosen_remote", "unchosen, another node")                  \
	X(CLASS_LAT, "class_lat", "tasks now in class latency-critical (include/mlb/class.h)")     \
	X(CLASS_INTER, "class_inter", "tasks now in class interactive")                            \
	X(CLASS_BATCH, "class_batch", "tasks now in class batch")                                  \
	X(PREEMPT_LAT_BATCH, "preempt_lat_batch",                                                  \
	  "a latency-critical task took the CPU from a batch task (--lat-preempt-us)")             \
	X(IDLE_REKICK, "idle_rekick",                                                              \
	  "a CPU went idle with tasks on its own queue (an enqueue raced its dispatch): kicked")

/*
 * The stats line's other keys, computed by user space (src/stats.c), with the counters one
 * record (struct mlb_stats_rec) that the stats line, the README's table and the stats
 * socket's JSON (src/statsd.c) are all printed from. X(ENUM, "key", TYPE, "doc"); TYPE is
 * how the value is written: I an integer, F0, F1, F2 a decimal with that many digits.
 * HEAD: before the counters. DOM: per domain N, domN_<key> in the line, doms.N.<key> in the
 * JSON. LEARN: after the domains, in the learning modes only.
 */
#define MLB_STATS_HEAD(X)                                                                          \
	X(T, "t", F1, "seconds since attach")                                                      \
	X(MIGR_S, "migr_s", F1, "CPU migrations per second over the last period")                  \
	X(QUEUED, "queued", I, "tasks waiting in the CPUs' queues now")                            \
	X(TASKS, "tasks", I, "tasks scheduled by scx_mlb now")                                     \
	X(TASK_CTXS, "task_ctxs", I,                                                               \
	  "per-task contexts held by the BPF side (freed when a task exits)")
#define MLB_STATS_DOM(X)                                                                           \
	X(LOAD, "load", F2, "smoothed load, in always-busy nice-0 tasks")                          \
	X(Q, "q", I, "tasks queued on its CPUs")                                                   \
	X(WAIT_US, "wait_us", F0, "smoothed run-queue wait per run of its tasks, us")
#define MLB_STATS_LEARN(X)                                                                         \
	X(GEN, "gen", I, "learning modes: model generation deployed by user space")                \
	X(LIVE_GEN, "live_gen", I, "learning modes: model generation BPF last used")               \
	X(SAMPLES, "samples", I, "learning modes: labelled samples written")                       \
	X(PENDING, "pending", I, "learning modes: decisions waiting for their outcome")            \
	X(RB_DROPS, "rb_drops", I, "learning modes: records lost to full ring buffers")            \
	X(WRITE_DROPPED, "write_dropped", I, "learning modes: samples lost to write errors")       \
	X(LIVE_COST_US, "live_cost_us", F1,                                                        \
	  "learning modes: the live model's estimated cost per decision, us (0: none)")

enum mlb_stat_head {
#define MLB_X_SH(e, key, type, doc) MLB_SH_##e,
	MLB_STATS_HEAD(MLB_X_SH)
#undef MLB_X_SH
	    MLB_NR_SHEAD,
};
enum mlb_stat_dom {
#define MLB_X_SD(e, key, type, doc) MLB_SD_##e,
	MLB_STATS_DOM(MLB_X_SD)
#undef MLB_X_SD
	    MLB_NR_SDOM,
};
enum mlb_stat_learn {
#define MLB_X_SL(e, key, type, doc) MLB_SL_##e,
	MLB_STATS_LEARN(MLB_X_SL)
#undef MLB_X_SL
	    MLB_NR_SLEARN,
};

enum mlb_stat {
#define MLB_X_STAT(e, key, doc) MLB_STAT_##e,
	MLB_STATS(MLB_X_STAT)
#undef MLB_X_STAT
	    MLB_NR_STATS,
};

/*
 * Work per call, counted by the scheduler itself in the per-CPU `work` map (one struct per
 * CPU): for each hot callback and the balancer's timer round, the calls and what they looked
 * at. Deterministic for a given machine shape and load, unlike time, so it is what shows how
 * the cost grows with CPUs and domains (docs/scaling.md). User space sums the CPUs and prints
 * one `work` line beside each stats line: <callback>_<kind>=N, and balance_round_ns.
 * X(ENUM, "callback") and X(ENUM, "kind", "what it counts").
 */
#define MLB_WORK_CBS(X)                                                                            \
	X(SELECT, "select_cpu")                                                                    \
	X(ENQUEUE, "enqueue")                                                                      \
	X(DISPATCH, "dispatch")                                                                    \
	X(TICK, "tick")                                                                            \
	X(RUNNING, "running")                                                                      \
	X(STOPPING, "stopping")                                                                    \
	X(BALANCE, "balance_round")
#define MLB_WORK_KINDS(X)                                                                          \
	X(CALLS, "calls", "calls (timer rounds for balance_round)")                                \
	X(CPUS, "cpus", "CPUs scanned: read a CPU's idle state or expected wait")                  \
	X(TASKS, "tasks", "queued tasks walked in a queue iterator")                               \
	X(DOMS, "doms", "domains visited: a domain's load, queue count or cpumask read")           \
	X(DECIDE, "decisions", "seam decisions (a heuristic or model run each)")

enum mlb_work_cb {
#define MLB_X_WCB(e, name) MLB_WCB_##e,
	MLB_WORK_CBS(MLB_X_WCB)
#undef MLB_X_WCB
	    MLB_NR_WORK_CBS,
};
enum mlb_work_kind {
#define MLB_X_WK(e, name, doc) MLB_WK_##e,
	MLB_WORK_KINDS(MLB_X_WK)
#undef MLB_X_WK
	    MLB_NR_WORK_KINDS,
};

/* One CPU's slot of the `work` map. cur: the callback running on this CPU now (set at its
 * entry; callbacks do not nest on a CPU), to which the helpers' work is added. */
struct mlb_work {
	u64 cur;
	u64 bal_ns; /* time inside the balancer's timer callback (it has no run_cnt) */
	u64 n[MLB_NR_WORK_CBS][MLB_NR_WORK_KINDS];
};

/* Migration classes and topology levels: MLB_STAT_MIGR_<CLASS>_<LEVEL> is
 * MLB_STAT_MIGR_CHOSEN_CORE + class * MLB_NR_LEVELS + level. */
enum mlb_migr_class { MLB_MIGR_CHOSEN, MLB_MIGR_FORCED, MLB_MIGR_UNCHOSEN };
enum mlb_level { MLB_LEVEL_CORE, MLB_LEVEL_LLC, MLB_LEVEL_NODE, MLB_LEVEL_REMOTE, MLB_NR_LEVELS };

/*
 * Per-domain state that user space reads for its stats line (a .bss array in BPF), refreshed
 * every balance round. load: the sum of its tasks' loads (MLB_LOAD_ONE units, not per CPU).
 */
struct mlb_dom_stat {
	u64 load;
	u32 nr_queued;
	u32 nr_cpus;
	u64 avg_wait_ns; /* smoothed run-queue wait per run of its tasks */
};

#define MLB_ASSERT(cond, msg) _Static_assert(cond, msg)
MLB_ASSERT(MLB_NR_FEATURES >= 15, "the design asks for at least 15 features");
MLB_ASSERT(MLB_NR_FEATURES <= 32, "the network takes at most 32 inputs");
MLB_ASSERT(sizeof(struct mlb_features) == 4 * MLB_NR_FEATURES, "features are packed s32");
MLB_ASSERT(sizeof(struct mlb_dom_stat) == 24, "dom stat layout");
MLB_ASSERT(sizeof(struct mlb_work) == 8 * (2 + MLB_NR_WORK_CBS * MLB_NR_WORK_KINDS), "work layout");
MLB_ASSERT(MLB_MAX_CPUS % 64 == 0, "cpumask words");
MLB_ASSERT(sizeof(struct mlb_decision_rec) == ((40 + 4 * MLB_NR_FEATURES + 7) & ~7),
	   "decision record layout: 40 bytes, the features, padding to 8");
MLB_ASSERT(sizeof(struct mlb_outcome_rec) == 56, "outcome record layout");
MLB_ASSERT(MLB_MAX_CPUS <= 65536, "CPU ids fit u16");
MLB_ASSERT(MLB_STAT_MIGR_FORCED == MLB_STAT_MIGR_CHOSEN + MLB_MIGR_FORCED &&
	       MLB_STAT_MIGR_UNCHOSEN == MLB_STAT_MIGR_CHOSEN + MLB_MIGR_UNCHOSEN,
	   "migration class totals follow enum mlb_migr_class");
MLB_ASSERT(MLB_STAT_MIGR_UNCHOSEN_REMOTE ==
	       MLB_STAT_MIGR_CHOSEN_CORE + MLB_MIGR_UNCHOSEN * MLB_NR_LEVELS + MLB_LEVEL_REMOTE,
	   "migration counters per class and level follow the enums");

#endif /* __MLB_INTF_H */
