//! The system calls the notifier sees, as a table (number, name, where its paths are), and the
//! classic-BPF filter built from it: `execve`/`execveat` always go to the supervisor, calls that
//! write a path go there too (`open`/`openat` only with a write flag, checked in the filter),
//! everything else is allowed in the kernel without a round trip — except the calls that would
//! write or connect where the supervisor cannot see (issue 41, [`REFUSED`]): refused in the
//! kernel with `EPERM`.

/// How a path argument is given: an optional directory-fd argument and the path argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathArg {
    pub dirfd: Option<usize>,
    pub path: usize,
}

const fn at(dirfd: usize, path: usize) -> PathArg {
    PathArg {
        dirfd: Some(dirfd),
        path,
    }
}

const fn plain(path: usize) -> PathArg {
    PathArg { dirfd: None, path }
}

/// What a notified call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `execve` (`dirfd: None`) or `execveat`.
    Exec {
        target: PathArg,
        argv: usize,
        envp: usize,
        flags: Option<usize>,
    },
    /// A call that writes, removes or renames the paths it names. `flags`: the open-flags
    /// argument the filter checks (notified only with a write flag); `how`: `openat2`'s struct.
    Write {
        paths: &'static [PathArg],
        flags: Option<usize>,
        how: Option<usize>,
    },
    /// `connect(fd, addr, len)`.
    Connect { addr: usize, len: usize },
    /// `sendmsg(fd, msg, flags)` (`count: None`) or `sendmmsg(fd, msgvec, vlen, flags)`: the
    /// destinations are in the message headers (`msg_name`).
    Message { msg: usize, count: Option<usize> },
    /// A call that changes a file's mode, owner, times or extended attributes (I3.metadata):
    /// by path (`path`), by descriptor (`fd`), or a path that may be empty or NULL and then
    /// means its directory descriptor (`at_flags` holds `AT_EMPTY_PATH`; `utimensat`'s NULL).
    Metadata {
        path: Option<PathArg>,
        fd: Option<usize>,
        at_flags: Option<usize>,
    },
}

/// One notified system call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sys {
    pub nr: i64,
    pub name: &'static str,
    pub kind: Kind,
}

/// Open flags that make an open a write.
pub const WRITE_FLAGS: u32 =
    (libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC | libc::O_APPEND) as u32;

const fn write(nr: i64, name: &'static str, paths: &'static [PathArg]) -> Sys {
    Sys {
        nr,
        name,
        kind: Kind::Write {
            paths,
            flags: None,
            how: None,
        },
    }
}

const fn metadata(nr: i64, name: &'static str, path: PathArg, at_flags: Option<usize>) -> Sys {
    Sys {
        nr,
        name,
        kind: Kind::Metadata {
            path: Some(path),
            fd: None,
            at_flags,
        },
    }
}

const fn metadata_of_fd(nr: i64, name: &'static str) -> Sys {
    Sys {
        nr,
        name,
        kind: Kind::Metadata {
            path: None,
            fd: Some(0),
            at_flags: None,
        },
    }
}

macro_rules! table {
    ($($extra:expr),* $(,)?) => {
        &[
            Sys { nr: libc::SYS_execve, name: "execve", kind: Kind::Exec { target: plain(0), argv: 1, envp: 2, flags: None } },
            Sys { nr: libc::SYS_execveat, name: "execveat", kind: Kind::Exec { target: at(0, 1), argv: 2, envp: 3, flags: Some(4) } },
            Sys { nr: libc::SYS_openat, name: "openat", kind: Kind::Write { paths: &[at(0, 1)], flags: Some(2), how: None } },
            Sys { nr: libc::SYS_openat2, name: "openat2", kind: Kind::Write { paths: &[at(0, 1)], flags: None, how: Some(2) } },
            write(libc::SYS_renameat, "renameat", &[at(0, 1), at(2, 3)]),
            write(libc::SYS_renameat2, "renameat2", &[at(0, 1), at(2, 3)]),
            write(libc::SYS_unlinkat, "unlinkat", &[at(0, 1)]),
            write(libc::SYS_truncate, "truncate", &[plain(0)]),
            write(libc::SYS_linkat, "linkat", &[at(2, 3)]),
            write(libc::SYS_symlinkat, "symlinkat", &[at(1, 2)]),
            Sys { nr: libc::SYS_connect, name: "connect", kind: Kind::Connect { addr: 1, len: 2 } },
            metadata(libc::SYS_fchmodat, "fchmodat", at(0, 1), None),
            metadata(452, "fchmodat2", at(0, 1), Some(3)),
            metadata(libc::SYS_fchownat, "fchownat", at(0, 1), Some(4)),
            metadata(libc::SYS_utimensat, "utimensat", at(0, 1), Some(3)),
            metadata(libc::SYS_setxattr, "setxattr", plain(0), None),
            metadata(libc::SYS_lsetxattr, "lsetxattr", plain(0), None),
            metadata(libc::SYS_removexattr, "removexattr", plain(0), None),
            metadata(libc::SYS_lremovexattr, "lremovexattr", plain(0), None),
            metadata(463, "setxattrat", at(0, 1), Some(2)),
            metadata(466, "removexattrat", at(0, 1), Some(2)),
            metadata_of_fd(libc::SYS_fchmod, "fchmod"),
            metadata_of_fd(libc::SYS_fchown, "fchown"),
            metadata_of_fd(libc::SYS_fsetxattr, "fsetxattr"),
            metadata_of_fd(libc::SYS_fremovexattr, "fremovexattr"),
            $($extra),*
        ]
    };
}

/// The native table of this architecture.
#[cfg(target_arch = "x86_64")]
pub static NATIVE: &[Sys] = table![
    Sys {
        nr: libc::SYS_open,
        name: "open",
        kind: Kind::Write {
            paths: &[plain(0)],
            flags: Some(1),
            how: None
        }
    },
    write(libc::SYS_creat, "creat", &[plain(0)]),
    write(libc::SYS_rename, "rename", &[plain(0), plain(1)]),
    write(libc::SYS_unlink, "unlink", &[plain(0)]),
    write(libc::SYS_rmdir, "rmdir", &[plain(0)]),
    write(libc::SYS_link, "link", &[plain(1)]),
    write(libc::SYS_symlink, "symlink", &[plain(1)]),
    metadata(libc::SYS_chmod, "chmod", plain(0), None),
    metadata(libc::SYS_chown, "chown", plain(0), None),
    metadata(libc::SYS_lchown, "lchown", plain(0), None),
    metadata(libc::SYS_utime, "utime", plain(0), None),
    metadata(libc::SYS_utimes, "utimes", plain(0), None),
    metadata(libc::SYS_futimesat, "futimesat", at(0, 1), None),
];
#[cfg(not(target_arch = "x86_64"))]
pub static NATIVE: &[Sys] = table![];

/// The audit architecture of native calls.
#[cfg(target_arch = "x86_64")]
pub const NATIVE_ARCH: u32 = 0xc000_003e; // AUDIT_ARCH_X86_64
#[cfg(target_arch = "aarch64")]
pub const NATIVE_ARCH: u32 = 0xc000_00b7; // AUDIT_ARCH_AARCH64

/// 32-bit x86 programs on x86_64 (`int 0x80`): their exec calls are judged too (argv pointers
/// are 4 bytes); their writes are left to the mount layer.
#[cfg(target_arch = "x86_64")]
pub const COMPAT: Option<(u32, &[Sys])> = Some((
    0x4000_0003, // AUDIT_ARCH_I386
    &[
        Sys {
            nr: 11,
            name: "execve",
            kind: Kind::Exec {
                target: plain(0),
                argv: 1,
                envp: 2,
                flags: None,
            },
        },
        Sys {
            nr: 358,
            name: "execveat",
            kind: Kind::Exec {
                target: at(0, 1),
                argv: 2,
                envp: 3,
                flags: Some(4),
            },
        },
    ],
));
#[cfg(not(target_arch = "x86_64"))]
pub const COMPAT: Option<(u32, &[Sys])> = None;

/// x32 calls (x86_64 numbers with this bit) are all notified; the supervisor judges their
/// exec calls and continues the rest.
pub const X32_BIT: i64 = 0x4000_0000;
#[cfg(target_arch = "x86_64")]
const X32_EXEC: [(i64, &str); 2] = [(520, "execve"), (545, "execveat")];

/// Native calls refused outright (`EPERM`, no round trip): they write or connect past what the
/// supervisor can read. io_uring submits writes and connects from a ring the kernel runs without
/// a system call of the program's (`io_uring_setup` refused, nothing else works without it);
/// `open_by_handle_at` opens a file by handle, no path to judge. Each with why, for the spec.
#[cfg(target_arch = "x86_64")]
pub const REFUSED: &[(i64, &str)] = &[
    (libc::SYS_io_uring_setup, "io_uring_setup"),
    (libc::SYS_io_uring_enter, "io_uring_enter"),
    (libc::SYS_io_uring_register, "io_uring_register"),
    (libc::SYS_open_by_handle_at, "open_by_handle_at"),
];
#[cfg(not(target_arch = "x86_64"))]
pub const REFUSED: &[(i64, &str)] = &[];

/// `sendto` with `MSG_FASTOPEN` connects and sends in one call (TCP Fast Open), past the connect
/// the supervisor judges: refused outright. Its flags are argument 3.
pub const MSG_FASTOPEN: u32 = 0x2000_0000;

/// `sendto(fd, buf, len, flags, addr, addrlen)` with a destination (a datagram to an address,
/// issue 41): notified and judged like a `connect` to it. Without one (`send` on a connected
/// socket, every TCP write through libc's `send`) the filter lets it through unnotified.
#[cfg(target_arch = "x86_64")]
pub const SENDTO: Sys = Sys {
    nr: libc::SYS_sendto,
    name: "sendto",
    kind: Kind::Connect { addr: 4, len: 5 },
};

/// `sendmsg` and `sendmmsg` (issue 41 item 4): notified and judged like a `connect` to each
/// message's destination (the filter cannot read a `msghdr`), refused outright with
/// `MSG_FASTOPEN` (flags: argument 2 and 3).
#[cfg(target_arch = "x86_64")]
pub const MESSAGES: [(Sys, usize); 2] = [
    (
        Sys {
            nr: libc::SYS_sendmsg,
            name: "sendmsg",
            kind: Kind::Message {
                msg: 1,
                count: None,
            },
        },
        2,
    ),
    (
        Sys {
            nr: libc::SYS_sendmmsg,
            name: "sendmmsg",
            kind: Kind::Message {
                msg: 1,
                count: Some(2),
            },
        },
        3,
    ),
];

/// 32-bit x86 calls (`int 0x80`) that write a path or reach the network: refused outright (and
/// `open`/`openat` with a write flag, [`COMPAT_WRITE_OPENS`]). Their exec calls are judged
/// ([`COMPAT`]); the rest of a 32-bit program runs as before. By number in the i386 table
/// (`arch/x86/entry/syscalls/syscall_32.tbl`).
#[cfg(target_arch = "x86_64")]
pub const COMPAT_REFUSED: &[(i64, &str)] = &[
    (8, "creat"),
    (9, "link"),
    (10, "unlink"),
    (38, "rename"),
    (40, "rmdir"),
    (83, "symlink"),
    (92, "truncate"),
    (102, "socketcall"),
    (193, "truncate64"),
    (301, "unlinkat"),
    (302, "renameat"),
    (303, "linkat"),
    (304, "symlinkat"),
    (342, "open_by_handle_at"),
    (353, "renameat2"),
    (362, "connect"),
    (369, "sendto"),
    (345, "sendmmsg"),
    (370, "sendmsg"),
    (425, "io_uring_setup"),
    (426, "io_uring_enter"),
    (427, "io_uring_register"),
    (437, "openat2"),
];
#[cfg(not(target_arch = "x86_64"))]
pub const COMPAT_REFUSED: &[(i64, &str)] = &[];

/// 32-bit `open` (flags: argument 1) and `openat` (argument 2): refused with a write flag only.
pub const COMPAT_WRITE_OPENS: &[(i64, usize)] = &[(5, 1), (295, 2)];

/// The table entry of a notified call, by architecture and number.
pub fn lookup(arch: u32, nr: i64) -> Option<Sys> {
    if arch == NATIVE_ARCH {
        #[cfg(target_arch = "x86_64")]
        if nr & X32_BIT != 0 {
            let bare = nr & !X32_BIT;
            let name = X32_EXEC.iter().find(|(n, _)| *n == bare)?.1;
            return NATIVE
                .iter()
                .find(|s| s.name == name)
                .map(|s| Sys { nr, ..*s });
        }
        #[cfg(target_arch = "x86_64")]
        if nr == SENDTO.nr {
            return Some(SENDTO);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some((m, _)) = MESSAGES.iter().find(|(m, _)| m.nr == nr) {
            return Some(*m);
        }
        return NATIVE.iter().find(|s| s.nr == nr).copied();
    }
    let (compat_arch, table) = COMPAT?;
    (arch == compat_arch)
        .then(|| table.iter().find(|s| s.nr == nr).copied())
        .flatten()
}

/// Pointer size of the calling ABI's user space (i386 and x32: 4 bytes).
pub fn pointer_size(arch: u32, nr: i64) -> usize {
    match COMPAT {
        Some((a, _)) if a == arch => 4,
        _ if cfg!(target_arch = "x86_64") && nr & X32_BIT != 0 => 4,
        _ => 8,
    }
}

// Classic BPF opcodes (linux/filter.h).
pub(crate) const LD_W_ABS: u16 = 0x20;
pub(crate) const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
pub(crate) const JSET_K: u16 = 0x45;
pub(crate) const RET_K: u16 = 0x06;
pub(crate) const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
pub(crate) const fn off_arg(i: usize) -> u32 {
    16 + 8 * i as u32 // low half on little-endian
}

pub(crate) fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

pub(crate) fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// One table's checks on a loaded syscall number; every matching block returns.
fn checks(table: &[Sys], out: &mut Vec<libc::sock_filter>) {
    let notify = libc::SECCOMP_RET_USER_NOTIF;
    for s in table {
        let block: Vec<libc::sock_filter> = match s.kind {
            Kind::Write {
                flags: Some(arg), ..
            } => vec![
                stmt(LD_W_ABS, off_arg(arg)),
                jump(JSET_K, WRITE_FLAGS, 0, 1),
                stmt(RET_K, notify),
                stmt(RET_K, libc::SECCOMP_RET_ALLOW),
            ],
            _ => vec![stmt(RET_K, notify)],
        };
        out.push(jump(JEQ_K, s.nr as u32, 0, block.len() as u8));
        out.extend(block);
    }
}

/// Returns `EPERM` for each number of `refused`.
fn refusals(refused: &[(i64, &str)], out: &mut Vec<libc::sock_filter>) {
    let eperm = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    for (nr, _) in refused {
        out.push(jump(JEQ_K, *nr as u32, 0, 1));
        out.push(stmt(RET_K, eperm));
    }
}

/// A jump over `len` instructions: classic BPF offsets are one byte, and a section that grew
/// past 255 would jump into its own middle (the unit test builds the filter, so it fails first).
fn over(len: usize) -> u8 {
    u8::try_from(len).expect("a filter section longer than a BPF jump reaches")
}

/// The filter program.
pub fn filter() -> Vec<libc::sock_filter> {
    let mut native = vec![stmt(LD_W_ABS, OFF_NR)];
    if cfg!(target_arch = "x86_64") {
        // x32 calls: the namespace calls refused, every other one to the supervisor.
        let mut x32 = Vec::new();
        crate::namespace_calls::refusals(crate::namespace_calls::X32, X32_BIT, &mut x32);
        x32.push(stmt(RET_K, libc::SECCOMP_RET_USER_NOTIF));
        native.push(jump(JGE_K, X32_BIT as u32, 0, over(x32.len())));
        native.extend(x32);
    }
    crate::namespace_calls::refusals(crate::namespace_calls::NATIVE, 0, &mut native);
    refusals(REFUSED, &mut native);
    // sendto(.., flags = arg 3, addr = arg 4, ..): MSG_FASTOPEN refused; with a destination
    // (either half of the pointer not zero) notified; without one allowed.
    #[cfg(target_arch = "x86_64")]
    {
        let notify = libc::SECCOMP_RET_USER_NOTIF;
        let block = [
            stmt(LD_W_ABS, off_arg(3)),
            jump(JSET_K, MSG_FASTOPEN, 0, 1),
            stmt(RET_K, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
            stmt(LD_W_ABS, off_arg(4)),
            jump(JEQ_K, 0, 0, 2),
            stmt(LD_W_ABS, off_arg(4) + 4),
            jump(JEQ_K, 0, 1, 0),
            stmt(RET_K, notify),
            stmt(RET_K, libc::SECCOMP_RET_ALLOW),
        ];
        native.push(jump(JEQ_K, libc::SYS_sendto as u32, 0, block.len() as u8));
        native.extend(block);
        // sendmsg/sendmmsg: MSG_FASTOPEN refused; otherwise notified (the destination is in
        // the message header, which the filter cannot read).
        for (m, flags) in MESSAGES {
            let block = [
                stmt(LD_W_ABS, off_arg(flags)),
                jump(JSET_K, MSG_FASTOPEN, 0, 1),
                stmt(RET_K, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
                stmt(RET_K, notify),
            ];
            native.push(jump(JEQ_K, m.nr as u32, 0, block.len() as u8));
            native.extend(block);
        }
    }
    checks(NATIVE, &mut native);
    native.push(stmt(RET_K, libc::SECCOMP_RET_ALLOW));
    let mut prog = vec![
        stmt(LD_W_ABS, OFF_ARCH),
        jump(JEQ_K, NATIVE_ARCH, 0, over(native.len())),
    ];
    prog.extend(native);
    if let Some((arch, table)) = COMPAT {
        let mut compat = vec![stmt(LD_W_ABS, OFF_NR)];
        refusals(COMPAT_REFUSED, &mut compat);
        crate::namespace_calls::refusals(crate::namespace_calls::COMPAT, 0, &mut compat);
        for (nr, flags) in COMPAT_WRITE_OPENS {
            compat.push(jump(JEQ_K, *nr as u32, 0, 4));
            compat.push(stmt(LD_W_ABS, off_arg(*flags)));
            compat.push(jump(JSET_K, WRITE_FLAGS, 0, 1));
            compat.push(stmt(RET_K, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32));
            compat.push(stmt(LD_W_ABS, OFF_NR));
        }
        checks(table, &mut compat);
        compat.push(stmt(RET_K, libc::SECCOMP_RET_ALLOW));
        prog.push(jump(JEQ_K, arch, 0, over(compat.len())));
        prog.extend(compat);
    }
    prog.push(stmt(RET_K, libc::SECCOMP_RET_ALLOW));
    prog
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_notified_call_is_found_by_arch_and_number() {
        for s in NATIVE {
            assert_eq!(lookup(NATIVE_ARCH, s.nr), Some(*s));
        }
        assert_eq!(lookup(NATIVE_ARCH, libc::SYS_read), None);
        if let Some((arch, table)) = COMPAT {
            assert_eq!(lookup(arch, 11).unwrap().name, "execve");
            assert_eq!(lookup(arch, 5), None);
            assert_eq!(pointer_size(arch, 11), 4);
            assert!(!table.is_empty());
        }
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(lookup(NATIVE_ARCH, 520 | X32_BIT).unwrap().name, "execve");
            assert_eq!(lookup(NATIVE_ARCH, 1 | X32_BIT), None);
        }
        // Namespace and other-process refusals (three ABIs) included; the kernel's per-call
        // cache skips the filter for calls it always allows, so its length costs only the
        // judged calls.
        assert!(filter().len() < 340, "{}", filter().len());
        // The refused calls are never notified (they never reach the supervisor's table).
        for (nr, _) in REFUSED {
            assert_eq!(lookup(NATIVE_ARCH, *nr), None);
        }
    }
}
