/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version compatibility for scx_mlb's BPF side: one wrapper per operation.
 *
 * vmlinux.h comes from the 7.2 kernel's BTF and declares every current kfunc __weak, so a
 * kfunc the running kernel lacks resolves to NULL and bpf_ksym_exists() (a load-time
 * constant) lets the verifier prune the branch. The 6.12 names, gone from newer kernels,
 * are declared here under libbpf's "___compat" flavour: libbpf ignores the suffix when it
 * matches the name against kernel BTF.
 *
 * 6.12 -> 6.13 renames used here:
 *   scx_bpf_dispatch            -> scx_bpf_dsq_insert
 *   scx_bpf_dispatch_vtime      -> scx_bpf_dsq_insert_vtime
 *   scx_bpf_consume             -> scx_bpf_dsq_move_to_local
 *   scx_bpf_dispatch_from_dsq   -> scx_bpf_dsq_move
 *   scx_bpf_dispatch_vtime_from_dsq -> scx_bpf_dsq_move_vtime
 *   ..._from_dsq_set_vtime      -> scx_bpf_dsq_move_set_vtime
 */
#ifndef __MLB_COMPAT_BPF_H
#define __MLB_COMPAT_BPF_H

void scx_bpf_dispatch___compat(struct task_struct *p, u64 dsq_id, u64 slice,
			       u64 enq_flags) __ksym __weak;
void scx_bpf_dispatch_vtime___compat(struct task_struct *p, u64 dsq_id, u64 slice, u64 vtime,
				     u64 enq_flags) __ksym __weak;
bool scx_bpf_consume___compat(u64 dsq_id) __ksym __weak;
bool scx_bpf_dispatch_from_dsq___compat(struct bpf_iter_scx_dsq *it__iter, struct task_struct *p,
					u64 dsq_id, u64 enq_flags) __ksym __weak;
bool scx_bpf_dispatch_vtime_from_dsq___compat(struct bpf_iter_scx_dsq *it__iter,
					      struct task_struct *p, u64 dsq_id,
					      u64 enq_flags) __ksym __weak;
void scx_bpf_dispatch_from_dsq_set_vtime___compat(struct bpf_iter_scx_dsq *it__iter,
						  u64 vtime) __ksym __weak;

static __always_inline void mlb_insert(struct task_struct *p, u64 dsq_id, u64 slice, u64 flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_insert))
		scx_bpf_dsq_insert(p, dsq_id, slice, flags);
	else
		scx_bpf_dispatch___compat(p, dsq_id, slice, flags);
}

static __always_inline void mlb_insert_vtime(struct task_struct *p, u64 dsq_id, u64 slice,
					     u64 vtime, u64 flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_insert_vtime))
		scx_bpf_dsq_insert_vtime(p, dsq_id, slice, vtime, flags);
	else
		scx_bpf_dispatch_vtime___compat(p, dsq_id, slice, vtime, flags);
}

static __always_inline bool mlb_move_to_local(u64 dsq_id)
{
	if (bpf_ksym_exists(scx_bpf_dsq_move_to_local))
		return scx_bpf_dsq_move_to_local(dsq_id);
	return scx_bpf_consume___compat(dsq_id);
}

/* Move @p, found by iterator @it, to the FIFO queue @dsq_id (a local DSQ). */
static __always_inline bool mlb_move(struct bpf_iter_scx_dsq *it, struct task_struct *p, u64 dsq_id,
				     u64 flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_move))
		return scx_bpf_dsq_move(it, p, dsq_id, flags);
	return scx_bpf_dispatch_from_dsq___compat(it, p, dsq_id, flags);
}

/* Move @p, found by iterator @it, to the vtime-ordered queue @dsq_id with @vtime. */
static __always_inline bool mlb_move_vtime(struct bpf_iter_scx_dsq *it, struct task_struct *p,
					   u64 dsq_id, u64 vtime, u64 flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_move_set_vtime)) {
		scx_bpf_dsq_move_set_vtime(it, vtime);
		return scx_bpf_dsq_move_vtime(it, p, dsq_id, flags);
	}
	scx_bpf_dispatch_from_dsq_set_vtime___compat(it, vtime);
	return scx_bpf_dispatch_vtime_from_dsq___compat(it, p, dsq_id, flags);
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
