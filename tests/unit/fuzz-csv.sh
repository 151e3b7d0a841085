#!/usr/bin/env bash
# unit/fuzz-csv: fuzz the dataset CSV reader (build/ml/fuzz-csv, a libFuzzer target) for about
# 20 s, starting from the corpus kept in tests/fuzz/csv-corpus/. New inputs go to a temporary
# directory, never into the repository. Fails on any crash, leak, sanitizer report or broken
# property (see tests/fuzz/fuzz_csv.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/fuzz/fuzz-lib.sh
tool=build/mlb-model
model=$(ls tests/fuzz/model-corpus/valid-[0-9]*-1.mlb | head -n1) # inputs = the feature count
fuzz_init tests/fuzz/csv-corpus build/ml/fuzz-csv "$tool"
# every corpus file reads as what its name claims (mlb-model eval, with a model of the other
# corpus): valid-*.csv accepted with one row per data line, bad-*.csv refused with a one-line
# reason naming the file (exit 1), the one tests/fuzz/csv-reasons.txt gives for it
for f in "$corpus"/*; do
	fuzz_expect "$f" "$tool" eval --label=label "$model" "$f"
	case "$(basename "$f")" in
	valid-*)
		rows=$(($(tr -d '\r' <"$f" | grep -cv '^\(#.*\)\?$') - 1))
		grep -q "^quantized model: n=$rows " "$work/out" ||
			{ echo "FAIL: $f: expected $rows rows: $(head -n 1 "$work/out")"; exit 1; } ;;
	*) fuzz_reason "$f" tests/fuzz/csv-reasons.txt ;;
	esac
done
fuzz_run "the CSV reader"
