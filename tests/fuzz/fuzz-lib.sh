# shellcheck shell=bash
# Helpers for the fuzzing tests (tests/unit/fuzz-*.sh): source tests/fuzz/fuzz-lib.sh from the
# repository root. Convention: a test prints "FAIL: why" and exits 1.

# fuzz_init CORPUS FUZZER TOOL...: build FUZZER and the TOOLs if one is missing, check that
# CORPUS holds at least 3 files. Sets corpus, fuzzer, n (the corpus's file count), secs
# (MLB_FUZZ_SECONDS, default 20) and work (a temporary directory removed on exit).
fuzz_init() {
	corpus=$1
	fuzzer=$2
	shift
	secs=${MLB_FUZZ_SECONDS:-20}
	local t
	for t in "$@"; do
		[ -x "$t" ] || { make --no-print-directory "$@" >/dev/null; break; }
	done
	n=$(find "$corpus" -type f | wc -l)
	if [ "$n" -lt 3 ]; then
		echo "FAIL: corpus $corpus has $n files"
		exit 1
	fi
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
}

# fuzz_expect FILE CMD...: run CMD (stdout in $work/out, stderr in $work/err), which must do
# what the name of the corpus file FILE claims: valid-* succeed (exit 0), anything else fail
# with a one-line reason (exit 1).
fuzz_expect() {
	local f=$1 rc=0
	shift
	"$@" >"$work/out" 2>"$work/err" || rc=$?
	case "$(basename "$f")" in
	valid-*) [ $rc -eq 0 ] || { echo "FAIL: $f refused: $(cat "$work/err")"; exit 1; } ;;
	*) [ $rc -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] ||
		{ echo "FAIL: $f not refused cleanly (exit $rc)"; exit 1; } ;;
	esac
}

# fuzz_reason FILE REASONS: the refusal of FILE (in $work/err, after fuzz_expect) must give the
# reason REASONS lists for its name ("NAME<TAB>text", the text following the file's path), so
# a file refused for another reason than the one it was made for fails; every bad-* file
# needs a line.
fuzz_reason() {
	local f=$1 name want
	name=$(basename "$f")
	want=$(awk -F '\t' -v n="$name" '$1 == n { print $2; exit }' "$2")
	[ -n "$want" ] || { echo "FAIL: $f: no expected reason in $2"; exit 1; }
	grep -qF -- "$f$want" "$work/err" ||
		{ echo "FAIL: $f: reason '$(cat "$work/err")', expected '$f$want'"; exit 1; }
}

# fuzz_run WHAT: run the fuzzer for $secs seconds from the corpus, new inputs and artifacts
# into $work; fail on any crash, sanitizer report or broken property.
fuzz_run() {
	rm -f "$work/out" "$work/err"
	local status=0
	"$fuzzer" -max_total_time="$secs" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$work/" "$work" "$corpus" 2>&1 | tail -n 25 || status=$?
	if [ "$status" -ne 0 ]; then
		echo "FAIL: fuzzer exit $status; artifacts:"
		ls -l "$work"
		exit 1
	fi
	echo "fuzzed $1 for ${secs}s from $n corpus files: no failure"
}
