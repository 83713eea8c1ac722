//! The agent's last assistant text from a transcript (the fallback when a Stop payload has no
//! `last_assistant_message`).
//!
//! One API message may be streamed as several lines sharing `message.id`; they are merged.
//! Sidechain (subagent) and meta lines are skipped.

use serde_json::Value;
use std::path::Path;

/// Reads the last assistant text of the transcript at `path`, if there is one.
pub fn last_assistant_text(path: &Path) -> Result<Option<String>, String> {
    let bytes = crate::read_tail(path, crate::TAIL_BYTES)?;
    // A tail read may start mid-line; the first partial line simply fails to parse.
    Ok(last_assistant_text_in(&String::from_utf8_lossy(&bytes)))
}

pub(crate) fn is_skipped(entry: &Value) -> bool {
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
        let mut file = tempfile::NamedTempFile::new().unwrap();
        let line = r#"{"type":"assistant","message":{"id":"a","content":[{"type":"text","text":"hello"}]}}"#;
        std::io::Write::write_all(&mut file, line.as_bytes()).unwrap();
        assert_eq!(
            last_assistant_text(file.path()).unwrap().as_deref(),
            Some("hello")
        );
        assert!(last_assistant_text(&file.path().with_extension("missing")).is_err());
    }
}
