//! `agent-guards report`'s reading of the audit journal (issue 40 item 3): the copies the hooks
//! sent to journald ([`session_store::journal`]) against each session's `audit.jsonl`.
//!
//! The agent's user owns `audit.jsonl` and can edit or erase it; it cannot erase the journal.
//! A record the journal holds and the session's log does not is the finding. Only this state
//! dir's records sent by its owner count (`AGENT_GUARDS_STATE_DIR`, and journald's own `_UID`,
//! which a sender cannot set): a test's temporary state dir or another user's sessions are not
//! this report's. `journalctl` runs under a deadline with its output capped; when it is missing
//! or fails, the section says so and nothing is concluded.

use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The newest records read (`journalctl -n`).
pub const NEWEST: usize = 20_000;
/// How long `journalctl` may take.
const DEADLINE: Duration = Duration::from_secs(10);
/// The most of its output read.
const MAX_OUTPUT: u64 = 64 * 1024 * 1024;

/// One record the journal holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Copy {
    /// The session's folder name.
    pub session: String,
    /// The record's JSON text, as sent.
    pub record: String,
    /// The record was clipped before sending (only its start was sent).
    pub clipped: bool,
}

/// What `journalctl` gave: the records, whether its output was cut at [`MAX_OUTPUT`], and the
/// first line it said on stderr (e.g. that this user may not read every journal file).
pub struct JournalRead {
    /// The records.
    pub copies: Vec<Copy>,
    /// The output was cut.
    pub cut: bool,
    /// Its first line on stderr, if any.
    pub note: Option<String>,
}

/// The journal's records of `state_dir` sent by `uid` (newest [`NEWEST`]), or why they could
/// not be read.
pub fn read_journal(state_dir: &Path, uid: u32) -> Result<JournalRead, String> {
    let mut cmd = Command::new("journalctl");
    cmd.args([
        "-o",
        "json",
        "--no-pager",
        // Without it a field past 4 KiB reads as null.
        "--all",
        "-n",
        &NEWEST.to_string(),
        "--output-fields=AGENT_GUARDS_RECORD,AGENT_GUARDS_SESSION,AGENT_GUARDS_CLIPPED",
        &format!("SYSLOG_IDENTIFIER={}", session_store::journal::IDENTIFIER),
        &format!("AGENT_GUARDS_STATE_DIR={}", state_dir.display()),
        &format!("_UID={uid}"),
    ]);
    let (code, out, cut, err) = run_capped(&mut cmd)?;
    if code != 0 {
        return Err(format!(
            "journalctl exited {code}: {}",
            hook_io::escape_text(err.trim(), 300)
        ));
    }
    let note = err
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| hook_io::escape_text(l.trim(), 300));
    Ok(JournalRead {
        copies: parse(&out),
        cut,
        note,
    })
}

/// The records in `journalctl -o json` output (one object a line; others skipped). Pure.
pub fn parse(out: &str) -> Vec<Copy> {
    out.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|e| {
            Some(Copy {
                session: e["AGENT_GUARDS_SESSION"].as_str()?.to_string(),
                record: e["AGENT_GUARDS_RECORD"].as_str()?.to_string(),
                clipped: e.get("AGENT_GUARDS_CLIPPED").is_some(),
            })
        })
        .collect()
}

/// Runs `cmd` under [`DEADLINE`], reading at most [`MAX_OUTPUT`] of its output as it comes (a
/// full pipe never stalls it): `(exit code, stdout, cut, stderr)`.
fn run_capped(cmd: &mut Command) -> Result<(i32, String, bool, String), String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("journalctl could not run: {e}"))?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.by_ref().take(MAX_OUTPUT + 1).read_to_end(&mut out);
        out
    });
    let err_reader = std::thread::spawn(move || {
        let mut err = Vec::new();
        let _ = stderr.by_ref().take(64 * 1024).read_to_end(&mut err);
        err
    });
    let start = Instant::now();
    let code = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.code().unwrap_or(-1),
            Ok(None) if start.elapsed() < DEADLINE => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "journalctl did not finish within {} s",
                    DEADLINE.as_secs()
                ));
            }
        }
    };
    let mut out = reader.join().unwrap_or_default();
    let cut = out.len() as u64 > MAX_OUTPUT;
    out.truncate(MAX_OUTPUT as usize);
    let err = err_reader.join().unwrap_or_default();
    Ok((
        code,
        String::from_utf8_lossy(&out).into_owned(),
        cut,
        String::from_utf8_lossy(&err).into_owned(),
    ))
}

/// Per session, the journal's records its log does not hold: `log(session)` gives the lines of
/// the session's `audit.jsonl` (none when it is gone). A record matches a line holding the same
/// JSON (whitespace aside); a clipped record, a line it starts. Pure.
pub fn missing(
    copies: &[Copy],
    log: &dyn Fn(&str) -> Vec<String>,
) -> BTreeMap<String, Vec<String>> {
    let canonical = |text: &str| {
        serde_json::from_str::<Value>(text).map_or_else(|_| text.to_string(), |v| v.to_string())
    };
    let mut by_session: BTreeMap<&str, Vec<&Copy>> = BTreeMap::new();
    for c in copies {
        by_session.entry(&c.session).or_default().push(c);
    }
    let mut out = BTreeMap::new();
    for (session, copies) in by_session {
        let lines = log(session);
        let held: HashSet<String> = lines.iter().map(|l| canonical(l)).collect();
        let lost: Vec<String> = copies
            .iter()
            .filter(|c| {
                if c.clipped {
                    !lines.iter().any(|l| l.starts_with(&c.record))
                } else {
                    !held.contains(&canonical(&c.record))
                }
            })
            .map(|c| c.record.clone())
            .collect();
        if !lost.is_empty() {
            out.insert(session.to_string(), lost);
        }
    }
    out
}

/// The lines of a session's `audit.jsonl` in `state_dir` (bounded read; none for a name that
/// is not a session folder's, or a log that is gone).
fn log_lines(state_dir: &Path, session: &str) -> Vec<String> {
    if session_store::session_dir_name(session) != session {
        return Vec::new();
    }
    let path = state_dir
        .join("sessions")
        .join(session)
        .join(session_store::paths::AUDIT_FILE);
    session_store::AuditLog::at(path)
        .read_all()
        .map(|(records, _)| records.iter().map(Value::to_string).collect())
        .unwrap_or_default()
}

/// The report's section: how many records the journal holds for this state dir, and the
/// sessions whose logs lost some.
pub fn section(state_dir: &Path) -> Value {
    use std::os::unix::fs::MetadataExt;
    let mode = guard_config::load()
        .config
        .audit_journal
        .unwrap_or_default()
        .as_str();
    let Ok(meta) = std::fs::metadata(state_dir) else {
        return json!({"mode": mode, "status": "no state dir yet: nothing recorded"});
    };
    let JournalRead { copies, cut, note } = match read_journal(state_dir, meta.uid()) {
        Ok(r) => r,
        Err(why) => return json!({"mode": mode, "status": format!("not read: {why}")}),
    };
    let sessions: HashSet<&str> = copies.iter().map(|c| c.session.as_str()).collect();
    let lost = missing(&copies, &|s| log_lines(state_dir, s));
    let missing: Vec<Value> = lost
        .iter()
        .map(|(session, records)| {
            let first = serde_json::from_str(&records[0])
                .unwrap_or_else(|_| Value::String(records[0].clone()));
            json!({"session": session, "count": records.len(), "first": first})
        })
        .collect();
    let journald = Path::new(session_store::journal::JOURNAL_SOCKET).exists();
    json!({"mode": mode, "status": "read", "records": copies.len(), "sessions": sessions.len(),
        "output_cut": cut, "newest": NEWEST, "missing": missing, "journald_running": journald,
        "journalctl_said": note})
}

/// The section's lines for the text report.
pub fn render(j: &Value) -> Vec<String> {
    let mode = j["mode"].as_str().unwrap_or("?");
    if j["status"] != "read" {
        return vec![format!(
            "audit journal (audit_journal = \"{mode}\"): {}",
            j["status"].as_str().unwrap_or("?")
        )];
    }
    let mut out = vec![format!(
        "audit journal (audit_journal = \"{mode}\"): {} records of {} sessions (the newest {} read{})",
        j["records"],
        j["sessions"],
        j["newest"],
        if j["output_cut"] == true { ", output cut" } else { "" }
    )];
    if let Some(note) = j["journalctl_said"].as_str() {
        out.push(format!("  journalctl said: {note}"));
    }
    if j["journald_running"] == false {
        out.push(format!(
            "  no journald runs here ({} is absent): the copies go to {} when it exists, which \
             this report does not read, else nowhere",
            session_store::journal::JOURNAL_SOCKET,
            session_store::journal::SYSLOG_SOCKET
        ));
    }
    let lost = j["missing"].as_array().map_or(&[][..], Vec::as_slice);
    if lost.is_empty() && j["records"].as_u64().unwrap_or(0) > 0 {
        out.push("  every record in the journal is in its session's audit.jsonl".into());
    }
    for m in lost {
        let f = &m["first"];
        let word = |k: &str| f[k].as_str().unwrap_or("-").to_string();
        out.push(hook_io::escape_text(
            &format!(
                "  FINDING: session {}: {} audit record(s) in the journal are missing from its \
                 audit.jsonl (edited or erased by the agent?); the first: {} {} {} {}. \
                 Read them with: journalctl -o json AGENT_GUARDS_SESSION={}",
                m["session"].as_str().unwrap_or("?"),
                m["count"],
                word("time"),
                word("binary"),
                word("decision"),
                word("code"),
                m["session"].as_str().unwrap_or("?"),
            ),
            600,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(session: &str, record: &str, clipped: bool) -> Copy {
        Copy {
            session: session.into(),
            record: record.into(),
            clipped,
        }
    }

    #[test]
    fn records_the_log_lost_are_named_per_session() {
        let a1 = r#"{"binary":"g","decision":"deny","time":"1"}"#;
        let a2 = r#"{"binary":"g","decision":"allow","time":"2"}"#;
        let b1 = r#"{"binary":"h","decision":"recorded","time":"3"}"#;
        let copies = [
            copy("a", a1, false),
            copy("a", a2, false),
            copy("b", b1, false),
            copy("c", r#"{"binary":"x","decision":"deny","time":"4"}"#, false),
            copy("d", r#"{"binary":"big","decision":"deny","ti"#, true),
        ];
        // (session, its log's lines)
        let logs = |s: &str| -> Vec<String> {
            match s {
                // a: one line kept (reformatted: still the same record), one erased.
                "a" => vec![r#"{ "decision": "deny", "binary": "g", "time": "1" }"#.into()],
                // b: edited (the decision changed).
                "b" => vec![r#"{"binary":"h","decision":"allow","time":"3"}"#.into()],
                // c: the whole log gone. d: the clipped record's full line is there.
                "d" => vec![r#"{"binary":"big","decision":"deny","time":"5","x":"..."}"#.into()],
                _ => vec![],
            }
        };
        let lost = missing(&copies, &logs);
        assert_eq!(lost.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(lost["a"], [a2]);
        assert_eq!(lost["b"], [b1]);
        // Nothing lost, nothing said.
        assert!(missing(&copies[..1], &logs).is_empty());
    }

    #[test]
    fn journalctl_output_is_read_line_by_line_and_odd_lines_are_skipped() {
        let out = concat!(
            r#"{"AGENT_GUARDS_SESSION":"s","AGENT_GUARDS_RECORD":"{\"a\":1}","__CURSOR":"c"}"#,
            "\nnot json\n",
            r#"{"AGENT_GUARDS_SESSION":"s"}"#,
            "\n",
            r#"{"AGENT_GUARDS_SESSION":"t","AGENT_GUARDS_RECORD":"{","AGENT_GUARDS_CLIPPED":"9"}"#,
        );
        assert_eq!(
            parse(out),
            [copy("s", r#"{"a":1}"#, false), copy("t", "{", true)]
        );
    }

    #[test]
    fn a_finding_is_said_with_how_to_read_the_records() {
        let j = json!({"mode": "auto", "status": "read", "records": 3, "sessions": 1,
            "output_cut": false, "newest": NEWEST, "missing": [{"session": "s", "count": 2,
            "first": {"time": "t", "binary": "gh-write-guard", "decision": "deny", "code": "G4.rule"}}]});
        let lines = render(&j);
        assert!(lines[0].contains("3 records of 1 sessions"), "{lines:?}");
        assert!(
            lines[1].starts_with("  FINDING: session s: 2 audit record(s)"),
            "{lines:?}"
        );
        assert!(
            lines[1].contains("t gh-write-guard deny G4.rule"),
            "{lines:?}"
        );
        assert!(lines[1].contains("journalctl -o json AGENT_GUARDS_SESSION=s"));
        let none = render(
            &json!({"mode": "auto", "status": "read", "records": 0, "sessions": 0,
            "output_cut": false, "newest": NEWEST, "missing": [], "journald_running": false}),
        );
        assert!(none[1].contains("no journald runs here"), "{none:?}");
        let not = render(&json!({"mode": "on", "status": "not read: journalctl could not run: x"}));
        assert_eq!(
            not,
            ["audit journal (audit_journal = \"on\"): not read: journalctl could not run: x"]
        );
    }
}
