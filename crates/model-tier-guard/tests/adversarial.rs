//! Adversarial replay (issue 19): `fixtures/adversarial/model-tier-guard/attacks.json` (routes to
//! the maintainer-only tier the guard must refuse, block or report) and `benign.json` (look-alikes
//! it must allow), written from requirements.md and the spec without reading the guard's source,
//! replayed in-process like the embedded fixtures (`fixtures::run_case`, scratch project and home).
//!
//! Prints the rate per class and the wrong ids. Fails below [`ATTACK_FLOOR`], on a wrong case
//! outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it): the list only
//! shrinks. Problems other than the decision (a reason over the K4 bound) are printed, not scored.

mod adversarial_support;

/// Attacks refused / all attacks when [`KNOWN_MISSES`] was taken (raise it, never lower it).
const ATTACK_FLOOR: f64 = 198.0 / 199.0;

/// Ids decided wrongly after the YAML front matter, skills, settings `agent`, shell writes of
/// model files (tier-integrity), command-effects (issue 16) and the scripts and sourced files
/// it reads (198/199 attacks refused, 0/69 benign denied; `node ~/<path>/cli.js` and run-time programs given `--model` read since): attacks let through and benign cases
/// refused.
const KNOWN_MISSES: &[&str] = &["atk-launch-052"];

hook_replay::adversarial_set_tests!("adversarial/model-tier-guard", at_least = (100, 50));
