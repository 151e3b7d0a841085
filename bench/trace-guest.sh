# bench/trace.sh's guest side: one Lua build under EEVDF, then one under scx_mlb, each with
# the scheduler events in ftrace (sched_switch, sched_wakeup, sched_wakeup_new,
# sched_migrate_task) written to $MLB_OUT/seq-<scheduler>.txt. An unmeasured build first
# warms the page cache. Environment: LUA (the tarball), QUICK (0/1, as make bench),
# MLB_ARGS (more options for scx_mlb, which runs --mode heuristic unless they say).
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T || fail "no tracefs"
if [ "${QUICK:-0}" = 1 ]; then # the same sizes as bench/workloads.sh
	target="lapi.o lcode.o lctype.o ldebug.o ldo.o ldump.o lfunc.o lgc.o llex.o lmem.o lobject.o lopcodes.o"
	cflags=-O0
else
	target=linux cflags=-O2
fi
build() {
	rm -rf /tmp/lua && mkdir -p /tmp/lua && tar -C /tmp/lua -xzf "$LUA" --strip-components=1 ||
		fail "cannot unpack $LUA"
	local t0=$(now_ms)
	make -C /tmp/lua/src -j"$(nproc)" $target CFLAGS="$cflags -Wall -DLUA_COMPAT_5_3 -DLUA_USE_LINUX" \
		>/tmp/build.log 2>&1 || fail "the build failed: $(tail -n 3 /tmp/build.log)"
	echo "build_ms=$(($(now_ms) - t0))"
}
# traced NAME: one build with the events on; fails if the buffer lost events.
traced() {
	echo >$T/trace
	echo 1 >$T/tracing_on
	build
	echo 0 >$T/tracing_on
	cat $T/trace >"$MLB_OUT/seq-$1.txt"
	grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' "$MLB_OUT/seq-$1.txt" ||
		fail "the trace buffer overflowed: $(grep -m1 entries-in-buffer "$MLB_OUT/seq-$1.txt")"
}
echo 0 >$T/tracing_on
echo 65536 >$T/buffer_size_kb
echo global >$T/trace_clock
for e in sched_switch sched_wakeup sched_wakeup_new sched_migrate_task; do
	echo 1 >$T/events/sched/$e/enable || fail "cannot enable sched/$e"
done
note "warm-up build"
build
note "eevdf"
traced eevdf
mlb_start --mode heuristic ${MLB_ARGS:-} # a later --mode wins
mlb_wait_enabled
note "scx_mlb"
traced scx_mlb
mlb_check_enabled
mlb_stop INT
