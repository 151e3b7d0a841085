/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small deterministic random number generator (splitmix64) for the trainer, the synthetic
 * data and the tests: the same seed gives the same stream on every machine.
 */
#ifndef __MLB_ML_RNG_H
#define __MLB_ML_RNG_H

#include <math.h>
#include "mlb/intf.h"

struct mlb_rng {
	u64 s;
};

/* mlb_rng_seed - start the stream of @seed (any value, 0 included). */
static inline void mlb_rng_seed(struct mlb_rng *r, u64 seed)
{
	r->s = seed ^ 0x5851f42d4c957f2dULL;
}

/* mlb_rng_next - the next 64 random bits. */
static inline u64 mlb_rng_next(struct mlb_rng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* mlb_rng_uniform - a double uniform in [0, 1), 53 random bits. */
static inline double mlb_rng_uniform(struct mlb_rng *r)
{
	return (mlb_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* mlb_rng_below - an integer uniform in [0, @n), @n >= 1 (bias below 2^-32 for n < 2^32). */
static inline u64 mlb_rng_below(struct mlb_rng *r, u64 n)
{
	return (u64)(((unsigned __int128)mlb_rng_next(r) * n) >> 64);
}

/* mlb_rng_range - an integer uniform in [@lo, @hi], @lo <= @hi. */
static inline s64 mlb_rng_range(struct mlb_rng *r, s64 lo, s64 hi)
{
	return lo + (s64)mlb_rng_below(r, (u64)(hi - lo) + 1);
}

/* mlb_rng_normal - a standard normal deviate (Box-Muller). */
static inline double mlb_rng_normal(struct mlb_rng *r)
{
	double u1 = 1.0 - mlb_rng_uniform(r), u2 = mlb_rng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif /* __MLB_ML_RNG_H */
