//! egress-audit: the phrase gate over an agent's final message (requirements E1–E6).
//!
//! The gate itself (E1, E2, E6) lives in the `phrase-gate` crate; this crate is what a maintainer
//! runs: the CLI ([`e3_cli`]), the audit contract behind `--selftest` ([`e4_contract`]) and the
//! Stop/SubagentStop hook ([`e5_hook`]), which reads the guards' recorded refusals ([`refusals`]). [`cases`] reads fixture cases, embedded or from a folder.

pub mod cases;
pub mod codes;
pub mod e3_cli;
pub mod e4_contract;
pub mod e5_hook;
pub mod refusals;
/// Transcript reading is shared with integrity-signals (one implementation).
pub use transcript;

/// The gate as the maintainer configured it, and a notice when the config had a problem.
pub fn configured_gate(config: &guard_config::Loaded) -> (phrase_gate::EgressGate, Option<String>) {
    let (gate, unknown) = phrase_gate::EgressGate::with_extra(&config.config.egress_extra_phrases);
    let mut notices: Vec<String> = config.notice().into_iter().collect();
    if !unknown.is_empty() {
        notices.push(format!(
            "agent-guards config: egress_extra_phrases names unknown families: {}",
            unknown.join(", ")
        ));
    }
    let notice = (!notices.is_empty()).then(|| notices.join("; "));
    (gate, notice)
}
