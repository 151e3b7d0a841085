#!/usr/bin/env bash
# unit/lat-task: build/tests/lat-task, the periodic task of vm/lat-preempt and of make bench's
# frame workload, on the host. Bad arguments: exit 2 and one line. A task that needs 1.9 ms of
# CPU every 2 ms (-c) pinned to one CPU beside a spinner on that CPU gets about half of it, so
# it misses at least half of its periods (contention can only make it worse); its line is
# consistent (periods = wake-ups + skipped releases, missed <= periods) and -o writes one
# latency per wake-up. SIGTERM ends a run early with exit 0 and its line.
set -u
cd "$(dirname "$0")/../.." || exit 1
lt=build/tests/lat-task
[ -x "$lt" ] || { echo "FAIL: no $lt (make)"; exit 1; }
work=$(mktemp -d)
spin=""
trap '[ -n "$spin" ] && kill "$spin" 2>/dev/null; rm -rf "$work"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
# field LINE KEY: KEY= of a lat-task line
field() {
	local v=" $1"
	[[ $v == *" $2="* ]] || return
	v=${v#* $2=}
	echo "${v%% *}"
}

for args in "" "4000 1000" "4000 4000 1" "4000 1000 0" "50 10 1" "-x 4000 1000 1" "4000 1k 1"; do
	# shellcheck disable=SC2086 # the words are the arguments
	"$lt" $args >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc = 2 ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" = 1 ] ||
		fail "arguments '$args': exit $rc, stdout '$(cat "$work/out")', stderr '$(cat "$work/err")'"
done

cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
taskset -c "$cpu" bash -c 'while :; do :; done' &
spin=$!
taskset -c "$cpu" "$lt" -c -o "$work/lat" 2000 1900 2 >"$work/out" 2>&1
rc=$?
kill "$spin"
wait "$spin" 2>/dev/null
spin=""
line=$(cat "$work/out")
w=$(field "$line" wakes) m=$(field "$line" missed) p=$(field "$line" periods)
if [ $rc != 0 ] || [ -z "$w" ] || [ -z "$m" ] || [ -z "$p" ]; then
	fail "beside a spinner: exit $rc, '$line'"
else
	[ $((2 * m)) -ge "$p" ] || fail "beside a spinner 1.9 ms of CPU every 2 ms missed only $m of $p periods: $line"
	[ "$m" -le "$p" ] && [ "$w" -le "$p" ] && [ "$w" -gt 0 ] || fail "inconsistent counts: $line"
	[ "$(wc -l <"$work/lat")" = "$w" ] || fail "-o wrote $(wc -l <"$work/lat") latencies for $w wake-ups"
	grep -qvE '^[0-9]+$' "$work/lat" && fail "-o wrote a line that is not a number of us"
fi

"$lt" 10000 100 30 >"$work/out" 2>&1 &
pid=$!
sleep 0.5
kill -TERM $pid
t0=$SECONDS
wait $pid
rc=$?
line=$(cat "$work/out")
p=$(field "$line" periods)
[ $rc = 0 ] && [ -n "$p" ] && [ "$p" -ge 1 ] && [ $((SECONDS - t0)) -le 2 ] ||
	fail "SIGTERM: exit $rc after $((SECONDS - t0)) s, '$line'"

[ $fails = 0 ] && echo "lat-task: ok" || echo "lat-task: $fails failed"
[ $fails = 0 ]
