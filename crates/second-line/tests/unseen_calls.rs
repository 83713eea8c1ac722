//! Calls the filter could not see into (issue 41), refused in the kernel under the second line:
//! io_uring (a ring the kernel runs writes and connects from, no system call to judge),
//! `open_by_handle_at` (a file by handle, no path), `sendto` with `MSG_FASTOPEN` (a connect past
//! the judged `connect`), and 32-bit `int 0x80` calls that write a path (`open` with a write flag)
//! — while a 32-bit read-only `open` and a plain UDP `sendto` still work. Root only (the second
//! line's filter without no_new_privs); each refusal is compared with the same call without it.

mod common;
use common::*;

const CALLS: &str = r#"
import ctypes, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
def errno_of(r):
    return 0 if r >= 0 else ctypes.get_errno()
params = ctypes.create_string_buffer(120)
print("io_uring_setup", errno_of(libc.syscall(425, 1, params)))
handle = ctypes.create_string_buffer(128)
print("open_by_handle_at", errno_of(libc.syscall(304, -100, handle, 0)))
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    s.sendto(b"x", 0x20000000, ("127.0.0.1", int(sys.argv[1])))
    print("fastopen 0")
except OSError as e:
    print("fastopen", e.errno)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(b"x", ("127.0.0.1", int(sys.argv[1])))
print("udp sent")
"#;

const INT80: &str = r#"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
/* In a non-PIE binary the static buffers sit below 4 GiB, where 32-bit calls can point. */
static char path[4096];
static long int80(long nr, long a, long b, long c) {
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    return ret;
}
int main(int argc, char **argv) {
    strncpy(path, argv[1], sizeof path - 1);
    printf("open32-write %ld\n", int80(5, (long)path, O_WRONLY | O_CREAT, 0644));
    strncpy(path, "/etc/hostname", sizeof path - 1);
    printf("open32-read %s\n", int80(5, (long)path, O_RDONLY, 0) >= 0 ? "ok" : "failed");
    return 0;
}
"#;

#[test]
fn io_uring_handles_and_fast_open_are_refused_and_plain_calls_work() {
    let Some(w) = root_world("unseen-calls") else {
        return;
    };
    let (_listener, port) = loopback_listener();
    let out = w.ran("python3", &["-c", CALLS, &port]);
    out.prints(&[
        "io_uring_setup 1\n",
        "open_by_handle_at 1\n",
        "fastopen 1\n",
        "udp sent",
    ]);
    // Without the second line the same calls are not EPERM (io_uring may be off by sysctl).
    let plain = w.plain("python3", &["-c", CALLS, &port]).output().unwrap();
    let plain = text(&plain.stdout);
    assert!(!plain.contains("open_by_handle_at 1\n"), "{plain}");
    assert!(!plain.contains("fastopen 1\n"), "{plain}");
}

#[test]
fn a_32_bit_write_open_is_refused_and_a_read_open_works() {
    let Some(w) = root_world("unseen-int80") else {
        return;
    };
    let src = w.home().join("int80.c");
    std::fs::write(&src, INT80).unwrap();
    let exe = w.home().join("int80");
    let built = std::process::Command::new("cc")
        .args(["-no-pie", "-O0", "-o"])
        .arg(&exe)
        .arg(&src)
        .status();
    assert!(
        built.is_ok_and(|s| s.success()),
        "cc is needed (CI installs gcc)"
    );
    let target = w.home().join("written-by-int80");
    let out = w.ran(exe.to_str().unwrap(), &[target.to_str().unwrap()]);
    out.prints(&[
        &format!("open32-write -{}\n", libc::EPERM),
        "open32-read ok",
    ]);
    assert!(!target.exists(), "nothing was written");
    let plain = w
        .plain(exe.to_str().unwrap(), &[target.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(text(&plain.stdout).contains("open32-read ok"));
    assert!(
        target.exists(),
        "without the second line the 32-bit open writes"
    );
}
