// SPDX-License-Identifier: GPL-2.0
/*
 * mlb-docs - print the README's contract tables from the tables that generate the code:
 * the decision features (MLB_FEATURES in include/mlb/intf.h), the stats line's counters
 * (MLB_STATS) and the options (MLB_OPTIONS in include/mlb/options.h). `make docs` puts them
 * between the README's markers; unit/docs-sync fails when the README differs, so the
 * documentation cannot drift from the code.
 *
 *   mlb-docs features|stats|work|stat-keys|work-keys|options|option-list
 *
 * stat-keys prints the counters' keys alone, one per line in enum order (line N is index
 * N - 1 of the BPF `stats` map): bench/workloads.sh reads the map with bpftool by it.
 * work-keys names the u64 slots of struct mlb_work (the `work` map's value) in layout order,
 * one per line: cur, bal_ns, then <callback>_<kind> for every callback and kind.
 * option-list prints one line per option, hidden ones too, for the tests: "--NAME KIND LO
 * HI", and for a choice its values, comma-separated.
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

/* The loader's own keys, before the counters (src/stats.c) and after them (src/scx_mlb.c). */
static const char *const head_keys[][2] = {
    {"t", "seconds since attach"},
    {"migr_s", "CPU migrations per second over the last period"},
    {"queued", "tasks waiting in the CPUs' queues now"},
    {"tasks", "tasks scheduled by scx_mlb now"},
    {"task_ctxs", "per-task contexts held by the BPF side (freed when a task exits)"},
};
static const char *const tail_keys[][2] = {
    {"domN_load / domN_q / domN_wait_us",
     "domain N's smoothed load (in always-busy nice-0 tasks), tasks queued on its CPUs, "
     "smoothed wait per run"},
    {"gen / live_gen", "learning modes: generation deployed by user space / last used by BPF"},
    {"samples / pending", "labelled samples written / decisions waiting for their outcome"},
    {"rb_drops / write_dropped",
     "records lost to full ring buffers / samples lost to write errors"},
    {"live_acc", "the live model's accuracy on its hold-out (-1: none)"},
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
			printf("| %s | %s |\n", head_keys[i][0], head_keys[i][1]);
		for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
			printf("| %s | %s |\n", counters[i].key, counters[i].doc);
		for (i = 0; i < sizeof(tail_keys) / sizeof(tail_keys[0]); i++)
			printf("| %s | %s |\n", tail_keys[i][0], tail_keys[i][1]);
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
	fprintf(stderr, "usage: mlb-docs features|stats|work|stat-keys|work-keys|options|option-list\n");
	return 2;
}
