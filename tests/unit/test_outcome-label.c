// SPDX-License-Identifier: GPL-2.0
/*
 * unit/outcome-label: the label rule of src/collect.c on synthetic decision/outcome pairs,
 * one table row per branch and edge, and the imitation label.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "collect.h"

#define US 1000ULL
#define MS (1000 * US)
#define S  (1000 * MS)

struct label_case {
	const char *name;
	int decision; /* 1 migrate, 0 stay */
	int hot;      /* TASK_CACHE_HOT */
	int same_llc; /* SAME_LLC */
	u64 wait_ns;
	u32 runs;
	u64 other_ns;
	u32 flags;
	s32 imbal_before, imbal_after;
	const struct mlb_label_params *p; /* NULL: the defaults */
	int want;
};

/* The defaults but the widest margin and imbalance tolerance. */
static const struct mlb_label_params wide = {
    .bounce_ns = 50 * MS,
    .slack_ns = 100 * US,
    .hot_cost_ns = 500 * US,
    .margin_pct = UINT32_MAX,
    .imbal_tol = UINT32_MAX,
};

/*
 * With the defaults (margin 10%, slack 100 us, tol 128, hot cost 500 us) and other = 1 ms the
 * bar is 1.2 ms; with other = 2 ms it is 2.3 ms.
 */
static const struct label_case cases[] = {
    {"migrate good", 1, 0, 1, 2 * MS, 4, 1 * MS, 0, 2048, 0, NULL, 1},
    {"migrate good, exactly at the bar", 1, 0, 1, 1200 * US, 1, 1 * MS, 0, 2048, 0, NULL, 1},
    {"migrate bounced back", 1, 0, 1, 2 * MS, 4, 1 * MS, MLB_OUT_MOVED_BACK, 2048, 0, NULL, 0},
    {"migrate slower than the bar", 1, 0, 1, 1201 * US, 1, 1 * MS, 0, 2048, 0, NULL, 0},
    {"migrate where imbalance grew", 1, 0, 1, 500 * US, 1, 1 * MS, 0, 100, -300, NULL, 0},
    {"migrate imbalance grew within tol", 1, 0, 1, 500 * US, 1, 1 * MS, 0, 100, -228, NULL, 1},
    {"migrate imbalance overshoot shrank", 1, 0, 1, 500 * US, 1, 1 * MS, 0, 2048, -1000, NULL, 1},
    {"hot cross-LLC migrate saving less than hot_cost", 1, 1, 0, 900 * US, 1, 1 * MS, 0, 2048, 0,
     NULL, 0},
    {"same, not hot", 1, 0, 0, 900 * US, 1, 1 * MS, 0, 2048, 0, NULL, 1},
    {"same, hot but within the LLC", 1, 1, 1, 900 * US, 1, 1 * MS, 0, 2048, 0, NULL, 1},
    {"hot cross-LLC migrate saving more than hot_cost", 1, 1, 0, 1 * MS, 1, 2 * MS, 0, 2048, 0,
     NULL, 1},
    {"stay right", 0, 0, 1, 4 * MS, 4, 1 * MS, 0, 2048, 2048, NULL, 0},
    {"stay right, exactly at the bar", 0, 0, 1, 1200 * US, 1, 1 * MS, 0, 0, 0, NULL, 0},
    {"stay wrong", 0, 0, 1, 8 * MS, 4, 1 * MS, 0, 2048, 2048, NULL, 1},
    {"stay wrong by 1 ns", 0, 0, 1, 1200 * US + 1, 1, 1 * MS, 0, 0, 0, NULL, 1},
    {"stay hot cross-LLC: moving would not pay", 0, 1, 0, 1500 * US, 1, 1 * MS, 0, 0, 0, NULL, 0},
    {"stay hot cross-LLC: moving would pay", 0, 1, 0, 1800 * US, 1, 1 * MS, 0, 0, 0, NULL, 1},
    {"migrate, nothing observed", 1, 0, 1, 0, 0, 1 * MS, 0, 0, 0, NULL, -1},
    {"stay, nothing observed", 0, 0, 1, 0, 0, 1 * MS, 0, 0, 0, NULL, -1},
    {"migrate, exited before running", 1, 0, 1, 0, 0, 1 * MS, MLB_OUT_EXITED, 0, 0, NULL, -1},
    {"stay, exited before running", 0, 0, 1, 0, 0, 1 * MS, MLB_OUT_EXITED, 0, 0, NULL, -1},
    {"stay, exited after running", 0, 0, 1, 8 * MS, 4, 1 * MS, MLB_OUT_EXITED, 0, 0, NULL, 1},
    {"huge: stay, wait and estimate at u64 max", 0, 1, 0, UINT64_MAX, 1, UINT64_MAX, 0, 0, 0, NULL,
     0},
    {"huge: migrate, wait and estimate at u64 max", 1, 1, 0, UINT64_MAX, 1, UINT64_MAX, 0, 0, 0,
     NULL, 1},
    {"huge: stay, 10 s wait, estimate overflowing the margin", 0, 0, 1, 10 * S, 1, UINT64_MAX / 50,
     0, 0, 0, NULL, 0},
    {"huge: migrate, 10 s wait, estimate overflowing the margin", 1, 0, 1, 10 * S, 1,
     UINT64_MAX / 50, 0, 0, 0, NULL, 1},
    {"huge: stay, 10 s wait over 1 run, other 0", 0, 0, 1, 10 * S, 1, 0, 0, 0, 0, NULL, 1},
    {"huge: migrate, 10 s wait over 1 run, other 0", 1, 0, 1, 10 * S, 1, 0, 0, 0, 0, NULL, 0},
    {"huge: mean of u64 max over 4G runs", 0, 0, 1, UINT64_MAX, UINT32_MAX, 1 * S, 0, 0, 0, NULL,
     1},
    {"huge: margin 4G percent of 1 s", 0, 0, 1, 100 * S, 1, 1 * S, 0, 0, 0, &wide, 0},
    {"huge: margin 4G percent of u64 max / 2^20", 1, 0, 1, 100 * S, 1, UINT64_MAX >> 20, 0, 0, 0,
     &wide, 1},
    {"imbalance extremes shrink", 1, 0, 1, 0, 1, 0, 0, INT32_MIN, INT32_MAX, NULL, 1},
    {"imbalance extremes grow", 1, 0, 1, 0, 1, 0, 0, 0, INT32_MIN, NULL, 0},
    {"imbalance extremes, tol u32 max", 1, 0, 1, 0, 1, 0, 0, 0, INT32_MIN, &wide, 1},
};

static void make_pair(const struct label_case *k, struct mlb_decision_rec *d,
		      struct mlb_outcome_rec *o)
{
	memset(d, 0, sizeof(*d));
	memset(o, 0, sizeof(*o));
	d->id = o->id = 42;
	d->decision = (u8)k->decision;
	d->heuristic = (u8)!k->decision;
	d->f.v[MLB_F_TASK_WEIGHT] = 100;
	d->f.v[MLB_F_TASK_NR_CPUS] = 8;
	d->f.v[MLB_F_NUMA_DIST] = 10;
	d->f.v[MLB_F_TASK_CACHE_HOT] = k->hot;
	d->f.v[MLB_F_SAME_LLC] = k->same_llc;
	d->f.v[MLB_F_SAME_NODE] = 1;
	o->wait_ns = k->wait_ns;
	o->first_wait_ns = k->runs ? k->wait_ns / k->runs : 0;
	o->runs = k->runs;
	o->est_other_ns = k->other_ns;
	o->flags = k->flags;
	o->imbal_before = k->imbal_before;
	o->imbal_after = k->imbal_after;
}

int main(void)
{
	struct mlb_label_params def;
	struct mlb_decision_rec d;
	struct mlb_outcome_rec o;
	size_t i;

	mlb_label_defaults(&def);
	CHECK(def.bounce_ns == 50 * MS && def.margin_pct == 10 && def.slack_ns == 100 * US &&
	      def.imbal_tol == 128 && def.hot_cost_ns == 500 * US);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct label_case *k = &cases[i];
		int got;

		make_pair(k, &d, &o);
		got = mlb_label_outcome(&d, &o, k->p ? k->p : &def);
		if (got != k->want) {
			fprintf(stderr, "case '%s': label %d, expected %d\n", k->name, got,
				k->want);
			failures++;
		}
	}

	/* The imitation label is the heuristic's choice, whatever was done and observed. */
	for (int h = 0; h <= 1; h++) {
		make_pair(&cases[0], &d, &o);
		d.heuristic = (u8)h;
		if (mlb_label_imitation(&d) != h) {
			fprintf(stderr, "case 'imitation, heuristic %d': label %d\n", h,
				mlb_label_imitation(&d));
			failures++;
		}
	}

	printf("%zu label cases, %d failures\n", i + 2, failures);
	return failures != 0;
}
