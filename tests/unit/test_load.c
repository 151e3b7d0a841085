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
	struct mlb_heur_params hp = {.imbal_pct = 10,
				     .numa_imbal_pct = 20,
				     .max_recent_migr = 8,
				     .move_cost_core_us = 10,
				     .move_cost_llc_us = 100,
				     .move_cost_xllc_us = 500,
				     .move_cost_node_us = 1000,
				     .max_wait_us = 20000};
	struct mlb_features f;

	/* the one imbalance test: 2.0 vs 1.0 per CPU is imbalanced; 1.05 vs 1.0 is not */
	CHECK(mlb_imbalance_exceeds(2048, 1024, 10));
	CHECK(!mlb_imbalance_exceeds(1075, 1024, 10));
	CHECK(!mlb_imbalance_exceeds(1024, 2048, 10)); /* only from the loaded side */
	CHECK(!mlb_imbalance_exceeds(40, 0, 10));      /* tiny loads: the reference floor */

	/* cost-aware: move when the saving exceeds the level's cost, and only then */
	f = base(MLB_KIND_PULL);
	f.v[MLB_F_SAME_LLC] = 1;
	f.v[MLB_F_SRC_WAIT_US] = 5000;
	f.v[MLB_F_TASK_WAITED_US] = 99;
	CHECK(!mlb_heuristic_decide(&f, &hp)); /* a queued task waits the move's cost first */
	f.v[MLB_F_TASK_WAITED_US] = 100;
	CHECK(mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_TASK_WAITED_US] = 1000;
	f.v[MLB_F_SRC_WAIT_US] = 101;
	CHECK(mlb_heuristic_decide(&f, &hp)); /* saves 101 us > 100 us within the LLC */
	f.v[MLB_F_SRC_WAIT_US] = 100;
	CHECK(!mlb_heuristic_decide(&f, &hp)); /* saves exactly the cost: stay */
	f.v[MLB_F_SRC_WAIT_US] = 5000, f.v[MLB_F_DST_WAIT_US] = 4950;
	CHECK(!mlb_heuristic_decide(&f, &hp)); /* the destination's wait counts */
	f.v[MLB_F_DST_WAIT_US] = 0, f.v[MLB_F_SRC_WAIT_US] = 150;
	f.v[MLB_F_TASK_CACHE_HOT] = 1;
	CHECK(!mlb_heuristic_decide(&f, &hp)); /* a hot task's move costs twice */
	f.v[MLB_F_SRC_WAIT_US] = 201;
	CHECK(mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_TASK_CACHE_HOT] = 0, f.v[MLB_F_SRC_WAIT_US] = 11, f.v[MLB_F_SAME_CORE] = 1;
	CHECK(mlb_heuristic_decide(&f, &hp)); /* SMT siblings: 10 us */
	/* another LLC of the node: 500 us; another node: 1000 us x distance / 10 */
	f = base(MLB_KIND_WAKEUP);
	f.v[MLB_F_SRC_WAIT_US] = 600;
	CHECK(mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_SAME_NODE] = 0, f.v[MLB_F_NUMA_DIST] = 20;
	CHECK(mlb_move_cost_us(&f, &hp) == 2000);
	CHECK(!mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_SRC_WAIT_US] = 2001;
	CHECK(mlb_heuristic_decide(&f, &hp));
	/* the ping-pong guard */
	f.v[MLB_F_TASK_RECENT_MIGR] = 8;
	CHECK(!mlb_heuristic_decide(&f, &hp));

	/* balance also needs the pair imbalanced: 10% within a node, 20% across */
	f = base(MLB_KIND_BALANCE);
	f.v[MLB_F_SRC_WAIT_US] = 20000;
	f.v[MLB_F_SRC_LOAD] = 2048, f.v[MLB_F_DST_LOAD] = 1024;
	CHECK(mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_SRC_LOAD] = 1075;
	CHECK(!mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_SAME_NODE] = 0, f.v[MLB_F_NUMA_DIST] = 20, f.v[MLB_F_SRC_LOAD] = 1178;
	CHECK(!mlb_heuristic_decide(&f, &hp)); /* 15% across nodes */
	f.v[MLB_F_SRC_LOAD] = 1331;
	CHECK(mlb_heuristic_decide(&f, &hp)); /* 30% */

	/* the wait bound: past it, an idle destination takes the task, guards or not */
	f = base(MLB_KIND_PULL);
	f.v[MLB_F_SAME_NODE] = 0, f.v[MLB_F_NUMA_DIST] = 40;
	f.v[MLB_F_TASK_RECENT_MIGR] = 100;
	f.v[MLB_F_TASK_WAITED_US] = 20000;
	CHECK(!mlb_heuristic_decide(&f, &hp)); /* destination busy */
	f.v[MLB_F_DST_IDLE] = 1;
	CHECK(mlb_heuristic_decide(&f, &hp));
	f.v[MLB_F_TASK_WAITED_US] = 19999;
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
