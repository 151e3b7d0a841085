#!/usr/bin/env bash
# unit/sklearn-check: the trainer against an independent one. tools/sklearn-check.py trains
# mlb-model and scikit-learn's MLP (same data, target, shape, optimiser and early stopping)
# and fails when their losses on held-out rows differ by more than its tolerance (0.03).
set -u
cd "$(dirname "$0")/../.." || exit 1
# Debian's python, where python3-sklearn and python3-pandas are (a python3 earlier in PATH,
# pyenv's say, does not see them)
py=/usr/bin/python3
"$py" -c 'import sklearn, pandas' 2>/dev/null ||
	{ echo "FAIL: python3-sklearn and python3-pandas are needed (make deps)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" tools/sklearn-check.py build/mlb-model "$work"
