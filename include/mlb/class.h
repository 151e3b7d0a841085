/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Task classes learned from behaviour, not from names: latency-critical, interactive, batch.
 * Integer only; compiled into the BPF scheduler (ops.runnable and ops.stopping feed it) and
 * into the host unit test (tests/unit/test_class.c), which feeds the same functions synthetic
 * behaviour.
 *
 * THE INPUTS, all decayed averages kept per task:
 * - burst: the average run length, 7/8 old + 1/8 new at each stop (mlb_burst_next());
 * - wake frequency: 3/4 old + 1/4 (1 s / the interval since the last wake-up)
 *   (mlb_wake_freq_next());
 * - period and jitter: the average interval between wake-ups, 3/4 old + 1/4 new, and the
 *   average distance of each interval from the period it was expected to be, likewise
 *   (mlb_class_wake()). A task is periodic when its jitter is a small part of its period.
 *   Jitter starts equal to the first interval, so regularity has to be shown before it counts
 *   (about 8 regular wake-ups); one odd interval moves the jitter by at most period / 8 and
 *   the period by at most a quarter, so a late wake-up is soon forgotten; an interval of 2
 *   to 4 periods counts as periods skipped, not as irregular (mlb_class_wake());
 * - slice use: 7/8 old + 1/8 new at each stop, where a run that stopped with the task still
 *   runnable (its slice ran out or it was preempted) used all it was given (MLB_FRAC_ONE),
 *   and a run that ended in sleep used ran / slice (mlb_class_stop()). A CPU hog whose slices
 *   are cut short while others wait therefore still uses all of them.
 *
 * THE RULE (mlb_class_rule()), in this order, with "enter" thresholds for a task of another
 * class and looser "stay" thresholds for a task already in it (a Schmitt trigger):
 * - batch: slice use >= 3/4 (stay: >= 3/8), or burst >= 5 ms (stay: >= 2.5 ms);
 * - latency-critical: burst <= 2 ms (stay: <= 3 ms), slice use <= 1/4 (stay: <= 3/8),
 *   at least 10 wake-ups a second (stay: 5) and periodic: jitter <= period / 8
 *   (stay: <= period / 4);
 * - interactive: everything else (short or mid bursts at irregular wake-ups: an editor, a
 *   shell, a browser's main thread).
 *
 * HYSTERESIS, twice: the thresholds above depend on the current class, so a task near a
 * boundary does not cross it back and forth; and a task changes class only after
 * MLB_CLASS_CONFIRM consecutive evaluations (one per stop) agree on the same other class
 * (mlb_class_update()), so one outlier run does not move it. A new task starts interactive.
 *
 * The class is counted (stats class_lat, class_inter, class_batch), offered to the model
 * (feature task_class), and read by the policy (include/mlb/policy.h): a latency-critical
 * waker may preempt a batch task, and batch slices shrink while latency-critical tasks wait;
 * and by the capacity-aware idle CPU choice on machines with asymmetric CPUs
 * (include/mlb/place.h). The queue order (the deadline) reads the burst, not the class.
 */
#ifndef __MLB_CLASS_H
#define __MLB_CLASS_H

#include "intf.h"

/* The classes, ordered by how much latency matters (the value of feature task_class). */
enum mlb_class {
	MLB_CLASS_LAT = 0,   /* latency-critical: short, regular runs (audio, frames, input) */
	MLB_CLASS_INTER = 1, /* interactive: short runs at irregular wake-ups */
	MLB_CLASS_BATCH = 2, /* batch: uses its slices, long runs */
	MLB_NR_CLASSES,
};

#define MLB_CLASS_CONFIRM    4	     /* consecutive evaluations that change a class */
#define MLB_CLASS_GAP_MAX_US 1000000 /* wake-up intervals are capped at 1 s */
#define MLB_CLASS_SKIP_MAX   4	     /* an interval of up to 4 periods: skipped releases */

/* Thresholds: _IN to enter the class, _STAY to remain in it (see the rule above). */
#define MLB_BATCH_USE_IN	(MLB_FRAC_ONE * 3 / 4)
#define MLB_BATCH_USE_STAY	(MLB_FRAC_ONE * 3 / 8)
#define MLB_BATCH_BURST_IN_US	5000
#define MLB_BATCH_BURST_STAY_US 2500
#define MLB_LAT_BURST_IN_US	2000
#define MLB_LAT_BURST_STAY_US	3000
#define MLB_LAT_USE_IN		(MLB_FRAC_ONE / 4)
#define MLB_LAT_USE_STAY	(MLB_FRAC_ONE * 3 / 8)
#define MLB_LAT_WAKES_IN	10 /* per second */
#define MLB_LAT_WAKES_STAY	5
#define MLB_LAT_JITTER_IN_DIV	8 /* periodic: jitter <= period / DIV */
#define MLB_LAT_JITTER_STAY_DIV 4

/* Per-task state of the classifier (in the BPF task context). */
struct mlb_class_ctx {
	u32 period_us; /* decayed wake-up interval, 0 before the first one */
	u32 jitter_us; /* decayed distance of the intervals from the period */
	u16 use;       /* decayed slice use, MLB_FRAC_ONE = all of it */
	u8 cls;	       /* enum mlb_class */
	u8 cand;       /* the other class the last evaluations said, when streak > 0 */
	u8 streak;     /* consecutive evaluations that said cand */
	u8 pad[3];
};
MLB_ASSERT(sizeof(struct mlb_class_ctx) == 16, "class state layout");
MLB_ASSERT(MLB_MIN_TASK_CLASS == 0 && MLB_MAX_TASK_CLASS == MLB_NR_CLASSES - 1,
	   "feature task_class is an enum mlb_class");
MLB_ASSERT(MLB_STAT_CLASS_INTER == MLB_STAT_CLASS_LAT + MLB_CLASS_INTER &&
	       MLB_STAT_CLASS_BATCH == MLB_STAT_CLASS_LAT + MLB_CLASS_BATCH,
	   "class gauges follow enum mlb_class");
MLB_ASSERT(MLB_NR_CLASSES <= 255 && MLB_CLASS_CONFIRM < 255, "class state fits u8");
MLB_ASSERT(MLB_FRAC_ONE <= 65535, "slice use fits u16");
MLB_ASSERT(MLB_CLASS_GAP_MAX_US <= 0x7fffffff / 4, "period and jitter sums fit u32");

/* mlb_class_init - a new task: interactive, nothing observed yet. */
static inline void mlb_class_init(struct mlb_class_ctx *c)
{
	c->period_us = 0;
	c->jitter_us = 0;
	c->use = 0;
	c->cls = MLB_CLASS_INTER;
	c->cand = MLB_CLASS_INTER;
	c->streak = 0;
}

/* mlb_burst_next - the average run length after a run of @ran_ns: 7/8 old + 1/8 new. */
static inline u64 mlb_burst_next(u64 burst_ns, u64 ran_ns)
{
	return (7 * burst_ns + ran_ns) / 8;
}

/* mlb_wake_freq_next - wake-ups per second after one @gap_ns after the last: 3/4 old + 1/4
 * of 1 s / gap (at most 100000, also for a gap of 0). */
static inline u32 mlb_wake_freq_next(u32 freq, u64 gap_ns)
{
	u64 inst = gap_ns ? 1000000000ULL / gap_ns : 100000;

	if (inst > 100000)
		inst = 100000;
	return (3 * (u64)freq + inst) / 4;
}

/* mlb_class_dist - |a - b| */
static inline u64 mlb_class_dist(u64 a, u64 b)
{
	return a > b ? a - b : b - a;
}

/*
 * mlb_class_wake - the task woke up @gap_ns after its previous wake-up. One odd interval (a
 * long run, a late wake-up) must not undo what many regular ones showed: the distance
 * counted is at most half the period, and the period moves toward an interval clamped to
 * [period / 2, 2 * period] (a real change of period is followed at up to 25% a wake-up).
 * Skipped periods are not irregular: a periodic task that waited past its next release (a
 * timer loop such as cyclictest's does not sleep then) next sleeps until a later one. An
 * interval within a quarter period of k periods (k from 2 to MLB_CLASS_SKIP_MAX) counts as
 * k periods: its distance is from k periods, and the period moves toward gap / k. So the
 * period is a release interval that the intervals are whole multiples of: a task that starts
 * waking every 2 periods keeps the shorter one, and is as periodic. Without that, the tasks
 * that wait longest, the ones the class is for, looked irregular: cyclictest beside a CPU
 * hog per CPU skipped periods, lost the class, and then waited 19 ms (median) for good.
 */
static inline void mlb_class_wake(struct mlb_class_ctx *c, u64 gap_ns)
{
	u64 gap = gap_ns / 1000, k;
	u32 p = c->period_us, dev;

	if (gap > MLB_CLASS_GAP_MAX_US)
		gap = MLB_CLASS_GAP_MAX_US;
	if (!p) { /* the first interval: regularity is not shown yet */
		c->period_us = gap ? gap : 1;
		c->jitter_us = c->period_us;
		return;
	}
	k = (gap + p / 2) / p; /* the nearest whole number of periods */
	/* skips: 2 to SKIP_MAX periods, within a quarter period (else a longer interval) */
	if (k < 2 || k > MLB_CLASS_SKIP_MAX || mlb_class_dist(gap, k * p) > p / 4)
		k = 1;
	dev = mlb_class_dist(gap, k * p); /* from the expected release */
	gap /= k;
	if (dev > p / 2)
		dev = p / 2;
	if (gap < p / 2)
		gap = p / 2;
	if (gap > 2 * (u64)p)
		gap = 2 * (u64)p;
	c->jitter_us = (3 * c->jitter_us + dev) / 4;
	/* rounded toward the interval, so that a period of a few us can grow */
	c->period_us = gap > p ? (3 * p + (u32)gap + 3) / 4 : (3 * p + (u32)gap) / 4;
}

/* mlb_class_stop - a run of @ran_ns ended; @runnable: the task is still runnable (it used
 * all it was given: slice out, or preempted); @slice_ns its full slice. */
static inline void mlb_class_stop(struct mlb_class_ctx *c, u64 ran_ns, u64 slice_ns, bool runnable)
{
	u32 use = MLB_FRAC_ONE;

	if (!runnable && slice_ns && ran_ns < slice_ns)
		use = ran_ns * MLB_FRAC_ONE / slice_ns;
	c->use = (7 * (u32)c->use + use) / 8;
}

/*
 * mlb_class_rule - the class the inputs say for a task now in class @cur (its thresholds are
 * the "stay" ones for @cur's own class, "enter" ones for the others): @burst_ns, @wake_freq
 * (per second) and @c's period, jitter and slice use.
 */
static inline u32 mlb_class_rule(const struct mlb_class_ctx *c, u32 cur, u64 burst_ns,
				 u32 wake_freq)
{
	u64 burst_us = burst_ns / 1000;
	bool bat = cur == MLB_CLASS_BATCH, lat = cur == MLB_CLASS_LAT;

	if (c->use >= (bat ? MLB_BATCH_USE_STAY : MLB_BATCH_USE_IN) ||
	    burst_us >= (bat ? MLB_BATCH_BURST_STAY_US : MLB_BATCH_BURST_IN_US))
		return MLB_CLASS_BATCH;
	if (burst_us <= (lat ? MLB_LAT_BURST_STAY_US : MLB_LAT_BURST_IN_US) &&
	    c->use <= (lat ? MLB_LAT_USE_STAY : MLB_LAT_USE_IN) &&
	    wake_freq >= (lat ? MLB_LAT_WAKES_STAY : MLB_LAT_WAKES_IN) && c->period_us &&
	    (u64)c->jitter_us * (lat ? MLB_LAT_JITTER_STAY_DIV : MLB_LAT_JITTER_IN_DIV) <=
		c->period_us)
		return MLB_CLASS_LAT;
	return MLB_CLASS_INTER;
}

/*
 * mlb_class_update - evaluate @c after a run (see the rule and its hysteresis above): the
 * class changes when MLB_CLASS_CONFIRM consecutive evaluations said the same other class.
 * Returns true when it changed (c->cls is the new class).
 */
static inline bool mlb_class_update(struct mlb_class_ctx *c, u64 burst_ns, u32 wake_freq)
{
	u32 raw = mlb_class_rule(c, c->cls, burst_ns, wake_freq);

	if (raw == c->cls) {
		c->streak = 0;
		return false;
	}
	if (raw != c->cand || !c->streak) {
		c->cand = raw;
		c->streak = 0;
	}
	if (++c->streak < MLB_CLASS_CONFIRM)
		return false;
	c->cls = raw;
	c->streak = 0;
	return true;
}

#endif /* __MLB_CLASS_H */
