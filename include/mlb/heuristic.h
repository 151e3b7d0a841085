/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The heuristic migration policy: a pure function of the decision features, compiled into
 * the BPF scheduler and into the host unit tests.
 *
 * It answers "should task p move from src to dst?" for the three kinds of decision:
 *
 * - MLB_KIND_BALANCE (the periodic balancer offers a queued task of an overloaded domain):
 *   move when the pair is imbalanced beyond the threshold (imbal_pct of the pair's mean
 *   per-CPU load within a node, numa_imbal_pct across nodes), the task is not cache-hot and
 *   has not been bouncing. The balancer only offers tasks whose move does not overshoot.
 * - MLB_KIND_PULL (an idle CPU looks at another domain's queue): a task that waits in a
 *   queue while a CPU idles should move, unless it is bouncing; across nodes the source
 *   must really be backed up (two or more queued) or the pair imbalanced.
 * - MLB_KIND_WAKEUP (a waking task's own domain has no idle CPU, dst has one): move within
 *   the node unless bouncing; across nodes only if imbalanced and the task is cold.
 *
 * "Bouncing" is task_recent_migr at or above max_recent_migr (decayed domain migrations per
 * second), the ping-pong guard.
 */
#ifndef __MLB_HEURISTIC_H
#define __MLB_HEURISTIC_H

#include "intf.h"

struct mlb_heur_params {
	u32 imbal_pct;	     /* within a node, percent of the mean per-CPU load */
	u32 numa_imbal_pct;  /* across nodes */
	u32 max_recent_migr; /* ping-pong guard, domain migrations per second */
};

/* Floor of the reference load for the imbalance test: below half a busy task per CPU,
 * percentages of a tiny mean would call noise an imbalance. */
#define MLB_IMBAL_REF_MIN (MLB_LOAD_ONE / 2)

/* mlb_imbalanced - is the src/dst pair of @f imbalanced beyond the threshold of @hp? */
static inline bool mlb_imbalanced(const struct mlb_features *f, const struct mlb_heur_params *hp)
{
	/* loads are >= 0 (clamped features); unsigned division: BPF ISA v3 has no signed one */
	u64 src = f->v[MLB_F_SRC_LOAD] > 0 ? f->v[MLB_F_SRC_LOAD] : 0;
	u64 dst = f->v[MLB_F_DST_LOAD] > 0 ? f->v[MLB_F_DST_LOAD] : 0;
	s64 ref = (s64)((src + dst) / 2);
	u32 pct = f->v[MLB_F_SAME_NODE] ? hp->imbal_pct : hp->numa_imbal_pct;

	if (ref < MLB_IMBAL_REF_MIN)
		ref = MLB_IMBAL_REF_MIN;
	return (s64)f->v[MLB_F_IMBALANCE] * 100 > (s64)pct * ref;
}

/* mlb_heuristic_decide - true to migrate. Contract: @f holds clamped features. */
static inline bool mlb_heuristic_decide(const struct mlb_features *f,
					const struct mlb_heur_params *hp)
{
	bool bouncing = f->v[MLB_F_TASK_RECENT_MIGR] >= (s32)hp->max_recent_migr;
	bool hot = f->v[MLB_F_TASK_CACHE_HOT];
	bool same_node = f->v[MLB_F_SAME_NODE];

	if (bouncing)
		return false;

	switch (f->v[MLB_F_KIND]) {
	case MLB_KIND_BALANCE:
		return !hot && mlb_imbalanced(f, hp);
	case MLB_KIND_PULL:
		if (f->v[MLB_F_SRC_NR_QUEUED] < 1)
			return false;
		return same_node || f->v[MLB_F_SRC_NR_QUEUED] >= 2 || mlb_imbalanced(f, hp);
	case MLB_KIND_WAKEUP:
		if (f->v[MLB_F_DST_IDLE] == 0)
			return false;
		return same_node || (!hot && mlb_imbalanced(f, hp));
	}
	return false;
}

#endif /* __MLB_HEURISTIC_H */
