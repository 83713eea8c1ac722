//! The state this binary keeps, in the session's folder under the state dir:
//!
//! * `integrity-signals.jsonl` — every signal recorded (hook and ingested), appended under a lock;
//! * the session ledger's `integrity` object — the identical-call run, the most recent result per
//!   runner (for I2) and when the session was first seen;
//! * `integrity-report.json` / `integrity-report.txt` — the SessionEnd report (I6);
//! * the shared audit log — the decision records.

use crate::i2_fabricated_claims::{RunResult, Runner};
use crate::signal::Signal;
use serde_json::{json, Map, Value};
use session_store::{AuditLog, Session};
use std::path::{Path, PathBuf};

pub const SIGNALS_FILE: &str = "integrity-signals.jsonl";
pub const REPORT_JSON: &str = "integrity-report.json";
pub const REPORT_TEXT: &str = "integrity-report.txt";
pub const CALLS_FILE: &str = "integrity-calls.log";
/// How much of the call log's end is read: far more than the retry threshold's lines.
const CALLS_TAIL: u64 = 16 * 1024;
const LEDGER_KEY: &str = "integrity";

#[derive(Debug, Clone)]
pub struct Store {
    pub state_dir: PathBuf,
}

/// The identical-call run as the ledger holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub fingerprint: String,
    pub count: u64,
    pub first_tool_use_id: String,
}

impl Store {
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Store, String> {
        session_store::state_dir(env)
            .map(|state_dir| Store { state_dir })
            .map_err(|e| e.to_string())
    }

    pub fn session(&self, id: Option<&str>) -> Session {
        Session::new(&self.state_dir, id)
    }

    fn signals_log(&self, id: Option<&str>) -> AuditLog {
        AuditLog::at(self.session(id).dir().join(SIGNALS_FILE))
    }

    /// Appends signals (each with `recorded_at`).
    pub fn append_signals(&self, id: Option<&str>, signals: &[Signal]) -> Result<(), String> {
        let log = self.signals_log(id);
        for s in signals {
            let mut v = serde_json::to_value(s).map_err(|e| e.to_string())?;
            if let Some(m) = v.as_object_mut() {
                m.insert(
                    "recorded_at".into(),
                    json!(session_store::time::now_rfc3339()),
                );
                m.insert("session_id".into(), json!(id));
            }
            log.append(&v).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Every recorded signal; records that do not read as a signal are returned as rejections.
    pub fn signals(&self, id: Option<&str>) -> Result<(Vec<Signal>, Vec<String>), String> {
        let (records, bad_lines) = self.signals_log(id).read_all().map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        let mut unreadable = Vec::new();
        for r in records {
            match serde_json::from_value::<Signal>(r.clone()) {
                Ok(s) => out.push(s),
                Err(e) => unreadable.push(format!("unreadable record ({e})")),
            }
        }
        for _ in 0..bad_lines {
            unreadable.push("unreadable line".to_string());
        }
        Ok((out, unreadable))
    }

    pub fn audit(&self, id: Option<&str>, record: &Value) -> Result<(), String> {
        self.session(id)
            .audit()
            .append(record)
            .map_err(|e| e.to_string())
    }

    fn with_integrity<T>(
        &self,
        id: Option<&str>,
        change: impl FnOnce(&mut Map<String, Value>) -> T,
    ) -> Result<T, String> {
        self.session(id)
            .ledger()
            .update(|m| {
                let entry = m.entry(LEDGER_KEY).or_insert_with(|| json!({}));
                if !entry.is_object() {
                    *entry = json!({});
                }
                let obj = entry.as_object_mut().expect("made an object above");
                change(obj)
            })
            .map_err(|e| e.to_string())
    }

    /// Records one call in the session's call log and returns the identical-call run it ends.
    ///
    /// The log (`integrity-calls.log`, one `<fingerprint hash> <tool_use_id> <unix time>` line per
    /// call) is appended under an exclusive lock after reading its tail, so parallel hooks count
    /// consistently. It is append-only and not synced: a PreToolUse runs on every call, and a
    /// synced ledger rewrite per call would cost more than the whole hook's budget.
    pub fn record_call(
        &self,
        id: Option<&str>,
        fingerprint: &str,
        tool_use_id: &str,
        now: f64,
    ) -> Result<Run, String> {
        use std::io::{Read, Seek, SeekFrom, Write};
        let session = self.session(id);
        session.ensure().map_err(|e| e.to_string())?;
        let path = session.dir().join(CALLS_FILE);
        let err = |e: std::io::Error| format!("{}: {e}", path.display());
        // The agent can hold this lock or put a FIFO here: neither makes the hook wait.
        let mut f = primitives::no_wait::open_regular(
            &path,
            std::fs::OpenOptions::new()
                .create(true)
                .read(true)
                .append(true),
        )
        .map_err(err)?;
        primitives::no_wait::lock_within(
            &f,
            primitives::no_wait::LockKind::Exclusive,
            primitives::no_wait::LOCK_BOUND,
        )
        .map_err(err)?;
        let result = (|| {
            let len = f.metadata().map_err(err)?.len();
            f.seek(SeekFrom::Start(len.saturating_sub(CALLS_TAIL)))
                .map_err(err)?;
            let mut tail = Vec::new();
            (&mut f)
                .take(CALLS_TAIL)
                .read_to_end(&mut tail)
                .map_err(err)?;
            let hash = format!("{:016x}", primitives::hash::fnv1a(fingerprint.as_bytes()));
            let text = String::from_utf8_lossy(&tail);
            let mut lines: Vec<&str> = text.lines().collect();
            if len > CALLS_TAIL && !lines.is_empty() {
                lines.remove(0); // possibly cut in the middle
            }
            let mut count = 1u64;
            let mut first = tool_use_id.to_string();
            for l in lines.iter().rev() {
                let mut parts = l.split(' ');
                if parts.next() != Some(hash.as_str()) {
                    break;
                }
                count += 1;
                first = parts.next().unwrap_or("").to_string();
            }
            let safe_id: String = tool_use_id
                .chars()
                .filter(|c| c.is_ascii_graphic())
                .take(128)
                .collect();
            f.write_all(format!("{hash} {safe_id} {now:.3}\n").as_bytes())
                .map_err(err)?;
            Ok(Run {
                fingerprint: hash,
                count,
                first_tool_use_id: first,
            })
        })();
        let _ = f.unlock();
        result
    }

    /// When the session's first recorded call happened (call log), else the ledger's `started_at`.
    pub fn started_at(&self, id: Option<&str>) -> Option<f64> {
        use std::io::Read;
        let path = self.session(id).dir().join(CALLS_FILE);
        let mut head = String::new();
        // Regular files only, opened without waiting (a FIFO as the call log: issue 47).
        let opened =
            primitives::no_wait::open_regular(&path, std::fs::OpenOptions::new().read(true));
        let from_log = opened.ok().and_then(|f| {
            f.take(512).read_to_string(&mut head).ok()?;
            head.lines().next()?.split(' ').nth(2)?.parse::<f64>().ok()
        });
        from_log.or_else(|| self.ledger(id).ok()?.get("started_at")?.as_f64())
    }

    /// Keeps `result` as the most recent one of each runner it belongs to.
    pub fn record_result(
        &self,
        id: Option<&str>,
        runners: &[Runner],
        result: &RunResult,
        now: f64,
    ) -> Result<(), String> {
        let value = serde_json::to_value(result).map_err(|e| e.to_string())?;
        self.with_integrity(id, |m| {
            m.entry("started_at").or_insert_with(|| json!(now));
            let results = m.entry("results").or_insert_with(|| json!({}));
            if !results.is_object() {
                *results = json!({});
            }
            if let Some(r) = results.as_object_mut() {
                for runner in runners {
                    r.insert(runner.key().into(), value.clone());
                }
            }
        })
    }

    /// The integrity part of the ledger (empty when none).
    pub fn ledger(&self, id: Option<&str>) -> Result<Map<String, Value>, String> {
        let m = self
            .session(id)
            .ledger()
            .read()
            .map_err(|e| e.to_string())?;
        Ok(m.get(LEDGER_KEY)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default())
    }

    pub fn write_report(
        &self,
        id: Option<&str>,
        json_text: &str,
        text: &str,
    ) -> Result<PathBuf, String> {
        let s = self.session(id);
        s.ensure().map_err(|e| e.to_string())?;
        write_report_file(&s.dir().join(REPORT_JSON), json_text)?;
        write_report_file(&s.dir().join(REPORT_TEXT), text)?;
        Ok(s.dir().join(REPORT_JSON))
    }

    /// The session folder most recently written by this binary (for `report` without `--session`).
    pub fn latest_session(&self) -> Option<PathBuf> {
        let sessions = self.state_dir.join("sessions");
        std::fs::read_dir(sessions)
            .ok()?
            .flatten()
            .filter_map(|e| {
                let dir = e.path();
                let t = [REPORT_JSON, SIGNALS_FILE, CALLS_FILE, "ledger.json"]
                    .iter()
                    .filter_map(|f| {
                        std::fs::metadata(dir.join(f))
                            .and_then(|m| m.modified())
                            .ok()
                    })
                    .max()?;
                Some((t, dir))
            })
            .max_by_key(|(t, _)| *t)
            .map(|(_, d)| d)
    }
}

/// The most recent result of `runner` in a ledger's integrity object.
pub fn ledger_result(ledger: &Map<String, Value>, runner: Runner) -> Option<RunResult> {
    let v = ledger.get("results")?.get(runner.key())?;
    serde_json::from_value(v.clone()).ok()
}

/// Writes one report file new-then-rename.
fn write_report_file(path: &Path, body: &str) -> Result<(), String> {
    primitives::atomic::write_atomically(path, body.as_bytes(), None)
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::Kind;

    #[test]
    fn signals_round_trip_and_runs_count() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store {
            state_dir: dir.path().to_path_buf(),
        };
        let s = Signal::observed(Kind::RetrySpam, &[("count", json!(21))]);
        store
            .append_signals(Some("s1"), &[s.clone(), s.clone()])
            .unwrap();
        let (read, bad) = store.signals(Some("s1")).unwrap();
        assert_eq!(read, vec![s.clone(), s]);
        assert!(bad.is_empty());
        let r1 = store.record_call(Some("s1"), "fp", "t1", 1.0).unwrap();
        let r2 = store.record_call(Some("s1"), "fp", "t2", 2.0).unwrap();
        assert_eq!((r1.count, r2.count), (1, 2));
        assert_eq!(r2.first_tool_use_id, "t1");
        let r3 = store.record_call(Some("s1"), "other", "t3", 3.0).unwrap();
        assert_eq!(r3.count, 1);
        assert_eq!(store.started_at(Some("s1")), Some(1.0));
        // A long run stays counted past what the tail holds.
        let mut last = 0;
        for i in 0..400 {
            last = store
                .record_call(Some("s1"), "long", &format!("toolu_{i}"), 4.0)
                .unwrap()
                .count;
        }
        assert!(last > 21);
        assert_eq!(
            store.latest_session().unwrap(),
            store.session(Some("s1")).dir()
        );
    }
}
