//! The guards' refusals recorded in this session: read from the session's audit log, which only
//! the hooks write (integrity-signals refuses agent writes to it, I3). A refusal there is a real
//! blocker the final message may name (issue 19); what the message claims is never evidence.

use phrase_gate::RecordedRefusal;
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The guards whose refusals are real blockers for the agent.
pub const REFUSING_GUARDS: [&str; 3] = ["gh-write-guard", "model-tier-guard", "integrity-signals"];

/// Only the end of a long log is read: the refusals that matter are this session's latest ones.
pub const TAIL_BYTES: u64 = 4 * 1024 * 1024;

/// Where the judge learns about recorded refusals. Asked only when a message is red.
pub trait RefusalSource {
    fn refusals(&self) -> Result<Vec<RecordedRefusal>, String>;
}

/// No session state (no state dir, or the CLI): nothing was refused.
pub struct NoRefusals;

impl RefusalSource for NoRefusals {
    fn refusals(&self) -> Result<Vec<RecordedRefusal>, String> {
        Ok(Vec::new())
    }
}

/// The session's audit log.
pub struct AuditLogRefusals {
    pub path: PathBuf,
}

impl RefusalSource for AuditLogRefusals {
    fn refusals(&self) -> Result<Vec<RecordedRefusal>, String> {
        let bytes = read_tail(&self.path, TAIL_BYTES)?;
        // Decode and parse only the records that can be a refusing guard's: the log also holds
        // every stop's own record (4,000 characters of text each), and decoding and parsing them
        // all made a red stop cost milliseconds once the log had grown (issue 43's bench).
        Ok(lines_naming_a_guard(&bytes)
            .into_iter()
            .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
            .filter_map(|r| refusal_of(&r))
            .collect())
    }
}

/// The lines of `log` that name a refusing guard, in order, each once. The guard names are
/// searched in the whole buffer (memchr's vectorised search) and only their lines cut out: a
/// byte-by-byte walk over every line of a 4 MiB tail cost milliseconds. One aho-corasick pass for
/// the three names instead cost 10 M instructions more over a 1 MiB log (egress-43d).
fn lines_naming_a_guard(log: &[u8]) -> Vec<&[u8]> {
    let mut spans: Vec<(usize, usize)> = REFUSING_GUARDS
        .iter()
        .flat_map(|g| memchr::memmem::find_iter(log, g.as_bytes()))
        .map(|at| {
            let start = memchr::memrchr(b'\n', &log[..at]).map_or(0, |p| p + 1);
            let end = memchr::memchr(b'\n', &log[at..]).map_or(log.len(), |p| at + p);
            (start, end)
        })
        .collect();
    spans.sort_unstable();
    spans.dedup();
    spans.into_iter().map(|(a, b)| &log[a..b]).collect()
}

/// The refusal an audit record states, if it is one of a refusing guard.
pub fn refusal_of(record: &Value) -> Option<RecordedRefusal> {
    let s = |k: &str| record.get(k).and_then(Value::as_str);
    let binary = s("binary").filter(|b| REFUSING_GUARDS.contains(b))?;
    // A refusal by the audit record's own type (session-store's `Decision::refused`).
    let decision = record.get("decision").cloned()?;
    serde_json::from_value::<session_store::Decision>(decision)
        .ok()
        .filter(|d| d.refused())?;
    Some(RecordedRefusal {
        binary: binary.to_string(),
        // The requirement, or the one a sub-code (`code`, `G4.rule`) belongs to.
        requirement: s("requirement")
            .or_else(|| s("code"))
            .map(|r| safety_kernel::feedback::code_requirement(r).to_string()),
        command: s("command").map(str::to_string),
    })
}

/// The last `max` bytes of a regular file (from the first whole line). A missing file is
/// empty; anything but a regular file is an error, and the open never blocks (a FIFO in the log's
/// place must not hang the hook).
fn read_tail(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(err(e)),
        Ok(m) if !m.is_file() => return Err(format!("{}: not a regular file", path.display())),
        Ok(_) => {}
    }
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .map_err(err)?;
    let meta = file.metadata().map_err(err)?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    let start = meta.len().saturating_sub(max);
    file.seek(SeekFrom::Start(start)).map_err(err)?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes).map_err(err)?;
    if start > 0 {
        // Drop the partial first line.
        let cut = bytes
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| p + 1);
        bytes.drain(..cut);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_refusals_of_the_guards_count() {
        let g4 = json!({"binary": "gh-write-guard", "decision": "deny", "requirement": "G4", "command": "git push origin main"});
        assert_eq!(
            refusal_of(&g4),
            Some(RecordedRefusal {
                binary: "gh-write-guard".into(),
                requirement: Some("G4".into()),
                command: Some("git push origin main".into()),
            })
        );
        for other in [
            json!({"binary": "gh-write-guard", "decision": "allow", "requirement": "G4"}),
            json!({"binary": "gh-write-guard", "decision": "allow", "code": "G4.rule"}),
            json!({"binary": "egress-audit", "decision": "block"}),
            json!({"binary": "someone-else", "decision": "deny"}),
            json!({"decision": "deny"}),
        ] {
            assert_eq!(refusal_of(&other), None, "{other}");
        }
    }

    #[test]
    fn a_sub_code_is_read_as_its_requirement() {
        let coded = json!({"binary": "gh-write-guard", "decision": "deny", "code": "G4.rule"});
        assert_eq!(
            refusal_of(&coded).unwrap().requirement.as_deref(),
            Some("G4")
        );
        let both = json!({"binary": "model-tier-guard", "decision": "deny", "requirement": "M2", "code": "M2.call-model"});
        assert_eq!(
            refusal_of(&both).unwrap().requirement.as_deref(),
            Some("M2")
        );
    }

    #[test]
    fn the_lines_naming_a_guard_in_order_each_once() {
        let stop =
            json!({"binary": "egress-audit", "text": "gh-write guard, model tier"}).to_string();
        let lines = [
            stop.as_str(),
            r#"{"binary":"gh-write-guard","decision":"deny"}"#,
            stop.as_str(),
            r#"{"binary":"integrity-signals","note":"after model-tier-guard"}"#,
            r#"{"binary":"model-tier-guard","decision":"deny"}"#,
        ];
        let log = lines.join("\n");
        let got: Vec<&[u8]> = lines_naming_a_guard(log.as_bytes());
        let want: Vec<&[u8]> = [1, 3, 4].iter().map(|i| lines[*i].as_bytes()).collect();
        assert_eq!(got, want);
        assert!(lines_naming_a_guard(b"").is_empty());
        assert!(lines_naming_a_guard(stop.as_bytes()).is_empty());
    }

    #[test]
    fn reads_the_log_tail_and_refuses_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let source = AuditLogRefusals { path: path.clone() };
        assert!(source.refusals().unwrap().is_empty(), "no log yet");
        let mut text = String::new();
        text.push_str("not json\n");
        text.push_str(
            &json!({"binary": "model-tier-guard", "decision": "deny", "requirement": "M2"})
                .to_string(),
        );
        text.push('\n');
        std::fs::write(&path, &text).unwrap();
        let got = source.refusals().unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].requirement.as_deref(), Some("M2"));
        // Only the tail: a long log keeps its last whole lines.
        let tail = read_tail(&path, 30).unwrap();
        assert!(!String::from_utf8_lossy(&tail).contains("not json"));
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let e = AuditLogRefusals { path: fifo }.refusals().unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
    }
}
