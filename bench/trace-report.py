#!/usr/bin/env python3
"""Where a build's migrations come from: reads the ftrace text of bench/trace-guest.sh (one
file per scheduler: sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task) and
prints, per file, key=value lines and the top tasks.

    bench/trace-report.py build/trace/<run>/seq-eevdf.txt build/trace/<run>/seq-heuristic.txt

Migrations (sched_migrate_task, which the kernel emits only when the CPU changes, the events
perf counts as cpu-migrations) are split by how they happened:
  wake  the task's next event is its own sched_wakeup: placed at wake-up (select_task_rq,
        ops.select_cpu);
  other anything else: EEVDF's load balancing and exec balancing, scx_mlb's idle pulls.
Wake-ups of user tasks (not kernel threads, by name) are split by whether the CPU the task
last ran on was running something at the moment of the wake-up (prev busy) and whether the
task changed CPU (moved). Exit status 1 on an unreadable or empty trace.
"""
import collections
import re
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+):\s+(\w+):\s+(.*)$')
KV = re.compile(r'(\w+)=(\S+)')
KTHREAD = ('kworker', 'ksoftirqd', 'migration', 'rcu_', 'kdamond', 'kcompactd', 'khugepaged',
           'cpuhp', 'watchdog', 'kswapd', 'idle_inject', 'jbd2', 'kthreadd')


def events(path):
    out = []
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                out.append((int(m.group(3)), float(m.group(4)), m.group(5),
                            dict(KV.findall(m.group(6)))))
    return out


def report(path):
    ev = events(path)
    if not ev:
        print(f'trace-report: {path}: no events', file=sys.stderr)
        return False
    name = path.rsplit('/', 1)[-1].removeprefix('seq-').removesuffix('.txt')
    curr = {}                      # CPU -> pid running there (0: idle)
    comm = {}
    migr = collections.Counter()   # (kind, comm)
    wake = collections.Counter()   # (prev busy?, moved?)
    occupant = collections.Counter()
    pending = None                 # (pid, orig CPU) of the last sched_migrate_task
    for i, (cpu, t, kind, d) in enumerate(ev):
        if kind == 'sched_switch':
            curr[cpu] = int(d['next_pid'])
            comm[int(d['next_pid'])] = d['next_comm']
        elif kind == 'sched_migrate_task':
            pid = int(d['pid'])
            how = 'other'
            for _, _, k2, d2 in ev[i + 1:i + 40]:
                if k2 == 'sched_wakeup' and d2.get('pid') == d['pid']:
                    how = 'wake'
                    break
                if k2 == 'sched_switch' and d2.get('next_pid') == d['pid']:
                    break
            migr[(how, d['comm'])] += 1
            pending = (pid, int(d['orig_cpu']))
        elif kind == 'sched_wakeup':
            pid = int(d['pid'])
            tgt = int(d['target_cpu'])
            prev = pending[1] if pending and pending[0] == pid else tgt
            pending = None
            if d['comm'].startswith(KTHREAD):
                continue
            busy = curr.get(prev, 0) != 0
            wake[(busy, prev != tgt)] += 1
            if busy:
                occupant[comm.get(curr[prev], '?')] += 1
    tot = sum(migr.values())
    by = collections.Counter()
    for (how, _), n in migr.items():
        by[how] += n
    busy = wake[(True, True)] + wake[(True, False)]
    allw = sum(wake.values())
    kv = {
        'migrations': tot,
        'migr_wake': by['wake'],
        'migr_other': by['other'],
        'user_wakeups': allw,
        'user_wakeups_prev_busy': busy,
        'user_wakeups_prev_busy_moved': wake[(True, True)],
        'user_wakeups_prev_idle_moved': wake[(False, True)],
        'prev_busy_pct': f'{100 * busy / allw:.1f}' if allw else 'nan',
        'moved_when_busy_pct': f'{100 * wake[(True, True)] / busy:.1f}' if busy else 'nan',
    }
    for k, v in kv.items():
        print(f'{name}_{k}={v}')
    top = collections.Counter()
    for (how, c), n in migr.items():
        top[c] += n
    print(f'# {name}: migrations by task (wake + other):', ', '.join(
        f'{c} {migr[("wake", c)]}+{migr[("other", c)]}' for c, _ in top.most_common(8)))
    print(f'# {name}: a user wake-up found its previous CPU running:', ', '.join(
        f'{c} {n}' for c, n in occupant.most_common(6)))
    return True


if __name__ == '__main__':
    if len(sys.argv) < 2:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        sys.exit(2)
    ok = all([report(p) for p in sys.argv[1:]])
    sys.exit(0 if ok else 1)
