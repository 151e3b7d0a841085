// SPDX-License-Identifier: GPL-2.0
/*
 * unit/load: the load arithmetic of include/mlb/load.h against a floating-point reference,
 * and the heuristic policy of include/mlb/heuristic.h on hand-made decisions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlb/intf.h"
#include "mlb/load.h"
#include "mlb/heuristic.h"
#include "check.h"

/* The decay against 2^(-dt/H): within 4.5% of the distance (+1 for truncation), inside the
 * interval, monotone in dt. */
static void test_decay(void)
{
	const u64 H = 250000000ULL;
	double worst = 0;

	srand(1);
	for (int i = 0; i < 200000; i++) {
		u32 a = rand() % (MLB_FRAC_ONE + 1), s = (rand() & 1) ? MLB_FRAC_ONE : 0;
		u64 dt = (u64)rand() * 37 % (12 * H);
		u32 got = mlb_decay_toward(a, s, dt, H), later;
		double ref = s + ((double)a - s) * pow(2.0, -(double)dt / H);
		double dist = fabs((double)a - s);

		/* one unit of integer truncation besides the approximation */
		if (dist >= 64 && (fabs(got - ref) - 1) / dist > worst)
			worst = (fabs(got - ref) - 1) / dist;
		CHECK(fabs(got - ref) <= 0.045 * dist + 1);
		CHECK(got >= (a < s ? a : s) && got <= (a > s ? a : s));
		later = mlb_decay_toward(a, s, dt + H / 7, H);
		CHECK(s > a ? later >= got : later <= got);
	}
	printf("decay: worst relative error %.4f\n", worst);
	CHECK(worst < 0.045);
	CHECK(mlb_decay_toward(1000, 0, 0, H) == 1000);
	CHECK(mlb_decay_toward(1000, 0, H, H) == 500);
	CHECK(mlb_decay_toward(0, 1024, 2 * H, H) == 768);
	CHECK(mlb_decay_toward(77, 1024, 64 * H, H) == 1024);
}

static void test_load_units(void)
{
	u64 avg = 0;

	CHECK(mlb_task_load(MLB_WEIGHT_DFL, MLB_FRAC_ONE) == MLB_LOAD_ONE);
	CHECK(mlb_task_load(2 * MLB_WEIGHT_DFL, MLB_FRAC_ONE / 2) == MLB_LOAD_ONE);
	CHECK(mlb_weight_to_load(3 * MLB_WEIGHT_DFL) == 3 * MLB_LOAD_ONE);
	for (int i = 0; i < 100; i++)
		avg = mlb_ewma(avg, 5000);
	CHECK(avg == 5000);
	for (int i = 0; i < 100; i++)
		avg = mlb_ewma(avg, 0);
	CHECK(avg == 0);
	CHECK(mlb_clamp(-5, 0, 10) == 0 && mlb_clamp(50, 0, 10) == 10 && mlb_clamp(3, 0, 10) == 3);
	CHECK(mlb_clamp(1LL << 40, -5, 5) == 5);
}

static struct mlb_features base(u32 kind)
{
	struct mlb_features f = {0};

	f.v[MLB_F_KIND] = kind;
	f.v[MLB_F_TASK_WEIGHT] = 100;
	f.v[MLB_F_SAME_NODE] = 1;
	f.v[MLB_F_NUMA_DIST] = 10;
	f.v[MLB_F_TASK_SINCE_RAN_US] = 5000;
	return f;
}

static void test_heuristic(void)
{
	struct mlb_heur_params hp = {.imbal_pct = 10, .numa_imbal_pct = 20, .max_recent_migr = 8};
	struct mlb_features f;

	/* balance: 2.0 vs 1.0 per CPU is imbalanced; 1.05 vs 1.0 is not (10% of 1.025). */
	f = base(MLB_KIND_BALANCE);
	f.v[MLB_F_SRC_LOAD] = 2048, f.v[MLB_F_DST_LOAD] = 1024, f.v[MLB_F_IMBALANCE] = 1024;
	CHECK(mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_TASK_CACHE_HOT] = 1; /* a hot task stays */
	CHECK(!mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_TASK_CACHE_HOT] = 0, f.v[MLB_F_TASK_RECENT_MIGR] = 8; /* bouncing stays */
	CHECK(!mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_TASK_RECENT_MIGR] = 0;
	f.v[MLB_F_SRC_LOAD] = 1075, f.v[MLB_F_DST_LOAD] = 1024, f.v[MLB_F_IMBALANCE] = 51;
	CHECK(!mlb_heuristic_decide(&f, &hp));
	/* across nodes 15% is under the NUMA threshold, 30% over it */
	f.v[MLB_F_SAME_NODE] = 0;
	f.v[MLB_F_SRC_LOAD] = 1178, f.v[MLB_F_DST_LOAD] = 1024, f.v[MLB_F_IMBALANCE] = 154;
	CHECK(!mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_SRC_LOAD] = 1331, f.v[MLB_F_IMBALANCE] = 307;
	CHECK(mlb_heuristic_decide(&f, &hp));
	/* tiny loads: the reference floor keeps noise from counting */
	f = base(MLB_KIND_BALANCE);
	f.v[MLB_F_SRC_LOAD] = 40, f.v[MLB_F_DST_LOAD] = 0, f.v[MLB_F_IMBALANCE] = 40;
	CHECK(!mlb_heuristic_decide(&f, &hp));

	/* pull: a queued task moves to an idle CPU of its node; across nodes only if backed up */
	f = base(MLB_KIND_PULL);
	CHECK(!mlb_heuristic_decide(&f, &hp)); /* nothing queued */
	f.v[MLB_F_SRC_NR_QUEUED] = 1;
	CHECK(mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_SAME_NODE] = 0;
	CHECK(!mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_SRC_NR_QUEUED] = 2;
	CHECK(mlb_heuristic_decide(&f, &hp));

	/* wake-up: only to an idle destination; across nodes only cold and imbalanced */
	f = base(MLB_KIND_WAKEUP);
	CHECK(!mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_DST_IDLE] = 1;
	CHECK(mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_SAME_NODE] = 0;
	f.v[MLB_F_SRC_LOAD] = 3072, f.v[MLB_F_DST_LOAD] = 0, f.v[MLB_F_IMBALANCE] = 3072;
	CHECK(mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_TASK_CACHE_HOT] = 1;
	CHECK(!mlb_heuristic_decide(&f, &hp));

	f.v[MLB_F_KIND] = 7; /* unknown kinds never migrate */
	CHECK(!mlb_heuristic_decide(&f, &hp));
}

int main(void)
{
	test_decay();
	test_load_units();
	test_heuristic();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
