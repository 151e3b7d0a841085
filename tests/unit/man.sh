#!/usr/bin/env bash
# unit/man: the man page build/man/scx_mlb.8 is what build/mlb-docs prints now (make all
# rebuilt it), renders with groff and man without a warning (-ww: every warning), has every
# section and exit status, and documents every option of the README's table (mlb-docs
# options) and no other one of mlb-docs option-list (the hidden ones). mlb-model.1 (help2man
# from mlb-model --help) renders without a warning and has every command and option.
set -u
cd "$(dirname "$0")/../.."
gen=build/mlb-docs page=build/man/scx_mlb.8
[ -x "$gen" ] || { echo "not built: $gen"; exit 1; }
[ -f "$page" ] || { echo "not built: $page (make all)"; exit 1; }
command -v groff >/dev/null || { echo "FAIL: groff is needed (Debian: groff-base)"; exit 1; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gen" man >"$tmp/page.8" || fail "mlb-docs man"
cmp -s "$tmp/page.8" "$page" || fail "$page differs from mlb-docs man (make all)"
# render PAGE OUT: PAGE renders with groff -ww and man --warnings without a warning; the text
# goes to OUT (groff alone renders it where man-db is absent)
render() {
	groff -man -Tutf8 -ww -z "$1" 2>"$tmp/groff.err" || fail "groff $1 exit $?"
	[ -s "$tmp/groff.err" ] && fail "groff warns on $1: $(head -3 "$tmp/groff.err")"
	if command -v man >/dev/null; then
		MANWIDTH=80 man --warnings -E UTF-8 -l "$1" >"$2" 2>"$tmp/man.err" ||
			fail "man -l $1 exit $?"
		[ -s "$tmp/man.err" ] && fail "man -l warns on $1: $(head -3 "$tmp/man.err")"
	else
		groff -man -Tutf8 -P-cbou "$1" >"$2" 2>/dev/null
	fi
}
render "$page" "$tmp/page.txt"
for s in NAME SYNOPSIS DESCRIPTION OPTIONS MODES "EXIT STATUS" FILES EXAMPLES "SEE ALSO"; do
	grep -qx "$s" "$tmp/page.txt" || fail "no $s section"
done
for st in 0 1 2 3; do # the exit statuses, each a tagged paragraph of EXIT STATUS
	sed -n '/^EXIT STATUS$/,/^FILES$/p' "$tmp/page.txt" | grep -Eq "^ +$st +[a-z]" ||
		fail "EXIT STATUS does not list $st"
done
"$gen" option-list >"$tmp/opts" || fail "mlb-docs option-list"
"$gen" options | grep -o -- '`--[a-z-]*`' | tr -d '`' >"$tmp/documented" || fail "mlb-docs options"
n=0 hidden=0
while read -r name kind lo hi choices; do
	n=$((n + 1))
	if ! grep -qx -- "$name" "$tmp/documented"; then
		hidden=$((hidden + 1))
		grep -q -- "$name" "$tmp/page.txt" && fail "hidden option $name is in the page"
		continue
	fi
	grep -Eq -- "^ +(-., )?$name(=[A-Z]+)?\$" "$tmp/page.txt" || fail "option $name missing from OPTIONS"
done <"$tmp/opts"
[ "$n" -gt 30 ] && [ "$hidden" -lt 3 ] || fail "option-list: $n options, $hidden not documented"

# mlb-model.1, made by help2man from mlb-model --help: rebuilt with the tool, warning-free,
# its sections, and every command and option of --help in it
mp=build/man/mlb-model.1 tool=build/mlb-model
[ -f "$mp" ] && [ ! "$mp" -ot "$tool" ] || fail "$mp is missing or older than $tool (make all)"
render "$mp" "$tmp/model.txt"
for s in NAME SYNOPSIS DESCRIPTION EXAMPLES "SEE ALSO"; do
	grep -qx "$s" "$tmp/model.txt" || fail "$mp: no $s section"
done
m=0
for w in $("$tool" --help | grep -oE -- '(^  [a-z]+ |--[a-z-]+)' | sort -u); do
	m=$((m + 1))
	grep -qF -- "$w" "$tmp/model.txt" || fail "$mp lacks '$w' of mlb-model --help"
done
[ "$m" -gt 12 ] || fail "only $m commands and options found in mlb-model --help"
echo "man: $n options ($hidden hidden); mlb-model.1: $m commands and options; $fails failed"
[ $fails -eq 0 ]
