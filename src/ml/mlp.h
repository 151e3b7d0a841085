/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Float multilayer perceptron for training the migration network (double precision).
 *
 * Shape: size[0] inputs -> up to two ReLU hidden layers -> one linear output (a logit).
 * Loss: binary cross-entropy on the logit with per-class weights (a label), or the Huber
 * loss of the output against a real target (a regression). Optimiser: Adam on mini-batches.
 * Everything is deterministic for a given seed.
 */
#ifndef __MLB_ML_MLP_H
#define __MLB_ML_MLP_H

#include <stddef.h>
#include "mlb/intf.h"

#define MLP_MAX_LAYERS 3  /* linear layers: up to two hidden + the output */
#define MLP_MAX_WIDTH  32 /* units per layer and inputs */
#define MLP_MAX_OUT    2  /* outputs: one (a logit or a value) or two heads */

struct mlp {
	int n_layers;		      /* linear layers, 1..MLP_MAX_LAYERS */
	int size[MLP_MAX_LAYERS + 1]; /* size[0] inputs, size[n_layers] outputs (1 or 2) */
	size_t n_params;	      /* weights + biases */
	double *params;		      /* per layer: W [out][in] row-major, then b [out] */
	double *w[MLP_MAX_LAYERS], *b[MLP_MAX_LAYERS]; /* views into params */
	double *grad;				       /* d loss / d params, same layout */
	double *gw[MLP_MAX_LAYERS], *gb[MLP_MAX_LAYERS];
	double *adam_m, *adam_v; /* Adam moments, same layout */
	u64 adam_t;		 /* Adam steps taken */
};

/* Activations of one sample, kept by the forward pass for the backward pass. */
struct mlp_acts {
	double a[MLP_MAX_LAYERS + 1][MLP_MAX_WIDTH]; /* a[0] input, a[l+1] = act(z[l]) */
	double z[MLP_MAX_LAYERS][MLP_MAX_WIDTH];     /* pre-activations */
};

struct mlp_train_opts {
	int epochs;	   /* at most this many passes over the training set */
	int batch;	   /* mini-batch size */
	double lr;	   /* Adam learning rate */
	double class_w[2]; /* loss weight of label 0 and label 1 samples (classification) */
	double huber;	   /* > 0: regression, Huber loss with this delta; 0: labels, BCE */
	int patience;	   /* stop after this many epochs without a better validation loss */
	u64 seed;	   /* shuffling */
	int verbose;	   /* print one line per epoch to stderr */
};

struct mlp_train_stats {
	int epochs_run;
	int best_epoch; /* 1-based epoch whose parameters were kept */
	double best_val_loss;
	double train_loss; /* mean loss of the last epoch */
};

/*
 * mlp_init - allocate @net with @n_in inputs, @n_hidden (0..2) ReLU hidden layers of
 * hidden[0..n_hidden) units and one output, weights drawn from @seed (He-uniform), biases 0.
 * Sizes must be 1..MLP_MAX_WIDTH. Returns 0, -EINVAL on bad sizes, -ENOMEM.
 */
int mlp_init(struct mlp *net, int n_in, const int *hidden, int n_hidden, u64 seed);

/* mlp_init_out - mlp_init() with @n_out (1..MLP_MAX_OUT) outputs: heads sharing the hidden
 * layers, each trained only on the samples that name it (mlp_train()'s @head). */
int mlp_init_out(struct mlp *net, int n_in, const int *hidden, int n_hidden, int n_out, u64 seed);

/* mlp_free - release what mlp_init() allocated; @net can be freed twice. */
void mlp_free(struct mlp *net);

/*
 * mlp_forward - output 0 for the size[0] inputs @x; fills @act (may be NULL when the
 * activations are not needed; the outputs are act->z[n_layers - 1][]).
 */
double mlp_forward(const struct mlp *net, const double *x, struct mlp_acts *act);

/* mlp_score - the score, as the fixed-point model's (mlb_nn_saving()): output 0 - output 1
 * with two outputs, else output 0. */
double mlp_score(const struct mlp *net, const double *x);

/*
 * mlp_backward - add to net->grad the gradient of @scale * loss(sample) where @act is the
 * sample's forward pass, @t its target, @head the output it concerns (the others get no
 * gradient) and the loss o->huber's: the Huber loss of that output against @t, or (huber 0)
 * the class-weighted BCE of the logit for label t > 0.5. Returns the (unscaled) loss.
 */
double mlp_backward(struct mlp *net, const struct mlp_acts *act, double t, int head,
		    const struct mlp_train_opts *o, double scale);

/*
 * mlp_loss - mean loss (as mlp_backward()) of @n samples (@x row-major, size[0] per row,
 * targets @t, outputs @head, NULL: all output 0); when @grad is set, also zeroes and fills
 * net->grad with its gradient.
 */
double mlp_loss(struct mlp *net, const double *x, const double *t, const u8 *head, size_t n,
		const struct mlp_train_opts *o, int grad);

/* mlp_adam_step - one Adam update of net->params from net->grad (beta 0.9/0.999, eps 1e-8). */
void mlp_adam_step(struct mlp *net, double lr);

/*
 * mlp_train - train @net on @n rows of @x/@t (outputs @head, NULL: output 0), evaluating the
 * validation loss on @nv rows of @xv/@tv/@headv after every epoch; keeps the parameters of the best
 * validation epoch (early stopping with @o->patience). @nv may be 0 (then the last epoch is kept).
 * Fills @st. Returns 0 or -ENOMEM.
 */
int mlp_train(struct mlp *net, const double *x, const double *t, const u8 *head, size_t n,
	      const double *xv, const double *tv, const u8 *headv, size_t nv,
	      const struct mlp_train_opts *o, struct mlp_train_stats *st);

/* mlp_bce - class-weighted BCE of logit @z for label @y, computed without overflow. */
double mlp_bce(double z, int y, const double *class_w);

/* mlp_huber - the Huber loss of output @z for target @t with threshold @delta > 0. */
double mlp_huber(double z, double t, double delta);

#endif /* __MLB_ML_MLP_H */
