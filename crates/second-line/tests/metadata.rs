//! Metadata changes on protected paths (issue 41 item 2, I3.metadata), as root and as uid
//! 65534: `chmod`, `chown`, `utime`, `setxattr`, `removexattr` by path, by descriptor and with
//! `AT_EMPTY_PATH` on a registration, and `chmod 000` on the `.claude` folder that holds it
//! (which the read-only mounts do not cover: the folder itself is no mount point, and a folder
//! the CLI cannot read hides every hook in it), each refused with EROFS, one I3.metadata line
//! and a record; the same calls on a project file work.

mod common;
use common::*;

/// `python3 -c PROBE <path>...`: each call on each path, printed as `<call> <path> <errno>`.
const PROBE: &str = r#"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, path, f):
    try:
        r = f()
        if isinstance(r, int) and r < 0:
            print(name, path, ctypes.get_errno()); return
        print(name, path, 0)
    except OSError as e:
        print(name, path, e.errno)
uid, gid = os.getuid(), os.getgid()
for p in sys.argv[1:]:
    attempt("chmod", p, lambda: os.chmod(p, 0o600))
    attempt("chmod-nofollow", p, lambda: os.chmod(p, 0o600, follow_symlinks=False))
    attempt("chown", p, lambda: os.chown(p, uid, gid))
    attempt("lchown", p, lambda: os.lchown(p, uid, gid))
    attempt("utime", p, lambda: os.utime(p, (1, 1)))
    attempt("setxattr", p, lambda: os.setxattr(p, "user.agent", b"x"))
    attempt("removexattr", p, lambda: os.removexattr(p, "user.agent"))
    fd = os.open(p, os.O_RDONLY)
    attempt("fchmod", p, lambda: os.fchmod(fd, 0o600))
    attempt("fchown", p, lambda: os.fchown(fd, uid, gid))
    attempt("futime", p, lambda: os.utime(fd, (1, 1)))
    attempt("fsetxattr", p, lambda: os.setxattr(fd, "user.agent", b"y"))
    # fchownat(fd, "", uid, gid, AT_EMPTY_PATH)
    attempt("fchownat-empty", p, lambda: libc.syscall(260, fd, b"", uid, gid, 0x1000))
    os.close(fd)
"#;

const CALLS: &[&str] = &[
    "chmod",
    "chmod-nofollow",
    "chown",
    "lchown",
    "utime",
    "setxattr",
    "removexattr",
    "fchmod",
    "fchown",
    "futime",
    "fsetxattr",
    "fchownat-empty",
];

/// Runs the probe on the protected registration and the project file, then `chmod 000` on
/// the `.claude` folder; returns all output as one text.
fn run(w: &World, nobody: bool) -> String {
    let registration = w.home().join(".claude/settings.json");
    let look_alike = w.project().join("src/main.py");
    std::fs::write(&look_alike, "print()\n").unwrap();
    let script = format!(
        "/usr/bin/python3 -c '{}' {} {}; chmod 000 {}; echo folder $?",
        PROBE.replace('\'', "'\\''"),
        registration.display(),
        look_alike.display(),
        w.home().join(".claude").display()
    );
    if nobody {
        let _ = std::process::Command::new("chown")
            .args(["65534:65534"])
            .arg(&look_alike)
            .status();
        return as_nobody(w, true, &script);
    }
    let out = w.ran("bash", &["-c", &script]);
    format!("{}\n{}", out.stdout, out.stderr)
}

fn check(w: &World, out: &str) {
    let registration = w.home().join(".claude/settings.json").display().to_string();
    let look_alike = w.project().join("src/main.py").display().to_string();
    for call in CALLS {
        let refused = format!("{call} {registration} {}", libc::EROFS);
        assert!(out.contains(&refused), "{refused}:\n{out}");
        let works = format!("{call} {look_alike} 0");
        assert!(out.contains(&works), "{works}:\n{out}");
    }
    let line = format!("agent-guards: refused changing {registration} (I3.metadata");
    assert_eq!(
        out.matches(&line).count(),
        CALLS.len(),
        "one line per call:\n{out}"
    );
    assert!(
        out.contains("folder 1"),
        "chmod 000 ~/.claude refused:\n{out}"
    );
    let folder = w.home().join(".claude");
    let folder_line = format!("refused changing {} (I3.metadata", folder.display());
    assert!(out.contains(&folder_line), "{out}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
    assert_ne!(mode & 0o777, 0, "the folder keeps its mode");
    let records = w.wait_record(|r| r["path"] == folder.display().to_string().as_str());
    let record = records
        .iter()
        .find(|r| r["code"] == "I3.metadata" && r["syscall"] == "fchmodat")
        .unwrap_or_else(|| panic!("an I3.metadata record: {records:?}"));
    assert_eq!(record["requirement"], "I3");
}

#[test]
fn as_root_metadata_changes_on_protected_paths_are_refused_and_look_alikes_work() {
    let Some(w) = root_world("metadata-root") else {
        return;
    };
    let out = run(&w, false);
    check(&w, &out);
}

#[test]
fn as_a_non_root_user_metadata_changes_on_protected_paths_are_refused() {
    if !is_root() {
        eprintln!("skipped: needs root to become uid 65534");
        return;
    }
    let w = nobodys_world("metadata-nobody");
    let out = run(&w, true);
    check(&w, &out);
}
