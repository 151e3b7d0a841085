// SPDX-License-Identifier: GPL-2.0
/*
 * unit/bits: mlb_lowest_bit (include/mlb/bits.h, which the idle pull uses to visit only the
 * domains with queued tasks) against a loop, on every single bit, every pair of bits and
 * random words.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mlb/intf.h"
#include "mlb/bits.h"
#include "check.h"

/* The reference: the first set bit, counted from bit 0. */
static u32 lowest_ref(u64 x)
{
	u32 i = 0;

	while (!(x & 1)) {
		x >>= 1;
		i++;
	}
	return i;
}

int main(void)
{
	int n = 0;

	for (u32 i = 0; i < 64; i++) {
		CHECK(mlb_lowest_bit(1ULL << i) == i);
		CHECK(mlb_lowest_bit(~0ULL << i) == i);
		for (u32 j = i; j < 64; j++, n++)
			CHECK(mlb_lowest_bit((1ULL << i) | (1ULL << j)) == i);
	}
	srand(7);
	for (int k = 0; k < 1000000; k++, n++) {
		u64 x = ((u64)rand() << 42) ^ ((u64)rand() << 21) ^ (u64)rand();

		x >>= rand() % 64;
		if (!x)
			continue;
		CHECK(mlb_lowest_bit(x) == lowest_ref(x));
	}
	/* iterating set bits as busiest_dom does visits each once, lowest first */
	u64 m = 0x8000000100010005ULL, seen = 0;
	u32 prev = 0, visits = 0;
	while (m) {
		u32 i = mlb_lowest_bit(m);
		CHECK(visits == 0 || i > prev);
		seen |= 1ULL << i;
		prev = i;
		m &= m - 1;
		visits++;
	}
	CHECK(visits == 5 && seen == 0x8000000100010005ULL);
	printf("bits: %d words\n", n);
	return failures ? 1 : 0;
}
