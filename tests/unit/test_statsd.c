// SPDX-License-Identifier: GPL-2.0
/*
 * unit/statsd: the stats socket without a scheduler.
 * - the request parser: the requests scx_stats' clients send (Rust, Python, with spaces, no
 *   args) accepted; each malformed shape refused with EINVAL or E2BIG and a reason;
 * - the JSON writer: escaping, overflow noticed;
 * - the stats reply of a record is exactly the stats line of that record once turned back
 *   into key=value (mlb_statsd_line), in learning mode too: one table, both outputs;
 * - stats_meta describes every key of the tables, with the top struct and the domain dict;
 * - the server on a socket in a temporary directory: mode 0600, replies to good and bad
 *   requests on one connection, an oversized line gets E2BIG and its connection closed, the
 *   rate limit answers EAGAIN, the 9th connection EBUSY, a stale socket replaced, a regular
 *   file at the path left alone, the socket removed at stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "statsd.h"
#include "check.h"

static int parse(const char *s, struct mlb_statsd_req *r)
{
	char err[256];
	int e = mlb_statsd_parse(s, strlen(s), r, err, sizeof(err));

	if (e && (!err[0] || strchr(err, '\n'))) {
		fprintf(stderr, "no one-line reason for '%s': '%s'\n", s, err);
		failures++;
	}
	return e;
}

static void test_parse(void)
{
	static const char *const bad[] = {
	    "",
	    "   ",
	    "stats",
	    "[]",
	    "\"stats\"",
	    "42",
	    "{}",
	    "{\"args\":{}}",
	    "{\"req\":1}",
	    "{\"req\":\"stat\"}",
	    "{\"req\":\"STATS\"}",
	    "{\"req\":\"stats\",\"req\":\"stats\"}",
	    "{\"req\":\"stats\",\"args\":{},\"args\":{}}",
	    "{\"req\":\"stats\",\"args\":[]}",
	    "{\"req\":\"stats\",\"args\":\"top\"}",
	    "{\"req\":\"stats\",\"args\":{\"target\":1}}",
	    "{\"req\":\"stats\",\"args\":{\"target\":\"nope\"}}",
	    "{\"req\":\"stats\",\"args\":{\"target\":\"top\",\"target\":\"top\"}}",
	    "{\"req\":\"stats\",\"args\":{\"x\":{\"y\":\"z\"}}}",
	    "{\"req\":\"stats\",\"more\":1}",
	    "{\"req\":\"stats\"} x",
	    "{\"req\":\"stats\"}{}",
	    "{\"req\":\"stats\",}",
	    "{\"req\" \"stats\"}",
	    "{\"req\":\"sta\\x\"}",
	    "{\"req\":\"st\\u0000ats\"}",
	    "{\"req\":\"st\\u00e9\"}",
	    "{\"req\":\"st\tats\"}",
	    "{\"req\":\"stats",
	    "{\"req\":\"stats\",\"args\":{\"a\":-}}",
	    "{\"req\":\"stats\",\"args\":{\"a\":01}}",
	    "{\"req\":true}",
	    "{\"req\":null}",
	};
	struct mlb_statsd_req r;
	char big[MLB_STATSD_MAX_REQ + 10], err[256];

	CHECK(parse("{\"req\":\"stats\",\"args\":{\"target\":\"top\"}}", &r) == 0 &&
	      r.kind == MLB_STATSD_STATS && !strcmp(r.target, "top"));
	CHECK(parse("{\"req\": \"stats\", \"args\": {}}", &r) == 0 && r.kind == MLB_STATSD_STATS);
	CHECK(parse(" {\"req\":\"stats\"} \r\n", &r) == 0 && !strcmp(r.target, "top"));
	CHECK(parse("{\"args\":{\"x\":\"1\"},\"req\":\"stats_meta\"}", &r) == 0 &&
	      r.kind == MLB_STATSD_META);
	CHECK(parse("{\"req\":\"st\\u0061ts\"}", &r) == 0 && r.kind == MLB_STATSD_STATS);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &r) != EINVAL) {
			fprintf(stderr, "accepted or not EINVAL: '%s'\n", bad[i]);
			failures++;
		}
	/* a NUL inside the line */
	CHECK(mlb_statsd_parse("{\"req\":\"stats\"}\0", 16, &r, err, sizeof(err)) == EINVAL);
	/* too many arguments */
	{
		char s[2048];
		size_t n = snprintf(s, sizeof(s), "{\"req\":\"stats\",\"args\":{");

		for (int i = 0; i <= MLB_STATSD_MAX_ARGS; i++)
			n += snprintf(s + n, sizeof(s) - n, "%s\"a%d\":\"v\"", i ? "," : "", i);
		snprintf(s + n, sizeof(s) - n, "}}");
		CHECK(parse(s, &r) == EINVAL);
	}
	/* nested beyond the reader's depth */
	CHECK(parse("{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{}}}}}}}}}}",
		    &r) == EINVAL);
	/* the size bound: the longest line accepted, one byte more is E2BIG */
	memset(big, ' ', sizeof(big));
	memcpy(big, "{\"req\":\"stats\"}", 15);
	CHECK(mlb_statsd_parse(big, MLB_STATSD_MAX_REQ - 1, &r, err, sizeof(err)) == 0);
	CHECK(mlb_statsd_parse(big, MLB_STATSD_MAX_REQ, &r, err, sizeof(err)) == E2BIG);
}

static int any(void *ctx, const char *const *path, int depth, enum mlb_json_kind kind,
	       const char *val, size_t vlen)
{
	(void)ctx, (void)path, (void)depth, (void)kind, (void)val, (void)vlen;
	return 0;
}

/* The reader alone: its depth bound, exactly (the request parser refuses earlier). */
static void test_reader(void)
{
	char s[256] = "", deeper[300], err[256];
	size_t n = 0;

	for (int i = 0; i < MLB_JSON_MAX_DEPTH; i++)
		n += snprintf(s + n, sizeof(s) - n, "{\"k\":");
	n += snprintf(s + n, sizeof(s) - n, "1");
	for (int i = 0; i < MLB_JSON_MAX_DEPTH; i++)
		n += snprintf(s + n, sizeof(s) - n, "}");
	CHECK(mlb_json_walk(s, n, any, NULL, err, sizeof(err)) == 0);
	snprintf(deeper, sizeof(deeper), "{\"k\":%s}", s);
	CHECK(mlb_json_walk(deeper, strlen(deeper), any, NULL, err, sizeof(err)) == -1 &&
	      strstr(err, "nested deeper"));
	CHECK(mlb_json_walk("-0.5e+3", 7, any, NULL, err, sizeof(err)) == 0);
	CHECK(mlb_json_walk("1.", 2, any, NULL, err, sizeof(err)) == -1);
	CHECK(mlb_json_walk("{\"a\":1,}", 8, any, NULL, err, sizeof(err)) == -1);
}

static void test_writer(void)
{
	struct mlb_json j;
	char b[64], small[8];

	mlb_json_init(&j, b, sizeof(b));
	mlb_json_open(&j);
	mlb_json_key(&j, "a\"b");
	mlb_json_str(&j, "x\\y\n");
	mlb_json_key(&j, "n");
	mlb_json_u64(&j, 18446744073709551615ULL);
	mlb_json_close(&j);
	CHECK(!j.overflow);
	CHECK(!strcmp(b, "{\"a\\\"b\":\"x\\\\y\\u000a\",\"n\":18446744073709551615}"));
	mlb_json_init(&j, small, sizeof(small));
	mlb_json_str(&j, "longer than eight");
	CHECK(j.overflow && strlen(small) < sizeof(small));
}

/* A record with every value distinct, as the loader fills it. */
static void fill(struct mlb_stats_rec *r, bool learning)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < MLB_NR_SHEAD; i++)
		r->head[i] = 1000 + i + 0.25 * (i % 3);
	r->head[MLB_SH_TASKS] = -1; /* a signed value */
	for (int i = 0; i < MLB_NR_STATS; i++)
		r->cnt[i] = 1000000007ULL * (i + 1);
	r->nr_doms = 3;
	for (u32 d = 0; d < r->nr_doms; d++)
		for (int i = 0; i < MLB_NR_SDOM; i++)
			r->dom[d][i] = d * 10 + i + 0.125;
	r->learning = learning;
	for (int i = 0; i < MLB_NR_SLEARN; i++)
		r->learn[i] = 7 * i + 0.5;
}

static void test_same_line(bool learning)
{
	static char reply[MLB_STATSD_MAX_REPLY], line[MLB_STATSD_MAX_REPLY],
	    want[MLB_STATSD_MAX_REPLY];
	const char *req = "{\"req\":\"stats\",\"args\":{\"target\":\"top\"}}";
	struct mlb_stats_rec r;
	char err[256];
	size_t n;
	FILE *f;

	fill(&r, learning);
	n = mlb_statsd_answer(req, strlen(req), &r, reply, sizeof(reply));
	CHECK(n == strlen(reply) && n > 0 && reply[n - 1] == '\n' && !strchr(reply, '\n')[1]);
	CHECK(!strncmp(reply, "{\"errno\":0,\"args\":{\"resp\":{\"t\":", 31));
	CHECK(mlb_statsd_line(reply, n, line, sizeof(line), err, sizeof(err)) == 0);
	f = fmemopen(want, sizeof(want), "w");
	mlb_stats_print(f, &r);
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	if (strcmp(line, want)) {
		fprintf(stderr, "JSON says:  %s\nline says:  %s\n", line, want);
		failures++;
	}
	/* no record yet: EAGAIN, which the client reads as an error */
	n = mlb_statsd_answer(req, strlen(req), NULL, reply, sizeof(reply));
	CHECK(strstr(reply, "\"errno\":11") &&
	      mlb_statsd_line(reply, n, line, sizeof(line), err, sizeof(err)) == -1);
	CHECK(strstr(err, "no stats yet"));
}

/* stats_meta names every key, the top struct and the domain dict. */
static void test_meta(void)
{
	static char reply[MLB_STATSD_MAX_REPLY];
	const char *req = "{\"req\":\"stats_meta\"}";
	char k[128];

	mlb_statsd_answer(req, strlen(req), NULL, reply, sizeof(reply));
	CHECK(!strncmp(reply, "{\"errno\":0,\"args\":{\"resp\":{\"MlbStats\":{", 39));
	CHECK(strstr(reply, "\"top\":\"true\""));
	CHECK(strstr(
	    reply, "\"doms\":{\"dict\":{\"key\":\"u64\",\"datum\":{\"struct\":\"MlbDomStats\"}}"));
	CHECK(strstr(reply, "\"_om_label\":\"dom\""));
	for (int i = 0; i < MLB_NR_STATS; i++) {
		snprintf(k, sizeof(k),
			 "\"%s\":{\"datum\":\"u64\",\"desc\":", mlb_stat_cnt_keys[i].key);
		CHECK(strstr(reply, k));
	}
	for (int i = 0; i < MLB_NR_SHEAD; i++) {
		snprintf(k, sizeof(k), "\"%s\":{\"datum\":", mlb_stat_head_keys[i].key);
		CHECK(strstr(reply, k));
	}
	for (int i = 0; i < MLB_NR_SDOM; i++) {
		snprintf(k, sizeof(k), "\"%s\":{\"datum\":", mlb_stat_dom_keys[i].key);
		CHECK(strstr(reply, k));
	}
	for (int i = 0; i < MLB_NR_SLEARN; i++) {
		snprintf(k, sizeof(k), "\"%s\":{\"datum\":", mlb_stat_learn_keys[i].key);
		CHECK(strstr(reply, k));
	}
}

static int conn(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 5};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Send @req (raw), read one reply line into @buf; returns its length, 0 on end of file. */
static size_t ask(int fd, const char *req, size_t len, char *buf, size_t size)
{
	size_t n = 0;

	if (len && send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len)
		return 0;
	while (n < size - 1 && !memchr(buf, '\n', n)) {
		ssize_t k = recv(fd, buf + n, size - 1 - n, 0);

		if (k <= 0)
			break;
		n += k;
	}
	buf[n] = '\0';
	return n;
}

static void test_server(void)
{
	static char buf[MLB_STATSD_MAX_REPLY], big[MLB_STATSD_MAX_REQ + 100];
	char dir[] = "/tmp/statsd-test.XXXXXX", path[256], err[512];
	const char *req = "{\"req\":\"stats\"}\n";
	struct mlb_stats_rec r;
	struct mlb_statsd *sd, *sd2;
	struct stat st;
	int fd, fds[MLB_STATSD_MAX_CLIENTS + 1], eagain = 0;

	CHECK(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run/scx/root/stats", dir);
	sd = mlb_statsd_start(path, false, 0, err, sizeof(err));
	CHECK(sd);
	if (!sd) {
		fprintf(stderr, "start: %s\n", err);
		return;
	}
	CHECK(!stat(path, &st) && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600);
	fd = conn(path);
	CHECK(fd >= 0);
	/* before the first record: EAGAIN; then the record; garbage; then still the record */
	ask(fd, req, strlen(req), buf, sizeof(buf));
	CHECK(strstr(buf, "{\"errno\":11,"));
	fill(&r, false);
	mlb_statsd_publish(sd, &r);
	ask(fd, req, strlen(req), buf, sizeof(buf));
	CHECK(!strncmp(buf, "{\"errno\":0,", 11) && strstr(buf, "\"doms\":{\"0\":"));
	ask(fd, "\x01\xff{{{\n", 6, buf, sizeof(buf));
	CHECK(!strncmp(buf, "{\"errno\":22,", 12));
	ask(fd, "{\"req\":\"stats_meta\"}\r\n", 22, buf, sizeof(buf));
	CHECK(!strncmp(buf, "{\"errno\":0,\"args\":{\"resp\":{\"MlbStats\"", 37));
	ask(fd, req, strlen(req), buf, sizeof(buf));
	CHECK(!strncmp(buf, "{\"errno\":0,", 11));
	/* a line longer than the bound: E2BIG, then the connection is closed */
	memset(big, 'x', sizeof(big));
	ask(fd, big, sizeof(big), buf, sizeof(buf));
	CHECK(!strncmp(buf, "{\"errno\":7,", 11));
	CHECK(ask(fd, "", 0, buf, sizeof(buf)) == 0); /* end of file */
	close(fd);
	/* the rate limit: 2 x MLB_STATSD_RATE requests at once, some get EAGAIN */
	fd = conn(path);
	for (int i = 0; i < 2 * MLB_STATSD_RATE; i++) {
		ask(fd, req, strlen(req), buf, sizeof(buf));
		eagain += !strncmp(buf, "{\"errno\":11,", 12);
	}
	CHECK(eagain >= MLB_STATSD_RATE / 2);
	close(fd);
	sleep(1); /* the bucket refills */
	/* MLB_STATSD_MAX_CLIENTS connections served, one more refused with EBUSY */
	for (int i = 0; i <= MLB_STATSD_MAX_CLIENTS; i++)
		fds[i] = conn(path);
	for (int i = 0; i < MLB_STATSD_MAX_CLIENTS; i++) {
		ask(fds[i], req, strlen(req), buf, sizeof(buf));
		CHECK(!strncmp(buf, "{\"errno\":0,", 11));
	}
	ask(fds[MLB_STATSD_MAX_CLIENTS], "", 0, buf, sizeof(buf));
	CHECK(!strncmp(buf, "{\"errno\":16,", 12));
	for (int i = 0; i <= MLB_STATSD_MAX_CLIENTS; i++)
		close(fds[i]);
	mlb_statsd_stop(sd);
	CHECK(lstat(path, &st) && errno == ENOENT);

	/* a stale socket is replaced; the group mode is 0660; stopping the old server leaves
	 * the new one's socket alone */
	sd = mlb_statsd_start(path, false, 0, err, sizeof(err));
	CHECK(sd);
	sd2 = mlb_statsd_start(path, true, getgid(), err, sizeof(err));
	CHECK(sd2);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0660);
	mlb_statsd_stop(sd);
	CHECK(!stat(path, &st));
	mlb_statsd_stop(sd2);
	CHECK(lstat(path, &st) && errno == ENOENT);
	/* a regular file at the path is not removed */
	close(open(path, O_CREAT | O_WRONLY, 0600));
	CHECK(!mlb_statsd_start(path, false, 0, err, sizeof(err)) && strstr(err, "not a socket"));
	CHECK(!stat(path, &st) && S_ISREG(st.st_mode));
	unlink(path);
	/* a directory writable by others is refused */
	snprintf(buf, sizeof(buf), "%s/run/scx/root", dir);
	chmod(buf, 0777);
	CHECK(!mlb_statsd_start(path, false, 0, err, sizeof(err)) && strstr(err, "writable"));
	/* a relative path is refused */
	CHECK(!mlb_statsd_start("stats", false, 0, err, sizeof(err)));
	snprintf(buf, sizeof(buf), "rm -rf %s", dir);
	CHECK(system(buf) == 0);
}

int main(void)
{
	test_parse();
	test_reader();
	test_writer();
	test_same_line(false);
	test_same_line(true);
	test_meta();
	test_server();
	printf("statsd: %d failed\n", failures);
	return failures != 0;
}
