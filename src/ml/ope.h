/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-policy evaluation of migration policies on logged decisions: what a policy (the
 * heuristic, or a wait model deciding by its predicted saving against the move's cost) would
 * have cost per decision, estimated from decisions another policy took, with the
 * probabilities it took them with. Used by the daemon's deploy gate (src/learn.c) and by
 * `mlb-model ope`.
 */
#ifndef __MLB_ML_OPE_H
#define __MLB_ML_OPE_H

#include "mlb/heuristic.h"
#include "data.h"
#include "model.h"

/* mlb_heur_defaults - @hp with the defaults of scx_mlb's options (MLB_DEF_<ID>). */
void mlb_heur_defaults(struct mlb_heur_params *hp);

/*
 * mlb_policy_cost_us - the doubly robust off-policy estimate of what a policy costs per
 * decision, in microseconds, on the logged decisions @d (features x, wait t from the decision
 * to the next run, action a taken with probability p): the policy is the model @m when not
 * NULL (mlb_saving_decide() on its score), else the heuristic @hp, the wait bound moving for
 * both as in the seam. With q(x, b) = the reward model @q's wait for action b (output b, us)
 * plus the move's cost for a move (0 for all when @q is NULL: plain inverse propensity
 * scoring), and r = min(t, MLB_WAIT_MAX_US) + a * cost, it is the mean over the rows of
 *     q(x, pi(x)) + [pi(x) == a] * (r - q(x, a)) / p
 * Unbiased when the logged probabilities are right, whatever @q; @q only lowers the
 * variance. Lower is better; 0.0 for an empty @d. @m and @q, when given, are valid wait
 * models (two outputs).
 */
double mlb_policy_cost_us(const struct mlb_model *m, const struct mlb_heur_params *hp,
			  const struct mlb_model *q, const struct mlb_dataset *d);

/* What mlb_policy_estimate() finds of one policy on logged decisions. */
struct mlb_policy_est {
	double cost_us;	  /* mlb_policy_cost_us(): the wait plus the moves' cost, per decision */
	double wait_us;	  /* the same estimate of the wait alone (no move charged) */
	double move_frac; /* the share of the logged states in which the policy moves, 0..1 */
};

/*
 * mlb_policy_estimate - mlb_policy_cost_us() of the same arguments in @e->cost_us, and in
 * @e->wait_us the same doubly robust estimate with every move's cost left out of q and r
 * (the policy still decides with @hp's costs): what its decisions would have made the tasks
 * wait. @e->move_frac: how often it would move in the logged states. All 0.0 for an empty @d.
 */
void mlb_policy_estimate(const struct mlb_model *m, const struct mlb_heur_params *hp,
			 const struct mlb_model *q, const struct mlb_dataset *d,
			 struct mlb_policy_est *e);

/* mlb_logged_cost_us - the mean realized cost of the logged decisions of @d under @hp's move
 * costs: what the policy that logged them cost (the on-policy value, to compare with). */
double mlb_logged_cost_us(const struct mlb_heur_params *hp, const struct mlb_dataset *d);

/* mlb_logged_estimate - what the logged decisions of @d cost under @hp's move costs, waited
 * and how often they moved, in the terms of struct mlb_policy_est (all 0.0 for an empty @d). */
void mlb_logged_estimate(const struct mlb_heur_params *hp, const struct mlb_dataset *d,
			 struct mlb_policy_est *e);

#endif /* __MLB_ML_OPE_H */
