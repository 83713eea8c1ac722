//! A user namespace for everyone (issue 41 item 3, C10.namespace), through the prefix's real
//! steps, as root and as uid 65534: a protected file under the user's home is read-only inside
//! an agent command (EROFS, with the I3 line); the calls that would undo the mounts or leave the
//! namespaces (`mount`, `umount2`, `mount_setattr`, `unshare`, `clone` of a new namespace,
//! `setns`, `ptrace` attach) fail; a non-root command holds no capability; and ordinary work
//! (threads, forks, a write in the project, a commit in a worktree, `cargo --version`) runs.

mod common;
use common::*;
use std::process::Command;

/// Each probe prints `<name> <errno>` (0: it worked). Run as `python3 -c PROBE <protected file>`.
const PROBE: &str = r#"
import ctypes, os, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
def errno_of(r):
    return 0 if r >= 0 else ctypes.get_errno()
target = sys.argv[1].encode()
try:
    open(target, "a").close()
    print("write-protected 0")
except OSError as e:
    print("write-protected", e.errno)
MS_BIND, MS_REMOUNT = 4096, 32
print("mount-remount-rw", errno_of(libc.mount(None, target, None, MS_BIND | MS_REMOUNT, None)))
print("mount-bind", errno_of(libc.mount(b"/tmp", target, None, MS_BIND, None)))
print("umount2", errno_of(libc.umount2(target, 2)))
attr = (ctypes.c_uint64 * 4)(0, 1, 0, 0)  # clear MOUNT_ATTR_RDONLY
print("mount_setattr", errno_of(libc.syscall(442, -100, target, 0, attr, 32)))
print("unshare-user", errno_of(libc.unshare(0x10000000)))
print("unshare-mount", errno_of(libc.unshare(0x20000)))
print("unshare-files", errno_of(libc.unshare(0x400)))
print("setns", errno_of(libc.setns(os.open("/proc/self/ns/mnt", os.O_RDONLY), 0)))
# clone(CLONE_NEWUSER | SIGCHLD) through the raw call: a child would return 0 and exit.
pid = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)
if pid == 0:
    os._exit(0)
print("clone-newns", errno_of(pid))
if pid > 0:
    os.waitpid(pid, 0)
print("clone3", errno_of(libc.syscall(435, ctypes.create_string_buffer(88), 88)))
parent = os.getppid()
r = libc.ptrace(16, parent, 0, 0)
print("ptrace-attach", errno_of(r))
if r == 0:
    os.waitpid(parent, 0x40000000)
    libc.ptrace(17, parent, 0, 0)
out = []
t = threading.Thread(target=lambda: out.append(1)); t.start(); t.join()
print("thread", 0 if out else 1)
child = os.fork()
if child == 0:
    os._exit(7)
print("fork", os.WEXITSTATUS(os.waitpid(child, 0)[1]) - 7)
"#;

/// The refusals every user gets: each probe and the errno it must fail with.
const REFUSED: &[(&str, i32)] = &[
    ("write-protected", libc::EROFS),
    ("mount-remount-rw", libc::EPERM),
    ("mount-bind", libc::EPERM),
    ("umount2", libc::EPERM),
    ("mount_setattr", libc::EPERM),
    ("unshare-user", libc::EPERM),
    ("unshare-mount", libc::EPERM),
    ("setns", libc::EPERM),
    ("clone-newns", libc::EPERM),
    ("clone3", libc::ENOSYS),
    ("ptrace-attach", libc::EPERM),
];

/// What must keep working.
const WORKS: &[&str] = &["unshare-files 0", "thread 0", "fork 0"];

/// Ordinary work in the command: a project file, a commit in a new worktree, cargo.
const WORK: &str = "echo work > src/new.txt && echo project-write ok; \
    git -C repo worktree add -q ../wt -b wt && echo change > wt/f && git -C wt add f && \
    git -C wt -c user.email=a@b -c user.name=n commit -q -m two && echo worktree-commit ok; \
    cargo --version >/dev/null 2>&1; echo cargo $?";

/// The probe and the work as one script, with `python` the interpreter to use.
fn script(w: &World, python: &str) -> String {
    let protected = w.home().join(".claude/settings.json");
    format!(
        "grep -E '^Cap(Eff|Bnd)' /proc/self/status; {python} -c '{}' {}; {WORK}; \
         unshare -m true; echo unshare-tool $?",
        PROBE.replace('\'', "'\\''"),
        protected.display()
    )
}

/// A repository with one commit in the project (`repo`).
fn repository(w: &World) {
    let repo = w.project().join("repo");
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=n", "-C"])
            .arg(&repo)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap();
        assert!(ok.success());
    };
    std::fs::create_dir_all(&repo).unwrap();
    git(&["init", "-q", "-b", "main"]);
    git(&["commit", "-q", "--allow-empty", "-m", "one"]);
}

/// Asserts the refusals and the ordinary work in one command's output.
fn check(out: &str, protected: &str) {
    for (probe, errno) in REFUSED {
        assert!(
            out.contains(&format!("\n{probe} {errno}\n")),
            "{probe} must fail with errno {errno}:\n{out}"
        );
    }
    for ok in WORKS {
        assert!(out.contains(ok), "{ok}:\n{out}");
    }
    for ok in ["project-write ok", "worktree-commit ok"] {
        assert!(out.contains(ok), "{ok}:\n{out}");
    }
    assert!(out.contains("unshare-tool 1"), "unshare(1) refused:\n{out}");
    assert!(
        out.contains(&format!("agent-guards: refused writing {protected} (I3.")),
        "the I3 line:\n{out}"
    );
}

#[test]
fn as_root_the_namespace_calls_are_refused_and_ordinary_work_runs() {
    let Some(w) = root_world("userns-root") else {
        return;
    };
    repository(&w);
    // rustup finds its toolchains through RUSTUP_HOME, or the real home the test's HOME hides.
    let mut w = w;
    for (k, default) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
        let real = std::env::var(k)
            .unwrap_or_else(|_| format!("{}/{default}", std::env::var("HOME").unwrap()));
        w.env(k, &real);
    }
    let out = w.ran("bash", &["-c", &script(&w, "python3")]);
    let all = format!("\n{}\n{}", out.stdout, out.stderr);
    let protected = w.home().join(".claude/settings.json");
    check(&all, &protected.display().to_string());
    let plain = w.plain("cargo", &["--version"]).output().unwrap();
    assert!(plain.status.success());
    assert!(
        all.contains("cargo 0"),
        "cargo runs as it does plain:\n{all}"
    );
}

#[test]
fn as_a_non_root_user_protected_files_are_read_only_and_no_capability_is_left() {
    if !is_root() {
        eprintln!("skipped: needs root to become uid 65534");
        return;
    }
    let w = nobodys_world("userns-nobody");
    let repo_owner = w.project();
    repository(&w);
    let chowned = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&repo_owner)
        .status()
        .unwrap();
    assert!(chowned.success());
    let protected = w.home().join(".claude/settings.json");
    let before = std::fs::read_to_string(&protected).unwrap();
    let out = format!("\n{}", as_nobody(&w, true, &script(&w, "/usr/bin/python3")));
    check(&out, &protected.display().to_string());
    assert_eq!(std::fs::read_to_string(&protected).unwrap(), before);
    // No capability inside, none to regain by an exec.
    assert!(out.contains("CapEff:\t0000000000000000"), "{out}");
    assert!(out.contains("CapBnd:\t0000000000000000"), "{out}");
    // cargo as it is without the prefix for this user (here it cannot reach /root's toolchain
    // either way; the root test runs it for real).
    let plain = as_nobody(&w, false, "cargo --version >/dev/null 2>&1; echo cargo $?");
    let cargo = plain.lines().find(|l| l.starts_with("cargo ")).unwrap();
    assert!(out.contains(&format!("\n{cargo}\n")), "{cargo}:\n{out}");
}

#[test]
fn as_a_non_root_user_who_keeps_sudo_there_is_no_namespace_and_report_says_so() {
    if !is_root() {
        eprintln!("skipped: needs root to become uid 65534");
        return;
    }
    let mut w = nobodys_world("userns-off");
    w.env("AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE", "off");
    let out = as_nobody(
        &w,
        true,
        "grep -c . /proc/self/uid_map; readlink /proc/self/ns/user",
    );
    let plain = as_nobody(
        &w,
        false,
        "grep -c . /proc/self/uid_map; readlink /proc/self/ns/user",
    );
    assert_eq!(out, plain, "the host's user namespace");
    let w = nobodys_world("userns-report");
    let report = as_nobody(&w, false, &format!("{} --report", own_binary(&w).display()));
    assert!(
        report.contains(
            "protected files read-only (mount namespace): active (not root: a user namespace"
        ),
        "{report}"
    );
}

#[test]
fn where_the_kernel_refuses_the_namespace_report_says_so_in_one_line_with_the_fix() {
    // No sysctl can be turned off here; inside an agent command the filter refuses
    // unshare(CLONE_NEWUSER) the same way, so `--report` run there meets a refusing kernel.
    if !is_root() {
        eprintln!("skipped: needs root to become uid 65534");
        return;
    }
    let w = nobodys_world("userns-refused");
    let report = as_nobody(&w, true, &format!("{} --report", own_binary(&w).display()));
    let mount: Vec<&str> = report
        .lines()
        .filter(|l| l.contains("protected files read-only"))
        .collect();
    assert_eq!(mount.len(), 1, "{report}");
    assert!(mount[0].contains(": off (C10.namespace: "), "{report}");
    assert!(mount[0].contains("fix: "), "{report}");
    assert!(
        report.contains("exec gate (seccomp user notification): off")
            && report.contains("AGENT_GUARDS_SECOND_LINE_NO_NEW_PRIVS=1"),
        "{report}"
    );
}
