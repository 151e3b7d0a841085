#!/usr/bin/env bash
# topo: numa2x2
# timeout: 420
# Training on collected samples writes a valid model file: the dataset of vm/collect (its log
# folder) when vm/collect passed in this run of the suite (same MLB_RUN_ID: never a dataset
# left by an earlier run or commit, perhaps of an older format), else one collected here for
# 30 s. mlb-model trains (the wait after each action, its default target), quantizes, passes
# its agreement gate, predicts held-out waits better than their mean (r2 > 0), and the file
# loads back (mlb-model show). The model is kept in this test's log folder for vm/infer.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
trap spin_stop EXIT
data=$MLB_ROOT/build/test-logs/vm/collect/dataset.csv
if from_this_run collect && [ -s "$data" ]; then
	note "using vm/collect's dataset of this run ($MLB_RUN_ID)"
else
	note "no dataset from vm/collect in this run (run id '${MLB_RUN_ID:-}'): collecting one"
	rm -rf /tmp/mlb-state
	mlb_start --mode collect --state-dir /tmp/mlb-state --stats 5
	mlb_wait_enabled
	mixed_load 30 collect
	mlb_stop INT
	data=/tmp/mlb-state/dataset.csv
fi
note "dataset $data: $("$MLB_ROOT/build/mlb-model" check "$data")"
"$MLB_ROOT/build/mlb-model" train -e 30 -o "$MLB_OUT/model.mlb" "$data" >"$MLB_OUT/train.log" 2>&1 ||
	fail "training failed: $(tail -n 3 "$MLB_OUT/train.log")"
cat "$MLB_OUT/train.log"
# the bound: for each action, the quantized model predicts the held-out waits better than
# their mean does (r2 > 0: a lower squared error than the constant prediction)
for a in staying moved; do
	r2=$(sed -n "s/^validation quantized wait if $a: .* r2=\([-0-9.]*\) (ms)\$/\1/p" "$MLB_OUT/train.log")
	[ -n "$r2" ] || fail "no validation metrics of the wait if $a"
	awk -v r="$r2" 'BEGIN { exit !(r > 0) }' || fail "wait if $a: validation r2 $r2, no better than the mean"
done
"$MLB_ROOT/build/mlb-model" show "$MLB_OUT/model.mlb" >"$MLB_OUT/model.txt" || fail "the model file does not load"
head -n 7 "$MLB_OUT/model.txt"
made_by_this_run # vm/infer may use the model
echo "train: ok"
