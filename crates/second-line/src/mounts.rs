//! The mount layer: a private mount namespace for the agent command in which every protected
//! path is a read-only bind mount of itself. A write then fails with the kernel's own `EROFS`,
//! whatever program writes; hooks run outside the prefix and keep writing.

use nix::mount::{mount, MsFlags};
use nix::sched::{unshare, CloneFlags};
use std::path::{Path, PathBuf};

/// What the mount layer did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mounted {
    pub read_only: Vec<PathBuf>,
    /// Credential files shown with the placeholder (or as nothing) in their place.
    pub masked: Vec<PathBuf>,
    /// Folders hidden under an empty tmpfs (the CLI's `/proc` entries).
    pub hidden: Vec<PathBuf>,
    /// Paths that could not be made read-only, with the error (reported, never fatal).
    pub failed: Vec<(PathBuf, String)>,
}

/// Whose mount namespace: root's own (a mount namespace alone), or a user namespace mapping a
/// non-root user onto itself (`crate::user_namespace`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Root,
    User { uid: u32, gid: u32 },
}

/// Enters a private mount namespace (propagation made private first, so nothing leaks back to
/// the host), shows each mask's source read-only in place of its target (the credential files
/// with the placeholder, C11), hides each of `hidden` under an empty read-only tmpfs (the CLI's
/// `/proc` entries, [`crate::cli_process`]) and bind-mounts each path read-only onto itself.
/// `Err` when the namespace itself could not be made; the command then runs without this layer.
pub fn enter_read_only(
    paths: &[PathBuf],
    masks: &[(PathBuf, PathBuf)],
    hidden: &[PathBuf],
    owner: Owner,
) -> Result<Mounted, String> {
    match owner {
        Owner::Root => {
            unshare(CloneFlags::CLONE_NEWNS).map_err(|e| format!("unshare(CLONE_NEWNS): {e}"))?
        }
        Owner::User { uid, gid } => crate::user_namespace::enter(uid, gid)?,
    }
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|e| format!("mount --make-rprivate /: {e}"))?;
    let mut out = Mounted::default();
    for (source, target) in masks {
        match bind_read_only_from(source, target) {
            Ok(()) => out.masked.push(target.clone()),
            Err(e) => out.failed.push((target.clone(), e)),
        }
    }
    hide_all(hidden, &mut out);
    for p in paths {
        match bind_read_only(p) {
            Ok(()) => out.read_only.push(p.clone()),
            Err(e) => out.failed.push((p.clone(), e)),
        }
    }
    Ok(out)
}

/// Hides each of `paths` under an empty read-only tmpfs, in the mount namespace this process is
/// in (it must hold `CAP_SYS_ADMIN` there); what failed goes to `out.failed`.
pub fn hide_all(paths: &[PathBuf], out: &mut Mounted) {
    for p in paths {
        // A thread or process that ended since it was listed has nothing left to hide.
        match hide(p) {
            Ok(()) => out.hidden.push(p.clone()),
            Err(_) if !p.exists() => {}
            Err(e) => out.failed.push((p.clone(), e)),
        }
    }
}

/// An empty read-only tmpfs over `p`.
fn hide(p: &Path) -> Result<(), String> {
    mount(
        Some("none"),
        p,
        Some("tmpfs"),
        MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        Some("mode=0555,size=4k"),
    )
    .map_err(|e| format!("hide: {e}"))
}

fn bind_read_only(p: &Path) -> Result<(), String> {
    bind_read_only_from(p, p)
}

/// `source` bound read-only at `p`.
fn bind_read_only_from(source: &Path, p: &Path) -> Result<(), String> {
    mount(
        Some(source),
        p,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        None::<&str>,
    )
    .map_err(|e| format!("bind: {e}"))?;
    mount(
        None::<&str>,
        p,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | kept_flags(p),
        None::<&str>,
    )
    .map_err(|e| format!("remount read-only: {e}"))
}

/// The flags of the mount `p` is on that a remount must keep: in a user namespace the kernel
/// locks them on every mount it copied (`nosuid`, `nodev`, `noexec`, the atime mode) and
/// refuses a remount that would clear one (EPERM on a `/home` mounted `nosuid,nodev`).
fn kept_flags(p: &Path) -> MsFlags {
    let Ok(st) = nix::sys::statvfs::statvfs(p) else {
        return MsFlags::empty();
    };
    use nix::sys::statvfs::FsFlags;
    let f = st.flags();
    let mut out = MsFlags::empty();
    for (from, to) in [
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ] {
        if f.contains(from) {
            out |= to;
        }
    }
    if !f.intersects(FsFlags::ST_NOATIME | FsFlags::ST_RELATIME) {
        out |= MsFlags::MS_STRICTATIME;
    }
    out
}
