// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include "mlb/features.h"
#include "mlb/heuristic.h"
#include "mlb/class.h"
#include "data.h"
#include "rng.h"
#include "err.h"

#define CSV_MAX_COLS 256

int mlb_dataset_push_act(struct mlb_dataset *ds, const s32 *x, s32 t, int a, u32 p_ppm)
{
	if (ds->n == ds->cap) {
		size_t cap = ds->cap ? 2 * ds->cap : 1024;
		s32 *nx = realloc(ds->x, cap * sizeof(s32) * MLB_NR_FEATURES), *nt;
		u8 *ny, *na;
		u32 *np;

		if (!nx)
			return -ENOMEM;
		ds->x = nx;
		ny = realloc(ds->y, cap);
		if (!ny)
			return -ENOMEM;
		ds->y = ny;
		nt = realloc(ds->t, cap * sizeof(s32));
		if (!nt)
			return -ENOMEM;
		ds->t = nt;
		na = realloc(ds->a, cap);
		if (!na)
			return -ENOMEM;
		ds->a = na;
		np = realloc(ds->p, cap * sizeof(u32));
		if (!np)
			return -ENOMEM;
		ds->p = np;
		ds->cap = cap;
	}
	memcpy(ds->x + ds->n * MLB_NR_FEATURES, x, sizeof(s32) * MLB_NR_FEATURES);
	ds->t[ds->n] = t;
	ds->a[ds->n] = !!a;
	ds->p[ds->n] = p_ppm;
	ds->y[ds->n++] = t > 0;
	return 0;
}

int mlb_dataset_push(struct mlb_dataset *ds, const s32 *x, s32 t)
{
	return mlb_dataset_push_act(ds, x, t, 0, MLB_PPM_ONE);
}

void mlb_dataset_free(struct mlb_dataset *ds)
{
	free(ds->x);
	free(ds->y);
	free(ds->t);
	free(ds->a);
	free(ds->p);
	memset(ds, 0, sizeof(*ds));
}

/* Split @line in place on commas into at most CSV_MAX_COLS trimmed fields. -1 if too many. */
static int split(char *line, char **f)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *end = strchr(p, ',');

		if (n == CSV_MAX_COLS)
			return -1;
		if (end)
			*end = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		f[n] = p;
		for (char *e = p + strlen(p); e > p && (e[-1] == ' ' || e[-1] == '\t'); e--)
			e[-1] = 0;
		n++;
		if (!end)
			return n;
		p = end + 1;
	}
}

/* Parse a whole-field decimal integer into @v. 0 or -1. */
static int parse_int(const char *s, long long *v)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

long mlb_csv_read(const char *path, const char *label, struct mlb_dataset *ds, char *err,
		  size_t errsz)
{
	int col[MLB_NR_FEATURES], label_col = -1, n_cols = 0, i;
	size_t n0 = ds->n, cap = 0;
	char *line = NULL, *f[CSV_MAX_COLS];
	long lineno = 0, ret = 0;
	s32 x[MLB_NR_FEATURES], t;
	bool wait = !strcmp(label, MLB_TARGET_WAIT);
	int act_col = -1, prop_col = -1;
	long long act = 0, prop = MLB_PPM_ONE;
	ssize_t len;
	FILE *fp;

	fp = fopen(path, "r");
	if (!fp) {
		ret = -errno;
		set_err(err, errsz, "%s: %s", path, strerror(errno));
		return ret;
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		int n;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue; /* blank lines and comments */
		n = split(line, f);
		if (n < 0) {
			set_err(err, errsz, "%s:%ld: more than %d columns", path, lineno,
				CSV_MAX_COLS);
			ret = -EINVAL;
			break;
		}
		if (!n_cols) { /* the header */
			for (i = 0; i < MLB_NR_FEATURES; i++)
				col[i] = -1;
			for (int c = 0; c < n && !ret; c++) {
				for (i = 0; i < MLB_NR_FEATURES; i++) {
					if (strcmp(f[c], mlb_feature_descs[i].name))
						continue;
					if (col[i] >= 0) {
						set_err(err, errsz, "%s:%ld: column '%s' twice",
							path, lineno, f[c]);
						ret = -EINVAL;
					}
					col[i] = c;
				}
				if (!strcmp(f[c], MLB_ACTION_COL))
					act_col = c;
				if (!strcmp(f[c], MLB_PROP_COL))
					prop_col = c;
				if (!strcmp(f[c], label)) {
					if (label_col >= 0) {
						set_err(err, errsz, "%s:%ld: column '%s' twice",
							path, lineno, f[c]);
						ret = -EINVAL;
					}
					label_col = c;
				}
			}
			for (i = 0; i < MLB_NR_FEATURES && !ret; i++) {
				if (col[i] < 0) {
					set_err(err, errsz, "%s:%ld: no column for feature '%s'",
						path, lineno, mlb_feature_descs[i].name);
					ret = -EINVAL;
				}
			}
			if (!ret && label_col < 0) {
				set_err(err, errsz, "%s:%ld: no label column '%s'", path, lineno,
					label);
				ret = -EINVAL;
			}
			if (!ret && wait && (act_col < 0 || prop_col < 0)) {
				set_err(err, errsz, "%s:%ld: no column '%s' for the wait's action",
					path, lineno, act_col < 0 ? MLB_ACTION_COL : MLB_PROP_COL);
				ret = -EINVAL;
			}
			if (ret)
				break;
			n_cols = n;
			continue;
		}
		if (n != n_cols) {
			set_err(err, errsz, "%s:%ld: %d fields, the header has %d", path, lineno, n,
				n_cols);
			ret = -EINVAL;
			break;
		}
		for (i = 0; i < MLB_NR_FEATURES; i++) {
			const struct mlb_feature_desc *d = &mlb_feature_descs[i];
			long long v;

			if (parse_int(f[col[i]], &v) || v < d->min || v > d->max) {
				set_err(err, errsz, "%s:%ld: %s='%s' is not an integer in [%d, %d]",
					path, lineno, d->name, f[col[i]], d->min, d->max);
				ret = -EINVAL;
				break;
			}
			x[i] = (s32)v;
		}
		if (ret)
			break;
		if (wait) {
			long long v;

			if (parse_int(f[label_col], &v) || v < 0 || v > MLB_WAIT_READ_US) {
				set_err(err, errsz, "%s:%ld: %s='%s' is not an integer in [0, %d]",
					path, lineno, label, f[label_col], MLB_WAIT_READ_US);
				ret = -EINVAL;
				break;
			}
			if (parse_int(f[act_col], &act) || act < 0 || act > 1) {
				set_err(err, errsz, "%s:%ld: %s='%s', expected 0 or 1", path,
					lineno, MLB_ACTION_COL, f[act_col]);
				ret = -EINVAL;
				break;
			}
			if (parse_int(f[prop_col], &prop) || prop < 1 || prop > MLB_PPM_ONE) {
				set_err(err, errsz, "%s:%ld: %s='%s' is not an integer in [1, %d]",
					path, lineno, MLB_PROP_COL, f[prop_col], MLB_PPM_ONE);
				ret = -EINVAL;
				break;
			}
			t = (s32)v;
		} else if (strcmp(f[label_col], "0") && strcmp(f[label_col], "1")) {
			set_err(err, errsz, "%s:%ld: %s='%s', expected 0 or 1", path, lineno, label,
				f[label_col]);
			ret = -EINVAL;
			break;
		} else {
			t = f[label_col][0] == '1';
		}
		if (mlb_dataset_push_act(ds, x, t, (int)act, (u32)prop)) {
			set_err(err, errsz, "%s: out of memory", path);
			ret = -ENOMEM;
			break;
		}
	}
	if (!ret && ferror(fp)) {
		set_err(err, errsz, "%s: read error", path);
		ret = -EIO;
	}
	if (!ret && !n_cols) {
		set_err(err, errsz, "%s: empty, no header", path);
		ret = -EINVAL;
	}
	free(line);
	fclose(fp);
	if (ret) {
		ds->n = n0;
		return ret;
	}
	return (long)(ds->n - n0);
}

int mlb_csv_header(char *buf, size_t size)
{
	int len = snprintf(buf, size, "id");

	for (int i = 0; i < MLB_NR_FEATURES && len >= 0 && (size_t)len < size; i++) {
		int n = snprintf(buf + len, size - len, ",%s", mlb_feature_descs[i].name);

		len = n < 0 ? n : len + n;
	}
	return len < 0 || (size_t)len >= size ? -ENOSPC : len;
}

int mlb_csv_write(const char *path, const struct mlb_dataset *ds, char *err, size_t errsz)
{
	char hdr[MLB_CSV_HEADER_MAX];
	int ret = 0;
	FILE *fp;

	if (mlb_csv_header(hdr, sizeof(hdr)) < 0) {
		set_err(err, errsz, "%s: header longer than %d bytes", path, MLB_CSV_HEADER_MAX);
		return -ENOSPC;
	}
	fp = fopen(path, "w");
	if (!fp) {
		ret = -errno;
		set_err(err, errsz, "%s: %s", path, strerror(errno));
		return ret;
	}
	fprintf(fp, "%s,label,%s,%s,%s\n", hdr, MLB_TARGET_WAIT, MLB_ACTION_COL, MLB_PROP_COL);
	for (size_t k = 0; k < ds->n; k++) {
		const s32 *x = ds->x + k * MLB_NR_FEATURES;

		fprintf(fp, "%zu", k);
		for (int i = 0; i < MLB_NR_FEATURES; i++)
			fprintf(fp, ",%d", x[i]);
		fprintf(fp, ",%d,%d,%d,%u\n", ds->y[k], ds->t[k], ds->a[k], ds->p[k]);
	}
	if (ferror(fp))
		ret = -EIO;
	if (fclose(fp) && !ret)
		ret = -errno;
	if (ret)
		set_err(err, errsz, "%s: write error", path);
	return ret;
}

static s32 clampi(s64 v, int f)
{
	if (v < mlb_feature_descs[f].min)
		return mlb_feature_descs[f].min;
	if (v > mlb_feature_descs[f].max)
		return mlb_feature_descs[f].max;
	return (s32)v;
}

int mlb_synth(struct mlb_dataset *ds, size_t n, u64 seed, double noise)
{
	struct mlb_rng r;
	s32 x[MLB_NR_FEATURES];

	mlb_rng_seed(&r, seed);
	for (size_t k = 0; k < n; k++) {
		double burst, s;
		int y, act;
		s32 m, w;

		x[MLB_F_TASK_WEIGHT] =
		    clampi(mlb_rng_uniform(&r) < 0.8 ? 100 : mlb_rng_range(&r, 1, 1000),
			   MLB_F_TASK_WEIGHT);
		x[MLB_F_TASK_DUTY] = (s32)mlb_rng_range(&r, 0, 1024);
		x[MLB_F_TASK_RUN_FRAC] = (s32)(x[MLB_F_TASK_DUTY] * mlb_rng_uniform(&r));
		burst = exp(mlb_rng_uniform(&r) * log(1000000.0));
		x[MLB_F_TASK_BURST_US] = clampi((s64)burst, MLB_F_TASK_BURST_US);
		x[MLB_F_TASK_SLICE_USE] = (s32)mlb_rng_range(&r, 0, 1024);
		x[MLB_F_TASK_WAKE_FREQ] =
		    clampi((s64)exp(mlb_rng_uniform(&r) * log(100000.0)), MLB_F_TASK_WAKE_FREQ);
		x[MLB_F_TASK_SINCE_RAN_US] = clampi((s64)exp(mlb_rng_uniform(&r) * log(10000000.0)),
						    MLB_F_TASK_SINCE_RAN_US);
		x[MLB_F_TASK_CACHE_HOT] = x[MLB_F_TASK_SINCE_RAN_US] < 500;
		x[MLB_F_TASK_RECENT_MIGR] =
		    mlb_rng_uniform(&r) < 0.7 ? 0 : (s32)mlb_rng_range(&r, 0, 1000);
		x[MLB_F_TASK_NR_CPUS] =
		    mlb_rng_uniform(&r) < 0.9 ? 64 : (s32)mlb_rng_range(&r, 1, 64);
		x[MLB_F_TASK_VLAG_US] = (s32)mlb_rng_range(&r, -1000000, 1000000);
		x[MLB_F_SRC_NR_QUEUED] = (s32)mlb_rng_range(&r, 0, 64);
		x[MLB_F_DST_NR_QUEUED] = (s32)mlb_rng_range(&r, 0, 64);
		x[MLB_F_SRC_LOAD] = (s32)mlb_rng_range(&r, 0, 8192);
		x[MLB_F_DST_LOAD] = (s32)mlb_rng_range(&r, 0, 8192);
		x[MLB_F_IMBALANCE] = x[MLB_F_SRC_LOAD] - x[MLB_F_DST_LOAD];
		x[MLB_F_DST_IDLE] = (s32)mlb_rng_range(&r, 0, 2);
		x[MLB_F_SAME_LLC] = mlb_rng_uniform(&r) < 0.5;
		x[MLB_F_SAME_NODE] = x[MLB_F_SAME_LLC] || mlb_rng_uniform(&r) < 0.5;
		x[MLB_F_NUMA_DIST] = x[MLB_F_SAME_NODE] ? 10 : (s32)mlb_rng_range(&r, 12, 40);
		x[MLB_F_SRC_CAPACITY] =
		    mlb_rng_uniform(&r) < 0.8 ? 1024 : (s32)mlb_rng_range(&r, 256, 1024);
		x[MLB_F_DST_CAPACITY] =
		    mlb_rng_uniform(&r) < 0.8 ? 1024 : (s32)mlb_rng_range(&r, 256, 1024);
		x[MLB_F_DST_PERF] = (s32)mlb_rng_range(&r, 256, 1024);
		x[MLB_F_BALANCE_FAILS] = (s32)mlb_rng_range(&r, 0, 8);
		x[MLB_F_KIND] = (s32)mlb_rng_range(&r, 0, 2);
		x[MLB_F_SAME_CORE] = x[MLB_F_SAME_LLC] && mlb_rng_uniform(&r) < 0.3;
		x[MLB_F_SRC_WAIT_US] =
		    clampi((s64)exp(mlb_rng_uniform(&r) * log(100000.0)), MLB_F_SRC_WAIT_US);
		x[MLB_F_DST_WAIT_US] =
		    x[MLB_F_DST_IDLE]
			? 0
			: clampi((s64)exp(mlb_rng_uniform(&r) * log(100000.0)), MLB_F_DST_WAIT_US);
		x[MLB_F_TASK_WAITED_US] =
		    x[MLB_F_KIND] == MLB_KIND_WAKEUP
			? 0
			: clampi((s64)exp(mlb_rng_uniform(&r) * log(100000.0)),
				 MLB_F_TASK_WAITED_US);
		x[MLB_F_TASK_RESIDENCE_US] = clampi((s64)exp(mlb_rng_uniform(&r) * log(10000000.0)),
						    MLB_F_TASK_RESIDENCE_US);
		x[MLB_F_WAKER_ON_DST] = mlb_rng_uniform(&r) < 0.2;
		/* the class the entry thresholds of include/mlb/class.h give these inputs (no
		 * draw of its own, so the other features' draws are as before; no periodicity) */
		if (x[MLB_F_TASK_SLICE_USE] >= MLB_BATCH_USE_IN ||
		    x[MLB_F_TASK_BURST_US] >= MLB_BATCH_BURST_IN_US)
			x[MLB_F_TASK_CLASS] = MLB_CLASS_BATCH;
		else if (x[MLB_F_TASK_SLICE_USE] <= MLB_LAT_USE_IN &&
			 x[MLB_F_TASK_BURST_US] <= MLB_LAT_BURST_IN_US &&
			 x[MLB_F_TASK_WAKE_FREQ] >= MLB_LAT_WAKES_IN)
			x[MLB_F_TASK_CLASS] = MLB_CLASS_LAT;
		else
			x[MLB_F_TASK_CLASS] = MLB_CLASS_INTER;

		/* The rule: move when it relieves the source enough to pay for what it costs. */
		s = x[MLB_F_IMBALANCE] / 1024.0 * (x[MLB_F_TASK_DUTY] / 1024.0 + 0.3);
		s += 0.8 * x[MLB_F_DST_IDLE] +
		     0.15 * (x[MLB_F_SRC_NR_QUEUED] - x[MLB_F_DST_NR_QUEUED]) / 8.0;
		s -= x[MLB_F_TASK_CACHE_HOT] * (x[MLB_F_SAME_LLC] ? 0.4 : 1.6);
		s -= (x[MLB_F_NUMA_DIST] - 10) / 15.0;
		s -= x[MLB_F_TASK_RECENT_MIGR] / 300.0;
		s += (x[MLB_F_DST_CAPACITY] - x[MLB_F_SRC_CAPACITY]) / 1024.0;
		s += 0.1 * x[MLB_F_BALANCE_FAILS];
		s += (x[MLB_F_SRC_WAIT_US] - x[MLB_F_DST_WAIT_US]) / 20000.0;
		if (x[MLB_F_KIND] == MLB_KIND_PULL && x[MLB_F_DST_IDLE])
			s += 0.5;
		y = s > 0.5;
		if (mlb_rng_uniform(&r) < noise)
			y = !y;
		/* the wait of a random action: a base wait, shortened by moving when the (noisy)
		 * label says move and lengthened otherwise, by the rule's margin */
		m = 100 + (s32)fmin(fabs(s - 0.5) * 2000.0, 20000.0);
		act = mlb_rng_below(&r, 2);
		w = 5000 + (s32)(x[MLB_F_SRC_WAIT_US] / 20) + (s32)mlb_rng_range(&r, 0, 500);
		if (act)
			w += y ? -m / 2 : m / 2;
		else
			w += y ? m / 2 : -m / 2;
		if (mlb_dataset_push_act(ds, x, w > 0 ? w : 0, act, MLB_PPM_ONE / 2))
			return -ENOMEM;
		ds->y[ds->n - 1] = y; /* the label column is the rule's, not the wait's sign */
	}
	return 0;
}
