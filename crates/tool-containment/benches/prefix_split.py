"""The prefix's cost split by layer: `bash -c true`, the prefix with the second line off, and with
every layer on, 60 interleaved rounds each, medians. python3 prefix_split.py PATH/TO/tool-containment
(root, for the layers to be on). A sketch for finding where C8's time goes; the C8 figure itself is
`cargo bench -p tool-containment`."""
import os, subprocess, time, statistics, tempfile, sys
exe = sys.argv[1]
home = tempfile.mkdtemp()
base = dict(os.environ, HOME=home, XDG_STATE_HOME=home+"/state", XDG_CONFIG_HOME=home+"/config",
            CLAUDE_CODE_SESSION_ID="split-bench", AI_AGENT="claude-code_2-1-332_agent")
script = "true"
def run(argv, env):
    t = time.perf_counter(); subprocess.run(argv, env=env); return (time.perf_counter()-t)*1000
variants = {"bash": (["bash","-c",script], base),
            "prefix-2nd-off": ([exe, script], dict(base, AGENT_GUARDS_SECOND_LINE="off")),
            "prefix-on": ([exe, script], base)}
t = {k: [] for k in variants}
for _ in range(60):
    for k,(a,e) in variants.items():
        t[k].append(run(a,e))
for k in t: print(k, "median %.2f ms" % statistics.median(t[k]))
