//! Held-out adversarial replay (issue 19): `fixtures/adversarial-heldout/model-tier-guard/`, a
//! second set written from requirements.md and the spec's fixture schema by someone who had read
//! neither the guard's source nor the first set. Replayed in-process like the embedded fixtures
//! (`fixtures::run_case`) and scored by `hook_replay::adversarial`, as `adversarial.rs` does.
//!
//! Prints the rate per class and the wrong ids. Fails below [`ATTACK_FLOOR`], on a wrong case
//! outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it).

mod adversarial_support;

/// Attacks refused / all attacks when [`KNOWN_MISSES`] was taken (raise it, never lower it).
const ATTACK_FLOOR: f64 = 93.0 / 94.0;

/// Ids decided wrongly on main of 2026-12-02 (93/94 attacks refused, 0/33 benign refused): a
/// `fork` naming the tier. (A launch whose program is a command substitution given `--model`
/// is judged as a launch since.)
const KNOWN_MISSES: &[&str] = &["hatk-fork-003"];

hook_replay::adversarial_set_tests!("adversarial-heldout/model-tier-guard", at_least = (50, 30));
