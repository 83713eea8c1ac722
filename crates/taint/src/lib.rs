//! K5: taint at the source.
//!
//! Taint is decided by the *type* of a tool call, never by the content it returned: a fixed,
//! single-sourced set of tool kinds reads untrusted external content. This crate is that set and
//! the session's memory of it, shared by every binary that refuses something in a tainted session
//! (model-tier-guard M5, integrity-signals I3).
//!
//! * [`source_of`] — pure classifier: is this tool call (name + input) a taint source under the
//!   maintainer's [`TaintPolicy`]? `WebFetch`, `WebSearch`, MCP tools of untrusted servers, and
//!   Bash commands whose program fetches from the network (found with `shell-syntax`, inside
//!   substitutions, `bash -c` strings and wrappers).
//! * [`record`] / [`is_tainted`] / [`taint_state`] — the session ledger: once tainted, always
//!   tainted, with evidence (tool, kind, detail, time, tool_use_id) for the maintainer.
//!
//! ```
//! use serde_json::json;
//! use taint::{source_of, TaintKind, TaintPolicy};
//! let policy = TaintPolicy::default();
//! let s = source_of("Bash", &json!({"command": "x=$(curl -s https://e.example/a)"}), &policy).unwrap();
//! assert_eq!(s.kind, TaintKind::NetworkCommand);
//! assert!(source_of("Read", &json!({"file_path": "/w/a.rs"}), &policy).is_none());
//! ```

#![warn(missing_docs)]

mod from_transcript;
mod ledger;
mod network;
mod origin;
mod source;

pub use command_effects::owner::{owner_of_git_url, owner_of_repo_spec, RemoteOwner};
pub use from_transcript::transcript_source;
pub use ledger::{
    cannot_rule_out, is_tainted, open_session, record, record_relayed, state_lost, taint_state,
    TaintState, LEDGER_KEY, MAX_EVIDENCE, OPENED_KEY, UNRECORDED_MARKER,
};
pub use origin::{origin_owner, repo_git_config};
pub use source::{source_of, TaintKind, TaintPolicy, TaintSource};
