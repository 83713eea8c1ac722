//! Tool calls in a transcript and the results that came back for them, newest first.
//!
//! A tool call is a `tool_use` block of an `assistant` line; its result is a `tool_result` block
//! (same id, `is_error`) of a later `user` line. The file is walked backwards and every line that
//! can hold either is parsed as JSON — the shape of the line (spacing, key order, escapes) does
//! not matter, only what it says. The parse is typed and light (`crate::light`: types, ids and
//! error flags; long texts and tool outputs skipped unallocated); a call's input is read only for
//! lines that hold a `tool_use`, and a result's text only when the caller asks for it. Lines
//! that name neither (`tool_` appears in both keys) and hold no `\u` escape are skipped unparsed.
//! A caller looking for the most recent run of something stops as soon as it has it.

use crate::light;
use memchr::memmem;
use serde_json::Value;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;

/// One tool call, with its result read on demand.
#[derive(Debug, Clone)]
pub struct CallRef<'a> {
    /// The call's `id` (what its result line names as `tool_use_id`).
    pub tool_use_id: String,
    /// The tool the call was made with (`Bash`, `Write`, `mcp__srv__tool`, ...).
    pub tool_name: String,
    /// The call's input as the model gave it.
    pub input: Value,
    result: Option<(&'a [u8], bool)>,
}

/// A tool result: its text (text blocks joined), error flag and the line's timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The result's text blocks joined.
    pub text: String,
    /// The result's `is_error` flag.
    pub is_error: bool,
    /// The `timestamp` of the transcript line that holds it.
    pub timestamp: Option<String>,
}

impl CallRef<'_> {
    /// The call's result, `None` while none was written.
    pub fn result(&self) -> Option<ToolResult> {
        let (line, is_error) = self.result?;
        let entry: Value = serde_json::from_slice(line).ok()?;
        let timestamp = entry
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_string);
        let blocks = entry.pointer("/message/content")?.as_array()?;
        let b = blocks.iter().find(|b| {
            b.get("type").and_then(Value::as_str) == Some("tool_result")
                && b.get("tool_use_id").and_then(Value::as_str) == Some(self.tool_use_id.as_str())
        })?;
        Some(ToolResult {
            text: result_text(b.get("content")),
            is_error,
            timestamp,
        })
    }

    /// Whether a result came back, and whether it was an error (no text read).
    pub fn result_is_error(&self) -> Option<bool> {
        self.result.map(|(_, e)| e)
    }
}

/// Reads the tail of the transcript at `path` and visits its calls newest first.
pub fn calls_newest_first_in_file(
    path: &Path,
    visit: &mut dyn FnMut(&CallRef) -> ControlFlow<()>,
) -> Result<(), String> {
    let bytes = crate::read_tail(path, crate::TAIL_BYTES)?;
    calls_newest_first(&bytes, visit);
    Ok(())
}

/// Visits the session's tool calls in JSON-lines `bytes`, newest first, until `visit` breaks.
/// Sidechain (subagent) calls are not the session's and are skipped.
pub fn calls_newest_first(bytes: &[u8], visit: &mut dyn FnMut(&CallRef) -> ControlFlow<()>) {
    let tool = memmem::Finder::new(b"tool_");
    let escape = memmem::Finder::new(b"\\u");
    // Results seen so far (they follow their calls, so they are met first), by call id: the
    // line and its error flag.
    let mut results: HashMap<String, (&[u8], bool)> = HashMap::new();
    let mut end = bytes.len();
    while end > 0 {
        let start = memchr::memrchr(b'\n', &bytes[..end])
            .map(|i| i + 1)
            .unwrap_or(0);
        let line = &bytes[start..end];
        end = start.saturating_sub(1);
        if start == 0 {
            end = 0;
        }
        if tool.find(line).is_none() && escape.find(line).is_none() {
            continue;
        }
        let Some(view) = light::parse(line) else {
            continue;
        };
        match view.kind.as_deref() {
            Some("user") => {
                for b in view.blocks() {
                    if let (Some("tool_result"), Some(id)) =
                        (b.kind.as_deref(), b.tool_use_id.as_deref())
                    {
                        // Walking backwards, the first result met for an id is its newest.
                        results
                            .entry(id.to_string())
                            .or_insert((line, b.is_error == Some(true)));
                    }
                }
                continue;
            }
            Some("assistant") if !view.is_skipped() => {}
            _ => continue,
        }
        if !view
            .blocks()
            .iter()
            .any(|b| b.kind.as_deref() == Some("tool_use"))
        {
            continue;
        }
        let Ok(entry) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let Some(Value::Array(blocks)) = entry.pointer("/message/content") else {
            continue;
        };
        for b in blocks.iter().rev() {
            if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            let (Some(id), Some(name)) = (
                b.get("id").and_then(Value::as_str),
                b.get("name").and_then(Value::as_str),
            ) else {
                continue;
            };
            let call = CallRef {
                tool_use_id: id.to_string(),
                tool_name: name.to_string(),
                input: b.get("input").cloned().unwrap_or(Value::Null),
                result: results.get(id).copied(),
            };
            if visit(&call).is_break() {
                return;
            }
        }
    }
}

fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::test_lines::{bash_call as call, tool_result as result};

    fn all(t: &str) -> Vec<(String, Option<ToolResult>)> {
        let mut out = Vec::new();
        calls_newest_first(t.as_bytes(), &mut |c| {
            out.push((c.tool_use_id.clone(), c.result()));
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn newest_first_with_results_on_demand() {
        let t = [
            call("a", "cargo test"),
            result("a", "Exit code 101\ntest result: FAILED", true),
            call("b", "ls"),
            json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b",
                "content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}]}})
            .to_string(),
            "garbage line".to_string(),
            call("c", "cargo test"),
        ]
        .join("\n");
        let x = all(&t);
        let ids: Vec<&str> = x.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(ids, vec!["c", "b", "a"]);
        assert_eq!(x[0].1, None, "no result yet");
        assert_eq!(x[1].1.as_ref().unwrap().text, "x\ny");
        let a = x[2].1.as_ref().unwrap();
        assert!(a.is_error);
        assert_eq!(a.text, "Exit code 101\ntest result: FAILED");
        assert_eq!(a.timestamp.as_deref(), Some("2026-12-01T00:00:00Z"));
    }

    #[test]
    fn lines_are_parsed_whatever_their_spacing_or_escapes() {
        // The same call and result, written with spaces after the separators (as Python's
        // json.dumps or a pretty printer would) and with a key spelled with a \\u escape.
        let call = r#"{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": "cargo test"}}]}}"#;
        let result = r#"{"type": "user", "message": {"content": [{"type": "tool_result", "tool\u005fuse_id": "a", "content": "Exit code 101", "is_error": true}]}}"#;
        let x = all(&[call, result].join("\n"));
        assert_eq!(x.len(), 1);
        assert!(x[0].1.as_ref().unwrap().is_error);
        // A tool output that quotes a result line is text, not a result.
        let quoting = json!({"type":"user","message":{"content":[{"type":"tool_result",
            "tool_use_id":"b","content":"{\"type\":\"tool_result\",\"tool_use_id\":\"a\",\"is_error\":false}"}]}})
        .to_string();
        let x = all(&[call, result, &quoting].join("\n"));
        assert!(x[0].1.as_ref().unwrap().is_error, "{x:?}");
    }

    #[test]
    fn stops_when_asked_and_skips_sidechains() {
        let side = json!({"type":"assistant","isSidechain":true,"message":{"content":[
            {"type":"tool_use","id":"s","name":"Bash","input":{"command":"cargo test"}}]}})
        .to_string();
        let t = [call("a", "x"), call("b", "y"), side].join("\n");
        let mut seen = Vec::new();
        calls_newest_first(t.as_bytes(), &mut |c| {
            seen.push(c.tool_use_id.clone());
            ControlFlow::Break(())
        });
        assert_eq!(seen, vec!["b"]);
        assert!(all("").is_empty());
    }
}
