// SPDX-License-Identifier: GPL-2.0
/*
 * The stats line: counters summed over CPUs, rates from two snapshots, per-domain state.
 * Every field is key=value so that scripts can parse it; the format is in the README.
 */
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "mlb.h"

int mlb_stats_read(int fd, u32 nr_cpus, struct mlb_stats_snap *snap)
{
	u64 *vals = calloc(nr_cpus, sizeof(*vals));
	int err = 0;

	if (!vals)
		return -1;
	for (u32 i = 0; i < MLB_NR_STATS; i++) {
		snap->cnt[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, vals)) {
			err = -1;
			break;
		}
		for (u32 c = 0; c < nr_cpus; c++)
			snap->cnt[i] += vals[c];
	}
	free(vals);
	return err;
}

static const char *const stat_keys[MLB_NR_STATS] = {
#define MLB_X_KEY(e, key, doc) [MLB_STAT_##e] = key,
    MLB_STATS(MLB_X_KEY)
#undef MLB_X_KEY
};

void mlb_stats_print(FILE *out, const struct mlb_stats_snap *prev, const struct mlb_stats_snap *cur,
		     const struct mlb_dom_stat *doms, u32 nr_doms, s64 nr_tasks, s64 nr_task_ctxs,
		     const char *extra)
{
	double dt = cur->t - prev->t;
	const u64 *c = cur->cnt;
	u64 queued = 0;

	for (u32 d = 0; d < nr_doms; d++)
		queued += doms[d].nr_queued;
	fprintf(out, "stats t=%.1f migr_s=%.1f queued=%llu tasks=%lld task_ctxs=%lld", cur->t,
		dt > 0 ? (c[MLB_STAT_CPU_MIGR] - prev->cnt[MLB_STAT_CPU_MIGR]) / dt : 0.0,
		(unsigned long long)queued, (long long)nr_tasks, (long long)nr_task_ctxs);
	for (u32 i = 0; i < MLB_NR_STATS; i++)
		fprintf(out, " %s=%llu", stat_keys[i], (unsigned long long)c[i]);
	for (u32 d = 0; d < nr_doms; d++)
		fprintf(out, " dom%u_load=%.2f dom%u_q=%u dom%u_wait_us=%.0f", d,
			(double)doms[d].load / MLB_LOAD_ONE, d, doms[d].nr_queued, d,
			doms[d].avg_wait_ns / 1000.0);
	fprintf(out, "%s\n", extra ? extra : "");
	fflush(out);
}

int mlb_work_read(int fd, u32 nr_cpus, struct mlb_work *sum)
{
	struct mlb_work *vals = calloc(nr_cpus, sizeof(*vals));
	u32 key = 0;

	if (!vals)
		return -1;
	memset(sum, 0, sizeof(*sum));
	if (bpf_map_lookup_elem(fd, &key, vals)) {
		free(vals);
		return -1;
	}
	for (u32 c = 0; c < nr_cpus; c++) {
		sum->bal_ns += vals[c].bal_ns;
		for (u32 cb = 0; cb < MLB_NR_WORK_CBS; cb++)
			for (u32 k = 0; k < MLB_NR_WORK_KINDS; k++)
				sum->n[cb][k] += vals[c].n[cb][k];
	}
	free(vals);
	return 0;
}

static const char *const work_cbs[MLB_NR_WORK_CBS] = {
#define MLB_X_WCB(e, name) [MLB_WCB_##e] = name,
    MLB_WORK_CBS(MLB_X_WCB)
#undef MLB_X_WCB
};
static const char *const work_kinds[MLB_NR_WORK_KINDS] = {
#define MLB_X_WK(e, name, doc) [MLB_WK_##e] = name,
    MLB_WORK_KINDS(MLB_X_WK)
#undef MLB_X_WK
};

void mlb_work_print(FILE *out, double t, const struct mlb_work *w)
{
	fprintf(out, "work t=%.1f", t);
	for (u32 cb = 0; cb < MLB_NR_WORK_CBS; cb++)
		for (u32 k = 0; k < MLB_NR_WORK_KINDS; k++)
			fprintf(out, " %s_%s=%llu", work_cbs[cb], work_kinds[k],
				(unsigned long long)w->n[cb][k]);
	fprintf(out, " balance_round_ns=%llu\n", (unsigned long long)w->bal_ns);
	fflush(out);
}
