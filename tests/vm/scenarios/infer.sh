#!/usr/bin/env bash
# topo: numa2x2
# timeout: 480
# infer mode with a trained model (vm/train's when it passed in this run of the suite, same
# MLB_RUN_ID, else one trained here from a short collection):
# the scheduler stays enabled through 30 s (MLB_SHORT: 12 s) of stress (stress-ng
# cpu/fork/yield plus the mixed load), SIGINT -> 0, and the model decides: each of its recorded decisions is what its
# output implies, from the deployed generation, some unlike the heuristic's, with scores
# bit-exact against user space (below).
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
	"$MLB_ROOT/build/mlb-model" train -e 20 -o /tmp/model.mlb $STATE/dataset.csv >/dev/null ||
		fail "could not train a model"
	model=/tmp/model.mlb
	rm -rf $STATE
fi
cp "$model" /tmp/infer.mlb
chmod 0644 /tmp/infer.mlb
# the costs and the wait bound pinned (the defaults today), for the check below
costs=(--move-cost-core-us 10 --move-cost-llc-us 1000 --move-cost-cross-llc-us 5000 --move-cost-node-us 10000 --max-wait-ms 20
	--explore 20 --control 50)
mlb_start --mode infer --model /tmp/infer.mlb --state-dir $STATE --stats 5 "${costs[@]}"
mlb_wait_enabled
grep -aq 'model /tmp/infer.mlb loaded: generation 1' "$MLB_LOG" || fail "the model was not loaded"
d=$(short 30 12)
# INFER_YIELD: stress-ng's yield workers, none when 0 (vm/infer-64, see there; stress-ng
# itself reads --yield 0 as one per CPU)
yield=(--yield "${INFER_YIELD:-2}")
[ "${INFER_YIELD:-2}" = 0 ] && yield=()
stress-ng --temp-path /tmp --timeout ${d}s --cpu 2 --fork 2 "${yield[@]}" >"$MLB_OUT/stress-ng.log" 2>&1 &
sp=$!
mixed_load $d infer
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

# The model decides: every recorded decision of the model is what its output implies (move
# exactly when the predicted saving, score ms in Q15.16, exceeds the cost at that level,
# doubled for a cache-hot task; a task past the wait bound with an idle destination moves
# whatever the decider said), its generation is the deployed one, some decisions differ from
# the heuristic's, and every score recomputed in user space from the recorded features with
# the same model file is bit-exact. The control share (decider 3) is the heuristic's choice,
# about 5% of them, and every row's prop_ppm is the probability of its action.
data=$STATE/dataset.csv
cp $data "$MLB_OUT/dataset.csv"
"$MLB_ROOT/build/mlb-model" score /tmp/infer.mlb $data >"$MLB_OUT/scores.txt" ||
	fail "mlb-model score failed"
res=$(awk -F, -v scores="$MLB_OUT/scores.txt" '
	/^#/ || !NF { next }
	!hdr { for (i = 1; i <= NF; i++) c[$i] = i; hdr = 1; next }
	{
		if ((getline want <scores) <= 0) { print "FAIL too few scores"; exit }
		gen = $c["model_gen"]; sc = $c["score"]; dec = $c["decision"]; h = $c["heuristic"]
		if (gen > 0) { scored++; if (sc != want) { print "FAIL row " $c["id"] ": score " sc " recomputed " want; exit } }
		cost = $c["same_core"] ? 10 : $c["same_llc"] ? 1000 : $c["same_node"] ? 5000 : int(10000 * $c["numa_dist"] / 10)
		if ($c["task_cache_hot"]) cost *= 2
		implied = sc * 1000 > cost * 65536
		forced = $c["dst_idle"] > 0 && $c["task_waited_us"] >= 20000
		# the probability of the action taken: the policy (the model, 5% left to the
		# heuristic), then 2% exploration; a move forced by the wait bound is certain
		p = gen > 0 ? (implied ? 950000 : 0) + (h ? 50000 : 0) : (h ? 1000000 : 0)
		p = int((p * 980000 + (1000000 - p) * 20000) / 1000000)
		p = dec ? p : 1000000 - p
		if ($c["prop_ppm"] != p && !(forced && $c["prop_ppm"] == 1000000)) { print "FAIL row " $c["id"] ": prop_ppm " $c["prop_ppm"] ", expected " p; exit }
		if ($c["decider"] == 3) {
			control++
			if (gen != 1 || (dec != h && !forced)) { print "FAIL row " $c["id"] ": control share: model_gen " gen ", decision " dec ", heuristic " h; exit }
		}
		if ($c["decider"] != 1) next
		model++
		if (gen != 1) { print "FAIL row " $c["id"] ": model_gen " gen ", deployed 1"; exit }
		if (forced) { bound++; implied = 1 }
		if (dec != implied) { print "FAIL row " $c["id"] ": decision " dec ", score " sc " vs cost " cost " us implies " implied; exit }
		moved += implied; differ += dec != h
	}
	END { printf "model=%d scored=%d moved=%d differ=%d bound=%d control=%d\n", model, scored, moved, differ, bound, control }' $data)
note "model rows: $res"
[[ $res != FAIL* ]] || fail "${res#FAIL }"
read -r model scored moved differ bound control < <(echo "$res" | tr -c '0-9\n' ' ')
[ "$model" -gt 0 ] || fail "no recorded decision of the model"
[ "$differ" -gt 0 ] || fail "the model decided as the heuristic every time ($model decisions)"
# the control share, 50 per mille of the model's decisions, within [2%, 10%]
[ $((control * 50)) -ge $((model + control)) ] && [ $((control * 10)) -le $((model + control)) ] ||
	fail "control share $control of $((model + control)) decisions, expected about 5%"
echo "infer: ok ($md model decisions; $model recorded, $differ unlike the heuristic, $scored scores bit-exact)"
