//! The sub-codes this binary's denies carry: the one place that lists them. A code is
//! `<requirement>.<what fired>`; the reason the agent sees starts with it and the audit record
//! carries it as `code` (beside `requirement`). `spec/integrity-signals.md` lists each code once
//! (checked by the test `safety_kernel::codes!` declares).

use crate::i3_tamper::Protects;
use crate::signal::Kind;

safety_kernel::codes! {
    spec: "../../../spec/integrity-signals.md";
    /// I3: a write to a hook registration (`settings*.json` directly in a `.claude` folder).
    I3_SETTINGS = "I3.settings";
    /// I3: a write to the agent-guards config (file or folder).
    I3_CONFIG = "I3.config";
    /// I3: a write to the state dir (ledgers, audit logs, reports).
    I3_STATE = "I3.state";
    /// I3: a write to the suite's installed binaries.
    I3_BINARIES = "I3.binaries";
    /// I3: the guard's files named by parts in a one-liner, or reached by a glob.
    I3_GUARD_FILES = "I3.guard-files";
    /// I3 with K5: a durable-memory write in a tainted session (or one whose taint cannot be read).
    I3_DURABLE_MEMORY = "I3.durable-memory";
    /// I3: a call that could write and could not be judged (fail closed).
    I3_FAIL_CLOSED = "I3.fail-closed";
    /// I1 (enforce mode): a restricted path.
    I1_RESTRICTED_PATH = "I1.restricted-path";
    /// I1 (enforce mode): a host outside the network allow-list.
    I1_NETWORK = "I1.network";
    /// I1 (enforce mode): a read outside the workspace root.
    I1_OUTSIDE_WORKSPACE = "I1.outside-workspace";
}

/// The code of a write to something protected.
pub fn tamper(what: Protects) -> &'static str {
    match what {
        Protects::HookRegistration => I3_SETTINGS,
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
