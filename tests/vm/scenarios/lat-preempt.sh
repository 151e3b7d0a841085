#!/usr/bin/env bash
# topo: flat4
# timeout: 300
# Latency-critical preemption (include/mlb/policy.h), seen from outside the scheduler: the
# kernel's involuntary context switch counts (/proc/PID/status nonvoluntary_ctxt_switches,
# getrusage) and the wake-up latency each task measures against its own deadlines.
# (1) a CPU hog (bash busy loop) pinned to CPU 1 with a second hog for 1 s, so that it is
# batch; then a periodic short-burst task (build/tests/lat-task: 0.5 ms every 20 ms,
# latency-critical) beside it, once with --lat-preempt-us 0 and once at the defaults: there
# the hog's involuntary switches grow with the task's wake-ups (at least LATP_HOG_MIN_PCT %
# of them; slice cuts alone also make some), the task's median wake-up latency stays under
# LATP_P50_MAX_US, and a wake-up with preemption is faster than one without it with a
# probability of at least LATP_FASTER_PM per mille (over every pair of the two runs' wake-ups,
# ties half: the Mann-Whitney statistic; 500 when preemption changes nothing). Without
# preemption the task waits for the hog's next tick (4 ms apart), with it for the kick; the
# medians alone swung with the phase of the ticks (off 1252..2347 us, on 465..808 us).
# (2) scx_mlb with --lat-preempt-us 200 (a short minimum
# slice, so that a broken rule would show); two latency-critical tasks pinned together to
# CPU 2 (1.5 ms every 12 ms and every 17 ms: each often wakes while the other has run past
# the minimum slice) never preempt each other: each one's involuntary switches stay under
# LATP_LAT_MAX_PCT % of its wake-ups. The scheduler's own counters are printed, not judged
# (class_lat, preempt_lat_batch). Every task completes, the scheduler stays enabled; SIGINT
# -> 0 both times.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
LT=$MLB_ROOT/build/tests/lat-task
HOG=""
cleanup() { [ -n "$HOG" ] && kill "$HOG" 2>/dev/null; spin_stop; }
trap cleanup EXIT
[ -x "$LT" ] || fail "no $LT (run make)"
D=$(short 12 8)
HOG_MIN=${LATP_HOG_MIN_PCT:-50}
LAT_MAX=${LATP_LAT_MAX_PCT:-2}
P50_MAX=${LATP_P50_MAX_US:-3000}
FASTER_PM=${LATP_FASTER_PM:-700}

# nivcsw PID: its nonvoluntary_ctxt_switches (no fork)
nivcsw() {
	local k v
	while read -r k v; do
		[ "$k" = nonvoluntary_ctxt_switches: ] && { echo "$v"; return; }
	done <"/proc/$1/status"
	echo 0
}
# lt_field LOG KEY: KEY= of lat-task's line in LOG
lt_field() {
	local w
	for w in $(grep -a '^lat-task:' "$1"); do [[ $w == "$2="* ]] && { echo "${w#*=}"; return; }; done
}

# faster_pm A B: per mille of the pairs (a of file A, b of file B, one number per line) with
# a < b, ties counted half
faster_pm() {
	{ sed 's/$/ a/' "$1"; sed 's/$/ b/' "$2"; } | sort -n -k1,1 | awk -v nb_all="$(wc -l <"$2")" '
		function flush() { u += na * (nb_all - below - nb) + na * nb / 2; below += nb; na = nb = 0 }
		{ if (NR > 1 && $1 != v) flush(); v = $1; if ($2 == "a") { na++; ta++ } else nb++ }
		END { flush(); printf "%d\n", ta && below ? 1000 * u / (ta * below) : 0 }'
}

# hog_case TAG ARGS...: scx_mlb with ARGS; on CPU 1 a CPU hog, made batch beside a second hog
# for 1 s, then a latency-critical waker beside it for $D s. Sets HD (the hog's involuntary
# switches meanwhile), W (the waker's wake-ups) and P50 (its median wake-up latency, us); every
# wake-up latency is in $MLB_OUT/lat-hog-TAG.us.
hog_case() {
	local tag=$1 h0 h1 lt cl pb0 pb1 log=$MLB_OUT/lat-hog-$1.log
	shift
	MLB_LOG=$MLB_OUT/scx_mlb-hog-$tag.log
	mlb_start --stats 1 "$@"
	mlb_wait_enabled
	taskset -c 1 bash -c 'while :; do :; done' &
	HOG=$!
	spin_start 1 1
	zzz 1
	spin_stop
	h0=$(nivcsw $HOG)
	taskset -c 1 "$LT" -o "$MLB_OUT/lat-hog-$tag.us" 20000 500 "$D" >"$log" 2>&1 &
	lt=$!
	zzz $((D / 2))
	cl=$(last_stat class_lat) pb0=$(last_stat preempt_lat_batch)
	wait $lt || fail "$tag: lat-task beside the hog failed: $(cat "$log")"
	h1=$(nivcsw $HOG)
	kill -0 $HOG 2>/dev/null || fail "$tag: the hog died"
	kill $HOG
	wait $HOG 2>/dev/null
	HOG=""
	wait_stats $(($(nstats) + 1)) 10
	pb1=$(last_stat preempt_lat_batch)
	mlb_check_enabled "$tag"
	mlb_stop INT
	[ "$MLB_RC" = 0 ] || fail "$tag: scx_mlb exit status $MLB_RC after SIGINT, expected 0"
	W=$(lt_field "$log" wakes) P50=$(lt_field "$log" lat_p50_us)
	[ -n "$W" ] && [ "$W" -gt 0 ] && [ -n "$P50" ] || fail "$tag: lat-task beside the hog: no result: $(cat "$log")"
	HD=$((h1 - h0))
	note "$tag: hog + lat on CPU 1: $(cat "$log"); hog involuntary switches +$HD; class_lat $cl; preempt_lat_batch $pb0 -> $pb1"
}

# (1) preemption off, for comparison: the waker waits for the hog's next tick
hog_case off --lat-preempt-us 0
P50_OFF=$P50
# (1) the defaults
hog_case on
[ $((HD * 100)) -ge $((W * HOG_MIN)) ] ||
	fail "the hog was preempted $HD times for $W wake-ups of the latency-critical task (< $HOG_MIN %)"
[ "$P50" -le "$P50_MAX" ] ||
	fail "beside the hog the latency-critical task's median wake-up latency is $P50 us (> $P50_MAX us)"
FASTER=$(faster_pm "$MLB_OUT/lat-hog-on.us" "$MLB_OUT/lat-hog-off.us")
note "a wake-up with preemption is faster than one without it in $FASTER per mille of the pairs"
[ "$FASTER" -ge "$FASTER_PM" ] ||
	fail "with preemption a wake-up beside the hog is faster than without it in only $FASTER per mille of the pairs (< $FASTER_PM; medians $P50 us, $P50_OFF us with --lat-preempt-us 0)"
HOG_SUM="hog preempted $HD times for $W wake-ups, median latency $P50 us ($P50_OFF us with preemption off), faster in $FASTER per mille of the pairs"

# (2) two latency-critical tasks on CPU 2, with a short minimum slice
MLB_LOG=$MLB_OUT/scx_mlb-lat-lat.log
mlb_start --stats 1 --lat-preempt-us 200
mlb_wait_enabled
taskset -c 2 "$LT" 12000 1500 "$D" >"$MLB_OUT/lat-a.log" 2>&1 &
la=$!
taskset -c 2 "$LT" 17000 1500 "$D" >"$MLB_OUT/lat-b.log" 2>&1 &
lb=$!
zzz $((D / 2))
CL2=$(last_stat class_lat) PL0=$(last_stat preempt_lat_batch)
wait $la || fail "lat-task a failed: $(cat "$MLB_OUT/lat-a.log")"
wait $lb || fail "lat-task b failed: $(cat "$MLB_OUT/lat-b.log")"
PL1=$(last_stat preempt_lat_batch)
mlb_check_enabled
note "class_lat during lat + lat: $CL2; preempt_lat_batch $PL0 -> $PL1"
for t in a b; do
	log=$MLB_OUT/lat-$t.log
	w=$(lt_field "$log" wakes) n=$(lt_field "$log" nivcsw)
	[ -n "$w" ] && [ "$w" -gt 0 ] && [ -n "$n" ] || fail "lat-task $t: no result: $(cat "$log")"
	note "lat + lat on CPU 2, task $t: $(cat "$log")"
	[ $((n * 100)) -le $((w * LAT_MAX)) ] ||
		fail "latency-critical task $t was preempted $n times in $w wake-ups (> $LAT_MAX %): one preempted the other"
done
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "scx_mlb exit status $MLB_RC after SIGINT, expected 0"
echo "lat-preempt: ok ($HOG_SUM; lat + lat involuntary switches $(lt_field "$MLB_OUT/lat-a.log" nivcsw) and $(lt_field "$MLB_OUT/lat-b.log" nivcsw))"
