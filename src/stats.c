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

#define MLB_X_KEY(e, k, type, d) [MLB_##e] = {.key = k, .doc = d, .fmt = MLB_SFMT_##type},
const struct mlb_stat_key mlb_stat_head_keys[MLB_NR_SHEAD] = {
#define MLB_X_SH(e, k, type, d) MLB_X_KEY(SH_##e, k, type, d)
    MLB_STATS_HEAD(MLB_X_SH)
#undef MLB_X_SH
};
const struct mlb_stat_key mlb_stat_dom_keys[MLB_NR_SDOM] = {
#define MLB_X_SD(e, k, type, d) MLB_X_KEY(SD_##e, k, type, d)
    MLB_STATS_DOM(MLB_X_SD)
#undef MLB_X_SD
};
const struct mlb_stat_key mlb_stat_learn_keys[MLB_NR_SLEARN] = {
#define MLB_X_SL(e, k, type, d) MLB_X_KEY(SL_##e, k, type, d)
    MLB_STATS_LEARN(MLB_X_SL)
#undef MLB_X_SL
};
#undef MLB_X_KEY
const struct mlb_stat_key mlb_stat_cnt_keys[MLB_NR_STATS] = {
#define MLB_X_SC(e, k, d) [MLB_STAT_##e] = {.key = k, .doc = d, .fmt = MLB_SFMT_I},
    MLB_STATS(MLB_X_SC)
#undef MLB_X_SC
};

void mlb_stats_rec_fill(struct mlb_stats_rec *r, const struct mlb_stats_snap *prev,
			const struct mlb_stats_snap *cur, const struct mlb_dom_stat *doms,
			u32 nr_doms, s64 nr_tasks, s64 nr_task_ctxs)
{
	double dt = cur->t - prev->t;
	u64 queued = 0;

	memset(r, 0, sizeof(*r));
	r->nr_doms = nr_doms < MLB_MAX_DOMS ? nr_doms : MLB_MAX_DOMS;
	for (u32 d = 0; d < r->nr_doms; d++) {
		queued += doms[d].nr_queued;
		r->dom[d][MLB_SD_LOAD] = (double)doms[d].load / MLB_LOAD_ONE;
		r->dom[d][MLB_SD_Q] = doms[d].nr_queued;
		r->dom[d][MLB_SD_WAIT_US] = doms[d].avg_wait_ns / 1000.0;
	}
	r->head[MLB_SH_T] = cur->t;
	r->head[MLB_SH_MIGR_S] =
	    dt > 0 ? (cur->cnt[MLB_STAT_CPU_MIGR] - prev->cnt[MLB_STAT_CPU_MIGR]) / dt : 0.0;
	r->head[MLB_SH_QUEUED] = queued;
	r->head[MLB_SH_TASKS] = nr_tasks;
	r->head[MLB_SH_TASK_CTXS] = nr_task_ctxs;
	memcpy(r->cnt, cur->cnt, sizeof(r->cnt));
}

char *mlb_stats_fmt(char *buf, size_t size, enum mlb_sfmt f, double v)
{
	static const char *const fmts[] = {"%.0f", "%.0f", "%.1f", "%.2f"};

	snprintf(buf, size, fmts[f], v);
	return buf;
}

void mlb_stats_print(FILE *out, const struct mlb_stats_rec *r)
{
	char v[64];

	fprintf(out, "stats");
	for (u32 i = 0; i < MLB_NR_SHEAD; i++)
		fprintf(out, " %s=%s", mlb_stat_head_keys[i].key,
			mlb_stats_fmt(v, sizeof(v), mlb_stat_head_keys[i].fmt, r->head[i]));
	for (u32 i = 0; i < MLB_NR_STATS; i++)
		fprintf(out, " %s=%llu", mlb_stat_cnt_keys[i].key, (unsigned long long)r->cnt[i]);
	for (u32 d = 0; d < r->nr_doms; d++)
		for (u32 i = 0; i < MLB_NR_SDOM; i++)
			fprintf(
			    out, " dom%u_%s=%s", d, mlb_stat_dom_keys[i].key,
			    mlb_stats_fmt(v, sizeof(v), mlb_stat_dom_keys[i].fmt, r->dom[d][i]));
	for (u32 i = 0; r->learning && i < MLB_NR_SLEARN; i++)
		fprintf(out, " %s=%s", mlb_stat_learn_keys[i].key,
			mlb_stats_fmt(v, sizeof(v), mlb_stat_learn_keys[i].fmt, r->learn[i]));
	fprintf(out, "\n");
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
