"""CPU the supervisor spends per exec, for one or more builds of second-line-exec.

python3 supervisor_cpu.py PROGRAM COUNT ROUNDS BIN [BIN ...]

Runs `bash -c` loops of COUNT execs of PROGRAM (each with bash's `>/dev/null 2>&1`, as in
`cargo bench -p second-line`) under each build, ROUNDS times, interleaved, and reads the
supervisor's task clock with `perf stat -p` for its whole life: CPU µs per loop iteration
(the exec's notification and the redirect's). Unlike wall-clock medians on a shared machine
this moves by a few per cent between runs. The home: gate_home.py. Root (for the layers) and
`perf` on PATH.
"""
import os, shutil, statistics, subprocess, sys, time
import gate_home

program, count, rounds, bins = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
home = gate_home.make("gate-cpu-")
env = dict(os.environ, HOME=home, CLAUDE_CODE_SESSION_ID="gate-cpu")
env.pop("AGENT_GUARDS_SECOND_LINE", None)
# The command waits for its marker file so perf is attached before the first exec.
script = f'while [ ! -e go ]; do sleep 0.01; done; for i in $(seq {count}); do {program} >/dev/null 2>&1; done'


def supervisor_of(pid):
    """The command's supervisor: a fork of second-line-exec (the command itself became bash)
    whose parent is not one too (its watchdog's parent is the supervisor)."""
    for _ in range(300):
        found = {}
        for p in os.listdir("/proc"):
            if not p.isdigit() or int(p) == pid:
                continue
            try:
                argv0 = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")[0]
                stat = open(f"/proc/{p}/stat").read()
                environ = open(f"/proc/{p}/environ", "rb").read()
            except OSError:
                continue
            mine = b"CLAUDE_CODE_SESSION_ID=gate-cpu" in environ
            if mine and argv0.endswith(b"second-line-exec"):
                found[int(p)] = int(stat.rsplit(")", 1)[1].split()[1])
        roots = [p for p, parent in found.items() if parent not in found]
        if roots:
            return roots[0]
        time.sleep(0.01)
    raise SystemExit("no supervisor found (the build must be named second-line-exec)")


results = {b: [] for b in bins}
for _ in range(rounds):
    for b in bins:
        marker = os.path.join(home, "go")
        if os.path.exists(marker):
            os.remove(marker)
        cmd = subprocess.Popen([b, "bash", "-c", script], env=env, cwd=home)
        try:
            sup = supervisor_of(cmd.pid)
        except SystemExit:
            # Its loop waits for a marker that would never come: never leave it running.
            cmd.kill()
            raise
        perf = subprocess.Popen(["perf", "stat", "-x,", "-e", "task-clock", "-p", str(sup)],
                                stderr=subprocess.PIPE, text=True)
        time.sleep(0.2)
        open(marker, "w").close()
        cmd.wait()
        err = perf.communicate()[1]
        if "task-clock" not in err:
            raise SystemExit(f"perf: {err}")
        ms = float(next(l for l in err.splitlines() if "task-clock" in l).split(",")[0])
        results[b].append(ms * 1000 / count)
for b, v in results.items():
    print(f"{program} | {b} | supervisor CPU per exec: median {statistics.median(v):.1f} µs "
          f"(runs: {', '.join(f'{x:.1f}' for x in v)})")
shutil.rmtree(home, ignore_errors=True)
