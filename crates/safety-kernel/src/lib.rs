//! The safety kernel: pure functions every binary shares (requirements K1–K4).
//!
//! Nothing here does I/O. Binaries feed it facts (their findings, the grant values read from their
//! own environment, a tool input) and print what it returns:
//!
//! * [`disposition`] — K1: fold several safety verdicts into one, monotonically;
//! * [`truthiness`] — K2: grants are strict, denials are coerced;
//! * [`authority`] — K3: strip fields in which the model claims authority;
//! * [`feedback`] — K4: the coarse verb and sentence the model sees;
//! * [`refusal`] — K10: one guard face's answer about one operation, for every reader.

#![warn(missing_docs)]

pub mod authority;
pub mod disposition;
pub mod feedback;
pub mod refusal;
pub mod truthiness;

pub use authority::{strip_asserted_authority, StrippedField};
pub use disposition::{compose, Disposition, Label};
pub use feedback::{clip_reason, coarsen, reason, Coarse, Verb, MAX_REASON_CHARS};
pub use refusal::Refusal;
pub use truthiness::{denial_switch, grant, list_grant, same_status, Grant, ListGrant};
