/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The heuristic migration policy: a pure function of the decision features, compiled into
 * the BPF scheduler and into the host unit tests. Also the one imbalance test, which the
 * balancer uses to pick its domain pairs.
 *
 * Every decision is "should task p leave CPU src for CPU dst?", and the answer is cost-aware:
 *
 *     saving = src_wait_us - dst_wait_us        (the wait the move is expected to save)
 *     cost   = the cost of a move at the pair's topology level:
 *              same core (SMT siblings)  move_cost_core_us
 *              same LLC                  move_cost_llc_us
 *              same node, another LLC    move_cost_xllc_us
 *              another node              move_cost_node_us * numa_dist / 10
 *              doubled when the task is cache-hot (it ran within --migr-cost-us)
 *     move  when saving > cost
 *
 * A queued task (MLB_KIND_PULL: an idle CPU pulling it, or a push at enqueue) also needs to
 * have waited at least the move's cost already: the rent-or-buy rule of ski rental, which is
 * never worse than twice the best choice made knowing the future. An idle CPU often gets new
 * work soon (a build's make starts the next job when one ends, placed at fork for free), and
 * a task whose predicted wait was wrong is moved once it has really waited that long.
 *
 * with two guards and one bound:
 * - ping-pong: a task with max_recent_migr or more CPU changes per second (decayed) stays;
 * - balance (MLB_KIND_BALANCE) also needs the pair's domains imbalanced beyond imbal_pct of
 *   their mean per-CPU load (numa_imbal_pct across nodes), mlb_imbalance_exceeds();
 * - the wait bound: a task that has already waited max_wait_us or more moves to an idle dst
 *   whatever the rest says, so no idle CPU stays idle while a task it could run starves
 *   behind a busy one (work conservation; the guards do not apply).
 */
#ifndef __MLB_HEURISTIC_H
#define __MLB_HEURISTIC_H

#include "intf.h"

/*
 * What the model learns: the wait of a task from a decision to its next run, in
 * microseconds (the dataset column first_wait_us), for each action: a network with two
 * outputs, the predicted wait if it stays and if it moves, in ms (Q15.16), each trained on
 * the decisions that took its action (the column decision). Its score, output 0 - output 1
 * (mlb_nn_saving()), is the move's predicted saving in ms with MLB_SAVING_FRAC fraction bits.
 */
#define MLB_TARGET_WAIT	 "first_wait_us"
#define MLB_ACTION_COL	 "decision"
#define MLB_PROP_COL	 "prop_ppm"
#define MLB_SAVING_FRAC	 16
#define MLB_WAIT_MAX_US	 100000	  /* waits are clipped to 100 ms for training */
#define MLB_WAIT_READ_US 10000000 /* the reader's bound of the column */

struct mlb_heur_params {
	u32 imbal_pct;	     /* within a node, percent of the mean per-CPU load */
	u32 numa_imbal_pct;  /* across nodes */
	u32 max_recent_migr; /* ping-pong guard, CPU changes per second */
	u32 move_cost_core_us;
	u32 move_cost_llc_us;
	u32 move_cost_xllc_us;
	u32 move_cost_node_us; /* at NUMA distance 10; scaled by distance / 10 */
	u32 max_wait_us;       /* the wait bound */
};

/* Floor of the reference load for the imbalance test: below half a busy task per CPU,
 * percentages of a tiny mean would call noise an imbalance. */
#define MLB_IMBAL_REF_MIN (MLB_LOAD_ONE / 2)

/*
 * mlb_imbalance_exceeds - is per-CPU load @src above @dst by more than @pct percent of their
 * mean (at least MLB_IMBAL_REF_MIN)? Loads are >= 0 in MLB_LOAD_ONE units. The balancer and
 * the heuristic both ask this one function.
 */
static inline bool mlb_imbalance_exceeds(u64 src, u64 dst, u32 pct)
{
	u64 ref = (src + dst) / 2;

	if (ref < MLB_IMBAL_REF_MIN)
		ref = MLB_IMBAL_REF_MIN;
	return src > dst && (src - dst) * 100 > (u64)pct * ref;
}

/* mlb_move_cost_us - the cost of the move of @f at its topology level, in microseconds. */
static inline u64 mlb_move_cost_us(const struct mlb_features *f, const struct mlb_heur_params *hp)
{
	u64 cost;

	if (f->v[MLB_F_SAME_CORE])
		cost = hp->move_cost_core_us;
	else if (f->v[MLB_F_SAME_LLC])
		cost = hp->move_cost_llc_us;
	else if (f->v[MLB_F_SAME_NODE])
		cost = hp->move_cost_xllc_us;
	else
		cost = (u64)hp->move_cost_node_us * (u32)f->v[MLB_F_NUMA_DIST] / 10;
	return f->v[MLB_F_TASK_CACHE_HOT] ? 2 * cost : cost;
}

/* mlb_move_saving_us - the wait the move of @f is expected to save (negative: it costs). */
static inline s64 mlb_move_saving_us(const struct mlb_features *f)
{
	return (s64)f->v[MLB_F_SRC_WAIT_US] - (s64)f->v[MLB_F_DST_WAIT_US];
}

/* mlb_wait_bound_hit - has the task of @f waited past the bound, with @f's dst idle? */
static inline bool mlb_wait_bound_hit(const struct mlb_features *f,
				      const struct mlb_heur_params *hp)
{
	return f->v[MLB_F_DST_IDLE] && (u32)f->v[MLB_F_TASK_WAITED_US] >= hp->max_wait_us;
}

/*
 * mlb_saving_decide - the learned policy's decision: true to migrate when the model's
 * @score, its predicted saving of the move in milliseconds (Q15.16: the predicted wait if
 * the task stays minus the one if it moves), exceeds the cost of the move of @f at its
 * topology level, the
 * same cost the heuristic charges (mlb_move_cost_us()). Integer only: score * 1000 and
 * cost * 2^16 are both microseconds in Q.16, and |score| < 2^31, cost < 2^33 keep them
 * far from s64 overflow.
 */
static inline bool mlb_saving_decide(s32 score, const struct mlb_features *f,
				     const struct mlb_heur_params *hp)
{
	return (s64)score * 1000 > (s64)(mlb_move_cost_us(f, hp) << MLB_SAVING_FRAC);
}

/* mlb_heuristic_decide - true to migrate. Contract: @f holds clamped features. */
static inline bool mlb_heuristic_decide(const struct mlb_features *f,
					const struct mlb_heur_params *hp)
{
	if (mlb_wait_bound_hit(f, hp))
		return true;
	if (f->v[MLB_F_TASK_RECENT_MIGR] >= (s32)hp->max_recent_migr)
		return false;
	/* ski rental: a queued task is worth pulling once it has waited what the move costs */
	if (f->v[MLB_F_KIND] == MLB_KIND_PULL &&
	    (u64)(u32)f->v[MLB_F_TASK_WAITED_US] < mlb_move_cost_us(f, hp))
		return false;
	if (f->v[MLB_F_KIND] == MLB_KIND_BALANCE) {
		u32 pct = f->v[MLB_F_SAME_NODE] ? hp->imbal_pct : hp->numa_imbal_pct;

		if (!mlb_imbalance_exceeds(f->v[MLB_F_SRC_LOAD] > 0 ? f->v[MLB_F_SRC_LOAD] : 0,
					   f->v[MLB_F_DST_LOAD] > 0 ? f->v[MLB_F_DST_LOAD] : 0,
					   pct))
			return false;
	}
	return mlb_move_saving_us(f) > (s64)mlb_move_cost_us(f, hp);
}

#endif /* __MLB_HEURISTIC_H */
