#!/usr/bin/env bash
# Vendor upstream's sched_ext headers (the kernel's tools/sched_ext/include/scx) into
# include/scx, from Debian's linux-source-X.Y package at a pinned version, fetched with a
# private apt state (the system's apt configuration is not touched).
#
#   scripts/vendor-scx.sh [VERSION]      (default: the version in include/scx/ORIGIN)
#
# VERSION is a Debian package version of linux-source-X.Y (e.g. 7.3.4-1~bpo13+1); use the
# kernel that include/vmlinux/vmlinux.h.xz comes from, so that the headers' enum tables and
# compat layer match the types the BPF side is built against. Writes include/scx/*.h
# (replacing what is there) and include/scx/ORIGIN. The files are GPL-2.0 (their SPDX lines),
# copyright Meta Platforms and their authors, as the kernel ships them; they are not edited.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dst=$root/include/scx
ver=${1:-$(sed -n 's/^version: //p' "$dst/ORIGIN" 2>/dev/null)}
[[ $ver =~ ^([0-9]+\.[0-9]+)[.~-] ]] || { echo "vendor-scx: need a version like 7.3.4-1~bpo13+1, not '$ver'" >&2; exit 2; }
series=${BASH_REMATCH[1]}
pkg=linux-source-$series
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/apt/lists/partial" "$tmp/apt/cache/archives/partial"
for s in trixie-backports forky sid experimental; do echo "deb http://deb.debian.org/debian $s main"; done >"$tmp/apt/sources.list"
A=(-o Dir::Etc::sourcelist="$tmp/apt/sources.list" -o Dir::Etc::sourceparts=-
	-o Dir::State::Lists="$tmp/apt/lists" -o Dir::Cache="$tmp/apt/cache"
	-o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${A[@]}" update -qq
(cd "$tmp" && apt-get "${A[@]}" download "$pkg=$ver")
dpkg-deb -x "$tmp"/"$pkg"_*.deb "$tmp/x"
tarball=$(find "$tmp/x/usr/src" -name "linux-source-*.tar.*" | head -n1)
[ -n "$tarball" ] || { echo "vendor-scx: no source tarball in $pkg $ver" >&2; exit 1; }
top=$(basename "$tarball" | sed 's/\.tar\..*//')
tar -xf "$tarball" -C "$tmp" "$top/tools/sched_ext/include/scx"
src=$tmp/$top/tools/sched_ext/include/scx
ls "$src"/*.h >/dev/null

rm -f "$dst"/*.h
mkdir -p "$dst"
cp "$src"/*.h "$dst/"
{
	echo "# Upstream's sched_ext headers, vendored unedited by scripts/vendor-scx.sh."
	echo "package: $pkg"
	echo "version: $ver"
	echo "path: tools/sched_ext/include/scx"
	echo "license: GPL-2.0 (SPDX line of each file); copyright Meta Platforms, Inc. and the authors named in each file"
	echo "files:"
	(cd "$dst" && sha256sum -- *.h | sed 's/^/  /')
} >"$dst/ORIGIN"
echo "vendor-scx: include/scx from $pkg $ver ($(ls "$dst"/*.h | wc -l) headers)"
