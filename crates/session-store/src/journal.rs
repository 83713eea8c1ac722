//! The audit record's copy where the agent cannot erase it (issue 40 item 3).
//!
//! A session's `audit.jsonl` belongs to the agent's user: the agent can edit or erase it. Each
//! record appended to it ([`crate::AuditLog`]) is therefore also sent, as the same JSON text, to
//! systemd-journald over its native protocol ([`JOURNAL_SOCKET`]), whose files only root (and
//! the `systemd-journal` group) may remove; where there is no journald but a syslog socket
//! ([`SYSLOG_SOCKET`]), as an RFC 5424 datagram instead. `agent-guards report` reads the journal
//! back and names records the log no longer holds.
//!
//! One datagram per record, sent without waiting (a full queue is an error, not a wait), after
//! the hook's answer (it runs inside the log's deferred append). A record too long for a
//! datagram goes in a sealed memfd passed with `SCM_RIGHTS`, as journald's protocol allows; one
//! past [`MAX_RECORD_BYTES`] is clipped, and the clip is marked (`AGENT_GUARDS_CLIPPED`).
//!
//! Config `audit_journal` decides ([`target`], pure): `auto` (the default) sends when a socket
//! exists, `on` also says a missing socket as an undelivered record, `off` never sends. The
//! encodings ([`native_datagram`], [`syslog_datagram`]) are pure; [`send`] is the only I/O.

use guard_config::AuditJournal;
use serde_json::{Map, Value};
use std::path::Path;

/// journald's native protocol socket.
pub const JOURNAL_SOCKET: &str = "/run/systemd/journal/socket";
/// The syslog socket, used where there is no journald.
pub const SYSLOG_SOCKET: &str = "/dev/log";
/// `SYSLOG_IDENTIFIER` (and the syslog APP-NAME) of every record: what `report` filters on.
pub const IDENTIFIER: &str = "agent-guards";
/// The longest record sent whole (a JSONL line is rarely past a few KiB); a longer one is
/// clipped to this many bytes and marked.
pub const MAX_RECORD_BYTES: usize = 4 * 1024 * 1024;
/// The longest syslog datagram (syslog daemons commonly take 8 KiB); the record is clipped to
/// fit and the clip is marked.
pub const MAX_SYSLOG_BYTES: usize = 8 * 1024;
/// syslog facility `authpriv` (10): security records, readable by root only on most systems.
const FACILITY: u8 = 10;

/// Where a record's copy goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// journald's native protocol.
    Journal,
    /// An RFC 5424 datagram to the syslog socket.
    Syslog,
    /// Nowhere (`off`, or `auto` with no socket).
    Nowhere,
}

/// Where the copy goes under `mode`, given which sockets exist; `Err` (said as undelivered) when
/// `on` finds neither. Pure.
pub fn target(mode: AuditJournal, journal: bool, syslog: bool) -> Result<Target, String> {
    match (mode, journal, syslog) {
        (AuditJournal::Off, _, _) => Ok(Target::Nowhere),
        (_, true, _) => Ok(Target::Journal),
        (_, false, true) => Ok(Target::Syslog),
        (AuditJournal::Auto, false, false) => Ok(Target::Nowhere),
        (AuditJournal::On, false, false) => Err(format!(
            "audit journal copy: config audit_journal = \"on\", but neither {JOURNAL_SOCKET} nor \
             {SYSLOG_SOCKET} exists; start systemd-journald (or a syslog daemon), or set \
             audit_journal = \"auto\""
        )),
    }
}

/// journald's `PRIORITY` (and the syslog severity) of a record: a critical act 2, a failure 3, a
/// refusal 4, anything else 6.
pub fn priority(record: &Map<String, Value>) -> u8 {
    let decision = record
        .get("decision")
        .and_then(|d| serde_json::from_value::<crate::Decision>(d.clone()).ok());
    match decision {
        Some(crate::Decision::Critical) => 2,
        Some(crate::Decision::Failure) => 3,
        Some(d) if d.refused() => 4,
        _ => 6,
    }
}

/// The short human line (`MESSAGE`): binary, decision and sub-code, at most 200 bytes.
pub fn message(record: &Map<String, Value>) -> String {
    let word = |k: &str| record.get(k).and_then(Value::as_str).unwrap_or("-");
    let mut m = format!("{} {}", word("binary"), word("decision"));
    if let Some(code) = record.get("code").and_then(Value::as_str) {
        m.push(' ');
        m.push_str(code);
    }
    clip(&m, 200).0.to_string()
}

/// The record's text clipped to `max` bytes at a character boundary, and whether it was.
fn clip(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// Whose record it is: the state dir (so `report` reads back only its own, never a test's
/// temporary one) and the session's folder name in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin<'a> {
    /// The state dir, as the hook found it.
    pub state_dir: &'a str,
    /// The session's folder name ([`crate::session_dir_name`]).
    pub session: &'a str,
}

/// The journal fields of one record of `origin`: `json` is its JSON line (without the newline).
/// Pure.
pub fn fields(
    origin: Origin<'_>,
    json: &str,
    record: &Map<String, Value>,
) -> Vec<(&'static str, Vec<u8>)> {
    let (kept, clipped) = clip(json, MAX_RECORD_BYTES);
    let mut f = vec![
        ("MESSAGE", message(record).into_bytes()),
        ("PRIORITY", priority(record).to_string().into_bytes()),
        ("SYSLOG_FACILITY", FACILITY.to_string().into_bytes()),
        ("SYSLOG_IDENTIFIER", IDENTIFIER.as_bytes().to_vec()),
        (
            "AGENT_GUARDS_STATE_DIR",
            origin.state_dir.as_bytes().to_vec(),
        ),
        ("AGENT_GUARDS_SESSION", origin.session.as_bytes().to_vec()),
        ("AGENT_GUARDS_RECORD", kept.as_bytes().to_vec()),
    ];
    if let Some(code) = record.get("code").and_then(Value::as_str) {
        f.push(("AGENT_GUARDS_CODE", code.as_bytes().to_vec()));
    }
    if clipped {
        f.push(("AGENT_GUARDS_CLIPPED", json.len().to_string().into_bytes()));
    }
    f
}

/// journald's native encoding of `fields`: `NAME=value\n`, or, for a value holding a newline
/// (or any byte journald would misread), `NAME\n`, its length as 64-bit little-endian, the
/// value, `\n`. Pure.
pub fn native_datagram(fields: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in fields {
        out.extend_from_slice(name.as_bytes());
        if value.contains(&b'\n') {
            out.push(b'\n');
            out.extend_from_slice(&(value.len() as u64).to_le_bytes());
        } else {
            out.push(b'=');
        }
        out.extend_from_slice(value);
        out.push(b'\n');
    }
    out
}

/// An RFC 5424 message of one record: `<PRI>1 TIME HOST agent-guards PID - [SD] JSON`, the
/// state dir, session and sub-code as structured data (escaped), the JSON clipped to fit
/// [`MAX_SYSLOG_BYTES`] with the clip marked (`clipped="<full length>"`). Pure.
pub fn syslog_datagram(
    origin: Origin<'_>,
    json: &str,
    record: &Map<String, Value>,
    time: &str,
    host: &str,
    pid: u32,
) -> Vec<u8> {
    let pri = u16::from(FACILITY) * 8 + u16::from(priority(record));
    let code = record.get("code").and_then(Value::as_str);
    let sd = |clipped: Option<usize>| {
        let mut sd = format!(
            "[agentGuards@32473 state_dir=\"{}\" session=\"{}\"",
            sd_escape(origin.state_dir),
            sd_escape(origin.session)
        );
        if let Some(c) = code {
            sd.push_str(&format!(" code=\"{}\"", sd_escape(c)));
        }
        if let Some(n) = clipped {
            sd.push_str(&format!(" clipped=\"{n}\""));
        }
        sd.push(']');
        sd
    };
    let head = |clipped| {
        format!(
            "<{pri}>1 {} {} {IDENTIFIER} {pid} - {} ",
            header_word(time),
            header_word(host),
            sd(clipped)
        )
    };
    let whole = head(None);
    if whole.len() + json.len() <= MAX_SYSLOG_BYTES {
        return format!("{whole}{json}").into_bytes();
    }
    let head = head(Some(json.len()));
    let (kept, _) = clip(json, MAX_SYSLOG_BYTES.saturating_sub(head.len()));
    format!("{head}{kept}").into_bytes()
}

/// An RFC 5424 PARAM-VALUE: `"`, `\` and `]` escaped with a backslash.
fn sd_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '"' | '\\' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A header field: printable ASCII without spaces, at most 255 bytes, `-` when empty.
fn header_word(text: &str) -> String {
    let w: String = text
        .chars()
        .filter(|c| c.is_ascii_graphic())
        .take(255)
        .collect();
    if w.is_empty() {
        "-".into()
    } else {
        w
    }
}

/// The config's `audit_journal`, read once per process (after the answer: the first record's
/// deferred send reads it).
pub fn configured_mode() -> AuditJournal {
    static MODE: std::sync::OnceLock<AuditJournal> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| {
        guard_config::load()
            .config
            .audit_journal
            .unwrap_or_default()
    })
}

/// Sends the copy of one record (`json`, its JSON line without the newline) of `origin` where
/// `mode` says. Never waits: a missing, full or foreign socket is an error (one line).
pub fn send(mode: AuditJournal, origin: Origin<'_>, json: &str) -> Result<(), String> {
    let exists = |p: &str| std::fs::symlink_metadata(p).is_ok();
    let record = match serde_json::from_str(json) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    match target(mode, exists(JOURNAL_SOCKET), exists(SYSLOG_SOCKET))? {
        Target::Nowhere => Ok(()),
        Target::Journal => {
            let bytes = native_datagram(&fields(origin, json, &record));
            wire::send_native(Path::new(JOURNAL_SOCKET), &bytes)
                .map_err(|e| format!("audit journal copy: {JOURNAL_SOCKET}: {e}"))
        }
        Target::Syslog => {
            let time = record
                .get("time")
                .and_then(Value::as_str)
                .map_or_else(crate::time::now_rfc3339, str::to_string);
            let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
            let bytes = syslog_datagram(
                origin,
                json,
                &record,
                &time,
                host.trim(),
                std::process::id(),
            );
            wire::send_datagram(Path::new(SYSLOG_SOCKET), &bytes)
                .map_err(|e| format!("audit journal copy: {SYSLOG_SOCKET}: {e}"))
        }
    }
}

#[path = "journal_wire.rs"]
pub mod wire;

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
