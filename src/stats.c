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
