#!/usr/bin/env bash
# Fetch Debian's Linux kernel source package (source package `linux`) into a private folder
# and unpack its upstream tree, without touching the system's apt configuration: a sources
# file and apt state of its own, as tests/vm/fetch-kernel.sh does for the kernel image.
#
#   scripts/fetch-linux-source.sh OUTDIR [VERSION]
#
# VERSION is a Debian version of the source package (e.g. 7.2.13-1) that the suite's source
# index lists; without it, the suite's current one, resolved at run time. The suite is
# MLB_LINUX_SUITE, default MLB_KERNEL_SUITE or forky: the suite the test guest's kernel comes
# from, so that the tree matches the kernel scx_mlb is tested on. Which versions a suite holds
# changes over time; `apt-cache showsrc linux` on the private state (OUTDIR/apt) lists them.
#
# Writes OUTDIR/linux/ (the upstream tree of Debian's .orig tarball, Debian's patches not
# applied), OUTDIR/version (the Debian version resolved, one line) and OUTDIR/source.txt
# (suite, version, the files fetched with their sha256). Prints the version on stdout and
# what it does on stderr. A second call with the same request reuses what is there (for no
# VERSION: whatever version is there). Exit status 0 on success, 1 on failure, 2 usage.
set -euo pipefail
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
case $1 in -h | --help) usage ;; esac
out=$1 want=${2:-}
suite=${MLB_LINUX_SUITE:-${MLB_KERNEL_SUITE:-forky}}
say() { echo "fetch-linux-source: $*" >&2; }
[[ -z $want || $want =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || { say "bad version '$want'"; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

have=$(cat "$out/version" 2>/dev/null || true)
if [ -n "$have" ] && [ -f "$out/linux/Makefile" ] && { [ -z "$want" ] || [ "$want" = "$have" ]; }; then
	say "reusing linux $have in $out/linux"
	echo "$have"
	exit 0
fi

apt_dir=$out/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb-src http://deb.debian.org/debian $suite main" >"$apt_dir/sources.list"
A=(-o Dir::Etc::sourcelist="$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
	-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache"
	-o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${A[@]}" update -qq >&2

# the versions of source package linux the suite lists, newest first
mapfile -t vers < <(apt-cache "${A[@]}" showsrc linux 2>/dev/null |
	awk '/^Package: / { p = $2 } /^Version: / && p == "linux" { print $2 }' | sort -u -r -V)
[ ${#vers[@]} -gt 0 ] || { say "no source package linux in $suite"; exit 1; }
if [ -n "$want" ]; then
	printf '%s\n' "${vers[@]}" | grep -qxF "$want" ||
		{ say "linux $want is not in $suite (it lists: ${vers[*]})"; exit 1; }
	vers=("$want")
fi

# The newest version whose files the mirror serves: an index can list a version before (or
# after) the mirror has its files (seen 2026-12: forky listed 7.2.12-1, 7.2.7-1, 7.1.8-2,
# 7.0.13-1 and 6.12.107-1, and only 6.12.107-1's files were there).
dl=$apt_dir/src ver="" orig=""
for v in "${vers[@]}"; do
	say "$suite source package linux: trying $v"
	rm -rf "$dl" && mkdir -p "$dl"
	if (cd "$dl" && apt-get "${A[@]}" source --download-only "linux=$v" >&2); then
		orig=$(ls "$dl"/linux_*.orig.tar.* 2>/dev/null | head -n1)
		[ -n "$orig" ] && { ver=$v; break; }
	fi
	say "linux $v: its files could not be fetched"
done
[ -n "$ver" ] || { say "none of the versions could be fetched: ${vers[*]}"; exit 1; }
say "$suite source package linux -> $ver"

rm -rf "$out/linux" "$out/linux.tmp" "$out/version"
mkdir -p "$out/linux.tmp"
say "unpacking $(basename "$orig")"
tar -C "$out/linux.tmp" -xf "$orig" --strip-components=1
[ -f "$out/linux.tmp/Makefile" ] || { say "$(basename "$orig") holds no kernel tree"; exit 1; }
mv "$out/linux.tmp" "$out/linux"
{
	echo "suite=$suite"
	echo "version=$ver"
	echo "upstream=$(make -s -C "$out/linux" kernelversion 2>/dev/null || echo unknown)"
	(cd "$dl" && sha256sum -- *) | sed 's/^/sha256 /'
} >"$out/source.txt"
rm -f "$orig" # the tree is unpacked; the .dsc and Debian's tarball stay, small
echo "$ver" >"$out/version"
echo "$ver"
