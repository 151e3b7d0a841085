#!/usr/bin/env bash
# topo: numa2x2
# timeout: 480
# The state directory on a full file system: collect mode with the state on a 1 MiB tmpfs.
# Once the dataset has lines, a filler file takes the rest of the space: the daemon must say so
# once (one "dataset: No space left on device" line), keep scheduling (enabled, decisions go
# on), count the samples it cannot write (write_dropped grows), never leave a partial line,
# and write again once the filler is gone (samples written grow again).
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
STATE=/tmp/mlb-full
trap 'spin_stop; umount $STATE 2>/dev/null' EXIT
mkdir -p $STATE
mount -t tmpfs -o size=1m,mode=0750 tmpfs $STATE || skip "cannot mount a tmpfs"

mlb_start --mode collect --state-dir $STATE --stats 2
mlb_wait_enabled
mixed_load 6 before
wait_stats $(($(nstats) + 1)) 30
w0=$(last_stat samples)
[ "${w0:-0}" -gt 0 ] || fail "no samples written before the disk filled up"
note "before: $LAST_STATS"
dd if=/dev/zero of=$STATE/filler bs=4k 2>/dev/null
note "filler: $(du -k $STATE/filler | cut -f1) KiB, free: $(df -k $STATE | awk 'NR==2{print $4}') KiB"
mixed_load 10 full
wait_stats $(($(nstats) + 1)) 30
mlb_check_enabled "with the disk full"
d1=$(last_stat write_dropped)
w1=$(($(last_stat samples) - d1)) # written so far
note "full: $LAST_STATS"
[ "${d1:-0}" -gt 0 ] || fail "no sample counted as dropped while the disk was full"
n=$(grep -ac 'dataset: No space left on device' "$MLB_LOG")
[ "$n" = 1 ] || fail "the full disk was reported $n times, expected once"
rm -f $STATE/filler
mixed_load 6 after
wait_stats $(($(nstats) + 2)) 30
note "after: $LAST_STATS"
d2=$(last_stat write_dropped)
mlb_check_enabled "after the space came back"
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
rows=$("$MLB_ROOT/build/mlb-model" check $STATE/dataset.csv) || fail "dataset unreadable: $rows"
note "dataset: $rows; $(grep -a '^scx_mlb: summary:' "$MLB_LOG")"
written=$(summary_field records)
dropped=$(summary_field write_dropped)
rows=${rows#rows=}
rows=${rows%% *}
[ "$rows" = "$written" ] || fail "dataset has $rows rows, the daemon wrote $written"
[ "$written" -gt "$w1" ] || fail "nothing written after the space came back ($written, $w1 before)"
[ "$d2" = "$d1" ] || note "(samples were still dropped after the filler went: $d1 -> $d2)"
echo "disk-full: ok ($written written, $dropped dropped while full, reported once)"
