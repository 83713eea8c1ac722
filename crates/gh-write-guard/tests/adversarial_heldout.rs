//! Held-out adversarial replay (issue 16): `fixtures/adversarial-heldout/gh-write-guard/`, a second
//! set written from requirements.md by someone who had read neither the guard's source nor the
//! first set, so nobody has tuned against it. Same replay (`cases::replay`, world faked from each
//! case's `env`) and scorer (`hook_replay::adversarial`) as `adversarial.rs`.
//!
//! Prints the refusal rate per class and overall, and the wrong ids. Fails below [`ATTACK_FLOOR`],
//! on a wrong case outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it).

mod adversarial_support;

/// Refused attacks / all attacks, as measured when the list below was taken (raise it as the
/// guard improves; never lower it).
const ATTACK_FLOOR: f64 = 1.0; // 240/240

/// Ids decided wrongly. Written against main of 2026-12-02 before the command-effects layer
/// (b1f8acf: 207/240 attacks refused, 2/109 benign denied); after it, held out from its
/// developers: 236/240 refused, 0/109 benign denied; after brace-built program words, `gh api
/// --silent`/`curl -o /dev/null` and waits inside called functions (effects-gaps): 240/240.
const KNOWN_MISSES: &[&str] = &[];

hook_replay::adversarial_set_tests!("adversarial-heldout/gh-write-guard", at_least = (120, 100));
