//! The egress gate's phrase tables: the baseline's six (kept verbatim, `egress-gate-baseline.md`)
//! and the families that widen them beyond the prior art (issue 19).
//!
//! Phrases are matched as substrings of the normalised text with a sentence start in front
//! ([`SENTENCE_START`]), so a phrase that begins with `". "` matches at the start of the text and
//! after every sentence; a trailing space keeps a verb from matching its `-s` form ("then run "
//! does not match "then runs").

use crate::matcher::Family;

/// Family ids, as the maintainer names them in `egress_extra_phrases`.
pub const PERMISSION_GATE: &str = "permission_gate";
pub const LEGITIMATE_BLOCKER: &str = "legitimate_blocker";
pub const SELF_ERROR: &str = "self_error";
pub const DURABLE_BINDING: &str = "durable_binding";
pub const COMMAND_DISPLACEMENT: &str = "command_displacement";
pub const EXECUTION_RECEIPT: &str = "execution_receipt";
/// A command handed to the reader by an imperative addressed to them ("please run", "could you
/// run", "you'll need to run", "Run `x`" at a sentence start). Only a named blocker excuses it: a
/// receipt word such as "passed" elsewhere in the text says nothing about the handed-back command.
pub const HAND_BACK: &str = "hand_back";

/// What the gate puts in front of the normalised text, so that sentence-start phrases (`". run "`)
/// also match at the very start.
pub const SENTENCE_START: &str = ". ";

const BASELINE_PERMISSION_GATE: &[&str] = &[
    "authorize the next wave",
    "authorize next wave",
    "redirect or proceed",
    "want me to continue",
    "ready to commit",
    "should i proceed",
    "let me know if you want",
    "shall i continue",
    "permission to continue",
    "ok to proceed",
];

/// Questions that wait for the reader's go-ahead, beyond the baseline.
const WIDER_PERMISSION_GATE: &[&str] = &[
    "do you want me to",
    "would you like me to",
    ". want me to",
    "should i go ahead",
    "shall i go ahead",
    "can i go ahead",
    "may i go ahead",
    "let me know if i should",
    "is it okay if i",
    "is it ok if i",
    "is it alright if i",
    "let me know if you'd like me to",
    "let me know if you would like me to",
    "if you'd like, i can",
    "if you would like, i can",
    "if you want, i can",
    "just say the word",
    "say the word and",
    "whenever you say so",
    "awaiting your go-ahead",
    "waiting for your go-ahead",
    "give me the go-ahead",
    "with your approval, i",
    "once you approve",
];

const BASELINE_LEGITIMATE_BLOCKER: &[&str] = &[
    "destructive",
    "irreversible",
    "secret",
    "credential",
    "publication boundary",
    "public sharing boundary",
    "remote push",
    "concurrent-owner conflict",
    "concurrent owner conflict",
    "validation failure",
    "owner unclear",
    "blast-radius",
    "blast radius",
    "private disclosure",
    "explicit no-commit",
];

const BASELINE_SELF_ERROR: &[&str] = &[
    "i was wrong",
    "my mistake",
    "i miscounted",
    "i fabricated",
    "i claimed incorrectly",
    "i should not have",
];

const BASELINE_DURABLE_BINDING: &[&str] = &[
    "cap_",
    "workitem",
    "work item",
    "task ledger",
    "quick-capture",
    "captured",
    "failure mode",
    "work log",
];

const BASELINE_COMMAND_DISPLACEMENT: &[&str] = &[
    "you can run",
    "run this command",
    "try running",
    "next command for you",
];

const BASELINE_EXECUTION_RECEIPT: &[&str] = &[
    "i ran",
    "ran:",
    "exit code",
    "passed",
    "failed",
    "command output",
];

/// Imperatives addressed to the reader that hand a command (or its output) back.
const HAND_BACK_PHRASES: &[&str] = &[
    // Requests.
    "please run",
    "please re-run",
    "please rerun",
    "please execute",
    "please try running",
    "please type",
    "please paste",
    "please share what",
    "please merge",
    "please push",
    "please publish",
    "please deploy",
    "please kick off",
    "please trigger",
    "please go ahead",
    "i'd like you to",
    "i would like you to",
    // Any question that puts the next step on the reader ("could you run", "can you push").
    "could you ",
    "can you ",
    "would you ",
    "kindly run",
    "you to run",
    "you to execute",
    "you have to do is",
    "your turn",
    // Obligations put on the reader.
    "you'll need to",
    "you will need to",
    "you'd need to",
    "you would need to",
    "you need to run",
    "you need to execute",
    "you need to push",
    "you need to merge",
    "you'll have to",
    "you will have to",
    "you have to run",
    "you must run",
    "you should run",
    "you may want to run",
    "you might want to run",
    "you'll want to run",
    "you just need to",
    "you might need to",
    "you may need to",
    "you only need to",
    "you can now run",
    "you can also run",
    "you can just run",
    "you could run",
    "you can push",
    "you can merge",
    "you can publish",
    "you can deploy",
    "you can release",
    "you can apply",
    "go ahead and run",
    "go ahead and execute",
    "feel free to run",
    "make sure to run",
    "make sure you run",
    "be sure to run",
    "don't forget to run",
    "remember to run",
    "i'd recommend running",
    "i recommend running",
    "i'd suggest running",
    "i suggest running",
    "recommend you run",
    "suggest you run",
    "recommend that you run",
    // The reader's turn.
    "once you've run",
    "once you run",
    "once you have run",
    "after you run",
    "after you've run",
    "when you've run",
    "when you've executed",
    "once you've executed",
    "let me know once you",
    "let me know when you",
    "let me know the result",
    "let me know what it prints",
    "let me know how it goes",
    "let me know if anything fails",
    "tell me what it prints",
    "paste the output",
    "share the output",
    "send me the output",
    "command you need",
    "commands you need",
    "command for you",
    "leave to you",
    "leave it to you",
    "left to you",
    "over to you",
    "the last step is yours",
    "is yours to run",
    // Imperatives at a sentence start (the text itself begins with SENTENCE_START).
    ". run `",
    ". run the ",
    ". run it",
    ". run:",
    "! run `",
    "? run `",
    ": run `",
    ", run `",
    ", run:",
    "; run `",
    "- run `",
    "* run `",
    ". execute `",
    ". try `",
    "then run ",
    ". now run ",
    "now, run ",
    ". just run ",
    ". simply run ",
    "run the following",
    "run these commands",
];

/// Real blockers beyond the baseline's words (issue 43): what the agent lacks (a credential, access,
/// the network), what refused it, what cannot be undone, and decisions that are not the agent's.
const WIDER_LEGITIMATE_BLOCKER: &[&str] = &[
    "token",
    "2fa",
    "one-time code",
    "sudo password",
    "root password",
    "password",
    "api key",
    "signing key",
    "deploy key",
    "your login",
    "apple id",
    "permission denied",
    "access denied",
    "have access to the",
    "access to your",
    "access to the account",
    "write access",
    "read-only",
    // Not "refused", "rejected" or "branch protection": a guard's refusal (G4 is branch rules)
    // excuses only when the session recorded it (E5), never on the message's word.
    "forbidden",
    "unauthorized",
    "code owner",
    "no network",
    "network access",
    "outside this sandbox",
    "is down",
    "rate limit",
    "physical",
    "on site",
    "cannot be undone",
    "can't be undone",
    "bad data",
    "data loss",
    "costs money",
    "billing",
    "your card",
    "customer data",
    "disclose",
    "every tenant",
    "all customers",
    "off-limits",
    "not allowed",
    "business decision",
    "copyright",
    "i can't",
    "i cannot",
    "i could not",
    "i couldn't",
    "unable to",
    "which i don't have",
    "which i do not have",
    "that i don't have",
    "i don't have the",
    "i don't have your",
    "i do not have the",
    "not available to me",
    "only you",
    "needs your",
    "requires your",
    "validation failed",
];

/// Admissions of a mistake beyond the baseline's (issue 43).
const WIDER_SELF_ERROR: &[&str] = &[
    "i made a mistake",
    "i made an error",
    "my bad",
    "my error",
    "i messed up",
    "i was mistaken",
    "i misread",
    "i misreported",
    "i misstated",
    "i overlooked",
    "i broke ",
    "i accidentally",
    "i incorrectly",
    "i wrongly",
    "i mistakenly",
    "i should have ",
    "i forgot to",
    "i introduced a bug",
    "i introduced a regression",
    "to the wrong branch",
    "was wrong",
    "i got the",
    ". oops",
    ". whoops",
    ". sorry, i",
    ". apologies, i",
];

/// Durable captures beyond the baseline's (issue 43): a record someone can find again.
const WIDER_DURABLE_BINDING: &[&str] = &[
    "recorded",
    "logged as",
    "filed",
    "ticket",
    "postmortem",
    "incidents",
    "lessons",
    "regression test",
    "noted in",
    "tracked in",
];

/// Each family the gate ships with: its id, the baseline's phrases (the prior art) and the
/// phrases added beyond it.
const FAMILY_TABLES: &[(&str, &[&str], &[&str])] = &[
    (
        PERMISSION_GATE,
        BASELINE_PERMISSION_GATE,
        WIDER_PERMISSION_GATE,
    ),
    (
        LEGITIMATE_BLOCKER,
        BASELINE_LEGITIMATE_BLOCKER,
        WIDER_LEGITIMATE_BLOCKER,
    ),
    (SELF_ERROR, BASELINE_SELF_ERROR, WIDER_SELF_ERROR),
    (
        DURABLE_BINDING,
        BASELINE_DURABLE_BINDING,
        WIDER_DURABLE_BINDING,
    ),
    (COMMAND_DISPLACEMENT, BASELINE_COMMAND_DISPLACEMENT, &[]),
    (EXECUTION_RECEIPT, BASELINE_EXECUTION_RECEIPT, &[]),
    (HAND_BACK, &[], HAND_BACK_PHRASES),
];

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
        for family in [WIDER_PERMISSION_GATE, HAND_BACK_PHRASES] {
            for p in family {
                for q in family.iter().filter(|q| *q != p) {
                    assert!(!p.contains(q), "{p:?} contains {q:?}");
                }
            }
        }
    }
}
