"""Per-exec cost of two builds of second-line-exec side by side in one run.

python3 compare_builds.py BASE_BIN NEW_BIN PROGRAM ROUNDS COUNT [alone]

Runs `bash -c` loops of COUNT single execs of PROGRAM, each timed by bash with EPOCHREALTIME
inside the command (each with its own `>/dev/null 2>&1`, a notified write-open before the exec;
with `alone`, the output goes to /dev/null opened once for the loop and only the exec is timed), ROUNDS times per variant, interleaved: bash alone, each build with the
second line off (AGENT_GUARDS_SECOND_LINE=off) and on. Prints the medians (µs) and on - off per
build, then on - off at the 10th, 25th and 50th percentiles of each variant's execs: on this
shared VM noise only adds time, so the lower percentiles move least between runs. Root, for the
layers to be on. The home: gate_home.py.
"""
import os, subprocess, sys, statistics, shutil
import gate_home
base, new, program, rounds, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
alone = sys.argv[6:] == ["alone"]
home = gate_home.make("gate-pe-")
env = dict(os.environ, HOME=home, CLAUDE_CODE_SESSION_ID="gate-pe")
script = f'for i in $(seq {count}); do s=$EPOCHREALTIME; {program} >/dev/null 2>&1; e=$EPOCHREALTIME; echo "$s $e"; done'
if alone:
    script = f'exec 3>&1 >/dev/null 2>&1; for i in $(seq {count}); do s=$EPOCHREALTIME; {program}; e=$EPOCHREALTIME; echo "$s $e" >&3; done'
variants = {"bash": ([], {}), "base-off": ([base], {"AGENT_GUARDS_SECOND_LINE": "off"}), "base-on": ([base], {}),
            "new-off": ([new], {"AGENT_GUARDS_SECOND_LINE": "off"}), "new-on": ([new], {})}
t = {k: [] for k in variants}
for _ in range(rounds):
    for k, (pre, x) in variants.items():
        out = subprocess.run(pre + ["bash", "-c", script], env=dict(env, **x), cwd=home, capture_output=True, text=True).stdout
        for l in out.splitlines():
            a, b = l.split()
            t[k].append((float(b) - float(a)) * 1e6)
m = {k: statistics.median(v) for k, v in t.items()}
print(program, "(alone)" if alone else "(with its redirect)", "|", " | ".join(f"{k} {v:.0f}" for k, v in m.items()), f"| added: base {m['base-on']-m['base-off']:.0f} µs, new {m['new-on']-m['new-off']:.0f} µs (n={len(t['new-on'])})")
def pct(v, q):
    v = sorted(v)
    return v[len(v) * q // 100]


for b in ("base", "new"):
    print(f"  {b}: added at p10 / p25 / p50:", " / ".join(f"{pct(t[b + '-on'], q) - pct(t[b + '-off'], q):.0f}" for q in (10, 25, 50)), "µs")
shutil.rmtree(home, ignore_errors=True)
