#!/usr/bin/env bash
# Install what scx_mlb needs to build, run and test on Debian 12 (bookworm), as root.
# flex, bison, bc and libssl-dev configure a kernel tree (make bench-kernel).
# Enables bookworm-backports the usual Debian way (a file in /etc/apt/sources.list.d) for
# libbpf >= 1.4, bpftool 7.x, linux-perf and QEMU 10. Idempotent: a second run is quick.
set -euo pipefail

need_pkgs=(
	make gcc pkg-config clang-19 llvm-19 lld-19 libclang-rt-19-dev
	libelf-dev zlib1g-dev libzstd-dev
	busybox-static cpio xz-utils zstd
	stress-ng rt-tests gnuplot-nox python3 groff-base systemd help2man
	python3-sklearn python3-pandas
	flex bison bc libssl-dev
)
bpo_pkgs=(libbpf-dev bpftool linux-perf qemu-system-x86 qemu-system-data seabios ipxe-qemu)

stamp=/var/lib/scx_mlb-deps.v1
if [ -f "$stamp" ] && command -v clang-19 >/dev/null && command -v bpftool >/dev/null &&
	command -v qemu-system-x86_64 >/dev/null && command -v python3 >/dev/null &&
	command -v groff >/dev/null && command -v systemd-analyze >/dev/null &&
	command -v help2man >/dev/null && command -v flex >/dev/null && command -v bison >/dev/null &&
	command -v bc >/dev/null && /usr/bin/python3 -c 'import sklearn, pandas' 2>/dev/null; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: must run as root (apt-get)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
bpo=/etc/apt/sources.list.d/bookworm-backports.list
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "deb http://deb.debian.org/debian bookworm-backports main" >"$bpo"
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}"
apt-get install -y -qq --no-install-recommends -t bookworm-backports "${bpo_pkgs[@]}"
touch "$stamp"
