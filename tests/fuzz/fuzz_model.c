// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the model loader (src/ml/model.c), built by src/ml/ml.mk into
 * build/ml/fuzz-model with ASan and UBSan, run by tests/unit/fuzz-model.sh on the corpus in
 * tests/fuzz/model-corpus/.
 *
 * Properties checked on every input:
 *  - mlb_model_decode() never crashes, and leaves its output untouched when it refuses, with
 *    a one-line reason; an input whose size field and CRC were made consistent is never
 *    refused for its checksum or its size (the reason names what is wrong inside);
 *  - what it accepts passes mlb_model_validate(), re-encodes to exactly the same bytes, and
 *    runs through mlb_nn_forward() on inputs derived from the data without any UB.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "ml/model.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

/* One input through the loader, with the properties above; @fixed: size and CRC are right. */
static void check(const u8 *data, size_t size, bool fixed)
{
	static struct mlb_model m, keep;
	struct mlb_nn_scratch s;
	s32 x[MLB_NR_FEATURES];
	char err[256];
	void *buf;
	size_t len;

	memset(&m, 0x5a, sizeof(m));
	keep = m;
	if (mlb_model_decode(data, size, &m, err, sizeof(err))) {
		if (memcmp(&m, &keep, sizeof(m)) || !err[0] || strchr(err, '\n'))
			abort(); /* a refusal must change nothing and say why, in one line */
		if (fixed && (!strcmp(err, "checksum mismatch (file corrupted)") ||
			      !strncmp(err, "truncated: header says", 22) ||
			      !strncmp(err, "trailing data: header says", 26)))
			abort(); /* the reason is not what was made right */
		return;
	}
	if (mlb_model_validate(&m, err, sizeof(err)))
		abort();
	if (mlb_model_encode(&m, &buf, &len, err, sizeof(err)))
		abort();
	if (len != size || memcmp(buf, data, size))
		abort(); /* decode and encode are inverse on valid files */
	free(buf);
	for (int i = 0; i < MLB_NR_FEATURES; i++) {
		u32 v = 0;

		memcpy(&v, data + (i * 4) % (size - 3), 4);
		x[i] = (s32)v;
	}
	if (mlb_nn_forward(&m.nn, x, MLB_NR_FEATURES, &s))
		abort(); /* valid models always run */
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 *fixed;
	u32 crc;

	check(data, size, false);
	/*
	 * Random mutations almost never keep the CRC right, which would stop them at the
	 * checksum. So also try the input with its size field and CRC made consistent: that
	 * reaches the parser and the validator with arbitrary contents.
	 */
	if (size < 36 || size > MLB_MODEL_MAX_SIZE)
		return 0;
	fixed = malloc(size);
	if (!fixed)
		return 0;
	memcpy(fixed, data, size);
	fixed[12] = size;
	fixed[13] = size >> 8;
	fixed[14] = size >> 16;
	fixed[15] = size >> 24;
	crc = mlb_crc32(fixed, size - 4);
	for (int i = 0; i < 4; i++)
		fixed[size - 4 + i] = crc >> (8 * i);
	check(fixed, size, true);
	free(fixed);
	return 0;
}
