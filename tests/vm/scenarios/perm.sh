#!/usr/bin/env bash
# topo: flat4
# timeout: 300
# An unprivileged user can neither load nor replace the scheduler: scx_mlb run as "nobody"
# exits 3 with a one-line "permission denied" message and sched_ext stays disabled; while
# root's scx_mlb runs, nobody's attempt changes nothing (still attached, same process); and
# scx_mlb pins nothing in bpffs, so there is no map or program file to write to. Its state
# directory (0750) and dataset (0640) are root's: nobody can neither write the dataset nor
# put a model in place for the daemon to load (a group- or world-writable model file is
# refused: vm/bad-model).
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
id nobody >/dev/null 2>&1 || skip "no user nobody"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"; }

need_mlb
rc=0
as_nobody "$MLB_BIN" >"$MLB_OUT/nobody.out" 2>"$MLB_OUT/nobody.err" || rc=$?
note "as nobody: exit $rc: $(cat "$MLB_OUT/nobody.err")"
[ $rc = 3 ] || fail "unprivileged scx_mlb exited $rc, expected 3"
[ "$(wc -l <"$MLB_OUT/nobody.err")" = 1 ] || fail "unprivileged scx_mlb printed $(wc -l <"$MLB_OUT/nobody.err") error lines"
grep -q 'permission denied' "$MLB_OUT/nobody.err" || fail "the message does not say permission denied"
[ "$(rd $SCX/state)" = disabled ] || fail "state is $(rd $SCX/state) after the unprivileged attempt"

STATE=/tmp/mlb-perm
rm -rf $STATE
mlb_start --mode collect --state-dir $STATE --stats 1
mlb_wait_enabled
wait_stats 1 30
[ "$(stat -c %a $STATE)" = 750 ] || fail "state directory mode $(stat -c %a $STATE), expected 750"
[ "$(stat -c %a $STATE/dataset.csv)" = 640 ] || fail "dataset mode $(stat -c %a $STATE/dataset.csv), expected 640"
as_nobody sh -c "echo x >>$STATE/dataset.csv" 2>/dev/null && fail "nobody could append to the dataset"
corpus_model 2
model=$CORPUS_MODEL
as_nobody cp "$model" $STATE/model.mlb 2>/dev/null &&
	fail "nobody could put a model in the state directory"
[ ! -e $STATE/model.mlb ] || fail "a model appeared in the state directory"
pinned=$(find /sys/fs/bpf -mindepth 1 2>/dev/null | head -n 5)
[ -z "$pinned" ] || fail "files in bpffs while scx_mlb runs: $pinned"
rc=0
as_nobody "$MLB_BIN" >>"$MLB_OUT/nobody.out" 2>"$MLB_OUT/nobody.err" || rc=$?
note "as nobody while root's scheduler runs: exit $rc: $(cat "$MLB_OUT/nobody.err")"
[ $rc = 3 ] || fail "second unprivileged scx_mlb exited $rc, expected 3"
grep -q 'permission denied' "$MLB_OUT/nobody.err" || fail "the second message does not say permission denied"
mlb_check_enabled "after the unprivileged attempt"
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
echo "perm: ok"
