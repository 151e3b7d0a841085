#!/usr/bin/env bash
# unit/fuzz-model: fuzz the model loader (build/ml/fuzz-model, a libFuzzer target) for about
# 20 s, starting from the corpus kept in tests/fuzz/model-corpus/. New inputs go to a temporary
# directory, never into the repository. Fails on any crash, sanitizer report or broken property
# (see tests/fuzz/fuzz_model.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
fuzzer=build/ml/fuzz-model
corpus=tests/fuzz/model-corpus
secs=${MLB_FUZZ_SECONDS:-20}

tool=build/mlb-model
if [ ! -x "$fuzzer" ] || [ ! -x "$tool" ]; then
	make --no-print-directory "$fuzzer" "$tool" >/dev/null
fi
n=$(find "$corpus" -type f | wc -l)
if [ "$n" -lt 3 ]; then
	echo "FAIL: corpus $corpus has $n files"
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# every corpus file loads as what its name claims: valid-*.mlb accepted, bad-*.mlb refused
# with a one-line reason (exit 1)
for f in "$corpus"/*; do
	rc=0
	"$tool" show "$f" >/dev/null 2>"$work/err" || rc=$?
	case "$(basename "$f")" in
	valid-*) [ $rc -eq 0 ] || { echo "FAIL: $f refused: $(cat "$work/err")"; exit 1; } ;;
	*) [ $rc -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] ||
		{ echo "FAIL: $f not refused cleanly (exit $rc)"; exit 1; } ;;
	esac
done
rm -f "$work/err"
"$fuzzer" -max_total_time="$secs" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="$work/" "$work" "$corpus" 2>&1 | tail -n 25
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
	echo "FAIL: fuzzer exit $status; artifacts:"
	ls -l "$work"
	exit 1
fi
echo "fuzzed the model loader for ${secs}s from $n corpus files: no failure"
