#!/usr/bin/env bash
# unit/fuzz-statsd: fuzz the stats socket's request handling (build/tests/fuzz-statsd, a
# libFuzzer target) for about 20 s, starting from the corpus kept in tests/fuzz/statsd-corpus/.
# New inputs go to a temporary directory, never into the repository. Fails on any crash, leak,
# sanitizer report or broken property (see tests/fuzz/fuzz_statsd.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/fuzz/fuzz-lib.sh
tool=build/tests/statsd-check
fuzz_init tests/fuzz/statsd-corpus build/tests/fuzz-statsd "$tool"
# every corpus file is what its name claims: valid-*.json accepted (as the request its name
# says: valid-meta-* a stats_meta, the others stats), bad-*.json refused with a one-line
# reason (exit 1), the one tests/fuzz/statsd-reasons.txt gives for it
for f in "$corpus"/*; do
	fuzz_expect "$f" "$tool" "$f"
	case "$(basename "$f")" in
	valid-meta-*) grep -qx 'stats_meta target=top' "$work/out" || { echo "FAIL: $f: $(cat "$work/out")"; exit 1; } ;;
	valid-*) grep -qx 'stats target=top' "$work/out" || { echo "FAIL: $f: $(cat "$work/out")"; exit 1; } ;;
	*) fuzz_reason "$f" tests/fuzz/statsd-reasons.txt ;;
	esac
done
fuzz_run "the stats socket's request handling"
