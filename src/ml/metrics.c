// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"

struct scored {
	double s;
	u8 y;
};

static int cmp_scored(const void *a, const void *b)
{
	double x = ((const struct scored *)a)->s, y = ((const struct scored *)b)->s;

	return (x > y) - (x < y);
}

int mlb_metrics_compute(const double *score, const u8 *y, size_t n, struct mlb_metrics *m)
{
	struct scored *v;
	double rank_sum = 0.0;
	u64 pos, neg;
	size_t i, j;

	memset(m, 0, sizeof(*m));
	m->n = n;
	for (i = 0; i < n; i++) {
		int pred = score[i] > 0.0;

		/* -log sigmoid(s) for label 1, -log(1 - sigmoid(s)) for 0, without overflow */
		m->logloss +=
		    fmax(score[i], 0.0) - (y[i] ? score[i] : 0.0) + log1p(exp(-fabs(score[i])));

		if (pred && y[i])
			m->tp++;
		else if (pred)
			m->fp++;
		else if (y[i])
			m->fn++;
		else
			m->tn++;
	}
	m->logloss = n ? m->logloss / n : 0.0;
	m->accuracy = n ? (double)(m->tp + m->tn) / n : 0.0;
	m->precision = m->tp + m->fp ? (double)m->tp / (m->tp + m->fp) : 0.0;
	m->recall = m->tp + m->fn ? (double)m->tp / (m->tp + m->fn) : 0.0;

	/* AUC = P(score of a positive > score of a negative): the Mann-Whitney rank sum. */
	pos = m->tp + m->fn;
	neg = m->tn + m->fp;
	m->auc = 0.5;
	if (!pos || !neg)
		return 0;
	v = malloc(sizeof(*v) * n);
	if (!v) {
		memset(m, 0, sizeof(*m));
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		v[i] = (struct scored){score[i], y[i]};
	qsort(v, n, sizeof(*v), cmp_scored);
	for (i = 0; i < n; i = j) {
		double avg_rank;
		u64 npos = 0;

		for (j = i; j < n && v[j].s == v[i].s; j++)
			npos += v[j].y;
		avg_rank = (i + 1 + j) / 2.0; /* ranks i+1..j share their mean */
		rank_sum += npos * avg_rank;
	}
	m->auc = (rank_sum - pos * (pos + 1) / 2.0) / ((double)pos * neg);
	free(v);
	return 0;
}

void mlb_metrics_print(FILE *f, const char *title, const struct mlb_metrics *m)
{
	fprintf(f, "%s: n=%llu accuracy=%.4f precision=%.4f recall=%.4f auc=%.4f logloss=%.5f\n",
		title, (unsigned long long)m->n, m->accuracy, m->precision, m->recall, m->auc,
		m->logloss);
	fprintf(f, "  confusion: tp=%llu fp=%llu fn=%llu tn=%llu\n", (unsigned long long)m->tp,
		(unsigned long long)m->fp, (unsigned long long)m->fn, (unsigned long long)m->tn);
}

void mlb_reg_metrics_compute(const double *pred, const double *t, size_t n, double base,
			     struct mlb_reg_metrics *m)
{
	double se = 0.0, be = 0.0, ae = 0.0;

	memset(m, 0, sizeof(*m));
	m->n = n;
	for (size_t i = 0; i < n; i++) {
		ae += fabs(pred[i] - t[i]);
		se += (pred[i] - t[i]) * (pred[i] - t[i]);
		be += (base - t[i]) * (base - t[i]);
	}
	if (!n)
		return;
	m->mae = ae / n;
	m->rmse = sqrt(se / n);
	m->base_rmse = sqrt(be / n);
	m->r2 = be > 0.0 ? 1.0 - se / be : 0.0;
}

void mlb_reg_metrics_print(FILE *f, const char *title, const struct mlb_reg_metrics *m)
{
	fprintf(f, "%s: n=%llu mae=%.4f rmse=%.4f base_rmse=%.4f r2=%.4f (ms)\n", title,
		(unsigned long long)m->n, m->mae, m->rmse, m->base_rmse, m->r2);
}
