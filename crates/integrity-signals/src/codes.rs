//! The sub-codes this binary's denies carry, and which deny gets which. A code is
//! `<requirement>.<what fired>`; the reason the agent sees starts with it and the audit record
//! carries it as `code` (beside `requirement`). The one place that lists them is the code table of
//! `spec/integrity-signals.md`: the build makes a constant of each row (`I3.settings` →
//! `I3_SETTINGS`), so a code is added by adding its row.

use crate::i3_tamper::Protects;
use crate::signal::Kind;

// The constants, `ALL` and `requirement`: see `fixture_embed::code_table`.
include!(concat!(env!("OUT_DIR"), "/codes.rs"));

/// The code of a write to something protected.
pub fn tamper(what: Protects) -> &'static str {
    match what {
        Protects::HookRegistration => I3_SETTINGS,
        Protects::Registration => I3_REGISTRATION,
        Protects::Config => I3_CONFIG,
        Protects::State => I3_STATE,
        Protects::Binaries => I3_BINARIES,
        Protects::GuardFiles => I3_GUARD_FILES,
    }
}

/// The code of an I1 deny of a signal of `kind` (enforce mode).
pub fn i1(kind: Option<Kind>) -> &'static str {
    match kind {
        Some(Kind::RestrictedPath) => I1_RESTRICTED_PATH,
        Some(Kind::NetworkEscape) => I1_NETWORK,
        _ => I1_OUTSIDE_WORKSPACE,
    }
}
