/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Editing encoded model files in tests (unit/model-reject) and in the corpus generator
 * (tests/fuzz/make_corpus.c): a little-endian u32 store and the CRC fix-up after an edit, so
 * a damaged file reaches the check it is meant for instead of the checksum.
 */
#ifndef __MLB_TEST_MODEL_BYTES_H
#define __MLB_TEST_MODEL_BYTES_H

#include "ml/model.h"

/* put32 - store @v little-endian at @p. */
static inline void put32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* fix_crc - recompute the CRC-32 in the last 4 of the @len bytes at @buf. */
static inline void fix_crc(u8 *buf, size_t len)
{
	put32(buf + len - 4, mlb_crc32(buf, len - 4));
}

#endif /* __MLB_TEST_MODEL_BYTES_H */
