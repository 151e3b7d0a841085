// SPDX-License-Identifier: GPL-2.0
/*
 * scx_mlb user space: deploying models, the state directory, the adaptive cycle and the
 * rollback (contracts in learn.h).
 *
 * The adaptive cycle trains in a thread of its own: training takes seconds (tens of seconds
 * in an emulated guest), and the main loop must keep draining the ring buffers meanwhile.
 * The thread only reads its private copy of the window and writes its private result; the
 * main loop starts it, polls it, and does every deployment itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "learn.h"
#include "ml/err.h"
#include "ml/train.h"
#include "ml/ope.h"

_Static_assert(MLB_SAVING_FRAC == MLB_NN_FRAC_BITS, "a saving score is the Q15.16 output");

int mlb_deploy(struct mlb_model_slots *s, const struct mlb_nn_model *nn, u32 gen)
{
	u32 next = (*s->slot & 1) ^ 1;
	u64 seq = *s->seq;
	int err = 0;

	*s->seq = seq + 1; /* odd: a swap is under way, decisions discard model answers */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (bpf_map_update_elem(s->map_fd, &next, nn, BPF_ANY)) {
		err = -errno;
	} else {
		*s->slot = next;
		*s->gen = gen;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*s->seq = seq + 2;
	return err;
}

void mlb_undeploy(struct mlb_model_slots *s)
{
	u64 seq = *s->seq;

	*s->seq = seq + 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*s->gen = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*s->seq = seq + 2;
}

int mlb_state_dir_open(const char *dir, char *err, size_t errsz)
{
	char path[PATH_MAX];
	struct stat st;
	size_t len = strlen(dir);

	if (!len || len >= sizeof(path)) {
		set_err(err, errsz, "state directory '%s': bad path", dir);
		return -EINVAL;
	}
	memcpy(path, dir, len + 1);
	/* mkdir -p, 0750 for what it creates */
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0750) && errno != EEXIST) {
			set_err(err, errsz, "state directory %s: %s", path, strerror(errno));
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(path, 0750) && errno != EEXIST) {
		set_err(err, errsz, "state directory %s: %s", path, strerror(errno));
		return -errno;
	}
	if (stat(path, &st)) {
		set_err(err, errsz, "state directory %s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		set_err(err, errsz, "state directory %s: not a directory", path);
		return -ENOTDIR;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		set_err(err, errsz, "state directory %s: group- or world-writable (mode %03o)",
			path, st.st_mode & 0777);
		return -EPERM;
	}
	return 0;
}

int mlb_model_load_checked(const char *path, bool allow_writable, struct mlb_model *out, char *err,
			   size_t errsz)
{
	return mlb_model_load_mode(path, allow_writable ? 0 : S_IWGRP | S_IWOTH, out, err, errsz);
}

void mlb_learn_defaults(struct mlb_learn_opts *o, const struct mlb_heur_params *heur)
{
	memset(o, 0, sizeof(*o));
	o->retrain_s = MLB_DEF_RETRAIN_S;
	o->retrain_samples = MLB_DEF_RETRAIN_SAMPLES;
	o->min_samples = MLB_DEF_MIN_SAMPLES;
	o->holdout_pct = 20;
	o->epochs = 15;
	o->cost_factor_pct = 120;
	o->min_compare = 30;
	o->bad_intervals = 3;
	o->heur = *heur;
}

double mlb_policy_accuracy(const struct mlb_model *m, const struct mlb_heur_params *hp,
			   const s32 *x, const u8 *y, size_t n)
{
	size_t right = 0;

	for (size_t k = 0; k < n; k++) {
		const s32 *row = x + k * MLB_NR_FEATURES;
		int go;

		if (m) {
			go = mlb_model_score(m, row) > 0;
		} else {
			struct mlb_features f;

			memcpy(f.v, row, sizeof(f.v));
			go = mlb_heuristic_decide(&f, hp);
		}
		right += go == y[k];
	}
	return n ? (double)right / n : 1.0;
}

/* The gate's verdict on @cand, estimated at @c_new us/decision against @c_cur for the
 * incumbent on @n held-out decisions: see mlb_learner_consider(). */
static int gate(struct mlb_learner *l, struct mlb_model_slots *s, const struct mlb_model *cand,
		size_t n, double c_new, double c_cur, char *msg, size_t msgsz)
{
	const char *was = l->live ? "the live model" : "the heuristic";
	char err[256];

	if (c_new > c_cur + 1e-9) {
		l->rejected++;
		snprintf(msg, msgsz,
			 "retrain: kept %s: candidate costs %.1f us/decision > %.1f us on %zu "
			 "recent decisions (doubly robust estimate)",
			 was, c_new, c_cur, n);
		return 0;
	}
	if (mlb_learner_adopt(l, s, cand, true, err, sizeof(err))) {
		snprintf(msg, msgsz, "retrain: deploy failed: %s", err);
		return -EIO;
	}
	l->live_cost = c_new;
	snprintf(msg, msgsz,
		 "retrain: generation %u deployed: costs %.1f us/decision vs %.1f us for %s on "
		 "%zu recent decisions (doubly robust estimate)",
		 l->gen, c_new, c_cur, was, n);
	return 1;
}

int mlb_learner_consider(struct mlb_learner *l, struct mlb_model_slots *s,
			 const struct mlb_model *cand, const struct mlb_dataset *hold, char *msg,
			 size_t msgsz)
{
	if (cand->nn.n_out != 2) {
		snprintf(msg, msgsz, "retrain: no model: %u outputs, the wait model has 2",
			 cand->nn.n_out);
		return -EINVAL;
	}
	/* one reward model for both, the candidate's: the comparison is of the policies */
	return gate(l, s, cand, hold->n, mlb_policy_cost_us(cand, &l->o.heur, cand, hold),
		    mlb_policy_cost_us(l->live, &l->o.heur, cand, hold), msg, msgsz);
}

/* ---- the trainer thread ------------------------------------------------------------- */

struct train_job {
	pthread_t thread;
	struct mlb_dataset train; /* private copy: the window minus the hold-out */
	struct mlb_dataset hold;  /* private copy: the most recent samples */
	u32 epochs;
	struct mlb_heur_params heur; /* the costs of the gate's estimates */
	struct mlb_model live;	     /* copy of the live model at the start ... */
	int has_live;		     /* ... if there was one, */
	u32 gen;		     /* and its generation */
	struct mlb_model model;	     /* result */
	int ret;		     /* mlb_train_model()'s */
	char err[256];
	double c_new, c_cur; /* the gate's estimates for the result and the live policy: here,
			      * not in the main loop, which must keep reading the rings */
	int done;	     /* set (release) when the thread finished */
};

static struct train_job *job; /* one at a time */

static void *train_main(void *arg)
{
	struct train_job *j = arg;
	struct mlb_train_opts to;
	struct mlb_train_report rep;

	mlb_train_defaults(&to);
	to.mlp.epochs = j->epochs;
	j->ret = mlb_train_model(&j->train, &to, &j->model, &rep, j->err, sizeof(j->err));
	if (!j->ret && j->model.nn.n_out == 2) {
		j->c_new = mlb_policy_cost_us(&j->model, &j->heur, &j->model, &j->hold);
		j->c_cur = mlb_policy_cost_us(j->has_live ? &j->live : NULL, &j->heur, &j->model,
					      &j->hold);
	}
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int copy_rows(struct mlb_dataset *dst, const struct mlb_dataset *src, size_t from, size_t n)
{
	for (size_t k = from; k < from + n; k++)
		if (mlb_dataset_push_act(dst, src->x + k * MLB_NR_FEATURES, src->t[k], src->a[k],
					 src->p[k]))
			return -ENOMEM;
	return 0;
}

static void job_free(struct train_job *j)
{
	if (!j)
		return;
	mlb_dataset_free(&j->train);
	mlb_dataset_free(&j->hold);
	free(j);
}

/* Start training on @win if due and possible; a message in @msg when something is said. */
static void job_start(struct mlb_learner *l, const struct mlb_dataset *win, u64 nr_samples,
		      double now, char *msg, size_t msgsz)
{
	size_t n = win->n, nh = n * l->o.holdout_pct / 100, nt = n - nh, pos = 0;

	if (n < l->o.min_samples)
		return;
	if (now - l->last_train < l->o.retrain_s &&
	    nr_samples - l->samples_at_train < l->o.retrain_samples)
		return;
	l->last_train = now;
	l->samples_at_train = nr_samples;
	for (size_t k = 0; k < nt; k++)
		pos += win->a[k];
	if (pos < 10 || nt - pos < 10) {
		snprintf(msg, msgsz,
			 "retrain: skipped, %zu moves and %zu stays (10 of each needed)", pos,
			 nt - pos);
		return;
	}
	job = calloc(1, sizeof(*job));
	if (!job || copy_rows(&job->train, win, 0, nt) || copy_rows(&job->hold, win, nt, nh)) {
		snprintf(msg, msgsz, "retrain: out of memory");
		job_free(job);
		job = NULL;
		return;
	}
	job->epochs = l->o.epochs;
	job->heur = l->o.heur;
	job->has_live = l->live != NULL;
	if (l->live)
		job->live = *l->live;
	job->gen = l->gen;
	if (pthread_create(&job->thread, NULL, train_main, job)) {
		snprintf(msg, msgsz, "retrain: cannot start the trainer thread");
		job_free(job);
		job = NULL;
		return;
	}
	snprintf(msg, msgsz, "retrain: training on %zu samples, %zu held out", nt, nh);
}

/* Collect a finished job: gate and deploy. Returns 1 if deployed. */
static int job_finish(struct mlb_learner *l, struct mlb_model_slots *s, char *msg, size_t msgsz)
{
	int ret = 0;

	if (!job || !__atomic_load_n(&job->done, __ATOMIC_ACQUIRE))
		return 0;
	pthread_join(job->thread, NULL);
	if (job->ret)
		snprintf(msg, msgsz, "retrain: no model: %s", job->err);
	else if (job->gen == l->gen && job->has_live == (l->live != NULL) &&
		 job->model.nn.n_out == 2)
		ret = gate(l, s, &job->model, job->hold.n, job->c_new, job->c_cur, msg, msgsz) == 1;
	else /* the live policy changed while it trained (a rollback): estimate again */
		ret = mlb_learner_consider(l, s, &job->model, &job->hold, msg, msgsz) == 1;
	job_free(job);
	job = NULL;
	return ret;
}

static void compare_reset(struct mlb_learner *l);

/* ---- the learner ----------------------------------------------------------------------- */

void mlb_learner_init(struct mlb_learner *l, const struct mlb_learn_opts *o, const char *state_dir)
{
	memset(l, 0, sizeof(*l));
	l->o = *o;
	l->state_dir = state_dir;
	l->live_cost = 0.0;
}

void mlb_learner_free(struct mlb_learner *l)
{
	if (job) {
		pthread_join(job->thread, NULL);
		job_free(job);
		job = NULL;
	}
	free(l->live);
	l->live = NULL;
}

/* Save @m as the state directory's model.mlb, the old one becoming model.prev.mlb. */
static int save_current(const char *dir, const struct mlb_model *m, char *err, size_t errsz)
{
	char cur[PATH_MAX], prev[PATH_MAX];

	if (snprintf(cur, sizeof(cur), "%s/model.mlb", dir) >= (int)sizeof(cur) ||
	    snprintf(prev, sizeof(prev), "%s/model.prev.mlb", dir) >= (int)sizeof(prev)) {
		set_err(err, errsz, "%s: path too long", dir);
		return -ENAMETOOLONG;
	}
	if (rename(cur, prev) && errno != ENOENT) {
		set_err(err, errsz, "%s: %s", prev, strerror(errno));
		return -errno;
	}
	return mlb_model_save(cur, m, err, errsz);
}

int mlb_learner_adopt(struct mlb_learner *l, struct mlb_model_slots *s, const struct mlb_model *m,
		      bool save, char *err, size_t errsz)
{
	struct mlb_model *copy;
	int ret;

	ret = mlb_model_validate(m, err, errsz);
	if (ret)
		return ret;
	copy = malloc(sizeof(*copy));
	if (!copy) {
		set_err(err, errsz, "out of memory");
		return -ENOMEM;
	}
	*copy = *m;
	ret = mlb_deploy(s, &m->nn, l->gen + 1);
	if (ret) {
		set_err(err, errsz, "writing the model map: %s", strerror(-ret));
		free(copy);
		return ret;
	}
	l->gen++;
	l->generations++;
	free(l->live);
	l->live = copy;
	compare_reset(l);
	if (save && l->state_dir)
		return save_current(l->state_dir, m, err, errsz);
	return 0;
}

int mlb_learner_tick(struct mlb_learner *l, struct mlb_model_slots *s,
		     const struct mlb_dataset *win, u64 nr_samples, double now, char *msg,
		     size_t msgsz)
{
	msg[0] = '\0';
	if (job)
		return job_finish(l, s, msg, msgsz);
	job_start(l, win, nr_samples, now, msg, msgsz);
	return 0;
}

/* Forget the comparison: a new model (or none) starts its own. */
static void compare_reset(struct mlb_learner *l)
{
	l->n_model = l->cost_model = l->n_ctrl = l->cost_ctrl = 0.0;
	l->bad_run = 0;
}

int mlb_learner_observe(struct mlb_learner *l, struct mlb_model_slots *s,
			const struct mlb_collect_stats *cs, char *msg, size_t msgsz)
{
	u64 dn[4], dc[4];
	double mm, mc;
	bool bad;

	msg[0] = '\0';
	for (int k = 0; k < 4; k++) {
		/* the collector's counters only grow; a new collector starts from 0 again */
		dn[k] = cs->by_decider[k] >= l->seen_n[k] ? cs->by_decider[k] - l->seen_n[k] : 0;
		dc[k] = cs->cost_us[k] >= l->seen_cost[k] ? cs->cost_us[k] - l->seen_cost[k] : 0;
		l->seen_n[k] = cs->by_decider[k];
		l->seen_cost[k] = cs->cost_us[k];
	}
	if (!l->live) {
		compare_reset(l);
		return 0;
	}
	l->n_model = 0.9 * l->n_model + dn[MLB_BY_MODEL];
	l->cost_model = 0.9 * l->cost_model + dc[MLB_BY_MODEL];
	l->n_ctrl = 0.9 * l->n_ctrl + dn[MLB_BY_CONTROL];
	l->cost_ctrl = 0.9 * l->cost_ctrl + dc[MLB_BY_CONTROL];
	if (l->n_model < l->o.min_compare || l->n_ctrl < l->o.min_compare)
		return 0; /* too few to tell: no judgement either way */
	mm = l->cost_model / l->n_model;
	mc = l->cost_ctrl / l->n_ctrl;
	bad = mm > mc * l->o.cost_factor_pct / 100.0 && mm > mc + 100.0;
	l->bad_run = bad ? l->bad_run + 1 : 0;
	if (l->bad_run < l->o.bad_intervals)
		return 0;
	snprintf(msg, msgsz,
		 "rollback: generation %u replaced by the heuristic after %u bad checks: the "
		 "model's decisions cost %.0f us each (%.0f recent), the control share's %.0f us "
		 "(%.0f recent), limit %u%% and 100 us more",
		 l->gen, l->bad_run, mm, l->n_model, mc, l->n_ctrl, l->o.cost_factor_pct);
	mlb_undeploy(s);
	free(l->live);
	l->live = NULL;
	l->rollbacks++;
	compare_reset(l);
	return 1;
}
