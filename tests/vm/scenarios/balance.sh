#!/usr/bin/env bash
# topo: numa2x2
# timeout: 600
# Load balancing across domains: 8 spinners start pinned to CPUs 0-1 (domain 0), then are
# allowed on all CPUs (sched_setaffinity, all at once). scx_mlb must migrate them (its
# taken/steal counters grow, the spinners' se.nr_migrations grow, its migr_chosen counter
# grows and at most 10% of its migrations are unchosen) and the spread must converge within
# BOUND: every domain (L3 group) holds NSPIN/domains +-1 spinners (8 in 4: 1..3) by
# `ps -o psr`, in 3 consecutive 1-s samples. The time to converge and the final spread (ideal: 2 2 2 2) are printed.
# The bound is measured, not a constant (it was 20 s, a good day's figure on a 2-core host):
# the same spinners go through the same release under EEVDF first, in the same boot, before
# scx_mlb attaches; its convergence time E (up to 60 s; 60 s when it never converges) says how
# fast this guest can spread them today. scx_mlb must converge within 3 E + 5 s: it balances
# every --interval-ms and idle CPUs pull at once, so it should be no slower than EEVDF; 3x
# and 5 s absorb the noise of TCG on a shared host and the 1-s sampling.
# BALANCE_BOUND_S fixes the bound instead.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
EEVDF_MAX_S=60
NSPIN=${NSPIN:-8}   # vm/balance-smt: 16, one per CPU; vm/balance-64: 64
EXPECT_ND=${EXPECT_ND:-4} # L3 groups (domains): vm/balance-64 has 8
# BOUND_RULE=domains: every domain holds NSPIN/domains +-1 spinners. BOUND_RULE=cpus (vm/balance-64,
# fewer spinners than CPUs): no two spinners share a CPU, i.e. none waits while a CPU idles.
BOUND_RULE=${BOUND_RULE:-domains}
ALL=0-$(($(nproc) - 1)) # every CPU
# CPU -> domain index, from the guest's L3 groups (0-1 2-3 4-5 6-7 expected; 0-3 4-7 8-11
# 12-15 in numa2x2smt, where vm/balance-smt runs this script).
declare -A dom_of=()
declare -A gid=()
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	g=$(cat $c/cache/index3/shared_cpu_list)
	[ -n "${gid[$g]+x}" ] || gid[$g]=${#gid[@]}
	dom_of[${c##*cpu}]=${gid[$g]}
done
ND=${#gid[@]}
[ "$ND" = "$EXPECT_ND" ] || fail "guest has $ND L3 groups, expected $EXPECT_ND"
PINNED="$NSPIN$(for ((d = 1; d < ND; d++)); do printf ' 0'; done)" # all in domain 0

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null; pids=(); }
trap cleanup EXIT
# spread: per-domain spinner counts -> SPREAD "c0 c1 c2 c3", MIN, MAX (no forks).
spread() {
	local -a cnt=() a
	local -A on=()
	local d p st
	for ((d = 0; d < ND; d++)); do cnt[d]=0; done
	CPU_MAX=0
	for p in "${pids[@]}"; do
		read -r st <"/proc/$p/stat" || continue
		st=${st##*) }
		read -r -a a <<<"$st"
		d=${dom_of[${a[36]}]}
		cnt[d]=$((cnt[d] + 1))
		on[${a[36]}]=$((${on[${a[36]}]:-0} + 1))
		((on[${a[36]}] > CPU_MAX)) && CPU_MAX=${on[${a[36]}]}
	done
	SPREAD="${cnt[*]}" MIN=${cnt[0]} MAX=${cnt[0]}
	for d in "${cnt[@]}"; do ((d < MIN)) && MIN=$d; ((d > MAX)) && MAX=$d; done
}
# nr_migr: sum of the spinners' se.nr_migrations -> MIGR
nr_migr() { # one awk, not a read per line: the shell gets little CPU beside 24 spinners
	local p f=()
	for p in "${pids[@]}"; do f+=("/proc/$p/sched"); done
	MIGR=$(awk '$1 == "se.nr_migrations" { s += $3 } END { print s + 0 }' "${f[@]}")
}
alive() { # fail fast when the scheduler died (scx_mlb's phase only)
	local st=""
	[ -n "$MLB_PID" ] || return 0
	read -r st <$SCX/state
	[ "$st" = enabled ] || { cleanup; mlb_check_enabled "$1"; }
}
# pin_spinners: start NSPIN spinners on CPUs 0-1, check for 4 s that they stay in domain 0
pin_spinners() {
	local i
	for ((i = 0; i < NSPIN; i++)); do
		taskset -c 0-1 bash -c 'while :; do :; done' &
		pids+=($!)
	done
	note "$1: spinners: ${pids[*]} (this shell: $$)"
	for i in 1 2 3 4; do zzz 1; alive "while the spinners were pinned to CPUs 0-1"; done
	spread
	note "$1: pinned to CPUs 0-1 for 4 s: per-domain spinners [$SPREAD]"
	[ "$SPREAD" = "$PINNED" ] || { cleanup; fail "$1: pinned spinners are not all in domain 0: [$SPREAD]"; }
}
# release LABEL LIMIT_MS: widen the affinity to every CPU, sample the spread every 1 s until 3
# consecutive samples are in bound or LIMIT_MS passed -> GOOD (consecutive good samples),
# CONV (ms to the first of them, empty if none), SP (last spread)
release() {
	local t0 el mn mx ok tag
	# one process widens them all: a taskset per spinner took 77 s for 24 on 64 vCPUs (a fork
	# and exec each, from 9p, under TCG) and released them one by one over that time
	python3 -I -S -c 'import os, sys
for p in sys.argv[2:]:
    os.sched_setaffinity(int(p), range(int(sys.argv[1]) + 1))' "${ALL#0-}" "${pids[@]}" ||
		fail "$1: cannot widen the spinners' affinity"
	t0=$(now_ms)
	note "$1: affinity widened to CPUs $ALL; sampling the spread every 1 s"
	GOOD=0 CONV=""
	while :; do
		zzz 1
		alive "after the affinity change"
		spread
		el=$(($(now_ms) - t0))
		SP=$SPREAD mn=$MIN mx=$MAX
		ok=0 tag=-
		if [ "$BOUND_RULE" = cpus ]; then
			((CPU_MAX == 1)) && ok=1 tag=in-bound
		else
			((mn >= NSPIN / ND - 1 && mx <= NSPIN / ND + 1)) && ok=1 tag=in-bound
		fi
		printf '# %s: t=%d.%ds spread [%s] max-min=%d most-on-one-cpu=%d %s\n' "$1" $((el / 1000)) $((el % 1000 / 100)) "$SP" $((mx - mn)) $CPU_MAX $tag
		if [ $ok = 1 ]; then
			GOOD=$((GOOD + 1))
			[ -n "$CONV" ] || CONV=$el
			[ $GOOD -ge 3 ] && break
		else
			GOOD=0 CONV=""
		fi
		# past LIMIT_MS, a streak of good samples that began in time may finish (its first
		# sample is what is judged against the bound), up to 2 x LIMIT_MS: slow sampling
		# (vm/balance-64: 6 s a sample) must not fail a spread that converged in time
		if [ "$el" -ge "$2" ] && { [ $GOOD = 0 ] || [ "$el" -ge $((2 * $2)) ]; }; then break; fi
	done
}

# The reference: EEVDF (sched_ext not attached yet), same spinners, same release.
need_mlb
pin_spinners EEVDF
release EEVDF $((EEVDF_MAX_S * 1000))
if [ $GOOD -ge 3 ]; then eevdf=$CONV; else eevdf=$((EEVDF_MAX_S * 1000)); fi
cleanup
BOUND_MS=$((3 * eevdf + 5000))
[ -n "${BALANCE_BOUND_S:-}" ] && BOUND_MS=$((BALANCE_BOUND_S * 1000))
note "EEVDF converged in $eevdf ms (good samples $GOOD, last [$SP]): scx_mlb's bound is $BOUND_MS ms"

mlb_start --stats 1
mlb_wait_enabled
wait_stats 1 30
pin_spinners scx_mlb
scan_stats
echo "$LAST_STATS"
tk0=$(last_stat taken) st0=$(last_stat steal) sr0=$(last_stat steal_remote)
mg0=$(held_stat migr) mc0=$(held_stat migr_chosen) mu0=$(held_stat migr_unchosen)
nr_migr
m0=$MIGR
release scx_mlb $((BOUND_MS + 3000))
good=$GOOD conv=$CONV sp=$SP
nr_migr
m1=$MIGR
cleanup # the counters below only grow: read them with the spinners gone (a free shell)
n=$(nstats)
wait_stats $((n + 1)) 10
echo "$LAST_STATS"
tk1=$(last_stat taken) st1=$(last_stat steal) sr1=$(last_stat steal_remote)
mg1=$(held_stat migr) mc1=$(held_stat migr_chosen) mu1=$(held_stat migr_unchosen)
mlb_check_enabled
mlb_stop INT
note "spinner migrations (se.nr_migrations): $m0 -> $m1"
note "scx_mlb counters: taken $tk0 -> $tk1, steal $st0 -> $st1, steal_remote $sr0 -> $sr1"
[ "$MLB_RC" = 0 ] || fail "scx_mlb exit status $MLB_RC after SIGINT"
note "scx_mlb migrations after the change: $((mg1 - mg0)), chosen $((mc1 - mc0)), unchosen $((mu1 - mu0))"
[ $((m1 - m0)) -gt 0 ] || fail "the spinners never migrated after the affinity change"
[ $((mc1 - mc0)) -gt 0 ] || fail "no chosen migration counted (migr_chosen unchanged)"
# Every change of CPU here is a decision of the seam (the spinners' affinity only widened):
# unchosen ones are the accounting's residue (races between a decision and the move; 9 of
# 499 in the first run), bounded at 10% of all.
[ $((10 * (mu1 - mu0))) -le $((mg1 - mg0)) ] || fail "unchosen migrations $((mu1 - mu0)) of $((mg1 - mg0)): over 10%"
[ $((tk1 + st1 + sr1 - tk0 - st0 - sr0)) -gt 0 ] || fail "scx_mlb counted no migration (taken/steal/steal_remote unchanged)"
[ $good -ge 3 ] || fail "spread did not converge within $BOUND_MS ms: last [$sp] (want $([ "$BOUND_RULE" = cpus ] && echo "every spinner alone on its CPU" || echo "every domain $((NSPIN / ND - 1))..$((NSPIN / ND + 1))") in 3 consecutive samples)"
[ "$conv" -le $BOUND_MS ] || fail "converged only after ${conv} ms (bound $BOUND_MS ms = 3 x EEVDF's $eevdf ms + 5 s)"
printf 'balance: ok: converged in %d.%d s (bound %d ms; EEVDF %d ms), final spread [%s]\n' $((conv / 1000)) $((conv % 1000 / 100)) "$BOUND_MS" "$eevdf" "$sp"
