// SPDX-License-Identifier: GPL-2.0
/*
 * unit/policy: the scheduling rules of include/mlb/policy.h, each on its own (the deadline
 * term and its bound, who may preempt whom, the slice of a running task) and together, in a
 * one-CPU simulation that runs them as the scheduler does: a queue ordered by the deadline
 * key, vtime advanced by what each task ran, wake-up preemption and slice cuts. It checks
 * that a latency-critical waker beside a batch CPU hog waits at most the minimum slice and
 * preempts the hog at its wake-ups, that two latency-critical tasks never preempt each other,
 * and that CPU hogs with different bursts still share the CPU fairly.
 */
#include <stdio.h>
#include <string.h>

#include "mlb/intf.h"
#include "mlb/class.h"
#include "mlb/policy.h"
#include "check.h"

#define MS    1000000ULL
#define US    1000ULL
#define SLICE (20 * MS)
#define MIN   (1 * MS) /* --lat-preempt-us 1000 */

static void test_dl_term(void)
{
	/* grows with the burst, weighted like vtime, at most one slice */
	CHECK(mlb_dl_term(0, 100, SLICE) == 0);
	CHECK(mlb_dl_term(300 * US, 100, SLICE) == 300 * US);
	CHECK(mlb_dl_term(5 * MS, 100, SLICE) == 5 * MS);
	CHECK(mlb_dl_term(5 * MS, 200, SLICE) == 5 * MS / 2);
	CHECK(mlb_dl_term(5 * MS, 50, SLICE) == 10 * MS);
	CHECK(mlb_dl_term(50 * MS, 100, SLICE) == SLICE);
	CHECK(mlb_dl_term(15 * MS, 1, SLICE) == SLICE); /* nice 19: capped */
	CHECK(mlb_dl_term(~0ULL, 0, SLICE) == SLICE);	/* no weight: as 1, capped */
	CHECK(mlb_dl_term(~0ULL, 10000, 1000000 * US) == 1000000 * US / 100);
	for (u64 b = 0; b < 40 * MS; b += 100 * US) {
		CHECK(mlb_dl_term(b, 100, SLICE) <= mlb_dl_term(b + 100 * US, 100, SLICE));
		CHECK(mlb_dl_term(b, 100, SLICE) <= SLICE);
	}
	CHECK(mlb_dl_key(1000 * MS, 300 * US, 100, SLICE) == 1000 * MS + 300 * US);
	/* a short-burst task at the same vtime is ahead of a hog */
	CHECK(mlb_dl_key(7 * MS, 300 * US, 100, SLICE) < mlb_dl_key(7 * MS, SLICE, 100, SLICE));
}

static void test_may_preempt(void)
{
	for (u32 w = 0; w < MLB_NR_CLASSES; w++)
		for (u32 c = 0; c < MLB_NR_CLASSES; c++) {
			bool want = w == MLB_CLASS_LAT && c == MLB_CLASS_BATCH;

			CHECK(mlb_may_preempt(w, c, MIN, MIN) == want);
			CHECK(mlb_may_preempt(w, c, 100 * MS, MIN) == want);
			CHECK(!mlb_may_preempt(w, c, MIN - 1, MIN));
			CHECK(!mlb_may_preempt(w, c, 100 * MS, 0)); /* off */
		}
}

static void test_run_slice(void)
{
	u32 c;

	for (c = 0; c < MLB_NR_CLASSES; c++) {
		CHECK(mlb_run_slice(SLICE, MIN, c, 0, 0) == SLICE);
		CHECK(mlb_run_slice(SLICE, MIN, c, 0, 1) == SLICE); /* nobody waits: inconsistent */
		CHECK(mlb_run_slice(SLICE, MIN, c, 1, 0) == SLICE / 2);
		CHECK(mlb_run_slice(SLICE, MIN, c, 3, 0) == SLICE / 4);
		CHECK(mlb_run_slice(SLICE, MIN, c, 100, 0) == MIN);
		CHECK(mlb_run_slice(SLICE, MIN, c, 100, 100) == MIN);
	}
	/* a latency-critical task waits: batch slices shrink to a quarter, the others' do not */
	CHECK(mlb_run_slice(SLICE, MIN, MLB_CLASS_BATCH, 1, 1) == SLICE / 4);
	CHECK(mlb_run_slice(SLICE, MIN, MLB_CLASS_BATCH, 2, 1) == SLICE / 4);
	CHECK(mlb_run_slice(SLICE, MIN, MLB_CLASS_BATCH, 7, 1) == SLICE / 8);
	CHECK(mlb_run_slice(SLICE, MIN, MLB_CLASS_LAT, 1, 1) == SLICE / 2);
	CHECK(mlb_run_slice(SLICE, MIN, MLB_CLASS_INTER, 1, 1) == SLICE / 2);
	CHECK(mlb_run_slice(2 * MS, MIN, MLB_CLASS_BATCH, 1, 1) == MIN);
	/* the floor never lifts a slice above the task's own (light tasks) */
	CHECK(mlb_run_slice(500 * US, MIN, MLB_CLASS_BATCH, 1, 1) == 500 * US);
}

/*
 * One CPU, as the scheduler runs it. Each task is periodic (wakes every @period, runs @run,
 * sleeps) or a hog (period 0: always runnable). The queue holds the runnable tasks not
 * running, ordered by the deadline key at their enqueue; the running task runs until its run
 * ends, its slice ends (mlb_run_slice() at its start and at each 4 ms tick), or a waker may
 * preempt it (mlb_may_preempt()). A sleeper's vtime is raised to the clock minus one slice.
 */
#define NT 3
struct stask {
	u32 cls;
	u64 period, run;  /* period 0: a hog */
	u64 vtime, burst; /* burst: decayed average run, as the scheduler keeps it */
	u64 key;	  /* deadline key while queued */
	u64 next_wake;	  /* periodic: next wake-up */
	u64 left;	  /* periodic: what is left of this period's run */
	u64 ready_at;	  /* when it became runnable */
	bool runnable;
	u64 ran_total;
	u32 wakes, preempted; /* preempted: stopped still runnable before its run ended */
	u64 max_wait;
};

struct sim {
	struct stask t[NT];
	u32 n;
	u64 now, min_ns, vclock;
	u32 preemptions; /* wake-up preemptions (the kicks) */
};

static void enqueue(struct sim *s, struct stask *t)
{
	if (t->period && (s64)(t->vtime - (s->vclock - SLICE)) < 0 && s->vclock > SLICE)
		t->vtime = s->vclock - SLICE;
	t->key = mlb_dl_key(t->vtime, t->burst, 100, SLICE);
	t->runnable = true;
	t->ready_at = s->now;
}

/* The queued task with the smallest key, or -1. */
static int pick(struct sim *s, int running)
{
	int best = -1;

	for (u32 i = 0; i < s->n; i++)
		if (s->t[i].runnable && (int)i != running &&
		    (best < 0 || (s64)(s->t[i].key - s->t[best].key) < 0))
			best = i;
	return best;
}

static u32 nr_waiting(struct sim *s, int running, u32 *nr_lat)
{
	u32 n = 0;

	*nr_lat = 0;
	for (u32 i = 0; i < s->n; i++)
		if (s->t[i].runnable && (int)i != running) {
			n++;
			*nr_lat += s->t[i].cls == MLB_CLASS_LAT;
		}
	return n;
}

/* Run the CPU for @dur in steps of 10 us. */
static void simulate(struct sim *s, u64 dur)
{
	const u64 step = 10 * US;
	int cur = -1;
	u64 started = 0, slice = 0, ran;
	u32 nl, nw;

	for (u32 i = 0; i < s->n; i++) {
		s->t[i].next_wake = s->t[i].period ? (i + 1) * 700 * US : 0;
		if (!s->t[i].period) {
			s->t[i].left = ~0ULL;
			enqueue(s, &s->t[i]);
		}
	}
	for (s->now = 0; s->now < dur; s->now += step) {
		/* wake-ups */
		for (u32 i = 0; i < s->n; i++) {
			struct stask *t = &s->t[i];

			if (!t->period || t->runnable || s->now < t->next_wake)
				continue;
			t->next_wake += t->period;
			t->left = t->run;
			t->wakes++;
			enqueue(s, t);
			if (cur >= 0 &&
			    mlb_may_preempt(t->cls, s->t[cur].cls, s->now - started, s->min_ns)) {
				s->preemptions++;
				slice = 0; /* SCX_KICK_PREEMPT */
			}
		}
		/* the tick cuts the running slice while others wait */
		if (cur >= 0 && s->now % (4 * MS) == 0) {
			nw = nr_waiting(s, cur, &nl);
			ran = s->now - started;
			u64 target = mlb_run_slice(SLICE, MIN, s->t[cur].cls, nw, nl);
			u64 allowed = target > ran ? target - ran : 0;

			if (nw && slice > ran && slice - ran > allowed)
				slice = ran + allowed;
		}
		/* the running task stops: its run is done, or its slice */
		if (cur >= 0) {
			struct stask *t = &s->t[cur];

			ran = s->now - started;
			if (t->left == 0 || ran >= slice) {
				t->vtime += ran; /* weight 100 */
				if (t->period)	 /* a hog's average burst is the test's input */
					t->burst = mlb_burst_next(t->burst, ran);
				if (s->t[cur].vtime > s->vclock)
					s->vclock = t->vtime;
				if (t->left == 0) {
					t->runnable = false;
				} else {
					t->preempted++;
					enqueue(s, t);
				}
				cur = -1;
			}
		}
		/* the CPU takes the head of its queue */
		if (cur < 0) {
			cur = pick(s, -1);
			if (cur >= 0) {
				struct stask *t = &s->t[cur];
				u64 w = s->now - t->ready_at;

				if (w > t->max_wait)
					t->max_wait = w;
				nw = nr_waiting(s, cur, &nl);
				slice = mlb_run_slice(SLICE, MIN, t->cls, nw, nl);
				started = s->now;
				if (t->vtime > s->vclock)
					s->vclock = t->vtime;
			}
		}
		if (cur >= 0) {
			struct stask *t = &s->t[cur];

			t->ran_total += step;
			if (t->period)
				t->left = t->left > step ? t->left - step : 0;
		}
	}
}

static void sim_add(struct sim *s, u32 cls, u64 period, u64 run, u64 burst)
{
	struct stask *t = &s->t[s->n++];

	memset(t, 0, sizeof(*t));
	t->cls = cls;
	t->period = period;
	t->run = run;
	t->burst = burst;
}

/* A periodic latency-critical task (0.3 ms every 5 ms) beside a batch hog. */
static void test_sim_hog(void)
{
	struct sim s = {.min_ns = MIN};
	struct sim off = {.min_ns = 0};

	sim_add(&s, MLB_CLASS_BATCH, 0, 0, SLICE);
	sim_add(&s, MLB_CLASS_LAT, 5 * MS, 300 * US, 300 * US);
	simulate(&s, 2000 * MS);
	printf("hog + lat: %u wake-ups, hog preempted %u times, %u kicks, lat waited at most "
	       "%llu us\n",
	       s.t[1].wakes, s.t[0].preempted, s.preemptions,
	       (unsigned long long)s.t[1].max_wait / US);
	CHECK(s.t[1].wakes >= 390);
	CHECK(s.preemptions >= s.t[1].wakes * 9 / 10); /* nearly every wake-up */
	CHECK(s.t[0].preempted >= s.t[1].wakes * 9 / 10);
	CHECK(s.t[1].max_wait <= MIN);
	CHECK(s.t[1].preempted == 0);
	/* the hog still has the rest of the CPU */
	CHECK(s.t[0].ran_total >= 2000 * MS * 9 / 10);

	/* without preemption the waker waits for the tick and the shrunk slice */
	sim_add(&off, MLB_CLASS_BATCH, 0, 0, SLICE);
	sim_add(&off, MLB_CLASS_LAT, 5 * MS, 300 * US, 300 * US);
	simulate(&off, 2000 * MS);
	printf("preemption off: lat waited at most %llu us\n",
	       (unsigned long long)off.t[1].max_wait / US);
	CHECK(off.preemptions == 0);
	CHECK(off.t[1].max_wait > MIN);
	CHECK(off.t[1].max_wait <= SLICE / MLB_BATCH_SLICE_DIV + 4 * MS);
}

/* Two latency-critical tasks (1.5 ms every 5 and every 7 ms): neither preempts the other,
 * also when the minimum slice is small, and both run all of their work. */
static void test_sim_lat_lat(void)
{
	u64 mins[] = {MIN, 100 * US};

	for (u32 k = 0; k < 2; k++) {
		struct sim s = {.min_ns = mins[k]};

		sim_add(&s, MLB_CLASS_LAT, 5 * MS, 1500 * US, 1500 * US);
		sim_add(&s, MLB_CLASS_LAT, 7 * MS, 1500 * US, 1500 * US);
		simulate(&s, 2000 * MS);
		printf(
		    "lat + lat (min %llu us): %u and %u wake-ups, preempted %u and %u, %u kicks\n",
		    (unsigned long long)mins[k] / US, s.t[0].wakes, s.t[1].wakes, s.t[0].preempted,
		    s.t[1].preempted, s.preemptions);
		CHECK(s.preemptions == 0);
		CHECK(s.t[0].preempted == 0 && s.t[1].preempted == 0);
		CHECK(s.t[0].wakes >= 390 && s.t[1].wakes >= 280);
	}
}

/* Two hogs, one whose burst is short (its average says 1 ms) and one of whole slices: the
 * deadline term puts the short one first at equal vtime, but CPU time stays fair. */
static void test_sim_fair(void)
{
	struct sim s = {.min_ns = MIN};
	s64 d;

	sim_add(&s, MLB_CLASS_BATCH, 0, 0, 1 * MS);
	sim_add(&s, MLB_CLASS_BATCH, 0, 0, SLICE);
	sim_add(&s, MLB_CLASS_INTER, 0, 0, 5 * MS);
	simulate(&s, 3000 * MS);
	printf("three hogs: ran %llu, %llu and %llu ms of 3000\n",
	       (unsigned long long)s.t[0].ran_total / MS, (unsigned long long)s.t[1].ran_total / MS,
	       (unsigned long long)s.t[2].ran_total / MS);
	for (u32 i = 0; i < 3; i++)
		for (u32 j = 0; j < 3; j++) {
			d = (s64)s.t[i].ran_total - (s64)s.t[j].ran_total;
			CHECK(d <= (s64)(2 * SLICE)); /* within the term's bound and one slice */
		}
}

int main(void)
{
	test_dl_term();
	test_may_preempt();
	test_run_slice();
	test_sim_hog();
	test_sim_lat_lat();
	test_sim_fair();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
