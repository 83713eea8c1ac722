//! Paths as the calling process sees them (issue 41): `/proc/self/...`, `/dev/fd/...` and the
//! magic links `/proc/<pid>/cwd` and `/fd/<n>` were resolved in the supervisor's own view, so a
//! program run as `/proc/self/fd/N` was not found and ran unjudged, and a write through
//! `/proc/self/cwd/...` or `/dev/fd/../cwd/...` was not seen as the protected file it is. An
//! anonymous program (a memfd) has no path to judge: refused as unjudged. Root only.

mod common;
use common::*;

const RUNS: &str = r#"
import os, subprocess, sys
def run(label, argv, **kw):
    try:
        subprocess.run(argv, stdout=subprocess.DEVNULL, **kw)
        print(label, "ran")
    except PermissionError:
        print(label, "refused")
claude = os.path.join(sys.argv[1], "claude")
fd = os.open(claude, os.O_RDONLY)
run("fd-claude", ["/proc/self/fd/%d" % fd, "--model", "fable"], pass_fds=[fd])
run("devfd-claude", ["/dev/fd/%d" % fd, "--model", "fable"], pass_fds=[fd])
m = os.memfd_create("x", 0)
os.write(m, open("/bin/true", "rb").read())
run("memfd", ["/proc/self/fd/%d" % m], pass_fds=[m])
run("true", ["/bin/true"])
os.chdir(sys.argv[2])
for path in ["/proc/self/cwd/.claude/settings.json", "/dev/fd/../cwd/.claude/settings.json"]:
    try:
        open(path, "a").close()
        print(path, "written")
    except OSError as e:
        print(path, "errno", e.errno)
"#;

#[test]
fn programs_and_writes_named_through_the_callers_proc_are_judged_as_what_they_are() {
    let Some(w) = root_world("callers-view") else {
        return;
    };
    let bin = w.bin_dir();
    let home = w.home();
    let out = w.ran(
        "/usr/bin/python3",
        &["-c", RUNS, bin.to_str().unwrap(), home.to_str().unwrap()],
    );
    out.prints(&[
        "fd-claude refused",
        "devfd-claude refused",
        "memfd refused",
        "true ran",
        &format!("/proc/self/cwd/.claude/settings.json errno {}", libc::EROFS),
        &format!("/dev/fd/../cwd/.claude/settings.json errno {}", libc::EROFS),
    ])
    .says(&[
        "(M3.launch",
        "C10.unjudged: the exec could not be judged: the program is an anonymous or deleted file",
        "agent-guards: refused writing",
    ]);
    // Both writes are refused by the supervisor with its line, not only by the mount.
    assert_eq!(
        out.said("agent-guards: refused writing"),
        2,
        "{}",
        out.stderr
    );
}

#[test]
fn a_refusal_reaches_the_commands_stderr_when_the_refused_process_hides_its_own() {
    // Issue 41: the line was written only to the refused process's stderr; `2>/dev/null` hid
    // why its exec failed. It now reaches the command's own stderr too, once.
    let Some(w) = root_world("told-command") else {
        return;
    };
    let line = "agent-guards: refused claude --model fable (M3.launch";
    // Hidden by the refused process: said on the command's stderr.
    let out = w.ran(
        "bash",
        &["-c", "claude --model fable 2>/dev/null; echo rc $?"],
    );
    out.prints(&["rc 126"]);
    assert_eq!(out.said(line), 1, "{}", out.stderr);
    // On the command's own stderr already: not written twice.
    let out = w.ran("bash", &["-c", "claude --model fable; echo rc $?"]);
    out.prints(&["rc 126"]);
    assert_eq!(out.said(line), 1, "{}", out.stderr);
}

#[test]
fn a_folder_that_holds_a_protected_path_is_not_renamed_or_removed() {
    // Issue 41: renaming a parent of a protected path (`~/.claude`, `~/.config`) replaced
    // everything under it, read-only mounts included. An unrelated folder still moves.
    let Some(w) = root_world("ancestors") else {
        return;
    };
    let script = r#"cd "$HOME"; mkdir -p notes
for c in "mv .claude claude-old" "mv .config config-old" "rm -rf .local/state" "mv notes notes-old"; do
  $c 2>/dev/null; echo "$c => $?"
done"#;
    let out = w.ran("bash", &["-c", script]);
    out.prints(&[
        "mv .claude claude-old => 1",
        "mv .config config-old => 1",
        "rm -rf .local/state => 1",
        "mv notes notes-old => 0",
    ]);
    assert!(w.home().join(".claude/settings.json").exists());
    assert!(w.home().join(".config/agent-guards/config.toml").exists());
    assert!(
        out.said("agent-guards: refused writing") >= 3,
        "{}",
        out.stderr
    );
}
