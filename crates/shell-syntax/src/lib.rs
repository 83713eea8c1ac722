//! `shell-syntax`: a bash lexer and parser built for judging commands, and the command view
//! that guards read.
//!
//! - [`parse`] / [`parse_with`]: text to a typed [`ast::Script`] with byte spans and quoting
//!   kept, plus the first [`SyntaxError`] (the tree holds the part bash would have run).
//! - [`commands`] / [`commands_with`]: every simple command bash would run, wrappers unwrapped,
//!   with its arguments, assignments, redirections, `cd`s and context ([`view`]).
//! - [`printer`]: a stable text rendering of trees and views for snapshots and `explain`.
//!
//! No I/O anywhere; every input-derived bound is enforced by [`Limits`] / [`ViewOptions`].

pub mod ast;
mod error;
mod parser;
pub mod printer;
pub mod view;
mod word_value;

pub use ast::*;
pub use error::{ErrorKind, Limits, SyntaxError};
pub use view::{commands, commands_with, Arg, CommandView, Invocation, Program, ViewOptions};

/// The result of parsing: the tree of what bash would run, and the first error if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub script: Script,
    pub error: Option<SyntaxError>,
}

/// Parse with the default [`Limits`].
pub fn parse(src: &str) -> Parsed {
    parse_with(src, &Limits::default())
}

/// Parse with explicit limits.
pub fn parse_with(src: &str, limits: &Limits) -> Parsed {
    let (script, error) = parser::parse_script(src, limits);
    Parsed { script, error }
}
