//! The CLI's memory and environment out of the command's reach (C11, issue 38): the CLI runs as
//! the same user as its commands and holds the maintainer's credentials, so a command must not
//! read `/proc/<CLI pid>/environ` or `mem` (or a thread's), nor read its memory with
//! `process_vm_readv` or take its descriptors with `pidfd_getfd`. The "CLI" here is a process
//! holding a token in its environment and memory, named by `CLAUDE_PID` as the CLI names itself.

mod common;

use common::*;
use std::process::{Child, Command};

/// What a command tries against the CLI (`$1`), printed one line per attempt; its own `/proc`
/// and `ps` must keep working.
const ATTEMPTS: &str = r#"
import ctypes, os, sys
cli = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, f):
    try:
        print(name, "READ" if b"ghp_cliSECRET" in f() else "no secret")
    except OSError as e:
        print(name, "refused", e.errno)
attempt("environ", lambda: open(f"/proc/{cli}/environ", "rb").read())
attempt("mem", lambda: open(f"/proc/{cli}/mem", "rb").read(1))
tids = os.listdir(f"/proc/{cli}/task") if os.path.isdir(f"/proc/{cli}/task") else []
print("threads seen", len(tids))
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(64)
local = iovec(ctypes.addressof(buf), 64)
remote = iovec(0x400000, 64)
r = libc.process_vm_readv(cli, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
print("process_vm_readv", "refused" if r < 0 and ctypes.get_errno() == 1 else "went through (%d, errno %d)" % (r, ctypes.get_errno()))
pfd = libc.syscall(434, cli, 0)
took = [fd for fd in range(8) if pfd >= 0 and libc.syscall(438, pfd, fd, 0) >= 0]
print("pidfd_getfd", "refused" if not took else "took %s" % took)
print("own environ", "ok" if b"PATH=" in open("/proc/self/environ", "rb").read() else "lost")
"#;

/// The stand-in CLI: a token in its environment, run as `uid` (the commands' user).
fn cli(uid: u32) -> Child {
    use std::os::unix::process::CommandExt;
    Command::new("sleep")
        .arg("60")
        .env("GH_TOKEN", "ghp_cliSECRET")
        .uid(uid)
        .gid(uid)
        .spawn()
        .unwrap()
}

fn script(cli: &Child) -> String {
    format!(
        "/usr/bin/python3 -c '{}' {}",
        ATTEMPTS.replace('\'', "'\\''"),
        cli.id()
    )
}

fn assert_out_of_reach(out: &str, control: &str) {
    assert!(
        control.contains("environ READ"),
        "the control reads it: {control}"
    );
    for line in [
        "environ refused 2",
        "mem refused 2",
        "threads seen 0",
        "process_vm_readv refused",
        "pidfd_getfd refused",
        "own environ ok",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
}

#[test]
fn as_root_a_command_cannot_read_the_clis_environment_or_memory() {
    let Some(mut w) = root_world("cli-root") else {
        return;
    };
    let mut c = cli(0);
    w.env("CLAUDE_PID", &c.id().to_string());
    let control = w.plain("bash", &["-c", &script(&c)]).output().unwrap();
    let out = w.ran("bash", &["-c", &script(&c)]);
    let _ = c.kill();
    let _ = c.wait();
    assert_out_of_reach(
        &format!("{}{}", out.stdout, out.stderr),
        &text(&control.stdout),
    );
}

#[test]
fn as_another_user_a_command_cannot_read_the_clis_environment_or_memory() {
    if !is_root() {
        hook_replay::skip::cannot_run("cli-nobody", "needs root to become uid 65534");
        return;
    }
    let mut w = nobodys_world("cli-nobody");
    let mut c = cli(65534);
    w.env("CLAUDE_PID", &c.id().to_string());
    let control = as_nobody(&w, false, &script(&c));
    let out = as_nobody(&w, true, &script(&c));
    let _ = c.kill();
    let _ = c.wait();
    assert_out_of_reach(&out, &control);
}
