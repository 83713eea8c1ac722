//! The agent's last assistant text from a transcript (E5 fallback when the Stop payload has no
//! `last_assistant_message`).
//!
//! The transcript is JSON lines; one API message may be streamed as several lines sharing
//! `message.id`. Sidechain (subagent) and meta lines are skipped. Only the tail of a large file is
//! read, so a long session cannot make the hook slow.

use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// How much of the end of a transcript we read.
pub const TAIL_BYTES: u64 = 16 * 1024 * 1024;

/// Reads the last assistant text of the transcript at `path`, if there is one.
pub fn last_assistant_text(path: &Path) -> Result<Option<String>, String> {
    let mut f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let len = f
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    let start = len.saturating_sub(TAIL_BYTES);
    f.seek(SeekFrom::Start(start))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::with_capacity((len - start) as usize);
    f.take(TAIL_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    // A tail read may start mid-line; the first partial line simply fails to parse.
    Ok(last_assistant_text_in(&text))
}

fn is_skipped(entry: &Value) -> bool {
    entry.get("isSidechain").and_then(Value::as_bool) == Some(true)
        || entry.get("isMeta").and_then(Value::as_bool) == Some(true)
}

fn text_blocks(entry: &Value) -> Vec<String> {
    match entry.pointer("/message/content") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// The last assistant message's text in JSON-lines `text`, merged across lines sharing its id.
pub fn last_assistant_text_in(text: &str) -> Option<String> {
    let entries: Vec<Value> = text
        .lines()
        .filter(|l| l.contains("\"assistant\""))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e.get("type").and_then(Value::as_str) == Some("assistant") && !is_skipped(e))
        .collect();
    let last = entries.iter().rev().find(|e| !text_blocks(e).is_empty())?;
    let id = last.pointer("/message/id").and_then(Value::as_str);
    let parts: Vec<String> = match id {
        Some(id) => entries
            .iter()
            .filter(|e| e.pointer("/message/id").and_then(Value::as_str) == Some(id))
            .flat_map(text_blocks)
            .collect(),
        None => text_blocks(last),
    };
    Some(parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_lines_of_one_message_and_skips_sidechains() {
        let t = [
            r#"{"type":"user","message":{"role":"user","content":"go"}}"#,
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"old"}]}}"#,
            r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"You can"}]}}"#,
            r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","name":"Bash"}]}}"#,
            r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"run it."}]}}"#,
            r#"{"type":"assistant","isSidechain":true,"message":{"id":"s","content":[{"type":"text","text":"sub"}]}}"#,
            r#"{"type":"system","subtype":"turn_duration"}"#,
            "not json at all",
        ]
        .join("\n");
        assert_eq!(
            last_assistant_text_in(&t).as_deref(),
            Some("You can\nrun it.")
        );
    }

    #[test]
    fn no_assistant_text_is_none() {
        assert_eq!(
            last_assistant_text_in(r#"{"type":"user","message":{"content":"x"}}"#),
            None
        );
        assert_eq!(last_assistant_text_in(""), None);
    }

    #[test]
    fn reads_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(
            &p,
            r#"{"type":"assistant","message":{"id":"a","content":[{"type":"text","text":"hello"}]}}"#,
        )
        .unwrap();
        assert_eq!(last_assistant_text(&p).unwrap().as_deref(), Some("hello"));
        assert!(last_assistant_text(&dir.path().join("missing")).is_err());
    }
}
