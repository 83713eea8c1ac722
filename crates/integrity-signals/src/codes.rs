//! The sub-codes this binary's denies carry: the one place that lists them. A code is
//! `<requirement>.<what fired>`; the reason the agent sees starts with it and the audit record
//! carries it as `code` (beside `requirement`). `spec/integrity-signals.md` lists each code once
//! (checked by a test below).

use crate::i3_tamper::Protects;
use crate::signal::Kind;

/// I3: a write to a hook registration (`settings*.json` directly in a `.claude` folder).
pub const I3_SETTINGS: &str = "I3.settings";
/// I3: a write to the agent-guards config (file or folder).
pub const I3_CONFIG: &str = "I3.config";
/// I3: a write to the state dir (ledgers, audit logs, reports).
pub const I3_STATE: &str = "I3.state";
/// I3: a write to the suite's installed binaries.
pub const I3_BINARIES: &str = "I3.binaries";
/// I3: the guard's files named by parts in a one-liner, or reached by a glob.
pub const I3_GUARD_FILES: &str = "I3.guard-files";
/// I3 with K5: a durable-memory write in a tainted session (or one whose taint cannot be read).
pub const I3_DURABLE_MEMORY: &str = "I3.durable-memory";
/// I3: a call that could write and could not be judged (fail closed).
pub const I3_FAIL_CLOSED: &str = "I3.fail-closed";
/// I1 (enforce mode): a restricted path.
pub const I1_RESTRICTED_PATH: &str = "I1.restricted-path";
/// I1 (enforce mode): a host outside the network allow-list.
pub const I1_NETWORK: &str = "I1.network";
/// I1 (enforce mode): a read outside the workspace root.
pub const I1_OUTSIDE_WORKSPACE: &str = "I1.outside-workspace";

/// Every code, once.
pub const ALL: &[&str] = &[
    I3_SETTINGS,
    I3_CONFIG,
    I3_STATE,
    I3_BINARIES,
    I3_GUARD_FILES,
    I3_DURABLE_MEMORY,
    I3_FAIL_CLOSED,
    I1_RESTRICTED_PATH,
    I1_NETWORK,
    I1_OUTSIDE_WORKSPACE,
];

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

/// The requirement a code belongs to.
pub fn requirement(code: &'static str) -> &'static str {
    safety_kernel::feedback::code_requirement(code)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_spec_lists_each_code_once() {
        let spec = include_str!("../../../spec/integrity-signals.md");
        let problems = safety_kernel::feedback::code_table_problems(spec, super::ALL);
        assert!(problems.is_empty(), "{problems:?}");
    }
}
