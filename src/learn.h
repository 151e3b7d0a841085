/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_mlb user space: the learning loop's decisions about models. Deploying a model into the
 * BPF side's two slots without ever exposing a half-written one, the state directory, the
 * adaptive retrain/validate/deploy cycle and the automatic rollback to the heuristic.
 */
#ifndef __MLB_LEARN_H
#define __MLB_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include "mlb/intf.h"
#include "mlb/heuristic.h"
#include "mlb/options.h"
#include "ml/data.h"
#include "ml/model.h"
#include "collect.h"
#include "ml/ope.h"

/*
 * The BPF side's model slots (see "The deployed model" in src/bpf/scx_mlb.bpf.c): the models
 * array map's fd and pointers into its mmapped .bss.
 */
struct mlb_model_slots {
	int map_fd;
	volatile u64 *seq;
	volatile u32 *slot;
	volatile u32 *gen;
};

/*
 * mlb_deploy - make @nn (valid: mlb_nn_validate() passed) the live model with generation
 * @gen (> 0): written into the slot not in use, then published, all under an odd sequence
 * number so that a decision racing the swap discards its answer. Returns 0 or -errno (the
 * live model is then unchanged).
 */
int mlb_deploy(struct mlb_model_slots *s, const struct mlb_nn_model *nn, u32 gen);

/* mlb_undeploy - no live model any more: the heuristic decides. */
void mlb_undeploy(struct mlb_model_slots *s);

/*
 * mlb_state_dir_open - create @dir (0750, parents too) if missing; refuse, with a one-line
 * reason in @err, a path that is not a directory or is group- or world-writable.
 * Returns 0 or -errno.
 */
int mlb_state_dir_open(const char *dir, char *err, size_t errsz);

/*
 * mlb_model_load_checked - mlb_model_load() that first refuses a file that is group- or
 * world-writable (anyone who can write it could steer the scheduler) unless @allow_writable.
 * Returns 0 or -errno with "PATH: reason" in @err; @out is only written on success.
 */
int mlb_model_load_checked(const char *path, bool allow_writable, struct mlb_model *out, char *err,
			   size_t errsz);

struct mlb_learn_opts {
	u32 retrain_s;	     /* adaptive: retrain when this many seconds passed ... */
	u32 retrain_samples; /* ... or this many new samples arrived, whichever first */
	u32 min_samples;     /* no training below this many labelled samples in the window */
	u32 holdout_pct;     /* most recent share of the window kept out of training */
	u32 epochs;	     /* training epochs (early stopping may stop sooner) */
	u32 cost_factor_pct; /* rollback: the model's realized cost per decision above this % of
			      * the control share's (and 100 us more), */
	u32 min_compare;     /* both sides with at least this many recent decisions, */
	u32 bad_intervals;   /* at this many checks in a row */
	struct mlb_heur_params heur; /* the heuristic being replaced, for comparisons */
};

/* mlb_learn_defaults - the defaults of --retrain-s, --retrain-samples and --min-samples
 * (MLB_DEF_<ID>), 20% hold-out, 15 epochs, rollback at 120% of the control's cost with 30
 * decisions a side, 3 checks; @heur copied. */
void mlb_learn_defaults(struct mlb_learn_opts *o, const struct mlb_heur_params *heur);

/* The adaptive loop's state. */
struct mlb_learner {
	struct mlb_learn_opts o;
	const char *state_dir;	/* models saved here (model.mlb, model.prev.mlb); may be NULL */
	struct mlb_model *live; /* the deployed model, NULL when the heuristic decides */
	u32 gen;		/* generation of the last deployed model (0: none yet) */
	u32 generations;	/* models deployed by this process */
	u32 rollbacks;
	u32 rejected;	   /* retrained models not deployed: not better on the hold-out */
	double last_train; /* time of the last training, seconds */
	u64 samples_at_train;
	/* live monitoring: the model against the control share, recent decisions (decayed
	 * by 0.9 a check) since the live model was deployed */
	u64 seen_n[4], seen_cost[4]; /* the collector's totals at the last check */
	double n_model, cost_model;  /* decayed count and realized cost, us, of the model's */
	double n_ctrl, cost_ctrl;    /* ... and of the control share's decisions */
	u32 bad_run;		     /* consecutive bad checks under a model */
	double live_cost;	     /* its estimated cost per decision there, us */
};

/* mlb_learner_init - empty state with options @o; models are saved in @state_dir. */
void mlb_learner_init(struct mlb_learner *l, const struct mlb_learn_opts *o, const char *state_dir);

/* mlb_learner_free - release the live model copy. */
void mlb_learner_free(struct mlb_learner *l);

/*
 * mlb_learner_adopt - deploy @m (validated) as generation l->gen + 1 and keep a copy as the
 * live model; saves it as the current model (the previous one becomes model.prev.mlb) when
 * @save. Returns 0 or -errno with a reason in @err.
 */
int mlb_learner_adopt(struct mlb_learner *l, struct mlb_model_slots *s, const struct mlb_model *m,
		      bool save, char *err, size_t errsz);

/*
 * mlb_learner_consider - the deploy gate: deploy the candidate @cand (valid, the two-output
 * wait model) when its estimated cost per decision on the held-out decisions @hold
 * (mlb_policy_cost_us(), with @cand as the reward model) is at most that of the live model,
 * or without one, of the heuristic; else count it in l->rejected and change nothing. Writes a
 * one-line account with both estimates to @msg.
 * Returns 1 deployed, 0 rejected, -EINVAL (not a wait model) or -EIO (the deployment failed),
 * the reason in @msg.
 */
int mlb_learner_consider(struct mlb_learner *l, struct mlb_model_slots *s,
			 const struct mlb_model *cand, const struct mlb_dataset *hold, char *msg,
			 size_t msgsz);

/*
 * mlb_learner_tick - the adaptive cycle, called about once a second with the sliding window
 * @win (samples with their saving targets, oldest first) and the total number of samples seen
 * @nr_samples. When due, trains a model of the saving on the window minus its most recent
 * holdout_pct, and passes it to mlb_learner_consider() on that hold-out. Writes a one-line
 * account of what it did to @msg (empty when nothing).
 * Returns 1 if a model was deployed, 0 otherwise.
 */
int mlb_learner_tick(struct mlb_learner *l, struct mlb_model_slots *s,
		     const struct mlb_dataset *win, u64 nr_samples, double now, char *msg,
		     size_t msgsz);

/*
 * mlb_learner_observe - one check (about a second) of the live model against the heuristic
 * under the same load at the same time: @cs, the collector's counters, hold the decisions
 * of each decider and their realized cost (wait before the first run, plus the move's cost).
 * The decisions of the model (MLB_BY_MODEL) and of the control share (MLB_BY_CONTROL, the
 * heuristic deciding while the model is live) that arrived since the last check are added
 * to decayed sums. With a model live and at least min_compare of each, a check is bad when
 * the model's mean cost is above cost_factor_pct of the control's and 100 us more;
 * bad_intervals bad checks in a row roll back to the heuristic. Returns 1 on a rollback
 * (the line, with the numbers compared, in @msg), else 0.
 */
int mlb_learner_observe(struct mlb_learner *l, struct mlb_model_slots *s,
			const struct mlb_collect_stats *cs, char *msg, size_t msgsz);

/* mlb_policy_cost_us(), the gate's estimate, is in ml/ope.h. */

/*
 * mlb_policy_accuracy - share of the @n rows of @x (MLB_NR_FEATURES each) whose label @y the
 * policy gets right: the model @m when not NULL (score > 0 = migrate), else the heuristic
 * @hp. 1.0 for n == 0.
 */
double mlb_policy_accuracy(const struct mlb_model *m, const struct mlb_heur_params *hp,
			   const s32 *x, const u8 *y, size_t n);

#endif /* __MLB_LEARN_H */
