"""The exec-gate service's per-command cost (issue 40 item 2), side by side in one run: `bash -c`,
the prefix whose supervisor it forks itself (a per-user install) and the prefix handing its
command to the exec-gate service (a system install: a connection, the set-up sent, a supervisor
forked by the service), interleaved, medians. The host's files are never touched: the script
re-runs itself in a private mount namespace with a copy of /etc (the service account and the
system config added) and empty /run and /var/lib; between rounds the system config is moved in
and out of place, which is what tells the prefix which kind of install it is in.
python3 service_cost.py PREFIX [ROUNDS] (root)."""
import os, shutil, statistics, subprocess, sys, tempfile, time

prefix = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 300
if os.environ.get("SERVICE_COST_IN_NAMESPACE") != "1":
    env = dict(os.environ, SERVICE_COST_IN_NAMESPACE="1")
    sys.exit(subprocess.run(["unshare", "-m", sys.executable] + sys.argv, env=env).returncode)

work = tempfile.mkdtemp()
sh = lambda cmd: subprocess.run(["bash", "-c", cmd], check=True)
sh("mount --make-rprivate /")
shutil.copytree("/etc", work + "/etc", symlinks=True)
taken = {l.split(":")[2] for f in ("passwd", "group") for l in open("/etc/" + f) if l.count(":") > 2}
uid = next(str(u) for u in range(990, 900, -1) if str(u) not in taken)
with open(work + "/etc/passwd", "a") as f:
    f.write("agent-guards:x:%s:%s::/nonexistent:/usr/sbin/nologin\n" % (uid, uid))
with open(work + "/etc/group", "a") as f:
    f.write("agent-guards:x:%s:\n" % uid)
os.makedirs(work + "/etc/agent-guards")
config, aside = "/etc/agent-guards/config.toml", "/etc/agent-guards/config.toml.aside"
with open(work + "/etc/agent-guards/config.toml.aside", "w") as f:
    f.write("# the system config of a system install\n")
sh("mount --bind %s/etc /etc && mount -t tmpfs none /run && mount -t tmpfs none /var/lib" % work)
service = subprocess.Popen([prefix, "--exec-gate-service"], stderr=subprocess.DEVNULL)
for _ in range(200):
    if os.path.exists("/run/agent-guards/exec-gate.sock"):
        break
    time.sleep(0.02)

script = ("source /nonexistent/.claude/shell-snapshots/snapshot-bash-0-bench.sh 2>/dev/null "
          "|| true && eval 'true' < /dev/null && pwd -P >| /dev/null")
home = tempfile.mkdtemp()
env = {k: v for k, v in os.environ.items() if k != "SERVICE_COST_IN_NAMESPACE"}
env.update(HOME=home, XDG_STATE_HOME=home + "/state", XDG_CONFIG_HOME=home + "/config",
           CLAUDE_CODE_SESSION_ID="service-cost-%d" % os.getpid())
variants = {
    "bash": (["bash", "-c", script], False),
    "forked": ([prefix, script], False),
    "service": ([prefix, script], True),
}
t = {k: [] for k in variants}
for _ in range(rounds):
    for k, (argv, system) in variants.items():
        os.rename(*((aside, config) if system else (config, aside))) if os.path.exists(
            aside if system else config) else None
        s = time.perf_counter()
        r = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        t[k].append((time.perf_counter() - s) * 1000)
        if r.returncode != 0:
            sys.exit("%s failed: %s" % (k, r.stderr.decode(errors="replace")))
service.kill()
m = {k: statistics.median(v) for k, v in t.items()}
print("load average %s; %d interleaved rounds, medians:" % (os.getloadavg(), rounds))
for k in variants:
    print("  %-8s %.3f ms" % (k, m[k]))
print("  the service's per-command cost: %+.3f ms (service - forked); forked over bash -c %.3f ms"
      % (m["service"] - m["forked"], m["forked"] - m["bash"]))
payload = '{"hook_event_name":"SessionEnd","session_id":"%s","reason":"other"}' % env["CLAUDE_CODE_SESSION_ID"]
subprocess.run([prefix], input=payload.encode(), env=env, capture_output=True)
