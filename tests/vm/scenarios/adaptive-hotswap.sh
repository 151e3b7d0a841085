#!/usr/bin/env bash
# topo: numa2x2
# timeout: 600
# adaptive mode under rounds of 12 s of mixed load: the daemon collects, retrains every 10 s
# (or every 500 new samples) on its sliding window and deploys a model only when the gate
# estimates it cheaper than the live policy on the most recent decisions. The rounds go on
# until a second model is deployed (a count, not a time: the gate may rightly keep the live
# model; 3 rounds of 12 s usually gave 2 generations, once 1 with 3 candidates kept out) and
# at most MAX_ROUNDS. At least two models must be deployed with the scheduler attached all
# along (one "attached" line, state enabled at every check), the generation the BPF side
# last used must be the one user space deployed, and the saved model must load.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
STATE=/tmp/mlb-state
trap spin_stop EXIT
rm -rf $STATE
mlb_start --mode adaptive --state-dir $STATE --stats 2 --retrain-s 10 --retrain-samples 500 \
	--min-samples 200
mlb_wait_enabled
MAX_ROUNDS=8
for ((i = 1; i <= MAX_ROUNDS; i++)); do
	mixed_load 12 "round$i"
	mlb_check_enabled "after load round $i"
	[ "$(count_lines '^scx_mlb: retrain: generation [0-9]+ deployed')" -ge 2 ] && break
done
note "$(count_lines '^scx_mlb: retrain: generation [0-9]+ deployed') models deployed in $((i > MAX_ROUNDS ? MAX_ROUNDS : i)) rounds"
# BPF reports the generation of the last model run; right after a swap no decision may have
# used the new one yet, so look at stats lines under load until one shows both (30 s at most)
lim=$(($(now_ms) + 30000))
while :; do
	hackbench -g 2 -l 20 >/dev/null 2>&1
	wait_stats $(($(nstats) + 1)) 30
	gen=$(last_stat gen) live=$(last_stat live_gen)
	[ "$gen" -gt 0 ] && [ "$live" = "$gen" ] && break
	[ "$(now_ms)" -lt $lim ] || break
done
note "last stats: $LAST_STATS"
grep -a 'retrain:' "$MLB_LOG" | sed 's/^/# /'
[ "$(count_lines '^scx_mlb: attached')" = 1 ] || fail "the scheduler reattached during the run"
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
gens=$(summary_field generations)
note "$(grep -a '^scx_mlb: summary:' "$MLB_LOG")"
[ "${gens:-0}" -ge 2 ] || fail "$gens model generations deployed, expected >= 2"
[ "$gen" -gt 0 ] || fail "no live model at the end (a rollback?): gen=$gen"
[ "$live" = "$gen" ] || fail "BPF last used generation $live, user space deployed $gen"
"$MLB_ROOT/build/mlb-model" show $STATE/model.mlb >/dev/null || fail "the saved model does not load"
[ -f $STATE/model.prev.mlb ] || fail "no previous model kept"
echo "adaptive-hotswap: ok ($gens generations, BPF and user space at generation $gen)"
