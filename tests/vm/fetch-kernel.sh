#!/usr/bin/env bash
# Fetch Debian testing's sched_ext-enabled kernel into a private folder, without touching
# the system's apt configuration. Resolves the current version at run time.
#
#   tests/vm/fetch-kernel.sh OUTDIR
#
# OUTDIR/vmlinuz, OUTDIR/vmlinux (uncompressed, for BTF), OUTDIR/config, OUTDIR/modules/
# (the unpacked modules tree), OUTDIR/version. A second call reuses what is there.
set -euo pipefail
out=${1:?usage: fetch-kernel.sh OUTDIR}
suite=${MLB_KERNEL_SUITE:-forky}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -s "$out/version" ] && [ -f "$out/vmlinuz" ] && [ -s "$out/vmlinux" ]; then
	exit 0
fi

apt_dir=$out/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/deb"
echo "deb http://deb.debian.org/debian $suite main" >"$apt_dir/sources.list"
A=(-o Dir::Etc::sourcelist="$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
	-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache"
	-o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${A[@]}" update -qq

# linux-image-amd64 -> Depends: linux-image-<ver>-amd64 (a meta package in split layouts).
img=$(apt-cache "${A[@]}" depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$img" ] || { echo "fetch-kernel: cannot resolve linux-image-amd64 in $suite" >&2; exit 1; }
ver=${img#linux-image-}
echo "fetch-kernel: $suite linux-image-amd64 -> $ver" >&2

# The image may be split into linux-binary / linux-base / linux-modules: fetch whichever exist.
pkgs=("$img")
for p in "linux-binary-$ver" "linux-base-$ver" "linux-modules-$ver"; do
	if apt-cache "${A[@]}" show "$p" >/dev/null 2>&1; then pkgs+=("$p"); fi
done
(cd "$apt_dir/deb" && apt-get "${A[@]}" download "${pkgs[@]}")
root=$out/root
rm -rf "$root"
mkdir -p "$root"
for d in "$apt_dir"/deb/*.deb; do dpkg-deb -x "$d" "$root"; done

vmlinuz=$(find "$root" -name "vmlinuz*" -type f | head -n1)
config=$(find "$root" -name "config*" -path "*$ver*" -type f | head -n1)
[ -n "$vmlinuz" ] || { echo "fetch-kernel: no vmlinuz in the packages" >&2; exit 1; }
cp "$vmlinuz" "$out/vmlinuz"
[ -n "$config" ] && cp "$config" "$out/config"
grep -q '^CONFIG_SCHED_CLASS_EXT=y' "$out/config" ||
	{ echo "fetch-kernel: $ver has no CONFIG_SCHED_CLASS_EXT" >&2; exit 1; }
moddir=$(find "$root" -type d -path "*/modules/$ver" | head -n1)
rm -rf "$out/modules" && mv "$moddir" "$out/modules"
"$(dirname "$0")/extract-vmlinux.sh" "$out/vmlinuz" "$out/vmlinux"
rm -rf "$root" "$apt_dir/deb"
echo "$ver" >"$out/version"
