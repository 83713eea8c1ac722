//! The harness protocol, shared by every hook binary.
//!
//! Claude Code lets a tool call through when a hook crashes, hangs, exits with an unexpected code or
//! prints invalid JSON. This crate exists so that no binary of ours can do any of those by accident:
//!
//! * [`input`] reads stdin to EOF under a size bound, always draining, and types the payload;
//! * [`answer`] builds the only JSON shapes we print (deny, block, system message, empty);
//! * [`runner`] runs a binary's judge under a panic guard and a watchdog deadline, so that every
//!   exit path prints exactly one deliberate answer;
//! * [`escape`] makes text from a process or a payload safe for a report (control characters as
//!   `\n`, `\x1b`..., bounded length);
//! * [`cli`] answers `--help`, `--version` and usage errors the same way in every binary.

#![warn(missing_docs)]

pub mod answer;
pub mod cli;
pub mod escape;
pub mod input;
pub mod runner;

pub use answer::{Answer, Emitted};
pub use cli::Cli;
pub use escape::{escape_bytes, escape_text, DEFAULT_ESCAPED_CHARS};
pub use input::{read_bounded, Event, HookInput, InputError, DEFAULT_INPUT_LIMIT};
pub use runner::{run_hook, FailureCause, HookSpec};
