/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space half of the learning loop's data path: join the BPF side's decision records
 * with their outcome records (same id), label each pair (the label rule, in collect.c and
 * README.md), and emit labelled samples to an append-only, crash-safe CSV dataset file
 * (docs/model.md, "Dataset CSV format") and to an in-memory sliding window to train on.
 *
 * Link with src/ml/data.c. A collector is not thread-safe: call it from one thread (the
 * daemon's ring-buffer callbacks and its main loop). Nothing here aborts or exits; errors are
 * one line in @err or counters in struct mlb_collect_stats.
 */
#ifndef __MLB_COLLECT_H
#define __MLB_COLLECT_H

#include <stddef.h>
#include "mlb/intf.h"
#include "mlb/options.h"
#include "mlb/heuristic.h"
#include "ml/data.h"

/* The label rule's parameters (see collect.c). */
struct mlb_label_params {
	u64 bounce_ns;	 /* moving back within this is a bad migration (the BPF side's
			  * threshold for MLB_OUT_MOVED_BACK; the rule reads the flag) */
	u64 slack_ns;	 /* absolute slack added to the other choice's estimated wait */
	u64 hot_cost_ns; /* wait a cache-hot task moved out of its LLC must save */
	u32 margin_pct;	 /* relative slack, percent of the other choice's estimated wait */
	u32 imbal_tol;	 /* imbalance growth tolerated, per-CPU load units (1024 = a task) */
};

/* mlb_label_defaults - bounce --bounce-ms's default (MLB_DEF_BOUNCE_MS), margin 10%,
 * slack 100 us, imbal_tol 128, hot 500 us. */
void mlb_label_defaults(struct mlb_label_params *p);

/*
 * mlb_label_outcome - the outcome label of decision @d observed as @o, under @p: 1 migrating
 * was (or would have been) right, 0 staying was right, -1 no label (nothing observed:
 * o->runs == 0, which includes a task that exited before its first run). Pure, integer only,
 * saturating: any u64 wait is safe. @o->id is not checked against @d->id.
 */
int mlb_label_outcome(const struct mlb_decision_rec *d, const struct mlb_outcome_rec *o,
		      const struct mlb_label_params *p);

/* mlb_label_imitation - the imitation label of @d: the heuristic's choice, 0 or 1. */
int mlb_label_imitation(const struct mlb_decision_rec *d);

/* Collector options; mlb_collect_defaults() fills them, then change what you need. */
struct mlb_collect_opts {
	const char *path; /* dataset CSV file, appended to; NULL: no file (default) */
	u32 max_pending;  /* decisions waiting for their outcome, 1..2^24; default 65536 */
	u32 window;	  /* samples kept in memory, 0 (none)..2^24; default --window's */
	u32 sync_ms;	  /* fdatasync the file at most this often; default 1000 */
	int imitation;	  /* window targets imitate the heuristic, not the measured wait */
	int any_file;	  /* tests only: accept a non-regular or group/world-writable file
			   * (/dev/full) and skip the lock */
	struct mlb_label_params label;
	struct mlb_heur_params heur; /* the move costs of the realized cost (stats) */
};

/* mlb_collect_defaults - no file, 65536 pending, the window of --window (MLB_DEF_WINDOW),
 * sync 1 s, outcome targets, no move costs (the realized cost is the wait alone). */
void mlb_collect_defaults(struct mlb_collect_opts *o);

/* Counters, cumulative since mlb_collector_new() except the two gauges at the end. */
struct mlb_collect_stats {
	u64 decisions;	    /* decision records accepted */
	u64 invalid;	    /* decision records refused (see mlb_collect_decision()) */
	u64 duplicates;	    /* decisions whose id was pending already (the new one replaced it) */
	u64 outcomes;	    /* outcome records received */
	u64 unmatched;	    /* outcomes with no pending decision (dropped, expired, evicted) */
	u64 expired;	    /* pending decisions dropped by mlb_collect_expire() */
	u64 evicted;	    /* pending decisions dropped, oldest first, to stay in max_pending */
	u64 unlabelled;	    /* joined pairs the rule gave no label (-1): not emitted */
	u64 samples;	    /* labelled samples emitted */
	u64 label1;	    /* ... whose outcome label is 1 */
	u64 label0;	    /* ... whose outcome label is 0 */
	u64 by_decider[4];  /* ... per enum mlb_decider */
	u64 cost_us[4];	    /* ... their realized cost per decider, summed: the wait before the
			     * first run after the decision, plus the move's cost (o->heur's
			     * mlb_move_cost_us()) for a move, us */
	u64 written;	    /* samples appended to the file */
	u64 write_errors;   /* failed write(2), ftruncate(2) or fdatasync(2) calls */
	u64 write_dropped;  /* samples not in the file because of a write error */
	u64 window_dropped; /* samples not in the window: out of memory */
	u64 repaired_bytes; /* partial last line cut off the existing file at open (power loss) */
	u64 pad_bytes;	    /* comment padding written so that no line crosses a page */
	u64 pending;	    /* gauge: decisions waiting for their outcome now */
	u64 window_n;	    /* gauge: samples in the window now */
};

struct mlb_collector;

/*
 * mlb_collector_new - a collector with options @o (NULL: the defaults). With o->path, opens
 * the dataset file for appending (O_APPEND, created with mode 0640 under the umask, locked
 * against a second collector): a missing or empty file gets the header; an existing one must
 * start with exactly that header line and must not be group- or world-writable, else it is
 * refused untouched; a partial last line (power loss) is cut off (repaired_bytes). Failing to
 * write the header is not fatal: it is a write error (mlb_collector_io_error()) and the header
 * is written with the next sample that can be.
 * Returns the collector, or NULL with errno set and a one-line reason naming the file in @err.
 */
struct mlb_collector *mlb_collector_new(const struct mlb_collect_opts *o, char *err, size_t errsz);

/*
 * mlb_collect_decision - keep decision @d until its outcome arrives. When max_pending are
 * waiting, the oldest received is evicted first; a pending decision with the same id is
 * replaced (duplicates). Returns 0, or -EINVAL (counted invalid, not kept) when @d has id 0,
 * decision or heuristic not 0/1, decider out of its enum, prop_ppm above MLB_PPM_ONE, kind
 * not the feature KIND, or a
 * feature outside its documented range (the dataset reader would refuse the whole file for one
 * such row).
 */
int mlb_collect_decision(struct mlb_collector *c, const struct mlb_decision_rec *d);

/*
 * mlb_collect_outcome - join outcome @o with its pending decision (which is then forgotten),
 * label the pair and emit the sample: one line appended to the file (a write error drops the
 * line, counted, and is reported by mlb_collector_io_error(); the next sample retries) and one
 * row pushed to the window. Returns 0 when a sample was emitted, -ENOENT when no decision
 * with this id is pending (unmatched), -ENODATA when the pair has no label (unlabelled).
 * In a libbpf ring-buffer callback, return 0 regardless: a negative value stops the polling.
 */
int mlb_collect_outcome(struct mlb_collector *c, const struct mlb_outcome_rec *o);

/*
 * mlb_collect_expire - drop the pending decisions at least @max_age_ns old at @now_ns (ages
 * from their ts_ns, bpf_ktime_get_ns() time, i.e. CLOCK_MONOTONIC; a ts_ns after @now_ns is
 * age 0), counted expired. @max_age_ns 0 drops them all: do that when the BPF side restarts
 * (its ids start again at 1), so that no old decision is joined with a new outcome.
 * O(pending). Returns how many were dropped.
 */
size_t mlb_collect_expire(struct mlb_collector *c, u64 now_ns, u64 max_age_ns);

/*
 * mlb_collect_flush - fdatasync the file if lines were written since the last sync and the
 * last sync is o->sync_ms or more before @now_ns (any monotonic clock, ns). Call it from the
 * main loop. Samples at risk: on a process kill (SIGKILL included) none, and no partial line:
 * every line is one write(2) that stays within one page of the file (collect.c says why); on
 * power loss or a kernel crash, those written since the last fdatasync, and a partial last
 * line there is cut off by the next mlb_collector_new(). Returns 0 or the negative errno of a
 * failed fdatasync (also counted and reported by mlb_collector_io_error()).
 */
int mlb_collect_flush(struct mlb_collector *c, u64 now_ns);

/*
 * mlb_collector_io_error - the errno of the first file error not reported yet, then 0 until
 * a new error follows a successful write (a run of failures is reported once).
 */
int mlb_collector_io_error(struct mlb_collector *c);

/* mlb_collector_stats - the counters (valid until the next call on @c). */
const struct mlb_collect_stats *mlb_collector_stats(struct mlb_collector *c);

/*
 * mlb_collector_window - the last o->window samples, oldest first, as a read-only dataset
 * (x rows in feature order; t the wait from the decision to the next run, us, at most
 * MLB_WAIT_READ_US; a the action taken, p its probability; with o->imitation t is 0 when the
 * action was the heuristic's choice, else MLB_WAIT_MAX_US),
 * ready for mlb_train_model(). Valid until the next mlb_collect_outcome() or
 * mlb_collector_free() on @c; do not push to it or free it.
 */
const struct mlb_dataset *mlb_collector_window(struct mlb_collector *c);

/*
 * mlb_collector_free - fdatasync (if lines were written since the last sync) and close the
 * file, release everything. Returns 0, or the negative errno of a failed fdatasync or close
 * (samples written since the last successful sync may be lost). NULL is a no-op returning 0.
 */
int mlb_collector_free(struct mlb_collector *c);

#endif /* __MLB_COLLECT_H */
