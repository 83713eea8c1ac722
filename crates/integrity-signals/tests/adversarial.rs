//! Adversarial replay (issue 19): `fixtures/adversarial/integrity-signals/attacks.json` (writes
//! to the suite's hooks, binaries, config, ledger and logs, and durable memory while tainted, that
//! I3 must deny) and `benign.json` (look-alikes it must allow without a tamper signal), written
//! from requirements.md and the spec without reading the guard's source, replayed through the
//! self-test's checker (`selftest::check`: live hook code, temporary state dir).
//!
//! Prints the rate per class and the wrong ids. Fails below [`ATTACK_FLOOR`], on a wrong case
//! outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it): the list only
//! shrinks.

mod adversarial_support;

/// Attacks refused / all attacks when [`KNOWN_MISSES`] was taken (raise it, never lower it).
const ATTACK_FLOOR: f64 = 1.0; // 162/162

/// Ids decided wrongly on 2026-12-02, after variables the command assigns, folders filled by
/// `tar -x`/`unzip -d`/`cp -r`, compressors, sed `w`, awk `print >`, `find -exec ... {}` and
/// words piped into `xargs` (162/162 attacks refused, 0/59 benign denied, after the scripts, cd functions, CDPATH and brace words command-effects reads): attacks let through
/// and benign cases denied or flagged.
const KNOWN_MISSES: &[&str] = &[];

hook_replay::adversarial_set_tests!("adversarial/integrity-signals", at_least = (100, 50));
