#!/usr/bin/env bash
# topo: numa2x2
# timeout: 480
# infer mode with a trained model (vm/train's when it passed in this run of the suite, same
# MLB_RUN_ID, else one trained here from a short collection):
# the scheduler stays enabled through 30 s of stress (stress-ng cpu/fork/yield plus the mixed
# load), the model makes decisions (by_model > 0, model_decisions in the summary), SIGINT -> 0.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
trap spin_stop EXIT
STATE=/tmp/mlb-state
rm -rf $STATE
model=$MLB_ROOT/build/test-logs/vm/train/model.mlb
if from_this_run train && [ -s "$model" ]; then
	note "using vm/train's model of this run ($MLB_RUN_ID)"
else
	note "no model from vm/train in this run (run id '${MLB_RUN_ID:-}'): collecting and training one"
	mlb_start --mode collect --state-dir $STATE --stats 5
	mlb_wait_enabled
	mixed_load 25 collect
	mlb_stop INT
	"$MLB_ROOT/build/mlb-model" train -w auto -e 20 -o /tmp/model.mlb $STATE/dataset.csv >/dev/null ||
		fail "could not train a model"
	model=/tmp/model.mlb
	rm -rf $STATE
fi
cp "$model" /tmp/infer.mlb
chmod 0644 /tmp/infer.mlb
mlb_start --mode infer --model /tmp/infer.mlb --state-dir $STATE --stats 5
mlb_wait_enabled
grep -aq 'model /tmp/infer.mlb loaded' "$MLB_LOG" || fail "the model was not loaded"
stress-ng --temp-path /tmp --timeout 30s --cpu 2 --fork 2 --yield 2 >"$MLB_OUT/stress-ng.log" 2>&1 &
sp=$!
mixed_load 30 infer
wait $sp || fail "stress-ng failed"
mlb_check_enabled
wait_stats $(($(nstats) + 1)) 30
by_model=$(last_stat by_model)
note "last stats: $LAST_STATS"
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
md=$(summary_field model_decisions)
note "$(grep -a '^scx_mlb: summary:' "$MLB_LOG")"
[ "${md:-0}" -gt 0 ] || fail "the model made no decision (model_decisions=$md, by_model=$by_model)"
echo "infer: ok ($md model decisions)"
