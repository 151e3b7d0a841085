#!/usr/bin/env bash
# Boot the test guest (TCG, the Debian sched_ext kernel in build/kernel, the host root mounted
# read-only over 9p) and run a script or command in it as root.
#
#   tests/vm/guest.sh --topo flat4|numa2x2|numa2x2smt|llc8smt|numa4x2smt [--timeout SEC] [--out DIR] [--stream] [--env NAME=VALUE]...
#                     -- SCRIPT|CMD [ARGS...]
#
#   --topo     flat4: 4 vCPUs, 1 socket, 1 LLC, 2 GiB.
#              numa2x2: 8 vCPUs, 2 NUMA nodes (CPUs 0-3, 4-7, distance 20) x 2 LLCs each
#              (L3 groups 0-1 2-3 4-5 6-7), 2 x 1 GiB.
#              numa2x2smt: 16 vCPUs, the same with SMT pairs: 2 nodes (CPUs 0-7, 8-15) x 2
#              LLCs (0-3 4-7 8-11 12-15) x 2 cores x 2 threads (siblings 0-1, 2-3, ...).
#              numa4x2smt: 64 vCPUs, 4 nodes (0-15 ... 48-63; distances 20 and 30) x 2 LLCs
#              (0-7 ... 56-63) x 4 cores x 2 threads, 4 x 1 GiB.
#              llc8smt: 8 vCPUs, one LLC of numa4x2smt (4 cores x 2 threads), 2 GiB (the
#              8-vCPU side of the scale comparison).
#              Every topology runs single-threaded TCG: multi-threaded TCG corrupts the
#              kernel's int3 text patching now and then ("Oops: int3" at a static key's jump
#              site, vm/text-poke reproduces it without scx_mlb), and it stops every vCPU
#              thread to patch text, which on 2 host cores made the 64-vCPU boot take 250 s.
#              MLB_TCG_THREAD=multi overrides it (for experiments).
#   --timeout  seconds the script may run once the guest is up (default 300); then QEMU is
#              killed and the exit status is 124.
#   --out DIR  results folder (default: a new build/vm/runs/XXXXXX); shared writable with the
#              guest as $MLB_OUT; DIR/console.log gets the serial console.
#   --stream   copy the console to stdout while the guest runs.
#   --env N=V  export N=V to the script (the guest's environment is otherwise empty).
#   SCRIPT     an existing file is run with bash; anything else is run as a command.
#
# In the guest: cwd and $MLB_ROOT = this repository (same absolute path as on the host),
# $MLB_OUT = /run/mlb-out (the results share), $MLB_BIN = $MLB_ROOT/build/scx_mlb,
# $MLB_TOPO = the topology name (MLB_BIN set on the host, outside /tmp, overrides the binary).
# /tmp /run /var/tmp /root are tmpfs; proc, sysfs, devtmpfs, cgroup2, bpffs, debugfs and
# tracefs are mounted.
#
# Exit status: the script's. 124 = script timed out; 92 = the guest died before the script
# finished (kernel panic?); 90 = HARNESS failure: the guest did not reach the script (no
# MLB-READY on the console within MLB_BOOT_TIMEOUT s, default 60, or an early crash), after one
# retry. 2 = usage. Guests run one at a time per machine (lock /run/lock/scx_mlb-guest.lock).
{ # the whole script is parsed before it runs: editing this file cannot break a running instance
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
B=$root/build
kdir=${MLB_KERNEL_DIR:-$B/kernel}
topo=flat4 timeout=300 out="" stream=0 envs=() tcg_thread=${MLB_TCG_THREAD:-single}
boot_timeout=${MLB_BOOT_TIMEOUT:-60} # the 64-vCPU guest: 120 unless set (see below)

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--topo) topo=${2:?}; shift 2 ;;
	--topo=*) topo=${1#*=}; shift ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	--out) out=${2:?}; shift 2 ;;
	--out=*) out=${1#*=}; shift ;;
	--stream) stream=1; shift ;;
	--env) envs+=("${2:?}"); shift 2 ;;
	--env=*) envs+=("${1#*=}"); shift ;;
	-h | --help) usage ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
log() { echo "guest.sh: $*" >&2; }

case "$topo" in
flat4) qtopo=(-smp 4,sockets=1,cores=4,threads=1 -m 2G) ;;
numa2x2)
	qtopo=(-smp 8,sockets=4,cores=2,threads=1 -m 2G
		-object memory-backend-ram,id=m0,size=1G -object memory-backend-ram,id=m1,size=1G
		-numa node,nodeid=0,cpus=0-3,memdev=m0 -numa node,nodeid=1,cpus=4-7,memdev=m1
		-numa dist,src=0,dst=1,val=20)
	;;
numa2x2smt)
	qtopo=(-smp 16,sockets=4,cores=2,threads=2 -m 2G
		-object memory-backend-ram,id=m0,size=1G -object memory-backend-ram,id=m1,size=1G
		-numa node,nodeid=0,cpus=0-7,memdev=m0 -numa node,nodeid=1,cpus=8-15,memdev=m1
		-numa dist,src=0,dst=1,val=20)
	;;
llc8smt)
	# 8 vCPUs: one LLC of numa4x2smt (4 cores x 2 threads), the base of the scale comparison
	qtopo=(-smp 8,sockets=1,cores=4,threads=2 -m 2G)
	;;
numa4x2smt)
	# 64 vCPUs: 4 nodes x 2 LLCs (sockets) x 4 cores x 2 threads; node distances 20 (one hop)
	# and 30 (two hops: 0<->2, 1<->3), as a ring of four sockets pairs would have.
	qtopo=(-smp 64,sockets=8,cores=4,threads=2 -m 4G)
	for n in 0 1 2 3; do
		qtopo+=(-object memory-backend-ram,id=m$n,size=1G
			-numa node,nodeid=$n,cpus=$((n * 16))-$((n * 16 + 15)),memdev=m$n)
	done
	qtopo+=(-numa dist,src=0,dst=1,val=20 -numa dist,src=0,dst=2,val=30 -numa dist,src=0,dst=3,val=20
		-numa dist,src=1,dst=2,val=20 -numa dist,src=1,dst=3,val=30 -numa dist,src=2,dst=3,val=20)
	# (multi-threaded TCG here: loading the 9p modules took 100 s and the boot 250 s)
	boot_timeout=${MLB_BOOT_TIMEOUT:-120} # about 50 s alone on a 2-CPU host
	;;
*) log "unknown topology '$topo' (flat4|numa2x2|numa2x2smt|llc8smt|numa4x2smt)"; exit 2 ;;
esac

[ -f "$kdir/vmlinuz" ] || { log "no kernel in $kdir (run: make kernel)"; exit 90; }
# one initramfs per kernel (its modules): the kernel matrix boots several
initrd=$B/vm/initramfs-$(cat "$kdir/version").cpio
bash "$here/mkinitramfs.sh" "$kdir" "$initrd" || { log "HARNESS: mkinitramfs failed"; exit 90; }

if [ -z "$out" ]; then
	mkdir -p "$B/vm/runs"
	out=$(mktemp -d "$B/vm/runs/XXXXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/.mlb" "$out"/console*.log
mkdir -p "$out/.mlb"

# The job the guest's init runs (chrooted into the host root, env -i).
{
	echo "# written by tests/vm/guest.sh"
	printf 'export MLB_ROOT=%q MLB_OUT=/run/mlb-out MLB_TOPO=%q\n' "$root" "$topo"
	if [ -n "${MLB_BIN:-}" ]; then printf 'export MLB_BIN=%q\n' "$(realpath "$MLB_BIN")"; else echo 'export MLB_BIN=$MLB_ROOT/build/scx_mlb'; fi
	for e in "${envs[@]}"; do
		[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { log "bad --env '$e' (NAME=VALUE)"; exit 2; }
		printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
	done
	echo 'cd "$MLB_ROOT" || exit 1'
	if [ -f "$1" ]; then
		s=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
		shift
		case "$s" in # hidden by tmpfs in the guest: run a copy from the share
		/tmp/* | /run/* | /var/tmp/* | /root/*)
			cp "$s" "$out/.mlb/script.sh"
			s=/run/mlb-out/.mlb/script.sh
			;;
		esac
		printf 'exec bash %q' "$s"
	else
		printf 'exec'
	fi
	printf ' %q' "$@"
	echo
} >"$out/.mlb/job.sh"
echo "$timeout" >"$out/.mlb/timeout"
# A repository under a folder the guest covers with tmpfs (e.g. a CI clone in /root or /tmp)
# gets its own read-only 9p share, mounted at the same path.
repo9p=()
case "$root/" in
/tmp/* | /run/* | /var/tmp/* | /root/*)
	echo "$root" >"$out/.mlb/repo_path"
	repo9p=(-fsdev "local,id=mlbrepo,path=$root,security_model=none,readonly=on,multidevs=remap"
		-device virtio-9p-pci,fsdev=mlbrepo,mount_tag=mlbrepo)
	;;
esac

qpid="" tpid=""
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	[ -n "$qpid" ] && kill -9 "$qpid" 2>/dev/null
	qpid="" tpid=""
}
trap 'cleanup; exit 130' INT TERM
trap cleanup EXIT

now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }

# One boot. Sets: phase (harness|timeout|died|done), boot_s.
boot() {
	local con=$out/console.log t0 now ready=0
	: >"$con"
	rm -f "$out/.mlb/rc"
	qemu-system-x86_64 -accel tcg,thread=$tcg_thread -cpu max -machine q35 -nographic -no-reboot \
		-nic none "${qtopo[@]}" \
		-kernel "$kdir/vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 rdinit=/init mitigations=off ${MLB_KERNEL_ARGS:-}" \
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev local,id=mlbout,path="$out",security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=mlbout,mount_tag=mlbout "${repo9p[@]}" \
		</dev/null >"$con" 2>&1 &
	qpid=$!
	if [ "$stream" = 1 ]; then
		tail -n +1 -F --pid="$qpid" "$con" 2>/dev/null | tr -d '\r' &
		tpid=$!
	fi
	t0=$(now_ms)
	phase=""
	while :; do
		now=$(now_ms)
		if [ $ready = 0 ]; then
			if grep -aq '^MLB-READY' "$con"; then
				ready=1
				boot_s=$(printf '%d.%02d' $(((now - t0) / 1000)) $(((now - t0) % 1000 / 10)))
				t0=$now
				echo "$boot_s" >"$out/.mlb/boot_s"
				log "$topo guest up in ${boot_s}s; running the script (timeout ${timeout}s)"
			elif grep -aqE 'Kernel panic|Oops|BUG:|general protection fault|MLB-HARNESS-FAIL' "$con"; then
				phase=harness why="early crash: $(grep -aEm1 'Kernel panic|Oops|BUG:|general protection fault|MLB-HARNESS-FAIL' "$con" | tr -d '\r')"
				break
			elif ! kill -0 "$qpid" 2>/dev/null; then
				phase=harness why="QEMU exited before the guest was up: $(tail -n3 "$con" | tr -d '\r' | tr '\n' ' ')"
				break
			elif [ $((now - t0)) -gt $((boot_timeout * 1000)) ]; then
				phase=harness why="no MLB-READY within ${boot_timeout}s"
				break
			fi
		else
			if ! kill -0 "$qpid" 2>/dev/null; then
				if [ -s "$out/.mlb/rc" ] || grep -aq '^MLB-EXIT rc=' "$con"; then phase=done; else phase=died; fi
				break
			elif [ $((now - t0)) -gt $((timeout * 1000)) ]; then
				phase=timeout
				break
			fi
		fi
		sleep 0.2
	done
	case "$phase" in
	harness | timeout) kill -9 "$qpid" 2>/dev/null ;;
	esac
	wait "$qpid" 2>/dev/null
	qpid=""
	if [ -n "$tpid" ]; then # tail --pid ends by itself once it has printed the rest
		for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
			kill -0 "$tpid" 2>/dev/null || break
			sleep 0.2
		done
		kill "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null
		tpid=""
	fi
}

# One guest at a time on this machine: its 2 CPUs do not give two CPUs' worth of work (a
# CPU-bound loop took 0.75-1.03 s alone, 1.29-1.95 s beside a second one, 2026-12-07), and two
# guests at once ran scenarios up to 2x slower, past vm/hotplug's timeout and the 64-vCPU
# guest's boot timeout: concurrent guests break every timing (watchdog, bounds, benchmarks).
# The lock is outside the build folder so that checkouts side by side (git worktrees) share it.
# MLB_GUEST_NOLOCK=1 opts out; MLB_LOCK_WAIT (s, default 3600) bounds the wait.
if [ "${MLB_GUEST_NOLOCK:-0}" != 1 ]; then
	lockdir=/run/lock
	[ -d "$lockdir" ] && [ -w "$lockdir" ] || lockdir=${TMPDIR:-/tmp}
	exec 8>"$lockdir/scx_mlb-guest.lock"
	if ! flock -n 8; then
		log "waiting for another test guest to finish (one at a time; MLB_GUEST_NOLOCK=1 skips)"
		flock -w "${MLB_LOCK_WAIT:-3600}" 8 || { log "HARNESS: lock wait timed out"; exit 90; }
	fi
fi
boot_s="" why=""
boot
if [ "$phase" = harness ]; then
	log "HARNESS: boot attempt 1 failed ($why); retrying"
	mv "$out/console.log" "$out/console.attempt1.log"
	boot
	if [ "$phase" = harness ]; then
		log "HARNESS FAILURE: the guest did not reach the script twice ($why); console: $out/console.log"
		exit 90
	fi
fi
case "$phase" in
timeout)
	log "TIMEOUT: the script ran longer than ${timeout}s; QEMU killed; console: $out/console.log"
	exit 124
	;;
died)
	log "the guest died before the script finished (panic?); console: $out/console.log"
	exit 92
	;;
esac
rc=$(cat "$out/.mlb/rc" 2>/dev/null || grep -a '^MLB-EXIT rc=' "$out/console.log" | tr -dc '0-9')
rc=${rc:-92}
log "script exit $rc; console: $out/console.log"
exit "$rc"
exit
}
