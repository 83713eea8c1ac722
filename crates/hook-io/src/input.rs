//! Reading and typing the hook payload.
//!
//! The payload is read to EOF even when it is too large: a hook that closes stdin early makes the CLI
//! report EPIPE and fail open. Unknown fields are ignored; every event-specific field is optional so
//! that a newer or older CLI does not turn into a parse failure.

use serde_json::Value;
use std::io::Read;

/// Default bound on the payload (section 0: 8 MiB).
pub const DEFAULT_INPUT_LIMIT: usize = 8 * 1024 * 1024;

/// Why the payload could not be read. Each variant renders as one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Nothing on stdin.
    #[error("empty input: expected one JSON object on stdin")]
    Empty,
    /// More than the bound on stdin.
    #[error("input larger than {limit} bytes: drained and not judged")]
    TooLarge {
        /// The bound, in bytes.
        limit: usize,
    },
    /// Bytes that are not UTF-8.
    #[error("input is not valid UTF-8 (byte {valid_up_to})")]
    NotUtf8 {
        /// The offset of the first bad byte.
        valid_up_to: usize,
    },
    /// Text that is not JSON (the parser's message).
    #[error("input is not JSON: {0}")]
    NotJson(String),
    /// JSON that is not an object.
    #[error("input is JSON but not an object")]
    NotObject,
    /// An object without `hook_event_name`.
    #[error("input has no string field hook_event_name")]
    MissingEvent,
    /// Reading stdin failed (the operating system's message).
    #[error("could not read stdin: {0}")]
    Io(String),
    /// A tool call whose input has the wrong shape for its tool (issue 47: `tool_input` a
    /// string, a Bash `command` that is an array): not judged, so refused where a guard protects.
    #[error("malformed {tool} call: {why}")]
    Malformed {
        /// The tool named.
        tool: String,
        /// What is wrong.
        why: String,
    },
}

/// Reads `reader` to EOF, keeping at most `limit` bytes; the rest is drained and discarded.
pub fn read_bounded<R: Read>(mut reader: R, limit: usize) -> Result<Vec<u8>, InputError> {
    let mut kept = Vec::with_capacity(limit.min(64 * 1024));
    let mut chunk = vec![0u8; 64 * 1024];
    let mut overflow = false;
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                if !overflow && kept.len() + n <= limit {
                    kept.extend_from_slice(&chunk[..n]);
                } else {
                    overflow = true;
                    kept = Vec::new();
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(InputError::Io(e.to_string())),
        }
    }
    if overflow {
        return Err(InputError::TooLarge { limit });
    }
    Ok(kept)
}

/// The hook events our binaries answer. Anything else is kept by name.
// The variants are the CLI's event names (`hook_event_name`); its hooks reference documents them.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    PreToolUse,
    PostToolUse,
    PostToolUseFailure,
    Stop,
    SubagentStop,
    SessionStart,
    SessionEnd,
    UserPromptSubmit,
    PreModelSwitch,
    PostModelSwitch,
    Other(String),
}

impl Event {
    /// The event of a `hook_event_name`.
    pub fn parse(name: &str) -> Event {
        match name {
            "PreToolUse" => Event::PreToolUse,
            "PostToolUse" => Event::PostToolUse,
            "PostToolUseFailure" => Event::PostToolUseFailure,
            "Stop" => Event::Stop,
            "SubagentStop" => Event::SubagentStop,
            "SessionStart" => Event::SessionStart,
            "SessionEnd" => Event::SessionEnd,
            "UserPromptSubmit" => Event::UserPromptSubmit,
            "PreModelSwitch" => Event::PreModelSwitch,
            "PostModelSwitch" => Event::PostModelSwitch,
            other => Event::Other(other.to_string()),
        }
    }

    /// The event's `hook_event_name`.
    pub fn name(&self) -> &str {
        match self {
            Event::PreToolUse => "PreToolUse",
            Event::PostToolUse => "PostToolUse",
            Event::PostToolUseFailure => "PostToolUseFailure",
            Event::Stop => "Stop",
            Event::SubagentStop => "SubagentStop",
            Event::SessionStart => "SessionStart",
            Event::SessionEnd => "SessionEnd",
            Event::UserPromptSubmit => "UserPromptSubmit",
            Event::PreModelSwitch => "PreModelSwitch",
            Event::PostModelSwitch => "PostModelSwitch",
            Event::Other(name) => name,
        }
    }
}

/// Declares [`HookInput`] and its reader from one list of the payload's keys, so a field is added
/// in one place: text fields read leniently (a value of another type reads as absent), JSON
/// fields are kept as they came.
macro_rules! hook_input {
    (text: $($text:ident),* ; json: $($json:ident),* $(;)?) => {
        /// One hook payload. Fields are those observed on Claude Code 2.1.332 plus the documented
        /// ones we use; `raw` keeps the whole object for rules that need a field we did not type.
        // Each field is the payload's key of the same name (`event` is `hook_event_name`).
        #[allow(missing_docs)]
        #[derive(Debug, Clone)]
        pub struct HookInput {
            pub event: Event,
            $(pub $text: Option<String>,)*
            $(pub $json: Option<Value>,)*
            pub stop_hook_active: bool,
            pub raw: Value,
        }

        fn typed(event: Event, value: Value) -> HookInput {
            let obj = value.as_object();
            let get = |key: &str| obj.and_then(|o| o.get(key));
            HookInput {
                event,
                $($text: get(stringify!($text)).and_then(lenient),)*
                $($json: get(stringify!($json)).cloned(),)*
                stop_hook_active: get("stop_hook_active").and_then(lenient).unwrap_or(false),
                raw: value,
            }
        }
    };
}

hook_input! {
    text: session_id, transcript_path, cwd, tool_name, tool_use_id, last_assistant_message, reason,
        source, model, prompt, agent_id, agent_type;
    json: tool_input, tool_response;
}

/// Reads a field leniently: a field of an unexpected type reads as absent instead of failing the
/// whole payload (a CLI that changes one field's type must not silence a guard).
fn lenient<T: serde::de::DeserializeOwned>(v: &Value) -> Option<T> {
    serde_json::from_value(v.clone()).ok()
}

impl HookInput {
    /// Types a payload from bytes.
    pub fn parse(bytes: &[u8]) -> Result<HookInput, InputError> {
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(InputError::Empty);
        }
        let text = std::str::from_utf8(bytes).map_err(|e| InputError::NotUtf8 {
            valid_up_to: e.valid_up_to(),
        })?;
        let value: Value =
            serde_json::from_str(text).map_err(|e| InputError::NotJson(e.to_string()))?;
        Self::from_value(value)
    }

    /// Types a payload from a parsed JSON value.
    pub fn from_value(value: Value) -> Result<HookInput, InputError> {
        let obj = value.as_object().ok_or(InputError::NotObject)?;
        let event = match obj.get("hook_event_name") {
            Some(Value::String(s)) if !s.is_empty() => Event::parse(s),
            _ => return Err(InputError::MissingEvent),
        };
        Ok(typed(event, value))
    }

    /// Why this tool call's input cannot be the tool's (the CLI always sends an object, with a
    /// string `command` for Bash and a string path for the file tools), or `None`. A guard must
    /// not read such a call as "nothing to judge" (issue 47): the runner fails it as unreadable.
    pub fn malformed(&self) -> Option<InputError> {
        let tool = self.tool_name.as_deref()?;
        let bad = |why: &str| {
            Some(InputError::Malformed {
                tool: tool.to_string(),
                why: why.to_string(),
            })
        };
        let input = match &self.tool_input {
            None => return None,
            Some(Value::Object(o)) => o,
            Some(_) => return bad("tool_input is not an object"),
        };
        let text_field = |key: &str| match input.get(key) {
            None | Some(Value::String(_)) => None,
            Some(_) => Some(format!("`{key}` is not text")),
        };
        let why = match tool {
            "Bash" => match input.get("command") {
                // Past the read bound: not parsed (memory), refused where a guard protects. A
                // finished call (PostToolUse) is still read: taint counts it as unknown.
                Some(Value::String(c))
                    if c.len() > primitives::read::MAX_COMMAND_BYTES
                        && self.event == Event::PreToolUse =>
                {
                    Some(format!(
                        "`command` is {} bytes, longer than the {} a guard reads (split it into smaller commands)",
                        c.len(),
                        primitives::read::MAX_COMMAND_BYTES
                    ))
                }
                Some(Value::String(_)) => None,
                Some(_) => Some("`command` is not text".to_string()),
                None => Some("no `command`".to_string()),
            },
            "Write" | "Edit" | "MultiEdit" | "Read" => text_field("file_path"),
            "NotebookEdit" => text_field("notebook_path"),
            "Agent" | "Task" => text_field("model"),
            _ => None,
        };
        why.and_then(|w| bad(&w))
    }

    /// The `command` of a Bash tool call, if this is one.
    pub fn bash_command(&self) -> Option<&str> {
        if self.tool_name.as_deref() != Some("Bash") {
            return None;
        }
        self.tool_input.as_ref()?.get("command")?.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drains_oversized_input_and_reports_it() {
        let big = vec![b'x'; 3 * 64 * 1024 + 7];
        let mut cursor = std::io::Cursor::new(big);
        let err = read_bounded(&mut cursor, 100_000).unwrap_err();
        assert_eq!(err, InputError::TooLarge { limit: 100_000 });
        assert_eq!(
            cursor.position() as usize,
            3 * 64 * 1024 + 7,
            "everything was drained"
        );
    }

    #[test]
    fn keeps_input_at_the_limit() {
        let data = vec![b'a'; 1000];
        assert_eq!(read_bounded(&data[..], 1000).unwrap().len(), 1000);
        assert!(read_bounded(&data[..], 999).is_err());
    }

    #[test]
    fn classifies_bad_payloads() {
        assert_eq!(HookInput::parse(b"").unwrap_err(), InputError::Empty);
        assert_eq!(HookInput::parse(b" \n").unwrap_err(), InputError::Empty);
        assert!(matches!(
            HookInput::parse(b"{not json").unwrap_err(),
            InputError::NotJson(_)
        ));
        assert_eq!(
            HookInput::parse(b"[1,2]").unwrap_err(),
            InputError::NotObject
        );
        assert!(matches!(
            HookInput::parse(b"{\"a\":\"\xff\"}").unwrap_err(),
            InputError::NotUtf8 { .. }
        ));
        assert_eq!(
            HookInput::parse(b"{\"session_id\":\"s\"}").unwrap_err(),
            InputError::MissingEvent
        );
        assert_eq!(
            HookInput::parse(b"{\"hook_event_name\":7}").unwrap_err(),
            InputError::MissingEvent
        );
    }

    #[test]
    fn ignores_unknown_fields_and_wrong_types() {
        let p = HookInput::parse(
            br#"{"hook_event_name":"Stop","stop_hook_active":"yes","novel":{"x":1},"session_id":"abc","cwd":5}"#,
        )
        .unwrap();
        assert_eq!(p.event, Event::Stop);
        assert!(!p.stop_hook_active, "a non-bool reads as absent");
        assert_eq!(p.session_id.as_deref(), Some("abc"));
        assert_eq!(p.cwd, None);
    }

    #[test]
    fn bash_command_only_for_bash() {
        let p = HookInput::parse(
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
        )
        .unwrap();
        assert_eq!(p.bash_command(), Some("ls"));
        let q = HookInput::parse(
            br#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"command":"ls"}}"#,
        )
        .unwrap();
        assert_eq!(q.bash_command(), None);
    }
}
