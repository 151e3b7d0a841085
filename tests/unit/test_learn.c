// SPDX-License-Identifier: GPL-2.0
/*
 * unit/learn: the daemon's model decisions (src/learn.c) against a real BPF array map on the
 * host kernel (the BPF side's `models` map, two slots of struct mlb_nn_model):
 *  - mlb_deploy() writes the slot not in use, publishes it with the generation, and leaves
 *    the sequence number even (no swap under way); mlb_undeploy() sets generation 0;
 *  - mlb_learner_observe(): with a model live, its decisions' realized cost above 120% of the
 *    control share's (and 100 us more) rolls back after bad_intervals checks in a row, with
 *    the numbers in the line; a good check resets the count; nothing is judged with too few
 *    control decisions or without a model;
 *  - mlb_policy_accuracy() of the heuristic and of a model against hand-made labels;
 *  - mlb_policy_cost_us(), the doubly robust estimate, on logged decisions where it is exact;
 *  - the deploy gate, mlb_learner_consider(): a candidate whose estimated cost per decision
 *    is above the heuristic's or the live model's is rejected (rejected count, generation
 *    and map unchanged), a better one is deployed;
 *  - the state directory and model files: group- or world-writable ones are refused.
 * Exit 77 only when BPF maps cannot be created here (no permission).
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "learn.h"
#include "check.h"

/* A model that says "migrate" exactly when feature 0 (task_weight) is above 100. */
static void weight_model(struct mlb_model *m)
{
	struct mlb_nn_layer *ly = &m->nn.layer[0];

	memset(m, 0, sizeof(*m));
	m->nn.magic = MLB_NN_MAGIC;
	m->nn.n_in = MLB_NR_FEATURES;
	m->nn.n_layers = 1;
	m->nn.n_out = 1;
	for (int i = 0; i < MLB_NR_FEATURES; i++) {
		const struct mlb_feature_desc *d = &mlb_feature_descs[i];

		snprintf(m->feature[i], MLB_MODEL_NAME_LEN, "%s", d->name);
		m->nn.norm[i].lo = d->min;
		m->nn.norm[i].hi = d->max;
		m->nn.norm[i].offset = i == 0 ? 100 : d->min;
		/* input 0: (w - 100) in Q4.11 with 1.0 per unit of weight, others ignored */
		m->nn.norm[i].mult = i == 0 ? 1 << MLB_NN_IN_FRAC : 0;
	}
	ly->n_in = MLB_NR_FEATURES;
	ly->n_out = 1;
	ly->w_frac = 0;
	ly->out_frac = MLB_NN_IN_FRAC;
	ly->shift = 0;
	ly->relu = 0;
	mlb_nn_set_weight(ly, 0, 0, 1);
	snprintf(m->meta.label, MLB_MODEL_NAME_LEN, "label");
}

/* One learner check after a second of decisions: @nm of the model's costing @cm us each and
 * @nc of the control share's costing @cc us each, added to the collector counters @cs. */
static int check_once(struct mlb_learner *l, struct mlb_model_slots *s,
		      struct mlb_collect_stats *cs, u64 nm, u64 cm, u64 nc, u64 cc, char *msg)
{
	cs->by_decider[MLB_BY_MODEL] += nm;
	cs->cost_us[MLB_BY_MODEL] += nm * cm;
	cs->by_decider[MLB_BY_CONTROL] += nc;
	cs->cost_us[MLB_BY_CONTROL] += nc * cc;
	cs->by_decider[MLB_BY_HEURISTIC] += 7; /* the others are not compared */
	cs->cost_us[MLB_BY_HEURISTIC] += 7 * 99999;
	return mlb_learner_observe(l, s, cs, msg, 512);
}

/* A wait model: output 0, the wait if it stays, is @sign * (weight - 100) ms (saturated at
 * +-16), output 1, the wait if it moves, 0: with sign 1 it moves the tasks heavier than
 * nice 0. */
static void wait_model(struct mlb_model *m, int sign)
{
	weight_model(m);
	m->nn.n_out = 2;
	m->nn.layer[0].n_out = 2;
	mlb_nn_set_weight(&m->nn.layer[0], 0, 0, sign);
	snprintf(m->meta.label, MLB_MODEL_NAME_LEN, "%s", MLB_TARGET_WAIT);
}

int main(void)
{
	static struct mlb_model m, got;
	static struct mlb_nn_model slot_val;
	struct mlb_heur_params hp = {10, 20, 8};
	volatile u64 seq = 0;
	volatile u32 slot = 0, gen = 0;
	struct mlb_model_slots s = {.seq = &seq, .slot = &slot, .gen = &gen};
	struct mlb_learn_opts o;
	struct mlb_learner l;
	struct mlb_collect_stats cs = {};
	char err[256], msg[512], dir[] = "/tmp/mlb-learn-XXXXXX", path[300];
	s32 x[4][MLB_NR_FEATURES] = {};
	u8 y[4] = {1, 0, 0, 1};
	u32 key;
	int fd;

	s.map_fd =
	    bpf_map_create(BPF_MAP_TYPE_ARRAY, "models", 4, sizeof(struct mlb_nn_model), 2, NULL);
	if (s.map_fd < 0) {
		printf("cannot create a BPF map here (%s): skipped\n", strerror(errno));
		return errno == EPERM || errno == EACCES ? 77 : 1;
	}
	weight_model(&m);
	CHECK(mlb_model_validate(&m, err, sizeof(err)) == 0);

	/* deploy, undeploy: the slot not in use, then the other one */
	CHECK(mlb_deploy(&s, &m.nn, 1) == 0);
	CHECK(slot == 1 && gen == 1 && seq == 2);
	key = 1;
	CHECK(bpf_map_lookup_elem(s.map_fd, &key, &slot_val) == 0);
	CHECK(!memcmp(&slot_val, &m.nn, sizeof(m.nn)));
	CHECK(mlb_deploy(&s, &m.nn, 2) == 0);
	CHECK(slot == 0 && gen == 2 && seq == 4);
	mlb_undeploy(&s);
	CHECK(gen == 0 && seq == 6);

	/* accuracy: rows with weight 200, 50, 100, 300 and labels 1 0 0 1 */
	x[0][MLB_F_TASK_WEIGHT] = 200;
	x[1][MLB_F_TASK_WEIGHT] = 50;
	x[2][MLB_F_TASK_WEIGHT] = 100;
	x[3][MLB_F_TASK_WEIGHT] = 300;
	for (int k = 0; k < 4; k++) {
		x[k][MLB_F_TASK_NR_CPUS] = 4;
		x[k][MLB_F_NUMA_DIST] = 10;
		x[k][MLB_F_KIND] = MLB_KIND_BALANCE; /* no imbalance: the heuristic stays */
	}
	CHECK(mlb_policy_accuracy(&m, &hp, &x[0][0], y, 4) == 1.0);
	CHECK(mlb_policy_accuracy(NULL, &hp, &x[0][0], y, 4) == 0.5);

	/*
	 * Rollback: the live model against the control share, under the same load at the same
	 * time. Each check feeds the decisions of one second: @nm of the model's costing @cm us
	 * each, @nc of the control share's costing @cc us each.
	 */
	mlb_learn_defaults(&o, &hp);
	/* no model live: nothing is judged, whatever the numbers */
	mlb_learner_init(&l, &o, NULL);
	for (int i = 0; i < 5; i++)
		CHECK(check_once(&l, &s, &cs, 100, 5000, 40, 500, msg) == 0);
	CHECK(l.rollbacks == 0 && l.n_model == 0.0);
	/* a model costing twice the control: back to the heuristic at the third check */
	CHECK(mlb_learner_adopt(&l, &s, &m, false, err, sizeof(err)) == 0);
	CHECK(l.live && gen == 1 && l.generations == 1);
	CHECK(check_once(&l, &s, &cs, 100, 1000, 40, 500, msg) == 0 && l.bad_run == 1);
	CHECK(check_once(&l, &s, &cs, 100, 1000, 40, 500, msg) == 0 && l.bad_run == 2);
	CHECK(check_once(&l, &s, &cs, 100, 1000, 40, 500, msg) == 1);
	CHECK(!l.live && gen == 0 && l.rollbacks == 1 && strstr(msg, "rollback: generation 1"));
	CHECK(strstr(msg, "cost 1000 us each") && strstr(msg, "control share's 500 us"));
	/* one good check in between resets the count */
	CHECK(mlb_learner_adopt(&l, &s, &m, false, err, sizeof(err)) == 0 && gen == 2);
	CHECK(check_once(&l, &s, &cs, 100, 1000, 40, 500, msg) == 0);
	CHECK(check_once(&l, &s, &cs, 100, 1000, 40, 500, msg) == 0 && l.bad_run == 2);
	CHECK(check_once(&l, &s, &cs, 2000, 0, 40, 500, msg) == 0 && l.bad_run == 0);
	CHECK(l.live && gen == 2);
	mlb_learner_free(&l);
	/* within the limits: 116% of the control's cost; 150% but only 50 us more */
	for (int k = 0; k < 2; k++) {
		memset(&cs, 0, sizeof(cs)); /* a new learner goes with a new collector */
		mlb_learner_init(&l, &o, NULL);
		CHECK(mlb_learner_adopt(&l, &s, &m, false, err, sizeof(err)) == 0);
		for (int i = 0; i < 8; i++)
			CHECK(check_once(&l, &s, &cs, 100, k ? 150 : 580, 40, k ? 100 : 500, msg) ==
			      0);
		CHECK(l.live && l.rollbacks == 0 && l.bad_run == 0);
		mlb_learner_free(&l);
	}
	/* too few control decisions to tell (2 a second: 20 recent at most): no judgement */
	memset(&cs, 0, sizeof(cs));
	mlb_learner_init(&l, &o, NULL);
	CHECK(mlb_learner_adopt(&l, &s, &m, false, err, sizeof(err)) == 0);
	for (int i = 0; i < 10; i++)
		CHECK(check_once(&l, &s, &cs, 100, 5000, 2, 500, msg) == 0);
	CHECK(l.live && l.rollbacks == 0 && l.n_ctrl < o.min_compare);
	mlb_learner_free(&l);

	/*
	 * The deploy gate, on logged decisions of the heuristic (it stays; 2% explored moves):
	 * a heavy task (weight 200) waits 10 ms if it stays and 0 if it moves, a light one
	 * (weight 50) the reverse. Rows in the logged proportions (49 stays, 1 move of each),
	 * so that the doubly robust estimate is exact whatever the reward model: the heuristic
	 * costs 5 ms a decision, a wait model moving the heavy tasks 0, its mirror image 10 ms.
	 */
	{
		static struct mlb_model better, worse;
		struct mlb_dataset hold = {};
		s32 row[MLB_NR_FEATURES] = {};

		wait_model(&better, 1);
		wait_model(&worse, -1);
		CHECK(mlb_model_validate(&better, err, sizeof(err)) == 0);
		CHECK(mlb_model_validate(&worse, err, sizeof(err)) == 0);
		row[MLB_F_TASK_NR_CPUS] = 4;
		row[MLB_F_NUMA_DIST] = 10;
		row[MLB_F_KIND] = MLB_KIND_BALANCE;
		for (int k = 0; k < 100; k++) {
			int heavy = k & 1, move = k >= 98;

			row[MLB_F_TASK_WEIGHT] = heavy ? 200 : 50;
			CHECK(mlb_dataset_push_act(&hold, row, heavy == move ? 0 : 10000, move,
						   move ? 20000 : 980000) == 0);
		}
		CHECK(fabs(mlb_policy_cost_us(NULL, &hp, &better, &hold) - 5000.0) < 1e-6);
		CHECK(fabs(mlb_policy_cost_us(NULL, &hp, &worse, &hold) - 5000.0) < 1e-6);
		CHECK(fabs(mlb_policy_cost_us(NULL, &hp, NULL, &hold) - 5000.0) < 1e-6);
		CHECK(fabs(mlb_policy_cost_us(&better, &hp, &better, &hold)) < 1e-6);
		CHECK(fabs(mlb_policy_cost_us(&better, &hp, &worse, &hold)) < 1e-6);
		CHECK(fabs(mlb_policy_cost_us(&worse, &hp, &worse, &hold) - 10000.0) < 1e-6);
		/* mlb_policy_estimate(): with a move charged 1 ms (another node at distance
		 * 10), the better model still moves the heavy half: it waits 0 and costs
		 * 0.5 ms a decision, whichever reward model; the heuristic never moves; the
		 * logged decisions waited 5 ms, moved 2 in 100 and cost 5 ms + 2 x 1 ms / 100 */
		{
			struct mlb_heur_params hc = hp;
			struct mlb_policy_est e;

			hc.move_cost_node_us = 1000;
			for (int k = 0; k < 2; k++) {
				mlb_policy_estimate(&better, &hc, k ? &worse : &better, &hold, &e);
				CHECK(fabs(e.wait_us) < 1e-6 && fabs(e.cost_us - 500.0) < 1e-6);
				CHECK(e.move_frac == 0.5);
			}
			mlb_policy_estimate(NULL, &hc, &better, &hold, &e);
			CHECK(fabs(e.wait_us - 5000.0) < 1e-6 && fabs(e.cost_us - 5000.0) < 1e-6);
			CHECK(e.move_frac == 0.0);
			mlb_logged_estimate(&hc, &hold, &e);
			CHECK(fabs(e.wait_us - 5000.0) < 1e-6 && fabs(e.cost_us - 5020.0) < 1e-6);
			CHECK(fabs(e.move_frac - 0.02) < 1e-12);
			/* charged 20 ms, no move saves enough: the better model stays too */
			hc.move_cost_node_us = 20000;
			mlb_policy_estimate(&better, &hc, &better, &hold, &e);
			CHECK(e.move_frac == 0.0 && fabs(e.wait_us - 5000.0) < 1e-6);
		}
		mlb_learner_init(&l, &o, NULL);
		gen = 0;
		/* worse than the heuristic: rejected, nothing deployed */
		CHECK(mlb_learner_consider(&l, &s, &worse, &hold, msg, sizeof(msg)) == 0);
		CHECK(l.rejected == 1 && l.gen == 0 && gen == 0 && !l.live);
		CHECK(strstr(msg, "kept the heuristic") && strstr(msg, "10000.0 us/decision"));
		/* better: deployed as generation 1 */
		CHECK(mlb_learner_consider(&l, &s, &better, &hold, msg, sizeof(msg)) == 1);
		CHECK(l.rejected == 1 && l.gen == 1 && gen == 1 && l.live);
		CHECK(strstr(msg, "generation 1 deployed") &&
		      strstr(msg, "5000.0 us for the heuristic"));
		key = slot;
		CHECK(bpf_map_lookup_elem(s.map_fd, &key, &slot_val) == 0);
		CHECK(!memcmp(&slot_val, &better.nn, sizeof(better.nn)));
		/* worse than the live model: rejected, generation unchanged */
		CHECK(mlb_learner_consider(&l, &s, &worse, &hold, msg, sizeof(msg)) == 0);
		CHECK(l.rejected == 2 && l.gen == 1 && gen == 1 && strstr(msg, "the live model"));
		/* a one-output model is no wait model: refused */
		CHECK(mlb_learner_consider(&l, &s, &m, &hold, msg, sizeof(msg)) == -EINVAL);
		CHECK(l.gen == 1 && gen == 1);
		mlb_learner_free(&l);
		mlb_dataset_free(&hold);
	}

	/* state directory and model file permissions */
	CHECK(mkdtemp(dir) != NULL);
	CHECK(mlb_state_dir_open(dir, err, sizeof(err)) == 0); /* 0700 from mkdtemp */
	chmod(dir, 0770);
	CHECK(mlb_state_dir_open(dir, err, sizeof(err)) == -EPERM && strstr(err, "writable"));
	chmod(dir, 0750);
	snprintf(path, sizeof(path), "%s/sub/state", dir);
	CHECK(mlb_state_dir_open(path, err, sizeof(err)) == 0); /* created, parents too */
	snprintf(path, sizeof(path), "%s/model.mlb", dir);
	CHECK(mlb_model_save(path, &m, err, sizeof(err)) == 0);
	chmod(path, 0644);
	CHECK(mlb_model_load_checked(path, false, &got, err, sizeof(err)) == 0);
	CHECK(!memcmp(&got.nn, &m.nn, sizeof(m.nn)));
	chmod(path, 0664);
	CHECK(mlb_model_load_checked(path, false, &got, err, sizeof(err)) == -EPERM);
	CHECK(strstr(err, path) && !strchr(err, '\n'));
	CHECK(mlb_model_load_checked(path, true, &got, err, sizeof(err)) == 0);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && write(fd, "junk", 4) == 4);
	close(fd);
	CHECK(mlb_model_load_checked(path, true, &got, err, sizeof(err)) < 0);
	unlink(path);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
	close(s.map_fd);
	printf("learn: %d failures\n", failures);
	return failures ? 1 : 0;
}
