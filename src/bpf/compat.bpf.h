/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version compatibility for scx_mlb's BPF side: one wrapper per operation that differs
 * between the kernels scx_mlb runs on.
 *
 * One object runs on every sched_ext kernel Debian ships (6.16 to 7.3; trixie's 6.12 has
 * sched_ext off). It is built against include/vmlinux/vmlinux.h, the newest of them, which
 * declares every kfunc __weak: a kfunc the running kernel lacks resolves to NULL and
 * bpf_ksym_exists() (a load-time constant) lets the verifier prune the branch that calls it.
 * The kfuncs, enum values and ops fields scx_mlb uses have the same prototypes and values on
 * 6.16, 6.18 and 7.3 (checked on their BTF), except for the two kfuncs below.
 *
 *   scx_bpf_cpu_curr()         6.18 and later (wake-up preemption is off without it)
 *   scx_bpf_task_set_slice()   6.19 and later (older kernels take a direct write)
 *
 * Not used, on purpose: the 6.12 names that 6.13 renamed (scx_bpf_dispatch, _consume, ...)
 * exist on no Debian sched_ext kernel, so their fallbacks were removed; the argument-struct
 * forms of 6.19 (__scx_bpf_dsq_insert_vtime) and the enq_flags form of
 * scx_bpf_dsq_move_to_local of 7.1 have older forms that every kernel from 6.16 to 7.3 still
 * exports, which is what scx_mlb calls. tests/run.sh's kernel matrix loads this object on the
 * oldest, the newest 6.18 and the newest of those kernels, and the verifier passes every
 * program on each.
 */
#ifndef __MLB_COMPAT_BPF_H
#define __MLB_COMPAT_BPF_H

static __always_inline void mlb_insert(struct task_struct *p, u64 dsq_id, u64 slice, u64 flags)
{
	scx_bpf_dsq_insert(p, dsq_id, slice, flags);
}

static __always_inline void mlb_insert_vtime(struct task_struct *p, u64 dsq_id, u64 slice,
					     u64 vtime, u64 flags)
{
	scx_bpf_dsq_insert_vtime(p, dsq_id, slice, vtime, flags);
}

static __always_inline bool mlb_move_to_local(u64 dsq_id)
{
	return scx_bpf_dsq_move_to_local(dsq_id);
}

/* Move @p, found by iterator @it, to the FIFO queue @dsq_id (a local DSQ). */
static __always_inline bool mlb_move(struct bpf_iter_scx_dsq *it, struct task_struct *p, u64 dsq_id,
				     u64 flags)
{
	return scx_bpf_dsq_move(it, p, dsq_id, flags);
}

/* Move @p, found by iterator @it, to the vtime-ordered queue @dsq_id with @vtime. */
static __always_inline bool mlb_move_vtime(struct bpf_iter_scx_dsq *it, struct task_struct *p,
					   u64 dsq_id, u64 vtime, u64 flags)
{
	scx_bpf_dsq_move_set_vtime(it, vtime);
	return scx_bpf_dsq_move_vtime(it, p, dsq_id, flags);
}

/* Set @p's remaining slice: the kfunc where the kernel has it (6.19 and later, where writing
 * p->scx.slice directly is deprecated and logged), else the direct write. */
static __always_inline void mlb_set_slice(struct task_struct *p, u64 slice)
{
	if (bpf_ksym_exists(scx_bpf_task_set_slice))
		scx_bpf_task_set_slice(p, slice);
	else
		p->scx.slice = slice;
}

/* scx_bpf_error() with up to two integer arguments, through the _bstr kfunc. */
#define mlb_error(fmt, a, b)                                                                       \
	do {                                                                                       \
		static char ___fmt[] = fmt;                                                        \
		unsigned long long ___args[2] = {(unsigned long long)(a),                          \
						 (unsigned long long)(b)};                         \
		scx_bpf_error_bstr(___fmt, ___args, sizeof(___args));                              \
	} while (0)

/* A line of the debug dump (ops.dump*), with up to four integer arguments. */
#define mlb_dumpf(fmt, a, b, c, d)                                                                 \
	do {                                                                                       \
		static char ___fmt[] = fmt;                                                        \
		unsigned long long ___args[4] = {(unsigned long long)(a), (unsigned long long)(b), \
						 (unsigned long long)(c),                          \
						 (unsigned long long)(d)};                         \
		scx_bpf_dump_bstr(___fmt, ___args, sizeof(___args));                               \
	} while (0)

#endif /* __MLB_COMPAT_BPF_H */
