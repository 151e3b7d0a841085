#!/usr/bin/env bash
# topo: numa2x2
# timeout: 360
# Load balancing across domains: 8 spinners start pinned to CPUs 0-1 (domain 0), then are
# allowed on all CPUs (taskset -p). scx_mlb must migrate them (its taken/steal counters grow,
# the spinners' se.nr_migrations grow) and the spread must converge within BOUND s: every
# domain (L3 group) holds 1..3 spinners (max-min <= 2) by `ps -o psr`, in 3 consecutive 1-s
# samples. The time to converge and the final spread (ideal: 2 2 2 2) are printed.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
BOUND=${BALANCE_BOUND_S:-20}
NSPIN=8
# CPU -> domain index, from the guest's L3 groups (0-1 2-3 4-5 6-7 expected).
declare -A dom_of=()
declare -A gid=()
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	g=$(cat $c/cache/index3/shared_cpu_list)
	[ -n "${gid[$g]+x}" ] || gid[$g]=${#gid[@]}
	dom_of[${c##*cpu}]=${gid[$g]}
done
ND=${#gid[@]}
[ "$ND" = 4 ] || fail "guest has $ND L3 groups, expected 4"

mlb_start --stats 1
mlb_wait_enabled
wait_stats 1 30

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null; }
for ((i = 0; i < NSPIN; i++)); do
	taskset -c 0-1 bash -c 'while :; do :; done' &
	pids+=($!)
done
spread() { # -> per-domain counts "c0 c1 c2 c3"
	local -a cnt=()
	local d psr
	for ((d = 0; d < ND; d++)); do cnt[d]=0; done
	for psr in $(ps -o psr= -p "$(
		IFS=,
		echo "${pids[*]}"
	)"); do
		d=${dom_of[$psr]}
		cnt[d]=$((cnt[d] + 1))
	done
	echo "${cnt[*]}"
}
nr_migr() { # sum of se.nr_migrations of the spinners
	local p s=0 v
	for p in "${pids[@]}"; do
		v=$(awk '/^se.nr_migrations/ {print $3}' /proc/$p/sched)
		s=$((s + ${v:-0}))
	done
	echo $s
}
note "spinners: ${pids[*]} (this shell: $$)"
sleep 4
sp=$(spread)
note "pinned to CPUs 0-1 for 4 s: per-domain spinners [$sp]"
[ "$sp" = "$NSPIN 0 0 0" ] || { cleanup; fail "pinned spinners are not all in domain 0: [$sp]"; }
grep -a '^stats ' "$MLB_LOG" | tail -n1
tk0=$(last_stat taken) st0=$(last_stat steal) sr0=$(last_stat steal_remote) m0=$(nr_migr)

for p in "${pids[@]}"; do taskset -pc 0-7 "$p" >/dev/null; done
t0=$(now_ms)
note "affinity widened to CPUs 0-7; sampling the spread every 1 s for up to ${BOUND}+ s"
good=0 conv=""
while :; do
	sleep 1
	sp=$(spread)
	el=$(($(now_ms) - t0))
	read -r -a c <<<"$sp"
	mn=${c[0]} mx=${c[0]}
	for v in "${c[@]}"; do ((v < mn)) && mn=$v; ((v > mx)) && mx=$v; done
	ok=0
	((mn >= 1 && mx <= 3)) && ok=1
	printf '# t=%d.%ds spread [%s] max-min=%d %s\n' $((el / 1000)) $((el % 1000 / 100)) "$sp" $((mx - mn)) \
		"$([ $ok = 1 ] && echo in-bound || echo -)"
	if [ $ok = 1 ]; then
		good=$((good + 1))
		[ -n "$conv" ] || conv=$el
		[ $good -ge 3 ] && break
	else
		good=0 conv=""
	fi
	[ "$el" -lt $(((BOUND + 3) * 1000)) ] || break
done
m1=$(nr_migr)
n=$(grep -ac '^stats ' "$MLB_LOG")
wait_stats $((n + 1)) 10
grep -a '^stats ' "$MLB_LOG" | tail -n1
tk1=$(last_stat taken) st1=$(last_stat steal) sr1=$(last_stat steal_remote)
mlb_check_enabled
cleanup
mlb_stop INT
note "spinner migrations (se.nr_migrations): $m0 -> $m1"
note "scx_mlb counters: taken $tk0 -> $tk1, steal $st0 -> $st1, steal_remote $sr0 -> $sr1"
[ "$MLB_RC" = 0 ] || fail "scx_mlb exit status $MLB_RC after SIGINT"
[ $((m1 - m0)) -gt 0 ] || fail "the spinners never migrated after the affinity change"
[ $((tk1 + st1 + sr1 - tk0 - st0 - sr0)) -gt 0 ] || fail "scx_mlb counted no migration (taken/steal/steal_remote unchanged)"
[ $good -ge 3 ] || fail "spread did not converge within ${BOUND}s: last [$sp] (want every domain 1..3 in 3 consecutive samples)"
[ "$conv" -le $((BOUND * 1000)) ] || fail "converged only after ${conv} ms (bound ${BOUND}s)"
printf 'balance: ok: converged in %d.%d s (bound %d s), final spread [%s]\n' $((conv / 1000)) $((conv % 1000 / 100)) "$BOUND" "$sp"
