//! E1 (issue 43): the hand-backs that name no doer — a header over a command ("Pending: `git
//! push`"), an operation still to happen ("it's a matter of running `make`"), one step short ("a
//! `git push` away from done"), what is left ("the final piece is pushing the branch"), what is
//! advisable ("it'd be good to run the linters"). Split from `reader_handback`, whose rules read a
//! clause addressed to the reader; these read the work left with no one named to do it.

use crate::reader_handback::*;
use crate::reader_lexicon as lex;
use crate::reader_tables as t;
use crate::reader_tokens::*;

/// "Pending: `git push`", "To publish: `cargo publish`", "Next steps" over a code block, "How to
/// ship it" over a code block: a header (the sentence's first clause) naming the operation, then
/// its command.
pub(crate) fn header_command(c: &[Tok], s: &[Tok]) -> Option<String> {
    let how_to = (seq_at(c, 0, &["how", "to"]) && operation_at(c, 2).is_some()).then_some("how to");
    // "To <purpose>:" hands over only an operation or a check ("To deploy:", "To verify:");
    // "To reproduce: `…`" is how the reader can see it, as "How to reproduce" over a code block
    // is (egress-43d found the inline form blocked).
    let purpose = |h: &str| {
        h != "to"
            || word(c.get(1))
                .is_some_and(|w| t::COMMAND_VERBS.contains(&w) || operation_word(w).is_some())
    };
    let h = has_word(&c[..1.min(c.len())], t::COMMAND_HEADERS)
        .filter(|h| purpose(h))
        .or(how_to)?;
    let words = c.iter().take_while(|t| matches!(t, Tok::Word(..))).count();
    let after = match c.get(words) {
        Some(t) => Some(t),
        None => s.get(words + 1),
    };
    if words <= 4 && matches!(after, Some(Tok::Code)) {
        return Some(format!("{h} … {}", crate::own_text::CODE));
    }
    if words <= 4 && words == c.len() {
        if let Some(op) = named_then_command(s.get(words + 1..).unwrap_or(&[]), s) {
            return Some(format!("{h} … {op} {}", crate::own_text::CODE));
        }
    }
    None
}

/// An operation named as still to happen, with no one doing it: "it's a matter of running
/// `make`", "the release requires running `x`", "the branch is ready to be pushed", "the command
/// to run is `x`", "`cargo publish` and you're done". Not when the agent says it did it ("…,
/// which I did").
pub(crate) fn pending_operation(c: &[Tok], s: &[Tok]) -> Option<String> {
    if has_bit(s, lex::AGENT) {
        return None;
    }
    let phrases = if cannot_hold(c, lex::PENDING_PHRASES) {
        0
    } else {
        c.len()
    };
    for i in 0..phrases {
        if let Some(seq) = entry_at(c, i, lex::PENDING_PHRASES) {
            let after = i + seq.len();
            let op = (after..(after + 3).min(c.len())).find_map(|k| {
                word(c.get(k)).and_then(|w| {
                    gerund_operation(w)
                        .or_else(|| past_operation(w))
                        .or_else(|| operation_word(w))
                })
            });
            if let Some(op) = op {
                return Some(format!("{} + {op}", seq.join(" ")));
            }
            if seq.last() == Some(&"is") && has_command(&c[i..]) {
                return Some(format!("{} + {}", seq.join(" "), crate::own_text::CODE));
            }
        }
    }
    if matches!(s.first(), Some(Tok::Code))
        && seq_at(s, 1, &["and"])
        && has_word(s, &["you"]).is_some()
    {
        return Some(format!("{} + and you", crate::own_text::CODE));
    }
    None
}

/// What a header hands over when it names the operation before its command ("remaining: db
/// migration (`alembic upgrade head`)", egress-43d found it passed): an operation noun within the
/// first words after the header, then the command. Not when the sentence reports it done
/// ("Remaining: the migration (`0042`) was run").
fn named_then_command(after: &[Tok], s: &[Tok]) -> Option<&'static str> {
    let named = after
        .iter()
        .take(3)
        .take_while(|t| matches!(t, Tok::Word(..)));
    let op = named.clone().find_map(|t| match t {
        Tok::Word(w, ..) => t::OPERATION_NOUNS.iter().copied().find(|n| n == w),
        _ => None,
    })?;
    let next = after
        .iter()
        .skip(named.count())
        .find(|t| !matches!(t, Tok::Mark('(')));
    let done = s.iter().any(|t| match t {
        Tok::Word(w, ..) => t::DONE.contains(w) || past_operation(w).is_some(),
        _ => false,
    });
    (next == Some(&Tok::Code) && !done).then_some(op)
}

/// "We're just a `git push` away from done", "one merge away from shipping": the work stops one
/// operation short (egress-43d found it passed). Not in the past ("we were one push away from a
/// broken main; I reverted"); what it is away from ("… from done") says nothing of that.
pub(crate) fn one_step_away(c: &[Tok]) -> Option<String> {
    let at = (1..c.len()).find(|&i| word(c.get(i)) == Some("away"))?;
    let op = match c.get(at - 1)? {
        Tok::Code => crate::own_text::CODE,
        Tok::Word(w, ..) => t::OPERATION_NOUNS.iter().copied().find(|n| n == w)?,
        _ => return None,
    };
    let past = c[..at]
        .iter()
        .any(|t| matches!(t, Tok::Word(w, ..) if t::DONE.contains(w)));
    (!past).then(|| format!("{op} + away"))
}

/// "It'd be good to run the linters", "it is best to deploy tonight": the operation recommended
/// with no one named to do it.
pub(crate) fn advisable(c: &[Tok]) -> Option<String> {
    let at = (0..c.len()).find(|&i| {
        word(c.get(i)) == Some("it")
            && matches!(
                word(c.get(i + 1)),
                Some("would" | "is" | "might" | "may" | "could")
            )
    })?;
    (at + 2..(at + 6).min(c.len())).find_map(|k| {
        let adj = has_word(&c[k..=k], t::ADVISABLE)?;
        let to = (k + 1..(k + 4).min(c.len())).find(|&j| word(c.get(j)) == Some("to"))?;
        let op = operation_or_and(c, to + 1)?;
        Some(format!("it … {adj} to + {op}"))
    })
}

/// "The final piece is pushing the branch", "the only remaining action is a deploy": what is left
/// is named as a noun, and it is an operation (or a command). Not when the sentence says it is
/// done ("the last step was done too").
pub(crate) fn remainder(c: &[Tok], s: &[Tok], end: Option<Tok>) -> Option<String> {
    let i = (0..c.len()).find(|&i| {
        has_word(&c[i..=i], t::REMAINDER_ADJECTIVES).is_some()
            && (1..=2).any(|k| {
                has_word(c.get(i + k..=i + k).unwrap_or(&[]), t::REMAINDER_NOUNS).is_some()
            })
    })?;
    let n = (1..=2)
        .find(|k| has_word(c.get(i + k..=i + k).unwrap_or(&[]), t::REMAINDER_NOUNS).is_some())?;
    let next = c.get(i + n + 1);
    let introduces = match next {
        // "Publishing is the last step." but not "… rolls out in one step".
        None => {
            end == Some(Tok::Mark(':'))
                || (end.is_none() && i > 0 && word(c.get(i - 1)) == Some("the"))
        }
        // "… is …", and "the only thing pending is merging the PR".
        Some(t) => matches!(
            t,
            Tok::Word("is" | "are" | "for" | "left" | "pending" | "remaining", ..)
        ),
    };
    if !introduces || has_word(s, t::DONE).is_some() {
        return None;
    }
    let what = format!("{} {}", word(c.get(i))?, word(c.get(i + n))?);
    // What is left is still to do: an operation in the past ("I pushed and deployed") is a report
    // beside it, not the remainder.
    let pending_op = s.iter().find_map(|t| match t {
        Tok::Word(w, ..) if past_operation(w).is_none() => operation_word(w),
        _ => None,
    });
    if let Some(op) = pending_op {
        return Some(format!("{what} + {op}"));
    }
    has_command(s).then(|| format!("{what} + {}", crate::own_text::CODE))
}
