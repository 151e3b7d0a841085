#!/usr/bin/env bash
# Build the test guest's initramfs: busybox-static, the 9p modules (and what they depend on)
# from the test kernel, and tests/vm/init. Uncompressed cpio (the kernel unpacks it fastest).
#
#   tests/vm/mkinitramfs.sh [KERNEL_DIR [OUTPUT]]     (defaults: build/kernel build/vm/initramfs.cpio)
#
# Rebuilds only when an input is newer than OUTPUT. Modules are resolved through
# KERNEL_DIR/modules/modules.dep when it exists, else through each module's own
# .modinfo "depends=" (the same data depmod reads; the Debian package ships no modules.dep).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kdir=${1:-$root/build/kernel}
out=${2:-$root/build/vm/initramfs.cpio}
mods_wanted=(netfs 9pnet 9pnet_virtio 9p)
busybox=${MLB_BUSYBOX:-$(command -v busybox || true)}

[ -s "$kdir/version" ] || { echo "mkinitramfs: no kernel in $kdir (run: make kernel)" >&2; exit 1; }
[ -n "$busybox" ] && [ -x "$busybox" ] || { echo "mkinitramfs: busybox (busybox-static) not found" >&2; exit 1; }
if command -v file >/dev/null && ! file -L "$busybox" | grep -q 'statically linked'; then
	echo "mkinitramfs: $busybox is not static (install busybox-static)" >&2
	exit 1
fi
moddir=$kdir/modules

if [ -s "$out" ] && [ "$out" -nt "$kdir/version" ] && [ "$out" -nt "$here/init" ] &&
	[ "$out" -nt "$here/mkinitramfs.sh" ] && [ "$out" -nt "$busybox" ]; then
	exit 0
fi

modpath() { # NAME -> path of its .ko* under $moddir
	local n=$1 alt p
	alt=${n//_/-}
	if [ -f "$moddir/modules.dep" ]; then
		p=$(awk -F: -v a="$n" -v b="$alt" '{f=$1; sub(/.*\//,"",f); sub(/\.ko.*/,"",f); if (f==a||f==b) {print $1; exit}}' "$moddir/modules.dep")
		[ -n "$p" ] && { echo "$moddir/$p"; return; }
	fi
	p=$(find "$moddir/kernel" \( -name "$n.ko*" -o -name "$alt.ko*" \) -print -quit)
	[ -n "$p" ] || { echo "mkinitramfs: module $n not found in $moddir" >&2; return 1; }
	echo "$p"
}
unpack() { # FILE -> module bytes on stdout
	case "$1" in
	*.xz) xz -dc "$1" ;; *.zst) zstd -dcq "$1" ;; *.gz) gzip -dc "$1" ;; *) cat "$1" ;;
	esac
}
moddeps() { # NAME -> its direct dependencies
	local p
	p=$(modpath "$1") || return 1
	if [ -f "$moddir/modules.dep" ] && grep -q "^${p#"$moddir"/}:" "$moddir/modules.dep"; then
		grep "^${p#"$moddir"/}:" "$moddir/modules.dep" | cut -d: -f2 | tr ' ' '\n' |
			sed -n 's|.*/||; s|\.ko.*||p'
	else
		unpack "$p" | tr '\0' '\n' | sed -n 's/^depends=//p' | head -n1 | tr ',' '\n' | sed '/^$/d'
	fi
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$busybox" "$stage/bin/busybox"
cp "$here/init" "$stage/init"
chmod 755 "$stage/init" "$stage/bin/busybox"

declare -A seen=()
order=()
visit() { # depth-first: dependencies first
	local m=$1 d
	[ -n "${seen[$m]:-}" ] && return 0
	seen[$m]=1
	for d in $(moddeps "$m"); do visit "$d"; done
	unpack "$(modpath "$m")" >"$stage/lib/modules/$m.ko"
	order+=("$m")
}
for m in "${mods_wanted[@]}"; do visit "$m"; done
printf '%s\n' "${order[@]}" >"$stage/lib/modules/load-order"
cat "$kdir/version" >"$stage/lib/modules/version"

mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX") # guests that boot at once may build the same file: each its own
(cd "$stage" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) >"$tmp"
chmod 0644 "$tmp"
mv "$tmp" "$out"
echo "mkinitramfs: $out ($(du -k "$out" | cut -f1) KiB; modules: ${order[*]})" >&2
