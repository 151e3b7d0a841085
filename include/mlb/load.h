/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Load arithmetic shared by the BPF scheduler and its host unit tests. Integer only.
 *
 * Decayed averages. A task's duty cycle is the fraction of time it was runnable, averaged
 * with an exponential decay of half-life H: after an interval dt spent in state s (0 or
 * MLB_FRAC_ONE), the average a moves towards s as
 *
 *     a' = s + (a - s) * 2^(-dt / H)
 *
 * 2^(-dt/H) is computed as a right shift by the whole half-lives n = dt / H, times the
 * linear approximation 2^(-x) ~= 1 - x/2 for the remaining fraction x = (dt mod H) / H in
 * [0, 1). The approximation is exact at x = 0 and x = 1 and at most 0.043 too high in
 * between, so a decays a little slower than the ideal exponential; it is monotone in dt,
 * stays inside [min(a, s), max(a, s)], and needs one 64-bit multiply and divide.
 *
 * Load. A task's load is weight * duty / MLB_WEIGHT_DFL in MLB_LOAD_ONE units: an always
 * runnable nice-0 task has load MLB_LOAD_ONE. A domain's load is the sum over its runnable
 * tasks of their weights (the instantaneous runnable weight), smoothed per balance round by
 * mlb_ewma(); per-CPU load divides by the domain's CPU count.
 */
#ifndef __MLB_LOAD_H
#define __MLB_LOAD_H

#include "intf.h"

/* mlb_decay_toward - move @avg toward @target over @dt_ns with half-life @half_life_ns.
 * Contract: half_life_ns > 0; avg, target <= 2^31; the result lies between avg and target. */
static inline u32 mlb_decay_toward(u32 avg, u32 target, u64 dt_ns, u64 half_life_ns)
{
	u64 n = dt_ns / half_life_ns;
	u64 rem = dt_ns - n * half_life_ns;
	u64 diff;

	if (n >= 32)
		return target;
	if (avg >= target) {
		diff = (u64)(avg - target) >> n;
		diff -= diff * rem / (2 * half_life_ns);
		return target + (u32)diff;
	}
	diff = (u64)(target - avg) >> n;
	diff -= diff * rem / (2 * half_life_ns);
	return target - (u32)diff;
}

/* mlb_task_load - load of a task of sched_ext @weight (100 = nice 0) and @duty
 * (MLB_FRAC_ONE = always runnable), in MLB_LOAD_ONE units. */
static inline u64 mlb_task_load(u32 weight, u32 duty)
{
	return (u64)weight * duty / MLB_WEIGHT_DFL;
}

/* mlb_weight_to_load - runnable weight sum to MLB_LOAD_ONE units. */
static inline u64 mlb_weight_to_load(u64 weight_sum)
{
	return weight_sum * MLB_LOAD_ONE / MLB_WEIGHT_DFL;
}

/* mlb_ewma - one smoothing step of a domain load: 3/4 old + 1/4 new, rounded toward the
 * sample so that a constant input is reached exactly, from above or below. */
static inline u64 mlb_ewma(u64 avg, u64 sample)
{
	if (sample >= avg)
		return (3 * avg + sample + 3) / 4;
	return (3 * avg + sample) / 4;
}

/* mlb_clamp - clamp @v to [@lo, @hi]; every feature goes through it. */
static inline s32 mlb_clamp(s64 v, s32 lo, s32 hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return (s32)v;
}

#endif /* __MLB_LOAD_H */
