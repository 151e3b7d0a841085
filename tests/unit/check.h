/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CHECK(cond): a failed condition is reported with its place and counted in `failures`;
 * the test goes on and main() returns non-zero if anything failed.
 */
#ifndef __MLB_TEST_CHECK_H
#define __MLB_TEST_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

#endif /* __MLB_TEST_CHECK_H */
