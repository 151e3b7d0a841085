// SPDX-License-Identifier: GPL-2.0
/*
 * scx_mlb collector: decisions joined with their outcomes, labelled, written to the dataset.
 *
 * The label rule (also in README.md, "The label rule"). For decision d observed as outcome o:
 *
 *   no label (-1)  when o->runs == 0: nothing was observed (this includes a task that exited
 *                  before its first run after the decision).
 *   mean  = o->wait_ns / o->runs          run-queue wait per run where the task went (stayed)
 *   other = o->est_other_ns               the other domain's smoothed wait per run
 *   bar   = other * (100 + margin_pct) / 100 + slack_ns
 *   extra = hot_cost_ns if the task was cache hot (TASK_CACHE_HOT == 1) and the move leaves
 *           its LLC (SAME_LLC == 0), else 0
 *   migrate (d->decision == 1): 1 iff it did not bounce back to its source (no
 *           MLB_OUT_MOVED_BACK, set by the BPF side within bounce_ns), mean + extra <= bar
 *           (it waited no longer than it would have at the source, counting the cache it
 *           lost) and |imbal_after| <= |imbal_before| + imbal_tol (the imbalance did not
 *           grow); else 0.
 *   stay (d->decision == 0): 1 iff mean > bar + extra (it waited clearly longer than the
 *           destination's estimate, even counting the cost of moving); else 0.
 *
 * The imitation label is the heuristic's choice, d->heuristic. Integer arithmetic only, with
 * saturation: waits of any u64 value give a label, never a wrapped sum.
 *
 * Pending decisions live in a fixed pool of max_pending nodes, chained in a hash table of
 * power-of-two buckets (keyed by id) and in a doubly linked list in arrival order, so that
 * eviction takes the oldest in O(1) and expiry walks from the oldest.
 *
 * The window is a dataset of up to 2 * window rows: when full, the last window rows are moved
 * to the front (one memmove every window samples), and the view handed out is its last window
 * rows, oldest first.
 *
 * The dataset file is written one complete line per write(2) on an O_APPEND descriptor; a
 * short write is cut off again with ftruncate(2) (or before the next write if that fails), so
 * the file only ever holds whole lines. One write(2) alone is not atomic against SIGKILL: the
 * kernel copies a buffered write page by page (folio by folio, aligned) and stops between two
 * when a fatal signal is pending, leaving the part written so far. So no line crosses a page
 * boundary: a line that would is preceded, in the same write(2), by a comment line "#   ...\n"
 * (or a blank line) that fills the page; the reader skips both (docs/model.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "mlb/features.h"
#include "mlb/heuristic.h"
#include "collect.h"
#include "ml/err.h"

#define NIL ((u32)-1)

/*
 * The columns after the features, written by format_line() in this order. d->kind is not
 * among them: it is the feature `kind` (a decision whose two differ is refused).
 */
#define EXTRA_COLS                                                                                 \
	"decision,decider,heuristic,score,model_gen,wait_us,first_wait_us,est_other_us,"           \
	"runs,moved_back,exited,imbal_before,imbal_after,imitation,label,prop_ppm"
#define N_EXTRA	     16
#define FIELD_MAX    21 /* "-9223372036854775808" or a u64, and its comma */
#define LINE_MAX_LEN ((1 + MLB_NR_FEATURES + N_EXTRA) * FIELD_MAX + 1)
#define HDR_MAX	     (MLB_CSV_HEADER_MAX + sizeof(EXTRA_COLS) + 2)
#define PAGE_MIN     4096 /* a line never crosses a multiple of the page size (at least this) */
#define MAX_POOL     (1u << 24)
#define TAIL_BLOCK   4096
_Static_assert(LINE_MAX_LEN <= HDR_MAX, "the padding before a line fits the header's room");
_Static_assert(HDR_MAX + LINE_MAX_LEN <= PAGE_MIN, "the header and a line fit the first page");

void mlb_label_defaults(struct mlb_label_params *p)
{
	p->bounce_ns = MLB_DEF_BOUNCE_MS * 1000 * 1000ULL;
	p->slack_ns = 100 * 1000ULL;
	p->hot_cost_ns = 500 * 1000ULL;
	p->margin_pct = 10;
	p->imbal_tol = 128;
}

static u64 sat_add(u64 a, u64 b)
{
	u64 r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

int mlb_label_outcome(const struct mlb_decision_rec *d, const struct mlb_outcome_rec *o,
		      const struct mlb_label_params *p)
{
	u64 mean, bar, extra = 0;
	s64 before, after;

	if (!o->runs)
		return -1;
	mean = o->wait_ns / o->runs;
	if (__builtin_mul_overflow(o->est_other_ns, 100 + (u64)p->margin_pct, &bar))
		bar = UINT64_MAX;
	else
		bar = sat_add(bar / 100, p->slack_ns);
	if (d->f.v[MLB_F_TASK_CACHE_HOT] == 1 && d->f.v[MLB_F_SAME_LLC] == 0)
		extra = p->hot_cost_ns;
	if (!d->decision)
		return mean > sat_add(bar, extra);
	if (o->flags & MLB_OUT_MOVED_BACK || sat_add(mean, extra) > bar)
		return 0;
	before = o->imbal_before < 0 ? -(s64)o->imbal_before : o->imbal_before;
	after = o->imbal_after < 0 ? -(s64)o->imbal_after : o->imbal_after;
	return after <= before + (s64)p->imbal_tol;
}

int mlb_label_imitation(const struct mlb_decision_rec *d)
{
	return d->heuristic;
}

void mlb_collect_defaults(struct mlb_collect_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->max_pending = 65536;
	o->window = MLB_DEF_WINDOW;
	o->sync_ms = 1000;
	mlb_label_defaults(&o->label);
}

struct pend {
	struct mlb_decision_rec d;
	u32 hnext;	  /* next in its hash chain, or in the free list */
	u32 older, newer; /* arrival order */
};

struct mlb_collector {
	struct mlb_collect_opts o;
	struct mlb_collect_stats st;

	struct pend *pool;
	u32 *bucket;
	int hash_bits;
	u32 free_head, oldest, newest;

	struct mlb_dataset win;	 /* up to 2 * o.window rows */
	struct mlb_dataset view; /* its last o.window rows */

	char *path;
	int fd;		 /* -1: no file */
	int need_header; /* the file is empty: write the header before the next line */
	int dirty;	 /* lines written since the last fdatasync */
	int synced;	 /* last_sync_ns is valid */
	u64 last_sync_ns;
	off_t trunc_to;	 /* >= 0: a partial line to cut off before the next write */
	int io_err;	 /* errno not reported yet */
	int failing;	 /* in a run of failures: a new error is not said again */
	off_t fail_size; /* c->size when the run began */
	off_t size;	 /* of the file, as written through this collector */
	long page;	 /* no line crosses a multiple of it; 0: not a regular file */
	size_t hdr_len;
	char hdr[HDR_MAX];
	char buf[HDR_MAX + LINE_MAX_LEN]; /* header or padding, then the line at buf + HDR_MAX */
};

/* ---- pending decisions ---- */

static u32 *chain_of(struct mlb_collector *c, u64 id)
{
	return &c->bucket[(id * 0x9e3779b97f4a7c15ULL) >> (64 - c->hash_bits)];
}

static u32 lookup(struct mlb_collector *c, u64 id)
{
	u32 i = *chain_of(c, id);

	while (i != NIL && c->pool[i].d.id != id)
		i = c->pool[i].hnext;
	return i;
}

static void forget(struct mlb_collector *c, u32 i)
{
	struct pend *e = &c->pool[i];
	u32 *link = chain_of(c, e->d.id);

	while (*link != i)
		link = &c->pool[*link].hnext;
	*link = e->hnext;
	if (e->older != NIL)
		c->pool[e->older].newer = e->newer;
	else
		c->oldest = e->newer;
	if (e->newer != NIL)
		c->pool[e->newer].older = e->older;
	else
		c->newest = e->older;
	e->hnext = c->free_head;
	c->free_head = i;
	c->st.pending--;
}

static int valid_decision(const struct mlb_decision_rec *d)
{
	if (!d->id || d->decision > 1 || d->heuristic > 1 || d->decider > MLB_BY_CONTROL ||
	    d->prop_ppm > MLB_PPM_ONE || d->kind != d->f.v[MLB_F_KIND])
		return 0;
	for (int i = 0; i < MLB_NR_FEATURES; i++)
		if (d->f.v[i] < mlb_feature_descs[i].min || d->f.v[i] > mlb_feature_descs[i].max)
			return 0;
	return 1;
}

int mlb_collect_decision(struct mlb_collector *c, const struct mlb_decision_rec *d)
{
	struct pend *e;
	u32 *chain, i;

	if (!valid_decision(d)) {
		c->st.invalid++;
		return -EINVAL;
	}
	c->st.decisions++;
	i = lookup(c, d->id);
	if (i != NIL) {
		c->st.duplicates++;
		forget(c, i);
	}
	if (c->free_head == NIL) {
		c->st.evicted++;
		forget(c, c->oldest);
	}
	i = c->free_head;
	e = &c->pool[i];
	c->free_head = e->hnext;
	e->d = *d;
	chain = chain_of(c, d->id);
	e->hnext = *chain;
	*chain = i;
	e->older = c->newest;
	e->newer = NIL;
	if (c->newest != NIL)
		c->pool[c->newest].newer = i;
	else
		c->oldest = i;
	c->newest = i;
	c->st.pending++;
	return 0;
}

size_t mlb_collect_expire(struct mlb_collector *c, u64 now_ns, u64 max_age_ns)
{
	size_t n = 0;

	for (u32 i = c->oldest, next; i != NIL; i = next) {
		u64 ts = c->pool[i].d.ts_ns;

		next = c->pool[i].newer;
		if ((now_ns > ts ? now_ns - ts : 0) >= max_age_ns) {
			forget(c, i);
			n++;
		}
	}
	c->st.expired += n;
	return n;
}

/* ---- the dataset file ---- */

static int io_fail(struct mlb_collector *c, int e)
{
	c->st.write_errors++;
	if (!c->failing) {
		if (!c->io_err)
			c->io_err = e;
		c->fail_size = c->size;
	}
	c->failing = 1;
	return -e;
}

static off_t roundup_off(off_t v, long page)
{
	return (v + page - 1) / page * page;
}

/* Append @len bytes at @buf as one write(2), or nothing. 0 or a negative errno. */
static int append(struct mlb_collector *c, const char *buf, size_t len)
{
	ssize_t n;
	off_t end;

	if (c->trunc_to >= 0) {
		if (ftruncate(c->fd, c->trunc_to))
			return io_fail(c, errno);
		c->trunc_to = -1;
	}
	do
		n = write(c->fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return io_fail(c, errno);
	if ((size_t)n < len) {
		/* With O_APPEND the offset is the end of what was just written. */
		end = lseek(c->fd, 0, SEEK_CUR);
		if (end < n || ftruncate(c->fd, end - n)) {
			c->trunc_to = end >= n ? end - n : 0;
			io_fail(c, errno);
		}
		return io_fail(c, ENOSPC);
	}
	c->size += n;
	c->dirty = 1;
	/*
	 * The run of failures ends when a write lands past the page the first failure was in.
	 * A full file system (tmpfs, or ext4 with no free block) still takes the short lines
	 * that fit in the slack of the file's last page: those succeed between failures, and
	 * they show no space coming back, so they must not make the error be said again.
	 */
	if (c->failing && (!c->page || c->size > roundup_off(c->fail_size, c->page)))
		c->failing = 0;
	return 0;
}

static char *put_u64(char *p, u64 v)
{
	char t[20];
	int n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = t[--n];
	return p;
}

static char *put_s64(char *p, s64 v)
{
	if (v >= 0)
		return put_u64(p, (u64)v);
	*p++ = '-';
	return put_u64(p, -(u64)v);
}

/* The CSV line of a sample, "\n"-terminated, at @p. Returns its end. */
static char *format_line(char *p, const struct mlb_decision_rec *d, const struct mlb_outcome_rec *o,
			 int label)
{
	const s64 extra[N_EXTRA] = {
	    d->decision,
	    d->decider,
	    d->heuristic,
	    d->score,
	    d->model_gen,
	    (s64)(o->wait_ns / 1000),
	    (s64)(o->first_wait_ns / 1000),
	    (s64)(o->est_other_ns / 1000),
	    o->runs,
	    !!(o->flags & MLB_OUT_MOVED_BACK),
	    !!(o->flags & MLB_OUT_EXITED),
	    o->imbal_before,
	    o->imbal_after,
	    mlb_label_imitation(d),
	    label,
	    d->prop_ppm,
	};

	p = put_u64(p, d->id);
	for (int i = 0; i < MLB_NR_FEATURES; i++) {
		*p++ = ',';
		p = put_s64(p, d->f.v[i]);
	}
	for (int i = 0; i < N_EXTRA; i++) {
		*p++ = ',';
		p = put_s64(p, extra[i]);
	}
	*p++ = '\n';
	return p;
}

static void write_sample(struct mlb_collector *c, const struct mlb_decision_rec *d,
			 const struct mlb_outcome_rec *o, int label)
{
	char *line = c->buf + HDR_MAX, *end = format_line(line, d, o, label);
	size_t len = (size_t)(end - line), pad = 0, at;

	if (c->need_header) { /* the file is empty: the header first, in the first page */
		line -= c->hdr_len;
		memcpy(line, c->hdr, c->hdr_len);
	} else if (c->page && (at = (size_t)(c->size % c->page)) + len > (size_t)c->page) {
		pad = (size_t)c->page - at; /* < len */
		line -= pad;
		line[0] = pad > 1 ? '#' : '\n';
		memset(line + 1, ' ', pad - 1);
		line[pad - 1] = '\n';
	}
	if (append(c, line, (size_t)(end - line))) {
		c->st.write_dropped++;
		return;
	}
	c->need_header = 0;
	c->st.written++;
	c->st.pad_bytes += pad;
}

/* ---- samples ---- */

static void window_push(struct mlb_collector *c, const s32 *x, s32 t, int a, u32 p)
{
	struct mlb_dataset *w = &c->win;
	size_t keep = c->o.window;

	if (!keep)
		return;
	if (w->n == 2 * keep) {
		memmove(w->x, w->x + keep * MLB_NR_FEATURES, keep * MLB_NR_FEATURES * sizeof(s32));
		memmove(w->y, w->y + keep, keep);
		memmove(w->t, w->t + keep, keep * sizeof(s32));
		memmove(w->a, w->a + keep, keep);
		memmove(w->p, w->p + keep, keep * sizeof(u32));
		w->n = keep;
	}
	if (mlb_dataset_push_act(w, x, t, a, p))
		c->st.window_dropped++;
	c->st.window_n = w->n < keep ? w->n : keep;
}

int mlb_collect_outcome(struct mlb_collector *c, const struct mlb_outcome_rec *o)
{
	struct mlb_decision_rec d;
	u64 fw;
	u32 i;
	int label;

	c->st.outcomes++;
	i = lookup(c, o->id);
	if (i == NIL) {
		c->st.unmatched++;
		return -ENOENT;
	}
	d = c->pool[i].d;
	forget(c, i);
	label = mlb_label_outcome(&d, o, &c->o.label);
	if (label < 0) {
		c->st.unlabelled++;
		return -ENODATA;
	}
	c->st.samples++;
	if (label)
		c->st.label1++;
	else
		c->st.label0++;
	c->st.by_decider[d.decider]++;
	c->st.cost_us[d.decider] +=
	    o->first_wait_ns / 1000 + (d.decision ? mlb_move_cost_us(&d.f, &c->o.heur) : 0);
	if (c->fd >= 0)
		write_sample(c, &d, o, label);
	/* the wait the action got, from the decision to the next run; imitation: the heuristic's
	 * action waits 0, the other MLB_WAIT_MAX_US (exploration shows the other one) */
	fw =
	    o->first_wait_ns / 1000 < MLB_WAIT_READ_US ? o->first_wait_ns / 1000 : MLB_WAIT_READ_US;
	if (c->o.imitation)
		fw = d.decision == d.heuristic ? 0 : MLB_WAIT_MAX_US;
	window_push(c, d.f.v, (s32)fw, d.decision, d.prop_ppm ? d.prop_ppm : 1);
	return 0;
}

int mlb_collect_flush(struct mlb_collector *c, u64 now_ns)
{
	u64 period = (u64)c->o.sync_ms * 1000000;

	if (c->fd < 0 || !c->dirty)
		return 0;
	if (c->synced && now_ns >= c->last_sync_ns && now_ns - c->last_sync_ns < period)
		return 0;
	c->synced = 1;
	c->last_sync_ns = now_ns;
	if (fdatasync(c->fd))
		return io_fail(c, errno);
	c->dirty = 0;
	return 0;
}

int mlb_collector_io_error(struct mlb_collector *c)
{
	int e = c->io_err;

	c->io_err = 0;
	return e;
}

const struct mlb_collect_stats *mlb_collector_stats(struct mlb_collector *c)
{
	return &c->st;
}

const struct mlb_dataset *mlb_collector_window(struct mlb_collector *c)
{
	size_t start = c->win.n > c->o.window ? c->win.n - c->o.window : 0;

	c->view.x = c->win.x ? c->win.x + start * MLB_NR_FEATURES : NULL;
	c->view.y = c->win.y ? c->win.y + start : NULL;
	c->view.t = c->win.t ? c->win.t + start : NULL;
	c->view.a = c->win.a ? c->win.a + start : NULL;
	c->view.p = c->win.p ? c->win.p + start : NULL;
	c->view.n = c->view.cap = c->win.n - start;
	return &c->view;
}

/* ---- opening and closing ---- */

/* The offset just past the last '\n' at or after @from in @fd of @size bytes, or -errno. */
static off_t last_line_end(int fd, off_t from, off_t size)
{
	char buf[TAIL_BLOCK];

	while (size > from) {
		off_t at = size - TAIL_BLOCK > from ? size - TAIL_BLOCK : from;
		ssize_t n = pread(fd, buf, (size_t)(size - at), at);

		if (n != size - at)
			return n < 0 ? -errno : -EIO;
		while (n > 0 && buf[n - 1] != '\n')
			n--;
		if (n > 0)
			return at + n;
		size = at;
	}
	return from;
}

static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd); /* best effort: the new file's name survives a power loss */
		close(fd);
	}
	free(copy);
}

static int open_file(struct mlb_collector *c, char *err, size_t errsz)
{
	const char *path = c->path;
	int created = 1, ret;
	struct stat st;
	off_t end;

	c->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (c->fd < 0 && errno == EEXIST) {
		created = 0;
		c->fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
	}
	if (c->fd < 0 || fstat(c->fd, &st)) {
		ret = -errno;
		set_err(err, errsz, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (!c->o.any_file && !S_ISREG(st.st_mode)) {
		set_err(err, errsz, "%s: not a regular file", path);
		return -EINVAL;
	}
	if (!c->o.any_file && st.st_mode & (S_IWGRP | S_IWOTH)) {
		set_err(err, errsz, "%s: group- or world-writable (mode %04o), refusing it", path,
			(unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	if (!c->o.any_file && flock(c->fd, LOCK_EX | LOCK_NB)) {
		ret = -errno;
		set_err(err, errsz, "%s: %s", path,
			errno == EWOULDBLOCK ? "in use by another collector" : strerror(errno));
		return ret;
	}
	if (S_ISREG(st.st_mode)) {
		c->page = sysconf(_SC_PAGESIZE);
		if (c->page < PAGE_MIN)
			c->page = PAGE_MIN;
	}
	if (st.st_size > 0) {
		char first[HDR_MAX];
		ssize_t n = pread(c->fd, first, c->hdr_len, 0);

		if (n != (ssize_t)c->hdr_len || memcmp(first, c->hdr, c->hdr_len)) {
			set_err(err, errsz, "%s: the first line is not the dataset header", path);
			return -EINVAL;
		}
		end = last_line_end(c->fd, (off_t)c->hdr_len, st.st_size);
		if (end >= 0 && end < st.st_size && ftruncate(c->fd, end))
			end = -errno;
		if (end < 0) {
			set_err(err, errsz, "%s: cutting off a partial last line: %s", path,
				strerror((int)-end));
			return (int)end;
		}
		c->st.repaired_bytes = (u64)(st.st_size - end);
		c->size = end;
		return 0;
	}
	c->need_header = 1;
	if (!append(c, c->hdr, c->hdr_len))
		c->need_header = 0;
	if (created)
		sync_dir(path);
	return 0;
}

struct mlb_collector *mlb_collector_new(const struct mlb_collect_opts *o, char *err, size_t errsz)
{
	struct mlb_collector *c;
	u32 nb = 2;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c) {
		set_err(err, errsz, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	c->fd = -1;
	c->trunc_to = -1;
	if (o)
		c->o = *o;
	else
		mlb_collect_defaults(&c->o);
	if (c->o.max_pending < 1 || c->o.max_pending > MAX_POOL || c->o.window > MAX_POOL) {
		set_err(err, errsz, "max_pending %u (1..%u) or window %u (0..%u) out of range",
			c->o.max_pending, MAX_POOL, c->o.window, MAX_POOL);
		ret = -EINVAL;
		goto fail;
	}
	c->hash_bits = 1;
	while (nb < c->o.max_pending) {
		nb *= 2;
		c->hash_bits++;
	}
	c->pool = calloc(c->o.max_pending, sizeof(*c->pool));
	c->bucket = malloc(nb * sizeof(*c->bucket));
	c->path = c->o.path ? strdup(c->o.path) : NULL;
	if (!c->pool || !c->bucket || (c->o.path && !c->path)) {
		set_err(err, errsz, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	c->o.path = c->path;
	memset(c->bucket, 0xff, nb * sizeof(*c->bucket));
	for (u32 i = 0; i < c->o.max_pending; i++)
		c->pool[i].hnext = i + 1 < c->o.max_pending ? i + 1 : NIL;
	c->oldest = c->newest = NIL;

	ret = mlb_csv_header(c->hdr, MLB_CSV_HEADER_MAX);
	if (ret < 0) {
		set_err(err, errsz, "dataset header longer than %d bytes", MLB_CSV_HEADER_MAX);
		goto fail;
	}
	c->hdr_len = (size_t)ret;
	c->hdr_len +=
	    (size_t)snprintf(c->hdr + c->hdr_len, HDR_MAX - c->hdr_len, ",%s\n", EXTRA_COLS);
	if (c->path) {
		ret = open_file(c, err, errsz);
		if (ret)
			goto fail;
	}
	return c;
fail:
	mlb_collector_free(c);
	errno = -ret;
	return NULL;
}

int mlb_collector_free(struct mlb_collector *c)
{
	int ret = 0;

	if (!c)
		return 0;
	if (c->fd >= 0) {
		if (c->dirty && fdatasync(c->fd))
			ret = -errno;
		if (close(c->fd) && !ret)
			ret = -errno;
	}
	free(c->pool);
	free(c->bucket);
	free(c->path);
	mlb_dataset_free(&c->win);
	free(c);
	return ret;
}
