/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placement on CPUs of different capacities (big.LITTLE, hybrid P/E cores): which idle CPU a
 * task should take, given its class (include/mlb/class.h) and load and the candidates'
 * capacities and idleness. Integer only; compiled into the BPF scheduler (the idle CPU choice
 * of wake-ups and pushes, queues.bpf.h) and into the host unit test (unit/topology, on big/little
 * trees of fake sysfs files).
 *
 * It applies only where the machine reports asymmetric capacities: the smallest online CPU's
 * cpu_capacity (sysfs) below 7/8 of the largest's (mlb_cap_asymmetric()). Elsewhere (every
 * x86 server, the test guests) the loader leaves rodata cap_asym at 0 and the idle choice is
 * the one it always was.
 *
 * THE RULE
 * - what the task wants (mlb_place_want()): a latency-critical task, and a heavy one (load,
 *   weight x running fraction, at least half a busy nice-0 task) that is not batch, wants
 *   the highest capacity; a batch task wants the lowest (background work leaves the big CPUs
 *   to the others); the rest have no preference;
 * - each idle candidate scores its capacity band (capacity / 64, 960..1024 being the top
 *   one, counted from the top for "big", from the bottom for "little", none for no
 *   preference) times 4, plus its idle rank: 3 an
 *   SMT sibling of the CPU the task is on (shared caches), 2 a CPU whose whole core is idle,
 *   1 any other idle CPU (mlb_place_score()); busy CPUs are not candidates;
 * - the highest score wins, ties going to the first candidate in scan order
 *   (mlb_place_pick()).
 * So capacity comes first and the usual idle preference (sibling, whole core, any) orders
 * CPUs of one capacity band. It ranks, it does not filter: a latency-critical task takes a
 * little CPU when no big one idles, a batch task a big one when no little one idles. With all
 * capacities in one band the choice is exactly the usual idle preference, whatever the want.
 */
#ifndef __MLB_PLACE_H
#define __MLB_PLACE_H

#include "intf.h"
#include "class.h"

enum mlb_place_want {
	MLB_WANT_ANY = 0,    /* no capacity preference */
	MLB_WANT_BIG = 1,    /* the highest capacity */
	MLB_WANT_LITTLE = 2, /* the lowest capacity */
};

/* Idle ranks of a candidate, the usual preference. */
enum mlb_place_rank {
	MLB_RANK_BUSY = 0,    /* not a candidate */
	MLB_RANK_IDLE = 1,    /* an idle CPU */
	MLB_RANK_CORE = 2,    /* an idle CPU whose whole core is idle */
	MLB_RANK_SIBLING = 3, /* an idle SMT sibling of the task's CPU */
};

#define MLB_CAP_ONE	   1024		      /* capacity of the largest CPU (scaled) */
#define MLB_CAP_BAND_SHIFT 6		      /* capacity bands of 64 */
#define MLB_PLACE_HEAVY	   (MLB_LOAD_ONE / 2) /* load of a heavy task */
#define MLB_CAP_ASYM_NUM   7		      /* asymmetric: smallest < 7/8 of largest */
#define MLB_CAP_ASYM_DEN   8
MLB_ASSERT(MLB_CAP_ONE == MLB_FRAC_ONE, "scaled capacities are in 1024ths, as the features");
MLB_ASSERT((MLB_CAP_ONE >> MLB_CAP_BAND_SHIFT) * 4 + MLB_RANK_SIBLING < 0x7fffffff,
	   "scores fit s32");

/*
 * mlb_cap_asymmetric - do CPUs of capacities @min_cap .. @max_cap (sysfs cpu_capacity, any
 * unit) differ enough for capacity-aware placement? Small differences (a boost bin, firmware
 * rounding) do not count.
 */
static inline bool mlb_cap_asymmetric(u32 min_cap, u32 max_cap)
{
	return (u64)min_cap * MLB_CAP_ASYM_DEN < (u64)max_cap * MLB_CAP_ASYM_NUM;
}

/* mlb_place_want - what a task of class @cls (enum mlb_class) and @load (MLB_LOAD_ONE units:
 * weight x running fraction) wants of a CPU's capacity. */
static inline u32 mlb_place_want(u32 cls, u64 load)
{
	if (cls == MLB_CLASS_BATCH)
		return MLB_WANT_LITTLE;
	if (cls == MLB_CLASS_LAT || load >= MLB_PLACE_HEAVY)
		return MLB_WANT_BIG;
	return MLB_WANT_ANY;
}

/* mlb_place_score - the score of a candidate of scaled capacity @cap (0..MLB_CAP_ONE) and
 * idle rank @rank (enum mlb_place_rank) for a task that wants @want; -1 for a busy CPU. */
static inline s32 mlb_place_score(u32 want, u32 cap, u32 rank)
{
	u32 band;

	if (rank == MLB_RANK_BUSY)
		return -1;
	if (cap > MLB_CAP_ONE - 1) /* the top band is 960..1024 */
		cap = MLB_CAP_ONE - 1;
	if (rank > MLB_RANK_SIBLING)
		rank = MLB_RANK_SIBLING;
	band = want == MLB_WANT_BIG	 ? cap >> MLB_CAP_BAND_SHIFT
	       : want == MLB_WANT_LITTLE ? (MLB_CAP_ONE - cap) >> MLB_CAP_BAND_SHIFT
					 : 0;
	return (s32)(band * 4 + rank);
}

/*
 * mlb_place_pick - the index of the best of @n candidates (capacities @cap, idle ranks @rank,
 * in scan order) for a task that wants @want, or -1 when none is idle. The BPF side runs the
 * same loop over a domain's CPUs (queues.bpf.h: pick_idle_cap).
 */
static inline int mlb_place_pick(u32 want, const u32 *cap, const u32 *rank, u32 n)
{
	s32 best_score = -1, s;
	int best = -1;

	for (u32 i = 0; i < n; i++) {
		s = mlb_place_score(want, cap[i], rank[i]);
		if (s > best_score) {
			best_score = s;
			best = (int)i;
		}
	}
	return best;
}

#endif /* __MLB_PLACE_H */
