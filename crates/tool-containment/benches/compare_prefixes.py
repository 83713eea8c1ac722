"""Two builds of the prefix side by side in one run (C8): `bash -c`, BASE and NEW on the same
tool-shaped agent command, interleaved, medians and each build's overhead over `bash -c`.
python3 compare_prefixes.py BASE NEW [ROUNDS] (root, for every layer and a cgroup backend)."""
import os, statistics, subprocess, sys, tempfile, time
base, new = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 300
home = tempfile.mkdtemp()
env = dict(os.environ, HOME=home, XDG_STATE_HOME=home + "/state", XDG_CONFIG_HOME=home + "/config",
           CLAUDE_CODE_SESSION_ID="compare-prefixes-%d" % os.getpid())
script = ("source /nonexistent/.claude/shell-snapshots/snapshot-bash-0-bench.sh 2>/dev/null "
          "|| true && eval 'true' < /dev/null && pwd -P >| /dev/null")
variants = {"bash": ["bash", "-c", script], "base": [base, script], "new": [new, script]}
t = {k: [] for k in variants}
for _ in range(rounds):
    for k, argv in variants.items():
        s = time.perf_counter()
        subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        t[k].append((time.perf_counter() - s) * 1000)
m = {k: statistics.median(v) for k, v in t.items()}
print("load average %s; %d interleaved rounds, medians:" % (os.getloadavg(), rounds))
for k in variants:
    print("  %-5s %.3f ms" % (k, m[k]))
print("  overhead over bash -c: base %.3f ms, new %.3f ms (new - base %+.3f ms)"
      % (m["base"] - m["bash"], m["new"] - m["bash"], m["new"] - m["base"]))
# SessionEnd removes the run's groups.
payload = '{"hook_event_name":"SessionEnd","session_id":"%s","reason":"other"}' % env["CLAUDE_CODE_SESSION_ID"]
subprocess.run([new], input=payload.encode(), env=env, capture_output=True)
