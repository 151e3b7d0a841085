// SPDX-License-Identifier: GPL-2.0
/*
 * unit/class: the task classes of include/mlb/class.h on synthetic behaviour, fed through the
 * same functions the scheduler calls from ops.runnable (a wake-up) and ops.stopping (a run
 * ends): a periodic 1 ms-every-10 ms task, CPU hogs, an editor-like bursty waker, a task
 * that changes behaviour and comes back, and the hysteresis: a task whose inputs wander
 * across a threshold, a periodic task with outliers (a long run, a missed period), a timer
 * loop that waits past its releases and skips periods, none of which may make it flap
 * between classes; and random short wakers that must not look periodic.
 */
#include <stdio.h>
#include <string.h>

#include "mlb/intf.h"
#include "mlb/class.h"
#include "check.h"

#define MS    1000000ULL
#define US    1000ULL
#define SLICE (20 * MS)

static const char *const names[] = {"lat", "inter", "batch"};

/* One task as the scheduler sees it: its averages, its classifier, and a log of changes. */
struct sim {
	struct mlb_class_ctx c;
	u64 burst_ns;
	u32 wake_freq;
	u64 now, woke_at;
	u32 evals, changes;
	u32 last_change; /* evaluation of the last change */
	bool verbose;
};

static void sim_init(struct sim *s)
{
	memset(s, 0, sizeof(*s));
	mlb_class_init(&s->c);
}

/* ops.runnable: it wakes up now (after sleeping @sleep_ns). */
static void sim_wake(struct sim *s, u64 sleep_ns)
{
	s->now += sleep_ns;
	if (s->woke_at) {
		s->wake_freq = mlb_wake_freq_next(s->wake_freq, s->now - s->woke_at);
		mlb_class_wake(&s->c, s->now - s->woke_at);
	}
	s->woke_at = s->now;
}

/* ops.stopping: a run of @ran_ns ends, the task still runnable (@runnable) or going to
 * sleep. Returns its class after the evaluation. */
static u32 sim_run(struct sim *s, u64 ran_ns, bool runnable)
{
	u32 before = s->c.cls;

	s->now += ran_ns;
	s->burst_ns = mlb_burst_next(s->burst_ns, ran_ns);
	mlb_class_stop(&s->c, ran_ns, SLICE, runnable);
	s->evals++;
	if (mlb_class_update(&s->c, s->burst_ns, s->wake_freq)) {
		CHECK(s->c.cls != before);
		s->changes++;
		s->last_change = s->evals;
		if (s->verbose)
			printf("  eval %u: %s -> %s (burst %llu us, use %u, freq %u, period %u us, "
			       "jitter %u us)\n",
			       s->evals, names[before], names[s->c.cls],
			       (unsigned long long)s->burst_ns / 1000, s->c.use, s->wake_freq,
			       s->c.period_us, s->c.jitter_us);
	}
	CHECK(s->c.cls < MLB_NR_CLASSES);
	return s->c.cls;
}

/* A periodic task: @n periods of @period_ns, each a run of @run_ns then sleep. */
static void periodic(struct sim *s, u32 n, u64 run_ns, u64 period_ns)
{
	for (u32 i = 0; i < n; i++) {
		sim_wake(s, period_ns - run_ns);
		sim_run(s, run_ns, false);
	}
}

/* A CPU hog for @n runs of @run_ns, each ending with its slice (still runnable). */
static void hog(struct sim *s, u32 n, u64 run_ns)
{
	for (u32 i = 0; i < n; i++)
		sim_run(s, run_ns, true);
}

/* Deterministic pseudo-random numbers (an LCG): the same behaviour on every run. */
static u32 rnd_state = 12345;
static u32 rnd(u32 lo, u32 hi)
{
	rnd_state = rnd_state * 1103515245 + 12345;
	return lo + (rnd_state >> 8) % (hi - lo + 1);
}

/* 1 ms every 10 ms: latency-critical within a quarter second, and then for good. */
static void test_periodic(void)
{
	struct sim s;

	sim_init(&s);
	CHECK(s.c.cls == MLB_CLASS_INTER); /* a new task */
	periodic(&s, 25, 1 * MS, 10 * MS);
	CHECK(s.c.cls == MLB_CLASS_LAT);
	CHECK(s.changes == 1);
	periodic(&s, 1000, 1 * MS, 10 * MS);
	CHECK(s.c.cls == MLB_CLASS_LAT && s.changes == 1);
	/* 60 frames a second, 3 ms each: still short and regular */
	sim_init(&s);
	periodic(&s, 200, 2 * MS, 16667 * US);
	CHECK(s.c.cls == MLB_CLASS_LAT && s.changes == 1);
}

/* A CPU hog: batch within ten whole slices, or twenty slices cut short while others wait. */
static void test_hog(void)
{
	struct sim s;

	sim_init(&s);
	sim_wake(&s, 0);
	hog(&s, 10, SLICE);
	CHECK(s.c.cls == MLB_CLASS_BATCH && s.changes == 1);
	hog(&s, 1000, SLICE);
	CHECK(s.c.cls == MLB_CLASS_BATCH && s.changes == 1);

	sim_init(&s);
	sim_wake(&s, 0);
	hog(&s, 20, 1 * MS); /* slices cut to 1 ms by 19 waiting tasks */
	CHECK(s.c.cls == MLB_CLASS_BATCH && s.changes == 1);
}

/*
 * An editor: a key press wakes it every 80 to 400 ms (sometimes a pause of seconds), it runs
 * 100 us to 1.5 ms (a redraw now and then 4 ms). Short runs, irregular wake-ups: interactive,
 * never latency-critical nor batch.
 */
static void test_editor(void)
{
	struct sim s;

	sim_init(&s);
	for (int i = 0; i < 3000; i++) {
		u64 gap = rnd(80, 400) * MS, run = rnd(100, 1500) * US;

		if (rnd(0, 30) == 0)
			gap = rnd(1000, 5000) * MS;
		if (rnd(0, 20) == 0)
			run = 4 * MS;
		sim_wake(&s, gap);
		sim_run(&s, run, false);
		CHECK(s.c.cls == MLB_CLASS_INTER);
	}
	CHECK(s.changes == 0);
	/* a chat client woken in bursts by packets, 1 to 30 ms apart: irregular as well */
	sim_init(&s);
	for (int i = 0; i < 3000; i++) {
		sim_wake(&s, rnd(1, 30) * MS);
		sim_run(&s, rnd(50, 300) * US, false);
	}
	CHECK(s.c.cls == MLB_CLASS_INTER && s.changes == 0);
}

/* Periodic, then a hog, then periodic again: each class within a bounded number of runs,
 * and only the changes the behaviour makes. */
static void test_change(void)
{
	struct sim s;
	u32 at;

	sim_init(&s);
	s.verbose = true;
	periodic(&s, 200, 1 * MS, 10 * MS);
	CHECK(s.c.cls == MLB_CLASS_LAT && s.changes == 1);
	at = s.evals;
	hog(&s, 200, SLICE);
	CHECK(s.c.cls == MLB_CLASS_BATCH && s.changes == 2);
	CHECK(s.last_change - at <= 8); /* 160 ms of hogging */
	at = s.evals;
	periodic(&s, 300, 1 * MS, 10 * MS);
	CHECK(s.c.cls == MLB_CLASS_LAT);
	CHECK(s.changes <= 4); /* back through interactive at most */
	CHECK(s.last_change - at <= 40);
	/* and a hog that starts sleeping in long irregular gaps: interactive again */
	hog(&s, 100, SLICE);
	CHECK(s.c.cls == MLB_CLASS_BATCH);
	at = s.changes;
	for (int i = 0; i < 100; i++) {
		sim_wake(&s, rnd(50, 500) * MS);
		sim_run(&s, rnd(200, 900) * US, false);
	}
	CHECK(s.c.cls == MLB_CLASS_INTER && s.changes == at + 1);
}

/*
 * Hysteresis. A periodic task whose run length drifts slowly up and down between 1.2 and
 * 2.6 ms, its average crossing the 2 ms entry threshold again and again: it enters once and
 * stays. A task whose slice use wanders around 3/4 (its runs short) likewise enters batch
 * once and stays.
 */
static void test_no_flapping(void)
{
	struct sim s;
	u32 crossings = 0;
	bool below = true;

	sim_init(&s);
	s.verbose = true;
	for (int i = 0; i < 4000; i++) {
		int ph = i % 80; /* a triangle wave of 80 periods */
		u64 run = 1200 * US + (ph < 40 ? ph : 80 - ph) * 35 * US;

		sim_wake(&s, 10 * MS - run);
		sim_run(&s, run, false);
		if ((s.burst_ns < MLB_LAT_BURST_IN_US * US) != below) {
			below = !below;
			crossings++;
		}
	}
	printf("drifting burst: %u threshold crossings, %u class changes\n", crossings, s.changes);
	CHECK(crossings >= 50); /* the test does cross the threshold */
	CHECK(s.c.cls == MLB_CLASS_LAT && s.changes == 1);

	/* runs of 2 ms, nearly three in four cut by preemption (all of the slice used), the
	 * others ending in a short sleep: slice use wanders around 3/4, the burst stays short */
	sim_init(&s);
	crossings = 0;
	below = true;
	for (int i = 0; i < 4000; i++) {
		bool cut = rnd(1, 25) <= 18;

		if (!cut)
			sim_wake(&s, 1 * MS);
		sim_run(&s, 2 * MS, cut);
		if ((s.c.use < MLB_BATCH_USE_IN) != below) {
			below = !below;
			crossings++;
		}
	}
	printf("wandering slice use: %u threshold crossings, %u class changes\n", crossings,
	       s.changes);
	CHECK(crossings >= 50);
	CHECK(s.c.cls == MLB_CLASS_BATCH && s.changes == 1);
}

/* Outliers in a periodic task: a 12 ms run, a run to the end of its slice, a missed period,
 * a late wake-up: it stays latency-critical through each. */
static void test_outliers(void)
{
	struct sim s;

	sim_init(&s);
	s.verbose = true;
	periodic(&s, 100, 1 * MS, 10 * MS);
	CHECK(s.c.cls == MLB_CLASS_LAT && s.changes == 1);
	for (int k = 0; k < 20; k++) {
		/* a 12 ms hiccup */
		sim_wake(&s, 9 * MS);
		sim_run(&s, 12 * MS, false);
		periodic(&s, 50, 1 * MS, 10 * MS);
		/* a run to the end of its slice (its average burst past 3 ms for two runs) */
		sim_wake(&s, 9 * MS);
		sim_run(&s, SLICE, true);
		periodic(&s, 50, 1 * MS, 10 * MS);
		/* a missed period: 20 ms between wake-ups */
		sim_wake(&s, 19 * MS);
		sim_run(&s, 1 * MS, false);
		periodic(&s, 50, 1 * MS, 10 * MS);
		/* a wake-up 3 ms late, then back on time */
		sim_wake(&s, 12 * MS);
		sim_run(&s, 1 * MS, false);
		sim_wake(&s, 6 * MS);
		sim_run(&s, 1 * MS, false);
		periodic(&s, 50, 1 * MS, 10 * MS);
	}
	CHECK(s.c.cls == MLB_CLASS_LAT && s.changes == 1);
}

/*
 * A timer loop beside CPU hogs (cyclictest, lat-task): releases every 2 ms, each run 60 us,
 * but each wake-up waits before it runs, 0.1-0.3 ms mostly, 1-3 ms in one of four, 3-8 ms in
 * one of twenty; a loop that wakes past its next release does not sleep for it (absolute
 * timers), so it next sleeps until the first release still ahead: skipped periods. The
 * timer itself fires up to 0.1 ms late. It stays latency-critical. With the skips counted as
 * irregular intervals (the rule before 2026-12-07) it dropped to interactive.
 */
static void test_skipped_periods(void)
{
	const u64 period = 2 * MS, run = 60 * US;
	u64 release = 0, skips = 0, wakes = 0;
	struct sim s;

	sim_init(&s);
	s.verbose = true;
	for (int i = 0; i < 5000; i++) {
		u64 fire = release + rnd(0, 100) * US, wait;
		u32 r = rnd(1, 20);

		wait = r == 1	? rnd(3000, 8000) * US
		       : r <= 6 ? rnd(1000, 3000) * US
				: rnd(100, 300) * US;
		sim_wake(&s, fire - s.now);
		wakes++;
		s.now += wait; /* runnable, not running: the burst does not see it */
		sim_run(&s, run, false);
		release += period;
		while (release <= s.now) { /* released while it ran or waited: no sleep */
			release += period;
			skips++;
		}
	}
	printf("skipped periods: %llu of %llu releases, period %u us, jitter %u us, %u changes\n",
	       (unsigned long long)skips, (unsigned long long)(skips + wakes), s.c.period_us,
	       s.c.jitter_us, s.changes);
	CHECK(skips * 10 >= wakes); /* the test does skip: at least one in ten */
	CHECK(s.c.cls == MLB_CLASS_LAT && s.changes == 1);
	CHECK(s.c.period_us >= 1800 && s.c.period_us <= 2200);

	/* a real change of period, 2 ms to 10 ms (5 periods: too many to be skips): the period
	 * follows to 10 ms or one that divides it 2 to 4 times, and it stays latency-critical */
	sim_init(&s);
	periodic(&s, 200, 200 * US, 2 * MS);
	periodic(&s, 300, 200 * US, 10 * MS);
	printf("period 2 -> 10 ms: period %u us, jitter %u us\n", s.c.period_us, s.c.jitter_us);
	CHECK(s.c.cls == MLB_CLASS_LAT && s.changes == 1);
	CHECK(s.c.period_us == 10000 || s.c.period_us == 5000 || s.c.period_us == 3333 ||
	      s.c.period_us == 2500);

	/* short runs at random intervals of 0.5 to 6 ms (a pipe's reader, hackbench): some look
	 * like multiples of whatever period is estimated, but not most: never latency-critical */
	sim_init(&s);
	for (int i = 0; i < 5000; i++) {
		sim_wake(&s, rnd(500, 6000) * US);
		sim_run(&s, rnd(20, 200) * US, false);
		CHECK(s.c.cls != MLB_CLASS_LAT);
	}
}

/* The arithmetic at its edges: no overflow, the averages move toward their input. */
static void test_edges(void)
{
	struct mlb_class_ctx c;

	mlb_class_init(&c);
	mlb_class_wake(&c, 0); /* two wake-ups at the same time */
	CHECK(c.period_us == 1 && c.jitter_us == 1);
	mlb_class_wake(&c, ~0ULL); /* capped at 1 s */
	CHECK(c.period_us <= MLB_CLASS_GAP_MAX_US && c.jitter_us <= MLB_CLASS_GAP_MAX_US);
	for (int i = 0; i < 100; i++)
		mlb_class_wake(&c, ~0ULL);
	/* it grows toward the interval until the interval is a whole number (2-4) of periods */
	CHECK(c.period_us >= MLB_CLASS_GAP_MAX_US / MLB_CLASS_SKIP_MAX &&
	      c.period_us <= MLB_CLASS_GAP_MAX_US);
	for (int i = 0; i < 100; i++)
		mlb_class_stop(&c, 50 * MS, SLICE, false);
	CHECK(c.use >= MLB_FRAC_ONE - 7 && c.use <= MLB_FRAC_ONE); /* 7/8 rounding down */
	mlb_class_stop(&c, 0, 0, false);
	CHECK(c.use >= MLB_FRAC_ONE * 7 / 8 - 8);
	CHECK(mlb_wake_freq_next(0, 0) == 25000 && mlb_wake_freq_next(100000, 1) == 100000);
	CHECK(mlb_wake_freq_next(0, 10 * MS) == 25);
	CHECK(mlb_burst_next(0, 8 * MS) == 1 * MS);
	CHECK(mlb_burst_next(~0ULL / 8, ~0ULL / 8) == ~0ULL / 8);
}

int main(void)
{
	test_periodic();
	test_hog();
	test_editor();
	test_change();
	test_no_flapping();
	test_outliers();
	test_skipped_periods();
	test_edges();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
