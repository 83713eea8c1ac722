//! The egress gate's phrase tables: the baseline's six (kept verbatim, `egress-gate-baseline.md`)
//! and the phrases that widen the excuses and the self-error family (issue 43). Hand-backs and
//! go-ahead questions beyond the baseline are read from the structure of each sentence
//! ([`crate::reader_address`]), not listed here: issue 19's phrase lists matched inside honest
//! reports ("on your end", "if you run into") and missed every paraphrase.
//!
//! Phrases are matched as substrings of the normalised text with a sentence start in front
//! ([`SENTENCE_START`]), so a phrase that begins with `". "` matches at the start of the text and
//! after every sentence; a trailing space keeps a verb from matching its `-s` form ("then run "
//! does not match "then runs").

use crate::matcher::{Compiled, Family};

include!("egress_phrases.rs");

/// What the gate puts in front of the normalised text, so that sentence-start phrases (`". run "`)
/// also match at the very start.
pub const SENTENCE_START: &str = ". ";

/// The shipped families' phrases compiled at build time into a DFA (`build.rs`): the hook scans
/// with it and builds no automaton of its own unless the maintainer added phrases.
pub static COMPILED: Compiled = include!(concat!(env!("OUT_DIR"), "/egress_dfa.rs"));

/// Every family the gate ships with.
pub fn shipped_families() -> Vec<Family> {
    FAMILY_TABLES
        .iter()
        .map(|(id, baseline, wider)| {
            let phrases: Vec<&str> = baseline.iter().chain(wider.iter()).copied().collect();
            Family::new(id, &phrases)
        })
        .collect()
}

/// The baseline's six tables alone (the prior art), for comparison in tests.
pub fn baseline_only_families() -> Vec<Family> {
    FAMILY_TABLES
        .iter()
        .map(|(id, baseline, _)| Family::new(id, baseline))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A phrase that contains another phrase of its family adds nothing but automaton size, which
    /// every hook process pays to build.
    #[test]
    fn widened_families_hold_no_redundant_phrase() {
        for family in [
            WIDER_LEGITIMATE_BLOCKER,
            WIDER_SELF_ERROR,
            WIDER_DURABLE_BINDING,
        ] {
            for p in family {
                for q in family.iter().filter(|q| *q != p) {
                    assert!(!p.contains(q), "{p:?} contains {q:?}");
                }
            }
        }
    }
}
