#!/usr/bin/env bash
# topo: numa2x2
# timeout: 1500
# manual: a soak, not a check the suite needs; it reproduces a rare hotplug failure
# CPU hotplug, over and over: vm/hotplug's offline/online cycle MLB_HOTPLUG_CYCLES times
# (default 8), under the same load, in infer mode with a model. After each change scx_mlb must
# be attached again and enabled; the kernel console must stay clean (scenario.sh checks it).
# It exists to catch what one cycle in vm/hotplug shows only now and then (CI, 2026-12-06:
# "Oops: int3" during a cycle); run it by name: bash tests/run.sh vm/hotplug-loop.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
ONLINE=/sys/devices/system/cpu/cpu7/online
STATE=/tmp/mlb-state
cycles=${MLB_HOTPLUG_CYCLES:-8}
corpus_model 4-2
[ -w $ONLINE ] || skip "CPU 7 cannot be hotplugged in this guest"
rm -rf $STATE
cp "$CORPUS_MODEL" /tmp/hp.mlb
chmod 0644 /tmp/hp.mlb
trap spin_stop EXIT

mlb_start --mode infer --model /tmp/hp.mlb --state-dir $STATE --stats 1
mlb_wait_enabled
spin_start 4


n=1
for ((i = 1; i <= cycles; i++)); do
	for v in 0 1; do
		t0=$(now_ms)
		echo $v >$ONLINE || fail "cycle $i: cannot write $v to cpu7/online"
		n=$((n + 1))
		mlb_wait_reattached $n
		note "cycle $i: cpu7 online=$v, reattached after $(($(now_ms) - t0)) ms"
		mixed_load 3 "c$i-$v"
	done
done
spin_progress 3
spin_stop
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
echo "hotplug-loop: ok ($cycles cycles, $((n - 1)) restarts)"
