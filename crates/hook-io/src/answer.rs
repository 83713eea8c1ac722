//! The answers a hook prints, in the harness's JSON.
//!
//! Every answer is built here so that the shapes are checked once: a PreToolUse deny uses
//! `hookSpecificOutput.permissionDecision`, a Stop block uses the top-level `decision`, and a
//! SessionEnd report is stderr with exit 2 (the only SessionEnd channel a user sees).

use serde_json::{json, Map, Value};

/// Upper bound on strings we hand to the harness; it spills longer ones to a file (10,000 chars).
const MAX_MESSAGE_CHARS: usize = 9_000;

/// What a hook decided, before rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Nothing to say: `{}` on stdout, exit 0.
    Silent,
    /// Refuse the tool call (PreToolUse) or the switch (PreModelSwitch). `event` is the event name.
    Deny {
        /// The event answered.
        event: String,
        /// What the model sees: the requirement code and the remedy.
        reason: String,
        /// A message for the user, if any.
        system_message: Option<String>,
    },
    /// Top-level `decision: block` (Stop, SubagentStop, UserPromptSubmit, PostToolUse).
    Block {
        /// What the model sees: the requirement code and the remedy.
        reason: String,
        /// A message for the user, if any.
        system_message: Option<String>,
    },
    /// A message for the user only.
    Notice {
        /// The message.
        system_message: String,
    },
    /// Context for the model where the event allows it (SessionStart, UserPromptSubmit, PostToolUse).
    Context {
        /// The event answered.
        event: String,
        /// The text added to the model's context.
        additional_context: String,
        /// A message for the user, if any.
        system_message: Option<String>,
    },
    /// A report on stderr with exit 2 (SessionEnd): the CLI shows it to the user.
    Report {
        /// The report.
        text: String,
    },
}

/// A rendered answer: exactly what goes to stdout and stderr, and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emitted {
    /// One JSON line, or nothing.
    pub stdout: String,
    /// Text for stderr, if any.
    pub stderr: Option<String>,
    /// The process's exit code.
    pub exit_code: i32,
}

fn clip(text: &str) -> String {
    if text.chars().count() <= MAX_MESSAGE_CHARS {
        return text.to_string();
    }
    let mut out: String = text.chars().take(MAX_MESSAGE_CHARS).collect();
    out.push_str(" [...]");
    out
}

fn with_message(mut obj: Map<String, Value>, message: &Option<String>) -> Value {
    if let Some(m) = message {
        obj.insert("systemMessage".into(), Value::String(clip(m)));
    }
    Value::Object(obj)
}

impl Answer {
    /// Renders the answer. The JSON is compact and alone on stdout.
    pub fn render(&self) -> Emitted {
        let (value, stderr, exit_code) = match self {
            Answer::Silent => (json!({}), None, 0),
            Answer::Deny {
                event,
                reason,
                system_message,
            } => {
                let mut obj = Map::new();
                obj.insert(
                    "hookSpecificOutput".into(),
                    json!({
                        "hookEventName": event,
                        "permissionDecision": "deny",
                        "permissionDecisionReason": clip(reason),
                    }),
                );
                (with_message(obj, system_message), None, 0)
            }
            Answer::Block {
                reason,
                system_message,
            } => {
                let mut obj = Map::new();
                obj.insert("decision".into(), json!("block"));
                obj.insert("reason".into(), json!(clip(reason)));
                (with_message(obj, system_message), None, 0)
            }
            Answer::Notice { system_message } => (
                with_message(Map::new(), &Some(system_message.clone())),
                None,
                0,
            ),
            Answer::Context {
                event,
                additional_context,
                system_message,
            } => {
                let mut obj = Map::new();
                obj.insert(
                    "hookSpecificOutput".into(),
                    json!({"hookEventName": event, "additionalContext": clip(additional_context)}),
                );
                (with_message(obj, system_message), None, 0)
            }
            Answer::Report { text } => (json!({}), Some(clip(text)), 2),
        };
        Emitted {
            stdout: value.to_string(),
            stderr,
            exit_code,
        }
    }

    /// The same answer, and when its audit record was not `written`, a note telling the user that
    /// the evidence was not kept (`<binary>: audit log not written: <error>`): the decision stands.
    pub fn noting_audit(self, binary: &str, written: Result<(), impl std::fmt::Display>) -> Answer {
        match written {
            Ok(()) => self,
            Err(e) => self.with_user_note(&format!("{binary}: audit log not written: {e}")),
        }
    }

    /// The same answer with `note` added for the user (a config problem, a record not written):
    /// appended to the `systemMessage`, or to a SessionEnd report's text; a silent answer becomes
    /// a notice. The decision itself never changes.
    pub fn with_user_note(self, note: &str) -> Answer {
        let add = |m: Option<String>| Some(m.map_or(note.to_string(), |m| format!("{m} {note}")));
        match self {
            Answer::Silent => Answer::Notice {
                system_message: note.to_string(),
            },
            Answer::Notice { system_message } => Answer::Notice {
                system_message: format!("{system_message} {note}"),
            },
            Answer::Deny {
                event,
                reason,
                system_message,
            } => Answer::Deny {
                event,
                reason,
                system_message: add(system_message),
            },
            Answer::Block {
                reason,
                system_message,
            } => Answer::Block {
                reason,
                system_message: add(system_message),
            },
            Answer::Context {
                event,
                additional_context,
                system_message,
            } => Answer::Context {
                event,
                additional_context,
                system_message: add(system_message),
            },
            Answer::Report { text } => Answer::Report {
                text: format!("{text}\n{note}"),
            },
        }
    }

    /// True when the answer refuses or blocks something.
    pub fn is_refusal(&self) -> bool {
        matches!(self, Answer::Deny { .. } | Answer::Block { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_has_the_pretooluse_shape() {
        let e = Answer::Deny {
            event: "PreToolUse".into(),
            reason: "G4: no".into(),
            system_message: None,
        }
        .render();
        let v: Value = serde_json::from_str(&e.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(
            v["hookSpecificOutput"]["permissionDecisionReason"],
            "G4: no"
        );
        assert_eq!(e.exit_code, 0);
    }

    #[test]
    fn block_and_notice_shapes() {
        let b = Answer::Block {
            reason: "r".into(),
            system_message: Some("m".into()),
        }
        .render();
        assert_eq!(
            b.stdout,
            r#"{"decision":"block","reason":"r","systemMessage":"m"}"#
        );
        let n = Answer::Notice {
            system_message: "hello".into(),
        }
        .render();
        assert_eq!(n.stdout, r#"{"systemMessage":"hello"}"#);
        assert_eq!(Answer::Silent.render().stdout, "{}");
    }

    #[test]
    fn report_goes_to_stderr_with_exit_2() {
        let r = Answer::Report {
            text: "stray".into(),
        }
        .render();
        assert_eq!(r.exit_code, 2);
        assert_eq!(r.stderr.as_deref(), Some("stray"));
        assert_eq!(r.stdout, "{}");
    }

    #[test]
    fn user_notes_never_change_the_decision() {
        let deny = Answer::Deny {
            event: "PreToolUse".into(),
            reason: "r".into(),
            system_message: None,
        }
        .with_user_note("n");
        assert!(deny.is_refusal());
        assert_eq!(
            deny.render().stdout,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r"},"systemMessage":"n"}"#
        );
        assert_eq!(
            Answer::Silent.with_user_note("n"),
            Answer::Notice {
                system_message: "n".into()
            }
        );
        assert_eq!(
            Answer::Report { text: "t".into() }.with_user_note("n"),
            Answer::Report {
                text: "t\nn".into()
            }
        );
    }

    #[test]
    fn an_unwritten_audit_record_is_told_and_changes_nothing_else() {
        assert_eq!(
            Answer::Silent.noting_audit("g", Ok::<(), String>(())),
            Answer::Silent
        );
        assert_eq!(
            Answer::Silent.noting_audit("g", Err("disk full")),
            Answer::Notice {
                system_message: "g: audit log not written: disk full".into()
            }
        );
    }

    #[test]
    fn long_messages_are_clipped() {
        let long = "x".repeat(20_000);
        let e = Answer::Notice {
            system_message: long,
        }
        .render();
        assert!(e.stdout.len() < 10_000);
    }
}
