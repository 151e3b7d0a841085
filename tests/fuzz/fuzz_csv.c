// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the dataset CSV reader (mlb_csv_read() in src/ml/data.c), built by
 * src/ml/ml.mk into build/ml/fuzz-csv with ASan and UBSan, run by tests/unit/fuzz-csv.sh on
 * the corpus in tests/fuzz/csv-corpus/. Each input is written to a memfd and read through
 * /proc/self/fd/N, once with the label column "label" and once with "imitation", into a
 * dataset that already holds one known row.
 *
 * Properties checked on every input and label:
 *  - mlb_csv_read() never crashes, leaks or hits UB;
 *  - the row that was there before the call is still there, bit-identical;
 *  - a refusal (negative return) leaves the dataset with its one row and a non-empty,
 *    single-line reason in err: the path, ':', then (a line number and ': ' or ' ') the
 *    reason text;
 *  - an acceptance returns the number of rows appended, each with every feature within
 *    mlb_feature_descs[i].min..max and a label of 0 or 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mlb/features.h"
#include "ml/data.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

/* Read the CSV at @path with @label into a one-row dataset, with the properties above. */
static void check(const char *path, const char *label)
{
	struct mlb_dataset ds = {};
	s32 known[MLB_NR_FEATURES];
	char err[512];
	long n;

	for (int i = 0; i < MLB_NR_FEATURES; i++)
		known[i] = mlb_feature_descs[i].max - i;
	if (mlb_dataset_push(&ds, known, 1))
		abort();
	err[0] = 0;
	n = mlb_csv_read(path, label, &ds, err, sizeof(err));
	if (memcmp(ds.x, known, sizeof(known)) || ds.y[0] != 1)
		abort(); /* the rows already there are never touched */
	if (n < 0) {
		if (ds.n != 1 || !err[0] || strchr(err, '\n') || strncmp(err, path, strlen(path)) ||
		    err[strlen(path)] != ':' || !err[strlen(path) + 1] ||
		    strlen(err + strlen(path)) < 4)
			abort(); /* a refusal changes nothing and says why, in one line */
	} else if (ds.n != 1 + (size_t)n) {
		abort(); /* the count returned is the count appended */
	}
	for (size_t k = 1; k < ds.n; k++) {
		const s32 *x = ds.x + k * MLB_NR_FEATURES;

		for (int i = 0; i < MLB_NR_FEATURES; i++)
			if (x[i] < mlb_feature_descs[i].min || x[i] > mlb_feature_descs[i].max)
				abort();
		if (ds.y[k] > 1)
			abort();
	}
	mlb_dataset_free(&ds);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz-csv", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	check(path, "label");
	check(path, "imitation");
	return 0;
}
