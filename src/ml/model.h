/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_mlb model files: the quantized network of nn_fixed.h plus what it was trained on.
 *
 * The file format (little-endian, version MLB_MODEL_VERSION) is described in docs/model.md.
 * Every loader entry point validates the whole file (sizes, bounds, the feature list against
 * mlb_feature_descs, the CRC32) and leaves its output untouched on failure, with a one-line
 * reason in @err.
 */
#ifndef __MLB_ML_MODEL_H
#define __MLB_ML_MODEL_H

#include <stddef.h>
#include <stdio.h>
#include "mlb/intf.h"
#include "mlb/features.h"
#include "mlb/nn_fixed.h"

#define MLB_MODEL_MAGIC	   "MLBMODEL" /* 8 bytes, no NUL in the file */
#define MLB_MODEL_VERSION  3
#define MLB_MODEL_NAME_LEN 32	       /* feature and label names, NUL-padded in the file */
#define MLB_MODEL_MAX_SIZE (64 * 1024) /* no valid file is larger */
#define MLB_PPM		   1000000u    /* metrics are stored in parts per million */

/* Training metadata. Metrics are on the validation split, in parts per million. */
struct mlb_model_meta {
	u64 created; /* unix time of training, seconds */
	u64 n_train; /* training samples */
	u64 n_val;   /* validation samples */
	u64 seed;    /* trainer seed */
	u32 epochs;  /* epochs run (early stopping may stop before the limit) */
	u32 acc_ppm, prec_ppm, rec_ppm, auc_ppm;	 /* float model */
	u32 q_acc_ppm, q_prec_ppm, q_rec_ppm, q_auc_ppm; /* quantized model */
	u32 agree_ppm;			/* quantized vs float decisions that agree */
	u32 max_err;			/* max |quantized - float| migrate score, Q15.16 */
	char label[MLB_MODEL_NAME_LEN]; /* label column it learned */
};

/* A model in memory: nn goes to the scheduler's map as is. */
struct mlb_model {
	struct mlb_nn_model nn;
	char feature[MLB_NN_MAX_IN][MLB_MODEL_NAME_LEN]; /* input names, nn.n_in of them */
	struct mlb_model_meta meta;
};

/*
 * mlb_crc32 - CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, init and final xor
 * 0xFFFFFFFF) of @len bytes at @buf; mlb_crc32("123456789", 9) == 0xCBF43926.
 */
u32 mlb_crc32(const void *buf, size_t len);

/*
 * mlb_nn_validate - check that @nn is a network mlb_nn_forward() computes exactly: magic,
 * shape within the maxima and chained (layer 0 takes n_in, each layer takes the previous
 * one's outputs, the last gives n_out), ReLU on hidden layers only, w_frac, weight, bias and
 * normalisation bounds of nn_fixed.h, and zeros in every unused entry.
 * Returns 0, or -EINVAL with a one-line reason in @err (@errsz bytes, may be 0).
 */
int mlb_nn_validate(const struct mlb_nn_model *nn, char *err, size_t errsz);

/*
 * mlb_model_validate - mlb_nn_validate() plus: the inputs are exactly the scheduler's features
 * (MLB_NR_FEATURES names of mlb_feature_descs in order, each clamped to its documented range),
 * names are NUL-terminated and metrics are at most MLB_PPM.
 * Returns 0, or -EINVAL with a one-line reason in @err.
 */
int mlb_model_validate(const struct mlb_model *m, char *err, size_t errsz);

/*
 * mlb_model_encode - serialise the valid model @m. On success *@buf (malloc'd, the caller
 * frees it) holds *@len bytes and 0 is returned; on failure -EINVAL (invalid model, reason in
 * @err) or -ENOMEM, and *@buf, *@len are untouched.
 */
int mlb_model_encode(const struct mlb_model *m, void **buf, size_t *len, char *err, size_t errsz);

/*
 * mlb_model_decode - parse and validate the @len bytes at @buf into @out (any bytes are safe).
 * Returns 0, or -EINVAL with a one-line reason in @err; @out is only written on success.
 */
int mlb_model_decode(const void *buf, size_t len, struct mlb_model *out, char *err, size_t errsz);

/*
 * mlb_model_load - read the file @path and mlb_model_decode() it into @out.
 * Returns 0, or a negative errno with "PATH: reason" in @err; @out is only written on success.
 */
int mlb_model_load(const char *path, struct mlb_model *out, char *err, size_t errsz);

/*
 * mlb_model_load_mode - mlb_model_load() that first refuses (-EPERM, reason in @err) a file
 * whose mode has any bit of @refuse_mode (e.g. S_IWGRP | S_IWOTH), checked with fstat() on
 * the descriptor it then reads, so the check and the read concern the same file.
 */
int mlb_model_load_mode(const char *path, unsigned int refuse_mode, struct mlb_model *out,
			char *err, size_t errsz);

/*
 * mlb_model_save - encode @m and write it to @path atomically (a temporary file in the same
 * directory, fsync, rename), so readers see the old file or the new one, never a part.
 * Returns 0, or a negative errno with a one-line reason in @err (@path is then unchanged).
 */
int mlb_model_save(const char *path, const struct mlb_model *m, char *err, size_t errsz);

/* mlb_model_dump - print @m (valid) readably to @f: shape, Q format, features, weights, meta. */
void mlb_model_dump(FILE *f, const struct mlb_model *m);

/*
 * mlb_model_score - the quantized score of the valid model @m for the MLB_NR_FEATURES values
 * @x, computed by mlb_nn_forward() and mlb_nn_saving() as scx_mlb computes it: for the wait
 * model (two outputs) the predicted saving of the move in ms, Q15.16; for a one-output model
 * its output (a label's logit, > 0 = migrate).
 */
s32 mlb_model_score(const struct mlb_model *m, const s32 *x);

#endif /* __MLB_ML_MODEL_H */
