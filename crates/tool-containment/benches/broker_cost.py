"""The credential broker's per-command cost (C11: at most 1 ms), side by side in one run: `bash -c`,
the prefix with no GitHub token anywhere (the broker is off: its look for credentials is all it
costs) and the prefix with a token in gh's hosts.yml (the session's broker runs: the record read,
the environment, the credential file shown through the mount namespace), interleaved, medians.
python3 broker_cost.py PREFIX [ROUNDS] (root, for every layer and a cgroup backend)."""
import os, statistics, subprocess, sys, tempfile
import time
prefix = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 300
script = ("source /nonexistent/.claude/shell-snapshots/snapshot-bash-0-bench.sh 2>/dev/null "
          "|| true && eval 'true' < /dev/null && pwd -P >| /dev/null")


def session(tag, token):
    home = tempfile.mkdtemp()
    if token:
        os.makedirs(home + "/config/gh")
        with open(home + "/config/gh/hosts.yml", "w") as f:
            f.write("github.com:\n    oauth_token: ghp_benchBENCHbenchBENCHbench0123456789\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN")}
    env.update(HOME=home, XDG_STATE_HOME=home + "/state", XDG_CONFIG_HOME=home + "/config",
               CLAUDE_CODE_SESSION_ID="broker-cost-%s-%d" % (tag, os.getpid()))
    return env


variants = {
    "bash": (["bash", "-c", script], session("bash", False)),
    "no-token": ([prefix, script], session("off", False)),
    "broker": ([prefix, script], session("on", True)),
}
t = {k: [] for k in variants}
for _ in range(rounds):
    for k, (argv, env) in variants.items():
        s = time.perf_counter()
        subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        t[k].append((time.perf_counter() - s) * 1000)
m = {k: statistics.median(v) for k, v in t.items()}
print("load average %s; %d interleaved rounds, medians:" % (os.getloadavg(), rounds))
for k in variants:
    print("  %-8s %.3f ms" % (k, m[k]))
print("  the broker's per-command cost: %.3f ms (broker - no-token); no-token over bash -c %.3f ms"
      % (m["broker"] - m["no-token"], m["no-token"] - m["bash"]))
for k in ("no-token", "broker"):
    env = variants[k][1]
    payload = '{"hook_event_name":"SessionEnd","session_id":"%s","reason":"other"}' % env["CLAUDE_CODE_SESSION_ID"]
    subprocess.run([prefix], input=payload.encode(), env=env, capture_output=True)
