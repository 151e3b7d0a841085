/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bit helpers shared by the BPF scheduler and its host unit tests (BPF has no count-trailing-
 * zeros instruction, and clang may lower the builtin to a call the verifier refuses).
 */
#ifndef __MLB_BITS_H
#define __MLB_BITS_H

#include "intf.h"

/* mlb_lowest_bit - the index of the lowest set bit of @x, in six steps without a loop or a
 * table. Contract: x != 0 (for 0 it returns 63). */
static inline u32 mlb_lowest_bit(u64 x)
{
	u32 n = 0;

	if (!(x & 0xffffffffULL)) {
		n += 32;
		x >>= 32;
	}
	if (!(x & 0xffff)) {
		n += 16;
		x >>= 16;
	}
	if (!(x & 0xff)) {
		n += 8;
		x >>= 8;
	}
	if (!(x & 0xf)) {
		n += 4;
		x >>= 4;
	}
	if (!(x & 0x3)) {
		n += 2;
		x >>= 2;
	}
	if (!(x & 0x1))
		n += 1;
	return n;
}

#endif /* __MLB_BITS_H */
