#!/usr/bin/env bash
# topo: flat4
# timeout: 300
# scx_mlb attaches: sched_ext state becomes "enabled" with root/ops the ops name that
# `scx_mlb -V` states (scx_mlb_<version>_g<hash>), it schedules every task (switch_all=1,
# this shell has ext.enabled=1), then it detaches on SIGINT. It runs with --wake-preempt-us,
# which needs scx_bpf_cpu_curr() (kernels 6.18 and later): on an older kernel (the kernel
# matrix's oldest) the loader says in one line that wake-up preemption is off, and on a newer
# one it says nothing of the kind.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
mlb_start --stats 1 --wake-preempt-us 1000
mlb_wait_enabled
IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
said=$(grep -c 'wake-preempt-us needs scx_bpf_cpu_curr' "$MLB_LOG")
if [ $((kmaj * 100 + kmin)) -lt 618 ]; then
	[ "$said" = 1 ] || fail "kernel $(uname -r) has no scx_bpf_cpu_curr(): expected one line saying wake-up preemption is off, got $said"
else
	[ "$said" = 0 ] || fail "kernel $(uname -r) has scx_bpf_cpu_curr(), yet the loader says wake-up preemption is off"
fi
note "kernel $(uname -r): wake-up preemption $([ "$said" = 1 ] && echo off, as said || echo available)"
[[ $(rd $SCX/root/ops) =~ ^scx_mlb_[0-9]+\.[0-9]+\.[0-9]+_(g[0-9a-f]{7,}(_dirty)?|unknown)$ ]] ||
	fail "root/ops '$(rd $SCX/root/ops)' is not scx_mlb_<version>_g<hash>"
sw=$(cat $SCX/switch_all)
[ "$sw" = 1 ] || fail "switch_all=$sw, expected 1 without --partial"
zzz 1
e=$(ext_enabled $$)
[ "$e" = 1 ] || fail "this shell is not scheduled by sched_ext (ext.enabled=$e)"
note "switch_all=$sw, shell ext.enabled=$e"
mlb_check_enabled
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "scx_mlb exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
echo "attach: ok"
