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
    /// Paths that could not be made read-only, with the error (reported, never fatal).
    pub failed: Vec<(PathBuf, String)>,
}

/// Enters a private mount namespace (propagation made private first, so nothing leaks back to
/// the host) and bind-mounts each path read-only onto itself. `Err` when the namespace itself
/// could not be made; the command then runs without this layer.
pub fn enter_read_only(paths: &[PathBuf]) -> Result<Mounted, String> {
    unshare(CloneFlags::CLONE_NEWNS).map_err(|e| format!("unshare(CLONE_NEWNS): {e}"))?;
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|e| format!("mount --make-rprivate /: {e}"))?;
    let mut out = Mounted::default();
    for p in paths {
        match bind_read_only(p) {
            Ok(()) => out.read_only.push(p.clone()),
            Err(e) => out.failed.push((p.clone(), e)),
        }
    }
    Ok(out)
}

fn bind_read_only(p: &Path) -> Result<(), String> {
    mount(
        Some(p),
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
        MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY,
        None::<&str>,
    )
    .map_err(|e| format!("remount read-only: {e}"))
}
