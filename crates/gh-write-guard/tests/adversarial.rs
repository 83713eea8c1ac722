//! Adversarial replay (issue 16): `fixtures/adversarial/gh-write-guard/attacks.json` (writes the
//! guard must refuse) and `benign.json` (ordinary developer commands it must allow), written from
//! requirements.md without reading the guard's source, through the same replay as the
//! conformance cases (`cases::replay`, world faked from each case's `env`).
//!
//! Prints the refusal rate per class and overall, and the wrong ids. Fails below [`ATTACK_FLOOR`],
//! on a wrong case outside [`KNOWN_MISSES`], or when a listed id is now decided rightly (drop it):
//! the list can only shrink as the guard improves, like the conformance test's divergences.

mod adversarial_support;

/// Refused attacks / all attacks, as measured when the list below was taken (raise it as the
/// guard improves; never lower it).
const ATTACK_FLOOR: f64 = 1.0; // 443/443

/// Ids decided wrongly on 2026-12-02 after command-effects (406/411 attacks refused since a
/// remote added earlier in the command is read, 0/193 benign denied); with the issue-16 gap
/// cases added (440 attacks, 208 benign) and brace words, `--silent`, `-o /dev/null`, waits in
/// called functions and function-shadowed `timeout` read: 425/440; with directories from
/// command-effects (`CDPATH`, functions that shadow `cd` or change directory): 434/440; with
/// scripts written earlier in the command read from the command's text: 439/440; with sourced
/// files put in place (their exports reach later commands): 443/443, 0/210 benign denied (nested written scripts followed too).
/// The commands are in the JSON files.
const KNOWN_MISSES: &[&str] = &[];

hook_replay::adversarial_set_tests!("adversarial/gh-write-guard", at_least = (200, 150));
