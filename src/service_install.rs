//! What a system install adds for the exec-gate service (issue 40 item 2): the `agent-guards`
//! system account the service runs as, and, where systemd runs, its socket-activated units.
//!
//! The account is added the way the settings merge edits JSON: as text. One line is appended to
//! each of `passwd`, `group`, `shadow` and `gshadow` (the last two where they exist), each file
//! kept byte for byte otherwise (owner and mode too), and the manifest records exactly what was
//! appended; the uninstall removes exactly that, so an admin's edits made meanwhile stay and the
//! round trip gives every file back byte for byte (`useradd`/`userdel` would also rewrite the
//! `-` backups). An account already there (made by hand, or by an earlier install) is used and
//! never removed.

use session_store::service::{KEPT_CAPABILITIES, SOCKET, USER};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, String>;

/// The socket unit's file name.
pub const SOCKET_UNIT: &str = "agent-guards-exec-gate.socket";
/// The service unit's file name.
pub const SERVICE_UNIT: &str = "agent-guards-exec-gate.service";

/// The lines of the service account with id `id` (uid and gid alike), by password-database
/// file, in the order they are added.
fn account_lines(id: u32) -> [(&'static str, String); 4] {
    [
        (
            "passwd",
            format!(
                "{USER}:x:{id}:{id}:agent-guards exec-gate service:/nonexistent:/usr/sbin/nologin"
            ),
        ),
        ("group", format!("{USER}:x:{id}:")),
        // `!`: no password can ever match; no ageing fields.
        ("shadow", format!("{USER}:!:::::::")),
        ("gshadow", format!("{USER}:!::")),
    ]
}

/// Whether `text` (a `passwd` or `group` file) has an entry named `name`.
fn has_entry(text: &str, name: &str) -> bool {
    text.lines().any(|l| l.split(':').next() == Some(name))
}

/// The ids taken in the third field of a `passwd` or `group` file.
fn ids(text: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|l| l.split(':').nth(2)?.parse().ok())
        .collect()
}

/// `SYS_UID_MIN`/`SYS_UID_MAX` (and the gid pair) from `login.defs`, else Debian's 100–999.
fn system_range(login_defs: &str) -> (u32, u32) {
    let get = |key: &str| {
        login_defs.lines().find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some(key)).then(|| w.next()?.parse::<u32>().ok())?
        })
    };
    let lo = get("SYS_UID_MIN").max(get("SYS_GID_MIN")).unwrap_or(100);
    let hi = get("SYS_UID_MAX").min(get("SYS_GID_MAX")).unwrap_or(999);
    (lo, hi)
}

/// The highest id in the system range free as both a uid and a gid (as `useradd --system`
/// counts down). Pure.
pub fn free_system_id(passwd: &str, group: &str, login_defs: &str) -> Option<u32> {
    let (lo, hi) = system_range(login_defs);
    let taken: Vec<u32> = ids(passwd).into_iter().chain(ids(group)).collect();
    (lo..=hi).rev().find(|id| !taken.contains(id))
}

/// What appending `line` to a file holding `text` adds: the line and its newline, after a
/// newline the file lacked at its end.
fn appended(text: &str, line: &str) -> String {
    let sep = if text.is_empty() || text.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    format!("{sep}{line}\n")
}

/// `text` without the one occurrence of `added`, or `None` when it is not there exactly once
/// (edited since: left alone). Pure.
pub fn without(text: &str, added: &str) -> Option<String> {
    (text.matches(added).count() == 1).then(|| text.replacen(added, "", 1))
}

/// Reads a database file (bounded; a database is small).
fn read(path: &Path) -> Result<Option<String>> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
        Ok(m) if !m.is_file() => return Err(format!("{}: not a regular file", path.display())),
        Ok(_) => {}
    }
    let bytes = primitives::read::prefix(path, 16 * 1024 * 1024)
        .ok_or_else(|| format!("{}: could not be read", path.display()))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("{}: not UTF-8", path.display()))
}

/// Replaces `path` with `text` by rename, the new file given the old one's owner and mode
/// (`shadow` is `root:shadow 0640`).
fn replace_keeping_owner(path: &Path, text: &str) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let tmp = path.with_file_name(format!(
        ".{}.agent-guards-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("db"),
        std::process::id()
    ));
    let written = std::fs::write(&tmp, text)
        .and_then(|()| std::os::unix::fs::chown(&tmp, Some(meta.uid()), Some(meta.gid())))
        .and_then(|()| {
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(meta.mode() & 0o7777))
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

extern "C" {
    // glibc's lock over the password database (shadow.h), which useradd and vipw take too.
    fn lckpwdf() -> libc::c_int;
    fn ulckpwdf() -> libc::c_int;
}

/// Runs `f` holding the password-database lock when `etc` is the real `/etc`.
fn locked<T>(etc: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let real = etc == Path::new("/etc");
    // SAFETY: glibc's own lock functions, without arguments.
    if real && unsafe { lckpwdf() } != 0 {
        return Err("the password database is locked (another useradd or vipw?); try again".into());
    }
    let out = f();
    if real {
        // SAFETY: as above; we hold the lock.
        unsafe { ulckpwdf() };
    }
    out
}

/// Adds the service account to the password database under `etc` unless it has one; returns
/// what was appended to each file (for the manifest) and a line for the log.
pub fn add_account(etc: &Path) -> Result<(Vec<(PathBuf, String)>, String)> {
    locked(etc, || {
        let passwd_path = etc.join("passwd");
        let Some(passwd) = read(&passwd_path)? else {
            return Ok((
                Vec::new(),
                format!(
                    "no password database at {}: create the `{USER}` system account yourself (useradd --system --no-create-home --shell /usr/sbin/nologin {USER})",
                    passwd_path.display()
                ),
            ));
        };
        let group = read(&etc.join("group"))?.unwrap_or_default();
        if has_entry(&passwd, USER) {
            return Ok((
                Vec::new(),
                format!("the `{USER}` account exists already; the exec-gate service runs as it"),
            ));
        }
        if has_entry(&group, USER) {
            return Err(format!(
                "a group `{USER}` exists without a user of that name: remove it or create the user yourself"
            ));
        }
        let defs = read(&etc.join("login.defs"))?.unwrap_or_default();
        let id = free_system_id(&passwd, &group, &defs)
            .ok_or("no free system id for the service account")?;
        let mut added = Vec::new();
        for (file, line) in account_lines(id) {
            let path = etc.join(file);
            let Some(text) = read(&path)? else {
                continue;
            };
            let add = appended(&text, &line);
            replace_keeping_owner(&path, &format!("{text}{add}"))?;
            added.push((path, add));
        }
        Ok((
            added,
            format!("added the system account `{USER}` (uid and gid {id}, no login, no home): the exec-gate service runs as it"),
        ))
    })
}

/// Removes what [`add_account`] appended; a file edited so that the text is not there once is
/// left and named.
pub fn remove_account(etc: &Path, added: &[(PathBuf, String)]) -> Vec<String> {
    let removed = locked(etc, || {
        let mut log = Vec::new();
        // Reverse order: the shadow entries go before the user they describe.
        for (path, add) in added.iter().rev() {
            let outcome =
                read(path).and_then(|text| match text.as_deref().map(|t| without(t, add)) {
                    Some(Some(back)) => replace_keeping_owner(path, &back).map(|()| true),
                    _ => Ok(false),
                });
            match outcome {
                Ok(true) => {}
                Ok(false) => log.push(format!(
                    "left {}: the `{USER}` line the install added was changed since (remove it with userdel {USER})",
                    path.display()
                )),
                Err(e) => log.push(format!("left {}: {e}", path.display())),
            }
        }
        if !added.is_empty() {
            log.push(format!("removed the system account `{USER}`"));
        }
        Ok(log)
    });
    removed.unwrap_or_else(|e| vec![format!("left the `{USER}` account: {e}")])
}

/// The socket and service units for the binaries in `bin_dir`: systemd makes the socket, starts
/// the service as [`USER`] with only [`KEPT_CAPABILITIES`] when the first command connects, and
/// leaves running supervisors alone when the service restarts.
pub fn units(bin_dir: &Path) -> [(&'static str, String); 2] {
    let caps: Vec<&str> = KEPT_CAPABILITIES.iter().map(|(_, n)| *n).collect();
    let caps = caps.join(" ");
    [
        (
            SOCKET_UNIT,
            format!(
                "[Unit]\nDescription=agent-guards exec-gate service socket\n\n[Socket]\nListenSequentialPacket={}\nSocketMode=0666\nDirectoryMode=0755\n\n[Install]\nWantedBy=sockets.target\n",
                SOCKET
            ),
        ),
        (
            SERVICE_UNIT,
            format!(
                "[Unit]\nDescription=agent-guards exec-gate service (supervises agent commands as the {USER} user)\nRequires={SOCKET_UNIT}\n\n[Service]\nExecStart={} --exec-gate-service\nUser={USER}\nGroup={USER}\nAmbientCapabilities={caps}\nCapabilityBoundingSet={caps}\nStateDirectory=agent-guards\nStateDirectoryMode=0755\nKillMode=process\n\n[Install]\nWantedBy=multi-user.target\n",
                bin_dir.join(crate::registry::SHELL_PREFIX_BINARY).display()
            ),
        ),
    ]
}

/// Whether systemd is the init system here (its runtime folder exists).
fn systemd_runs() -> bool {
    Path::new("/run/systemd/system").is_dir()
}

/// Runs `systemctl args` (bounded); a line when it failed.
fn systemctl(args: &[&str]) -> Option<String> {
    let mut c = std::process::Command::new("systemctl");
    c.args(args);
    match crate::report::run_bounded(&mut c, std::time::Duration::from_secs(30)) {
        Some((0, _)) => None,
        Some((code, out)) => Some(format!(
            "systemctl {} failed ({code}): {}",
            args.join(" "),
            out.trim()
        )),
        None => Some(format!("systemctl {} did not finish", args.join(" "))),
    }
}

/// Writes the units into `<etc>/systemd/system` and starts the socket, where systemd runs and
/// the real `/etc` is the target; elsewhere says how to start the service. Each unit written is
/// recorded in `written`.
pub fn register_units(
    etc: &Path,
    bin_dir: &Path,
    written: &mut Vec<(PathBuf, String)>,
) -> Vec<String> {
    let dir = etc.join("systemd/system");
    if etc != Path::new("/etc") || !systemd_runs() || !dir.is_dir() {
        return vec![
            "no systemd runs here: the units were not written".into(),
            start_by_hand(bin_dir),
        ];
    }
    let mut log = Vec::new();
    for (name, text) in units(bin_dir) {
        let path = dir.join(name);
        let same = std::fs::read_to_string(&path).is_ok_and(|t| t == text);
        if path.exists() && !same && !written.iter().any(|(p, _)| *p == path) {
            log.push(format!(
                "left {}: it is not ours (the service was not registered)",
                path.display()
            ));
            log.push(start_by_hand(bin_dir));
            return log;
        }
        if let Err(e) = std::fs::write(&path, &text) {
            log.push(format!("{}: {e}", path.display()));
            log.push(start_by_hand(bin_dir));
            return log;
        }
        written.retain(|(p, _)| *p != path);
        written.push((path, text));
    }
    let failed: Vec<String> = [
        &["daemon-reload"][..],
        &["enable", "--now", SOCKET_UNIT][..],
    ]
    .iter()
    .filter_map(|a| systemctl(a))
    .collect();
    if failed.is_empty() {
        log.push(format!(
            "registered the exec-gate service with systemd ({SOCKET_UNIT}, enabled and listening; it starts as `{USER}` on the first agent command)"
        ));
    } else {
        log.extend(failed);
        log.push(start_by_hand(bin_dir));
    }
    log
}

/// Stops and removes the units the install wrote (each only while it has the installed text).
pub fn unregister_units(written: &[(PathBuf, String)]) -> Vec<String> {
    if written.is_empty() {
        return Vec::new();
    }
    let mut log: Vec<String> = [
        &["disable", "--now", SOCKET_UNIT][..],
        &["stop", SERVICE_UNIT][..],
    ]
    .iter()
    .filter_map(|a| systemctl(a))
    .collect();
    for (path, text) in written {
        match std::fs::read_to_string(path) {
            Ok(now) if now == *text => match std::fs::remove_file(path) {
                Ok(()) => log.push(format!("removed {}", path.display())),
                Err(e) => log.push(format!("left {}: {e}", path.display())),
            },
            Ok(_) => log.push(format!("left {}: edited since the install", path.display())),
            Err(_) => {}
        }
    }
    log.extend(systemctl(&["daemon-reload"]));
    log
}

/// What an uninstall leaves of the service, said: a service still answering (started by hand:
/// it is not the install's to stop) and its records, which are the maintainer's evidence.
pub fn left_running_or_kept() -> Vec<String> {
    let mut out = Vec::new();
    if session_store::service::answers(Path::new(SOCKET)) {
        out.push(format!(
            "the exec-gate service still answers at {SOCKET}: stop it (the process running `tool-containment --exec-gate-service`, as root)"
        ));
    }
    let state = Path::new(session_store::service::STATE_DIR);
    if state.exists() {
        out.push(format!(
            "kept the exec-gate service's records in {} (the exec gate's and the broker's audit records, relayed taint): rm -r {} to remove them",
            state.display(),
            state.display()
        ));
    }
    out
}

/// How to start the service where the install could not register it with systemd.
pub fn start_by_hand(bin_dir: &Path) -> String {
    format!(
        "start the exec-gate service as root (it drops to `{USER}`): sudo {} --exec-gate-service & (until it runs, every agent command is refused with C10.service)",
        bin_dir.join(crate::registry::SHELL_PREFIX_BINARY).display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_the_highest_free_in_the_system_range_for_user_and_group() {
        let passwd = "root:x:0:0::/root:/bin/bash\nsvc:x:999:999::/:/bin/false\n";
        let group = "root:x:0:\nother:x:998:\n";
        assert_eq!(free_system_id(passwd, group, ""), Some(997));
        let defs = "# comment\nSYS_UID_MIN 201\nSYS_UID_MAX 300\nSYS_GID_MAX   250\n";
        assert_eq!(free_system_id(passwd, group, defs), Some(250));
        let full = "SYS_UID_MIN 998\nSYS_UID_MAX 999\n";
        assert_eq!(free_system_id(passwd, group, full), None);
    }

    #[test]
    fn an_appended_line_comes_off_exactly_and_an_edited_one_stays() {
        for text in ["", "a:x:1:\n", "a:x:1:"] {
            let add = appended(text, "agent-guards:x:9:");
            let with = format!("{text}{add}");
            assert!(with.ends_with("agent-guards:x:9:\n"));
            assert_eq!(without(&with, &add).as_deref(), Some(text));
            // An admin's line after ours stays.
            let later = format!("{with}b:x:2:\n");
            assert_eq!(without(&later, &add), Some(format!("{text}b:x:2:\n")));
        }
        assert_eq!(without("a:x:1:\n", "\nagent-guards:x:9:\n"), None);
    }

    #[test]
    fn an_entry_is_matched_by_its_whole_name() {
        assert!(has_entry("x:y\nagent-guards:x:9:\n", "agent-guards"));
        assert!(!has_entry("agent-guards-old:x:9:\n", "agent-guards"));
    }
}
