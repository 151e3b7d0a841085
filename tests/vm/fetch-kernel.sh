#!/usr/bin/env bash
# Fetch one of Debian's sched_ext kernels into a private folder, without touching the
# system's apt configuration. The version is resolved at run time from the suites that carry
# sched_ext kernels (trixie-backports, forky, sid, experimental; trixie's own 6.12 has
# CONFIG_SCHED_CLASS_EXT off).
#
#   tests/vm/fetch-kernel.sh OUTDIR [WHICH]
#   tests/vm/fetch-kernel.sh --list
#
# WHICH (default newest; also MLB_KERNEL):
#   newest    the highest package version in those suites
#   oldest    the lowest one whose config has CONFIG_SCHED_CLASS_EXT=y
#   X.Y       the newest of series X.Y (6.18: the newest 6.18 LTS build)
#   VERSION   exactly this package version (e.g. 7.3.4-1~bpo13+1)
# --list prints every candidate, "VERSION PACKAGE", oldest first.
#
# OUTDIR/vmlinuz, OUTDIR/vmlinux (uncompressed, for BTF), OUTDIR/config, OUTDIR/modules/
# (the unpacked modules tree), OUTDIR/version (the kernel release, e.g. 7.3.4+deb13-amd64),
# OUTDIR/package (package and version). A second call reuses what is there.
set -euo pipefail
suites=${MLB_KERNEL_SUITES:-trixie-backports forky sid experimental}
if [ "${1:-}" = --list ]; then
	out=${TMPDIR:-/tmp}/scx_mlb-kernel-list
	which=list
else
	out=${1:?usage: fetch-kernel.sh OUTDIR [newest|oldest|X.Y|VERSION] | --list}
	which=${2:-${MLB_KERNEL:-newest}}
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ "$which" != list ] && [ -s "$out/version" ] && [ -f "$out/vmlinuz" ] && [ -s "$out/vmlinux" ]; then
	exit 0
fi

apt_dir=$out/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
for s in $suites; do echo "deb http://deb.debian.org/debian $s main"; done >"$apt_dir/sources.list"
A=(-o Dir::Etc::sourcelist="$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
	-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache"
	-o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${A[@]}" update -qq

# Candidates: the generic amd64 images (not -cloud, -rt, -dbg, -unsigned), "VERSION PACKAGE",
# in Debian version order (sort -V orders "~" first, as dpkg does).
mapfile -t cands < <(apt-cache "${A[@]}" show --no-all-versions \
	$(apt-cache "${A[@]}" pkgnames linux-image- | grep -E '^linux-image-[0-9][^-]*-amd64$') |
	awk '/^Package:/ {p = $2} /^Version:/ {print $2, p}' | sort -V -u)
[ ${#cands[@]} -gt 0 ] || { echo "fetch-kernel: no linux-image in $suites" >&2; exit 1; }
if [ "$which" = list ]; then
	printf '%s\n' "${cands[@]}"
	exit 0
fi

case $which in
newest) mapfile -t pick < <(printf '%s\n' "${cands[@]}" | tac) ;;
oldest) pick=("${cands[@]}") ;;
[0-9]*.[0-9]* ) # a series (X.Y) or an exact version
	mapfile -t pick < <(printf '%s\n' "${cands[@]}" | awk -v w="$which" \
		'$1 == w || index($1, w ".") == 1 || index($1, w "-") == 1' | tac) ;;
*) echo "fetch-kernel: WHICH is newest, oldest, X.Y or a version, not '$which'" >&2; exit 2 ;;
esac
[ ${#pick[@]} -gt 0 ] || { echo "fetch-kernel: no kernel matches '$which' in $suites" >&2; exit 1; }

# Fetch the first candidate in order with sched_ext (only "oldest" may need a second try).
root=$out/root
for c in "${pick[@]}"; do
	pver=${c%% *} img=${c#* }
	ver=${img#linux-image-}
	echo "fetch-kernel: $which -> $img $pver" >&2
	# The image may be split into linux-binary / linux-base / linux-modules: fetch whichever
	# exist (an image can depend on a part the index does not carry: 6.18.15's linux-base).
	# apt-cache's answer is read whole: "apt-cache | grep -q" under pipefail failed now and
	# then, when grep closed the pipe before apt-cache had written, and dropped the part.
	pkgs=("$img=$pver")
	for p in "linux-binary-$ver" "linux-base-$ver" "linux-modules-$ver"; do
		if grep -q '^Package:' <<<"$(apt-cache "${A[@]}" show "$p=$pver" 2>/dev/null)"; then
			pkgs+=("$p=$pver")
		fi
	done
	rm -rf "$apt_dir/deb" "$root"
	mkdir -p "$apt_dir/deb" "$root"
	(cd "$apt_dir/deb" && apt-get "${A[@]}" download "${pkgs[@]}")
	for d in "$apt_dir"/deb/*.deb; do dpkg-deb -x "$d" "$root"; done
	config=$(find "$root" -name "config*" -path "*$ver*" -type f -print -quit)
	if [ -n "$config" ] && grep -q '^CONFIG_SCHED_CLASS_EXT=y' "$config"; then
		break
	fi
	echo "fetch-kernel: $ver has no CONFIG_SCHED_CLASS_EXT" >&2
	[ "$which" = oldest ] || exit 1
	config=""
done
[ -n "$config" ] || { echo "fetch-kernel: no sched_ext kernel for '$which'" >&2; exit 1; }

vmlinuz=$(find "$root" -name "vmlinuz*" -type f -print -quit)
[ -n "$vmlinuz" ] || { echo "fetch-kernel: no vmlinuz in ${pkgs[*]}" >&2; exit 1; }
cp "$vmlinuz" "$out/vmlinuz"
cp "$config" "$out/config"
moddir=$(find "$root" -type d -path "*/modules/$ver" -print -quit)
rm -rf "$out/modules" && mv "$moddir" "$out/modules"
"$(dirname "$0")/extract-vmlinux.sh" "$out/vmlinuz" "$out/vmlinux"
rm -rf "$root" "$apt_dir/deb"
echo "$img $pver" >"$out/package"
echo "$ver" >"$out/version"
