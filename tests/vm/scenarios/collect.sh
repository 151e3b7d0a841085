#!/usr/bin/env bash
# topo: numa2x2smt
# timeout: 480
# collect mode: 30 s of mixed load (duty-cycled CPU workers, spinners, hackbench) while the
# heuristic decides and every decision and its outcome is recorded. The dataset must hold at
# least MIN labelled samples, be readable by the trainer (mlb-model check validates every
# feature against its documented range and every label), and nothing may be lost silently:
# the decisions the BPF side made equal those received plus those it counted as dropped.
# On SMT pairs (numa2x2smt) the CPU-level topology features must not be constant: same_core,
# same_llc and same_node each take both values in the dataset. The dataset is kept in this
# test's log folder for vm/train.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
MIN=${COLLECT_MIN:-1000}
STATE=/tmp/mlb-state
trap spin_stop EXIT
rm -rf $STATE

mlb_start --mode collect --state-dir $STATE --stats 5
mlb_wait_enabled
mixed_load 30 collect
mlb_check_enabled
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
note "$(grep -a '^scx_mlb: summary:' "$MLB_LOG")"
[ -f $STATE/dataset.csv ] || fail "no dataset at $STATE/dataset.csv"
cp $STATE/dataset.csv "$MLB_OUT/dataset.csv"
check=$("$MLB_ROOT/build/mlb-model" check $STATE/dataset.csv 2>&1) || fail "dataset refused by the reader: $check"
note "dataset: $check"
rows=${check#rows=}
rows=${rows%% *}
[ "$rows" -ge "$MIN" ] || fail "$rows labelled samples, expected >= $MIN"
"$MLB_ROOT/build/mlb-model" check --label=imitation $STATE/dataset.csv >/dev/null || fail "imitation labels unreadable"
made=$(summary_field bpf_decisions)
got=$(summary_field received)
dropped=$(summary_field decision_drops)
[ -n "$made" ] && [ -n "$got" ] && [ -n "$dropped" ] || fail "summary line incomplete"
[ "$made" = $((got + dropped)) ] || fail "decisions made $made != received $got + dropped $dropped"
for f in same_core same_llc same_node; do
	vals=$(awk -F, -v f=$f '/^#/ || !NF { next }
		!c { for (i = 1; i <= NF; i++) if ($i == f) c = i; next }
		{ seen[$c] = 1 } END { for (v in seen) printf "%s ", v }' $STATE/dataset.csv)
	note "$f takes: $vals"
	case " $vals" in *" 0 "*" 1 "* | *" 1 "*" 0 "*) ;; *) fail "feature $f is constant ($vals) on SMT pairs" ;; esac
done
echo "collect: ok ($rows samples; decisions $made = $got received + $dropped dropped)"
