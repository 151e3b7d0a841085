// SPDX-License-Identifier: GPL-2.0
/*
 * The stats socket (statsd.h): the request parser, the replies built from the stats record,
 * the server thread, and the client of `scx_mlb --monitor`.
 *
 * The server is one thread with one poll() loop: the listening socket, a pipe that stops
 * it, and at most MLB_STATSD_MAX_CLIENTS connections, each with a buffer of one request
 * line. The scheduler's loop publishes a record (a copy under a mutex) once per stats
 * period; the thread answers from the latest copy and never touches BPF, so a slow or
 * hostile client costs this thread alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "statsd.h"

/* ---- requests ---- */

struct parse_ctx {
	struct mlb_statsd_req *req;
	bool have_req, have_args, have_target;
	int nargs;
	char *err;
	size_t errlen;
};

/* The reason @msg, and the client's word @what (a key or value) made printable, into err. */
static int perr(struct parse_ctx *c, int e, const char *msg, const char *what)
{
	char w[MLB_JSON_MAX_KEY];
	size_t i;

	for (i = 0; what && what[i] && i < sizeof(w) - 1; i++)
		w[i] = (unsigned char)what[i] < 0x20 || what[i] == 0x7f ? '?' : what[i];
	w[i] = '\0';
	snprintf(c->err, c->errlen, "%s%s%s", msg, what ? ": " : "", w);
	return e;
}

static int parse_leaf(void *ctx, const char *const *path, int depth, enum mlb_json_kind kind,
		      const char *val, size_t vlen)
{
	struct parse_ctx *c = ctx;

	(void)vlen;
	if (depth == 0)
		return kind == MLB_JSON_OBJ ? 0
					    : perr(c, EINVAL, "a request is a JSON object", NULL);
	if (depth == 1 && !strcmp(path[0], "req")) {
		if (c->have_req)
			return perr(c, EINVAL, "\"req\" given twice", NULL);
		c->have_req = true;
		if (kind != MLB_JSON_STR)
			return perr(c, EINVAL, "\"req\" is not a string", NULL);
		if (!strcmp(val, "stats"))
			c->req->kind = MLB_STATSD_STATS;
		else if (!strcmp(val, "stats_meta"))
			c->req->kind = MLB_STATSD_META;
		else
			return perr(c, EINVAL, "unknown request (stats, stats_meta)", val);
		return 0;
	}
	if (depth == 1 && !strcmp(path[0], "args")) {
		if (c->have_args)
			return perr(c, EINVAL, "\"args\" given twice", NULL);
		c->have_args = true;
		return kind == MLB_JSON_OBJ ? 0
					    : perr(c, EINVAL, "\"args\" is not an object", NULL);
	}
	if (depth == 1)
		return perr(c, EINVAL, "unknown key (req, args)", path[0]);
	/* depth >= 2: under "args" (the only object at depth 1) */
	if (depth > 2 || kind != MLB_JSON_STR)
		return perr(c, EINVAL, "an argument is not a string", path[1]);
	if (++c->nargs > MLB_STATSD_MAX_ARGS)
		return perr(c, EINVAL, "too many arguments", NULL);
	if (!strcmp(path[1], "target")) {
		if (c->have_target)
			return perr(c, EINVAL, "\"target\" given twice", NULL);
		c->have_target = true;
		if (strcmp(val, "top"))
			return perr(c, EINVAL, "unknown target (top)", val);
		snprintf(c->req->target, sizeof(c->req->target), "%s", val);
	}
	return 0; /* other arguments are accepted and ignored, as scx_stats' servers do */
}

int mlb_statsd_parse(const char *line, size_t len, struct mlb_statsd_req *req, char *err,
		     size_t errlen)
{
	struct parse_ctx c = {.req = req, .err = err, .errlen = errlen};
	int e;

	memset(req, 0, sizeof(*req));
	snprintf(req->target, sizeof(req->target), "top");
	if (len > MLB_STATSD_MAX_REQ - 1) {
		snprintf(err, errlen, "request longer than %d bytes", MLB_STATSD_MAX_REQ - 1);
		return E2BIG;
	}
	e = mlb_json_walk(line, len, parse_leaf, &c, err, errlen);
	if (e < 0) /* the reader's own reason is in err */
		return EINVAL;
	if (e)
		return e;
	if (!c.have_req)
		return perr(&c, EINVAL, "\"req\" is missing", NULL);
	return 0;
}

/* ---- replies ---- */

static void head(struct mlb_json *j, int errnum)
{
	mlb_json_open(j);
	mlb_json_key(j, "errno");
	mlb_json_int(j, errnum);
	mlb_json_key(j, "args");
	mlb_json_open(j);
	mlb_json_key(j, "resp");
}

static size_t tail(struct mlb_json *j)
{
	mlb_json_close(j);
	mlb_json_close(j);
	mlb_json_raw(j, "\n");
	return j->len;
}

size_t mlb_statsd_error(int errnum, const char *msg, char *out, size_t size)
{
	struct mlb_json j;

	mlb_json_init(&j, out, size);
	head(&j, errnum);
	mlb_json_str(&j, msg);
	return tail(&j);
}

static void num(struct mlb_json *j, const struct mlb_stat_key *k, double v)
{
	char b[64];

	mlb_json_key(j, k->key);
	mlb_json_num(j, mlb_stats_fmt(b, sizeof(b), k->fmt, v));
}

/* The record as the stats reply's "resp": the stats line's keys in its order. */
static void stats_resp(struct mlb_json *j, const struct mlb_stats_rec *r)
{
	char b[16];

	mlb_json_open(j);
	for (int i = 0; i < MLB_NR_SHEAD; i++)
		num(j, &mlb_stat_head_keys[i], r->head[i]);
	for (int i = 0; i < MLB_NR_STATS; i++) {
		mlb_json_key(j, mlb_stat_cnt_keys[i].key);
		mlb_json_u64(j, r->cnt[i]);
	}
	mlb_json_key(j, "doms");
	mlb_json_open(j);
	for (u32 d = 0; d < r->nr_doms && d < MLB_MAX_DOMS; d++) {
		snprintf(b, sizeof(b), "%u", d);
		mlb_json_key(j, b);
		mlb_json_open(j);
		for (int i = 0; i < MLB_NR_SDOM; i++)
			num(j, &mlb_stat_dom_keys[i], r->dom[d][i]);
		mlb_json_close(j);
	}
	mlb_json_close(j);
	for (int i = 0; r->learning && i < MLB_NR_SLEARN; i++)
		num(j, &mlb_stat_learn_keys[i], r->learn[i]);
	mlb_json_close(j);
}

static void meta_field(struct mlb_json *j, const struct mlb_stat_key *k, const char *datum)
{
	mlb_json_key(j, k->key);
	mlb_json_open(j);
	mlb_json_key(j, "datum");
	mlb_json_str(j, datum ? datum : k->fmt == MLB_SFMT_I ? "i64" : "float");
	mlb_json_key(j, "desc");
	mlb_json_str(j, k->doc);
	mlb_json_close(j);
}

/* One struct of the metadata: name, desc, top, user attributes (OpenMetrics), fields. */
static void meta_struct(struct mlb_json *j, const char *name, const char *desc, bool top,
			const char *om_prefix, const char *om_label)
{
	mlb_json_key(j, name);
	mlb_json_open(j);
	mlb_json_key(j, "name");
	mlb_json_str(j, name);
	mlb_json_key(j, "desc");
	mlb_json_str(j, desc);
	if (top) {
		mlb_json_key(j, "top");
		mlb_json_str(j, "true");
	}
	mlb_json_key(j, "user");
	mlb_json_open(j);
	mlb_json_key(j, "_om_prefix");
	mlb_json_str(j, om_prefix);
	if (om_label) {
		mlb_json_key(j, "_om_label");
		mlb_json_str(j, om_label);
	}
	mlb_json_close(j);
	mlb_json_key(j, "fields");
	mlb_json_open(j);
}

static void meta_resp(struct mlb_json *j)
{
	mlb_json_open(j);
	meta_struct(j, "MlbStats", "scx_mlb: the values of its stats line", true, "scx_mlb_", NULL);
	for (int i = 0; i < MLB_NR_SHEAD; i++)
		meta_field(j, &mlb_stat_head_keys[i], NULL);
	for (int i = 0; i < MLB_NR_STATS; i++)
		meta_field(j, &mlb_stat_cnt_keys[i], "u64");
	mlb_json_key(j, "doms");
	mlb_json_open(j);
	mlb_json_key(j, "dict");
	mlb_json_open(j);
	mlb_json_key(j, "key");
	mlb_json_str(j, "u64");
	mlb_json_key(j, "datum");
	mlb_json_open(j);
	mlb_json_key(j, "struct");
	mlb_json_str(j, "MlbDomStats");
	mlb_json_close(j);
	mlb_json_close(j);
	mlb_json_key(j, "desc");
	mlb_json_str(j, "per domain (one last-level cache of a node), by domain number");
	mlb_json_close(j);
	for (int i = 0; i < MLB_NR_SLEARN; i++)
		meta_field(j, &mlb_stat_learn_keys[i], NULL);
	mlb_json_close(j); /* fields */
	mlb_json_close(j);
	meta_struct(j, "MlbDomStats", "scx_mlb: one domain", false, "scx_mlb_dom_", "dom");
	for (int i = 0; i < MLB_NR_SDOM; i++)
		meta_field(j, &mlb_stat_dom_keys[i], NULL);
	mlb_json_close(j); /* fields */
	mlb_json_close(j);
	mlb_json_close(j);
}

size_t mlb_statsd_answer(const char *line, size_t len, const struct mlb_stats_rec *rec, char *out,
			 size_t size)
{
	struct mlb_statsd_req req;
	struct mlb_json j;
	char err[256];
	int e;

	e = mlb_statsd_parse(line, len, &req, err, sizeof(err));
	if (e)
		return mlb_statsd_error(e, err, out, size);
	if (req.kind == MLB_STATSD_STATS && !rec)
		return mlb_statsd_error(EAGAIN, "no stats yet: the scheduler is starting", out,
					size);
	mlb_json_init(&j, out, size);
	head(&j, 0);
	if (req.kind == MLB_STATSD_STATS)
		stats_resp(&j, rec);
	else
		meta_resp(&j);
	tail(&j);
	if (j.overflow)
		return mlb_statsd_error(ENOSPC, "reply too large", out, size);
	return j.len;
}

/* ---- a stats reply back into the stats line (--monitor, and the tests) ---- */

struct line_ctx {
	char *line;
	size_t size, n;
	long long errnum;
	bool have_errno, have_resp, overflow;
	char msg[MLB_JSON_MAX_STR];
};

static void line_add(struct line_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void line_add(struct line_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(c->line + c->n, c->size - c->n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= c->size - c->n) {
		c->overflow = true;
		return;
	}
	c->n += k;
}

static int line_leaf(void *ctx, const char *const *path, int depth, enum mlb_json_kind kind,
		     const char *val, size_t vlen)
{
	struct line_ctx *c = ctx;

	(void)vlen;
	if (depth == 1 && !strcmp(path[0], "errno") && kind == MLB_JSON_NUM) {
		c->errnum = strtoll(val, NULL, 10);
		c->have_errno = true;
	} else if (depth == 2 && !strcmp(path[0], "args") && !strcmp(path[1], "resp")) {
		c->have_resp = true;
		if (kind == MLB_JSON_STR)
			snprintf(c->msg, sizeof(c->msg), "%s", val);
	} else if (depth == 3 && !strcmp(path[0], "args") && !strcmp(path[1], "resp") &&
		   kind == MLB_JSON_NUM) {
		line_add(c, " %s=%s", path[2], val);
	} else if (depth == 5 && !strcmp(path[0], "args") && !strcmp(path[1], "resp") &&
		   !strcmp(path[2], "doms") && kind == MLB_JSON_NUM) {
		line_add(c, " dom%s_%s=%s", path[3], path[4], val);
	}
	return 0;
}

int mlb_statsd_line(const char *reply, size_t len, char *line, size_t size, char *err,
		    size_t errlen)
{
	struct line_ctx c = {.line = line, .size = size};

	if (len && reply[len - 1] == '\n')
		len--;
	line[0] = '\0';
	line_add(&c, "stats");
	if (mlb_json_walk(reply, len, line_leaf, &c, err, errlen)) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "malformed reply: %s", why);
		return -1;
	}
	if (!c.have_errno || !c.have_resp) {
		snprintf(err, errlen, "malformed reply: no errno or resp");
		return -1;
	}
	if (c.errnum) {
		snprintf(err, errlen, "error reply: %s (errno %lld)", c.msg, c.errnum);
		return -1;
	}
	if (c.overflow) {
		snprintf(err, errlen, "stats line longer than %zu bytes", size - 1);
		return -1;
	}
	return 0;
}

/* ---- the server ---- */

struct client {
	int fd; /* -1: a free slot */
	size_t n;
	double last; /* when it last sent something */
	char buf[MLB_STATSD_MAX_REQ];
};

struct mlb_statsd {
	pthread_t thread;
	int lfd, stop[2];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;
	ino_t ino;
	pthread_mutex_t lock;
	bool have; /* rec is valid */
	struct mlb_stats_rec rec;
	struct mlb_stats_rec snap; /* the thread's copy while it answers */
	double tokens, t_tokens;   /* the rate limit's bucket and when it was filled */
	struct client cl[MLB_STATSD_MAX_CLIENTS];
	char reply[MLB_STATSD_MAX_REPLY];
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void mlb_statsd_publish(struct mlb_statsd *sd, const struct mlb_stats_rec *rec)
{
	if (!sd)
		return;
	pthread_mutex_lock(&sd->lock);
	sd->rec = *rec;
	sd->have = true;
	pthread_mutex_unlock(&sd->lock);
}

static void client_close(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->n = 0;
}

/*
 * Send @len bytes of the reply, waiting at most a second in all for room: a client that does
 * not read its replies loses its connection, and stalls this thread for a second at most.
 */
static bool client_send(struct client *c, const char *s, size_t len)
{
	double end = mono() + 1;

	while (len) {
		ssize_t k = send(c->fd, s, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		struct pollfd pf = {.fd = c->fd, .events = POLLOUT};
		double left = end - mono();

		if (k > 0) {
			s += k;
			len -= k;
			continue;
		}
		if (k < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) < 0)
			break;
	}
	if (len)
		client_close(c);
	return !len;
}

/* Answer one request line of @c (@len bytes, its newline cut off). */
static bool answer(struct mlb_statsd *sd, struct client *c, char *line, size_t len)
{
	double now = mono();
	size_t n;
	bool have;

	if (len && line[len - 1] == '\r')
		len--;
	sd->tokens += (now - sd->t_tokens) * MLB_STATSD_RATE;
	if (sd->tokens > MLB_STATSD_RATE)
		sd->tokens = MLB_STATSD_RATE;
	sd->t_tokens = now;
	if (sd->tokens < 1) {
		n = mlb_statsd_error(EAGAIN, "rate limit: too many requests a second", sd->reply,
				     sizeof(sd->reply));
		return client_send(c, sd->reply, n);
	}
	sd->tokens -= 1;
	pthread_mutex_lock(&sd->lock);
	have = sd->have;
	if (have)
		sd->snap = sd->rec;
	pthread_mutex_unlock(&sd->lock);
	n = mlb_statsd_answer(line, len, have ? &sd->snap : NULL, sd->reply, sizeof(sd->reply));
	return client_send(c, sd->reply, n);
}

/* Read what @c sent and answer every complete line; close it on end of file or abuse. */
static void client_read(struct mlb_statsd *sd, struct client *c)
{
	ssize_t k = recv(c->fd, c->buf + c->n, sizeof(c->buf) - c->n, MSG_DONTWAIT);
	char *nl;

	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (k <= 0) {
		client_close(c);
		return;
	}
	c->n += k;
	c->last = mono();
	while (c->fd >= 0 && (nl = memchr(c->buf, '\n', c->n))) {
		size_t len = nl - c->buf;

		if (!answer(sd, c, c->buf, len))
			return;
		c->n -= len + 1;
		memmove(c->buf, nl + 1, c->n);
	}
	if (c->fd >= 0 && c->n == sizeof(c->buf)) { /* a line that does not fit: no resync */
		char msg[64];
		size_t n;

		snprintf(msg, sizeof(msg), "request longer than %d bytes", MLB_STATSD_MAX_REQ - 1);
		n = mlb_statsd_error(E2BIG, msg, sd->reply, sizeof(sd->reply));

		client_send(c, sd->reply, n);
		client_close(c);
	}
}

static void accept_one(struct mlb_statsd *sd)
{
	int fd = accept4(sd->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct client *c = NULL;

	if (fd < 0)
		return;
	for (int i = 0; i < MLB_STATSD_MAX_CLIENTS && !c; i++)
		if (sd->cl[i].fd < 0)
			c = &sd->cl[i];
	if (!c) {
		size_t n =
		    mlb_statsd_error(EBUSY, "too many connections", sd->reply, sizeof(sd->reply));

		send(fd, sd->reply, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
		return;
	}
	c->fd = fd;
	c->n = 0;
	c->last = mono();
}

static void *serve(void *arg)
{
	struct mlb_statsd *sd = arg;
	struct pollfd pf[2 + MLB_STATSD_MAX_CLIENTS];

	for (;;) {
		int map[MLB_STATSD_MAX_CLIENTS], n = 2;
		double now = mono();

		pf[0] = (struct pollfd){.fd = sd->stop[0], .events = POLLIN};
		pf[1] = (struct pollfd){.fd = sd->lfd, .events = POLLIN};
		for (int i = 0; i < MLB_STATSD_MAX_CLIENTS; i++) {
			struct client *c = &sd->cl[i];

			if (c->fd >= 0 && now - c->last > MLB_STATSD_IDLE_S)
				client_close(c);
			if (c->fd < 0)
				continue;
			map[n - 2] = i;
			pf[n++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
		}
		if (poll(pf, n, 1000) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[0].revents)
			break;
		for (int k = 2; k < n; k++)
			if (pf[k].revents)
				client_read(sd, &sd->cl[map[k - 2]]);
		if (pf[1].revents & POLLIN)
			accept_one(sd);
	}
	return NULL;
}

/* The directories of @path, made when missing; each must be root's (ours) and writable by
 * nobody else, or sticky (/tmp). */
static int dirs_ok(const char *path, char *err, size_t errlen)
{
	char d[PATH_MAX];
	struct stat st;

	snprintf(d, sizeof(d), "%s", path);
	for (char *s = strchr(d + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(d, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "cannot make %s: %s", d, strerror(errno));
			return -1;
		}
		if (stat(d, &st) || !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s is not a directory", d);
			return -1;
		}
		if (st.st_uid != geteuid() && st.st_uid != 0) {
			snprintf(err, errlen, "%s belongs to uid %u, not root", d, st.st_uid);
			return -1;
		}
		if (st.st_mode & 022 && !(st.st_mode & S_ISVTX)) {
			snprintf(err, errlen, "%s is writable by others (mode %04o)", d,
				 st.st_mode & 07777);
			return -1;
		}
		*s = '/';
	}
	return 0;
}

struct mlb_statsd *mlb_statsd_start(const char *path, bool group, gid_t gid, char *err,
				    size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct mlb_statsd *sd;
	struct stat st;
	mode_t um;
	int e;

	if (path[0] != '/' || strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "%s: an absolute path of at most %zu bytes is needed", path,
			 sizeof(sa.sun_path) - 1);
		return NULL;
	}
	if (dirs_ok(path, err, errlen))
		return NULL;
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s exists and is not a socket: left alone", path);
			return NULL;
		}
		unlink(path); /* a stale one: sched_ext runs one scheduler at a time */
	}
	sd = calloc(1, sizeof(*sd));
	if (!sd) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	sd->stop[0] = sd->stop[1] = -1;
	for (int i = 0; i < MLB_STATSD_MAX_CLIENTS; i++)
		sd->cl[i].fd = -1;
	snprintf(sd->path, sizeof(sd->path), "%s", path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	pthread_mutex_init(&sd->lock, NULL);
	sd->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sd->lfd < 0)
		goto fail;
	um = umask(0177); /* 0600 from the start: no window where others may connect */
	e = bind(sd->lfd, (struct sockaddr *)&sa, sizeof(sa));
	umask(um);
	if (e)
		goto fail;
	if (stat(path, &st))
		goto fail_unlink;
	sd->dev = st.st_dev;
	sd->ino = st.st_ino;
	if (group && (chown(path, -1, gid) || chmod(path, 0660)))
		goto fail_unlink;
	if (listen(sd->lfd, MLB_STATSD_MAX_CLIENTS) || pipe2(sd->stop, O_CLOEXEC))
		goto fail_unlink;
	sd->t_tokens = mono();
	sd->tokens = MLB_STATSD_RATE;
	errno = pthread_create(&sd->thread, NULL, serve, sd);
	if (errno)
		goto fail_unlink;
	return sd;
fail_unlink:
	e = errno;
	unlink(path);
	errno = e;
fail:
	snprintf(err, errlen, "%s: %s", path, strerror(errno));
	if (sd->lfd >= 0)
		close(sd->lfd);
	if (sd->stop[0] >= 0) {
		close(sd->stop[0]);
		close(sd->stop[1]);
	}
	pthread_mutex_destroy(&sd->lock);
	free(sd);
	return NULL;
}

void mlb_statsd_stop(struct mlb_statsd *sd)
{
	struct stat st;

	if (!sd)
		return;
	if (write(sd->stop[1], "x", 1) == 1)
		pthread_join(sd->thread, NULL);
	for (int i = 0; i < MLB_STATSD_MAX_CLIENTS; i++)
		client_close(&sd->cl[i]);
	/* remove the socket only if it is still ours (not a newer daemon's) */
	if (!lstat(sd->path, &st) && st.st_dev == sd->dev && st.st_ino == sd->ino)
		unlink(sd->path);
	close(sd->lfd);
	close(sd->stop[0]);
	close(sd->stop[1]);
	pthread_mutex_destroy(&sd->lock);
	free(sd);
}

/* ---- the client: --monitor ---- */

/* One stats request to the socket at @path; its reply (one line) into @buf. */
static int ask(const char *path, char *buf, size_t size, char *err, size_t errlen)
{
	static const char req[] = "{\"req\":\"stats\",\"args\":{\"target\":\"top\"}}\n";
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 5};
	size_t n = 0;
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) != sizeof(req) - 1) {
		snprintf(err, errlen, "%s: %s (is scx_mlb running?)", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (n < size - 1 && !memchr(buf, '\n', n)) {
		ssize_t k = recv(fd, buf + n, size - 1 - n, 0);

		if (k <= 0) {
			snprintf(err, errlen, "%s: %s", path,
				 k ? strerror(errno) : "connection closed before a reply");
			close(fd);
			return -1;
		}
		n += k;
	}
	close(fd);
	buf[n] = '\0';
	return 0;
}

int mlb_statsd_monitor(const char *path, unsigned int period_s, volatile sig_atomic_t *stop,
		       FILE *out, char *err, size_t errlen)
{
	static char reply[MLB_STATSD_MAX_REPLY], line[MLB_STATSD_MAX_REPLY];

	while (!*stop) {
		if (ask(path, reply, sizeof(reply), err, errlen) ||
		    mlb_statsd_line(reply, strlen(reply), line, sizeof(line), err, errlen))
			return -1;
		fprintf(out, "%s\n", line);
		fflush(out);
		for (unsigned int i = 0; i < period_s * 10 && !*stop; i++)
			usleep(100000);
	}
	return 0;
}
