/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_mlb: the command line, as one table.
 *
 * Owns every option of scx_mlb (MLB_OPTIONS), the values of its choice options
 * (MLB_<ID>_CHOICES), the examples and the exit statuses. Everything else is generated from
 * them, so nothing is kept in sync by hand:
 * - the BPF side's rodata initialisers and ring buffer sizes (MLB_DEF_<ID>, usable in BPF C);
 * - the loader's defaults, its argp options and help text, and its parser, which checks every
 *   numeric value against the row's range (src/scx_mlb.c);
 * - the defaults of the learning loop (src/learn.c, src/collect.c);
 * - the README's options table, the man page scx_mlb.8 and the option list the tests read
 *   (tools/mlb-docs.c: options, man, option-list).
 *
 * X(ID, short, "long", "ARG", KIND, lo, hi, default, "help"):
 *   ID       MLB_OPT_<ID> indexes the options, MLB_DEF_<ID> is the default (not for STR);
 *   short    the short option character, 0 for none;
 *   long     the long name without its dashes; ARG the argument's name (NULL for flags);
 *   KIND     NUM    a decimal integer from lo to hi;
 *            POW2   the same, and a power of two;
 *            FLAG   no argument: the value becomes 1 (lo 0, hi 1, default 0);
 *            STR    a non-empty string, a path (lo = hi = 0; default a string or NULL);
 *            CHOICE one of the names in MLB_<ID>_CHOICES, stored as its index (lo 0, hi the
 *                   last index, default an index);
 *   help     one sentence, without the range and the default: generated code appends them
 *            ("Time slice in microseconds (100-1000000, default 20000)").
 * Values are in the option's own unit (--explore is per mille; the loader converts).
 * The order of the rows is the order of --help, the README and the man page.
 *
 * Contract: compiles as BPF C, host C and C for tools; a row's default lies in its range,
 * POW2 rows' lo, hi and default are powers of two and a CHOICE row's range covers its
 * choices (asserted below). Options left out of --help and the docs: MLB_OPT_HIDDEN().
 */
#ifndef __MLB_OPTIONS_H
#define __MLB_OPTIONS_H

#include "intf.h"

/* The values of --mode, X(ENUM, "name", "what it does"): enum mlb_daemon_mode. */
#define MLB_MODE_CHOICES(X)                                                                        \
	X(HEURISTIC, "heuristic", "the built-in heuristic decides, nothing is recorded")           \
	X(COLLECT, "collect", "the heuristic decides and explores; all is recorded")               \
	X(INFER, "infer", "a model decides (the heuristic while none is valid)")                   \
	X(ADAPTIVE, "adaptive", "infer, collect, retrain, swap models, roll back")

/* The values of --label: enum mlb_label_kind. */
#define MLB_LABEL_CHOICES(X)                                                                       \
	X(OUTCOME, "outcome", "the wait each action got, measured (first_wait_us)")                \
	X(IMITATION, "imitation", "what the heuristic chose: its action waits 0, the other 100 ms")

enum mlb_daemon_mode {
#define MLB_X_CH(e, name, doc) MLB_DMODE_##e,
	MLB_MODE_CHOICES(MLB_X_CH)
#undef MLB_X_CH
	    MLB_NR_DMODES,
};

enum mlb_label_kind {
#define MLB_X_CH(e, name, doc) MLB_LABEL_##e,
	MLB_LABEL_CHOICES(MLB_X_CH)
#undef MLB_X_CH
	    MLB_NR_LABELS,
};

#define MLB_OPTIONS(X)                                                                             \
	X(SLICE_US, 's', "slice-us", "US", NUM, 100, 1000000, 20000, "Time slice in microseconds") \
	X(SLICE_MIN_US, 0, "slice-min-us", "US", NUM, 100, 1000000, 1000,                          \
	  "While tasks wait on a CPU its running task's slice is cut to slice / (waiting + 1), "   \
	  "but not below US")                                                                      \
	X(INTERVAL_MS, 'i', "interval-ms", "MS", NUM, 1, 10000, 100,                               \
	  "Balance interval in milliseconds")                                                      \
	X(IMBAL_PCT, 'I', "imbal-pct", "PCT", NUM, 1, 1000, 10,                                    \
	  "Domain imbalance threshold within a node, percent")                                     \
	X(NUMA_IMBAL_PCT, 'N', "numa-imbal-pct", "PCT", NUM, 1, 1000, 20,                          \
	  "Imbalance threshold across NUMA nodes, percent")                                        \
	X(HALF_LIFE_MS, 0, "half-life-ms", "MS", NUM, 1, 60000, 250,                               \
	  "Half-life of the task load averages")                                                   \
	X(MIGR_COST_US, 0, "migr-cost-us", "US", NUM, 0, 1000000, 500,                             \
	  "A task that ran this recently is cache-hot")                                            \
	X(MAX_RECENT_MIGR, 0, "max-recent-migr", "N", NUM, 1, 1000, 8,                             \
	  "Ping-pong guard: no move for a task with N CPU changes per second")                     \
	X(MAX_WAIT_MS, 0, "max-wait-ms", "MS", NUM, 1, 10000, 20,                                  \
	  "The wait bound: a task queued this long moves to an idle CPU whatever the policy says") \
	X(MOVE_COST_CORE_US, 0, "move-cost-core-us", "US", NUM, 0, 1000000, 10,                    \
	  "Cost of a move between SMT siblings of one core: a move must save more wait than "      \
	  "its cost, doubled for a cache-hot task")                                                \
	X(MOVE_COST_LLC_US, 0, "move-cost-llc-us", "US", NUM, 0, 1000000, 1000,                    \
	  "Cost of a move between CPUs that share a last-level cache")                             \
	X(MOVE_COST_XLLC_US, 0, "move-cost-cross-llc-us", "US", NUM, 0, 1000000, 5000,             \
	  "Cost of a move to another last-level cache of the same NUMA node")                      \
	X(MOVE_COST_NODE_US, 0, "move-cost-node-us", "US", NUM, 0, 1000000, 10000,                 \
	  "Cost of a move to another NUMA node at distance 10, scaled by distance / 10")           \
	X(WAKE_PREEMPT_US, 0, "wake-preempt-us", "US", NUM, 0, 1000000, 0,                         \
	  "A short-running task waking with no idle CPU preempts the task on its last CPU once "   \
	  "that one has run US; 0: never, 1000 is a start; needs kernel 6.18+")                    \
	X(LAT_PREEMPT_US, 0, "lat-preempt-us", "US", NUM, 0, 1000000, 1000,                        \
	  "A latency-critical task waking on a CPU whose batch task has run US takes the CPU "     \
	  "from it at once (never from another class); 0: never")                                  \
	X(WATCHDOG_MS, 0, "watchdog-ms", "MS", NUM, 1000, 30000, 10000,                            \
	  "The kernel aborts the scheduler when a runnable task waits this long")                  \
	X(EXIT_DUMP_LEN, 0, "exit-dump-len", "BYTES", NUM, 4096, 1048576, 32768,                   \
	  "Room for the kernel's debug dump that an error exit prints; a large machine's dump "    \
	  "needs more")                                                                            \
	X(PARTIAL, 'p', "partial", NULL, FLAG, 0, 1, 0,                                            \
	  "Schedule only tasks whose policy is SCHED_EXT")                                         \
	X(STATS, 'S', "stats", "SECONDS", NUM, 0, 3600, 0,                                         \
	  "Stats line period in seconds (0: none, the default)")                                   \
	X(STATS_SOCKET, 0, "stats-socket", "PATH", STR, 0, 0, "/var/run/scx/root/stats",           \
	  "The stats socket, in sched-ext's scx_stats protocol (scxtop, --monitor)")               \
	X(NO_STATS_SOCKET, 0, "no-stats-socket", NULL, FLAG, 0, 1, 0, "Serve no stats socket")     \
	X(STATS_GROUP, 0, "stats-group", "GROUP", STR, 0, 0, NULL,                                 \
	  "Let GROUP use the stats socket too (mode 0660); without it root alone (0600)")          \
	X(MONITOR, 0, "monitor", "SEC", NUM, 0, 3600, 0,                                           \
	  "Load nothing: print the stats line of the scx_mlb serving --stats-socket every SEC "    \
	  "seconds, until SIGINT; 0: off")                                                         \
	X(DURATION, 0, "duration", "SEC", NUM, 0, 100000000, 0,                                    \
	  "Detach and exit after SEC seconds, 0: never")                                           \
	X(MODE, 'm', "mode", "MODE", CHOICE, 0, MLB_NR_DMODES - 1, MLB_DMODE_HEURISTIC,            \
	  "Who decides migrations and what is recorded, see MODES")                                \
	X(STATE_DIR, 'd', "state-dir", "DIR", STR, 0, 0, "/var/lib/scx_mlb",                       \
	  "Dataset and models of collect, infer and adaptive")                                     \
	X(MODEL, 'M', "model", "FILE", STR, 0, 0, NULL,                                            \
	  "Model to start from; without it DIR/model.mlb if present")                              \
	X(ALLOW_WRITABLE_MODEL, 0, "allow-writable-model", NULL, FLAG, 0, 1, 0,                    \
	  "Accept a model file that is group- or world-writable")                                  \
	X(EXPLORE, 0, "explore", "PERMILLE", NUM, 0, 200, 20,                                      \
	  "Decisions taken against the policy when recording, per mille")                          \
	X(CONTROL, 0, "control", "PERMILLE", NUM, 0, 500, 50,                                      \
	  "With a model live, decisions left to the heuristic to compare them, per mille")         \
	X(HORIZON_MS, 0, "horizon-ms", "MS", NUM, 1, 10000, 50,                                    \
	  "How long a decision's outcome is observed")                                             \
	X(BOUNCE_MS, 0, "bounce-ms", "MS", NUM, 1, 10000, 50,                                      \
	  "A migrated task back at its source within MS is a bad move")                            \
	X(LABEL, 0, "label", "KIND", CHOICE, 0, MLB_NR_LABELS - 1, MLB_LABEL_OUTCOME,              \
	  "Train on outcomes, the wait each action got (first_wait_us), or on imitation "          \
	  "targets, the heuristic's choices")                                                      \
	X(RETRAIN_S, 0, "retrain-s", "SEC", NUM, 1, 86400, 20,                                     \
	  "Adaptive: retrain every SEC seconds, or sooner after --retrain-samples")                \
	X(RETRAIN_SAMPLES, 0, "retrain-samples", "N", NUM, 1, 10000000, 2000,                      \
	  "Adaptive: retrain after N new samples, or sooner after --retrain-s")                    \
	X(MIN_SAMPLES, 0, "min-samples", "N", NUM, 20, 10000000, 300,                              \
	  "Adaptive: no training below N samples")                                                 \
	X(WINDOW, 0, "window", "N", NUM, 100, 10000000, 20000,                                     \
	  "Adaptive: train on the last N samples")                                                 \
	X(RING_KB, 0, "ring-kb", "KB", POW2, 8, 65536, 512,                                        \
	  "Decision ring buffer size in KiB; the outcome one gets half")                           \
	X(SYSFS, 0, "sysfs", "DIR", STR, 0, 0, "/sys", "Read the topology from DIR/devices")       \
	X(VERBOSE, 'v', "verbose", NULL, FLAG, 0, 1, 0,                                            \
	  "Print libbpf's debug messages and verifier statistics")                                 \
	X(HELP, 'h', "help", NULL, FLAG, 0, 1, 0, "Show this help and exit")                       \
	X(VERSION, 'V', "version", NULL, FLAG, 0, 1, 0,                                            \
	  "Print the version, git revision and ops name, and exit")

/* Options for the tests alone: not in --help, the README or the man page. */
#define MLB_OPT_HIDDEN(id) ((id) == MLB_OPT_SYSFS)

/* X(KIND, "name"): the kinds of option, by the name mlb-docs option-list prints. */
#define MLB_OPT_KINDS(X)                                                                           \
	X(NUM, "num")                                                                              \
	X(POW2, "pow2")                                                                            \
	X(FLAG, "flag")                                                                            \
	X(STR, "string")                                                                           \
	X(CHOICE, "choice")

enum mlb_opt_kind {
#define MLB_X_K(k, name) MLB_OPTK_##k,
	MLB_OPT_KINDS(MLB_X_K)
#undef MLB_X_K
};

enum mlb_opt_id {
#define MLB_X_O(id, s, l, a, k, lo, hi, def, help) MLB_OPT_##id,
	MLB_OPTIONS(MLB_X_O)
#undef MLB_X_O
	    MLB_NR_OPTS,
};

/*
 * Per-kind selectors: MLB_OPTK_IF_<WHAT>_<KIND>(...) is its arguments when the kind is WHAT
 * (NUMERIC: every kind but STR), nothing otherwise. A row's default is a number or a string
 * depending on its kind; the generators pick with these.
 */
#define MLB_OPTK_IF_NUMERIC_NUM(...)	__VA_ARGS__
#define MLB_OPTK_IF_NUMERIC_POW2(...)	__VA_ARGS__
#define MLB_OPTK_IF_NUMERIC_FLAG(...)	__VA_ARGS__
#define MLB_OPTK_IF_NUMERIC_CHOICE(...) __VA_ARGS__
#define MLB_OPTK_IF_NUMERIC_STR(...)
#define MLB_OPTK_IF_STR_NUM(...)
#define MLB_OPTK_IF_STR_POW2(...)
#define MLB_OPTK_IF_STR_FLAG(...)
#define MLB_OPTK_IF_STR_CHOICE(...)
#define MLB_OPTK_IF_STR_STR(...) __VA_ARGS__
#define MLB_OPTK_IF_CHOICE_NUM(...)
#define MLB_OPTK_IF_CHOICE_POW2(...)
#define MLB_OPTK_IF_CHOICE_FLAG(...)
#define MLB_OPTK_IF_CHOICE_CHOICE(...) __VA_ARGS__
#define MLB_OPTK_IF_CHOICE_STR(...)

/* A row's default as a number: 0 for STR. */
#define MLB_OPT_NUM_DEF(kind, def) (MLB_OPTK_IF_NUMERIC_##kind(def) MLB_OPTK_IF_STR_##kind(0))

/* MLB_DEF_<ID>: the default of every option but the strings, for BPF C and user space. */
enum mlb_opt_default {
#define MLB_X_DEF(id, s, l, a, kind, lo, hi, def, help)                                            \
	MLB_OPTK_IF_NUMERIC_##kind(MLB_DEF_##id = (def), )
	MLB_OPTIONS(MLB_X_DEF)
#undef MLB_X_DEF
};

#define MLB_IS_POW2(v)		     ((v) > 0 && ((v) & ((v)-1)) == 0)
#define MLB_X_CH_COUNT(e, name, doc) +1
/* clang-format off */
#define MLB_X_ASSERT(id, s, l, a, kind, lo, hi, def, help)					\
	MLB_ASSERT((lo) <= MLB_OPT_NUM_DEF(kind, def) && MLB_OPT_NUM_DEF(kind, def) <= (hi),	\
		   "--" l ": the default is in the range");					\
	MLB_ASSERT(MLB_OPTK_##kind != MLB_OPTK_POW2 ||						\
		   (MLB_IS_POW2(lo) && MLB_IS_POW2(hi) &&					\
		    MLB_IS_POW2(MLB_OPT_NUM_DEF(kind, def))),					\
		   "--" l ": a power-of-two option's range and default are powers of two");	\
	MLB_ASSERT(MLB_OPTK_##kind != MLB_OPTK_FLAG || ((lo) == 0 && (hi) == 1),		\
		   "--" l ": a flag is 0 or 1");						\
	MLB_OPTK_IF_CHOICE_##kind(								\
		MLB_ASSERT((lo) == 0 && (hi) + 1 == 0 MLB_##id##_CHOICES(MLB_X_CH_COUNT),	\
			   "--" l ": the range is the indexes of its choices");)		\
	MLB_ASSERT(sizeof(help) > 1, "--" l ": every option has a help sentence");
/* clang-format on */
MLB_OPTIONS(MLB_X_ASSERT)
#undef MLB_X_ASSERT

/* X(ENUM, status, "when"): the exit statuses of scx_mlb, MLB_EXIT_<ENUM>. */
#define MLB_EXIT_STATUSES(X)                                                                       \
	X(OK, 0, "detached on request: SIGINT, SIGTERM, --duration or sysrq-S")                    \
	X(SCHED_ERROR, 1, "the kernel or the BPF side aborted it; the last line says why")         \
	X(USAGE, 2, "a bad option or value; one line on stderr says which")                        \
	X(CANNOT_START, 3, "no sched_ext or CAP_SYS_ADMIN, another scheduler, a setup failure")

enum mlb_exit_status {
#define MLB_X_EXIT(e, v, doc) MLB_EXIT_##e = (v),
	MLB_EXIT_STATUSES(MLB_X_EXIT)
#undef MLB_X_EXIT
};

/* X("command line", "what it does"): the examples of --help and the man page. */
#define MLB_EXAMPLES(X)                                                                            \
	X("scx_mlb", "defaults, a stats line every second")                                        \
	X("scx_mlb -s 5000 -i 50", "5 ms slices, balance every 50 ms")                             \
	X("scx_mlb --partial", "only tasks with policy SCHED_EXT (7)")                             \
	X("scx_mlb -I 5 -N 25 -S 0", "tighter LLC, looser NUMA, no stats")                         \
	X("scx_mlb --mode collect", "record decisions and their outcomes")                         \
	X("scx_mlb --mode infer --model m.mlb", "a trained model decides migrations")              \
	X("scx_mlb --mode adaptive", "learn: collect, retrain, swap models")                       \
	X("scx_mlb --monitor 1", "the running scx_mlb's stats")

#ifndef __bpf__
#include <stddef.h>
#include <stdio.h>

/* A value of a choice option, with what it means. */
struct mlb_opt_choice {
	const char *name;
	const char *doc;
};

/* One row of MLB_OPTIONS, for user space: mlb_opts[MLB_OPT_<ID>]. */
struct mlb_opt {
	const char *name; /* long name, without the dashes */
	const char *arg;  /* the argument's name, NULL for a flag */
	const char *help;
	const char *def_str;		      /* STR: the default, NULL for none */
	const struct mlb_opt_choice *choices; /* CHOICE: hi + 1 values, the index is the value */
	u64 lo, hi, def;		      /* every kind but STR */
	int short_opt;			      /* 0: none */
	enum mlb_opt_kind kind;
	bool hidden;
};

#define MLB_X_CH(e, name, doc) {name, doc},
/* clang-format off */
#define MLB_X_OPT(id, s, l, a, k, min, max, dflt, h)						\
	[MLB_OPT_##id] = {									\
		.name = l,									\
		.arg = a,									\
		.help = h,									\
		.lo = min,									\
		.hi = max,									\
		MLB_OPTK_IF_NUMERIC_##k(.def = dflt,)						\
		MLB_OPTK_IF_STR_##k(.def_str = dflt,)						\
		MLB_OPTK_IF_CHOICE_##k(.choices = (const struct mlb_opt_choice[]){		\
			MLB_##id##_CHOICES(MLB_X_CH)},)						\
		.short_opt = s,									\
		.kind = MLB_OPTK_##k,								\
		.hidden = MLB_OPT_HIDDEN(MLB_OPT_##id),						\
	},
/* clang-format on */
static const struct mlb_opt mlb_opts[MLB_NR_OPTS] = {MLB_OPTIONS(MLB_X_OPT)};
#undef MLB_X_OPT
#undef MLB_X_CH

static const char *const mlb_opt_kind_names[] = {
#define MLB_X_K(k, name) [MLB_OPTK_##k] = name,
    MLB_OPT_KINDS(MLB_X_K)
#undef MLB_X_K
};

/*
 * mlb_opt_range - what @o accepts, in words, into @buf: "100-1000000", "a power of two from
 * 8 to 65536", "heuristic, collect, infer or adaptive"; "" for flags and strings.
 */
static inline const char *mlb_opt_range(const struct mlb_opt *o, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = 0;
	if (o->kind == MLB_OPTK_NUM)
		snprintf(buf, size, "%llu-%llu", (unsigned long long)o->lo,
			 (unsigned long long)o->hi);
	else if (o->kind == MLB_OPTK_POW2)
		snprintf(buf, size, "a power of two from %llu to %llu", (unsigned long long)o->lo,
			 (unsigned long long)o->hi);
	else if (o->kind == MLB_OPTK_CHOICE)
		for (u64 i = 0; i <= o->hi && n < size; i++) {
			const char *sep = !i ? "" : i == o->hi ? " or " : ", ";

			n += snprintf(buf + n, size - n, "%s%s", sep, o->choices[i].name);
		}
	return buf;
}

/* mlb_opt_default - @o's default in words, into @buf; "" for a flag or a string without one. */
static inline const char *mlb_opt_default(const struct mlb_opt *o, char *buf, size_t size)
{
	buf[0] = 0;
	if (o->kind == MLB_OPTK_NUM || o->kind == MLB_OPTK_POW2)
		snprintf(buf, size, "%llu", (unsigned long long)o->def);
	else if (o->kind == MLB_OPTK_CHOICE)
		snprintf(buf, size, "%s", o->choices[o->def].name);
	else if (o->kind == MLB_OPTK_STR && o->def_str)
		snprintf(buf, size, "%s", o->def_str);
	return buf;
}

/*
 * mlb_opt_doc - @o's help sentence followed by its range and default, into @buf:
 * "Time slice in microseconds (100-1000000, default 20000)". --help and the man page say this.
 */
static inline const char *mlb_opt_doc(const struct mlb_opt *o, char *buf, size_t size)
{
	char range[256], def[256];

	mlb_opt_range(o, range, sizeof(range));
	mlb_opt_default(o, def, sizeof(def));
	if (range[0])
		snprintf(buf, size, "%s (%s%s default %s)", o->help, range,
			 o->kind == MLB_OPTK_CHOICE ? ";" : ",", def);
	else if (def[0])
		snprintf(buf, size, "%s (default %s)", o->help, def);
	else
		snprintf(buf, size, "%s", o->help);
	return buf;
}

#endif /* !__bpf__ */
#endif /* __MLB_OPTIONS_H */
