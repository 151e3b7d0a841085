#!/usr/bin/env bash
# topo: flat4
# timeout: 300
# The installed scheduler runs: `make install` into a DESTDIR in this run's output folder,
# then the installed /usr/sbin/scx_mlb (byte for byte the build's) attaches as vm/attach
# checks, detaches on SIGINT with exit 0, and its installed unit names it (unit/install
# checks the files, modes and systemd-analyze on the host).
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
d=$MLB_OUT/destdir
# The repository is read-only here and already built: -o keeps make from re-running the
# dependency installer or remaking what install copies (a source edited on the host after
# the build would make it try), so that install only copies.
make -s -C "$MLB_ROOT" -o /var/lib/scx_mlb-deps.v1 -o build/scx_mlb -o build/mlb-model \
	-o build/man/scx_mlb.8 -o build/man/mlb-model.1 install DESTDIR="$d" PREFIX=/usr \
	>"$MLB_OUT/install.log" 2>&1 || fail "make install DESTDIR=$d: $(tail -n 3 "$MLB_OUT/install.log")"
MLB_BIN=$d/usr/sbin/scx_mlb
cmp -s "$MLB_BIN" "$MLB_ROOT/build/scx_mlb" || fail "the installed scx_mlb differs from build/scx_mlb"
grep -q "^ExecStart=/usr/sbin/scx_mlb " "$d/lib/systemd/system/scx_mlb.service" ||
	fail "the installed unit does not start /usr/sbin/scx_mlb"
[ "$(stat -c %a "$d/var/lib/scx_mlb")" = 750 ] || fail "state directory mode $(stat -c %a "$d/var/lib/scx_mlb")"
mlb_start --stats 1
mlb_wait_enabled
mlb_check_enabled
zzz 2
grep -q 'migr_s=' "$MLB_LOG" || fail "the installed scx_mlb printed no stats line"
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "installed scx_mlb exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
echo "install: ok ($MLB_BIN)"
