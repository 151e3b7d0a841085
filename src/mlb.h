/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_mlb user space: topology discovery and the stats line.
 */
#ifndef __MLB_H
#define __MLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "mlb/intf.h"

/*
 * The machine as the scheduler sees it. Domains group the online CPUs that share a node and
 * a last-level cache, numbered in the order of their lowest CPU. Offline or absent CPUs have
 * cpu_dom[cpu] == -1.
 */
struct mlb_topo {
	u32 nr_cpu_ids; /* highest possible CPU + 1 */
	u32 nr_online;
	u32 nr_doms;
	u32 nr_nodes; /* highest node id + 1 */
	s32 cpu_dom[MLB_MAX_CPUS];
	u32 cpu_capacity[MLB_MAX_CPUS];	       /* as sysfs says (1024 when it says nothing) */
	u32 cpu_capacity_scaled[MLB_MAX_CPUS]; /* 1024 = the largest CPU */
	u32 cpu_core[MLB_MAX_CPUS];	       /* lowest CPU of its core (its SMT siblings) */
	u32 cpu_next_in_dom[MLB_MAX_CPUS];     /* next CPU of its domain, (u32)-1 at the end */
	u32 dom_first_cpu[MLB_MAX_DOMS];
	u32 dom_node[MLB_MAX_DOMS];
	u32 dom_nr_cpus[MLB_MAX_DOMS];
	u32 dom_capacity[MLB_MAX_DOMS];
	u32 cap_min;  /* smallest scaled capacity of an online CPU (1024 = the largest) */
	u32 cap_asym; /* 1: capacities differ enough for capacity-aware placement
		       * (include/mlb/place.h: mlb_cap_asymmetric()) */
	u64 dom_cpus[MLB_MAX_DOMS][MLB_CPUMASK_WORDS];
	u8 node_dist[MLB_MAX_NODES][MLB_MAX_NODES];
};

/*
 * mlb_parse_cpulist - parse a sysfs CPU list ("0-3,8,10-11\n") into @mask (@words u64s,
 * cleared first). Returns the number of CPUs, or -1 when the text is malformed or names a
 * CPU beyond @words * 64; @mask is then unspecified.
 */
int mlb_parse_cpulist(const char *s, u64 *mask, size_t words);

/* mlb_format_cpulist - write @mask (@words u64s) as "0-3,8" into @buf; returns @buf. */
char *mlb_format_cpulist(const u64 *mask, size_t words, char *buf, size_t len);

/*
 * mlb_topo_read - discover the topology under @sysfs ("/sys" on a live system, a fake tree
 * in tests). Returns 0, or -1 with a one-line reason in @err: a missing or malformed CPU
 * list, more than MLB_MAX_CPUS CPUs, MLB_MAX_DOMS domains or MLB_MAX_NODES nodes. Missing
 * NUMA or cache information is not an error: one node, one LLC per node.
 */
int mlb_topo_read(const char *sysfs, struct mlb_topo *t, char *err, size_t errlen);

/* mlb_topo_print - the startup lines: totals, then one line per domain. */
void mlb_topo_print(const struct mlb_topo *t, FILE *out);

/* Counters summed over CPUs, and when they were read. */
struct mlb_stats_snap {
	double t;
	u64 cnt[MLB_NR_STATS];
};

/* mlb_stats_read - sum the per-CPU stats map @fd over @nr_cpus CPUs into @snap. */
int mlb_stats_read(int fd, u32 nr_cpus, struct mlb_stats_snap *snap);

/* How a value of the stats record is written: an integer, or a decimal with 0, 1, 2 digits. */
enum mlb_sfmt { MLB_SFMT_I, MLB_SFMT_F0, MLB_SFMT_F1, MLB_SFMT_F2 };

/* One key of the stats record, from the tables of include/mlb/intf.h. */
struct mlb_stat_key {
	const char *key, *doc;
	enum mlb_sfmt fmt;
};
extern const struct mlb_stat_key mlb_stat_head_keys[MLB_NR_SHEAD];
extern const struct mlb_stat_key mlb_stat_cnt_keys[MLB_NR_STATS]; /* all MLB_SFMT_I */
extern const struct mlb_stat_key mlb_stat_dom_keys[MLB_NR_SDOM];
extern const struct mlb_stat_key mlb_stat_learn_keys[MLB_NR_SLEARN];

/*
 * Every value of one stats line: what the line prints and the stats socket serves
 * (src/statsd.c), so that both say the same. learn[] only when @learning.
 */
struct mlb_stats_rec {
	double head[MLB_NR_SHEAD];
	u64 cnt[MLB_NR_STATS];
	u32 nr_doms;
	bool learning;
	double dom[MLB_MAX_DOMS][MLB_NR_SDOM];
	double learn[MLB_NR_SLEARN];
};

/*
 * mlb_stats_rec_fill - the record of two snapshots (the rate is over cur->t - prev->t) and
 * the per-domain state; learning off (the caller fills learn[] and sets learning).
 */
void mlb_stats_rec_fill(struct mlb_stats_rec *r, const struct mlb_stats_snap *prev,
			const struct mlb_stats_snap *cur, const struct mlb_dom_stat *doms,
			u32 nr_doms, s64 nr_tasks, s64 nr_task_ctxs);

/* mlb_stats_fmt - @v written as @f says into @buf (an integer is rounded); returns @buf. */
char *mlb_stats_fmt(char *buf, size_t size, enum mlb_sfmt f, double v);

/* mlb_stats_print - the stats line of @r: "stats key=value ...", in the tables' order. */
void mlb_stats_print(FILE *out, const struct mlb_stats_rec *r);

/* mlb_work_read - sum the per-CPU work map @fd (struct mlb_work) over @nr_cpus CPUs. */
int mlb_work_read(int fd, u32 nr_cpus, struct mlb_work *sum);

/* mlb_work_print - the `work` line: every callback's counters (totals since attach) and the
 * balancer's time, at @t seconds since attach. */
void mlb_work_print(FILE *out, double t, const struct mlb_work *w);

#endif /* __MLB_H */
