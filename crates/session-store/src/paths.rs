//! The state dir and the per-session folders in it.

use crate::StoreError;
use std::path::{Path, PathBuf};

/// The state dir from an environment lookup: `$XDG_STATE_HOME/agent-guards`, else
/// `$HOME/.local/state/agent-guards`.
pub fn state_dir(env: &dyn Fn(&str) -> Option<String>) -> Result<PathBuf, StoreError> {
    if let Some(x) = env("XDG_STATE_HOME").filter(|x| x.starts_with('/')) {
        return Ok(Path::new(&x).join("agent-guards"));
    }
    env("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| Path::new(&h).join(".local/state/agent-guards"))
        .ok_or(StoreError::NoStateDir)
}

/// A folder name for a session id: kept when it is a plain id, else made safe and suffixed with a
/// hash so that two different ids can never share a folder.
pub fn session_dir_name(session_id: &str) -> String {
    let plain = !session_id.is_empty()
        && session_id.len() <= 128
        && session_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !session_id.starts_with('-');
    if plain {
        return session_id.to_string();
    }
    let safe: String = session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(64)
        .collect();
    format!(
        "x{safe}-{:016x}",
        primitives::hash::fnv1a(session_id.as_bytes())
    )
}

/// One session's folder. Records without a session id go to the `_no-session` folder.
#[derive(Debug, Clone)]
pub struct Session {
    dir: PathBuf,
    /// The same session's folder where the other side keeps its records: for a hook (the agent's
    /// user), the exec-gate service's folder for this user; for the service, the user's own.
    /// Readers of state that fails closed (taint) read both.
    mirror: Option<PathBuf>,
}

impl Session {
    /// The folder of `session_id` under `state_dir` (`_no-session` without an id).
    pub fn new(state_dir: &Path, session_id: Option<&str>) -> Session {
        let name = match session_id {
            Some(id) if !id.is_empty() => session_dir_name(id),
            _ => "_no-session".to_string(),
        };
        let service = crate::service::state_dir(primitives::users::effective_uid());
        let mirror = (!state_dir.starts_with(crate::service::STATE_DIR))
            .then(|| service.join("sessions").join(&name));
        Session {
            dir: state_dir.join("sessions").join(name),
            mirror,
        }
    }

    /// The same session with its other records in `dir`'s `sessions/<id>` (the service reading
    /// the user's).
    pub fn with_mirror_in(mut self, state_dir: &Path) -> Session {
        let name = self.dir.file_name().map(|n| n.to_os_string());
        self.mirror = name.map(|n| state_dir.join("sessions").join(n));
        self
    }

    /// The folder with this session's records kept by the other side ([`Session::with_mirror_in`]).
    pub fn mirror(&self) -> Option<Session> {
        self.mirror.as_ref().map(|dir| Session {
            dir: dir.clone(),
            mirror: None,
        })
    }

    /// The session's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates the folder (and its parents) when missing.
    pub fn ensure(&self) -> Result<(), StoreError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| StoreError::io(&self.dir, e))
    }

    /// The session's ledger (`ledger.json`).
    pub fn ledger(&self) -> crate::Ledger {
        crate::Ledger::at(self.dir.join("ledger.json"))
    }

    /// The folder where each running exec-gate supervisor of the session keeps a file named by
    /// its pid: its start time, then `<watchdog pid> <start time>` (second-line writes it; the
    /// sweep reads it to tell the suite's own processes from the agent's leftovers).
    pub fn supervisors_dir(&self) -> PathBuf {
        self.dir.join(SUPERVISORS_DIR)
    }

    /// The suite's own processes recorded in [`Session::supervisors_dir`]: (pid, start time in
    /// clock ticks since boot) of each supervisor and its watchdog. Bounded reads; a file that
    /// does not parse adds nothing.
    pub fn supervisor_processes(&self) -> Vec<(i32, u64)> {
        let Ok(dir) = std::fs::read_dir(self.supervisors_dir()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for entry in dir.flatten().take(4096) {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            let Some(text) = primitives::read::prefix(&entry.path(), 256) else {
                continue;
            };
            let text = String::from_utf8_lossy(&text);
            let mut lines = text.lines();
            if let Some(start) = lines.next().and_then(|l| l.trim().parse().ok()) {
                out.push((pid, start));
            }
            let watchdog = lines.next().and_then(|l| {
                let (p, s) = l.trim().split_once(' ')?;
                Some((p.parse().ok()?, s.trim().parse().ok()?))
            });
            out.extend(watchdog);
        }
        out
    }

    /// The session's audit log (`audit.jsonl`).
    pub fn audit(&self) -> crate::AuditLog {
        let log = crate::AuditLog::at(self.dir.join(AUDIT_FILE));
        // The state dir is two folders up (`<state>/sessions/<id>`).
        let name = self
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        match (self.dir.parent().and_then(Path::parent), name) {
            (Some(state), Some(name)) => log
                .saying_failures_in(state.join(crate::audit::UNDELIVERED_FILE))
                .copying_to_journal(state, &name),
            _ => log,
        }
    }

    /// The project folder the session started in, as a hook recorded it (`project_dir`):
    /// hooks get `CLAUDE_PROJECT_DIR`, agent commands (and so the exec gate) do not. A bounded
    /// read of a regular file; anything but an absolute path is no answer.
    pub fn project_dir(&self) -> Option<PathBuf> {
        let bytes = primitives::read::prefix(&self.dir.join(PROJECT_DIR), 4096)?;
        let text = String::from_utf8(bytes).ok()?;
        Some(PathBuf::from(text)).filter(|p| p.is_absolute())
    }

    /// Records `dir` (absolute) as the session's project folder, unless it already is.
    pub fn record_project_dir(&self, dir: &Path) -> Result<(), StoreError> {
        let file = self.dir.join(PROJECT_DIR);
        if !dir.is_absolute() || self.project_dir().as_deref() == Some(dir) {
            return Ok(());
        }
        self.ensure()?;
        let text = dir.to_str().ok_or_else(|| {
            StoreError::io(
                &file,
                std::io::Error::other("the project folder is not UTF-8"),
            )
        })?;
        primitives::atomic::write_atomically(&file, text.as_bytes(), Some(0o600))
            .map_err(|e| StoreError::io(&file, e))
    }
}

/// The folder of the session's supervisor records ([`Session::supervisors_dir`]).
pub const SUPERVISORS_DIR: &str = "second-line";

/// The running OTLP sender (issue 45), `<pid> <start time in clock ticks>`, in the state folder:
/// written by audit-export's sender, read by the stray-process sweep ([`otlp_sender`]) to tell
/// it from the agent's leftovers.
pub const OTLP_SENDER_RECORD: &str = "otlp-sender";

/// The binary the OTLP sender runs as (a hook that starts itself again): the sweep accepts a
/// recorded sender only when it runs this binary.
pub const OTLP_SENDER_BINARY: &str = "integrity-signals";

/// The OTLP sender its record names (pid, start time), if it left one.
pub fn otlp_sender(state_dir: &Path) -> Option<(i32, u64)> {
    let bytes = primitives::read::prefix(&state_dir.join(OTLP_SENDER_RECORD), 64)?;
    let text = String::from_utf8(bytes).ok()?;
    let (pid, start) = text.trim().split_once(' ')?;
    Some((pid.parse().ok()?, start.parse().ok()?))
}

/// The file of a session's audit log, in its folder.
pub const AUDIT_FILE: &str = "audit.jsonl";

/// The file a session's project folder is recorded in.
const PROJECT_DIR: &str = "project_dir";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ids_are_kept_and_others_hashed() {
        assert_eq!(session_dir_name("3f2a-bc_9"), "3f2a-bc_9");
        let odd = session_dir_name("../../etc");
        assert!(!odd.contains('/') && !odd.contains(".."), "{odd}");
        assert_ne!(session_dir_name("a/b"), session_dir_name("a.b"));
        assert!(session_dir_name("-rf").starts_with('x'));
    }

    #[test]
    fn the_project_folder_is_recorded_once_and_read_back_bounded() {
        let state = tempfile::tempdir().unwrap();
        let s = Session::new(state.path(), Some("abc"));
        assert_eq!(s.project_dir(), None);
        s.record_project_dir(Path::new("/work/project")).unwrap();
        assert_eq!(s.project_dir(), Some(PathBuf::from("/work/project")));
        // A relative path is never recorded; a new project folder replaces the old.
        s.record_project_dir(Path::new("rel")).unwrap();
        assert_eq!(s.project_dir(), Some(PathBuf::from("/work/project")));
        s.record_project_dir(Path::new("/work/other")).unwrap();
        assert_eq!(s.project_dir(), Some(PathBuf::from("/work/other")));
        // A FIFO where the record should be is no answer, and reading it does not block.
        let fifo = Session::new(state.path(), Some("fifo"));
        fifo.ensure().unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(fifo.dir().join(PROJECT_DIR))
            .status()
            .unwrap();
        assert!(made.success());
        assert_eq!(fifo.project_dir(), None);
    }

    #[test]
    fn a_sessions_log_is_copied_to_the_journal_as_that_session_of_that_state_dir() {
        // Every hook and the exec gate's supervisor (second-line's `write_records`) take their
        // log from here: this is the one place the journal copy is switched on.
        let state = Path::new("/s/agent-guards");
        let s = Session::new(state, Some("a/b"));
        let name = session_dir_name("a/b");
        assert_eq!(
            s.audit().journal_origin(),
            Some(crate::journal::Origin {
                state_dir: "/s/agent-guards",
                session: &name,
            })
        );
        // Another log (integrity-signals' signals file) is not a session's audit trail.
        assert_eq!(
            crate::AuditLog::at(state.join("x.jsonl")).journal_origin(),
            None
        );
    }

    #[test]
    fn state_dir_follows_xdg() {
        let env = |k: &str| match k {
            "XDG_STATE_HOME" => Some("/s".to_string()),
            "HOME" => Some("/h".to_string()),
            _ => None,
        };
        assert_eq!(state_dir(&env).unwrap(), PathBuf::from("/s/agent-guards"));
        let env = |k: &str| (k == "HOME").then(|| "/h".to_string());
        assert_eq!(
            state_dir(&env).unwrap(),
            PathBuf::from("/h/.local/state/agent-guards")
        );
        assert!(state_dir(&|_| None).is_err());
    }
}
