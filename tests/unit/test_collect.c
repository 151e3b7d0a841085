// SPDX-License-Identifier: GPL-2.0
/*
 * unit/collect: the collector of src/collect.c. Joins (out of order, unknown ids, duplicates,
 * expiry, eviction), counters, the window, the CSV file read back with mlb_csv_read() (label
 * and imitation), refusals (another header, group/world-writable, locked, not a regular
 * file), write errors (/dev/full, short writes at RLIMIT_FSIZE, recovery), repair of a torn
 * tail, and crash safety: writers killed with SIGKILL never leave a partial line.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "check.h"
#include "mlb/features.h"
#include "collect.h"
#include "mlb/heuristic.h"

#define MS	    1000000ULL
#define KILL_ROUNDS 24

static char dir[64];

/* One emitted sample as the test expects to read it back. */
struct want {
	s32 x[MLB_NR_FEATURES];
	u8 label, imitation, decision;
	s32 wait;     /* us: from the decision to the next run */
	u32 prop_ppm; /* the probability of the decision taken */
};

/* What a row holds as its target: the wait with its action (the window, and the CSV's
 * first_wait_us), the imitation label, or the outcome label. */
enum { T_WAIT, T_IMITATION, T_LABEL };

static struct want wants[4096];
static u64 cost_by[4]; /* realized cost of the samples fed, per decider, us */
static size_t n_wants;

static const char *tmp_path(const char *name)
{
	static char path[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

/* A valid decision; features derived from @id, TASK_SINCE_RAN_US = @id, not cache hot. */
static struct mlb_decision_rec mkdec(u64 id, u64 ts, int decision, int heuristic)
{
	struct mlb_decision_rec d = {
	    .id = id,
	    .ts_ns = ts,
	    .pid = (u32)id,
	    .decision = (u8)decision,
	    .heuristic = (u8)heuristic,
	    .decider = (u8)(id % 3),
	    .kind = (u8)(id % 3),
	    .score = -(s32)(id % 1000),
	    .prop_ppm = 980000 + (u32)(id % 7),
	};

	for (int i = 0; i < MLB_NR_FEATURES; i++) {
		s64 lo = mlb_feature_descs[i].min, span = (s64)mlb_feature_descs[i].max - lo + 1;

		d.f.v[i] = (s32)(lo + (s64)((id * 7919 + (u64)i * 104729) % (u64)span));
	}
	d.f.v[MLB_F_TASK_SINCE_RAN_US] = (s32)(id % 10000000);
	d.f.v[MLB_F_TASK_CACHE_HOT] = 0;
	d.f.v[MLB_F_KIND] = d.kind;
	return d;
}

/* An outcome of @d whose outcome label is @label (-1: nothing observed). */
static struct mlb_outcome_rec mkout(const struct mlb_decision_rec *d, int label)
{
	struct mlb_outcome_rec o = {.id = d->id, .runs = 1, .est_other_ns = 1 * MS};

	if (label < 0) {
		o.runs = 0;
		o.flags = MLB_OUT_EXITED;
	} else if (d->decision) {
		o.wait_ns = 100000;
		o.flags = label ? 0 : MLB_OUT_MOVED_BACK;
	} else {
		o.wait_ns = label ? 10 * MS : 100000;
	}
	o.first_wait_ns = o.wait_ns;
	o.observed_ns = 20 * MS;
	return o;
}

/* Feed @o; when it should give a sample, expect it with outcome label @label. */
static int feed_outcome(struct mlb_collector *c, const struct mlb_decision_rec *d, int label)
{
	struct mlb_outcome_rec o = mkout(d, label);
	int ret = mlb_collect_outcome(c, &o);

	if (!ret && n_wants < sizeof(wants) / sizeof(wants[0])) {
		memcpy(wants[n_wants].x, d->f.v, sizeof(d->f.v));
		wants[n_wants].label = (u8)label;
		wants[n_wants].imitation = d->heuristic;
		/* the realized cost: the wait, plus the move's cost at its level (open_coll's) */
		cost_by[d->decider] +=
		    o.first_wait_ns / 1000 + (!d->decision		? 0
					      : d->f.v[MLB_F_SAME_CORE] ? 10
					      : d->f.v[MLB_F_SAME_LLC]	? 1000
					      : d->f.v[MLB_F_SAME_NODE]
						  ? 5000
						  : 10000 * (u64)d->f.v[MLB_F_NUMA_DIST] / 10) *
						 (d->f.v[MLB_F_TASK_CACHE_HOT] ? 2 : 1);
		wants[n_wants].decision = d->decision;
		wants[n_wants].wait = (s32)(o.first_wait_ns / 1000);
		wants[n_wants].prop_ppm = d->prop_ppm;
		n_wants++;
	}
	return ret;
}

/* @ds holds exactly wants[from..to), with the outcome or the imitation labels. */
static int same_rows_in(const struct mlb_dataset *ds, size_t from, size_t to, int target,
			int window)
{
	if (ds->n != to - from) {
		fprintf(stderr, "%zu rows, expected %zu\n", ds->n, to - from);
		return 0;
	}
	for (size_t k = 0; k < ds->n; k++) {
		const struct want *w = &wants[from + k];

		s32 t = target == T_WAIT	? w->wait
			: target == T_IMITATION ? w->imitation
						: w->label;
		/* the wait comes with its action and probability; labels with action 0, p 1 */
		int a = target == T_WAIT || window ? w->decision : 0;
		u32 p = target == T_WAIT || window ? w->prop_ppm : MLB_PPM_ONE;

		/* the window's imitation: the heuristic's action waits 0, the other 100 ms */
		if (target == T_IMITATION && window)
			t = w->decision == w->imitation ? 0 : MLB_WAIT_MAX_US;

		if (memcmp(ds->x + k * MLB_NR_FEATURES, w->x, sizeof(w->x)) || ds->t[k] != t ||
		    ds->y[k] != (t > 0) || ds->a[k] != a || ds->p[k] != p) {
			fprintf(stderr, "row %zu differs\n", k);
			return 0;
		}
	}
	return 1;
}

/* @ds, a collector's window, holds exactly wants[from..to) */
static int same_rows(const struct mlb_dataset *ds, size_t from, size_t to, int target)
{
	return same_rows_in(ds, from, to, target, 1);
}

static int csv_matches(const char *path, const char *label, size_t from, size_t to)
{
	struct mlb_dataset ds = {};
	char err[256];
	long n = mlb_csv_read(path, label, &ds, err, sizeof(err));
	int ok;

	if (n < 0) {
		fprintf(stderr, "mlb_csv_read: %s\n", err);
		return 0;
	}
	ok = same_rows_in(&ds, from, to,
			  !strcmp(label, "imitation")	    ? T_IMITATION
			  : !strcmp(label, "first_wait_us") ? T_WAIT
							    : T_LABEL,
			  0);
	mlb_dataset_free(&ds);
	return ok;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (size_t n = 4096; n == 4096; *len += n) {
		if (*len + 4096 > cap) {
			cap = 2 * cap + 4096;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		n = fread(buf + *len, 1, 4096, f);
	}
	fclose(f);
	buf[*len] = 0;
	return buf;
}

/*
 * The data rows of @path if every line is complete: it ends with '\n', has as many fields as
 * the header and does not cross a page boundary (comment and blank lines are skipped, as the
 * reader does). -1 (with a message) otherwise.
 */
static long whole_lines(const char *path)
{
	size_t len, hdr_commas = 0, commas = 0, start = 0;
	long page = sysconf(_SC_PAGESIZE), rows = -1;
	char *buf = slurp(path, &len);

	if (!buf || !len || buf[len - 1] != '\n') {
		fprintf(stderr, "%s: empty or a partial last line\n", path);
		free(buf);
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == ',') {
			commas++;
			continue;
		}
		if (buf[i] != '\n')
			continue;
		if (start == i || buf[start] == '#') {
			/* a comment or blank line */
		} else if (rows >= 0 && commas != hdr_commas) {
			fprintf(stderr, "%s: a line of %zu fields at %zu, the header has %zu\n",
				path, commas + 1, start, hdr_commas + 1);
			rows = -2;
			break;
		} else if (start / page != i / page) {
			fprintf(stderr, "%s: the line at %zu crosses a page boundary\n", path,
				start);
			rows = -2;
			break;
		} else {
			if (rows < 0)
				hdr_commas = commas;
			rows++;
		}
		commas = 0;
		start = i + 1;
	}
	free(buf);
	return rows < -1 ? -1 : rows;
}

/* The values of column @name in the data rows of @path, at most @max. How many, or -1. */
static long column(const char *path, const char *name, long long *out, long max)
{
	size_t len;
	char *buf = slurp(path, &len), *save = NULL, *line;
	int col = -1;
	long n = -1;

	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *fs = NULL, *f = strtok_r(line, ",", &fs);

		if (line[0] == '#')
			continue;

		for (int c = 0; f; c++, f = strtok_r(NULL, ",", &fs)) {
			if (n < 0 && !strcmp(f, name))
				col = c;
			else if (n >= 0 && c == col && n < max)
				out[n] = atoll(f);
		}
		n++;
	}
	free(buf);
	return col < 0 ? -1 : n < max ? n : max;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static struct mlb_collector *open_coll(const char *path, u32 max_pending, u32 window, int imitation)
{
	struct mlb_collect_opts o;
	char err[256];
	struct mlb_collector *c;

	mlb_collect_defaults(&o);
	o.path = path;
	o.max_pending = max_pending;
	o.window = window;
	o.imitation = imitation;
	o.heur.move_cost_core_us = 10;
	o.heur.move_cost_llc_us = 1000;
	o.heur.move_cost_xllc_us = 5000;
	o.heur.move_cost_node_us = 10000;
	c = mlb_collector_new(&o, err, sizeof(err));
	if (!c)
		fprintf(stderr, "mlb_collector_new: %s\n", err);
	return c;
}

static void test_invalid(void)
{
	struct mlb_collector *c = mlb_collector_new(NULL, NULL, 0);
	struct mlb_decision_rec d;
	struct mlb_collect_opts o;
	char err[256];

	CHECK(c);
	if (!c)
		return;
	d = mkdec(0, 1, 1, 1); /* id 0 */
	CHECK(mlb_collect_decision(c, &d) == -EINVAL);
	d = mkdec(1, 1, 2, 1);
	CHECK(mlb_collect_decision(c, &d) == -EINVAL);
	d = mkdec(1, 1, 1, 1);
	d.decider = MLB_BY_CONTROL + 1;
	CHECK(mlb_collect_decision(c, &d) == -EINVAL);
	d = mkdec(1, 1, 1, 1);
	d.prop_ppm = MLB_PPM_ONE + 1;
	CHECK(mlb_collect_decision(c, &d) == -EINVAL);
	d = mkdec(1, 1, 1, 1);
	d.kind = 3;
	CHECK(mlb_collect_decision(c, &d) == -EINVAL);
	d = mkdec(1, 1, 1, 1);
	d.f.v[MLB_F_IMBALANCE] = MLB_MAX_IMBALANCE + 1;
	CHECK(mlb_collect_decision(c, &d) == -EINVAL);
	d = mkdec(1, 1, 1, 1);
	d.f.v[MLB_F_NUMA_DIST] = 9;
	CHECK(mlb_collect_decision(c, &d) == -EINVAL);
	CHECK(mlb_collector_stats(c)->invalid == 7);
	CHECK(mlb_collector_stats(c)->decisions == 0 && mlb_collector_stats(c)->pending == 0);
	CHECK(mlb_collector_window(c)->n == 0);
	CHECK(mlb_collector_io_error(c) == 0);
	CHECK(mlb_collect_flush(c, 0) == 0);
	CHECK(mlb_collector_free(c) == 0);
	CHECK(mlb_collector_free(NULL) == 0);

	mlb_collect_defaults(&o);
	o.max_pending = 0;
	CHECK(!mlb_collector_new(&o, err, sizeof(err)) && errno == EINVAL);
	mlb_collect_defaults(&o);
	o.path = tmp_path("no-such-dir/x.csv");
	err[0] = 0;
	CHECK(!mlb_collector_new(&o, err, sizeof(err)) && errno == ENOENT);
	CHECK(strstr(err, "no-such-dir/x.csv") && !strchr(err, '\n'));
}

/* Joins, counters, the file and the window; then appending to the same file. */
static void test_join(void)
{
	const char *path = tmp_path("join.csv");
	struct mlb_decision_rec d[64], dup;
	const struct mlb_collect_stats *s;
	u64 label1 = 0, label0 = 0, unlabelled = 0, by[3] = {};

	memset(cost_by, 0, sizeof(cost_by));
	struct mlb_collector *c;
	long long ids[64], v[64];
	size_t w0 = n_wants;
	struct stat st;
	long n;

	umask(022);
	c = open_coll(path, 64, 1000, 0);
	CHECK(c);
	if (!c)
		return;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0640);
	CHECK(whole_lines(path) == 0);

	/* 1..20 decided, their outcomes in a shuffled order; every third one unlabelled */
	for (u64 id = 1; id <= 20; id++) {
		d[id] = mkdec(id, id * MS, (id / 2) % 2, id % 2);
		CHECK(mlb_collect_decision(c, &d[id]) == 0);
	}
	CHECK(mlb_collector_stats(c)->pending == 20);
	for (u64 k = 0; k < 20; k++) {
		u64 id = 1 + (k * 7) % 20;
		int label = id % 3 == 0 ? -1 : (int)((id / 4) % 2);

		CHECK(feed_outcome(c, &d[id], label) == (label < 0 ? -ENODATA : 0));
		if (label < 0) {
			unlabelled++;
			continue;
		}
		label1 += label == 1;
		label0 += label == 0;
		by[id % 3]++;
	}
	/* an unknown id, a second outcome for id 1 */
	d[21] = mkdec(999, 0, 0, 0);
	CHECK(feed_outcome(c, &d[21], 1) == -ENOENT);
	CHECK(feed_outcome(c, &d[1], 1) == -ENOENT);

	/* a duplicate decision: the newer one is joined */
	d[22] = mkdec(22, 22 * MS, 1, 0);
	dup = d[22];
	dup.heuristic = 1;
	CHECK(mlb_collect_decision(c, &d[22]) == 0);
	CHECK(mlb_collect_decision(c, &dup) == 0);
	CHECK(feed_outcome(c, &dup, 1) == 0);
	label1++;
	by[22 % 3]++;

	/* an outcome before its decision: unmatched; the decision then waits until it expires */
	d[30] = mkdec(30, 1000 * MS, 0, 0);
	CHECK(feed_outcome(c, &d[30], 1) == -ENOENT);
	CHECK(mlb_collect_decision(c, &d[30]) == 0);
	for (u64 id = 40; id < 45; id++) {
		d[id] = mkdec(id, 1000 * MS + id, 1, 1);
		CHECK(mlb_collect_decision(c, &d[id]) == 0);
	}
	d[50] = mkdec(50, 2500 * MS, 1, 0);
	CHECK(mlb_collect_decision(c, &d[50]) == 0);
	CHECK(mlb_collect_expire(c, 3000 * MS, 1000 * MS) == 6);
	CHECK(mlb_collect_expire(c, 3000 * MS, 1000 * MS) == 0);
	CHECK(feed_outcome(c, &d[42], 1) == -ENOENT);
	CHECK(feed_outcome(c, &d[50], 0) == 0);
	label0++;
	by[50 % 3]++;

	s = mlb_collector_stats(c);
	CHECK(s->decisions == 20 + 2 + 1 + 5 + 1);
	CHECK(s->duplicates == 1);
	CHECK(s->outcomes == 20 + 2 + 1 + 1 + 1 + 1);
	CHECK(s->unmatched == 4);
	CHECK(s->expired == 6);
	CHECK(s->evicted == 0);
	CHECK(s->unlabelled == unlabelled);
	CHECK(s->samples == n_wants - w0 && s->samples == label1 + label0);
	CHECK(s->label1 == label1 && s->label0 == label0);
	CHECK(s->by_decider[0] == by[0] && s->by_decider[1] == by[1] && s->by_decider[2] == by[2]);
	for (int k = 0; k < 4; k++)
		CHECK(s->cost_us[k] == cost_by[k]);
	CHECK(cost_by[1] && cost_by[2]); /* decider 0 rows are the unlabelled ones here */
	CHECK(s->written == s->samples && s->write_dropped == 0 && s->write_errors == 0);
	CHECK(s->pending == 0 && s->window_n == s->samples);
	CHECK(same_rows(mlb_collector_window(c), w0, n_wants, T_WAIT));
	CHECK(mlb_collect_flush(c, 5000 * MS) == 0);
	CHECK(mlb_collector_io_error(c) == 0);
	CHECK(mlb_collector_free(c) == 0);

	CHECK(whole_lines(path) == (long)(n_wants - w0));
	CHECK(csv_matches(path, "label", w0, n_wants));
	CHECK(csv_matches(path, "imitation", w0, n_wants));
	CHECK(csv_matches(path, "first_wait_us", w0, n_wants));
	/* the other columns: the duplicate's heuristic, waits in us, the bounce flag */
	n = column(path, "id", ids, 64);
	CHECK(n == (long)(n_wants - w0));
	CHECK(column(path, "heuristic", v, 64) == n);
	for (long k = 0; k < n; k++)
		if (ids[k] == 22)
			CHECK(v[k] == 1);
	CHECK(column(path, "wait_us", v, 64) == n);
	for (long k = 0; k < n; k++)
		CHECK(v[k] == 100 || v[k] == 10000);
	CHECK(column(path, "est_other_us", v, 64) == n && v[0] == 1000);
	CHECK(column(path, "moved_back", v, 64) == n);
	for (long k = 0; k < n; k++)
		CHECK(v[k] == (d[ids[k]].decision && !wants[w0 + k].label));

	/* appending to it, imitation labels in a window of 3 */
	c = open_coll(path, 64, 3, 1);
	CHECK(c);
	if (!c)
		return;
	for (u64 id = 100; id < 105; id++) {
		d[id - 100] = mkdec(id, id, 1, (int)(id % 2));
		CHECK(mlb_collect_decision(c, &d[id - 100]) == 0);
		CHECK(feed_outcome(c, &d[id - 100], (int)(id / 2 % 2)) == 0);
	}
	CHECK(same_rows(mlb_collector_window(c), n_wants - 3, n_wants, T_IMITATION));
	CHECK(mlb_collector_stats(c)->window_n == 3);
	CHECK(mlb_collector_free(c) == 0);
	CHECK(csv_matches(path, "label", w0, n_wants));
	CHECK(csv_matches(path, "imitation", w0, n_wants));
	CHECK(csv_matches(path, "first_wait_us", w0, n_wants));
}

/* Eviction of the oldest when max_pending is small; chains under many ids; the window ring. */
static void test_evict_window(void)
{
	struct mlb_collector *c = open_coll(NULL, 4, 5, 0);
	static struct mlb_decision_rec d[2000];
	const struct mlb_dataset *w;
	u64 seed = 1;

	CHECK(c);
	if (!c)
		return;
	for (u64 id = 1; id <= 6; id++) {
		d[id] = mkdec(id, id, 1, 1);
		CHECK(mlb_collect_decision(c, &d[id]) == 0);
	}
	CHECK(mlb_collector_stats(c)->evicted == 2 && mlb_collector_stats(c)->pending == 4);
	CHECK(feed_outcome(c, &d[1], 1) == -ENOENT);
	CHECK(feed_outcome(c, &d[2], 1) == -ENOENT);
	for (u64 id = 3; id <= 6; id++)
		CHECK(feed_outcome(c, &d[id], 1) == 0);
	CHECK(mlb_collector_stats(c)->pending == 0);
	CHECK(mlb_collector_free(c) == 0);

	/* 2000 random ids through a table of 1024: the 976 oldest evicted, the rest joined */
	c = open_coll(NULL, 1024, 5, 0);
	CHECK(c);
	if (!c)
		return;
	for (int k = 0; k < 2000; k++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		d[k] = mkdec((seed >> 1) | 1, (u64)k, k % 2, 0);
		CHECK(mlb_collect_decision(c, &d[k]) == 0);
	}
	CHECK(mlb_collector_stats(c)->evicted == 976);
	for (int k = 0; k < 2000; k++) {
		int i = (int)((k * 1237ULL) % 2000);

		CHECK(feed_outcome(c, &d[i], 1) == (i < 976 ? -ENOENT : 0));
	}
	CHECK(mlb_collector_stats(c)->pending == 0 && mlb_collector_stats(c)->samples == 1024);
	w = mlb_collector_window(c);
	CHECK(w->n == 5 && same_rows(w, n_wants - 5, n_wants, T_WAIT));
	CHECK(mlb_collector_free(c) == 0);

	/* the window keeps the last 5, oldest first, through its compactions */
	c = open_coll(NULL, 16, 5, 0);
	CHECK(c);
	if (!c)
		return;
	for (u64 id = 1; id <= 23; id++) {
		d[id] = mkdec(id, id, 0, 1);
		CHECK(mlb_collect_decision(c, &d[id]) == 0);
		CHECK(feed_outcome(c, &d[id], (int)(id % 2)) == 0);
		w = mlb_collector_window(c);
		CHECK(w->n == (id < 5 ? id : 5));
		CHECK(w->x[(w->n - 1) * MLB_NR_FEATURES + MLB_F_TASK_SINCE_RAN_US] == (s32)id);
	}
	CHECK(same_rows(mlb_collector_window(c), n_wants - 5, n_wants, T_WAIT));
	CHECK(mlb_collector_free(c) == 0);
	/* expiry with 0 drops everything, whatever the clock */
	c = open_coll(NULL, 16, 0, 0);
	CHECK(c);
	if (!c)
		return;
	for (u64 id = 1; id <= 3; id++)
		CHECK(mlb_collect_decision(c, &d[id]) == 0);
	CHECK(mlb_collect_expire(c, 0, 0) == 3 && mlb_collector_stats(c)->pending == 0);
	CHECK(feed_outcome(c, &d[1], 1) == -ENOENT);
	CHECK(mlb_collector_window(c)->n == 0);
	CHECK(mlb_collector_free(c) == 0);
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	if (fchmod(fd, mode) || close(fd) || n != (ssize_t)strlen(text))
		return -1;
	return 0;
}

/* @path is refused with a one-line error naming it, and is left exactly as it was. */
static void check_refused(const char *path, int any_file, const char *why)
{
	struct mlb_collect_opts o;
	size_t len0, len1;
	char *before = slurp(path, &len0), *after, err[512] = "";
	struct stat st0, st1;
	struct mlb_collector *c;

	CHECK(stat(path, &st0) == 0);
	mlb_collect_defaults(&o);
	o.path = path;
	o.any_file = any_file;
	c = mlb_collector_new(&o, err, sizeof(err));
	if (c) {
		fprintf(stderr, "%s: %s was accepted\n", why, path);
		failures++;
		mlb_collector_free(c);
	}
	CHECK(strstr(err, path) && !strchr(err, '\n'));
	after = slurp(path, &len1);
	CHECK(stat(path, &st1) == 0);
	CHECK(len0 == len1 && (!len0 || !memcmp(before, after, len0)));
	CHECK(st0.st_mode == st1.st_mode && st0.st_mtim.tv_sec == st1.st_mtim.tv_sec &&
	      st0.st_mtim.tv_nsec == st1.st_mtim.tv_nsec);
	free(before);
	free(after);
}

static void test_refuse(void)
{
	const char *other = tmp_path("other.csv"), *good = tmp_path("good.csv");
	const char *old = tmp_path("old.csv"), *torn = tmp_path("torn.csv");
	struct mlb_decision_rec d = mkdec(7, 7, 1, 1);
	struct mlb_collector *c, *c2;
	char hdr[MLB_CSV_HEADER_MAX], buf[2048], err[256] = "";
	off_t size;

	CHECK(write_file(other, "id,foo,label\n1,2,1\n", 0640) == 0);
	check_refused(other, 0, "another header");
	/* the header mlb-model synth writes is not the collector's */
	CHECK(mlb_csv_header(hdr, sizeof(hdr)) > 0);
	snprintf(buf, sizeof(buf), "%s,label\n", hdr);
	CHECK(write_file(old, buf, 0640) == 0);
	check_refused(old, 0, "the synth header");
	/* a header cut short (power loss right after creation) */
	buf[40] = 0;
	CHECK(write_file(old, buf, 0640) == 0);
	check_refused(old, 0, "a partial header");

	/* the right header, but group- or world-writable */
	c = open_coll(good, 16, 0, 0);
	CHECK(c && mlb_collector_free(c) == 0);
	CHECK(chmod(good, 0660) == 0);
	check_refused(good, 0, "group-writable");
	CHECK(chmod(good, 0602) == 0);
	check_refused(good, 0, "world-writable");
	CHECK(chmod(good, 0640) == 0);

	/* one collector per file */
	c = open_coll(good, 16, 0, 0);
	CHECK(c);
	check_refused(good, 0, "locked by another collector");
	mlb_collector_free(c);

	/* a device is refused unless the test option allows it */
	err[0] = 0;
	{
		struct mlb_collect_opts o;

		mlb_collect_defaults(&o);
		o.path = "/dev/null";
		CHECK(!mlb_collector_new(&o, err, sizeof(err)) && strstr(err, "/dev/null"));
	}

	/* a torn last line (power loss) is cut off at open, the rest kept */
	c = open_coll(torn, 16, 0, 0);
	CHECK(c);
	if (!c)
		return;
	CHECK(mlb_collect_decision(c, &d) == 0 && feed_outcome(c, &d, 1) == 0);
	mlb_collector_free(c);
	size = file_size(torn);
	{
		int fd = open(torn, O_WRONLY | O_APPEND);

		CHECK(fd >= 0 && write(fd, "8,1,2", 5) == 5 && close(fd) == 0);
	}
	fprintf(stderr, "checking the checker on a torn file, a complaint is expected:\n");
	CHECK(whole_lines(torn) < 0);
	c = open_coll(torn, 16, 0, 0);
	CHECK(c);
	if (!c)
		return;
	CHECK(mlb_collector_stats(c)->repaired_bytes == 5 && file_size(torn) == size);
	d = mkdec(8, 8, 0, 0);
	CHECK(mlb_collect_decision(c, &d) == 0 && feed_outcome(c, &d, 0) == 0);
	c2 = mlb_collector_new(NULL, err, sizeof(err)); /* no file: independent */
	CHECK(c2 && mlb_collector_free(c2) == 0);
	CHECK(mlb_collector_free(c) == 0);
	CHECK(whole_lines(torn) == 2);
	CHECK(csv_matches(torn, "label", n_wants - 2, n_wants));
}

/* ENOSPC from /dev/full: samples counted dropped, reported once, nothing written, no crash. */
static void test_dev_full(void)
{
	struct mlb_collect_opts o;
	struct mlb_collector *c;
	struct mlb_decision_rec d;
	char err[256];
	size_t w0 = n_wants;

	mlb_collect_defaults(&o);
	o.path = "/dev/full";
	o.window = 10;
	o.any_file = 1;
	c = mlb_collector_new(&o, err, sizeof(err));
	CHECK(c);
	if (!c)
		return;
	CHECK(mlb_collector_io_error(c) == ENOSPC); /* the header */
	CHECK(mlb_collector_io_error(c) == 0);
	for (u64 id = 1; id <= 3; id++) {
		d = mkdec(id, id, 1, 0);
		CHECK(mlb_collect_decision(c, &d) == 0);
		CHECK(feed_outcome(c, &d, 1) == 0);
		CHECK(mlb_collector_io_error(c) == 0); /* the same failure goes on: said once */
	}
	CHECK(mlb_collector_stats(c)->samples == 3 && mlb_collector_stats(c)->written == 0);
	CHECK(mlb_collector_stats(c)->write_dropped == 3);
	CHECK(mlb_collector_stats(c)->write_errors == 4);
	CHECK(same_rows(mlb_collector_window(c), w0, n_wants, T_WAIT)); /* training data kept */
	CHECK(mlb_collect_flush(c, 0) == 0);
	CHECK(mlb_collector_free(c) == 0);
}

/*
 * Short writes and EFBIG at RLIMIT_FSIZE: a line that does not fit is cut off again, the
 * error is said once per run of failures, writing resumes when the limit is lifted, and the
 * header of a new file waits for the first line that fits.
 */
static void set_fsize(rlim_t lim)
{
	struct rlimit r;

	CHECK(getrlimit(RLIMIT_FSIZE, &r) == 0);
	r.rlim_cur = lim;
	CHECK(setrlimit(RLIMIT_FSIZE, &r) == 0);
}

/*
 * Feed @n samples (stay, outcome label @label) with the file size limit at @lim, lifted again
 * before anything can be printed to the test's log file. Returns the number of surprises.
 */
static int feed_limited(struct mlb_collector *c, u64 *id, int n, int label, rlim_t lim)
{
	int bad = 0;

	set_fsize(lim);
	for (int k = 0; k < n; k++, (*id)++) {
		struct mlb_decision_rec d = mkdec(*id, *id, 0, 1);

		bad += mlb_collect_decision(c, &d) != 0;
		bad += feed_outcome(c, &d, label) != 0;
	}
	set_fsize(RLIM_INFINITY);
	return bad;
}

static void test_short_writes(void)
{
	const char *path = tmp_path("short.csv");
	struct mlb_collect_opts o;
	struct mlb_collector *c;
	size_t w0 = n_wants, written = 0;
	char err[256];
	u64 id = 1;
	off_t size, page = sysconf(_SC_PAGESIZE);

	signal(SIGXFSZ, SIG_IGN);
	mlb_collect_defaults(&o);
	o.path = path;
	o.window = 0;
	set_fsize(5); /* not even the header fits */
	c = mlb_collector_new(&o, err, sizeof(err));
	set_fsize(RLIM_INFINITY);
	CHECK(c);
	if (!c)
		return;
	CHECK(file_size(path) == 0);
	CHECK(mlb_collector_io_error(c) == ENOSPC && mlb_collector_io_error(c) == 0);

	for (int round = 0; round < 3; round++) {
		size = file_size(path);
		/* the limit inside the next line: short writes, cut off again */
		CHECK(feed_limited(c, &id, 2, 1, (rlim_t)size + 10) == 0);
		CHECK(file_size(path) == size);
		/* a new error after a success is said again (round 0: the header's run goes on) */
		CHECK(mlb_collector_io_error(c) == (round ? ENOSPC : 0));
		/* at the limit: EFBIG, in the same run of failures */
		CHECK(feed_limited(c, &id, 1, 0, (rlim_t)(size ? size : 1)) == 0);
		CHECK(mlb_collector_io_error(c) == 0);
		CHECK(file_size(path) == size);
		n_wants -= 3; /* none of them is in the file */
		/*
		 * lifted: writing resumes (with the header first in round 0) and goes on into the
		 * next page, which ends the run of failures
		 */
		do {
			CHECK(feed_limited(c, &id, 1, 0, RLIM_INFINITY) == 0);
			written++;
		} while (file_size(path) <= (size + page - 1) / page * page && written < 1000);
		CHECK(mlb_collector_io_error(c) == 0);
		CHECK(whole_lines(path) == (long)written);
	}
	CHECK(mlb_collector_stats(c)->written == written);
	CHECK(mlb_collector_stats(c)->write_dropped == 9);
	CHECK(mlb_collector_free(c) == 0);
	CHECK(csv_matches(path, "label", w0, n_wants));
	signal(SIGXFSZ, SIG_DFL);
}

/* The collector's sample @id with every feature at its smallest magnitude: a short line. */
static struct mlb_decision_rec mkdec_short(u64 id)
{
	struct mlb_decision_rec d = mkdec(id, id, 0, 1);

	for (int i = 0; i < MLB_NR_FEATURES; i++) {
		s32 lo = mlb_feature_descs[i].min, hi = mlb_feature_descs[i].max;

		d.f.v[i] = lo > 0 ? lo : hi < 0 ? hi : 0;
	}
	d.f.v[MLB_F_KIND] = d.kind;
	return d;
}

/* Feed one sample, short or long, at the file size limit @lim. Returns the size added. */
static off_t feed_one(struct mlb_collector *c, const char *path, u64 *id, int short_line,
		      rlim_t lim)
{
	struct mlb_decision_rec d = short_line ? mkdec_short(*id) : mkdec(*id, *id, 0, 1);
	off_t before = file_size(path);

	(*id)++;
	set_fsize(lim);
	CHECK(mlb_collect_decision(c, &d) == 0);
	CHECK(feed_outcome(c, &d, 0) == 0);
	set_fsize(RLIM_INFINITY);
	return file_size(path) - before;
}

/*
 * A full file system still takes the lines that fit in the slack of the file's last page
 * (tmpfs, ext4): short lines succeed between long ones that fail. The error is said once for
 * the whole run, and again only after writing went on into a new page.
 */
static void test_page_slack(void)
{
	const char *path = tmp_path("slack.csv");
	off_t page = sysconf(_SC_PAGESIZE), size, len_short, len_long;
	struct mlb_collector *c;
	size_t w0 = n_wants;
	u64 id = 1;

	signal(SIGXFSZ, SIG_IGN);
	unlink(path);
	c = open_coll(path, 64, 0, 0);
	CHECK(c);
	if (!c)
		return;
	len_long = feed_one(c, path, &id, 0, RLIM_INFINITY); /* with the header */
	len_short = feed_one(c, path, &id, 1, RLIM_INFINITY);
	len_long = feed_one(c, path, &id, 0, RLIM_INFINITY);
	CHECK(len_short > 0 && len_long > len_short + 32);
	CHECK(mlb_collector_io_error(c) == 0);
	for (int round = 0; round < 2; round++) {
		/* far from the end of a page, with room for a short line and not a long one */
		while ((size = file_size(path)) % page > page - 8 * len_long && size < 64 * page)
			feed_one(c, path, &id, 0, RLIM_INFINITY);
		for (int k = 0; k < 3; k++) {
			off_t slack = file_size(path) + len_short + 16;

			CHECK(feed_one(c, path, &id, 0, (rlim_t)slack) == 0);
			n_wants--; /* not in the file */
			CHECK(feed_one(c, path, &id, 1, (rlim_t)slack) >
			      0); /* the short line fits */
			/* said at the first failure of the run, not after a line in the slack */
			CHECK(mlb_collector_io_error(c) == (k ? 0 : ENOSPC));
		}
		/* into the next page: the run is over, the next failure is said again */
		while (file_size(path) <= (size + page - 1) / page * page)
			feed_one(c, path, &id, 0, RLIM_INFINITY);
		CHECK(mlb_collector_io_error(c) == 0);
	}
	CHECK(mlb_collector_stats(c)->write_dropped == 6);
	CHECK(mlb_collector_free(c) == 0);
	CHECK(whole_lines(path) > 0);
	CHECK(csv_matches(path, "label", w0, n_wants));
	signal(SIGXFSZ, SIG_DFL);
}

/* A child writing samples as fast as it can until SIGKILL. Never returns. */
static void writer(const char *path, u64 first_id, int ready_fd)
{
	struct mlb_collector *c = open_coll(path, 64, 0, 0);

	if (!c)
		_exit(1);
	for (u64 id = first_id;; id++) {
		struct mlb_decision_rec d = mkdec(id, id, (int)(id % 2), 0);
		struct mlb_outcome_rec o = mkout(&d, (int)(id / 2 % 2));

		mlb_collect_decision(c, &d);
		mlb_collect_outcome(c, &o);
		if (id == first_id + 200 && ready_fd >= 0) {
			if (write(ready_fd, "r", 1) != 1)
				_exit(1);
			close(ready_fd);
			ready_fd = -1;
		}
	}
}

/*
 * Crash safety: writers killed with SIGKILL at random moments leave only whole lines (checked
 * before the next writer opens the file, which would repair a torn tail). A writer that built
 * its line in pieces or through a stdio buffer would be caught here.
 */
static void test_kill(void)
{
	const char *path = tmp_path("kill.csv");
	long rows = 0, prev = 0;
	struct timespec ts;

	for (int round = 0; round < KILL_ROUNDS; round++) {
		int p[2], status;
		pid_t pid;
		char r;

		CHECK(pipe(p) == 0);
		fflush(NULL);
		pid = fork();
		CHECK(pid >= 0);
		if (pid < 0)
			return;
		if (!pid) {
			close(p[0]);
			writer(path, 1 + (u64)round * 100000000, p[1]);
		}
		close(p[1]);
		CHECK(read(p[0], &r, 1) == 1);
		close(p[0]);
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(1 + (round * 7) % 13) * 1000000 + round * 37000;
		nanosleep(&ts, NULL);
		CHECK(kill(pid, SIGKILL) == 0);
		CHECK(waitpid(pid, &status, 0) == pid);
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		rows = whole_lines(path);
		if (rows < 0) {
			fprintf(stderr,
				"round %d: not only whole lines after SIGKILL (size %lld)\n", round,
				(long long)file_size(path));
			failures++;
			return;
		}
		CHECK(rows > prev + 200);
		prev = rows;
	}
	{
		struct mlb_dataset ds = {};
		char err[256];

		CHECK(mlb_csv_read(path, "label", &ds, err, sizeof(err)) == rows);
		mlb_dataset_free(&ds);
	}
	printf("kill: %ld whole rows after %d SIGKILLs\n", rows, KILL_ROUNDS);
}

static void cleanup(void)
{
	const char *names[] = {"join.csv", "other.csv", "good.csv", "old.csv",
			       "torn.csv", "short.csv", "kill.csv"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(tmp_path(names[i]));
	rmdir(dir);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/mlb-collect-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_invalid();
	test_join();
	test_evict_window();
	test_refuse();
	test_dev_full();
	test_short_writes();
	test_page_slack();
	test_kill();
	if (!failures)
		cleanup();
	printf("%d failures\n", failures);
	return failures != 0;
}
