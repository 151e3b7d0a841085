// SPDX-License-Identifier: GPL-2.0
/*
 * bench-work: a fixed amount of CPU work, for the imbalanced-load benchmark.
 *
 *   bench-work ITERATIONS     run ITERATIONS rounds of an integer hash, then exit 0
 *
 * The work is deterministic and touches no memory beyond registers, so its cost is the same
 * on every CPU and under every scheduler: the wall time of a group of these is set only by how
 * the scheduler spreads them. Prints nothing; exit 2 with one line on a bad argument.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long long n, i;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	char *end;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-work ITERATIONS\n");
		return 2;
	}
	errno = 0;
	n = strtoull(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || argv[1][0] == '-') {
		fprintf(stderr, "bench-work: bad iteration count '%s'\n", argv[1]);
		return 2;
	}
	for (i = 0; i < n; i++) {
		/* splitmix64 step: the compiler cannot fold it away */
		x += 0x9e3779b97f4a7c15ull;
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
		x ^= x >> 31;
	}
	/* the result decides the exit status, so the loop is live */
	return x == 42 ? 1 : 0;
}
