//! The JSON-lines audit log: the maintainer's full evidence, one record per line.
//!
//! Lines are appended under an exclusive lock on the log file so that parallel hooks (the CLI runs
//! every matching hook at once) never interleave, whatever a line's length. The lock is waited for
//! within a bound and the file must be a regular one: anything else is an error, never a wait.
//! A session's log also sends each record to the journal ([`crate::journal`]), where the agent's
//! user cannot erase it.

use crate::StoreError;
use primitives::no_wait::{lock_while_progressing, open_regular, LockKind, LOCK_BOUND};
use serde_json::{Map, Value};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The most of a log [`AuditLog::read_all`] reads.
pub const MAX_READ_BYTES: u64 = 64 * 1024 * 1024;

/// One audit log file.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
    /// Where a record that could not be appended is said instead ([`UNDELIVERED_FILE`] in the
    /// state dir), for `report` and the next SessionStart.
    undelivered: Option<PathBuf>,
    /// The session whose records also go to the journal ([`crate::journal`]), when this is a
    /// session's `audit.jsonl`.
    journal: Option<JournalCopy>,
}

/// What the journal copy of a record names besides the record: whose state dir and session.
#[derive(Debug, Clone)]
struct JournalCopy {
    state_dir: String,
    session: String,
}

/// The state dir's file of records that could not be written (one line each: time, log, why).
pub const UNDELIVERED_FILE: &str = "undelivered.jsonl";

impl AuditLog {
    /// The log at `path` (created on the first append).
    pub fn at(path: PathBuf) -> AuditLog {
        AuditLog {
            path,
            undelivered: None,
            journal: None,
        }
    }

    /// The same log, saying each record it could not write in `file` (best effort, no wait).
    pub fn saying_failures_in(mut self, file: PathBuf) -> AuditLog {
        self.undelivered = Some(file);
        self
    }

    /// The same log, each record also sent to the journal as `session` of `state_dir` (config
    /// `audit_journal`, [`crate::journal`]): the copy the agent cannot erase.
    pub fn copying_to_journal(mut self, state_dir: &Path, session: &str) -> AuditLog {
        self.journal = Some(JournalCopy {
            state_dir: state_dir.display().to_string(),
            session: session.to_string(),
        });
        self
    }

    /// Whose copy goes to the journal, when this log's records are copied there.
    pub fn journal_origin(&self) -> Option<crate::journal::Origin<'_>> {
        self.journal.as_ref().map(|j| crate::journal::Origin {
            state_dir: &j.state_dir,
            session: &j.session,
        })
    }

    /// Where the log is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record; `time` is added when absent. The record must be a JSON object.
    ///
    /// In a hook that has not answered yet ([`primitives::after_answer`]) the append is deferred
    /// until the answer is out, and its failure is reported then, never to the caller: the log is
    /// the agent's to lock or replace, and the answer must not wait on it (issue 47). Elsewhere it
    /// is written at once, never waiting longer than [`primitives::no_wait::LOCK_BOUND`]. A
    /// session's log ([`AuditLog::copying_to_journal`]) first sends the same line to the journal
    /// ([`crate::journal`]); either failure is said in the undelivered file.
    pub fn append(&self, record: &Value) -> Result<(), StoreError> {
        let mut record = match record {
            Value::Object(m) => m.clone(),
            other => {
                let mut m = Map::new();
                m.insert("record".into(), other.clone());
                m
            }
        };
        if !record.contains_key("time") {
            record.insert("time".into(), Value::String(crate::time::now_rfc3339()));
        }
        let mut line = Value::Object(record).to_string();
        let path = self.path.clone();
        let shown = self.path.display().to_string();
        let undelivered = self.undelivered.clone();
        let journal = self.journal.clone();
        primitives::after_answer::defer(Box::new(move || {
            let say = |to: &Path, e: &str| {
                if let Some(file) = &undelivered {
                    say_undelivered(file, to, e);
                }
            };
            // The journal first: it never waits, and it is the copy a held log cannot stop.
            let copied = journal.as_ref().map_or(Ok(()), |j| {
                let mode = crate::journal::configured_mode();
                let origin = crate::journal::Origin {
                    state_dir: &j.state_dir,
                    session: &j.session,
                };
                crate::journal::send(mode, origin, &line)
            });
            if let Err(e) = &copied {
                say(Path::new(crate::journal::JOURNAL_SOCKET), e);
            }
            line.push('\n');
            let appended = append_line(&path, line.as_bytes()).map_err(|e| {
                say(&path, &e.to_string());
                e.to_string()
            });
            appended.and(copied)
        }))
        .map_err(|e| StoreError::io(Path::new(&shown), std::io::Error::other(e)))
    }

    /// Reads every record (lines that do not parse are skipped and counted).
    /// The log is read from a regular file only (a FIFO in its place is an error at once) and
    /// up to [`MAX_READ_BYTES`]; a longer log's tail past it is not read, and counted as one
    /// unreadable line.
    pub fn read_all(&self) -> Result<(Vec<Value>, usize), StoreError> {
        let file = match open_regular(&self.path, OpenOptions::new().read(true)) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
            Err(e) => return Err(StoreError::io(&self.path, e)),
        };
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(file, MAX_READ_BYTES + 1),
            &mut bytes,
        )
        .map_err(|e| StoreError::io(&self.path, e))?;
        let cut = bytes.len() as u64 > MAX_READ_BYTES;
        bytes.truncate(MAX_READ_BYTES as usize);
        let text = String::from_utf8_lossy(&bytes);
        let mut bad = 0;
        let mut out = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str(line) {
                Ok(v) => out.push(v),
                Err(_) => bad += 1,
            }
        }
        Ok((out, bad + usize::from(cut)))
    }
}

/// One line in the undelivered file: when, which log, why (not the record: it may be large, and
/// it is the agent's own activity). Never waits: a held or missing file loses the line.
fn say_undelivered(file: &Path, log: &Path, why: &str) {
    let line = serde_json::json!({"time": crate::time::now_rfc3339(), "log": log, "error": why});
    if let Ok(mut f) = open_regular(file, OpenOptions::new().create(true).append(true)) {
        if f.try_lock().is_ok() {
            let _ = f.write_all(format!("{line}\n").as_bytes());
            let _ = f.unlock();
        }
    }
}

/// The records that could not be written, as said in `file` (the state dir's
/// [`UNDELIVERED_FILE`], or a copy already said): how many, and the last one (`None` when none).
/// Bounded read.
pub fn undelivered_in(file: &Path) -> Option<(usize, Value)> {
    let text = primitives::read::prefix(file, 4 * 1024 * 1024)?;
    let lines: Vec<Value> = String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let last = lines.last()?.clone();
    Some((lines.len(), last))
}

/// Appends `line` to the regular file at `path` under its lock, waiting for nothing the agent
/// can hold: a FIFO or device in its place and a lock held past the bound are errors.
fn append_line(path: &Path, line: &[u8]) -> Result<(), StoreError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| StoreError::io(parent, e))?;
    }
    let mut file = open_regular(path, OpenOptions::new().create(true).append(true))
        .map_err(|e| StoreError::io(path, e))?;
    // Writers append: a log that grows is changing hands.
    let progress = || file.metadata().map_or(0, |m| m.len());
    lock_while_progressing(&file, LockKind::Exclusive, LOCK_BOUND, &progress)
        .map_err(|e| StoreError::io(path, e))?;
    // One write of the whole line while holding the lock.
    let result = file.write_all(line);
    let _ = file.unlock();
    result.map_err(|e| StoreError::io(path, e))
}
