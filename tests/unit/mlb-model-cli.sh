#!/usr/bin/env bash
# unit/mlb-model-cli: the mlb-model tool end to end: synth -> train -> show -> eval, the exit
# codes (0 ok, 1 failure, 2 bad arguments) and one-line errors.
set -uo pipefail
cd "$(dirname "$0")/../.."
tool=build/mlb-model
[ -x "$tool" ] || make --no-print-directory "$tool" >/dev/null || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect CODE CMD...: run CMD, check its exit status; bad arguments must give one stderr line
expect() {
	local want=$1 rc=0
	shift
	"$@" >"$work/out" 2>"$work/err" || rc=$?
	[ $rc -eq "$want" ] || fail "'$*' exited $rc, expected $want: $(cat "$work/err")"
	if [ "$want" -ne 0 ]; then
		[ "$(wc -l <"$work/err")" -eq 1 ] || fail "'$*' printed $(wc -l <"$work/err") error lines"
	fi
}

expect 0 "$tool" --help
grep -q "Examples:" "$work/out" || fail "--help has no examples"
# -V is --version, as in scx_mlb; the validation share is --val-frac (long only)
expect 0 "$tool" -V
grep -q "^mlb-model [0-9][0-9.]* (\(g[0-9a-f]\{7,\}\(_dirty\)\?\|unknown\), model format version [0-9]*)$" "$work/out" ||
	fail "-V: $(cat "$work/out")"
cp "$work/out" "$work/version"
expect 0 "$tool" --version
cmp -s "$work/out" "$work/version" || fail "--version and -V differ"
expect 2 "$tool" -V extra
expect 2 "$tool" train -o "$work/m.mlb" -V 0.3 "$work/none.csv"
grep -q "unknown option '-V'" "$work/err" || fail "train -V: $(cat "$work/err")"
expect 2 "$tool" train -o "$work/m.mlb" --val-frac 0.95 "$work/none.csv"
expect 2 "$tool" train -o "$work/m.mlb" --val-frac
grep -q "'--val-frac' needs a value" "$work/err" || fail "--val-frac without value: $(cat "$work/err")"
expect 2 "$tool"
expect 2 "$tool" frobnicate
expect 2 "$tool" train "$work/none.csv"
expect 2 "$tool" train -o "$work/m.mlb" -e zero "$work/none.csv"
expect 2 "$tool" train -o "$work/m.mlb" -H 40 "$work/none.csv"
expect 2 "$tool" train -o "$work/m.mlb" -w 1 "$work/none.csv"
expect 2 "$tool" train -o "$work/m.mlb" --min-agreement 101 "$work/none.csv"
expect 2 "$tool" show
expect 2 "$tool" eval "$work/m.mlb"
expect 2 "$tool" synth -1 "$work/d.csv"
expect 1 "$tool" train -o "$work/m.mlb" "$work/none.csv"
expect 1 "$tool" show "$work/none.mlb"

expect 0 "$tool" synth --seed 3 4000 "$work/d.csv"
[ "$(wc -l <"$work/d.csv")" -eq 4001 ] || fail "synth wrote $(wc -l <"$work/d.csv") lines"
expect 0 "$tool" train -L label -H 8,4 -e 15 -w auto -s 2 --val-frac 0.25 -o "$work/m.mlb" "$work/d.csv"
grep -q "^validation quantized: .*auc=" "$work/out" || fail "no quantized validation metrics"
grep -q "confusion: tp=" "$work/out" || fail "no confusion matrix"
grep -q "agreement=" "$work/out" || fail "no agreement report"
acc=$(sed -n 's/^validation quantized: .*accuracy=\([0-9.]*\).*/\1/p' "$work/out")
awk -v a="$acc" 'BEGIN { exit !(a >= 0.85) }' || fail "validation accuracy $acc < 0.85"
expect 0 "$tool" show "$work/m.mlb"
grep -Eq "^shape: [0-9]+-8-4-1" "$work/out" || fail "show: wrong shape line"
grep -q "task_weight" "$work/out" || fail "show: no feature table"
grep -q " 3000 train + 1000 validation samples" "$work/out" ||
	fail "--val-frac 0.25 of 4000 rows: $(grep '^trained:' "$work/out")"
expect 0 "$tool" eval -L label "$work/m.mlb" "$work/d.csv"
grep -q "^quantized model: n=4000 accuracy=" "$work/out" || fail "eval: no metrics"

# same seed, same model bytes (apart from the creation time, which the tool does not fake:
# compare the dumps without their 'trained:' line)
expect 0 "$tool" train -L label -H 8,4 -e 15 -w auto -s 2 --val-frac=0.25 -o "$work/m2.mlb" "$work/d.csv"
diff <("$tool" show "$work/m.mlb" | grep -v '^trained:') \
	<("$tool" show "$work/m2.mlb" | grep -v '^trained:') >/dev/null ||
	fail "training is not deterministic"

# other columns, another label column, any column order
awk -F, 'BEGIN { OFS = "," } { t = $1; $1 = $NF; $NF = t; print $0, (NR == 1 ? "decider" : 0) }' \
	<(sed 's/,[^,]*,[^,]*,[^,]*$//' "$work/d.csv") | sed '1s/^label,/outcome,/' >"$work/d2.csv"
expect 0 "$tool" eval --label outcome "$work/m.mlb" "$work/d2.csv"
expect 1 "$tool" eval -L label "$work/m.mlb" "$work/d2.csv" # no 'label' column any more

# a bad CSV is refused with the line number
sed '3s/^\([0-9]*\),100,/\1,abc,/' "$work/d.csv" >"$work/bad.csv"
expect 1 "$tool" eval -L label "$work/m.mlb" "$work/bad.csv"
grep -q ":3: task_weight='abc'" "$work/err" || fail "bad CSV error: $(cat "$work/err")"

# the learned target, the default: the wait from a decision to the next run, in us, with the
# action taken (synth: a random action, moving shortens the wait where the label says move),
# learned by two outputs in ms
expect 1 "$tool" train -w auto -o "$work/s.mlb" "$work/d.csv"
grep -q "class weights apply to 0/1 labels, not to first_wait_us" "$work/err" ||
	fail "class weights on the wait: $(cat "$work/err")"
sed 's/,[^,]*,[^,]*,[^,]*$//' "$work/d.csv" >"$work/nowait.csv"
expect 1 "$tool" train -o "$work/s.mlb" "$work/nowait.csv"
grep -q "no label column 'first_wait_us'" "$work/err" || fail "no wait column: $(cat "$work/err")"
sed 's/,[^,]*$//' "$work/d.csv" >"$work/noprop.csv"
expect 1 "$tool" train -o "$work/s.mlb" "$work/noprop.csv"
grep -q "no column 'prop_ppm'" "$work/err" || fail "no probability column: $(cat "$work/err")"
# check counts the wait's actions: the decision column's ones and zeros
expect 0 "$tool" check "$work/d.csv"
want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "decision") c = i; next }
	{ n[$c]++ } END { printf "rows=%d moves=%d stays=%d", NR - 1, n[1], n[0] }' "$work/d.csv")
[ "$(cat "$work/out")" = "$want" ] || fail "check: '$(cat "$work/out")', expected '$want'"
expect 2 "$tool" train --huber-ms 0 -o "$work/s.mlb" "$work/d.csv"
expect 0 "$tool" train -e 30 -s 3 -o "$work/s.mlb" "$work/d.csv"
for a in staying moved; do
	r2=$(sed -n "s/^validation quantized wait if $a: .* r2=\([-0-9.]*\) (ms)\$/\1/p" "$work/out")
	awk -v r="$r2" 'BEGIN { exit !(r >= 0.8) }' || fail "wait if $a: validation r2 '$r2' < 0.8: $(cat "$work/out")"
done
expect 0 "$tool" show "$work/s.mlb"
grep -q "^shape: [0-9]*-16-8-2 .*the wait if the task stays" "$work/out" || fail "show: not a wait model"
expect 0 "$tool" eval "$work/s.mlb" "$work/d.csv"
grep -q "^quantized model wait if moved: n=[0-9]* mae=" "$work/out" || fail "eval: no wait metrics"
# off-policy evaluation: on synth's logged decisions (random actions, probability 1/2) the
# wait model's policy must cost less than what was logged and than the heuristic, by both the
# doubly robust and the plain inverse-propensity estimates
expect 0 "$tool" ope "$work/s.mlb" "$work/d.csv"
grep -Eq '^decisions=4000 logged_us=[0-9.]+ model_us=[0-9.]+ heuristic_us=[0-9.]+ model_ips_us=[0-9.]+ heuristic_ips_us=[0-9.]+ logged_wait_us=[0-9.]+ model_wait_us=[0-9.]+ heuristic_wait_us=[0-9.]+ logged_move_pct=[0-9.]+ model_move_pct=[0-9.]+ heuristic_move_pct=[0-9.]+$' "$work/out" ||
	fail "ope: $(cat "$work/out")"
cp "$work/out" "$work/ope"
# what was logged, from the CSV by awk: the mean wait (clipped at 100 ms) and the moves' share
want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "decision") c = i; if ($i == "first_wait_us") w = i }; next }
	{ n++; m += $c; s += ($w < 100000 ? $w : 100000) }
	END { printf "logged_wait_us=%.1f logged_move_pct=%.1f", s / n, 100 * (m / n) }' "$work/d.csv")
got=$(grep -o 'logged_wait_us=[0-9.]* \|logged_move_pct=[0-9.]*' "$work/out" | tr -d '\n')
[ "$got" = "$want" ] || fail "ope: logged '$got', expected '$want'"
# a move charged 1 s at every level: neither policy moves more than with the defaults, and
# the model moves only where the wait bound says so, which the heuristic obeys too
expect 0 "$tool" ope --move-cost-core-us=1000000 --move-cost-llc-us=1000000 \
	--move-cost-cross-llc-us=1000000 --move-cost-node-us=1000000 "$work/s.mlb" "$work/d.csv"
cat "$work/ope" "$work/out" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[NR, kv[1]] = kv[2] } }
	END { exit !(v[2, "model_move_pct"] < v[1, "model_move_pct"] &&
		     v[2, "heuristic_move_pct"] <= v[1, "heuristic_move_pct"] &&
		     v[2, "model_move_pct"] <= v[2, "heuristic_move_pct"] &&
		     v[1, "logged_wait_us"] == v[2, "logged_wait_us"]) }' ||
	fail "ope: dearer moves, not fewer: $(cat "$work/ope" "$work/out")"
expect 2 "$tool" ope --move-cost-llc-us=-1 "$work/s.mlb" "$work/d.csv"
grep -q -- "--move-cost-llc-us: '-1' is not an integer in \[0, 1000000\]" "$work/err" ||
	fail "ope: bad cost: $(cat "$work/err")"
expect 2 "$tool" ope --max-wait-ms "$work/s.mlb" "$work/d.csv"
expect 2 "$tool" ope --move-cost "$work/s.mlb" "$work/d.csv"
[ ! -s "$work/out" ] || fail "ope: bad arguments printed results"
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
	END { exit !(v["model_us"] < v["logged_us"] && v["model_us"] < v["heuristic_us"] &&
		     v["model_ips_us"] < v["heuristic_ips_us"]) }' "$work/ope" ||
	fail "ope: the trained policy is not the cheapest: $(cat "$work/out")"
expect 1 "$tool" ope "$work/m.mlb" "$work/d.csv" # a label's model is no wait model
expect 2 "$tool" ope "$work/s.mlb"
expect 0 "$tool" score "$work/s.mlb" "$work/d.csv"
[ "$(grep -c '^-\?[0-9]*$' "$work/out")" = 4000 ] || fail "score: not 4000 integer lines"
expect 2 "$tool" score "$work/s.mlb"

# a corrupt model is refused and a refused training writes nothing
printf 'X' | dd of="$work/m.mlb" bs=1 seek=100 conv=notrunc status=none
expect 1 "$tool" show "$work/m.mlb"
grep -q "checksum" "$work/err" || fail "corrupt model error: $(cat "$work/err")"
echo "mlb-model CLI: all checks passed"
