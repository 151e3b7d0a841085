// SPDX-License-Identifier: GPL-2.0
/*
 * Float MLP training, written to be read top to bottom like a script.
 *
 * Notation (one sample; the trainer loops over the samples of a mini-batch):
 *   x        [size0]                  input (normalised features)
 *   z0 = W0 x + b0        W0 [size1][size0]     a1 = relu(z0)   [size1]
 *   z1 = W1 a1 + b1       W1 [size2][size1]     a2 = relu(z1)   [size2]
 *   z2 = W2 a2 + b2       W2 [1][size2]         logit = z2      [1]
 *   classification (huber == 0), target y in {0, 1}:
 *     p = sigmoid(logit), loss = -cw[y] * (y log p + (1 - y) log(1 - p))
 *   regression (huber = delta > 0), real target t, e = logit - t:
 *     loss = e^2 / 2 when |e| <= delta, else delta * (|e| - delta / 2)   (Huber)
 * with fewer hidden layers dropping the middle lines. Backward goes in the opposite order,
 * each layer's backward next to its forward below.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mlp.h"
#include "rng.h"

int mlp_init(struct mlp *net, int n_in, const int *hidden, int n_hidden, u64 seed)
{
	return mlp_init_out(net, n_in, hidden, n_hidden, 1, seed);
}

int mlp_init_out(struct mlp *net, int n_in, const int *hidden, int n_hidden, int n_out, u64 seed)
{
	struct mlb_rng rng;
	size_t off = 0;
	int l;

	memset(net, 0, sizeof(*net));
	if (n_in < 1 || n_in > MLP_MAX_WIDTH || n_hidden < 0 || n_hidden > MLP_MAX_LAYERS - 1 ||
	    n_out < 1 || n_out > MLP_MAX_OUT)
		return -EINVAL;
	net->n_layers = n_hidden + 1;
	net->size[0] = n_in;
	for (l = 0; l < n_hidden; l++) {
		if (hidden[l] < 1 || hidden[l] > MLP_MAX_WIDTH)
			return -EINVAL;
		net->size[l + 1] = hidden[l];
	}
	net->size[net->n_layers] = n_out;
	for (l = 0; l < net->n_layers; l++)
		net->n_params += (size_t)net->size[l + 1] * (net->size[l] + 1);

	net->params = calloc(net->n_params, sizeof(double));
	net->grad = calloc(net->n_params, sizeof(double));
	net->adam_m = calloc(net->n_params, sizeof(double));
	net->adam_v = calloc(net->n_params, sizeof(double));
	if (!net->params || !net->grad || !net->adam_m || !net->adam_v) {
		mlp_free(net);
		return -ENOMEM;
	}

	mlb_rng_seed(&rng, seed);
	for (l = 0; l < net->n_layers; l++) {
		int fan_in = net->size[l], n_w = net->size[l + 1] * fan_in;
		/* He-uniform: Var(w) = 2 / fan_in keeps ReLU activations at a steady scale. */
		double lim = sqrt(6.0 / fan_in);

		net->w[l] = net->params + off;
		net->gw[l] = net->grad + off;
		off += n_w;
		net->b[l] = net->params + off;
		net->gb[l] = net->grad + off;
		off += net->size[l + 1];
		for (int i = 0; i < n_w; i++)
			net->w[l][i] = (2.0 * mlb_rng_uniform(&rng) - 1.0) * lim;
	}
	if (off != net->n_params)
		abort();
	return 0;
}

void mlp_free(struct mlp *net)
{
	free(net->params);
	free(net->grad);
	free(net->adam_m);
	free(net->adam_v);
	net->params = net->grad = net->adam_m = net->adam_v = NULL;
}

/* z[out] = W[out][in] x[in] + b[out] */
static void linear_forward(const double *w, const double *b, const double *x, double *z, int n_in,
			   int n_out)
{
	for (int j = 0; j < n_out; j++) {
		const double *wj = w + (size_t)j * n_in;
		double s = b[j];

		for (int i = 0; i < n_in; i++)
			s += wj[i] * x[i];
		z[j] = s;
	}
}

/*
 * Given dz[out] = dL/dz: gW[out][in] += dz x^T, gb[out] += dz, and, when dx is set,
 * dx[in] = W^T dz (the gradient flowing to the layer's input).
 */
static void linear_backward(const double *w, const double *x, const double *dz, double *gw,
			    double *gb, double *dx, int n_in, int n_out)
{
	if (dx)
		memset(dx, 0, sizeof(double) * n_in);
	for (int j = 0; j < n_out; j++) {
		const double *wj = w + (size_t)j * n_in;
		double *gwj = gw + (size_t)j * n_in, d = dz[j];

		if (d == 0.0)
			continue;
		gb[j] += d;
		for (int i = 0; i < n_in; i++)
			gwj[i] += d * x[i];
		if (dx)
			for (int i = 0; i < n_in; i++)
				dx[i] += d * wj[i];
	}
}

/* a[n] = relu(z[n]) */
static void relu_forward(const double *z, double *a, int n)
{
	for (int i = 0; i < n; i++)
		a[i] = z[i] > 0.0 ? z[i] : 0.0;
}

/* dz[n] = da[n] * (z > 0), in place on da */
static void relu_backward(const double *z, double *da, int n)
{
	for (int i = 0; i < n; i++)
		if (z[i] <= 0.0)
			da[i] = 0.0;
}

double mlp_forward(const struct mlp *net, const double *x, struct mlp_acts *act)
{
	struct mlp_acts local;
	int l, L = net->n_layers;

	if (!act)
		act = &local;
	memcpy(act->a[0], x, sizeof(double) * net->size[0]);
	for (l = 0; l < L; l++) {
		linear_forward(net->w[l], net->b[l], act->a[l], act->z[l], net->size[l],
			       net->size[l + 1]);
		if (l + 1 < L)
			relu_forward(act->z[l], act->a[l + 1], net->size[l + 1]);
	}
	return act->z[L - 1][0];
}

double mlp_score(const struct mlp *net, const double *x)
{
	struct mlp_acts act;
	int L = net->n_layers;

	mlp_forward(net, x, &act);
	return net->size[L] >= 2 ? act.z[L - 1][0] - act.z[L - 1][1] : act.z[L - 1][0];
}

double mlp_bce(double z, int y, const double *class_w)
{
	/* -(y log s(z) + (1-y) log(1-s(z))) = max(z, 0) - z y + log(1 + e^-|z|) */
	return class_w[y] * (fmax(z, 0.0) - z * y + log1p(exp(-fabs(z))));
}

double mlp_huber(double z, double t, double delta)
{
	double e = fabs(z - t);

	return e <= delta ? 0.5 * e * e : delta * (e - 0.5 * delta);
}

/* The loss of output @z for target @t: Huber when o->huber > 0, else weighted BCE. */
static double sample_loss(double z, double t, const struct mlp_train_opts *o)
{
	return o->huber > 0.0 ? mlp_huber(z, t, o->huber) : mlp_bce(z, t > 0.5, o->class_w);
}

double mlp_backward(struct mlp *net, const struct mlp_acts *act, double t, int head,
		    const struct mlp_train_opts *o, double scale)
{
	double dz[MLP_MAX_WIDTH] = {}, da[MLP_MAX_WIDTH];
	int l, L = net->n_layers, y = t > 0.5;
	double z;

	head = head >= 0 && head < net->size[L] ? head : 0;
	z = act->z[L - 1][head];
	if (o->huber > 0.0) /* d loss / d z_head = clamp(z - t, -delta, delta); 0 elsewhere */
		dz[head] = scale * fmin(fmax(z - t, -o->huber), o->huber);
	else /* d loss / d logit = cw[y] (sigmoid(z) - y) */
		dz[0] = scale * o->class_w[y] * (1.0 / (1.0 + exp(-z)) - y);
	for (l = L - 1; l >= 0; l--) {
		linear_backward(net->w[l], act->a[l], dz, net->gw[l], net->gb[l], l ? da : NULL,
				net->size[l], net->size[l + 1]);
		if (l) {
			relu_backward(act->z[l - 1], da, net->size[l]);
			memcpy(dz, da, sizeof(double) * net->size[l]);
		}
	}
	return sample_loss(z, t, o);
}

double mlp_loss(struct mlp *net, const double *x, const double *t, const u8 *head, size_t n,
		const struct mlp_train_opts *o, int grad)
{
	struct mlp_acts act;
	double sum = 0.0;
	int L = net->n_layers;

	if (!n)
		return 0.0;
	if (grad)
		memset(net->grad, 0, sizeof(double) * net->n_params);
	for (size_t k = 0; k < n; k++) {
		const double *xk = x + k * net->size[0];

		int h = head ? head[k] : 0;

		mlp_forward(net, xk, &act);
		if (grad)
			sum += mlp_backward(net, &act, t[k], h, o, 1.0 / n);
		else
			sum += sample_loss(act.z[L - 1][h < net->size[L] ? h : 0], t[k], o);
	}
	return sum / n;
}

void mlp_adam_step(struct mlp *net, double lr)
{
	const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
	double c1, c2;

	net->adam_t++;
	c1 = 1.0 - pow(b1, (double)net->adam_t); /* bias corrections */
	c2 = 1.0 - pow(b2, (double)net->adam_t);
	for (size_t i = 0; i < net->n_params; i++) {
		double g = net->grad[i];

		net->adam_m[i] = b1 * net->adam_m[i] + (1.0 - b1) * g;
		net->adam_v[i] = b2 * net->adam_v[i] + (1.0 - b2) * g * g;
		net->params[i] -= lr * (net->adam_m[i] / c1) / (sqrt(net->adam_v[i] / c2) + eps);
	}
}

int mlp_train(struct mlp *net, const double *x, const double *t, const u8 *head, size_t n,
	      const double *xv, const double *tv, const u8 *headv, size_t nv,
	      const struct mlp_train_opts *o, struct mlp_train_stats *st)
{
	size_t *order = malloc(sizeof(*order) * (n ? n : 1));
	double *best = malloc(sizeof(double) * net->n_params);
	int d = net->size[0], since_best = 0;
	struct mlb_rng rng;
	struct mlp_acts act;

	if (!order || !best) {
		free(order);
		free(best);
		return -ENOMEM;
	}
	memset(st, 0, sizeof(*st));
	st->best_val_loss = INFINITY;
	memcpy(best, net->params, sizeof(double) * net->n_params);
	mlb_rng_seed(&rng, o->seed ^ 0x7261696eULL);
	for (size_t k = 0; k < n; k++)
		order[k] = k;

	for (int epoch = 1; epoch <= o->epochs; epoch++) {
		double sum = 0.0, val;

		/* Fisher-Yates shuffle: a new sample order every epoch. */
		for (size_t k = n; k > 1; k--) {
			size_t r = mlb_rng_below(&rng, k), t = order[k - 1];

			order[k - 1] = order[r];
			order[r] = t;
		}
		for (size_t start = 0; start < n; start += o->batch) {
			size_t end = start + o->batch < n ? start + o->batch : n;
			double scale = 1.0 / (end - start);

			memset(net->grad, 0, sizeof(double) * net->n_params);
			for (size_t k = start; k < end; k++) {
				size_t s = order[k];

				mlp_forward(net, x + s * d, &act);
				sum += mlp_backward(net, &act, t[s], head ? head[s] : 0, o, scale);
			}
			mlp_adam_step(net, o->lr);
		}
		st->epochs_run = epoch;
		st->train_loss = n ? sum / n : 0.0;
		val = nv ? mlp_loss(net, xv, tv, headv, nv, o, 0) : st->train_loss;
		if (o->verbose)
			fprintf(stderr, "epoch %3d  train_loss %.5f  val_loss %.5f\n", epoch,
				st->train_loss, val);
		if (val < st->best_val_loss - 1e-7) {
			st->best_val_loss = val;
			st->best_epoch = epoch;
			memcpy(best, net->params, sizeof(double) * net->n_params);
			since_best = 0;
		} else if (++since_best >= o->patience) {
			break;
		}
	}
	/* early stopping: keep the parameters of the best validation epoch */
	memcpy(net->params, best, sizeof(double) * net->n_params);
	free(order);
	free(best);
	return 0;
}
