//! A user namespace for a user who is not root (C10.namespace, issue 41 item 3): the prefix maps
//! the user's own uid and gid onto themselves in a new user namespace with a mount namespace,
//! so the read-only mounts of protected paths exist for every user, not only for root; then
//! every capability is dropped before the agent's shell runs, so nothing inside can remount.
//! Where the kernel forbids unprivileged user namespaces, [`why_refused`] names the knob and
//! the fix for `--report`.

/// The requirement's sub-code for the namespace layer.
pub use crate::codes::C10_NAMESPACE;

/// The maintainer's opt-out (in the CLI's environment): `off` keeps a non-root user outside a
/// user namespace, so set-uid programs (`sudo`) work inside agent commands and the protected
/// files are not mounted read-only for that user.
pub const USER_NAMESPACE_ENV: &str = "AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE";

/// Enters a new user namespace with a mount namespace, the caller's uid and gid mapped onto
/// themselves (files keep their owners; `setgroups` denied, as the kernel requires for an
/// unprivileged gid map). The caller then holds every capability inside, enough for the mounts
/// and the filter, until [`drop_capabilities`].
pub fn enter(uid: u32, gid: u32) -> Result<(), String> {
    // SAFETY: plain unshare on the calling (single-threaded) process.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("unshare(CLONE_NEWUSER|CLONE_NEWNS): {e}"));
    }
    let write = |file: &str, text: String| {
        std::fs::write(file, text).map_err(|e| format!("writing {file}: {e}"))
    };
    write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    write("/proc/self/setgroups", "deny".into())?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1"))
}

/// Drops every capability for good: the bounding set (so no exec can gain one back), the
/// ambient set, then the permitted, effective and inheritable sets. The uid inside is the
/// user's own (not 0), so an exec would clear them too; dropping the bounding set also covers
/// a program with file capabilities.
pub fn drop_capabilities() -> Result<(), String> {
    // SAFETY: prctl and capset with integer arguments and live, correctly sized structs.
    unsafe {
        let mut cap = 0;
        // Up to the kernel's last capability: it answers EINVAL past it.
        while libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) >= 0 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                let e = std::io::Error::last_os_error();
                return Err(format!(
                    "dropping capability {cap} from the bounding set: {e}"
                ));
            }
            cap += 1;
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
    }
    set_capabilities(0).map_err(|e| format!("capset: {e}"))
}

/// Sets this thread's permitted and effective capabilities to `kept` (a mask of the first 32),
/// the inheritable set to none.
pub fn set_capabilities(kept: u32) -> std::io::Result<()> {
    let mut header = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [
        CapData {
            effective: kept,
            permitted: kept,
            inheritable: 0,
        },
        CapData::default(),
    ];
    // SAFETY: capset with a live header and the two data structs version 3 reads.
    if unsafe { libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// The kernel's switches for unprivileged user namespaces (None: the switch does not exist
/// here).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Switches {
    /// Debian's `kernel.unprivileged_userns_clone`.
    pub debian_clone: Option<String>,
    /// Ubuntu 23.10+'s `kernel.apparmor_restrict_unprivileged_userns`.
    pub apparmor_restrict: Option<String>,
    /// `user.max_user_namespaces`.
    pub max_user_namespaces: Option<String>,
}

impl Switches {
    pub fn read() -> Switches {
        let read = |p: &str| {
            std::fs::read_to_string(p)
                .ok()
                .map(|s| s.trim().to_string())
        };
        Switches {
            debian_clone: read("/proc/sys/kernel/unprivileged_userns_clone"),
            apparmor_restrict: read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
            max_user_namespaces: read("/proc/sys/user/max_user_namespaces"),
        }
    }
}

/// Pure: why the kernel refused an unprivileged user namespace, and the fix, in one sentence.
pub fn why_refused(s: &Switches) -> String {
    let is = |v: &Option<String>, want: &str| v.as_deref() == Some(want);
    if is(&s.debian_clone, "0") {
        return "the kernel forbids unprivileged user namespaces (kernel.unprivileged_userns_clone = 0); \
                fix: sysctl -w kernel.unprivileged_userns_clone=1"
            .into();
    }
    if is(&s.apparmor_restrict, "1") {
        return "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1); \
                fix: an AppArmor profile for tool-containment with `userns,` (or set the sysctl to 0)"
            .into();
    }
    if is(&s.max_user_namespaces, "0") {
        return "user namespaces are disabled (user.max_user_namespaces = 0); \
                fix: sysctl -w user.max_user_namespaces=15000"
            .into();
    }
    "the kernel refused an unprivileged user namespace (no known switch says why: a container's \
     seccomp profile or a security module); fix: allow unshare(CLONE_NEWUSER) for this user"
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_switch_that_forbids_user_namespaces_is_named_with_its_fix() {
        let s = |d: Option<&str>, a: Option<&str>, m: Option<&str>| Switches {
            debian_clone: d.map(String::from),
            apparmor_restrict: a.map(String::from),
            max_user_namespaces: m.map(String::from),
        };
        let debian = why_refused(&s(Some("0"), None, Some("1000")));
        assert!(debian.contains("sysctl -w kernel.unprivileged_userns_clone=1"));
        let ubuntu = why_refused(&s(None, Some("1"), Some("1000")));
        assert!(ubuntu.contains("AppArmor") && ubuntu.contains("userns,"));
        let max = why_refused(&s(Some("1"), Some("0"), Some("0")));
        assert!(max.contains("user.max_user_namespaces"));
        let unknown = why_refused(&s(Some("1"), Some("0"), Some("1000")));
        assert!(unknown.contains("no known switch"));
        for line in [debian, ubuntu, max, unknown] {
            assert!(!line.contains('\n') && line.contains("fix:"), "{line}");
        }
    }
}
