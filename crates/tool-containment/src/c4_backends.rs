//! C4: which backend this host offers, in order: cgroup v2 where we may create and enter a child,
//! cgroup v1 `pids` + `memory` hierarchies, `systemd-run --user --scope`, none.
//!
//! Probing reads `/proc/self/mountinfo`, `/proc/self/cgroup` and a few cgroupfs files; it is on
//! the hot path of every agent command, so it spawns nothing and reads no config. The choice
//! itself ([`choose`]) is a pure function of the [`HostFacts`] so fixtures can pin it.
//!
//! Where a session's groups live: under the caller's own cgroup (v1: per controller; the CLI's
//! cgroup, since the prefix is its direct child), so whatever accounting the host already imposes
//! (a container's memory group) keeps applying. On v2 the no-internal-processes rule forbids
//! enabling controllers in a group that holds processes, so the anchor is the nearest ancestor
//! (or the root) that holds none and whose `cgroup.subtree_control` we may write.

use std::path::{Path, PathBuf};

/// One line of `/proc/self/mountinfo`, the fields we use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub point: PathBuf,
    /// The mount's root inside its filesystem (`/` unless bind-mounted or namespaced).
    pub root: String,
    pub fstype: String,
    pub super_opts: Vec<String>,
}

/// Parses `/proc/self/mountinfo` text, keeping cgroup and cgroup2 mounts.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let l: Vec<&str> = left.split(' ').collect();
            let r: Vec<&str> = right.split(' ').collect();
            let fstype = (*r.first()?).to_string();
            if fstype != "cgroup" && fstype != "cgroup2" {
                return None;
            }
            Some(Mount {
                point: PathBuf::from(unescape_mount(l.get(4)?)),
                root: unescape_mount(l.get(3)?),
                fstype,
                super_opts: r.get(2)?.split(',').map(str::to_string).collect(),
            })
        })
        .collect()
}

/// mountinfo escapes space, tab, newline and backslash as octal.
fn unescape_mount(s: &str) -> String {
    s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

/// `/proc/self/cgroup` as (controllers, path) pairs; `""` controllers is the v2 line.
pub fn parse_proc_cgroup(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            let _id = parts.next()?;
            Some((parts.next()?.to_string(), parts.next()?.to_string()))
        })
        .collect()
}

/// The directory of cgroup `path` inside `mount`, or `None` when the mount does not show it
/// (the path lies outside the mount's root).
pub fn dir_in_mount(mount: &Mount, path: &str) -> Option<PathBuf> {
    let rel = if mount.root == "/" {
        path
    } else {
        let rest = path.strip_prefix(mount.root.as_str())?;
        if !rest.is_empty() && !rest.starts_with('/') {
            return None;
        }
        rest
    };
    let rel = rel.trim_start_matches('/');
    if rel.split('/').any(|c| c == "..") {
        return None;
    }
    Some(if rel.is_empty() {
        mount.point.clone()
    } else {
        mount.point.join(rel)
    })
}

/// What the prefix learned about the host.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HostFacts {
    /// A usable v2 anchor (mount point, anchor dir), or why not.
    pub v2: Result<(PathBuf, PathBuf), String>,
    /// Our own v1 `pids` and `memory` dirs with their mount points, or why not.
    pub v1: Result<V1Dirs, String>,
    /// The `systemd-run` program when a user manager is reachable, or why not.
    pub systemd: Result<PathBuf, String>,
}

/// Our own directories in the v1 `pids` and `memory` hierarchies.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct V1Dirs {
    pub pids_mount: PathBuf,
    pub pids: PathBuf,
    pub memory_mount: PathBuf,
    pub memory: PathBuf,
}

/// The backend a command runs under.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum Backend {
    V2 {
        mount: PathBuf,
        anchor: PathBuf,
    },
    V1(V1Dirs),
    Systemd {
        program: PathBuf,
    },
    /// No backend: the reasons, one per backend tried.
    None {
        reasons: Vec<String>,
    },
}

impl Backend {
    pub fn name(&self) -> &'static str {
        match self {
            Backend::V2 { .. } => "cgroup v2",
            Backend::V1(_) => "cgroup v1",
            Backend::Systemd { .. } => "systemd-run --user --scope",
            Backend::None { .. } => "none",
        }
    }
}

/// C4's order, over the facts.
pub fn choose(facts: &HostFacts) -> Backend {
    if let Ok((mount, anchor)) = &facts.v2 {
        return Backend::V2 {
            mount: mount.clone(),
            anchor: anchor.clone(),
        };
    }
    if let Ok(dirs) = &facts.v1 {
        return Backend::V1(dirs.clone());
    }
    if let Ok(program) = &facts.systemd {
        return Backend::Systemd {
            program: program.clone(),
        };
    }
    let why = |r: &Result<_, String>, name: &str| match r {
        Err(e) => format!("{name}: {e}"),
        Ok(_) => format!("{name}: usable"),
    };
    Backend::None {
        reasons: vec![
            why(
                &facts.v2.as_ref().map(|_| ()).map_err(Clone::clone),
                "cgroup v2",
            ),
            why(
                &facts.v1.as_ref().map(|_| ()).map_err(Clone::clone),
                "cgroup v1",
            ),
            why(
                &facts.systemd.as_ref().map(|_| ()).map_err(Clone::clone),
                "systemd",
            ),
        ],
    }
}

/// May this process write `path`? (root may write any cgroupfs file.)
fn writable(path: &Path, euid: u32) -> bool {
    if euid == 0 {
        return path.exists();
    }
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: access() only reads the NUL-terminated path we own.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

fn has_controllers(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("cgroup.controllers"))
        .map(|t| {
            let words: Vec<&str> = t.split_whitespace().collect();
            words.contains(&"pids") && words.contains(&"memory")
        })
        .unwrap_or(false)
}

fn holds_processes(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .map(|t| !t.trim().is_empty())
        .unwrap_or(true)
}

/// The v2 anchor: the nearest ancestor-or-self of `own` (a dir under `mount`) that is the root or
/// holds no processes, whose `cgroup.subtree_control` and `cgroup.procs` we may write, and which
/// offers `pids` and `memory`.
pub fn v2_anchor(mount: &Path, own: &Path, euid: u32) -> Result<PathBuf, String> {
    let mut dir = own.to_path_buf();
    loop {
        let is_root = dir == mount;
        let may_write = writable(&dir.join("cgroup.subtree_control"), euid)
            && writable(&dir.join("cgroup.procs"), euid);
        if may_write && (is_root || !holds_processes(&dir)) {
            return if has_controllers(&dir) {
                Ok(dir)
            } else {
                Err(format!(
                    "{} offers no pids and memory controllers",
                    dir.display()
                ))
            };
        }
        if is_root || !dir.pop() || !dir.starts_with(mount) {
            return Err(format!(
                "no cgroup at or above {} that this user may write and that holds no processes",
                own.display()
            ));
        }
    }
}

fn probe_v2(
    mounts: &[Mount],
    lines: &[(String, String)],
    euid: u32,
) -> Result<(PathBuf, PathBuf), String> {
    let mount = mounts
        .iter()
        .find(|m| m.fstype == "cgroup2")
        .ok_or("no cgroup2 mount")?;
    let path = lines
        .iter()
        .find(|(c, _)| c.is_empty())
        .map(|(_, p)| p.as_str())
        .ok_or("no v2 line in /proc/self/cgroup")?;
    let own = dir_in_mount(mount, path)
        .ok_or_else(|| format!("our cgroup {path} is outside {}", mount.point.display()))?;
    v2_anchor(&mount.point, &own, euid).map(|a| (mount.point.clone(), a))
}

fn v1_dir(
    mounts: &[Mount],
    lines: &[(String, String)],
    controller: &str,
) -> Result<(PathBuf, PathBuf), String> {
    let mount = mounts
        .iter()
        .find(|m| m.fstype == "cgroup" && m.super_opts.iter().any(|o| o == controller))
        .ok_or_else(|| format!("no v1 {controller} hierarchy mounted"))?;
    let path = lines
        .iter()
        .find(|(c, _)| c.split(',').any(|x| x == controller))
        .map(|(_, p)| p.as_str())
        .ok_or_else(|| format!("no {controller} line in /proc/self/cgroup"))?;
    let dir = dir_in_mount(mount, path)
        .ok_or_else(|| format!("our {controller} cgroup {path} is not visible"))?;
    Ok((mount.point.clone(), dir))
}

fn probe_v1(mounts: &[Mount], lines: &[(String, String)], euid: u32) -> Result<V1Dirs, String> {
    let (pids_mount, pids) = v1_dir(mounts, lines, "pids")?;
    let (memory_mount, memory) = v1_dir(mounts, lines, "memory")?;
    for d in [&pids, &memory] {
        if !writable(d, euid) {
            return Err(format!("{} is not writable by this user", d.display()));
        }
    }
    Ok(V1Dirs {
        pids_mount,
        pids,
        memory_mount,
        memory,
    })
}

/// `systemd-run` on `PATH` and a user manager at `$XDG_RUNTIME_DIR/systemd/private`.
fn probe_systemd(env: &dyn Fn(&str) -> Option<String>, euid: u32) -> Result<PathBuf, String> {
    if euid == 0 {
        return Err("not used as root (root creates groups directly)".into());
    }
    let runtime = env("XDG_RUNTIME_DIR")
        .filter(|d| d.starts_with('/'))
        .unwrap_or_else(|| format!("/run/user/{euid}"));
    if !Path::new(&runtime).join("systemd/private").exists() {
        return Err(format!("no user manager at {runtime}/systemd/private"));
    }
    let path = env("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    path.split(':')
        .map(|d| Path::new(d).join("systemd-run"))
        .find(|p| p.is_file())
        .ok_or_else(|| "systemd-run not on PATH".into())
}

/// Gathers the facts from `proc_self` (normally `/proc/self`), the effective uid and the env.
pub fn probe(proc_self: &Path, euid: u32, env: &dyn Fn(&str) -> Option<String>) -> HostFacts {
    let mounts = std::fs::read_to_string(proc_self.join("mountinfo"))
        .map(|t| parse_mountinfo(&t))
        .unwrap_or_default();
    let lines = std::fs::read_to_string(proc_self.join("cgroup"))
        .map(|t| parse_proc_cgroup(&t))
        .unwrap_or_default();
    let v2 = probe_v2(&mounts, &lines, euid);
    // The later backends are only needed when the earlier ones are not usable.
    let v1 = if v2.is_ok() {
        Err("not probed (v2 usable)".into())
    } else {
        probe_v1(&mounts, &lines, euid)
    };
    let systemd = if v2.is_ok() || v1.is_ok() {
        Err("not probed (a direct backend is usable)".into())
    } else {
        probe_systemd(env, euid)
    };
    HostFacts { v2, v1, systemd }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
35 25 0:30 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
36 25 0:31 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 25 0:35 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
41 25 0:36 /sub /mnt/bound rw - cgroup cgroup rw,pids
22 1 8:1 / / rw - ext4 /dev/sda1 rw";

    #[test]
    fn parses_cgroup_mounts_only() {
        let m = parse_mountinfo(MOUNTINFO);
        assert_eq!(m.len(), 4);
        assert_eq!(m[2].fstype, "cgroup2");
        assert_eq!(m[3].root, "/sub");
    }

    #[test]
    fn maps_cgroup_paths_into_mounts() {
        let m = parse_mountinfo(MOUNTINFO);
        assert_eq!(
            dir_in_mount(&m[0], "/process_api/x"),
            Some(PathBuf::from("/sys/fs/cgroup/memory/process_api/x"))
        );
        assert_eq!(
            dir_in_mount(&m[1], "/"),
            Some(PathBuf::from("/sys/fs/cgroup/pids"))
        );
        assert_eq!(
            dir_in_mount(&m[3], "/sub/a"),
            Some(PathBuf::from("/mnt/bound/a"))
        );
        assert_eq!(dir_in_mount(&m[3], "/subway"), None);
        assert_eq!(dir_in_mount(&m[3], "/other"), None);
        assert_eq!(dir_in_mount(&m[1], "/../etc"), None);
    }

    #[test]
    fn order_is_v2_v1_systemd_none() {
        let dirs = V1Dirs {
            pids_mount: "/p".into(),
            pids: "/p".into(),
            memory_mount: "/m".into(),
            memory: "/m".into(),
        };
        let mut f = HostFacts {
            v2: Ok(("/c".into(), "/c".into())),
            v1: Ok(dirs.clone()),
            systemd: Ok("/usr/bin/systemd-run".into()),
        };
        assert!(matches!(choose(&f), Backend::V2 { .. }));
        f.v2 = Err("x".into());
        assert_eq!(choose(&f), Backend::V1(dirs));
        f.v1 = Err("y".into());
        assert!(matches!(choose(&f), Backend::Systemd { .. }));
        f.systemd = Err("z".into());
        let Backend::None { reasons } = choose(&f) else {
            panic!()
        };
        assert_eq!(reasons, vec!["cgroup v2: x", "cgroup v1: y", "systemd: z"]);
    }
}
