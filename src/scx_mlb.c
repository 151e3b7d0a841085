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

/* SCX_OPS_SWITCH_PARTIAL: a stable flag value since sched_ext's first release (6.12). */
#define MLB_OPS_SWITCH_PARTIAL (1ULL << 3)
#define SCX_SYSFS	       "/sys/kernel/sched_ext"

/*
 * The options of include/mlb/options.h: OPT(ID) is the value of a number, a flag (0 or 1) or
 * a choice (its index), OPT_STR(ID) that of a string. opts_init() sets the table's defaults,
 * parse_arg() what the command line says.
 */
static struct env {
	u64 num[MLB_NR_OPTS];
	const char *str[MLB_NR_OPTS];
	struct mlb_learn_opts learn;
} env;
#define OPT(id)	    (env.num[MLB_OPT_##id])
#define OPT_STR(id) (env.str[MLB_OPT_##id])

static volatile sig_atomic_t exiting;

static const char mlb_version[] = "scx_mlb " MLB_VERSION;

/*
 * argp's view of the table, filled by opts_init(): the options in table order (each in a
 * group of its own: argp sorts by name within a group) with their help sentences completed by
 * range and default, and the text around them.
 */
static struct argp_option opts[MLB_NR_OPTS + 1];
static char opt_docs[MLB_NR_OPTS][512];
static char doc[4096];

/* The argp key of an option without a short one: above every character, below argp's keys. */
#define OPT_KEY_BASE 0x100
MLB_ASSERT(OPT_KEY_BASE + MLB_NR_OPTS < ARGP_KEY_END, "option keys clash with argp's");

/* printf() to the end of doc[] (twice as large as what it gets). */
static void doc_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void doc_add(const char *fmt, ...)
{
	size_t n = strlen(doc);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(doc + n, sizeof(doc) - n, fmt, ap);
	va_end(ap);
}

/* Defaults, argp options and the --help text, all from the table. */
static void opts_init(void)
{
	for (int i = 0; i < MLB_NR_OPTS; i++) {
		const struct mlb_opt *o = &mlb_opts[i];

		env.num[i] = o->def;
		env.str[i] = o->def_str;
		opts[i] = (struct argp_option){
		    .name = o->name,
		    .key = o->short_opt ? o->short_opt : OPT_KEY_BASE + i,
		    .arg = o->arg,
		    .flags = o->hidden ? OPTION_HIDDEN : 0,
		    .doc = mlb_opt_doc(o, opt_docs[i], sizeof(opt_docs[i])),
		    .group = i + 1,
		};
	}
	doc_add("scx_mlb: a sched_ext scheduler with a learned load balancer.\n\n"
		"Weighted fair queues per CPU; one domain per last-level cache in each NUMA node "
		"for load accounting and balancing; every chosen change of CPU goes through one "
		"decision seam: move when the wait it saves exceeds the cost of a move at that "
		"topology level.\vEXAMPLES:\n");
#define MLB_X_EX(cmd, what) doc_add("  %-35s  # %s\n", cmd, what);
	MLB_EXAMPLES(MLB_X_EX)
#undef MLB_X_EX
	doc_add("\nMODES (--mode):\n");
#define MLB_X_MODE(e, name, what) doc_add("  %-10s  %s\n", name, what);
	MLB_MODE_CHOICES(MLB_X_MODE)
#undef MLB_X_MODE
	doc_add("See README.md, \"The learning loop\".\n\nEXIT STATUS:\n");
#define MLB_X_EXIT(e, v, what) doc_add("  %d  %s\n", v, what);
	MLB_EXIT_STATUSES(MLB_X_EXIT)
#undef MLB_X_EXIT
}

static const struct argp argp;

/* Parse @arg as a whole decimal number in @o's range, or exit 2. */
static u64 parse_num(const struct mlb_opt *o, const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!isdigit((unsigned char)arg[0]) || *end || errno || v < o->lo || v > o->hi) {
		fprintf(stderr,
			"scx_mlb: invalid --%s '%s': expected an integer from %llu to %llu\n",
			o->name, arg, (unsigned long long)o->lo, (unsigned long long)o->hi);
		exit(MLB_EXIT_USAGE);
	}
	return v;
}

/* A one-line error for a value of option @o that is not @what, then exit 2. */
static void usage_err(const struct mlb_opt *o, const char *arg, const char *what)
{
	fprintf(stderr, "scx_mlb: invalid --%s '%s': expected %s\n", o->name, arg, what);
	exit(MLB_EXIT_USAGE);
}

/* Every option of the table, by its kind; then what --version and --help do. */
static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	const struct mlb_opt *o;
	char what[256];
	int id;
	u64 v;

	for (id = 0; id < MLB_NR_OPTS && opts[id].key != key; id++)
		;
	if (id == MLB_NR_OPTS) {
		switch (key) {
		case ARGP_KEY_ARG:
			fprintf(stderr, "scx_mlb: unexpected argument '%s'\n", arg);
			exit(MLB_EXIT_USAGE);
		case ARGP_KEY_ERROR: /* argp's own errors, silenced by ARGP_NO_ERRS: one line */
			fprintf(stderr,
				"scx_mlb: unknown option or missing value in '%s' (see --help)\n",
				state->argv[state->next > 1 ? state->next - 1 : 0]);
			exit(MLB_EXIT_USAGE);
		default:
			return ARGP_ERR_UNKNOWN;
		}
	}
	o = &mlb_opts[id];
	switch (o->kind) {
	case MLB_OPTK_NUM:
		env.num[id] = parse_num(o, arg);
		break;
	case MLB_OPTK_POW2:
		env.num[id] = parse_num(o, arg);
		if (!MLB_IS_POW2(env.num[id]))
			usage_err(o, arg, mlb_opt_range(o, what, sizeof(what)));
		break;
	case MLB_OPTK_FLAG:
		env.num[id] = 1;
		break;
	case MLB_OPTK_STR:
		if (!*arg)
			usage_err(o, arg, "a path");
		env.str[id] = arg;
		break;
	case MLB_OPTK_CHOICE:
		for (v = 0; v <= o->hi && strcmp(arg, o->choices[v].name); v++)
			;
		if (v > o->hi)
			usage_err(o, arg, mlb_opt_range(o, what, sizeof(what)));
		env.num[id] = v;
		break;
	}
	if (id == MLB_OPT_VERSION) {
		printf("%s\n", mlb_version);
		exit(MLB_EXIT_OK);
	}
	if (id == MLB_OPT_HELP) {
		argp_help(&argp, stdout, ARGP_HELP_STD_HELP, "scx_mlb");
		exit(MLB_EXIT_OK);
	}
	return 0;
}

static const struct argp argp = {.options = opts, .parser = parse_arg, .doc = doc};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !OPT(VERBOSE))
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
	ro->slice_ns = OPT(SLICE_US) * 1000;
	ro->balance_interval_ns = OPT(INTERVAL_MS) * 1000000;
	ro->load_half_life_ns = OPT(HALF_LIFE_MS) * 1000000;
	ro->migr_cost_ns = OPT(MIGR_COST_US) * 1000;
	ro->imbal_pct = OPT(IMBAL_PCT);
	ro->numa_imbal_pct = OPT(NUMA_IMBAL_PCT);
	ro->mode = OPT(MODE) == MLB_DMODE_HEURISTIC ? MLB_MODE_HEURISTIC
		   : OPT(MODE) == MLB_DMODE_COLLECT ? MLB_MODE_COLLECT
						    : MLB_MODE_INFER;
	/* --explore is per mille, the BPF side counts per million */
	ro->explore_ppm = OPT(MODE) == MLB_DMODE_HEURISTIC ? 0 : OPT(EXPLORE) * 1000;
	ro->horizon_ns = OPT(HORIZON_MS) * 1000000;
	ro->bounce_ns = OPT(BOUNCE_MS) * 1000000;
	ro->max_recent_migr = OPT(MAX_RECENT_MIGR);
	ro->slice_min_ns = OPT(SLICE_MIN_US) * 1000;
	ro->max_wait_ns = OPT(MAX_WAIT_MS) * 1000000;
	ro->move_cost_core_us = OPT(MOVE_COST_CORE_US);
	ro->move_cost_llc_us = OPT(MOVE_COST_LLC_US);
	ro->move_cost_xllc_us = OPT(MOVE_COST_XLLC_US);
	ro->move_cost_node_us = OPT(MOVE_COST_NODE_US);
	ro->wake_preempt_ns = OPT(WAKE_PREEMPT_US) * 1000;

	skel->struct_ops.mlb_ops->timeout_ms = OPT(WATCHDOG_MS);
	if (OPT(PARTIAL))
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
	if (mlb_topo_read(OPT_STR(SYSFS), &topo, errbuf, sizeof(errbuf))) {
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
	if (bpf_map__set_max_entries(skel->maps.decisions, OPT(RING_KB) * 1024) ||
	    bpf_map__set_max_entries(skel->maps.outcomes, OPT(RING_KB) * 512)) {
		fprintf(stderr, "scx_mlb: cannot size the ring buffers: %s\n", strerror(errno));
		err = MLB_EXIT_CANNOT_START;
		goto cleanup;
	}
	if (OPT(VERBOSE)) { /* verifier statistics for every program, printed by libbpf */
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
	       OPT(PARTIAL) ? " (partial: SCHED_EXT tasks only)" : "",
	       (unsigned long long)OPT(SLICE_US), (unsigned long long)OPT(INTERVAL_MS),
	       mlb_opts[MLB_OPT_MODE].choices[OPT(MODE)].name);
	fflush(stdout);

	stats_fd = bpf_map__fd(skel->maps.stats);
	work_fd = bpf_map__fd(skel->maps.work);
	t0 = now_sec();
	next_stats = t0 + OPT(STATS);
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
			if (OPT(STATS) && next_stats - t < nap)
				nap = next_stats - t;
			if (nap > 0.001)
				usleep((useconds_t)(nap * 1e6));
		}
		t = now_sec();
		if (OPT(DURATION) && t - lp->t_start >= OPT(DURATION))
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
		if (OPT(STATS) && t >= next_stats) {
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
			next_stats += OPT(STATS);
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
		if (OPT(MODE) >= MLB_DMODE_INFER)
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
	const char *model = OPT_STR(MODEL);
	struct mlb_model *m;

	lp->t_start = now_sec();
	mlb_learner_init(&lp->learner, &env.learn,
			 OPT(MODE) == MLB_DMODE_HEURISTIC ? NULL : OPT_STR(STATE_DIR));
	lp->learning = OPT(MODE) == MLB_DMODE_ADAPTIVE;
	if (OPT(MODE) == MLB_DMODE_HEURISTIC)
		return 0;
	if (mlb_state_dir_open(OPT_STR(STATE_DIR), err, sizeof(err))) {
		fprintf(stderr, "scx_mlb: %s\n", err);
		return MLB_EXIT_CANNOT_START;
	}
	mlb_collect_defaults(&co);
	snprintf(dataset, sizeof(dataset), "%s/dataset.csv", OPT_STR(STATE_DIR));
	co.path = dataset;
	co.window = OPT(WINDOW);
	co.imitation = OPT(LABEL) == MLB_LABEL_IMITATION;
	co.label.bounce_ns = OPT(BOUNCE_MS) * 1000000;
	lp->coll = mlb_collector_new(&co, err, sizeof(err));
	if (!lp->coll) {
		fprintf(stderr, "scx_mlb: %s\n", err);
		return MLB_EXIT_CANNOT_START;
	}
	if (OPT(MODE) < MLB_DMODE_INFER)
		return 0;
	/* the model to start from: --model, else the state directory's current one */
	if (!model) {
		snprintf(path, sizeof(path), "%s/model.mlb", OPT_STR(STATE_DIR));
		if (access(path, F_OK))
			return 0; /* none yet: the heuristic decides until one is trained */
		model = path;
	}
	m = malloc(sizeof(*m));
	if (!m)
		return MLB_EXIT_CANNOT_START;
	if (mlb_model_load_checked(model, OPT(ALLOW_WRITABLE_MODEL), m, err, sizeof(err))) {
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
	struct mlb_heur_params heur = {};
	static struct loop lp;
	bool restart = false;
	int err;

	opts_init();
	argp_err_exit_status = MLB_EXIT_USAGE;
	/* argp's own errors take two lines: parse_arg() reports them in one instead. */
	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, NULL))
		return MLB_EXIT_USAGE;
	heur.imbal_pct = OPT(IMBAL_PCT);
	heur.numa_imbal_pct = OPT(NUMA_IMBAL_PCT);
	heur.max_recent_migr = OPT(MAX_RECENT_MIGR);
	mlb_learn_defaults(&env.learn, &heur);
	env.learn.retrain_s = OPT(RETRAIN_S);
	env.learn.retrain_samples = OPT(RETRAIN_SAMPLES);
	env.learn.min_samples = OPT(MIN_SAMPLES);
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
