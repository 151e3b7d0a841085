// SPDX-License-Identifier: GPL-2.0
/*
 * lat-task: a periodic task with deadlines. The guest scenario vm/lat-preempt runs it as the
 * kind of task scx_mlb classifies latency-critical (include/mlb/class.h); make bench runs
 * several with -c as its frame-deadline workload beside a build (bench/workloads.sh).
 *
 *   lat-task [-c] [-o FILE] PERIOD_US RUN_US SECONDS
 *
 * Period k is released at start + k * PERIOD_US (clock_nanosleep to that absolute time,
 * CLOCK_MONOTONIC) and its deadline is the next release. At each release the task works for
 * RUN_US, of wall time from its wake-up, or with -c of its own CPU time
 * (CLOCK_THREAD_CPUTIME_ID: the work a frame needs, however often it is preempted), then
 * sleeps until the next release. A period is missed when its work ends after its deadline;
 * releases that pass while it is still working are skipped, and missed too. It stops after
 * SECONDS, or at SIGTERM / SIGINT (the periods so far count), and prints one line of what the
 * kernel and the clock saw, not the scheduler:
 *   lat-task: wakes=N missed=M periods=P lat_p50_us=A lat_p99_us=B lat_max_us=C nvcsw=V
 *             nivcsw=I
 * where periods = wakes + the skipped releases, lat is the wake-up latency (the time from the
 * release to the task's first instruction after it) and nvcsw / nivcsw its voluntary and
 * involuntary context switches (getrusage: the counts /proc/PID/status shows). With -o it
 * also writes every wake-up latency, in us, one per line, to FILE. Exit 0, or 2 with one line
 * on bad arguments, 1 when a system call fails.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
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

static void usage(void)
{
	fprintf(stderr, "usage: lat-task [-c] [-o FILE] PERIOD_US RUN_US SECONDS "
			"(RUN_US < PERIOD_US)\n");
}

int main(int argc, char **argv)
{
	unsigned long period_us, run_us, secs;
	uint64_t period, run, next, end, woke, done, cpu0, *lat;
	size_t n = 0, cap, missed = 0, skipped = 0, i;
	struct sigaction sa = {.sa_handler = on_stop};
	const char *out = NULL;
	bool cpu = false;
	struct timespec ts;
	struct rusage ru;
	FILE *f;
	int err, opt;

	opterr = 0; /* one line on bad arguments: the usage */
	while ((opt = getopt(argc, argv, "co:")) != -1) {
		switch (opt) {
		case 'c':
			cpu = true;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 3 || arg(argv[0], 100, 10000000, &period_us) ||
	    arg(argv[1], 0, 10000000, &run_us) || arg(argv[2], 1, 3600, &secs) ||
	    run_us >= period_us) {
		usage();
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
	/* no SA_RESTART: the signal ends the sleep it interrupts with EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	next = now_ns() + period;
	end = next + secs * 1000000000ull;
	while (!stop && next < end && n < cap) {
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
		if (cpu) {
			cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
			while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0 < run)
				;
		} else {
			while (now_ns() - woke < run)
				;
		}
		done = now_ns();
		next += period; /* this period's deadline */
		if (done > next)
			missed++;
		while (next < done) { /* releases gone while it worked: skipped, missed */
			next += period;
			skipped++;
			missed++;
		}
	}
	if (getrusage(RUSAGE_SELF, &ru)) {
		perror("lat-task: getrusage");
		return 1;
	}
	if (out) {
		f = fopen(out, "w");
		if (!f) {
			fprintf(stderr, "lat-task: %s: %s\n", out, strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++)
			fprintf(f, "%llu\n", (unsigned long long)lat[i] / 1000);
		if (fclose(f)) {
			fprintf(stderr, "lat-task: %s: %s\n", out, strerror(errno));
			return 1;
		}
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("lat-task: wakes=%zu missed=%zu periods=%zu lat_p50_us=%llu lat_p99_us=%llu "
	       "lat_max_us=%llu nvcsw=%ld nivcsw=%ld\n",
	       n, missed, n + skipped, n ? (unsigned long long)lat[n / 2] / 1000 : 0,
	       n ? (unsigned long long)lat[n * 99 / 100] / 1000 : 0,
	       n ? (unsigned long long)lat[n - 1] / 1000 : 0, ru.ru_nvcsw, ru.ru_nivcsw);
	free(lat);
	return 0;
}
