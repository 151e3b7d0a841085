#!/usr/bin/env bash
# unit/bad-args: every scx_mlb option given a malformed or out-of-range value (and unknown
# options, stray arguments) gets exactly one line on stderr, nothing on stdout, exit 2; the
# ends of every range are accepted. Runs on the host: arguments are checked before anything
# touches the kernel.
#
# The options come from build/mlb-docs option-list, printed from the table that generates the
# parser (include/mlb/options.h): for each number, the malformed values below, lo - 1 (when
# lo > 0) and hi + 1 must be refused, the last two with the parser's exact line naming lo and
# hi, and lo and hi accepted (all options at lo in one run, all at hi in another); for each
# choice, an empty, an unknown and an upper-case value are refused
# and every value accepted; an empty string is refused; a flag takes no value.
set -u
cd "$(dirname "$0")/../.."
bin=build/scx_mlb gen=build/mlb-docs
[ -x "$bin" ] || { echo "not built: $bin"; exit 1; }
[ -x "$gen" ] || { echo "not built: $gen"; exit 1; }
out=/tmp/bad-args.$$ state=/tmp/bad-args-state.$$
trap 'rm -rf "$out" "$state"' EXIT
fails=0 n=0
want= # the exact line check() expects on stderr, when set
check() { # ARGS... : must be refused with one line and exit 2
	local so err rc
	so=$("$bin" "$@" 2>"$out")
	rc=$?
	err=$(cat "$out")
	n=$((n + 1))
	if [ $rc -ne 2 ] || [ -n "$so" ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [ -z "$err" ] ||
		{ [ -n "$want" ] && [ "$err" != "$want" ]; }; then
		echo "FAIL: scx_mlb $* -> exit $rc, stdout '$so', stderr '$err'${want:+ (want '$want')}"
		fails=$((fails + 1))
	fi
	want=
}
# Valid options must get past the parser and stop at the kernel check: exit 3 with one line,
# "no sched_ext" (this host) or "permission denied". Nothing else: a crash (139), a hang (124)
# or exit 2 is a failure. It must never attach a scheduler, even run as root on a sched_ext
# host: as root it runs without CAP_SYS_ADMIN (setpriv drops it from the bounding set, so
# root's effective set lacks it too), which scx_mlb checks before loading anything (and the
# kernel would refuse the load anyway); as another user it has no CAP_SYS_ADMIN.
nocap=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || { echo "FAIL: setpriv (util-linux) is needed to drop CAP_SYS_ADMIN"; exit 1; }
	nocap=(setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin)
fi
accept() { # WHAT ARGS... : must pass the parser
	local what=$1 err rc
	shift
	timeout 20 "${nocap[@]}" "$bin" "$@" >"$out" 2>&1
	rc=$?
	err=$(cat "$out")
	n=$((n + 1))
	if [ $rc -ne 3 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] ||
		! [[ $err == *"has no sched_ext"* || $err == *"permission denied"* ]]; then
		echo "FAIL: $what: scx_mlb $* -> exit $rc (want 3, the kernel check), output '$err'"
		fails=$((fails + 1))
	fi
}

list=$("$gen" option-list) || { echo "FAIL: mlb-docs option-list"; exit 1; }
at_lo=() at_hi=() nums=0
while read -r name kind lo hi choices; do
	case $kind in
	num | pow2)
		nums=$((nums + 1))
		for v in "" abc -1 12x 0x10 " 5" 99999999999999999999999 1.5; do
			check "$name=$v"
		done
		range="expected an integer from $lo to $hi" # the parser's words, exactly
		[ "$lo" -gt 0 ] && want="scx_mlb: invalid $name '$((lo - 1))': $range" &&
			check "$name=$((lo - 1))"
		want="scx_mlb: invalid $name '$((hi + 1))': $range"
		check "$name=$((hi + 1))"
		[ "$kind" = pow2 ] && check "$name=$((lo + 1))" # in range, not a power of two
		at_lo+=("$name=$lo")
		# --monitor above 0 is a client of a running scx_mlb, not a scheduler: below
		[ "$name" = --monitor ] || at_hi+=("$name=$hi")
		;;
	flag)
		check "$name=1"
		case $name in --help | --version) ;; # they answer and exit 0: tested below
		*)
			at_lo+=("$name")
			at_hi+=("$name")
			;;
		esac
		;;
	string)
		check "$name="
		at_lo+=("$name=$state")
		at_hi+=("$name=$state")
		;;
	choice)
		IFS=, read -r -a vals <<<"$choices"
		check "$name="
		check "$name=no-such-${name#--}"
		check "$name=${vals[0]^^}" # values are lower case
		at_lo+=("$name=${vals[0]}")
		at_hi+=("$name=${vals[-1]}")
		for v in "${vals[@]:1:${#vals[@]}-2}"; do accept "$name $v" "$name=$v"; done
		;;
	*)
		echo "FAIL: option-list: $name has an unknown kind '$kind'"
		fails=$((fails + 1))
		;;
	esac
done <<<"$list"
[ "$nums" -ge 20 ] || { echo "FAIL: option-list lists $nums numeric options"; fails=$((fails + 1)); }
accept "every option at its lowest" "${at_lo[@]}"
accept "every option at its highest" "${at_hi[@]}"

# The short forms, the value a separate argument (these pin a few ranges by hand).
check -s 99
check -s 1000001
check -i 0
check -i 10001
check -I 0
check -N 1001
check -S 3601
check -m COLLECT
check -s # missing value
check --ring-kb 100 # in range, not a power of two
check --no-such-option
check -Z
check stray-argument
check --steal-min 2 # options of the shared-queue design, gone with it
check --affine-scan 4
# --help and --version answer on stdout and exit 0.
n=$((n + 1))
"$bin" --help | grep -q '^EXAMPLES:' && "$bin" -h | grep -q -- '--slice-us' ||
	{ echo "FAIL: --help"; fails=$((fails + 1)); }
n=$((n + 1))
# the version, the git revision of this tree, and the ops name made of both
ver=$(sed -n 's/^#define MLB_VERSION "\(.*\)"$/\1/p' include/mlb/intf.h)
if rev=$(git describe --always --dirty=_dirty --abbrev=7 --match=NONE 2>/dev/null); then
	rev=g$rev
else
	rev='[a-z0-9_]*'
fi
[ "$("$bin" --version)" = "$("$bin" -V)" ] &&
	"$bin" --version | grep -qx "scx_mlb $ver ($rev, ops scx_mlb_${ver}_$rev)" ||
	{ echo "FAIL: --version: $("$bin" -V), expected version $ver, revision $rev"; fails=$((fails + 1)); }
# --monitor SEC loads nothing: with no scx_mlb at the socket it says so in one line, exit 3,
# before any kernel check (it runs on this host without sched_ext and as root alike).
n=$((n + 1))
err=$(timeout 20 "$bin" --monitor 3600 --stats-socket "$state/none" 2>&1 >/dev/null)
rc=$?
if [ $rc -ne 3 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [[ $err != "scx_mlb: monitor: $state/none: "* ]]; then
	echo "FAIL: --monitor with no server -> exit $rc, stderr '$err' (want 3, one line)"
	fails=$((fails + 1))
fi
echo "bad-args: $n cases, $fails failed"
[ $fails -eq 0 ]
