#!/usr/bin/env python3
"""What the user namespace (C10.namespace, issue 41 item 3) adds per agent command for a user
who is not root, side by side in one run on one build, interleaved (run as root; each variant
runs as uid 65534 through setpriv, whose own cost is on every side):

  bash       setpriv ... bash -c '<tool-shaped true>'
  no-userns  setpriv ... tool-containment '<same>'  (AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE=off,
             AGENT_GUARDS_SECOND_LINE_NO_NEW_PRIVS=1: the gate under no_new_privs, no mounts)
  userns     setpriv ... tool-containment '<same>'  (the default: user and mount namespace, the
             read-only mounts, the gate inside it, capabilities dropped)

Usage: python3 user_namespace_cost.py target/release/tool-containment [rounds]
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

binary, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200
home = tempfile.mkdtemp()
os.makedirs(os.path.join(home, ".claude"))
open(os.path.join(home, ".claude/settings.json"), "w").write("{}")
os.makedirs(os.path.join(home, "suite"))
own = os.path.join(home, "suite/tool-containment")
shutil.copy(binary, own)
subprocess.run(["chown", "-R", "65534:65534", home], check=True)
os.chmod(home, 0o755)
script = ("source /nonexistent/.claude/shell-snapshots/snapshot-bash-0-bench.sh 2>/dev/null "
          "|| true && eval 'true' < /dev/null && pwd -P >| /dev/null")
base = {"PATH": os.environ["PATH"], "HOME": home, "CLAUDE_CODE_SESSION_ID": "userns-bench",
        "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config"}
setpriv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
variants = {
    "bash": (setpriv + ["bash", "-c", script], base),
    "no-userns": (setpriv + [own, script], dict(base, AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE="off",
                                                AGENT_GUARDS_SECOND_LINE_NO_NEW_PRIVS="1")),
    "userns": (setpriv + [own, script], base),
}
times = {k: [] for k in variants}
for _ in range(rounds):
    for name, (argv, env) in variants.items():
        t = time.perf_counter()
        subprocess.run(argv, env=env, cwd=home, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append(time.perf_counter() - t)
med = {k: statistics.median(v) * 1000 for k, v in times.items()}
print(f"load average {os.getloadavg()}; {rounds} interleaved rounds, medians:")
for k, v in med.items():
    print(f"  {k:10} {v:.3f} ms")
print(f"  user namespace adds {med['userns'] - med['no-userns']:.3f} ms per command; "
      f"prefix over bash -c for this user {med['userns'] - med['bash']:.3f} ms")
shutil.rmtree(home, ignore_errors=True)
