// SPDX-License-Identifier: GPL-2.0
/*
 * mlb-docs - print the README's contract tables from the tables that generate the code:
 * the decision features (MLB_FEATURES in include/mlb/intf.h), the stats line's counters
 * (MLB_STATS) and the options (MLB_OPTIONS in include/mlb/options.h). `make docs` puts them
 * between the README's markers; unit/docs-sync fails when the README differs, so the
 * documentation cannot drift from the code.
 *
 *   mlb-docs features|stats|work|stat-keys|work-keys|options|man|option-list
 *
 * stat-keys prints the counters' keys alone, one per line in enum order (line N is index
 * N - 1 of the BPF `stats` map): bench/workloads.sh reads the map with bpftool by it.
 * work-keys names the u64 slots of struct mlb_work (the `work` map's value) in layout order,
 * one per line: cur, bal_ns, then <callback>_<kind> for every callback and kind.
 * man prints the man page scx_mlb.8 (roff). option-list prints one line per option, hidden
 * ones too, for the tests: "--NAME KIND LO HI", and for a choice its values, comma-separated.
 *
 * Exit status 0; 1 with one line on stderr when the options table repeats a name or a short
 * option (argp would take the first silently); 2 with one line for a bad argument.
 */
#include <stdio.h>
#include <string.h>

#include "mlb/intf.h"
#include "mlb/options.h"

_Static_assert(sizeof(struct mlb_work) == 8 * (2 + MLB_NR_WORK_CBS * MLB_NR_WORK_KINDS),
	       "work-keys names every u64 of struct mlb_work: cur, bal_ns, n[][]");

static const struct {
	const char *name;
	long long lo, hi;
	const char *doc;
} features[] = {
#define MLB_X_F(e, n, lo, hi, d) {n, lo, hi, d},
    MLB_FEATURES(MLB_X_F)
#undef MLB_X_F
};

static const struct {
	const char *key, *doc;
} counters[] = {
#define MLB_X_S(e, k, d) {k, d},
    MLB_STATS(MLB_X_S)
#undef MLB_X_S
};

static const char *const work_cbs[] = {
#define MLB_X_WCB(e, name) name,
    MLB_WORK_CBS(MLB_X_WCB)
#undef MLB_X_WCB
};
static const struct {
	const char *kind, *doc;
} work_kinds[] = {
#define MLB_X_WK(e, k, d) {k, d},
    MLB_WORK_KINDS(MLB_X_WK)
#undef MLB_X_WK
};

/* The loader's own keys, before the counters, per domain and after them (the learning modes). */
static const struct {
	const char *key, *doc;
} head_keys[] =
    {
#define MLB_X_SK(e, k, type, d) {k, d},
	MLB_STATS_HEAD(MLB_X_SK)},
  dom_keys[] = {MLB_STATS_DOM(MLB_X_SK)},
  learn_keys[] = {MLB_STATS_LEARN(MLB_X_SK)
#undef MLB_X_SK
};

/* The table's long names and short options are unique, or one line on stderr and 0. */
static int options_unique(void)
{
	for (int i = 0; i < MLB_NR_OPTS; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(mlb_opts[i].name, mlb_opts[j].name) ||
			    (mlb_opts[i].short_opt &&
			     mlb_opts[i].short_opt == mlb_opts[j].short_opt)) {
				fprintf(stderr,
					"mlb-docs: options table: --%s repeats --%s's name "
					"or short option\n",
					mlb_opts[i].name, mlb_opts[j].name);
				return 0;
			}
	return 1;
}

/* @s in a markdown table cell: '|' escaped. */
static void md(const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s);
	}
}

/* The README's options table, then the modes. */
static void options_md(void)
{
	char buf[256];

	printf("| option | argument | range | default | description |\n|---|---|---|---|---|\n");
	for (int i = 0; i < MLB_NR_OPTS; i++) {
		const struct mlb_opt *o = &mlb_opts[i];

		if (o->hidden)
			continue;
		printf("| ");
		if (o->short_opt)
			printf("`-%c`, ", o->short_opt);
		printf("`--%s` | %s | ", o->name, o->arg ? o->arg : "");
		md(mlb_opt_range(o, buf, sizeof(buf)));
		printf(" | ");
		md(mlb_opt_default(o, buf, sizeof(buf)));
		printf(" | ");
		md(o->help);
		printf(" |\n");
	}
	printf("\nMODES (`--mode`):\n\n");
#define MLB_X_MODE(e, name, doc) printf("- `%s`: %s\n", name, doc);
	MLB_MODE_CHOICES(MLB_X_MODE)
#undef MLB_X_MODE
}

/* @s as roff text: backslashes and dashes escaped (the way help2man does), no request. */
static void roff(const char *s)
{
	if (*s == '.' || *s == '\'')
		printf("\\&");
	for (; *s; s++)
		if (*s == '\\')
			printf("\\e");
		else if (*s == '-')
			printf("\\-");
		else
			putchar(*s);
}

/* A paragraph of roff text from pieces, with a newline. */
static void roff_line(const char *s)
{
	roff(s);
	putchar('\n');
}

/* The man page, scx_mlb.8. */
static void man(void)
{
	const struct mlb_opt *state_dir = &mlb_opts[MLB_OPT_STATE_DIR];
	char buf[512];

	printf(".\\\" scx_mlb.8, printed by tools/mlb-docs.c (mlb-docs man) from the tables of\n"
	       ".\\\" include/mlb/options.h: edit those, not this.\n");
	printf(".TH SCX_MLB 8 \"\" \"scx_mlb %s\" \"System Administration\"\n", MLB_VERSION);
	printf(".nh\n.ad l\n"); /* option names are neither hyphenated nor stretched */
	printf(".SH NAME\nscx_mlb \\- a sched_ext scheduler with a learned load balancer\n");
	printf(".SH SYNOPSIS\n.B scx_mlb\n.RI [ OPTION ...]\n");
	printf(".SH DESCRIPTION\n.B scx_mlb\n");
	roff_line(
	    "is a Linux CPU scheduler built on sched_ext (BPF) whose load balancer decides "
	    "when a task should move from one CPU to another. Every CPU has its own "
	    "weighted fair queue, so a task only changes CPU when something decides it "
	    "should, and every such decision (a wake-up, a push at enqueue, an idle CPU's "
	    "pull, the periodic balancer) goes through one seam: a cost-aware heuristic, "
	    "which moves a task when the wait the move saves exceeds the cost of a move at "
	    "that topology level, or a small neural network trained in user space from the "
	    "measured outcomes of earlier decisions and swapped in while the scheduler runs.");
	printf(".PP\n");
	roff_line("Domains are the last-level caches of each NUMA node, read from sysfs at start. "
		  "Pinned and migration-disabled tasks stay on their CPU; the kernel's watchdog "
		  "gives the CPUs back to the fair class if a task waits too long; a CPU hotplug "
		  "makes the kernel ask for a restart, which scx_mlb honours by reattaching.");
	printf(".PP\n");
	roff_line("scx_mlb needs a kernel with sched_ext and CAP_SYS_ADMIN. It prints the "
		  "topology, then a line of key=value statistics every --stats seconds, until "
		  "SIGINT or SIGTERM detaches it; its last line says why it ended.");
	printf(".SH OPTIONS\n");
	for (int i = 0; i < MLB_NR_OPTS; i++) {
		const struct mlb_opt *o = &mlb_opts[i];

		if (o->hidden)
			continue;
		printf(".TP\n");
		if (o->short_opt)
			printf("\\fB\\-%c\\fR, ", o->short_opt);
		printf("\\fB\\-\\-");
		roff(o->name);
		printf("\\fR");
		if (o->arg) {
			printf("=\\fI");
			roff(o->arg);
			printf("\\fR");
		}
		printf("\n");
		roff_line(mlb_opt_doc(o, buf, sizeof(buf)));
		if (o->kind == MLB_OPTK_CHOICE && i != MLB_OPT_MODE) { /* the modes: MODES */
			printf(".RS\n");
			for (u64 v = 0; v <= o->hi; v++) {
				printf(".TP\n.B ");
				roff_line(o->choices[v].name);
				roff_line(o->choices[v].doc);
			}
			printf(".RE\n");
		}
	}
	printf(".SH MODES\n");
	roff_line("What --mode chooses: who decides migrations, and what is recorded in the "
		  "state directory (--state-dir).");
#define MLB_X_MODE(e, name, doc) printf(".TP\n.B %s\n", name), roff_line(doc);
	MLB_MODE_CHOICES(MLB_X_MODE)
#undef MLB_X_MODE
	printf(".PP\n");
	roff_line("Outside heuristic mode every decision is recorded with the features the "
		  "decider saw, and its outcome is observed for --horizon-ms; the daemon joins "
		  "them, labels them and appends them to DIR/dataset.csv. Adaptive mode retrains "
		  "on the last --window samples, deploys a model only if it is at least as "
		  "accurate as the live one on the most recent samples, saves it as "
		  "DIR/model.mlb, and gives the CPU back to the heuristic when a model causes "
		  "migration storms or long waits.");
	printf(".SH \"EXIT STATUS\"\n");
#define MLB_X_EXIT(e, v, doc) printf(".TP\n.B %d\n", v), roff_line(doc);
	MLB_EXIT_STATUSES(MLB_X_EXIT)
#undef MLB_X_EXIT
	printf(".SH FILES\n.TP\n.I ");
	roff_line(state_dir->def_str);
	roff_line("The default state directory (--state-dir) of collect, infer and adaptive "
		  "modes: dataset.csv, the labelled samples; model.mlb, the model adaptive mode "
		  "deployed last and infer mode starts from; model.prev.mlb, the one before it. "
		  "Created 0750 if missing; refused if group- or world-writable.");
	printf(".TP\n.I ");
	roff_line(mlb_opts[MLB_OPT_STATS_SOCKET].def_str);
	roff_line("The default stats socket (--stats-socket): sched-ext's scx_stats protocol, "
		  "one JSON request and reply per line, {\"req\":\"stats\"} or "
		  "{\"req\":\"stats_meta\"}; what scxtop and scx_mlb --monitor read. Mode 0600 "
		  "(0660 with --stats-group); requests of at most 4095 bytes, 50 a second, 8 "
		  "connections. See README.md, \"The stats socket\".");
	printf(".TP\n.I /etc/default/scx_mlb\n");
	roff_line("SCX_MLB_FLAGS, the options scx_mlb.service (make install) starts it with. "
		  "scx_mlb itself reads no configuration file: everything is on its command line. "
		  "Under sched-ext's scx.service: SCX_SCHEDULER=scx_mlb and SCX_FLAGS in "
		  "/etc/default/scx.");
	printf(".SH EXAMPLES\n");
#define MLB_X_EX(cmd, doc) printf(".TP\n.B "), roff_line(cmd), roff_line(doc);
	MLB_EXAMPLES(MLB_X_EX)
#undef MLB_X_EX
	printf(".SH \"SEE ALSO\"\n.BR mlb\\-model (1)\n");
}

/* One line per option for the tests: --NAME KIND LO HI [CHOICE,...]. */
static void option_list(void)
{
	for (int i = 0; i < MLB_NR_OPTS; i++) {
		const struct mlb_opt *o = &mlb_opts[i];

		printf("--%s %s %llu %llu", o->name, mlb_opt_kind_names[o->kind],
		       (unsigned long long)o->lo, (unsigned long long)o->hi);
		for (u64 v = 0; o->kind == MLB_OPTK_CHOICE && v <= o->hi; v++)
			printf("%c%s", v ? ',' : ' ', o->choices[v].name);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	size_t i;

	if (!options_unique())
		return 1;
	if (argc == 2 && !strcmp(argv[1], "options")) {
		options_md();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "man")) {
		man();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "option-list")) {
		option_list();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "features")) {
		printf("| # | feature | range | meaning |\n|--:|---|---|---|\n");
		for (i = 0; i < sizeof(features) / sizeof(features[0]); i++)
			printf("| %zu | %s | %lld..%lld | %s |\n", i, features[i].name,
			       features[i].lo, features[i].hi, features[i].doc);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "stats")) {
		printf("| key | meaning |\n|---|---|\n");
		for (i = 0; i < sizeof(head_keys) / sizeof(head_keys[0]); i++)
			printf("| %s | %s |\n", head_keys[i].key, head_keys[i].doc);
		for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
			printf("| %s | %s |\n", counters[i].key, counters[i].doc);
		for (i = 0; i < sizeof(dom_keys) / sizeof(dom_keys[0]); i++)
			printf("| dom<N>_%s | domain N: %s |\n", dom_keys[i].key, dom_keys[i].doc);
		for (i = 0; i < sizeof(learn_keys) / sizeof(learn_keys[0]); i++)
			printf("| %s | %s |\n", learn_keys[i].key, learn_keys[i].doc);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "work")) {
		printf("| key | meaning |\n|---|---|\n| t | seconds since attach |\n");
		for (i = 0; i < sizeof(work_kinds) / sizeof(work_kinds[0]); i++) {
			printf("| <callback>_%s | %s |\n", work_kinds[i].kind, work_kinds[i].doc);
		}
		printf("| balance_round_ns | time inside the balancer's timer callback |\n\n");
		printf("Callbacks:");
		for (i = 0; i < sizeof(work_cbs) / sizeof(work_cbs[0]); i++)
			printf(" `%s`", work_cbs[i]);
		printf(".\n");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "stat-keys")) {
		for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
			printf("%s\n", counters[i].key);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "work-keys")) {
		size_t k;

		printf("cur\nbal_ns\n");
		for (i = 0; i < sizeof(work_cbs) / sizeof(work_cbs[0]); i++)
			for (k = 0; k < sizeof(work_kinds) / sizeof(work_kinds[0]); k++)
				printf("%s_%s\n", work_cbs[i], work_kinds[k].kind);
		return 0;
	}
	fprintf(
	    stderr,
	    "usage: mlb-docs features|stats|work|stat-keys|work-keys|options|man|option-list\n");
	return 2;
}
