//! Typed syntax errors and the resource limits whose violation is reported as one.

use thiserror::Error;

/// Bounds on what one parse may consume. Exceeding any is a [`SyntaxError`], never a hang or a
/// stack overflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest input in bytes.
    pub max_input: usize,
    /// Deepest nesting of constructs (lists, compound commands, substitutions, expansions).
    pub max_depth: usize,
    /// Most heredocs in one input.
    pub max_heredocs: usize,
    /// Most scanner steps; roughly proportional to input length for sane input.
    pub max_work: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input: 8 * 1024 * 1024,
            max_depth: 100,
            max_heredocs: 10_000,
            max_work: 200_000_000,
        }
    }
}

/// A syntax error (or exceeded limit) with the byte position where it was found.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{kind} at byte {pos}")]
pub struct SyntaxError {
    pub kind: ErrorKind,
    /// Byte offset of the error in the parsed text.
    pub pos: usize,
    /// Byte offset where the part bash would not run starts (the first top-level command that
    /// is not in [`crate::Parsed::script`]).
    pub unparsed_from: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ErrorKind {
    #[error("unexpected token `{0}`")]
    UnexpectedToken(String),
    #[error("unexpected end of input (expected {0})")]
    UnexpectedEof(&'static str),
    #[error("unterminated {0}")]
    Unterminated(&'static str),
    #[error("{0}")]
    Invalid(&'static str),
    #[error("input of {size} bytes exceeds the limit of {limit}")]
    InputTooLarge { size: usize, limit: usize },
    #[error("nesting deeper than {limit}")]
    TooDeep { limit: usize },
    #[error("more than {limit} heredocs")]
    TooManyHeredocs { limit: usize },
    #[error("work budget of {limit} steps exhausted")]
    WorkBudget { limit: u64 },
}

impl ErrorKind {
    /// Whether this error is a resource limit rather than a grammar error.
    pub fn is_limit(&self) -> bool {
        matches!(
            self,
            ErrorKind::InputTooLarge { .. }
                | ErrorKind::TooDeep { .. }
                | ErrorKind::TooManyHeredocs { .. }
                | ErrorKind::WorkBudget { .. }
        )
    }
}
