// SPDX-License-Identifier: GPL-2.0
/* Off-policy evaluation of migration policies (contracts in ope.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "mlb/options.h"
#include "ope.h"

void mlb_heur_defaults(struct mlb_heur_params *hp)
{
	_Static_assert(sizeof(struct mlb_heur_params) == 8 * sizeof(u32), "every field set below");
	hp->imbal_pct = MLB_DEF_IMBAL_PCT;
	hp->numa_imbal_pct = MLB_DEF_NUMA_IMBAL_PCT;
	hp->max_recent_migr = MLB_DEF_MAX_RECENT_MIGR;
	hp->move_cost_core_us = MLB_DEF_MOVE_COST_CORE_US;
	hp->move_cost_llc_us = MLB_DEF_MOVE_COST_LLC_US;
	hp->move_cost_xllc_us = MLB_DEF_MOVE_COST_XLLC_US;
	hp->move_cost_node_us = MLB_DEF_MOVE_COST_NODE_US;
	hp->max_wait_us = MLB_DEF_MAX_WAIT_MS * 1000;
}

/* Whether policy @m (NULL: the heuristic) moves the task of @f; the wait bound moves for both,
 * as in the seam. */
static bool policy_moves(const struct mlb_model *m, const struct mlb_heur_params *hp,
			 const struct mlb_features *f)
{
	bool go =
	    m ? mlb_saving_decide(mlb_model_score(m, f->v), f, hp) : mlb_heuristic_decide(f, hp);

	return go || mlb_wait_bound_hit(f, hp);
}

void mlb_policy_estimate(const struct mlb_model *m, const struct mlb_heur_params *hp,
			 const struct mlb_model *q, const struct mlb_dataset *d,
			 struct mlb_policy_est *e)
{
	double sum[2] = {}, moves = 0.0; /* sum[1]: with the moves' cost, sum[0]: without */

	for (size_t k = 0; k < d->n; k++) {
		struct mlb_nn_scratch s;
		struct mlb_features f;
		double cost, w[2] = {}, t;
		int pi, a = d->a[k];

		memcpy(f.v, d->x + k * MLB_NR_FEATURES, sizeof(f.v));
		cost = (double)mlb_move_cost_us(&f, hp);
		pi = policy_moves(m, hp, &f);
		moves += pi;
		if (q) { /* the reward model: its waits, in us */
			if (mlb_nn_forward(&q->nn, f.v, MLB_NR_FEATURES, &s))
				abort(); /* a valid model always runs */
			for (int b = 0; b < 2; b++)
				w[b] = mlb_nn_output(&s, b) * 1000.0 / MLB_NN_ONE;
		}
		t = d->t[k] < MLB_WAIT_MAX_US ? d->t[k] : MLB_WAIT_MAX_US;
		for (int c = 0; c < 2; c++) { /* c: the move's cost counted or not */
			double qa[2] = {w[0], w[1] + c * cost}, r = t + c * a * cost;

			sum[c] += qa[pi];
			if (pi == a) /* the logged action is the policy's: correct the model */
				sum[c] += (r - qa[a]) * MLB_PPM_ONE / (d->p[k] ? d->p[k] : 1);
		}
	}
	e->cost_us = d->n ? sum[1] / d->n : 0.0;
	e->wait_us = d->n ? sum[0] / d->n : 0.0;
	e->move_frac = d->n ? moves / d->n : 0.0;
}

double mlb_policy_cost_us(const struct mlb_model *m, const struct mlb_heur_params *hp,
			  const struct mlb_model *q, const struct mlb_dataset *d)
{
	struct mlb_policy_est e;

	mlb_policy_estimate(m, hp, q, d, &e);
	return e.cost_us;
}

void mlb_logged_estimate(const struct mlb_heur_params *hp, const struct mlb_dataset *d,
			 struct mlb_policy_est *e)
{
	double wait = 0.0, cost = 0.0, moves = 0.0;

	for (size_t k = 0; k < d->n; k++) {
		struct mlb_features f;

		memcpy(f.v, d->x + k * MLB_NR_FEATURES, sizeof(f.v));
		wait += d->t[k] < MLB_WAIT_MAX_US ? d->t[k] : MLB_WAIT_MAX_US;
		cost += d->a[k] ? (double)mlb_move_cost_us(&f, hp) : 0.0;
		moves += d->a[k];
	}
	e->cost_us = d->n ? (wait + cost) / d->n : 0.0;
	e->wait_us = d->n ? wait / d->n : 0.0;
	e->move_frac = d->n ? moves / d->n : 0.0;
}

double mlb_logged_cost_us(const struct mlb_heur_params *hp, const struct mlb_dataset *d)
{
	struct mlb_policy_est e;

	mlb_logged_estimate(hp, d, &e);
	return e.cost_us;
}
