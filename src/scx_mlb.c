// SPDX-License-Identifier: GPL-2.0
/*
 * scx_mlb - loader: discover the topology, configure and load the BPF scheduler, attach it,
 * print stats until a signal or the scheduler's exit, report why it ended, and reattach
 * when the kernel asks for a restart (CPU hotplug).
 */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mlb.h"
#include "collect.h"
#include "learn.h"
#include "scx_mlb.skel.h"

/* Exit statuses of the program. */
enum {
	MLB_EXIT_OK = 0,	   /* detached on request (signal, sysrq, unregistered) */
	MLB_EXIT_SCHED_ERROR = 1,  /* the kernel or the BPF side aborted the scheduler */
	MLB_EXIT_USAGE = 2,	   /* bad arguments */
	MLB_EXIT_CANNOT_START = 3, /* no sched_ext, another scheduler, load failure */
};

/* SCX_OPS_SWITCH_PARTIAL: a stable flag value since sched_ext's first release (6.12). */
#define MLB_OPS_SWITCH_PARTIAL (1ULL << 3)
#define SCX_SYSFS	       "/sys/kernel/sched_ext"

static struct env {
	u64 slice_us;
	u64 interval_ms;
	u64 half_life_ms;
	u64 migr_cost_us;
	u32 imbal_pct;
	u32 numa_imbal_pct;
	u32 max_recent_migr;
	u64 slice_min_us;
	u32 max_wait_ms;
	u32 move_cost_core_us;
	u32 move_cost_llc_us;
	u32 move_cost_xllc_us;
	u32 move_cost_node_us;
	u32 wake_preempt_us;
	u32 watchdog_ms;
	u32 stats_sec;
	bool partial;
	bool verbose;
	const char *sysfs;
	/* the learning loop */
	int mode; /* enum mlb_daemon_mode */
	const char *state_dir;
	const char *model_path;
	u32 explore_ppm;
	u32 horizon_ms;
	u32 bounce_ms;
	bool imitation;
	bool allow_writable_model;
	u32 window;
	u32 duration_s;
	u32 ring_kb; /* decision ring buffer size (the outcome one is half), 0: the BPF default */
	struct mlb_learn_opts learn;
} env = {
    .slice_us = 20000,
    .interval_ms = 100,
    .half_life_ms = 250,
    .migr_cost_us = 500,
    .imbal_pct = 10,
    .numa_imbal_pct = 20,
    .max_recent_migr = 8,
    .slice_min_us = 1000,
    .max_wait_ms = 20,
    .move_cost_core_us = 10,
    .move_cost_llc_us = 1000,
    .move_cost_xllc_us = 5000,
    .move_cost_node_us = 10000,
    .wake_preempt_us = 0,
    .watchdog_ms = 10000,
    .stats_sec = 1,
    .sysfs = "/sys",
    .mode = MLB_DMODE_HEURISTIC,
    .state_dir = "/var/lib/scx_mlb",
    .explore_ppm = 20000,
    .horizon_ms = 50,
    .bounce_ms = 50,
    .window = MLB_WINDOW_DEFAULT,
};

static volatile sig_atomic_t exiting;

static const char mlb_version[] = "scx_mlb " MLB_VERSION;
static const char doc[] =
    "scx_mlb: a sched_ext scheduler with a learned load balancer.\n"
    "\n"
    "Weighted fair queues per CPU; one domain per last-level cache in each NUMA node for\n"
    "load accounting and balancing; every chosen change of CPU goes through one decision\n"
    "seam: move when the wait it saves exceeds the cost of a move at that topology level."
    "\v"
    "EXAMPLES:\n"
    "  scx_mlb                      # run with defaults, a stats line every second\n"
    "  scx_mlb -s 5000 -i 50        # 5 ms slices, balance every 50 ms\n"
    "  scx_mlb --partial            # only tasks with policy SCHED_EXT (7)\n"
    "  scx_mlb -I 5 -N 25 -S 0      # tighter LLC balance, looser NUMA, no stats\n"
    "  scx_mlb --mode collect       # record decisions and outcomes in\n"
    "                               #   /var/lib/scx_mlb/dataset.csv\n"
    "  scx_mlb --mode infer --model m.mlb   # let a trained model decide migrations\n"
    "  scx_mlb --mode adaptive      # learn continuously: collect, retrain, swap models\n"
    "\n"
    "MODES: heuristic (default: the built-in balancer, nothing recorded), collect, infer,\n"
    "adaptive. See README.md, \"The learning loop\".\n";

enum {
	OPT_HALF_LIFE = 1000,
	OPT_MIGR_COST,
	OPT_MAX_RECENT,
	OPT_SYSFS,
	OPT_EXPLORE,
	OPT_HORIZON,
	OPT_BOUNCE,
	OPT_LABEL,
	OPT_RETRAIN_S,
	OPT_RETRAIN_SAMPLES,
	OPT_MIN_SAMPLES,
	OPT_WINDOW,
	OPT_ALLOW_WRITABLE,
	OPT_DURATION,
	OPT_RING_KB,
	OPT_SLICE_MIN,
	OPT_MAX_WAIT,
	OPT_COST_CORE,
	OPT_COST_LLC,
	OPT_COST_XLLC,
	OPT_COST_NODE,
	OPT_WAKE_PREEMPT,
	OPT_WATCHDOG,
};

static const struct argp_option opts[] = {
    {"slice-us", 's', "US", 0, "Time slice in microseconds (100-1000000, default 20000)"},
    {"interval-ms", 'i', "MS", 0, "Balance interval in milliseconds (1-10000, default 100)"},
    {"imbal-pct", 'I', "PCT", 0,
     "Domain imbalance threshold within a node, percent (1-1000, default 10)"},
    {"numa-imbal-pct", 'N', "PCT", 0,
     "Imbalance threshold across NUMA nodes, percent (1-1000, default 20)"},
    {"partial", 'p', NULL, 0, "Schedule only tasks whose policy is SCHED_EXT"},
    {"stats", 'S', "SECONDS", 0, "Stats line period (0 = off, max 3600, default 1)"},
    {"half-life-ms", OPT_HALF_LIFE, "MS", 0,
     "Half-life of the task load averages (1-60000, default 250)"},
    {"migr-cost-us", OPT_MIGR_COST, "US", 0,
     "A task that ran this recently is cache-hot (0-1000000, default 500)"},
    {"max-recent-migr", OPT_MAX_RECENT, "N", 0,
     "Ping-pong guard: no move for a task with N domain migrations per second (1-1000, "
     "default 8)"},
    {"slice-min-us", OPT_SLICE_MIN, "US", 0,
     "While tasks wait on a CPU its running task's slice is cut to slice / (waiting + 1), "
     "but not below US (100-1000000, default 1000)"},
    {"max-wait-ms", OPT_MAX_WAIT, "MS", 0,
     "The wait bound: a task queued this long moves to an idle CPU whatever the policy says "
     "(1-10000, default 20)"},
    {"move-cost-core-us", OPT_COST_CORE, "US", 0,
     "Cost of a move between SMT siblings of one core: a move must save more wait than this "
     "(0-1000000, default 10)"},
    {"move-cost-llc-us", OPT_COST_LLC, "US", 0,
     "... between CPUs sharing a last-level cache (0-1000000, default 1000)"},
    {"move-cost-cross-llc-us", OPT_COST_XLLC, "US", 0,
     "... to another LLC of the same NUMA node (0-1000000, default 5000)"},
    {"move-cost-node-us", OPT_COST_NODE, "US", 0,
     "... to another node, at NUMA distance 10, scaled by distance / 10 (0-1000000, default "
     "10000). All move costs double for a cache-hot task (see --migr-cost-us)"},
    {"wake-preempt-us", OPT_WAKE_PREEMPT, "US", 0,
     "A short-running task waking with no idle CPU preempts the task on its last CPU once that "
     "one has run US (0 = never, the default; max 1000000; 1000 is a start)"},
    {"watchdog-ms", OPT_WATCHDOG, "MS", 0,
     "The kernel aborts the scheduler when a runnable task waits this long (1000-30000, "
     "default 10000)"},
    {"mode", 'm', "MODE", 0, "heuristic (default), collect, infer or adaptive: see MODES below"},
    {"state-dir", 'd', "DIR", 0,
     "Dataset and models of collect/infer/adaptive (default /var/lib/scx_mlb)"},
    {"model", 'M', "FILE", 0, "Model to start from (default: DIR/model.mlb if present)"},
    {"explore", OPT_EXPLORE, "PERMILLE", 0,
     "Decisions taken against the policy when recording, per mille (0-200, default 20)"},
    {"horizon-ms", OPT_HORIZON, "MS", 0,
     "How long a decision's outcome is observed (1-10000, default 50)"},
    {"bounce-ms", OPT_BOUNCE, "MS", 0,
     "A migrated task back at its source within MS is a bad move (1-10000, default 50)"},
    {"label", OPT_LABEL, "KIND", 0,
     "Train on outcome labels (default) or imitation labels (the heuristic's choices)"},
    {"retrain-s", OPT_RETRAIN_S, "SEC", 0,
     "Adaptive: retrain every SEC seconds (1-86400, default 20) ..."},
    {"retrain-samples", OPT_RETRAIN_SAMPLES, "N", 0,
     "... or after N new samples (1-10000000, default 2000)"},
    {"min-samples", OPT_MIN_SAMPLES, "N", 0,
     "Adaptive: no training below N samples (20-10000000, default 300)"},
    {"window", OPT_WINDOW, "N", 0,
     "Adaptive: train on the last N samples (100-10000000, default " MLB_XSTR(
	 MLB_WINDOW_DEFAULT) ")"},
    {"allow-writable-model", OPT_ALLOW_WRITABLE, NULL, 0,
     "Accept a model file that is group- or world-writable"},
    {"duration", OPT_DURATION, "SEC", 0, "Detach and exit after SEC seconds (0 = never)"},
    {"ring-kb", OPT_RING_KB, "KB", 0,
     "Decision ring buffer size, a power of two from 8 to 65536 (default 512; outcomes half)"},
    {"sysfs", OPT_SYSFS, "DIR", OPTION_HIDDEN, "Read the topology from DIR (tests)"},
    {"verbose", 'v', NULL, 0, "Print libbpf's debug messages and verifier statistics"},
    {"version", 'V', NULL, 0, "Print the version and exit"},
    {"help", 'h', NULL, 0, "Show this help and exit"},
    {},
};

static const struct argp argp;

/* Parse @arg as a whole decimal number in [@lo, @hi] for option @name, or exit 2. */
static u64 parse_num(const char *name, const char *arg, u64 lo, u64 hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!isdigit((unsigned char)arg[0]) || *end || errno || v < lo || v > hi) {
		fprintf(stderr, "scx_mlb: invalid %s '%s': expected an integer from %llu to %llu\n",
			name, arg, (unsigned long long)lo, (unsigned long long)hi);
		exit(MLB_EXIT_USAGE);
	}
	return v;
}

/* A one-line error for an option value that is not one of @what, then exit 2. */
static void usage_err(const char *name, const char *arg, const char *what)
{
	fprintf(stderr, "scx_mlb: invalid %s '%s': expected %s\n", name, arg, what);
	exit(MLB_EXIT_USAGE);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 's':
		env.slice_us = parse_num("--slice-us", arg, 100, 1000000);
		break;
	case 'i':
		env.interval_ms = parse_num("--interval-ms", arg, 1, 10000);
		break;
	case 'I':
		env.imbal_pct = parse_num("--imbal-pct", arg, 1, 1000);
		break;
	case 'N':
		env.numa_imbal_pct = parse_num("--numa-imbal-pct", arg, 1, 1000);
		break;
	case 'p':
		env.partial = true;
		break;
	case 'S':
		env.stats_sec = parse_num("--stats", arg, 0, 3600);
		break;
	case OPT_HALF_LIFE:
		env.half_life_ms = parse_num("--half-life-ms", arg, 1, 60000);
		break;
	case OPT_MIGR_COST:
		env.migr_cost_us = parse_num("--migr-cost-us", arg, 0, 1000000);
		break;
	case OPT_MAX_RECENT:
		env.max_recent_migr = parse_num("--max-recent-migr", arg, 1, 1000);
		break;
	case OPT_SLICE_MIN:
		env.slice_min_us = parse_num("--slice-min-us", arg, 100, 1000000);
		break;
	case OPT_MAX_WAIT:
		env.max_wait_ms = parse_num("--max-wait-ms", arg, 1, 10000);
		break;
	case OPT_COST_CORE:
		env.move_cost_core_us = parse_num("--move-cost-core-us", arg, 0, 1000000);
		break;
	case OPT_COST_LLC:
		env.move_cost_llc_us = parse_num("--move-cost-llc-us", arg, 0, 1000000);
		break;
	case OPT_COST_XLLC:
		env.move_cost_xllc_us = parse_num("--move-cost-cross-llc-us", arg, 0, 1000000);
		break;
	case OPT_COST_NODE:
		env.move_cost_node_us = parse_num("--move-cost-node-us", arg, 0, 1000000);
		break;
	case OPT_WAKE_PREEMPT:
		env.wake_preempt_us = parse_num("--wake-preempt-us", arg, 0, 1000000);
		break;
	case OPT_WATCHDOG:
		env.watchdog_ms = parse_num("--watchdog-ms", arg, 1000, 30000);
		break;
	case OPT_SYSFS:
		env.sysfs = arg;
		break;
	case 'm':
		if (!strcmp(arg, "heuristic"))
			env.mode = MLB_DMODE_HEURISTIC;
		else if (!strcmp(arg, "collect"))
			env.mode = MLB_DMODE_COLLECT;
		else if (!strcmp(arg, "infer"))
			env.mode = MLB_DMODE_INFER;
		else if (!strcmp(arg, "adaptive"))
			env.mode = MLB_DMODE_ADAPTIVE;
		else
			usage_err("--mode", arg, "heuristic, collect, infer or adaptive");
		break;
	case 'd':
		if (!*arg)
			usage_err("--state-dir", arg, "a directory");
		env.state_dir = arg;
		break;
	case 'M':
		if (!*arg)
			usage_err("--model", arg, "a model file");
		env.model_path = arg;
		break;
	case OPT_EXPLORE:
		env.explore_ppm = parse_num("--explore", arg, 0, 200) * 1000;
		break;
	case OPT_HORIZON:
		env.horizon_ms = parse_num("--horizon-ms", arg, 1, 10000);
		break;
	case OPT_BOUNCE:
		env.bounce_ms = parse_num("--bounce-ms", arg, 1, 10000);
		break;
	case OPT_LABEL:
		if (!strcmp(arg, "outcome"))
			env.imitation = false;
		else if (!strcmp(arg, "imitation"))
			env.imitation = true;
		else
			usage_err("--label", arg, "outcome or imitation");
		break;
	case OPT_RETRAIN_S:
		env.learn.retrain_s = parse_num("--retrain-s", arg, 1, 86400);
		break;
	case OPT_RETRAIN_SAMPLES:
		env.learn.retrain_samples = parse_num("--retrain-samples", arg, 1, 10000000);
		break;
	case OPT_MIN_SAMPLES:
		env.learn.min_samples = parse_num("--min-samples", arg, 20, 10000000);
		break;
	case OPT_WINDOW:
		env.window = parse_num("--window", arg, 100, 10000000);
		break;
	case OPT_ALLOW_WRITABLE:
		env.allow_writable_model = true;
		break;
	case OPT_DURATION:
		env.duration_s = parse_num("--duration", arg, 0, 100000000);
		break;
	case OPT_RING_KB:
		env.ring_kb = parse_num("--ring-kb", arg, 8, 65536);
		if (env.ring_kb & (env.ring_kb - 1))
			usage_err("--ring-kb", arg, "a power of two from 8 to 65536");
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'V':
		printf("%s\n", mlb_version);
		exit(MLB_EXIT_OK);
	case 'h':
		argp_help(&argp, stdout, ARGP_HELP_STD_HELP, "scx_mlb");
		exit(MLB_EXIT_OK);
	case ARGP_KEY_ARG:
		fprintf(stderr, "scx_mlb: unexpected argument '%s'\n", arg);
		exit(MLB_EXIT_USAGE);
	case ARGP_KEY_ERROR: /* argp's own errors, silenced by ARGP_NO_ERRS: one line */
		fprintf(stderr, "scx_mlb: unknown option or missing value in '%s' (see --help)\n",
			state->argv[state->next > 1 ? state->next - 1 : 0]);
		exit(MLB_EXIT_USAGE);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {.options = opts, .parser = parse_arg, .doc = doc};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_sysfs_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Whether this process has CAP_SYS_ADMIN in its effective set (what attaching needs). */
static bool have_sys_admin(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
	return data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN);
}

/* 0 if sched_ext is there and free and we may load; else a one-line reason on stderr, -1. */
static int check_sched_ext(void)
{
	char state[64], ops[128] = "?";

	if (read_sysfs_line(SCX_SYSFS "/state", state, sizeof(state))) {
		fprintf(stderr,
			"scx_mlb: this kernel has no sched_ext (%s/state missing): "
			"CONFIG_SCHED_CLASS_EXT=y is needed\n",
			SCX_SYSFS);
		return -1;
	}
	if (!have_sys_admin()) {
		fprintf(stderr, "scx_mlb: permission denied: loading a scheduler needs root "
				"(CAP_SYS_ADMIN)\n");
		return -1;
	}
	if (strcmp(state, "disabled")) {
		read_sysfs_line(SCX_SYSFS "/root/ops", ops, sizeof(ops));
		fprintf(stderr,
			"scx_mlb: another sched_ext scheduler is active (state %s, ops %s)\n",
			state, ops);
		return -1;
	}
	return 0;
}

static const char *exit_kind_name(s32 kind)
{
	switch (kind) {
	case 0:
		return "NONE";
	case 1:
		return "DONE";
	case 64:
		return "UNREG";
	case 65:
		return "UNREG_BPF";
	case 66:
		return "UNREG_KERN";
	case 67:
		return "SYSRQ";
	case 68:
		return "PARENT";
	case 1024:
		return "ERROR";
	case 1025:
		return "ERROR_BPF";
	case 1026:
		return "ERROR_STALL";
	}
	return "UNKNOWN";
}

/* Hand the topology and the tunables to the BPF side (between open and load). */
static int configure(struct scx_mlb *skel, const struct mlb_topo *t)
{
	struct scx_mlb__rodata *ro = skel->rodata;
	char buf[64];

	ro->nr_cpus = t->nr_cpu_ids;
	ro->nr_doms = t->nr_doms;
	ro->nr_nodes = t->nr_nodes;
	for (u32 c = 0; c < MLB_MAX_CPUS; c++) {
		ro->cpu_dom[c] = t->cpu_dom[c] < 0 ? 0 : t->cpu_dom[c];
		ro->cpu_core[c] = t->cpu_core[c];
		ro->cpu_capacity[c] = t->cpu_capacity_scaled[c];
		ro->cpu_next_in_dom[c] = t->cpu_next_in_dom[c];
	}
	for (u32 d = 0; d < t->nr_doms; d++) {
		ro->dom_node[d] = t->dom_node[d];
		ro->node_doms[t->dom_node[d]] |= 1ULL << d;
		ro->dom_nr_cpus[d] = t->dom_nr_cpus[d];
		ro->dom_first_cpu[d] = t->dom_first_cpu[d];
		memcpy((void *)ro->dom_cpus[d], t->dom_cpus[d], sizeof(t->dom_cpus[d]));
	}
	memcpy((void *)ro->node_dist, t->node_dist, sizeof(t->node_dist));
	ro->slice_ns = env.slice_us * 1000;
	ro->balance_interval_ns = env.interval_ms * 1000000;
	ro->load_half_life_ns = env.half_life_ms * 1000000;
	ro->migr_cost_ns = env.migr_cost_us * 1000;
	ro->imbal_pct = env.imbal_pct;
	ro->numa_imbal_pct = env.numa_imbal_pct;
	ro->mode = env.mode == MLB_DMODE_HEURISTIC ? MLB_MODE_HEURISTIC
		   : env.mode == MLB_DMODE_COLLECT ? MLB_MODE_COLLECT
						   : MLB_MODE_INFER;
	ro->explore_ppm = env.mode == MLB_DMODE_HEURISTIC ? 0 : env.explore_ppm;
	ro->horizon_ns = (u64)env.horizon_ms * 1000000;
	ro->bounce_ns = (u64)env.bounce_ms * 1000000;
	ro->max_recent_migr = env.max_recent_migr;
	ro->slice_min_ns = env.slice_min_us * 1000;
	ro->max_wait_ns = (u64)env.max_wait_ms * 1000000;
	ro->move_cost_core_us = env.move_cost_core_us;
	ro->move_cost_llc_us = env.move_cost_llc_us;
	ro->move_cost_xllc_us = env.move_cost_xllc_us;
	ro->move_cost_node_us = env.move_cost_node_us;
	ro->wake_preempt_ns = (u64)env.wake_preempt_us * 1000;

	skel->struct_ops.mlb_ops->timeout_ms = env.watchdog_ms;
	if (env.partial)
		skel->struct_ops.mlb_ops->flags |= MLB_OPS_SWITCH_PARTIAL;
	/* A hotplug that races with loading makes the kernel ask for a restart. */
	if (!read_sysfs_line(SCX_SYSFS "/hotplug_seq", buf, sizeof(buf)))
		skel->struct_ops.mlb_ops->hotplug_seq = strtoull(buf, NULL, 10);
	return 0;
}

/* What lives across restarts of the scheduler (hotplug): the learning loop's state. */
struct loop {
	struct mlb_collector *coll; /* NULL in heuristic mode */
	struct mlb_learner learner;
	struct mlb_model_slots slots;
	bool learning;	     /* adaptive mode: retrain and roll back */
	u64 model_decisions; /* summed over the scheduler's lives */
	u64 fallback;	     /* heuristic decisions in infer/adaptive mode */
	u64 rb_drops;
	u64 bpf_decisions;  /* decisions the BPF side made (each one is recorded or dropped) */
	u64 decision_drops; /* ... whose record the ring buffer had no room for */
	double t_start;
};

static int on_decision(void *ctx, void *data, size_t size)
{
	struct loop *lp = ctx;

	if (size >= sizeof(struct mlb_decision_rec))
		mlb_collect_decision(lp->coll, data);
	return 0;
}

static int on_outcome(void *ctx, void *data, size_t size)
{
	struct loop *lp = ctx;

	if (size >= sizeof(struct mlb_outcome_rec))
		mlb_collect_outcome(lp->coll, data);
	return 0;
}

static u64 mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (u64)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* Mean run-queue wait over the domains, weighted by their CPUs, in ns. */
static double mean_wait_ns(const struct mlb_dom_stat *doms, u32 nr_doms)
{
	double sum = 0;
	u32 cpus = 0;

	for (u32 d = 0; d < nr_doms; d++) {
		sum += (double)doms[d].avg_wait_ns * doms[d].nr_cpus;
		cpus += doms[d].nr_cpus;
	}
	return cpus ? sum / cpus : 0;
}

/* The learning part of the stats line (empty in heuristic mode). */
static void learn_stats(const struct loop *lp, const struct mlb_stats_snap *cur, u32 gen_seen,
			char *buf, size_t sz)
{
	const struct mlb_collect_stats *cs;
	const u64 *c = cur->cnt;

	buf[0] = '\0';
	if (!lp->coll)
		return;
	cs = mlb_collector_stats(lp->coll);
	snprintf(buf, sz,
		 " gen=%u live_gen=%u"
		 " samples=%llu pending=%llu rb_drops=%llu write_dropped=%llu live_acc=%.3f",
		 lp->learner.live ? lp->learner.gen : 0, gen_seen, (unsigned long long)cs->samples,
		 (unsigned long long)cs->pending,
		 (unsigned long long)(c[MLB_STAT_DROP_DECISION] + c[MLB_STAT_DROP_OUTCOME]),
		 (unsigned long long)cs->write_dropped,
		 lp->learner.live ? lp->learner.live_acc : -1.0);
}

/* Once a second in the learning modes (lp->coll set): file, expiry, retraining, live checks. */
static void learn_tick(struct loop *lp, double t, double migr_s, double wait_ns)
{
	char msg[512];
	int e;

	mlb_collect_flush(lp->coll, mono_ns());
	mlb_collect_expire(lp->coll, mono_ns(), 30ULL * 1000000000ULL);
	e = mlb_collector_io_error(lp->coll);
	if (e)
		fprintf(stderr,
			"scx_mlb: dataset: %s: samples are dropped (counted) until writing "
			"works again; scheduling goes on\n",
			strerror(e));
	if (!lp->learning)
		return;
	mlb_learner_tick(&lp->learner, &lp->slots, mlb_collector_window(lp->coll),
			 mlb_collector_stats(lp->coll)->samples, t, msg, sizeof(msg));
	if (msg[0])
		printf("scx_mlb: %s\n", msg);
	if (mlb_learner_observe(&lp->learner, &lp->slots, migr_s, wait_ns, msg, sizeof(msg)))
		printf("scx_mlb: %s\n", msg);
}

/*
 * One life of the scheduler: load, attach, print stats until a signal, --duration or its
 * exit. Returns the program's exit status; *restart is set when the kernel asked for a
 * restart.
 */
static int run_once(struct loop *lp, bool *restart)
{
	static struct mlb_topo topo;
	struct mlb_stats_snap prev = {}, cur = {}, tick = {};
	static struct mlb_work wk;
	struct scx_mlb *skel = NULL;
	struct bpf_link *link = NULL;
	struct ring_buffer *rb = NULL, *rb_out = NULL;
	double t0, next_stats, next_tick;
	char errbuf[256], extra[512];
	int err, stats_fd, work_fd;

	*restart = false;
	if (mlb_topo_read(env.sysfs, &topo, errbuf, sizeof(errbuf))) {
		fprintf(stderr, "scx_mlb: topology: %s\n", errbuf);
		return MLB_EXIT_CANNOT_START;
	}
	mlb_topo_print(&topo, stdout);
	fflush(stdout);

	skel = scx_mlb__open();
	if (!skel) {
		fprintf(stderr, "scx_mlb: cannot open the BPF object: %s\n", strerror(errno));
		err = MLB_EXIT_CANNOT_START;
		goto cleanup;
	}
	configure(skel, &topo);
	if (env.ring_kb && (bpf_map__set_max_entries(skel->maps.decisions, env.ring_kb * 1024) ||
			    bpf_map__set_max_entries(skel->maps.outcomes, env.ring_kb * 512))) {
		fprintf(stderr, "scx_mlb: cannot size the ring buffers: %s\n", strerror(errno));
		err = MLB_EXIT_CANNOT_START;
		goto cleanup;
	}
	if (env.verbose) { /* verifier statistics for every program, printed by libbpf */
		struct bpf_program *prog;

		bpf_object__for_each_program(prog, skel->obj) bpf_program__set_log_level(prog, 4);
	}
	if (scx_mlb__load(skel)) {
		fprintf(stderr, "scx_mlb: cannot load the BPF scheduler (rerun with -v for the "
				"verifier log)\n");
		err = MLB_EXIT_CANNOT_START;
		goto cleanup;
	}
	lp->slots = (struct mlb_model_slots){
	    .map_fd = bpf_map__fd(skel->maps.models),
	    .seq = &skel->bss->model_seq,
	    .slot = &skel->bss->model_slot,
	    .gen = &skel->bss->model_gen,
	};
	/*
	 * Decision ids: a random 24-bit prefix per load of the BPF side, so that ids stay unique
	 * in the dataset across restarts (each load counts from 1 again below the prefix).
	 */
	{
		u32 r = 0;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (u32)mono_ns() ^ (u32)getpid();
		skel->bss->decision_seq = (u64)(r & 0xffffff) << 40;
	}
	/* a restart keeps the live model: the new BPF side gets it before attaching */
	if (lp->learner.live && mlb_deploy(&lp->slots, &lp->learner.live->nn, lp->learner.gen))
		fprintf(stderr, "scx_mlb: cannot redeploy the live model: the heuristic decides\n");
	if (lp->coll) {
		mlb_collect_expire(lp->coll, 0, 0); /* the new BPF side numbers from 1 again */
		/* two rings read in order, decisions first: an outcome finds its decision */
		rb = ring_buffer__new(bpf_map__fd(skel->maps.decisions), on_decision, lp, NULL);
		rb_out = ring_buffer__new(bpf_map__fd(skel->maps.outcomes), on_outcome, lp, NULL);
		if (!rb || !rb_out) {
			fprintf(stderr, "scx_mlb: cannot open the ring buffers: %s\n",
				strerror(errno));
			err = MLB_EXIT_CANNOT_START;
			goto cleanup;
		}
	}
	link = bpf_map__attach_struct_ops(skel->maps.mlb_ops);
	if (!link) {
		fprintf(stderr, "scx_mlb: cannot attach the scheduler: %s\n", strerror(errno));
		err = MLB_EXIT_CANNOT_START;
		goto cleanup;
	}
	printf("scx_mlb: attached%s, slice %llu us, balance every %llu ms, mode %s\n",
	       env.partial ? " (partial: SCHED_EXT tasks only)" : "",
	       (unsigned long long)env.slice_us, (unsigned long long)env.interval_ms,
	       (const char *[]){"heuristic", "collect", "infer", "adaptive"}[env.mode]);
	fflush(stdout);

	stats_fd = bpf_map__fd(skel->maps.stats);
	work_fd = bpf_map__fd(skel->maps.work);
	t0 = now_sec();
	next_stats = t0 + env.stats_sec;
	next_tick = t0 + 1;
	prev.t = 0;
	mlb_stats_read(stats_fd, libbpf_num_possible_cpus(), &prev);
	while (!exiting && !skel->bss->exit_info.kind) {
		double t;

		if (rb) {
			ring_buffer__poll(rb, 100);
			ring_buffer__consume(rb);
			ring_buffer__consume(rb_out);
		} else {
			/* Nothing to read: sleep to the next stats line, at most a second
			 * (as upstream's schedulers poll their exit); a signal cuts it short.
			 * Each wake-up of this daemon is a task the scheduler places. */
			double nap = 1.0;

			t = now_sec();
			if (env.stats_sec && next_stats - t < nap)
				nap = next_stats - t;
			if (nap > 0.001)
				usleep((useconds_t)(nap * 1e6));
		}
		t = now_sec();
		if (env.duration_s && t - lp->t_start >= env.duration_s)
			exiting = 1;
		if (lp->coll && t >= next_tick) {
			struct mlb_stats_snap s1 = {.t = t - t0};

			if (!mlb_stats_read(stats_fd, libbpf_num_possible_cpus(), &s1)) {
				double dt = s1.t - tick.t;
				double migr = dt > 0 && tick.t > 0 ? (s1.cnt[MLB_STAT_CPU_MIGR] -
								      tick.cnt[MLB_STAT_CPU_MIGR]) /
									 dt
								   : 0;

				learn_tick(lp, t - lp->t_start, migr,
					   mean_wait_ns(skel->bss->dom_stats, topo.nr_doms));
				tick = s1;
			}
			next_tick += 1;
		}
		if (env.stats_sec && t >= next_stats) {
			cur.t = t - t0;
			if (!mlb_stats_read(stats_fd, libbpf_num_possible_cpus(), &cur)) {
				learn_stats(lp, &cur, skel->bss->model_gen_seen, extra,
					    sizeof(extra));
				mlb_stats_print(stdout, &prev, &cur, skel->bss->dom_stats,
						topo.nr_doms, skel->bss->nr_tasks,
						skel->bss->nr_task_ctxs, extra);
				prev = cur;
				if (!mlb_work_read(work_fd, libbpf_num_possible_cpus(), &wk))
					mlb_work_print(stdout, cur.t, &wk);
			}
			next_stats += env.stats_sec;
		}
	}

	/* Detach (if still attached); the kernel then runs ops.exit(). */
	bpf_link__destroy(link);
	link = NULL;
	if (rb) { /* the last records of this life */
		ring_buffer__consume(rb);
		ring_buffer__consume(rb_out);
	}
	if (!mlb_stats_read(stats_fd, libbpf_num_possible_cpus(), &cur)) {
		lp->model_decisions += cur.cnt[MLB_STAT_BY_MODEL];
		if (env.mode >= MLB_DMODE_INFER)
			lp->fallback += cur.cnt[MLB_STAT_BY_HEURISTIC];
		lp->rb_drops += cur.cnt[MLB_STAT_DROP_DECISION] + cur.cnt[MLB_STAT_DROP_OUTCOME];
		lp->bpf_decisions += cur.cnt[MLB_STAT_CONSIDERED];
		lp->decision_drops += cur.cnt[MLB_STAT_DROP_DECISION];
	}
	{
		struct mlb_exit_info *ei = &skel->bss->exit_info;

		printf("scx_mlb: exit: kind=%s(%d) code=%lld reason=\"%s\" msg=\"%s\"\n",
		       exit_kind_name(ei->kind), ei->kind, (long long)ei->exit_code, ei->reason,
		       ei->msg);
		fflush(stdout);
		if (ei->exit_code & MLB_ECODE_ACT_RESTART && !exiting)
			*restart = true;
		err = ei->kind >= 1024 ? MLB_EXIT_SCHED_ERROR : MLB_EXIT_OK;
	}
cleanup:
	ring_buffer__free(rb_out);
	ring_buffer__free(rb);
	bpf_link__destroy(link);
	scx_mlb__destroy(skel);
	return err;
}

/*
 * Set up the learning loop for the chosen mode: state directory, dataset collector, the
 * model to start from. Returns 0, or an exit status after a one-line error.
 */
static int loop_setup(struct loop *lp)
{
	struct mlb_collect_opts co;
	char err[512], path[PATH_MAX], dataset[PATH_MAX];
	const char *model = env.model_path;
	struct mlb_model *m;

	lp->t_start = now_sec();
	env.learn.heur =
	    (struct mlb_heur_params){env.imbal_pct, env.numa_imbal_pct, env.max_recent_migr};
	mlb_learner_init(&lp->learner, &env.learn,
			 env.mode == MLB_DMODE_HEURISTIC ? NULL : env.state_dir);
	lp->learning = env.mode == MLB_DMODE_ADAPTIVE;
	if (env.mode == MLB_DMODE_HEURISTIC)
		return 0;
	if (mlb_state_dir_open(env.state_dir, err, sizeof(err))) {
		fprintf(stderr, "scx_mlb: %s\n", err);
		return MLB_EXIT_CANNOT_START;
	}
	mlb_collect_defaults(&co);
	snprintf(dataset, sizeof(dataset), "%s/dataset.csv", env.state_dir);
	co.path = dataset;
	co.window = env.window;
	co.imitation = env.imitation;
	co.label.bounce_ns = (u64)env.bounce_ms * 1000000;
	lp->coll = mlb_collector_new(&co, err, sizeof(err));
	if (!lp->coll) {
		fprintf(stderr, "scx_mlb: %s\n", err);
		return MLB_EXIT_CANNOT_START;
	}
	if (env.mode < MLB_DMODE_INFER)
		return 0;
	/* the model to start from: --model, else the state directory's current one */
	if (!model) {
		snprintf(path, sizeof(path), "%s/model.mlb", env.state_dir);
		if (access(path, F_OK))
			return 0; /* none yet: the heuristic decides until one is trained */
		model = path;
	}
	m = malloc(sizeof(*m));
	if (!m)
		return MLB_EXIT_CANNOT_START;
	if (mlb_model_load_checked(model, env.allow_writable_model, m, err, sizeof(err))) {
		fprintf(stderr, "scx_mlb: model refused, the heuristic decides: %s\n", err);
		free(m);
		return 0;
	}
	lp->learner.live = m;
	lp->learner.gen = 1; /* deployed by run_once() once the BPF side is loaded */
	lp->learner.generations = 1;
	printf("scx_mlb: model %s loaded: generation 1\n", model);
	return 0;
}

int main(int argc, char **argv)
{
	struct mlb_heur_params heur = {10, 20, 8};
	static struct loop lp;
	bool restart = false;
	int err;

	mlb_learn_defaults(&env.learn, &heur);
	argp_err_exit_status = MLB_EXIT_USAGE;
	/* argp's own errors take two lines: parse_arg() reports them in one instead. */
	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, NULL))
		return MLB_EXIT_USAGE;
	libbpf_set_print(libbpf_print);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	if (check_sched_ext())
		return MLB_EXIT_CANNOT_START;
	err = loop_setup(&lp);
	if (err)
		return err;
	do {
		if (restart && check_sched_ext()) {
			err = MLB_EXIT_CANNOT_START;
			break;
		}
		err = run_once(&lp, &restart);
		if (restart)
			printf(
			    "scx_mlb: the kernel asked for a restart (CPU hotplug): reattaching\n");
	} while (restart && !exiting);
	if (lp.coll) {
		const struct mlb_collect_stats *cs = mlb_collector_stats(lp.coll);

		printf("scx_mlb: summary: records=%llu generations=%u model_decisions=%llu "
		       "fallback=%llu rollbacks=%u rejected=%u bpf_decisions=%llu received=%llu "
		       "decision_drops=%llu rb_drops=%llu unmatched=%llu write_dropped=%llu\n",
		       (unsigned long long)cs->written, lp.learner.generations,
		       (unsigned long long)lp.model_decisions, (unsigned long long)lp.fallback,
		       lp.learner.rollbacks, lp.learner.rejected,
		       (unsigned long long)lp.bpf_decisions,
		       (unsigned long long)(cs->decisions + cs->invalid),
		       (unsigned long long)lp.decision_drops, (unsigned long long)lp.rb_drops,
		       (unsigned long long)cs->unmatched, (unsigned long long)cs->write_dropped);
		mlb_collector_free(lp.coll);
	}
	mlb_learner_free(&lp.learner);
	return err;
}
