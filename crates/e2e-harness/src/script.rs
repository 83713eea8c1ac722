//! The scripted model: what the fake model answers (`Reply`, `Turn`) and a typed view of what the
//! CLI asked it (`ModelRequest`), so scenarios and deciding closures read requests without
//! digging through raw JSON.

use serde_json::Value;

/// One content block of a model answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Plain assistant text.
    Text(String),
    /// A tool call; `input` is the tool's input object.
    ToolUse { name: String, input: Value },
}

/// One whole model answer: its blocks, streamed in order. The stop reason follows from the
/// blocks: `tool_use` when any block is a tool call, `end_turn` otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub blocks: Vec<Block>,
}

impl Reply {
    /// A final text answer (`stop_reason: end_turn`).
    pub fn text(text: impl Into<String>) -> Reply {
        Reply {
            blocks: vec![Block::Text(text.into())],
        }
    }

    /// One tool call (`stop_reason: tool_use`).
    pub fn tool(name: impl Into<String>, input: Value) -> Reply {
        Reply {
            blocks: vec![Block::ToolUse {
                name: name.into(),
                input,
            }],
        }
    }

    /// Several tool calls in one answer, in order.
    pub fn tools<N: Into<String>>(calls: impl IntoIterator<Item = (N, Value)>) -> Reply {
        Reply {
            blocks: calls
                .into_iter()
                .map(|(name, input)| Block::ToolUse {
                    name: name.into(),
                    input,
                })
                .collect(),
        }
    }

    /// Adds a leading text block (models often say something before calling a tool).
    pub fn with_preamble(mut self, text: impl Into<String>) -> Reply {
        self.blocks.insert(0, Block::Text(text.into()));
        self
    }

    /// `tool_use` when the reply calls a tool, else `end_turn`.
    pub fn stop_reason(&self) -> &'static str {
        if self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }))
        {
            "tool_use"
        } else {
            "end_turn"
        }
    }
}

/// A closure that chooses the reply after looking at the request.
pub type Decider = Box<dyn FnMut(&ModelRequest) -> Reply + Send + 'static>;

/// One scripted step: a fixed reply, or a closure deciding from the request it answers.
pub enum Turn {
    Fixed(Reply),
    Decide(Decider),
}

impl Turn {
    pub(crate) fn answer(&mut self, request: &ModelRequest) -> Reply {
        match self {
            Turn::Fixed(reply) => reply.clone(),
            Turn::Decide(decide) => decide(request),
        }
    }
}

impl From<Reply> for Turn {
    fn from(reply: Reply) -> Turn {
        Turn::Fixed(reply)
    }
}

impl std::fmt::Debug for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Turn::Fixed(reply) => f.debug_tuple("Fixed").field(reply).finish(),
            Turn::Decide(_) => f.write_str("Decide(<closure>)"),
        }
    }
}

/// Shorthand for [`Reply::text`].
pub fn text(text: impl Into<String>) -> Reply {
    Reply::text(text)
}

/// Shorthand for [`Reply::tool`].
pub fn tool(name: impl Into<String>, input: Value) -> Reply {
    Reply::tool(name, input)
}

/// A Bash tool call of `command`, with the `description` the CLI shows.
pub fn bash(command: impl Into<String>, description: &str) -> Reply {
    Reply::tool(
        "Bash",
        serde_json::json!({"command": command.into(), "description": description}),
    )
}

/// A turn whose reply is chosen by `decide` from the request it answers (for example to read the
/// previous tool result).
pub fn decide(decide: impl FnMut(&ModelRequest) -> Reply + Send + 'static) -> Turn {
    Turn::Decide(Box::new(decide))
}

/// Which script (if any) a request was answered from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// A main-session `POST /v1/messages` carrying tools: one scripted turn.
    Main,
    /// A subagent's request (system prompt holds `cc_is_subagent=true`).
    Subagent,
    /// A messages request without tools (titles and the like): answered with a short text.
    Side,
    /// Anything else the CLI asked (count_tokens, HEAD, unknown paths).
    Other,
}

/// One HTTP request the CLI sent to the model server, as recorded.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    pub method: String,
    /// Path with query, e.g. `/v1/messages?beta=true`.
    pub path: String,
    /// The JSON body, or `Value::Null` when the body was empty or not JSON.
    pub body: Value,
    pub kind: RequestKind,
}

/// A `tool_result` block the CLI sent back to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub tool_use_id: String,
    /// All text of the result, blocks joined with newlines.
    pub text: String,
    pub is_error: bool,
}

impl ModelRequest {
    /// The requested model id, e.g. `claude-opus-5-5`.
    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    /// The system prompt as one string (string form, or text blocks joined with newlines).
    pub fn system_text(&self) -> String {
        self.body.get("system").map(text_of).unwrap_or_default()
    }

    /// The conversation messages sent with the request.
    pub fn messages(&self) -> &[Value] {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Names of the tools offered to the model.
    pub fn tool_names(&self) -> Vec<&str> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The `tool_result` blocks of the last user message: the results of the previous turn.
    pub fn tool_results(&self) -> Vec<ToolResult> {
        let Some(last_user) = self
            .messages()
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        else {
            return Vec::new();
        };
        content_blocks(last_user)
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .map(|b| ToolResult {
                tool_use_id: b
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                text: b.get("content").map(text_of).unwrap_or_default(),
                is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            })
            .collect()
    }

    /// All text the CLI appended since the model's last answer: every text and tool-result
    /// block of the messages after the last assistant message, joined with newlines. This is
    /// where hook feedback (a Stop hook's reason, a deny reason) reaches the model.
    pub fn text_since_last_answer(&self) -> String {
        let messages = self.messages();
        let start = messages
            .iter()
            .rposition(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .map_or(0, |i| i + 1);
        messages[start..]
            .iter()
            .map(|m| m.get("content").map(text_of).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// True when any string anywhere in the body (system, messages, tools) contains `needle`.
    pub fn mentions(&self, needle: &str) -> bool {
        any_string(&self.body, &|s| s.contains(needle))
    }
}

/// Text of a `content`/`system` value: a string, or the `text`/`content` of its blocks.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b {
                Value::String(s) => s.clone(),
                _ => match (b.get("text"), b.get("content")) {
                    (Some(Value::String(t)), _) => t.clone(),
                    (_, Some(inner)) => text_of(inner),
                    _ => String::new(),
                },
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn content_blocks(message: &Value) -> Vec<Value> {
    match message.get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
        _ => Vec::new(),
    }
}

fn any_string(value: &Value, pred: &dyn Fn(&str) -> bool) -> bool {
    match value {
        Value::String(s) => pred(s),
        Value::Array(items) => items.iter().any(|v| any_string(v, pred)),
        Value::Object(map) => map.values().any(|v| any_string(v, pred)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(body: Value) -> ModelRequest {
        ModelRequest {
            method: "POST".into(),
            path: "/v1/messages".into(),
            body,
            kind: RequestKind::Main,
        }
    }

    #[test]
    fn stop_reason_follows_blocks() {
        assert_eq!(text("hi").stop_reason(), "end_turn");
        assert_eq!(tool("Bash", json!({})).stop_reason(), "tool_use");
        assert_eq!(
            tool("Bash", json!({})).with_preamble("x").stop_reason(),
            "tool_use"
        );
    }

    #[test]
    fn reads_tool_results_of_last_user_message_only() {
        let r = request(json!({"messages": [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "old", "content": "x"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "is_error": true,
                 "content": [{"type": "text", "text": "denied"}, {"type": "text", "text": "why"}]},
                {"type": "text", "text": "note"}
            ]}
        ]}));
        assert_eq!(
            r.tool_results(),
            vec![ToolResult {
                tool_use_id: "t1".into(),
                text: "denied\nwhy".into(),
                is_error: true
            }]
        );
        assert_eq!(r.text_since_last_answer(), "denied\nwhy\nnote");
    }

    #[test]
    fn system_text_accepts_string_and_blocks() {
        assert_eq!(request(json!({"system": "s"})).system_text(), "s");
        let r = request(
            json!({"system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
        );
        assert_eq!(r.system_text(), "a\nb");
        assert!(r.mentions("b"));
        assert!(!r.mentions("zzz"));
    }

    #[test]
    fn missing_fields_give_empty_views() {
        let r = request(Value::Null);
        assert!(r.messages().is_empty());
        assert!(r.tool_results().is_empty());
        assert!(r.tool_names().is_empty());
        assert_eq!(r.system_text(), "");
        assert_eq!(r.model(), None);
        assert_eq!(r.text_since_last_answer(), "");
    }
}
