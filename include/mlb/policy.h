/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the task classes (include/mlb/class.h) change in scheduling: the order of a CPU's
 * queue, who may preempt whom, and how long a running task's slice is. Integer only; compiled
 * into the BPF scheduler (queues.bpf.h, balance.bpf.h, scx_mlb.bpf.c) and into the host unit
 * test (tests/unit/test_policy.c), which checks each rule on its own and a queue simulated
 * with them.
 *
 * THE DEADLINE (mlb_dl_term(), mlb_dl_key())
 * Each per-CPU queue is ordered by a deadline key, not by vtime alone:
 *     key  = vtime + term
 *     term = min(burst, slice) * 100 / weight, at most one slice
 * where burst is the task's decayed average run (7/8 old + 1/8 new), slice the full slice
 * (--slice-us) and weight the task's sched_ext weight (100 = nice 0). A task that runs in
 * short bursts is queued ahead of one that runs whole slices at the same vtime: a 0.3 ms
 * waker is 0.3 ms past its vtime, a CPU hog a whole slice. Fairness holds because vtime
 * itself still advances by what the task ran (runtime * 100 / weight): the term is an offset
 * of at most one slice, so over time the CPU's share follows vtime as before, and the key
 * order differs from the vtime order by at most one slice. The key is what the queue holds;
 * the task's vtime (tctx->vtime, vtime_rebase(), the queue clock vtime_now) stays vtime.
 *
 * PREEMPTION (mlb_may_preempt())
 * A latency-critical task that wakes up onto a CPU running a batch task takes the CPU at once
 * when that batch task has run at least the minimum slice (--lat-preempt-us, 1 ms by
 * default; 0: never). It never preempts a latency-critical or an interactive task, and no
 * other class preempts. The minimum slice bounds what a batch task loses to preemption: at
 * least 1 ms of every run it starts, so a flood of latency-critical wake-ups cannot reduce
 * it to nothing but switches.
 *
 * SLICES (mlb_run_slice())
 * The running task's slice while @n tasks wait on its CPU is slice / (n + 1) (as before the
 * classes); a batch task's is at most slice / 4 (MLB_BATCH_SLICE_DIV) while a latency-
 * critical task is among those waiting; never below --slice-min-us.
 */
#ifndef __MLB_POLICY_H
#define __MLB_POLICY_H

#include "intf.h"
#include "class.h"

#define MLB_BATCH_SLICE_DIV 4 /* a batch slice while latency-critical tasks wait: slice / 4 */

/*
 * mlb_dl_term - the deadline term of a task whose average burst is @burst_ns and sched_ext
 * weight @weight, with the full slice @slice_ns: min(burst, slice) * 100 / weight, at most
 * @slice_ns. Monotonic in the burst; 0 for a task that never ran.
 */
static inline u64 mlb_dl_term(u64 burst_ns, u32 weight, u64 slice_ns)
{
	u64 t = burst_ns < slice_ns ? burst_ns : slice_ns;

	t = t * MLB_WEIGHT_DFL / (weight ? weight : 1);
	return t < slice_ns ? t : slice_ns;
}

/* mlb_dl_key - the key a task of vtime @vtime is queued with (see THE DEADLINE above). */
static inline u64 mlb_dl_key(u64 vtime, u64 burst_ns, u32 weight, u64 slice_ns)
{
	return vtime + mlb_dl_term(burst_ns, weight, slice_ns);
}

/*
 * mlb_may_preempt - may a waking task of class @waker take the CPU from the running task of
 * class @curr that has run @ran_ns, with the minimum slice @min_ns (0: preemption off)? True
 * only for a latency-critical waker and a batch task that has run at least @min_ns.
 */
static inline bool mlb_may_preempt(u32 waker, u32 curr, u64 ran_ns, u64 min_ns)
{
	return min_ns && waker == MLB_CLASS_LAT && curr == MLB_CLASS_BATCH && ran_ns >= min_ns;
}

/*
 * mlb_run_slice - the slice of a running task of class @cls whose full slice is @slice_ns,
 * while @nr_waiting tasks wait on its CPU, @nr_lat of them latency-critical: @slice_ns when
 * none waits, else slice / (nr_waiting + 1), for a batch task at most slice /
 * MLB_BATCH_SLICE_DIV while @nr_lat > 0; never below @min_ns (nor above @slice_ns).
 */
static inline u64 mlb_run_slice(u64 slice_ns, u64 min_ns, u32 cls, u32 nr_waiting, u32 nr_lat)
{
	u64 s;

	if (!nr_waiting)
		return slice_ns;
	s = slice_ns / ((u64)nr_waiting + 1);
	if (cls == MLB_CLASS_BATCH && nr_lat && s > slice_ns / MLB_BATCH_SLICE_DIV)
		s = slice_ns / MLB_BATCH_SLICE_DIV;
	if (s < min_ns)
		s = min_ns;
	return s < slice_ns ? s : slice_ns;
}

#endif /* __MLB_POLICY_H */
