"""The home the second line's measuring scripts run their commands in (shared by
compare_builds.py and supervisor_cpu.py): the suite's protected folders (so the mount layer has
work), a repository `repo` on `main` with a linked worktree `wt`, and `bin/git`, a stand-in git
(a copy of /bin/true), so `'bin/git -C wt stash'` is judged by the whole pipeline on a real
repository, and `bin/gh`, a stand-in gh."""
import os, shutil, subprocess, tempfile, time


def make(prefix):
    home = tempfile.mkdtemp(prefix=prefix)
    for d in [".claude", ".local/state/agent-guards", ".config/agent-guards"]:
        os.makedirs(os.path.join(home, d), exist_ok=True)
    open(os.path.join(home, ".claude/settings.json"), "w").write("{}")
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid"]
    repo = os.path.join(home, "repo")
    subprocess.run(git + ["init", "-q", "-b", "main", "repo"], cwd=home, check=True)
    subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "a"], cwd=repo, check=True)
    subprocess.run(git + ["worktree", "add", "-q", "../wt"], cwd=repo, check=True)
    os.makedirs(os.path.join(home, "bin"))
    shutil.copy("/bin/true", os.path.join(home, "bin/git"))
    shutil.copy("/bin/true", os.path.join(home, "bin/gh"))
    # Files changed within a second of an opening are not kept (the supervisor's repo_cache).
    time.sleep(1.1)
    return home
