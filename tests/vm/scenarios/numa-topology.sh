#!/usr/bin/env bash
# topo: numa2x2
# timeout: 300
# scx_mlb finds 4 domains on 2 nodes (8 CPUs) and each domain's CPUs and node equal one of
# the guest's L3 groups (cache/index3/shared_cpu_list) and that group's NUMA node: both in
# the lines the loader prints and in what the BPF side uses, the CPU-to-domain map (cpu_dom)
# and the domain-to-node map (dom_node) in the scheduler's read-only data, read from the
# kernel with bpftool while it runs (JSON, each variable looked up by name through BTF, so
# the check does not depend on the layout of .rodata).
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

# The BPF side's maps, from the kernel: the .rodata map of the running scheduler (bpftool
# truncates map names to 15 characters: "scx_mlb.rodata").
bpftool -j map show >"$MLB_OUT/maps.json" || fail "bpftool map show failed"
python3 - "$MLB_OUT/maps.json" >"$MLB_OUT/rodata-id" <<'PY' || fail "$(cat "$MLB_OUT/rodata-id")"
import json, sys
ids = [m["id"] for m in json.load(open(sys.argv[1])) if m.get("name") == "scx_mlb.rodata"]
print(ids[0] if len(ids) == 1 else "%d maps named scx_mlb.rodata: %s" % (len(ids), ids))
sys.exit(len(ids) != 1)
PY
id=$(cat "$MLB_OUT/rodata-id")
bpftool -j map dump id "$id" >"$MLB_OUT/rodata.json" || fail "bpftool map dump id $id failed"
# -> "CPU DOM NODE" per CPU (nr_cpus of them), from cpu_dom[] and dom_node[]
python3 - "$MLB_OUT/rodata.json" >"$MLB_OUT/cpu-dom.txt" <<'PY' || fail "rodata: $(cat "$MLB_OUT/cpu-dom.txt")"
import json, sys
d = json.load(open(sys.argv[1]))
if len(d) != 1 or "formatted" not in d[0]:
    sys.exit(print("no BTF-formatted value in the dump") or 1)
v = {}
for sec in d[0]["formatted"]["value"].values():
    for var in sec:
        v.update(var)
miss = [k for k in ("nr_cpus", "cpu_dom", "dom_node") if k not in v]
if miss:
    sys.exit(print("no variable %s in .rodata" % ", ".join(miss)) or 1)
for c in range(v["nr_cpus"]):
    print(c, v["cpu_dom"][c], v["dom_node"][v["cpu_dom"][c]])
PY
mlb_check_enabled "after reading its maps"
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

# What BPF uses: CPUs that share a cpu_dom value form exactly one L3 group, whose node is
# dom_node of that domain; every online CPU has a domain.
declare -A bcpus=() bnode=()
n=0
while read -r c d nd; do
	bcpus[$d]+="${bcpus[$d]:+ }$c"
	[ -z "${bnode[$d]+x}" ] || [ "${bnode[$d]}" = "$nd" ] || fail "BPF dom $d has two nodes"
	bnode[$d]=$nd
	n=$((n + 1))
done <"$MLB_OUT/cpu-dom.txt"
[ $n = 8 ] || fail "BPF nr_cpus is $n, expected 8"
[ ${#bcpus[@]} = 4 ] || fail "BPF cpu_dom has ${#bcpus[@]} domains, expected 4: $(tr '\n' ' ' <"$MLB_OUT/cpu-dom.txt")"
for d in "${!bcpus[@]}"; do
	cpus=${bcpus[$d]}
	[ -n "${l3node[$cpus]+x}" ] || fail "BPF dom $d has cpus [$cpus], not an L3 group of the guest"
	[ "${l3node[$cpus]}" = "${bnode[$d]}" ] || fail "BPF dom_node[$d] = ${bnode[$d]}, its CPUs [$cpus] are on node ${l3node[$cpus]}"
	note "BPF: cpu_dom = $d for cpus [$cpus], dom_node[$d] = ${bnode[$d]}: an L3 group on that node: ok"
done
echo "numa-topology: ok"
