//! E1 (issue 43): the permission-ask rules over one sentence's words ([`crate::reader_tokens`]):
//! a question for leave to go on, or a sentence waiting on the reader's leave.

use crate::reader_handback::*;
use crate::reader_lexicon as lex;
use crate::reader_tables as t;
use crate::reader_tokens::*;

/// The permission ask in a sentence, as the words that fired it.
pub(crate) fn permission_ask(s: &[Tok], answered: bool, sb: u32) -> Option<String> {
    let question = sb & QUESTION_BIT != 0;
    if !question && sb & lex::APPROVAL == 0 {
        return None;
    }
    // An operation is the leave asked for too ("Merge?", "Happy to push if you give the word").
    let leave = find_any(s, lex::LEAVE)
        .map(|(_, l)| l.join(" "))
        .or_else(|| operation_verb_in_use(s).map(str::to_string))
        // "Should I open the PR?": in a question, an operation named by its noun too.
        .or_else(|| {
            question
                .then(|| first_operation(s).map(str::to_string))
                .flatten()
        });
    let agent = if has_bit(s, lex::AGENT) {
        has_word(s, t::AGENT)
    } else {
        None
    };
    if question && !answered {
        let q: Vec<&[Tok]> = s.split(|t| matches!(t, Tok::Question)).collect();
        // The clause the question mark ends.
        let last_q = q
            .iter()
            .rev()
            .skip(1)
            .find(|c| !c.is_empty())
            .copied()
            .unwrap_or(s);
        let asked = last_q
            .rsplit(|t| matches!(t, Tok::Mark(_)))
            .find(|c| !c.is_empty())
            .unwrap_or(last_q);
        if let Some(l) = &leave {
            if let Some(a) = agent {
                return Some(format!("question + {a} + {l}"));
            }
            if let Some(o) = word(asked.first()).filter(|o| t::BARE_ASK_OPENERS.contains(o)) {
                return Some(format!("question + {o} … + {l}"));
            }
            if let Some(ok) = find_any(
                s,
                lex::Indexed::unindexed(&[
                    &["ok", "to"],
                    &["okay", "to"],
                    &["alright", "to"],
                    &["fine", "to"],
                    &["right", "to"],
                    &["safe", "to"],
                    &["ok", "if"],
                    &["okay", "if"],
                    &["a", "go"],
                    &["good", "to"],
                    &["ready", "to"],
                ]),
            ) {
                return Some(format!("question + {} + {l}", ok.1.join(" ")));
            }
        }
        // "Do you want me to take this further?", "would you like me to finish the rest?": the
        // agent offers more work and waits for the answer, whatever the verb.
        if let Some((_, offer)) = find_any(
            s,
            lex::Indexed::unindexed(&[&["want", "me", "to"], &["like", "me", "to"]]),
        ) {
            return Some(format!("question + {}", offer.join(" ")));
        }
        if asked.len() == 1 {
            let bare = has_word(asked, t::BARE_ASK_OPENERS)
                .or_else(|| has_word(asked, t::OPERATION_VERBS));
            if let Some(w) = bare {
                return Some(format!("question + {w}?"));
            }
        }
        if let Some(e) = t::ELIDED_ASKS
            .iter()
            .find(|e| asked.len() >= e.len() && seq_at(asked, asked.len() - e.len(), e))
        {
            return Some(format!("question + {}?", e.join(" ")));
        }
    }
    let (_, approval) = find_any(s, lex::APPROVAL_PHRASES)?;
    let approval = approval.join(" ");
    let waiting = find_any(s, lex::WAITING).map(|(_, w)| w.join(" "));
    let reader = has_word(s, &["you", "your"]).is_some() || agent.is_some();
    let core = approval.split(' ').any(|w| t::APPROVAL_CORE.contains(&w));
    let asks_leave = !matches!(
        approval.as_str(),
        "let me know" | "lmk" | "tell me" | "say" | "reply"
    );
    match (&leave, &waiting) {
        (Some(l), _) if reader || leave_after_to(s) => Some(format!("{approval} + {l}")),
        (_, Some(w)) if asks_leave && core => Some(format!("{w} + {approval}")),
        _ => None,
    }
}

/// The first operation verb of `s` used as a verb: not behind an article or a possessive, nor
/// before a number or a noun's follower ("if you want to see the run" names a run, "it's build
/// #812" a build: neither asks leave to run or build).
pub(crate) fn operation_verb_in_use(s: &[Tok]) -> Option<&'static str> {
    const NOUN_MARKERS: &[&str] = &[
        "the", "a", "an", "this", "that", "each", "every", "its", "your", "my", "our", "their",
    ];
    (0..s.len()).find_map(|i| {
        // Every operation verb carries OP_VERB: a word without it is compared with none (the
        // table walk at every word of every question cost 0.56 M instructions on a 64 KiB report).
        if bits_of(s.get(i)) & lex::OP_VERB == 0 {
            return None;
        }
        let verb = has_word(&s[i..=i], t::OPERATION_VERBS)?;
        let behind = i.checked_sub(1).and_then(|k| word(s.get(k)));
        let numbered = word(s.get(i + 1))
            .and_then(|n| n.bytes().next())
            .is_some_and(|b| b == b'#' || b.is_ascii_digit());
        let noun =
            behind.is_some_and(|b| NOUN_MARKERS.contains(&b)) || numbered || noun_use(&s[i + 1..]);
        (!noun).then_some(verb)
    })
}

/// "… to proceed", "… to continue": the leave is what the approval is for.
pub(crate) fn leave_after_to(s: &[Tok]) -> bool {
    (0..s.len())
        .any(|i| word(s.get(i)) == Some("to") && t::LEAVE.iter().any(|l| seq_at(s, i + 1, l)))
}
