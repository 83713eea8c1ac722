//! Calls that would undo the mount layer or leave the command's namespaces (C10.namespace,
//! issue 41 item 3), refused in the kernel filter with an errno, no round trip: nothing in them
//! needs judging. `mount`, `umount2`, `pivot_root`, `setns` and the new mount API (`open_tree`,
//! `move_mount`, `fsopen`, `fsconfig`, `fsmount`, `fspick`, `mount_setattr`: a read-only bind
//! made writable again) always; `unshare` and `clone` only with a new-namespace flag (a fork or
//! a thread stays untouched); `ptrace` only to attach (`PTRACE_ATTACH`, `PTRACE_SEIZE`: a
//! debugger's own child, `PTRACE_TRACEME`, still works). `clone3` passes its flags in memory the
//! filter cannot read: it fails with `ENOSYS`, on which glibc and other runtimes fall back to
//! `clone`, whose flags the filter reads. Root is held by this filter; a non-root user in its
//! user namespace also holds no capability once the shell runs. With them, the calls that read
//! or write another process's memory or take its descriptors (`process_vm_readv`,
//! `process_vm_writev`, `pidfd_getfd`): the CLI that runs the session holds the maintainer's
//! credentials in its memory (C11, issue 38; [`crate::cli_process`] hides its `/proc` entries).

use crate::syscalls::{jump, off_arg, stmt, JEQ_K, JSET_K, LD_W_ABS, OFF_NR, RET_K};

/// Every flag that makes a new namespace (`CLONE_NEWTIME` only for `unshare`: in `clone` that
/// bit is part of the exit signal).
pub const NEW_NAMESPACE_FLAGS: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;
const CLONE_NEWTIME: u32 = 0x80;

/// `ptrace` requests that attach to a running process.
pub const PTRACE_ATTACHES: &[u32] = &[16, 0x4206]; // PTRACE_ATTACH, PTRACE_SEIZE

/// What the filter does with one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Always, with this errno.
    Always(i32),
    /// When argument `arg` has any of `mask`'s bits (`EPERM`).
    AnyFlag { arg: usize, mask: u32 },
    /// When argument `arg` is one of `values` (`EPERM`).
    ArgIs { arg: usize, values: &'static [u32] },
}

const EPERM: Refusal = Refusal::Always(libc::EPERM);
const NEW_NS: Refusal = Refusal::AnyFlag {
    arg: 0,
    mask: NEW_NAMESPACE_FLAGS,
};
const UNSHARE_NS: Refusal = Refusal::AnyFlag {
    arg: 0,
    mask: NEW_NAMESPACE_FLAGS | CLONE_NEWTIME,
};
const ATTACH: Refusal = Refusal::ArgIs {
    arg: 0,
    values: PTRACE_ATTACHES,
};
const NO_CLONE3: Refusal = Refusal::Always(libc::ENOSYS);

macro_rules! calls {
    ($mount:expr, $umount2:expr, $pivot:expr, $setns:expr, $unshare:expr, $clone:expr, $ptrace:expr $(, $extra:expr)*) => {
        &[
            ($mount, "mount", EPERM),
            ($umount2, "umount2", EPERM),
            ($pivot, "pivot_root", EPERM),
            ($setns, "setns", EPERM),
            ($unshare, "unshare", UNSHARE_NS),
            ($clone, "clone", NEW_NS),
            ($ptrace, "ptrace", ATTACH),
            // The new mount API: the same numbers on every architecture.
            (428, "open_tree", EPERM),
            (429, "move_mount", EPERM),
            (430, "fsopen", EPERM),
            (431, "fsconfig", EPERM),
            (432, "fsmount", EPERM),
            (433, "fspick", EPERM),
            (435, "clone3", NO_CLONE3),
            (438, "pidfd_getfd", EPERM),
            (442, "mount_setattr", EPERM),
            $($extra),*
        ]
    };
}

/// x86_64 numbers.
#[cfg(target_arch = "x86_64")]
pub const NATIVE: &[(u32, &str, Refusal)] = calls!(
    165,
    166,
    155,
    308,
    272,
    56,
    101,
    (310, "process_vm_readv", EPERM),
    (311, "process_vm_writev", EPERM)
);
/// x32 numbers (added to the x32 bit): `ptrace` and the `process_vm_*` calls have x32 entries
/// of their own.
#[cfg(target_arch = "x86_64")]
pub const X32: &[(u32, &str, Refusal)] = calls!(
    165,
    166,
    155,
    308,
    272,
    56,
    521,
    (539, "process_vm_readv", EPERM),
    (540, "process_vm_writev", EPERM)
);
/// i386 numbers (`int 0x80`); `umount` (22) is the old one-argument form.
#[cfg(target_arch = "x86_64")]
pub const COMPAT: &[(u32, &str, Refusal)] = calls!(
    21,
    52,
    217,
    346,
    310,
    120,
    26,
    (22, "umount", EPERM),
    (347, "process_vm_readv", EPERM),
    (348, "process_vm_writev", EPERM)
);
#[cfg(target_arch = "aarch64")]
pub const NATIVE: &[(u32, &str, Refusal)] = calls!(
    40,
    39,
    41,
    268,
    97,
    220,
    117,
    (270, "process_vm_readv", EPERM),
    (271, "process_vm_writev", EPERM)
);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub const NATIVE: &[(u32, &str, Refusal)] = &[];
#[cfg(not(target_arch = "x86_64"))]
pub const X32: &[(u32, &str, Refusal)] = &[];
#[cfg(not(target_arch = "x86_64"))]
pub const COMPAT: &[(u32, &str, Refusal)] = &[];

/// Appends the checks of `table` (numbers plus `base`) to a program whose accumulator holds
/// the call's number; each block leaves it holding the number again.
pub fn refusals(table: &[(u32, &str, Refusal)], base: i64, out: &mut Vec<libc::sock_filter>) {
    for (nr, _, refusal) in table {
        let nr = (*nr as i64 | base) as u32;
        let block = block(*refusal);
        out.push(jump(JEQ_K, nr, 0, block.len() as u8));
        out.extend(block);
    }
}

fn errno(e: i32) -> libc::sock_filter {
    stmt(RET_K, libc::SECCOMP_RET_ERRNO | e as u32)
}

fn block(r: Refusal) -> Vec<libc::sock_filter> {
    match r {
        Refusal::Always(e) => vec![errno(e)],
        Refusal::AnyFlag { arg, mask } => vec![
            stmt(LD_W_ABS, off_arg(arg)),
            jump(JSET_K, mask, 0, 1),
            errno(libc::EPERM),
            stmt(LD_W_ABS, OFF_NR),
        ],
        Refusal::ArgIs { arg, values } => {
            // LD arg; JEQ v_i -> RET; ...; RET EPERM; LD NR.
            let n = values.len();
            let mut b = vec![stmt(LD_W_ABS, off_arg(arg))];
            for (i, v) in values.iter().enumerate() {
                let to_ret = (n - 1 - i) as u8;
                let past_ret = if i == n - 1 { 1 } else { 0 };
                b.push(jump(JEQ_K, *v, to_ret, past_ret));
            }
            b.push(errno(libc::EPERM));
            b.push(stmt(LD_W_ABS, OFF_NR));
            b
        }
    }
}
