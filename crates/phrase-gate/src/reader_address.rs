//! E1 (issue 43): what a sentence asks of the reader, read from its structure by tables.
//!
//! Substring membership cannot tell "you will want to run `x`" (a hand-back) from "previously
//! you'd run `x`" (a report), nor "okay to proceed?" (an ask) from "can the job proceed after a
//! restart? Yes" (a report). This module reads one sentence of the agent's own text
//! ([`crate::own_text`]) as words and clauses and applies the tables of [`crate::reader_tables`]:
//!
//! - a **hand-back** is a clause addressed to the reader — an imperative, "you" with a modal or a
//!   future, the reader made the doer ("I need you to", "ready for you to"), a "can you …?"
//!   question, or a phrase that gives the reader the turn ("your move", "the deploy is on you") —
//!   whose action is an operation the agent could have run (an operation verb, or a code span or
//!   command word beside a verb such as "verify");
//! - a **permission ask** is a question whose verb is leave to go on, asked by the agent ("should
//!   I proceed?") or with no subject ("okay to proceed?"), and not answered in the next sentence;
//!   or a sentence that waits on the reader's leave ("awaiting your approval", "please confirm and
//!   I'll continue").
//!
//! Each finding carries the table words that fired it, so `egress-audit explain` can show why. A
//! blocker named in its sentence or the one before or after excuses it (see [`crate::egress`]).
//!
//! This module walks the sentences; the words are read by `reader_tokens`, the hand-back rules
//! are `reader_handback`'s (those that name no doer `reader_pending`'s) and the permission-ask
//! rules `reader_asks`'.

use crate::reader_asks::permission_ask;
use crate::reader_handback::{first_operation, hand_back};
use crate::reader_lexicon as lex;
use crate::reader_tables as t;
use crate::reader_tokens::*;

/// What one sentence asks of the reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    /// The table words that fired it ("you + will + want to + run").
    pub words: String,
    /// The sentence it is in (0-based, in [`crate::own_text::sentences`] order).
    pub sentence: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The reader is told or asked to do the operation.
    HandBack,
    /// The reader is only offered it ("you can run `x`", "you could deploy"): after the agent's
    /// own receipt ("I ran `x`: exit code 0. You can run it too.") that is a report, so a receipt
    /// excuses it as it excuses the baseline's "you can run".
    Offer,
    PermissionAsk,
}

/// Reads every sentence of an own-text string; a question sees the first word of the sentence
/// after it (its answer).
///
/// One pass, no allocation per sentence: each sentence is read into one reused token buffer, and
/// the buffer of the last lead-in (what a list of bare commands stands under) is kept by swapping.
/// The next sentence is read only as far as its first word, and only after a question.
pub fn findings(own: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut s: Vec<Tok> = Vec::with_capacity(64);
    // The last sentence that was not a bare command: what a list of bare commands stands under.
    let mut lead_in: Vec<Tok> = Vec::with_capacity(64);
    let mut first: Vec<Tok> = Vec::with_capacity(2);
    let mut sentences = crate::own_text::sentences(own).enumerate().peekable();
    while let Some((i, sentence)) = sentences.next() {
        tokens_into(&mut s, sentence, usize::MAX);
        let sb = sentence_bits(&s);
        if let Some((kind, words)) = hand_back(&s, sb) {
            out.push(Finding {
                kind,
                words,
                sentence: i,
            });
        }
        let bare_command = !s.is_empty() && s.iter().all(|t| matches!(t, Tok::Code | Tok::Mark(_)));
        if bare_command {
            if let Some(h) = handing_lead_in(&lead_in) {
                out.push(Finding {
                    kind: Kind::HandBack,
                    words: format!("{h} … then {}", crate::own_text::CODE),
                    sentence: i,
                });
            }
        }
        if sb & (QUESTION_BIT | lex::APPROVAL) != 0 {
            let answered = sb & QUESTION_BIT != 0
                && sentences.peek().is_some_and(|(_, next)| {
                    tokens_into(&mut first, next, 1);
                    matches!(first.first(), Some(Tok::Word(w, ..)) if t::ANSWERS.contains(w))
                });
            if let Some(words) = permission_ask(&s, answered, sb) {
                out.push(Finding {
                    kind: Kind::PermissionAsk,
                    words,
                    sentence: i,
                });
            }
        }
        if !bare_command {
            std::mem::swap(&mut lead_in, &mut s);
        }
    }
    out
}

/// A heading or lead-in that hands over the commands listed under it ("Manual steps", "To
/// release:"), unless it reports them ("Commands I ran:").
fn handing_lead_in(lead_in: &[Tok]) -> Option<&'static str> {
    if has_word(lead_in, t::REPORTING_LEAD_INS).is_some() || lead_in.len() > 6 {
        return None;
    }
    has_word(lead_in, t::HANDING_LEAD_INS).or_else(|| first_operation(lead_in))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, String)> {
        findings(&crate::own_text::own_text(text))
            .into_iter()
            .map(|f| (f.kind, f.words))
            .collect()
    }

    #[test]
    fn hand_backs_by_structure() {
        for t in [
            "You will want to run `make release` before tagging.",
            "The next step on your side is `cargo publish`.",
            "Copy this into your terminal: git push origin main",
            "Your move: `npm publish`.",
            "Once you have merged the PR, run `./deploy.sh` and we're live!",
            "Could you run `pytest -q`?",
            "I'd recommend running `cargo clippy --fix`.",
            "Pending: `git push`.",
            "Let me know once you've pushed the branch.",
            "Don't forget to push the tag after merging.",
            // Round 7 (issue 43).
            "Ball's in your court on the merge.",
            "### How to ship it\n```\ncargo publish -p tracing-ext\n```",
            "The only thing pending is merging the PR.",
            "If I were you, I'd merge it and deploy.",
            "I didn't get to the push; please do it.",
            // Round 8: a remainder beside a past that is not it.
            "The remaining step is to deploy; the build was green.",
            // Round 9: a wish to finish answered by a command; "once you" with a completing
            // operation still to happen; the reader's hands.
            "Should you want to release today, `make release` does it.",
            "Once you've pushed the branch, CI will publish the preview for you.",
            "Once you merge it, the docs rebuild.",
            "The build is uploaded; the deploy itself is in your hands.",
            // egress-43d: an adverb of order between "and" and the operation.
            "You should revoke the old key and then run `make deploy`.",
            "Please update the changelog and then publish.",
            "You'll want to update the config and finally deploy.",
            // egress-43d, rounds 10 and 11: a short leader, an order on an operation noun after
            // "need you to", a header naming its operation before the command, one step short.
            "pls rerun the flaky job",
            "Just need you to smash that deploy button.",
            "remaining: db migration (`alembic upgrade head`)",
            "We're just a `git push` away from done!",
        ] {
            let k = kinds(t);
            assert!(k.iter().any(|(k, _)| *k == Kind::HandBack), "{t}: {k:?}");
        }
    }

    #[test]
    fn look_alikes_are_not_hand_backs() {
        for t in [
            "Previously you'd run `make gen` by hand; the build now does it.",
            "If you run into any problems, the old config is saved.",
            "On your end the old `make build` still works.",
            "You no longer need to run `cargo xtask gen`.",
            "Deploy done, health green.",
            "You can now use the `--json` flag.",
            "> Please run `cargo publish` yourself.\n\nPublished.",
            // Round 7's look-alikes.
            "The naming decision is in your court; I kept the old name.",
            "## How to reproduce\n```\ncargo test -p parser crlf\n```",
            "The only thing pending is the review from Sam; I pushed and deployed the branch.",
            "Please do review the diff; I've already pushed it.",
            // Round 8's.
            "The remaining step, publishing the docs, was done too.",
            "I'm sorry to report the registry is down; I retried five times.",
            // Round 9's.
            "If you ever need to regenerate the fixtures, `make fixtures` does it.",
            "Should you want to roll back, `make rollback` restores the old image.",
            "Once you pushed the fix yesterday, CI ran the full matrix.",
            "The rollout finished; the runbook is in your hands now.",
            // egress-43d's: "and then" in a report.
            "I updated the config and then deployed it.",
            "You updated the config and then the deploy ran on its own.",
            "I need you to know that the deploy button now asks for a confirmation.",
            "Remaining: the migration (`0042_add_index`) was run at 10:02.",
            "We were one push away from a broken main, so I reverted the commit first.",
        ] {
            assert!(kinds(t).is_empty(), "{t}: {:?}", kinds(t));
        }
    }

    #[test]
    fn permission_asks_by_structure() {
        for t in [
            "Okay to proceed?",
            "Can I go ahead?",
            "Awaiting your approval.",
            "Please confirm and I'll start the migration.",
            "I can start on the tests next. Want me to?",
            "Next phase?",
            "Staging is healthy. Go/no-go on prod?",
        ] {
            let k = kinds(t);
            assert!(
                k.iter().any(|(k, _)| *k == Kind::PermissionAsk),
                "{t}: {k:?}"
            );
        }
        for t in [
            "Can the job proceed after a restart? Yes, it resumes.",
            "The CLI now asks \"Proceed? [y/N]\" first.",
            "Let me know if you have any questions.",
            "If you want to look at the run, it's build #812: green.",
        ] {
            assert!(kinds(t).is_empty(), "{t}: {:?}", kinds(t));
        }
    }
}

#[cfg(test)]
mod properties {
    use crate::{EgressGate, Status};
    use proptest::prelude::*;

    /// Sentences that are hand-backs or asks on their own.
    const REQUESTS: &[&str] = &[
        "Please run `cargo publish` yourself.",
        "You'll want to run `make release` next.",
        "Okay to proceed?",
        "The next step on your side is `npm publish`.",
        "Could you merge the PR?",
        "Awaiting your approval.",
    ];
    /// Report sentences with no request and no blocker or receipt word.
    const REPORTS: &[&str] = &[
        "I rewrote the parser.",
        "The cache is bounded now.",
        "Merged #12 into main.",
        "On your end nothing changes.",
        "If you run into trouble, the log is in `target/log`.",
        "Previously you'd run `make gen` by hand.",
    ];

    proptest! {
        /// The gate is a pure function of the text: no panic on any input, same answer twice.
        #[test]
        fn any_text_is_judged_the_same_twice(text in "[ -~\n`>#*|?!.—’é]{0,300}") {
            let gate = EgressGate::baseline();
            prop_assert_eq!(gate.evaluate(&text), gate.evaluate(&text));
        }

        /// A request inside a fenced block or a block quote is not the agent's: green.
        #[test]
        fn quoted_or_fenced_requests_are_not_the_agents(i in 0..REQUESTS.len(), fenced in any::<bool>()) {
            let r = REQUESTS[i];
            let text = if fenced { format!("Log:\n\n```\n{r}\n```") } else { format!("> {r}\n\nDone.") };
            prop_assert_eq!(EgressGate::baseline().evaluate(&text).status, Status::Green, "{}", text);
        }

        /// Reports around a request never hide it; reports alone never block.
        #[test]
        fn reports_never_hide_a_request(
            before in proptest::collection::vec(0..REPORTS.len(), 0..4),
            after in proptest::collection::vec(0..REPORTS.len(), 0..4),
            i in 0..REQUESTS.len(),
        ) {
            let gate = EgressGate::baseline();
            let join = |v: &[usize]| v.iter().map(|&k| REPORTS[k]).collect::<Vec<_>>().join(" ");
            let reports = format!("{} {}", join(&before), join(&after));
            prop_assert_eq!(gate.evaluate(&reports).status, Status::Green, "{}", reports);
            let text = format!("{} {} {}", join(&before), REQUESTS[i], join(&after));
            prop_assert_eq!(gate.evaluate(&text).status, Status::Red, "{}", text);
        }
    }
}
