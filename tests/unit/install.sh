#!/usr/bin/env bash
# unit/install: `make install DESTDIR=... PREFIX=/usr` installs the programs, the man page,
# the service with the installed paths, its defaults file and the state directory 0750; the
# unit passes `systemd-analyze verify`; a second install keeps an edited defaults file; the
# installed scx_mlb runs (--version, and the parser: exit 2 on a bad option), also as sched-ext's
# scx.service starts a scheduler; `make uninstall`
# removes what install put there except the user's settings and data.
set -u
cd "$(dirname "$0")/../.."
d=$(mktemp -d /tmp/mlb-install.XXXXXX)
trap 'rm -rf "$d"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
make -s install DESTDIR="$d" PREFIX=/usr >"$d.log" 2>&1 || { cat "$d.log"; rm -f "$d.log"; echo "FAIL: make install"; exit 1; }
rm -f "$d.log"
mode() { stat -c %a "$d$1" 2>/dev/null; }
for f in /usr/sbin/scx_mlb:755 /usr/bin/mlb-model:755 /usr/share/man/man8/scx_mlb.8:644 \
	/usr/share/man/man1/mlb-model.1:644 /lib/systemd/system/scx_mlb.service:644 \
	/etc/default/scx_mlb:644 /var/lib/scx_mlb:750; do
	[ "$(mode "${f%:*}")" = "${f#*:}" ] || fail "${f%:*}: mode '$(mode "${f%:*}")', want ${f#*:}"
done
unit=$d/lib/systemd/system/scx_mlb.service
grep -q '^ExecStart=/usr/sbin/scx_mlb \$SCX_MLB_FLAGS$' "$unit" || fail "ExecStart is not the installed path"
grep -q '^EnvironmentFile=-/etc/default/scx_mlb$' "$unit" || fail "EnvironmentFile"
! grep -q '@' "$unit" || fail "a placeholder is left in the unit"
# systemd-analyze verify needs the host's units (sysinit.target) and the unit's ExecStart to
# exist: install a second time without DESTDIR, every path under $d/p, and verify that unit.
# (--man=no: the man page is checked by unit/man; man(1) does not look under $d/p.)
p=$d/p
make -s install PREFIX="$p/usr" UNITDIR="$p/unit" SYSCONFDIR="$p/etc" STATEDIR="$p/state" \
	>/dev/null 2>&1 || fail "make install PREFIX=$p/usr"
out=$(systemd-analyze verify --man=no "$p/unit/scx_mlb.service" 2>&1) ||
	fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify said: $out"
rm -rf "$p"
"$d/usr/sbin/scx_mlb" --version | grep -q '^scx_mlb [0-9]' || fail "installed scx_mlb --version"
"$d/usr/sbin/scx_mlb" --slice-us 1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "installed scx_mlb did not refuse --slice-us 1 with exit 2"
"$d/usr/bin/mlb-model" --help >/dev/null || fail "installed mlb-model --help"
# sched-ext's scx.service runs `bash -c 'exec $SCX_SCHEDULER $SCX_FLAGS '` with
# /etc/default/scx and systemd's default PATH: the default SBINDIR is on that PATH, and
# SCX_SCHEDULER=scx_mlb with SCX_FLAGS starts the installed binary with those options
sbindir=$(make -s -p -n install 2>/dev/null | sed -n 's/^SBINDIR := //p')
[[ ":$(systemd-path search-binaries-default):" == *":$sbindir:"* ]] ||
	fail "the default SBINDIR $sbindir is not on systemd's default PATH"
out=$(env -i PATH="$d/usr/sbin:$d/usr/bin" SCX_SCHEDULER=scx_mlb SCX_FLAGS="--stats 5 -V" \
	/bin/bash -c 'exec $SCX_SCHEDULER $SCX_FLAGS ' 2>&1) && [[ $out == "scx_mlb "* ]] ||
	fail "scx.service's command line did not run the installed scx_mlb: $out"
# an edited defaults file survives a reinstall and an uninstall
echo 'SCX_MLB_FLAGS="--mode adaptive"' >"$d/etc/default/scx_mlb"
make -s install DESTDIR="$d" PREFIX=/usr >/dev/null 2>&1 || fail "second make install"
grep -q 'adaptive' "$d/etc/default/scx_mlb" || fail "reinstall overwrote /etc/default/scx_mlb"
make -s uninstall DESTDIR="$d" PREFIX=/usr >/dev/null 2>&1 || fail "make uninstall"
left=$(cd "$d" && find . -type f | sort | tr '\n' ' ')
[ "$left" = "./etc/default/scx_mlb " ] || fail "after uninstall, files left: $left"
[ -d "$d/var/lib/scx_mlb" ] || fail "uninstall removed the state directory"
echo "install: $fails failed"
[ $fails -eq 0 ]
