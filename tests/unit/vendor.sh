#!/usr/bin/env bash
# unit/vendor: the vendored upstream sched_ext headers (include/scx) are the files
# include/scx/ORIGIN lists, unedited (their sha256), none missing and none added; and the
# committed vmlinux.h names the kernel it was generated from.
set -uo pipefail
cd "$(dirname "$0")/../.."
d=include/scx
fail() { echo "FAIL: $*"; exit 1; }
[ -f $d/ORIGIN ] || fail "no $d/ORIGIN"
grep -q '^version: ' $d/ORIGIN || fail "$d/ORIGIN names no version"
sums=$(sed -n 's/^  \([0-9a-f]\{64\}  .*\.h\)$/\1/p' $d/ORIGIN)
[ -n "$sums" ] || fail "$d/ORIGIN lists no file"
out=$(cd $d && sha256sum -c --quiet <<<"$sums" 2>&1) || fail "edited or missing (make vendor-scx restores them): $out"
listed=$(sed 's/^[0-9a-f]*  //' <<<"$sums" | sort)
present=$(cd $d && ls -- *.h | sort)
[ "$listed" = "$present" ] || fail "files in $d that ORIGIN does not list: $(comm -13 <(echo "$listed") <(echo "$present") | tr '\n' ' ')"
vh=$(xz -dc include/vmlinux/vmlinux.h.xz | head -n 2)
grep -q 'linux-image-[0-9].* (kernel [0-9]' <<<"$vh" ||
	fail "include/vmlinux/vmlinux.h.xz does not name its kernel in its first lines"
echo "vendor: $(wc -l <<<"$listed") headers match ORIGIN ($(sed -n 's/^version: //p' $d/ORIGIN)); $(grep -o 'linux-image-[^ ]* [^ ]*' <<<"$vh")"
