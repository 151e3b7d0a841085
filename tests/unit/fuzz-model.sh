#!/usr/bin/env bash
# unit/fuzz-model: fuzz the model loader (build/ml/fuzz-model, a libFuzzer target) for about
# 20 s, starting from the corpus kept in tests/fuzz/model-corpus/. New inputs go to a temporary
# directory, never into the repository. Fails on any crash, sanitizer report or broken property
# (see tests/fuzz/fuzz_model.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/fuzz/fuzz-lib.sh
tool=build/mlb-model
fuzz_init tests/fuzz/model-corpus build/ml/fuzz-model "$tool"
# every corpus file loads as what its name claims: valid-*.mlb accepted, bad-*.mlb refused
# with a one-line reason (exit 1), the one tests/fuzz/model-reasons.txt gives for it
for f in "$corpus"/*; do
	fuzz_expect "$f" "$tool" show "$f"
	case "$(basename "$f")" in
	bad-*) fuzz_reason "$f" tests/fuzz/model-reasons.txt ;;
	esac
done
fuzz_run "the model loader"
