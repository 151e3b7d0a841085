// SPDX-License-Identifier: GPL-2.0
/*
 * lat-task: a periodic short-burst task for the guest scenario vm/lat-preempt, the kind of
 * task scx_mlb classifies latency-critical (include/mlb/class.h).
 *
 *   lat-task PERIOD_US RUN_US SECONDS
 *
 * Every PERIOD_US it wakes at an absolute deadline (clock_nanosleep, CLOCK_MONOTONIC), spins
 * for RUN_US of wall time from its wake-up, and sleeps again, for SECONDS. A period whose
 * deadline has passed by the time it sleeps is skipped and counted missed. At the end it
 * prints one line of what the kernel and the clock saw, not the scheduler:
 *   lat-task: wakes=N missed=M lat_p50_us=A lat_p99_us=B lat_max_us=C nvcsw=V nivcsw=I
 * where lat is the wake-up latency (the time from the deadline to the task's first
 * instruction after it) and nvcsw / nivcsw its voluntary and involuntary context switches
 * (getrusage: the counts /proc/PID/status shows). Exit 0, or 2 with one line on bad
 * arguments, 1 when a system call fails.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int arg(const char *s, unsigned long lo, unsigned long hi, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' || *v < lo || *v > hi ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned long period_us, run_us, secs;
	uint64_t period, run, next, end, woke, *lat;
	size_t n = 0, cap, missed = 0;
	struct timespec ts;
	struct rusage ru;
	int err;

	if (argc != 4 || arg(argv[1], 100, 10000000, &period_us) ||
	    arg(argv[2], 0, 10000000, &run_us) || arg(argv[3], 1, 3600, &secs) ||
	    run_us >= period_us) {
		fprintf(stderr, "usage: lat-task PERIOD_US RUN_US SECONDS (RUN_US < PERIOD_US)\n");
		return 2;
	}
	period = period_us * 1000ull;
	run = run_us * 1000ull;
	cap = secs * 1000000ull / period_us + 2;
	lat = calloc(cap, sizeof(*lat));
	if (!lat) {
		perror("lat-task: calloc");
		return 1;
	}
	next = now_ns() + period;
	end = next + secs * 1000000000ull;
	while (next < end && n < cap) {
		ts.tv_sec = next / 1000000000ull;
		ts.tv_nsec = next % 1000000000ull;
		err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (err && err != EINTR) {
			fprintf(stderr, "lat-task: clock_nanosleep: %s\n", strerror(err));
			return 1;
		}
		if (err)
			continue;
		woke = now_ns();
		lat[n++] = woke - next;
		while (now_ns() - woke < run)
			;
		next += period;
		while (next < now_ns()) { /* overran: skip the periods already gone */
			next += period;
			missed++;
		}
	}
	if (getrusage(RUSAGE_SELF, &ru)) {
		perror("lat-task: getrusage");
		return 1;
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("lat-task: wakes=%zu missed=%zu lat_p50_us=%llu lat_p99_us=%llu lat_max_us=%llu "
	       "nvcsw=%ld nivcsw=%ld\n",
	       n, missed, n ? (unsigned long long)lat[n / 2] / 1000 : 0,
	       n ? (unsigned long long)lat[n * 99 / 100] / 1000 : 0,
	       n ? (unsigned long long)lat[n - 1] / 1000 : 0, ru.ru_nvcsw, ru.ru_nivcsw);
	free(lat);
	return 0;
}
