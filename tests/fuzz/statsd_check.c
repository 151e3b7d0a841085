// SPDX-License-Identifier: GPL-2.0
/*
 * statsd-check FILE: read one stats socket request from FILE (one trailing newline cut off)
 * as the server would; print what it asks for and exit 0, or "FILE: reason" on stderr and
 * exit 1. tests/unit/fuzz-statsd.sh checks the corpus with it.
 */
#include <stdio.h>
#include <string.h>
#include "statsd.h"

int main(int argc, char **argv)
{
	static char buf[2 * MLB_STATSD_MAX_REQ];
	struct mlb_statsd_req req;
	char err[512];
	size_t n;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: statsd-check FILE\n");
		return 2;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n && buf[n - 1] == '\n')
		n--;
	if (mlb_statsd_parse(buf, n, &req, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 1;
	}
	printf("%s target=%s\n", req.kind == MLB_STATSD_STATS ? "stats" : "stats_meta", req.target);
	return 0;
}
