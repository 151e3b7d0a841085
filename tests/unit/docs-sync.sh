#!/usr/bin/env bash
# unit/docs-sync: the README's feature, stats, work and options tables are what
# build/mlb-docs prints from the X-macro tables in include/mlb/intf.h and
# include/mlb/options.h (`make docs` rewrites them). Fails, naming the table, when the README
# was edited by hand or the code changed without `make docs`.
set -u
cd "$(dirname "$0")/../.."
gen=build/mlb-docs
[ -x "$gen" ] || { echo "not built: $gen"; exit 1; }
fails=0
for t in features stats work options; do
	want=$("$gen" $t) || { echo "FAIL: mlb-docs $t"; fails=$((fails + 1)); continue; }
	have=$(awk -v b="<!-- $t:begin -->" -v e="<!-- $t:end -->" '$0 == e { f = 0 } f { print } $0 == b { f = 1 }' README.md)
	[ -n "$have" ] || { echo "FAIL: README.md has no $t table between its markers"; fails=$((fails + 1)); continue; }
	[ "$have" = "$want" ] || { echo "FAIL: README.md's $t table differs from the code's (run make docs)"; fails=$((fails + 1)); }
done
"$gen" bogus 2>/dev/null && { echo "FAIL: mlb-docs accepted a bad argument"; fails=$((fails + 1)); }
echo "docs-sync: $fails failed"
[ $fails -eq 0 ]
