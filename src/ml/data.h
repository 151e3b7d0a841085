/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Labelled migration decisions in memory, the CSV dataset reader/writer (format in
 * docs/model.md) and a synthetic generator for tests and benchmarks.
 */
#ifndef __MLB_ML_DATA_H
#define __MLB_ML_DATA_H

#include <stddef.h>
#include "mlb/intf.h"

struct mlb_dataset {
	size_t n, cap;
	s32 *x; /* n rows of MLB_NR_FEATURES values, feature-index order */
	u8 *y;	/* n labels, 0 or 1: t > 0 */
	s32 *t; /* n targets: the label column's value, 0/1 for a label, microseconds for the
		 * learned wait MLB_TARGET_WAIT (include/mlb/heuristic.h) */
	u8 *a;	/* n actions taken, 0 stay, 1 move (the column MLB_ACTION_COL; 0 for a label) */
	u32 *p; /* n probabilities of those actions, per million (MLB_PROP_COL; 10^6 for a
		 * label) */
};

/* mlb_dataset_push - append one row: @x (MLB_NR_FEATURES values), target @t, label t > 0,
 * action 0 with probability 1. Returns 0 or -ENOMEM. */
int mlb_dataset_push(struct mlb_dataset *ds, const s32 *x, s32 t);

/* mlb_dataset_push_act - mlb_dataset_push() of a row whose action @a (0/1) was taken with
 * probability @p_ppm (1..10^6). Returns 0 or -ENOMEM. */
int mlb_dataset_push_act(struct mlb_dataset *ds, const s32 *x, s32 t, int a, u32 p_ppm);

/* mlb_dataset_free - release the rows; @ds is empty (and reusable) afterwards. */
void mlb_dataset_free(struct mlb_dataset *ds);

/*
 * mlb_csv_read - append the rows of the CSV file @path to @ds. The header must name every
 * feature of mlb_feature_descs (any order, among other columns) and the column @label;
 * feature values must be integers within their documented range, labels 0 or 1, except the
 * learned wait MLB_TARGET_WAIT ("first_wait_us"): integers in [0, MLB_WAIT_READ_US], and then
 * the columns MLB_ACTION_COL (0/1) and MLB_PROP_COL (1..10^6) are read too.
 * Returns the number of rows read, or a negative errno with "PATH:LINE: reason" in @err;
 * on error @ds keeps the rows it had before the call.
 */
long mlb_csv_read(const char *path, const char *label, struct mlb_dataset *ds, char *err,
		  size_t errsz);

/*
 * mlb_csv_header - the start of every dataset header, "id,<the names of mlb_feature_descs in
 * feature order>", NUL-terminated in @buf (@size bytes; MLB_CSV_HEADER_MAX is enough). Returns
 * its length, or -ENOSPC (with @buf truncated) when @size is too small.
 */
#define MLB_CSV_HEADER_MAX 1280 /* 32 features of up to 31 characters, with "id," */
int mlb_csv_header(char *buf, size_t size);

/*
 * mlb_csv_write - write @ds to @path as CSV: header "id,<features...>,label,first_wait_us,
 * decision,prop_ppm", one row per sample (y, t, a, p). Returns 0 or a negative errno with a reason
 * in @err.
 */
int mlb_csv_write(const char *path, const struct mlb_dataset *ds, char *err, size_t errsz);

/*
 * mlb_synth - append @n synthetic decisions (y the label, t the wait: y is not t > 0 here) drawn
 * from @seed: plausible feature values within their ranges and a label from a fixed nonlinear rule
 * (imbalance, idleness, cache hotness, topology, ping-pong), flipped with probability @noise, and a
 * wait (t, us) for a random action (a, taken with probability 1/2): the rule's margin makes moving
 * shorten the wait and its opposite lengthen it, plus noise, so that the saving, wait(stay) -
 * wait(move), has the label's sign. Returns 0 or -ENOMEM.
 */
int mlb_synth(struct mlb_dataset *ds, size_t n, u64 seed, double noise);

#endif /* __MLB_ML_DATA_H */
