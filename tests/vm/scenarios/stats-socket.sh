#!/usr/bin/env bash
# topo: flat4
# timeout: 300
# The stats socket while scx_mlb runs (--stats 1, two spinners so that the counters move):
# - it is at scx_stats' default path, a socket of root's with mode 0600; user nobody cannot
#   connect;
# - values: a Python client (its own JSON parser, not scx_mlb's) asks for stats three times;
#   each reply's values, as written, equal those of the stats line with the same t that
#   scx_mlb prints (the same keys, the domains as domN_KEY); stats_meta describes every key
#   the reply has; `scx_mlb --monitor 1` prints lines equal to the daemon's own;
# - garbage: bytes that are not JSON, wrong shapes, a NUL, deep nesting, an unknown target,
#   a line over 4 KiB, a half line then a hang-up, 20 connections at once, 200 requests in a
#   burst: each gets an error reply (errno EINVAL, E2BIG, EBUSY or EAGAIN) or its connection
#   closed, and afterwards a stats request is answered, with t later than before, and the
#   scheduler is still enabled;
# - SIGINT: exit 0 and the socket is gone.
source "$MLB_ROOT/tests/vm/scenario-lib.sh"
SOCK=/var/run/scx/root/stats
PY=/usr/bin/python3
[ -x $PY ] || skip "no $PY in the guest"
id nobody >/dev/null 2>&1 || skip "no user nobody"

mlb_start --stats 1
mlb_wait_enabled
spin_start 2
wait_stats 2 30
[ -S $SOCK ] || fail "no socket at $SOCK"
perm=$(stat -L -c '%a %U' $SOCK)
[ "$perm" = "600 root" ] || fail "socket $SOCK is '$perm', expected '600 root'"
rc=0
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all $PY - $SOCK <<'PY' || rc=$?
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except PermissionError:
    sys.exit(3)
PY
[ $rc = 3 ] || fail "user nobody connecting to $SOCK: exit $rc, expected 3 (permission denied)"

# The replies against the stats lines printed at the same time (same t).
$PY - $SOCK "$MLB_LOG" <<'PY' || fail "values: see above"
import json, socket, sys, time
path, log = sys.argv[1], sys.argv[2]

def ask(req):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(path)
    s.sendall((json.dumps(req) + "\n").encode())
    buf = b""
    while not buf.endswith(b"\n"):
        b = s.recv(65536)
        if not b:
            break
        buf += b
    s.close()
    # numbers kept as written: the line's text is compared, not a float
    return json.loads(buf, parse_float=str, parse_int=str)

def line_at(t):
    for _ in range(50):  # the line follows the record within the same loop pass
        for l in open(log, errors="replace"):
            if l.startswith("stats t=%s " % t):
                return l.split()[1:]
        time.sleep(0.1)
    sys.exit("FAIL: no stats line with t=%s" % t)

meta = ask({"req": "stats_meta", "args": {}})
if meta["errno"] != "0":
    sys.exit("FAIL: stats_meta: %s" % meta)
top = [m for m in meta["args"]["resp"].values() if m.get("top") == "true"]
if len(top) != 1:
    sys.exit("FAIL: stats_meta has %d top structs" % len(top))
fields = top[0]["fields"]
ts = []
for i in range(3):
    r = ask({"req": "stats", "args": {"target": "top"}})
    if r["errno"] != "0":
        sys.exit("FAIL: stats: %s" % r)
    resp = r["args"]["resp"]
    got = []
    for k, v in resp.items():
        if k not in fields:
            sys.exit("FAIL: key %s is not in stats_meta" % k)
        if k == "doms":
            for d, dv in v.items():
                got += ["dom%s_%s=%s" % (d, dk, x) for dk, x in dv.items()]
        else:
            got.append("%s=%s" % (k, v))
    want = line_at(resp["t"])
    if got != want:
        diff = [(a, b) for a, b in zip(got, want) if a != b][:5]
        sys.exit("FAIL: t=%s: reply and line differ (%d vs %d keys): %s"
                 % (resp["t"], len(got), len(want), diff or "key sets"))
    if int(resp["enq_cpu"]) + int(resp["direct"]) == 0:
        sys.exit("FAIL: t=%s: nothing counted" % resp["t"])
    ts.append(resp["t"])
    print("# t=%s: %d keys equal the stats line's" % (resp["t"], len(got)))
    time.sleep(1.1)
if len(set(ts)) < 2:
    sys.exit("FAIL: the replies did not follow the stats (t %s)" % ts)
PY

# --monitor: each of its lines is one of the daemon's.
"$MLB_BIN" --monitor 1 >"$MLB_OUT/monitor.out" 2>"$MLB_OUT/monitor.err" &
mon=$!
zzz 3.5
kill -INT $mon
wait $mon
rc=$?
[ $rc = 0 ] || fail "--monitor exit $rc after SIGINT: $(cat "$MLB_OUT/monitor.err")"
n=0
while IFS= read -r l; do
	grep -qxF -- "$l" "$MLB_LOG" || fail "--monitor printed a line the daemon did not: $l"
	n=$((n + 1))
done <"$MLB_OUT/monitor.out"
[ $n -ge 2 ] || fail "--monitor printed $n lines in 3.5 s"
note "--monitor: $n lines, each one of the daemon's"

# Garbage, then a good request still answered.
$PY - $SOCK <<'PY' || fail "garbage: see above"
import json, socket, sys, time
path = sys.argv[1]

def conn():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(path)
    return s

pending = {}  # per socket: bytes read past the last reply line


def reply(s):
    buf = pending.pop(s, b"")
    while b"\n" not in buf:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            b = b""  # closed with our unread bytes: a reset
        if not b:
            return None  # closed
        buf += b
    line, rest = buf.split(b"\n", 1)
    pending[s] = rest
    return json.loads(line)

def t_now():
    s = conn()
    s.sendall(b'{"req":"stats"}\n')
    r = reply(s)
    s.close()
    if not r or r["errno"] != 0:
        sys.exit("FAIL: a good request after garbage: %s" % r)
    return float(r["args"]["resp"]["t"])

t0 = t_now()
bad = [b"\x00\xff\xfe", b"{", b"[1,2]", b"stats", b'{"req":"stats","args":{"target":"nope"}}',
       b'{"req":"rm -rf /"}', b'{"req":"stats","req":"stats"}', b"{" * 3000,
       b'{"req":"stats"} trailing', b'{"req":"st\\u0000ats"}']
s = conn()
for b in bad:
    s.sendall(b + b"\n")
    r = reply(s)
    if not r or r["errno"] != 22 or not isinstance(r["args"]["resp"], str):
        sys.exit("FAIL: %r: reply %s, expected errno 22 with a reason" % (b[:40], r))
s.sendall(b'{"req":"stats"}\n')  # the same connection still serves
if reply(s)["errno"] != 0:
    sys.exit("FAIL: the connection no longer serves after errors")
s.sendall(b"x" * 10000 + b"\n")  # over the bound: E2BIG, then closed
r = reply(s)
if not r or r["errno"] != 7 or reply(s) is not None:
    sys.exit("FAIL: a 10000-byte line: %s, expected errno 7 and a close" % r)
s.close()
s = conn()  # a half line, then a hang-up
s.sendall(b'{"req":"sta')
s.close()
many, refused = [], 0  # 20 connections at once: at most 8 served
for i in range(20):
    try:
        many.append(conn())
    except (BlockingIOError, ConnectionRefusedError):
        refused += 1  # the listen backlog is full: the kernel refuses

for c in many:
    try:
        c.sendall(b'{"req":"stats"}\n')
    except OSError:
        pass  # refused and closed already
for c in many:
    try:
        r = reply(c)
    except OSError:
        r = None
    if r is None or r["errno"] == 16:
        refused += 1
    elif r["errno"] != 0:
        sys.exit("FAIL: among 20 connections: %s" % r)
for c in many:
    c.close()
if refused < 12:
    sys.exit("FAIL: only %d of 20 connections refused" % refused)
time.sleep(1.2)
s = conn()  # a burst of 200: the rate limit answers EAGAIN
s.sendall(b'{"req":"stats"}\n' * 200)
errs = {}
for i in range(200):
    r = reply(s)
    errs[r["errno"]] = errs.get(r["errno"], 0) + 1
s.close()
if set(errs) != {0, 11}:
    sys.exit("FAIL: a burst of 200 requests: errno counts %s, expected 0 and 11" % errs)
time.sleep(1.2)
t1 = t_now()
if t1 <= t0:
    sys.exit("FAIL: t did not advance: %s then %s" % (t0, t1))
print("# garbage: every bad request answered with an error; %d of 20 connections refused; "
      "burst %s; t %s -> %s" % (refused, errs, t0, t1))
PY
mlb_check_enabled "after the garbage"

spin_stop
mlb_stop INT
[ "$MLB_RC" = 0 ] || fail "exit status $MLB_RC after SIGINT, expected 0"
mlb_wait_state disabled 10
[ ! -e $SOCK ] || fail "$SOCK left behind after exit"
grep -q 'stats socket not served' "$MLB_LOG" && fail "the daemon said: $(grep 'stats socket' "$MLB_LOG")"
echo "stats-socket: ok"
