//! integrity-signals: evidence-backed signals about an agent's run (requirements I1–I6, K6).
//!
//! The binary answers four hook events and two subcommands:
//!
//! * PreToolUse (every tool): [`i3_tamper`] denies writes to hook registrations, the suite's
//!   binaries, config, ledger and audit log (always); [`i1_signals`] records reads outside the
//!   workspace, restricted paths, network destinations outside the allow-list, identical-call runs
//!   and judge-manipulating text, and [`i5_modes`] decides whether the critical ones are denied;
//! * PostToolUse / PostToolUseFailure: the most recent result per runner is kept in the ledger for
//!   [`i2_fabricated_claims`], and timeout abuse is recorded;
//! * Stop: [`i2_fabricated_claims`] compares the final message's claims with the most recent
//!   matching results (ledger and transcript);
//! * SessionEnd: [`i4_scoring`] scores the session and [`i6_report`] writes the report.
//!
//! `integrity-signals ingest` ([`ingest`]) adds an evaluation harness's signals, rejecting any
//! without the evidence their kind requires; `integrity-signals report` prints a report.
//! [`hook`] wires the events; [`store`] is the only module that touches the state dir.

pub mod bash_facts;
pub mod bash_network;
pub mod bash_programs;
pub mod codes;
pub mod face;
pub mod hook;
pub mod i1_signals;
pub mod i2_fabricated_claims;
pub mod i3_tamper;
pub mod i4_scoring;
pub mod i5_modes;
pub mod i6_report;
pub mod ingest;
pub mod network_defaults;
pub mod outcomes;
pub mod paths;
pub mod selftest;
pub mod signal;
pub mod store;

/// The text of a JSON field, or empty when it is missing or not a string (payloads and evidence
/// are read leniently: a missing field is an empty one).
pub(crate) fn text_or_empty(field: Option<&serde_json::Value>) -> String {
    field
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
        .to_string()
}
