/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stats socket: sched-ext's scx_stats protocol on a UNIX stream socket, so that scxtop,
 * the OpenMetrics exporter of sched-ext and `scx_mlb --monitor` read what the stats line says.
 *
 * The protocol, one JSON object per line each way:
 *   request   {"req":"stats","args":{"target":"top"}}   (args and target optional)
 *             {"req":"stats_meta","args":{}}
 *   reply     {"errno":0,"args":{"resp":VALUE}}
 *   error     {"errno":E,"args":{"resp":"why"}}          (E a positive errno: EINVAL, ...)
 * VALUE for stats: the last stats record (struct mlb_stats_rec) as an object, keyed as the
 * stats line is, the domains in a dict "doms" {"0": {"load":..,"q":..,"wait_us":..}, ...};
 * for stats_meta: the description of those fields, in scx_stats' metadata format.
 *
 * The socket is a way into a root daemon, so: mode 0600 (0660 with a group), requests of at
 * most MLB_STATSD_MAX_REQ bytes, at most MLB_STATSD_RATE requests a second in all, at most
 * MLB_STATSD_MAX_CLIENTS connections, idle ones closed after MLB_STATSD_IDLE_S seconds; a
 * bad request gets an error reply and changes nothing.
 */
#ifndef __MLB_STATSD_H
#define __MLB_STATSD_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "mlb.h"
#include "json.h"

#define MLB_STATSD_PATH	       "/var/run/scx/root/stats" /* scx_stats' default */
#define MLB_STATSD_MAX_REQ     4096 /* bytes of one request line, its newline included */
#define MLB_STATSD_MAX_REPLY   65536
#define MLB_STATSD_RATE	       50 /* requests a second, all clients together */
#define MLB_STATSD_MAX_CLIENTS 8
#define MLB_STATSD_IDLE_S      120
#define MLB_STATSD_MAX_ARGS    16

enum mlb_statsd_req_kind { MLB_STATSD_STATS, MLB_STATSD_META };

/* A request, parsed. */
struct mlb_statsd_req {
	enum mlb_statsd_req_kind kind;
	char target[32]; /* "top" when none was given */
};

/*
 * mlb_statsd_parse - read one request line @line (@len bytes, without its newline) into @req.
 * Strict: a JSON object with "req" (a string: "stats" or "stats_meta") and optionally "args"
 * (an object of at most MLB_STATSD_MAX_ARGS strings; "target", when given, must be "top",
 * the one target); no other key, no key twice. Returns 0, or a positive errno with a
 * one-line reason in @err: E2BIG for a line longer than MLB_STATSD_MAX_REQ - 1 bytes, EINVAL
 * for anything else.
 */
int mlb_statsd_parse(const char *line, size_t len, struct mlb_statsd_req *req, char *err,
		     size_t errlen);

/*
 * mlb_statsd_answer - the reply to the request line @line (@len bytes, no newline) when the
 * last stats record is @rec (NULL: none yet, stats requests get EAGAIN), into @out (@size
 * bytes, MLB_STATSD_MAX_REPLY is enough): one JSON object and a newline, NUL-terminated.
 * Returns its length; never fails (an error is a reply too).
 */
size_t mlb_statsd_answer(const char *line, size_t len, const struct mlb_stats_rec *rec, char *out,
			 size_t size);

/* mlb_statsd_error - the error reply {"errno":@errnum,"args":{"resp":@msg}} and a newline. */
size_t mlb_statsd_error(int errnum, const char *msg, char *out, size_t size);

/*
 * mlb_statsd_line - the stats line ("stats key=value ...", no newline) that the stats reply
 * @reply (its JSON line) carries: the daemon's own line for that record. Returns 0, or -1
 * with a one-line reason in @err (malformed reply, an error reply, a line too long).
 */
int mlb_statsd_line(const char *reply, size_t len, char *line, size_t size, char *err,
		    size_t errlen);

struct mlb_statsd;

/*
 * mlb_statsd_start - serve the socket at @path from a thread of its own: the directories
 * above it are made (0755) when missing and must then be root's and writable by nobody
 * else; a stale socket there is replaced (anything else is left alone: an error). The socket
 * is 0600, or 0660 with group @gid when @group. Returns the server, or NULL with a one-line
 * reason in @err (nothing left behind).
 */
struct mlb_statsd *mlb_statsd_start(const char *path, bool group, gid_t gid, char *err,
				    size_t errlen);

/* mlb_statsd_publish - make @rec what stats requests get from now on (copied). */
void mlb_statsd_publish(struct mlb_statsd *sd, const struct mlb_stats_rec *rec);

/* mlb_statsd_stop - stop serving, close every connection, remove the socket. NULL is fine. */
void mlb_statsd_stop(struct mlb_statsd *sd);

/*
 * mlb_statsd_monitor - `scx_mlb --monitor`: every @period_s seconds ask the socket at @path
 * for stats and print the stats line to @out, until *@stop. Returns 0 when stopped, or -1
 * with a one-line reason in @err (no server there, an error reply).
 */
int mlb_statsd_monitor(const char *path, unsigned int period_s, volatile sig_atomic_t *stop,
		       FILE *out, char *err, size_t errlen);

#endif /* __MLB_STATSD_H */
