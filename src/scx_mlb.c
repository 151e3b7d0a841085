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
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mlb.h"
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
	u32 stats_sec;
	bool partial;
	bool verbose;
	const char *sysfs;
} env = {
    .slice_us = 20000,
    .interval_ms = 100,
    .half_life_ms = 250,
    .migr_cost_us = 500,
    .imbal_pct = 10,
    .numa_imbal_pct = 20,
    .max_recent_migr = 8,
    .stats_sec = 1,
    .sysfs = "/sys",
};

static volatile sig_atomic_t exiting;

static const char mlb_version[] = "scx_mlb " MLB_VERSION;
static const char doc[] =
    "scx_mlb: a sched_ext scheduler with a learned load balancer.\n"
    "\n"
    "One domain per last-level cache in each NUMA node; weighted fair queues per domain;\n"
    "load balancing in the kernel through one migration-decision seam."
    "\v"
    "EXAMPLES:\n"
    "  scx_mlb                      # run with defaults, a stats line every second\n"
    "  scx_mlb -s 5000 -i 50        # 5 ms slices, balance every 50 ms\n"
    "  scx_mlb --partial            # only tasks with policy SCHED_EXT (7)\n"
    "  scx_mlb -I 5 -N 25 -S 0      # tighter LLC balance, looser NUMA, no stats\n";

enum { OPT_HALF_LIFE = 1000, OPT_MIGR_COST, OPT_MAX_RECENT, OPT_SYSFS };

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
	case OPT_SYSFS:
		env.sysfs = arg;
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
	for (u32 c = 0; c < MLB_MAX_CPUS; c++)
		ro->cpu_dom[c] = t->cpu_dom[c] < 0 ? 0 : t->cpu_dom[c];
	for (u32 d = 0; d < t->nr_doms; d++) {
		ro->dom_node[d] = t->dom_node[d];
		ro->dom_nr_cpus[d] = t->dom_nr_cpus[d];
		ro->dom_capacity[d] = t->dom_capacity[d];
		memcpy((void *)ro->dom_cpus[d], t->dom_cpus[d], sizeof(t->dom_cpus[d]));
	}
	memcpy((void *)ro->node_dist, t->node_dist, sizeof(t->node_dist));
	ro->slice_ns = env.slice_us * 1000;
	ro->balance_interval_ns = env.interval_ms * 1000000;
	ro->load_half_life_ns = env.half_life_ms * 1000000;
	ro->migr_cost_ns = env.migr_cost_us * 1000;
	ro->imbal_pct = env.imbal_pct;
	ro->numa_imbal_pct = env.numa_imbal_pct;
	ro->max_recent_migr = env.max_recent_migr;

	if (env.partial)
		skel->struct_ops.mlb_ops->flags |= MLB_OPS_SWITCH_PARTIAL;
	/* A hotplug that races with loading makes the kernel ask for a restart. */
	if (!read_sysfs_line(SCX_SYSFS "/hotplug_seq", buf, sizeof(buf)))
		skel->struct_ops.mlb_ops->hotplug_seq = strtoull(buf, NULL, 10);
	return 0;
}

/*
 * One life of the scheduler: load, attach, print stats until a signal or its exit.
 * Returns the program's exit status; *restart is set when the kernel asked for a restart.
 */
static int run_once(bool *restart)
{
	static struct mlb_topo topo;
	struct mlb_stats_snap prev = {}, cur = {};
	struct scx_mlb *skel = NULL;
	struct bpf_link *link = NULL;
	double t0, next_stats;
	char errbuf[256];
	int err, stats_fd;

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
	link = bpf_map__attach_struct_ops(skel->maps.mlb_ops);
	if (!link) {
		fprintf(stderr, "scx_mlb: cannot attach the scheduler: %s\n", strerror(errno));
		err = MLB_EXIT_CANNOT_START;
		goto cleanup;
	}
	printf("scx_mlb: attached%s, slice %llu us, balance every %llu ms\n",
	       env.partial ? " (partial: SCHED_EXT tasks only)" : "",
	       (unsigned long long)env.slice_us, (unsigned long long)env.interval_ms);
	fflush(stdout);

	stats_fd = bpf_map__fd(skel->maps.stats);
	t0 = now_sec();
	next_stats = t0 + env.stats_sec;
	prev.t = 0;
	mlb_stats_read(stats_fd, libbpf_num_possible_cpus(), &prev);
	while (!exiting && !skel->bss->exit_info.kind) {
		usleep(100000);
		if (env.stats_sec && now_sec() >= next_stats) {
			cur.t = now_sec() - t0;
			if (!mlb_stats_read(stats_fd, libbpf_num_possible_cpus(), &cur)) {
				mlb_stats_print(stdout, &prev, &cur, skel->bss->dom_stats,
						topo.nr_doms, skel->bss->nr_tasks,
						skel->bss->nr_task_ctxs);
				prev = cur;
			}
			next_stats += env.stats_sec;
		}
	}

	/* Detach (if still attached); the kernel then runs ops.exit(). */
	bpf_link__destroy(link);
	link = NULL;
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
	bpf_link__destroy(link);
	scx_mlb__destroy(skel);
	return err;
}

int main(int argc, char **argv)
{
	bool restart;
	int err;

	argp_err_exit_status = MLB_EXIT_USAGE;
	/* argp's own errors take two lines: parse_arg() reports them in one instead. */
	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, NULL))
		return MLB_EXIT_USAGE;
	libbpf_set_print(libbpf_print);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	do {
		if (check_sched_ext())
			return MLB_EXIT_CANNOT_START;
		err = run_once(&restart);
		if (restart)
			printf(
			    "scx_mlb: the kernel asked for a restart (CPU hotplug): reattaching\n");
	} while (restart && !exiting);
	return err;
}
