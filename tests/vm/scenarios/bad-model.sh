#!/usr/bin/env bash
# topo: numa2x2
# timeout: 300
# A corrupt model file (a valid one with a flipped byte, and a file of garbage) is refused with
# a one-line message naming the file, and the heuristic keeps scheduling: the scheduler
# attaches, decides (by_heur > 0, by_model = 0) and exits 0 on SIGINT. A group-writable model
# is refused too (anyone in the group could steer the scheduler).
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
STATE=/tmp/mlb-state
trap spin_stop EXIT
corpus_model 4-2
good=$CORPUS_MODEL
cp "$good" /tmp/bad.mlb
printf '\x55' | dd of=/tmp/bad.mlb bs=1 seek=300 conv=notrunc status=none
chmod 0644 /tmp/bad.mlb
for m in /tmp/bad.mlb writable; do
	if [ $m = writable ]; then
		cp "$good" /tmp/gw.mlb
		chmod 0664 /tmp/gw.mlb
		m=/tmp/gw.mlb
	fi
	rm -rf $STATE
	mlb_start --mode infer --model $m --state-dir $STATE --stats 2
	mlb_wait_enabled
	mixed_load 6 "$(basename $m)"
	wait_stats $(($(nstats) + 1)) 30
	msg=$(grep -a 'model refused' "$MLB_LOG")
	note "message: $msg"
	[ "$(grep -ac 'model refused' "$MLB_LOG")" = 1 ] || fail "no one-line refusal for $m"
	[[ $msg == *"$m"* ]] || fail "the refusal does not name $m"
	[ "$(last_stat by_model)" = 0 ] || fail "the refused model decided"
	[ "$(last_stat by_heur)" -gt 0 ] || fail "the heuristic made no decision"
	mlb_check_enabled
	mlb_stop INT
	[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
done
grep -aq 'group- or world-writable' "$MLB_LOG" || fail "the writable model was not refused as such"
echo "bad-model: ok"
