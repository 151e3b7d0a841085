#!/usr/bin/env bash
# Extract the uncompressed ELF vmlinux from a bzImage: find each compressed-stream magic,
# try to decompress from there, keep the first result that is an ELF file.
#   extract-vmlinux.sh VMLINUZ OUT
set -uo pipefail
in=${1:?usage: extract-vmlinux.sh VMLINUZ OUT}
out=${2:?usage: extract-vmlinux.sh VMLINUZ OUT}
try() { # magic-as-printf-escape decompressor...
	local magic=$1; shift
	local off
	for off in $(LC_ALL=C grep -abo "$(printf "$magic")" "$in" 2>/dev/null | cut -d: -f1); do
		tail -c +$((off + 1)) "$in" | "$@" >"$out.tmp" 2>/dev/null
		if [ "$(head -c 4 "$out.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			mv "$out.tmp" "$out"
			return 0
		fi
	done
	return 1
}
try '\050\265\057\375' zstd -dc ||
	try '\375\067\172\130\132\000' xz -dc ||
	try '\037\213\010' gzip -dc ||
	{ rm -f "$out.tmp"; echo "extract-vmlinux: no ELF payload found in $in" >&2; exit 1; }
rm -f "$out.tmp"
