#!/usr/bin/env bash
# topo: numa2x2
# timeout: 300
# scx_mlb finds 4 domains on 2 nodes (8 CPUs) and each domain's CPUs and node equal one of
# the guest's L3 groups (cache/index3/shared_cpu_list) and that group's NUMA node.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
declare -A l3node=()
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	g=$(expand_cpus "$(cat $c/cache/index3/shared_cpu_list)")
	n=$(basename $c/node[0-9]*)
	l3node["$g"]=${n#node}
done
note "guest L3 groups: $(for g in "${!l3node[@]}"; do printf '[%s]@node%s ' "$g" "${l3node[$g]}"; done)"
[ ${#l3node[@]} = 4 ] || fail "guest has ${#l3node[@]} L3 groups, expected 4 (topology setup)"

mlb_start --stats 0
mlb_wait_enabled
zzz 1
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "scx_mlb exit status $MLB_RC after SIGINT"
top=$(grep -a '^scx_mlb: topology: ' "$MLB_LOG" | head -n1)
note "$top"
[[ $top =~ topology:\ 4\ domains\ on\ 2\ nodes,\ 8\ cpus ]] || fail "startup line is '$top', expected '4 domains on 2 nodes, 8 cpus'"
mapfile -t doms < <(grep -aE '^scx_mlb: dom [0-9]+: ' "$MLB_LOG")
[ ${#doms[@]} = 4 ] || fail "${#doms[@]} 'dom N:' lines, expected 4"
declare -A seen=()
for d in "${doms[@]}"; do
	[[ $d =~ dom\ ([0-9]+):\ node\ ([0-9]+),\ cpus\ ([0-9,-]+) ]] || fail "cannot parse '$d'"
	id=${BASH_REMATCH[1]} node=${BASH_REMATCH[2]} cpus=$(expand_cpus "${BASH_REMATCH[3]}")
	[ -n "${l3node[$cpus]+x}" ] || fail "dom $id cpus [$cpus] is not an L3 group of the guest"
	[ "${l3node[$cpus]}" = "$node" ] || fail "dom $id says node $node, its CPUs are on node ${l3node[$cpus]}"
	[ -z "${seen[$cpus]+x}" ] || fail "two domains with cpus [$cpus]"
	seen[$cpus]=$id
	note "dom $id: node $node, cpus [$cpus] = L3 group on node ${l3node[$cpus]}: ok"
done
echo "numa-topology: ok"
