// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the stats socket's request handling (src/statsd.c, src/json.c), built
 * by tests/unit/unit.mk into build/tests/fuzz-statsd with ASan and UBSan, run by
 * tests/unit/fuzz-statsd.sh on the corpus in tests/fuzz/statsd-corpus/. Each input is one
 * request line as a client would send it (the server cuts lines at '\n', so an input is
 * taken up to its first newline, and inputs longer than the bound are given whole too).
 *
 * Properties checked on every input:
 *  - the parser, the reply builder and the reply reader never crash, leak or hit UB, and
 *    never read past the input (ASan: it is copied into a buffer of its exact size);
 *  - mlb_statsd_parse() accepts or refuses with EINVAL or E2BIG and a one-line reason;
 *  - the reply of mlb_statsd_answer() is one line, JSON our reader reads, with errno 0
 *    exactly when the request was accepted; an accepted stats request's reply is the stats
 *    line of the record (mlb_statsd_line() equals mlb_stats_print());
 *  - mlb_statsd_line() on the input itself (a hostile server's reply to --monitor) never
 *    crashes and says why it refuses in one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "statsd.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

static char reply[MLB_STATSD_MAX_REPLY], line[MLB_STATSD_MAX_REPLY], want[MLB_STATSD_MAX_REPLY];

static int one_line(const char *s)
{
	return s[0] && !strchr(s, '\n');
}

static void check(const char *in, size_t n, const struct mlb_stats_rec *rec)
{
	struct mlb_statsd_req req;
	char err[512];
	size_t k;
	int e;

	err[0] = 0;
	e = mlb_statsd_parse(in, n, &req, err, sizeof(err));
	if (e && ((e != EINVAL && e != E2BIG) || !one_line(err)))
		abort(); /* a refusal is EINVAL or E2BIG, with a reason in one line */
	if (!e && ((req.kind != MLB_STATSD_STATS && req.kind != MLB_STATSD_META) ||
		   strcmp(req.target, "top")))
		abort();
	k = mlb_statsd_answer(in, n, rec, reply, sizeof(reply));
	if (k != strlen(reply) || !k || reply[k - 1] != '\n' ||
	    strchr(reply, '\n') != reply + k - 1)
		abort(); /* one line */
	if (strncmp(reply, e ? "{\"errno\":" : "{\"errno\":0,", e ? 9 : 11) ||
	    (e && !strncmp(reply, "{\"errno\":0,", 11)))
		abort(); /* errno 0 exactly when accepted */
	if (!e && req.kind == MLB_STATSD_STATS) {
		FILE *f;

		if (mlb_statsd_line(reply, k, line, sizeof(line), err, sizeof(err)))
			abort(); /* our reply reads back */
		f = fmemopen(want, sizeof(want), "w");
		mlb_stats_print(f, rec);
		fclose(f);
		want[strcspn(want, "\n")] = 0;
		if (strcmp(line, want))
			abort(); /* and it is the stats line */
	} else {
		int rc = mlb_statsd_line(reply, k, line, sizeof(line), err, sizeof(err));

		if ((rc == 0) != (e == 0))
			abort(); /* an error reply reads as an error, a meta reply does not */
	}
	err[0] = 0;
	if (mlb_statsd_line(in, n, line, sizeof(line), err, sizeof(err)) && !one_line(err))
		abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct mlb_stats_rec rec;
	const char *nl = memchr(data, '\n', size);
	size_t n = nl ? (size_t)((const u8 *)nl - data) : size;
	char *in = malloc(n ? n : 1);

	if (!rec.nr_doms) { /* a record with every value distinct, learning on */
		for (int i = 0; i < MLB_NR_SHEAD; i++)
			rec.head[i] = i * 3.25;
		for (int i = 0; i < MLB_NR_STATS; i++)
			rec.cnt[i] = 1ULL << i;
		rec.nr_doms = 2;
		rec.dom[1][MLB_SD_LOAD] = 1.5;
		rec.learning = true;
		rec.learn[MLB_SL_GEN] = 3;
	}
	memcpy(in, data, n);
	check(in, n, &rec);
	check(in, n, &rec);
	free(in);
	return 0;
}
