//! The sub-codes this binary's denies, blocks and critical warnings carry. A code is
//! `<requirement>.<what fired>`; the reason the agent sees starts with it and the audit record
//! carries it as `code` (beside `requirement`). The one place that lists them is the code table of
//! `spec/model-tier-guard.md`: the build makes a constant of each row (`M2.call-model` →
//! `M2_CALL_MODEL`), so a code is added by adding its row.

// The constants, `ALL` and `requirement`: see `fixture_embed::code_table`.
include!(concat!(env!("OUT_DIR"), "/codes.rs"));
