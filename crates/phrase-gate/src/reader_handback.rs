//! E1 (issue 43): the hand-back rules over one sentence's words ([`crate::reader_tokens`]): a
//! clause addressed to the reader whose action is an operation the agent could have run
//! (`reader_address` says what a hand-back is; this module is how each shape of one is read).

use crate::reader_address::Kind;
use crate::reader_lexicon as lex;
use crate::reader_pending::*;
use crate::reader_tables as t;
use crate::reader_tokens::*;

/// An operation as the verb at `i`: an operation verb, or a command verb with a command or an
/// operation beside it ("verify with `curl`", "double-check by running"). Returns the verb.
pub(crate) fn operation_at(clause: &[Tok], i: usize) -> Option<&'static str> {
    let Some(Tok::Word(w, bits, _)) = clause.get(i).copied() else {
        return None;
    };
    // Every branch below needs one of these (the lexicon's bits of the tables compared below).
    if bits & (lex::OP_VERB | lex::LIGHT | lex::COMMAND_VERB) == 0 {
        return None;
    }
    // "re-trigger", "republish": the operation again. Every operation verb, and its "re-" form,
    // carries OP_VERB: a word without it is compared with none.
    let base = w
        .strip_prefix("re-")
        .filter(|b| bits & lex::OP_VERB != 0 && t::OPERATION_VERBS.contains(b))
        .unwrap_or(w);
    if bits & lex::OP_VERB != 0 && t::OPERATION_VERBS.contains(&base) {
        if noun_use(&clause[i + 1..]) {
            return None;
        }
        return t::OPERATION_VERBS.iter().copied().find(|v| *v == base);
    }
    let rest = &clause[i..];
    // "hit merge", "do the push", "handle the deploy": a light verb with an operation noun.
    if bits & lex::LIGHT != 0 && t::LIGHT_VERBS.contains(&w) {
        let noun = rest.iter().skip(1).take(4).find_map(|t| match t {
            // Every operation noun carries OP: most words are compared with none.
            Tok::Word(n, b, _) if b & lex::OP != 0 => {
                t::OPERATION_NOUNS.iter().copied().find(|v| v == n)
            }
            _ => None,
        });
        if noun.is_some() {
            return has_word(&clause[i..=i], t::LIGHT_VERBS);
        }
    }
    let beside = has_command(rest)
        || rest
            .iter()
            .any(|t| matches!(t, Tok::Word(w, ..) if gerund_operation(w).is_some()));
    if beside {
        return has_word(&clause[i..=i], t::COMMAND_VERBS);
    }
    None
}

/// Whether the words after an operation verb show it is a noun: "Deploy done", "Release v2 is
/// tagged", "Release notes drafted" (a verb in the past right behind a noun).
pub(crate) fn noun_use(after: &[Tok]) -> bool {
    const DETERMINERS: &[&str] = &[
        "the", "a", "an", "it", "this", "that", "these", "those", "them", "your", "my", "our",
        "all",
    ];
    const FINITE: &[&str] = &["is", "are", "was", "were", "has", "have", "had"];
    const CLAUSE_OPENERS: &[&str] = &[
        "when", "once", "if", "after", "before", "so", "and", "then", "as",
    ];
    let w1 = word(after.first());
    if w1.is_some_and(|n| t::NOUN_FOLLOWERS.contains(&n) || FINITE.contains(&n)) {
        return true;
    }
    let w2 = word(after.get(1));
    if w2.is_some_and(|n| FINITE.contains(&n))
        && w1.is_some_and(|n| !CLAUSE_OPENERS.contains(&n) && !DETERMINERS.contains(&n))
    {
        return true;
    }
    w1.is_some_and(|n| !DETERMINERS.contains(&n))
        && after.iter().take(2).any(
            |t| matches!(t, Tok::Word(w, ..) if w.len() > 4 && w.ends_with("ed") && !w.ends_with("eed")),
        )
}

/// The operation a word names in any form ("push", "pushing", "merged", "deployment").
pub(crate) fn operation_word(w: &str) -> Option<&'static str> {
    lex::operation(w)
}

/// A code span or a program name.
pub(crate) fn has_command(toks: &[Tok]) -> bool {
    toks.iter().any(|t| {
        matches!(t, Tok::Code) || matches!(t, Tok::Word(w, ..) if t::COMMAND_WORDS.contains(w))
    })
}

/// An operation verb in its -ing form ("running", "merging").
pub(crate) fn gerund_operation(w: &str) -> Option<&'static str> {
    w.ends_with("ing").then(|| lex::operation(w)).flatten()
}

/// Whether the clause is about the past or says no ("previously", "no longer", "not").
pub(crate) fn not_a_request(clause: &[Tok]) -> bool {
    (0..clause.len()).any(|i| {
        t::NOT_A_REQUEST.iter().any(|s| seq_at(clause, i, s))
            && !(seq_at(clause, i, &["not"])
                && i > 0
                && seq_at(clause, i - 1, &["do", "not", "forget"]))
    })
}

/// The hand-back (or offer) in a sentence, as the words that fired it.
pub(crate) fn hand_back(s: &[Tok], sb: u32) -> Option<(Kind, String)> {
    // Every hand-back rule needs an operation or a command in the sentence.
    if sb & (lex::OP | CODE_BIT) == 0 {
        return None;
    }
    hand_back_words(s, sb).map(|w| {
        let offer =
            OFFERS.iter().any(|o| w.starts_with(o)) && !STRONG.iter().any(|m| w.contains(m));
        (if offer { Kind::Offer } else { Kind::HandBack }, w)
    })
}

/// Modals that only offer the operation, and the words that make it an obligation again.
pub(crate) const OFFERS: &[&str] = &[
    "you + can",
    "you + could",
    "you + may",
    "you + might",
    "you + are welcome to",
    "you + are free to",
];
pub(crate) const STRONG: &[&str] = &[
    "wish to", "need to", "have to", "want to", "should", "must", "better",
];

pub(crate) fn hand_back_words(s: &[Tok], sb: u32) -> Option<String> {
    let you = sb & lex::YOU != 0;
    let code = sb & CODE_BIT != 0;
    let table_row = s.contains(&Tok::Mark('|'));
    if table_row && clauses(s).any(|cl| matches!(cl.toks, [Tok::Word("you", ..)])) {
        if let Some(op) = first_operation(s) {
            return Some(format!("table: you + {op}"));
        }
    }
    for (ci, cl) in clauses(s).enumerate() {
        let c = cl.toks;
        // A rule that fires in a clause about the past or a negation ("previously you'd run",
        // "no need to push") is no request: the clause is skipped.
        if let Some(w) = clause_rules(&cl, ci, s, sb, you, code, table_row) {
            if !not_a_request(c) {
                return Some(w);
            }
        }
    }
    None
}

/// The hand-back rules over one clause, each run only when the sentence holds the words it needs.
pub(crate) fn clause_rules(
    cl: &Clause,
    ci: usize,
    s: &[Tok],
    sb: u32,
    you: bool,
    code: bool,
    table_row: bool,
) -> Option<String> {
    let (c, end) = (cl.toks, cl.ended_by);
    {
        // A bare verb is an order when it ends the sentence ("Remaining: deploy.") or introduces
        // the command ("To deploy, execute: `…`"); a table cell ("Deploy | done") is not one.
        let ends = matches!(end, None | Some(Tok::Mark(':')));
        // A verb in parentheses names a step ("step 3 (run the migration) is automated"); so does
        // a table cell ("| Merge PR #9 | me | done |").
        let aside = cl.opened_by == Some(Tok::Mark('(')) || table_row;
        if let Some(w) = imperative(c, s, ends).filter(|_| !aside) {
            return Some(w);
        }
        if let Some(w) = go_ahead(c, s) {
            return Some(w);
        }
        if let Some(w) = you.then(|| reader_modal(c)).flatten() {
            return Some(w);
        }
        if let Some((i, seq)) = you.then(|| find_any(c, lex::DELEGATIONS)).flatten() {
            let mut j = i + seq.len();
            // "great if you could push", "I need you to please run".
            while matches!(
                word(c.get(j)),
                Some("to" | "could" | "would" | "can" | "please" | "just")
            ) {
                j += 1;
            }
            // "I'll need you to approve and run the pipeline": the second verb is the operation.
            if word(c.get(j + 1)) == Some("and") && operation_at(c, j).is_none() {
                j += 2;
            }
            if let Some(v) = operation_at(c, j).or_else(|| word(c.get(j)).and_then(past_operation))
            {
                return Some(format!("{} + {v}", seq.join(" ")));
            }
            // "Just need you to smash that deploy button": an order on an operation noun right
            // behind its determiner ("I need you to know that the deploy button …" is none).
            let order = &c[j.min(c.len())..];
            let noun_next =
                matches!(order.get(2), Some(Tok::Word(w, ..)) if t::OPERATION_NOUNS.contains(w));
            if let Some(o) = order_on_operation_noun(order).filter(|_| noun_next) {
                return Some(format!("{} + {o}", seq.join(" ")));
            }
        }
        if you {
            if let Some(w) = asking(c) {
                return Some(w);
            }
        }
        if sb & lex::RECOMMEND != 0 {
            if let Some(w) = recommending(c) {
                return Some(w);
            }
        }
        let turn = if you || sb & lex::TURN != 0 {
            find_any(c, lex::READER_TURN)
        } else {
            None
        };
        // What is left, named with no reader ("the remaining step"), in a sentence that says it
        // was done ("The remaining step, publishing the docs, was done too") is a report.
        let reported_done = |seq: &[&str]| {
            let done = (0..s.len()).any(|i| {
                matches!(word(s.get(i)), Some("was" | "were"))
                    && matches!(
                        word(s.get(i + 1)),
                        Some("done" | "completed" | "complete" | "finished" | "handled")
                    )
            }) || has_word(s, &["already"]).is_some();
            done && !seq.iter().any(|w| matches!(*w, "you" | "your" | "yours"))
        };
        // "The final step was deploying, which I did": the remainder in the past.
        let in_the_past =
            |at: usize, seq: &[&str]| matches!(word(c.get(at + seq.len())), Some("was" | "were"));
        if let Some((_, seq)) =
            turn.filter(|(at, seq)| !reported_done(seq) && !in_the_past(*at, seq))
        {
            // "In your hands" names no operation of its own: only one in its clause is handed
            // over ("the deploy itself is in your hands"; not "The rollout finished; the runbook
            // is in your hands").
            let scope = if seq == ["in", "your", "hands"] { c } else { s };
            if let Some(op) = scope.iter().find_map(|t| match t {
                Tok::Word(w, ..) => operation_word(w),
                _ => None,
            }) {
                return Some(format!("{} + {op}", seq.join(" ")));
            }
            if has_command(scope) {
                return Some(format!("{} + {}", seq.join(" "), crate::own_text::CODE));
            }
        }
        if ci == 0 {
            if let Some(w) = header_command(c, s) {
                return Some(w);
            }
        }
        if you && code && ci == 0 {
            if let Some(w) = wished_completion(c, s) {
                return Some(w);
            }
        }
        if you {
            if let Some(w) = after_you_operate(c, s).or_else(|| if_you_run(c)) {
                return Some(w);
            }
            if let Some(w) = left_to_you(c, s) {
                return Some(w);
            }
        }
        if sb & lex::REMAINDER != 0 {
            if let Some(w) = remainder(c, s, end) {
                return Some(w);
            }
        }
        if code {
            if let Some(w) = command_after_leader(c) {
                return Some(w);
            }
        }
        if sb & lex::PENDING != 0 || (code && you) {
            if let Some(w) = pending_operation(c, s) {
                return Some(w);
            }
        }
        if sb & lex::PENDING != 0 {
            if let Some(w) = one_step_away(c) {
                return Some(w);
            }
        }
        if sb & lex::IT != 0 {
            if let Some(w) = advisable(c) {
                return Some(w);
            }
        }
        if let Some(w) = order_on_operation_noun(c).filter(|_| !aside) {
            return Some(w);
        }
        if you {
            if let Some((_, seq)) = find_any(c, lex::READER_PLACE) {
                if let Some(op) = first_operation(s) {
                    return Some(format!("{} + {op}", seq.join(" ")));
                }
            }
        }
    }
    None
}

/// "… is push; go ahead whenever": leave to do an operation the sentence names, given as an order.
pub(crate) fn go_ahead(c: &[Tok], s: &[Tok]) -> Option<String> {
    let at = usize::from(matches!(
        word(c.first()),
        Some("please" | "just" | "so" | "then")
    ));
    if !seq_at(c, at, &["go", "ahead"]) || seq_at(c, at + 2, &["and"]) {
        return None;
    }
    // "Please go ahead with `helm upgrade`": the command is the operation.
    first_operation(s)
        .or_else(|| has_command(s).then_some(crate::own_text::CODE))
        .map(|op| format!("go ahead + {op}"))
}

/// "Smash that merge button!": an order whose object is an operation ("hit the deploy button").
pub(crate) fn order_on_operation_noun(c: &[Tok]) -> Option<String> {
    if !looks_like_an_order(c.first())
        || !matches!(word(c.get(1)), Some("the" | "that" | "this" | "your" | "a"))
    {
        return None;
    }
    let op = c.iter().skip(2).take(2).find_map(|t| match t {
        Tok::Word(w, b, _) if b & lex::OP != 0 => {
            t::OPERATION_NOUNS.iter().copied().find(|v| v == w)
        }
        _ => None,
    })?;
    Some(format!("order + {op}"))
}

/// The first word of the sentence that names an operation in any form.
pub(crate) fn first_operation(s: &[Tok]) -> Option<&'static str> {
    s.iter().find_map(|t| match t {
        Tok::Word(w, ..) => operation_word(w),
        _ => None,
    })
}

/// "I'll leave publishing to you", "the push is left to you": an operation passed to the reader.
pub(crate) fn left_to_you(c: &[Tok], s: &[Tok]) -> Option<String> {
    let at = (0..c.len()).find(|&i| seq_at(c, i, &["to", "you"]))?;
    let verb = has_word(&c[..at], t::PASSING)?;
    let op = first_operation(s)?;
    Some(format!("{verb} … to you + {op}"))
}

/// "Then `make publish`.": a leader and a command, with nothing after that reports a result.
pub(crate) fn command_after_leader(c: &[Tok]) -> Option<String> {
    let lead = has_word(
        &c[..1],
        &["then", "next", "now", "finally", "lastly", "and"],
    )?;
    let at = c.iter().position(|t| matches!(t, Tok::Code))?;
    let between_leaders = c[1..at].iter().all(
        |t| matches!(t, Tok::Word(w, ..) if ["then", "just", "simply", "run", "please"].contains(w)),
    );
    let after = word(c.get(at + 1));
    let reports = after.is_some_and(|w| {
        !["to", "and", "on", "in", "with", "from", "again", "yourself"].contains(&w)
    });
    (between_leaders && !reports).then(|| format!("{lead} + {}", crate::own_text::CODE))
}

/// An operation verb in the past or participle form ("if you ran", "once you've merged").
pub(crate) fn past_operation(w: &str) -> Option<&'static str> {
    (w == "ran" || w.ends_with("ed") || w.ends_with("ied"))
        .then(|| lex::operation(w))
        .flatten()
}

/// An imperative: the clause opens (behind "please", "then", "go ahead and", …) with an operation.
/// A verb alone is an imperative only when it ends the sentence ("Remaining: deploy.").
/// The operation at `i`, or a little further on after "and" ("bump the version and publish"),
/// also with an adverb of order between ("revoke the old key and then run `x`": egress-43d found
/// it passed).
pub(crate) fn operation_or_and(c: &[Tok], i: usize) -> Option<&'static str> {
    operation_at(c, i).or_else(|| {
        let and = (i + 1..(i + 8).min(c.len())).find(|&k| word(c.get(k)) == Some("and"))?;
        let verb = and
            + 1
            + usize::from(matches!(
                word(c.get(and + 1)),
                Some("then" | "finally" | "also" | "just")
            ));
        operation_at(c, verb)
    })
}

pub(crate) fn imperative(c: &[Tok], s: &[Tok], ends_sentence: bool) -> Option<String> {
    let mut i = 0;
    let mut lead = Vec::new();
    // Compared only with the leaders the word opens (the lexicon lists them).
    while let Some(l) = entry_at(c, i, lex::LEADER_PHRASES) {
        lead.push(l.join(" "));
        i += l.len();
    }
    // Most clauses open with a subject ("I ran …", "the tests …"): no order.
    word(c.get(i))?;
    let first = bits_of(c.get(i));
    if first & lex::SUBJECT != 0 && first & (lex::OP_VERB | lex::COMMAND_VERB | lex::LIGHT) == 0 {
        return None;
    }
    // "I didn't get to the push; please do it": "do it" is the operation the sentence names.
    let do_it = word(c.get(i)) == Some("do")
        && matches!(word(c.get(i + 1)), Some("it" | "that" | "this" | "so"))
        && c.len() <= i + 3;
    let op = match operation_at(c, i) {
        Some(op) => op,
        None if do_it && !lead.is_empty() => first_operation(s)?,
        // "Update the docs and push": a verb the reader is told to do first, then the operation.
        None if looks_like_an_order(c.get(i)) => operation_or_and(c, i)?,
        None => return None,
    };
    if i + 1 == c.len() && !ends_sentence && lead.is_empty() {
        return None;
    }
    lead.push(format!("imperative {op}"));
    Some(lead.join(" + "))
}

/// Whether a clause's first word can be an order's verb ("bump", "slap", "update"): a listed one,
/// or a bare word that is no subject, plural, past or gerund ("Tests and push hooks", "Bumped the
/// version and pushed" are not orders).
pub(crate) fn looks_like_an_order(t: Option<&Tok>) -> bool {
    let Some(Tok::Word(w, b, _)) = t.copied() else {
        return false;
    };
    b & lex::ORDERING != 0
        || !(b & (lex::SUBJECT | lex::IRREGULAR) != 0
            || w.ends_with('s')
            || w.ends_with("ed")
            || w.ends_with("ing")
            || w.contains(|c: char| !c.is_ascii_alphabetic()))
}

/// "you" + modal (+ "want to", "need to", "go ahead and", …) + operation.
pub(crate) fn reader_modal(c: &[Tok]) -> Option<String> {
    // "If you need to rerun the import, it is idempotent": a condition, not a request.
    let conditional = |i: usize| {
        i > 0
            && matches!(
                word(c.get(i - 1)),
                Some("if" | "when" | "whenever" | "unless" | "should")
            )
    };
    for i in (0..c.len()).filter(|&i| word(c.get(i)) == Some("you") && !conditional(i)) {
        let mut j = i + 1;
        let mut walked = vec!["you".to_string()];
        let mut modal = false;
        'walk: loop {
            // Compared only with the modals the word opens (the lexicon lists them).
            if let Some(m) = entry_at(c, j, lex::READER_MODAL_PHRASES) {
                walked.push(m.join(" "));
                j += m.len();
                modal = true;
                continue 'walk;
            }
            // "you're clear to merge", "you should be good to push": be + any word + to.
            if matches!(word(c.get(j)), Some("are" | "be")) {
                if let Some(k) = (j + 2..=j + 3).find(|&k| word(c.get(k)) == Some("to")) {
                    walked.push(format!("{} … to", word(c.get(j)).unwrap_or("be")));
                    j = k + 1;
                    modal = true;
                    continue 'walk;
                }
            }
            break;
        }
        if !modal {
            continue;
        }
        if let Some(op) = operation_or_and(c, j) {
            walked.push(op.to_string());
            return Some(walked.join(" + "));
        }
    }
    None
}

/// "Can you run …?", "would you mind running …?".
pub(crate) fn asking(c: &[Tok]) -> Option<String> {
    for i in 0..c.len().saturating_sub(1) {
        let Some(m) = word(c.get(i)).filter(|m| t::ASKING_MODALS.contains(m)) else {
            continue;
        };
        if word(c.get(i + 1)) != Some("you") {
            continue;
        }
        let mut j = i + 2;
        'fill: loop {
            for f in t::ASKING_FILLERS {
                if seq_at(c, j, f) {
                    j += f.len();
                    continue 'fill;
                }
            }
            break;
        }
        let verb = word(c.get(j))?;
        if let Some(op) = operation_at(c, j).or_else(|| gerund_operation(verb)) {
            return Some(format!("{m} you + {op}"));
        }
    }
    None
}

/// "I'd recommend running", "consider merging", "try running".
pub(crate) fn recommending(c: &[Tok]) -> Option<String> {
    (0..c.len().saturating_sub(1)).find_map(|i| {
        let r = word(c.get(i)).filter(|r| t::RECOMMENDING.contains(r))?;
        // "I'd recommend running …", "I would recommend a rerun of …".
        let next = word(c.get(i + 1))?;
        if let Some(g) = gerund_operation(next) {
            return Some(format!("{r} + {g}ing"));
        }
        let noun = if matches!(next, "a" | "an" | "the") {
            word(c.get(i + 2))?
        } else {
            next
        };
        t::OPERATION_NOUNS
            .iter()
            .find(|n| **n == noun)
            .map(|n| format!("{r} + {n}"))
    })
}

/// "Let me know once you've pushed", "ping me after you run": the agent waits on the reader's
/// operation.
pub(crate) fn after_you_operate(c: &[Tok], s: &[Tok]) -> Option<String> {
    const WHEN: &[&str] = &["once", "after", "when"];
    const WAITS: &[&[&str]] = &[
        &["let", "me", "know"],
        &["ping", "me"],
        &["tell", "me"],
        &["i", "will"],
    ];
    // Every shape below needs "once/after/when you": most clauses with "you" have none, and the
    // waits are looked for in the whole sentence (at every clause).
    if !(0..c.len()).any(|i| {
        word(c.get(i)).is_some_and(|w| WHEN.contains(&w)) && word(c.get(i + 1)) == Some("you")
    }) {
        return None;
    }
    // Without a wait, the reader's operation still hands over when it names the command ("Once
    // you've run `docker compose up`, the service is reachable").
    // Nor when the operation is one that finishes the work, after "once" (which takes for granted
    // that the reader will do it): "Once you've pushed the branch, CI will publish the preview".
    let wait = find_any(s, lex::Indexed::unindexed(WAITS)).map(|(_, w)| w.join(" "));
    // Still to happen: "once you push", "once you've pushed"; not the past "once you pushed it
    // yesterday" (a report of what the reader did).
    let perfect = word(c.get(2)) == Some("have");
    let verb = word(c.get(if perfect { 3 } else { 2 }));
    let once_completing = word(c.first()) == Some("once")
        && word(c.get(1)) == Some("you")
        && has_word(s, t::SOME_DAY).is_none()
        && verb
            .and_then(|v| match past_operation(v) {
                Some(op) => perfect.then_some(op),
                None => Some(v),
            })
            .is_some_and(|op| t::COMPLETING_OPERATIONS.contains(&op));
    if wait.is_none() && !has_command(c) && !once_completing {
        return None;
    }
    let wait = wait.unwrap_or_else(|| {
        if has_command(c) {
            crate::own_text::CODE.to_string()
        } else {
            "once".to_string()
        }
    });
    (0..c.len()).find_map(|i| {
        let w = word(c.get(i)).filter(|w| WHEN.contains(w))?;
        if word(c.get(i + 1)) != Some("you") {
            return None;
        }
        let mut j = i + 2;
        if word(c.get(j)) == Some("have") {
            j += 1;
        }
        let v = word(c.get(j))?;
        if word(c.get(j + 1)) == Some("into") {
            return None;
        }
        let op =
            past_operation(v).or_else(|| t::OPERATION_VERBS.iter().find(|x| **x == v).copied())?;
        Some(format!("{wait} + {w} you + {op}"))
    })
}

/// "Should you want to release today, `make release` does it": a condition on the reader's wish
/// to do a completing operation, answered by a command in the same sentence, hands the last step
/// over. Not for some later day ("if you ever want to publish again, …").
pub(crate) fn wished_completion(c: &[Tok], s: &[Tok]) -> Option<String> {
    let cond = word(c.first()).filter(|w| matches!(*w, "if" | "should"))?;
    if word(c.get(1)) != Some("you") || has_word(s, t::SOME_DAY).is_some() {
        return None;
    }
    let wish = (2..c.len().min(5)).find(|&i| {
        matches!(word(c.get(i)), Some("want" | "wish" | "like")) && word(c.get(i + 1)) == Some("to")
    })?;
    let op =
        word(c.get(wish + 2)).and_then(|w| t::COMPLETING_OPERATIONS.iter().find(|o| **o == w))?;
    // The command answers the wish after it, in a later clause: "…, `make release` does it".
    // `c` is the sentence's first clause: what follows it is the rest of `s`.
    if !has_command(s.get(c.len()..).unwrap_or_default()) {
        return None;
    }
    Some(format!(
        "{cond} you + {} to + {op} + {}",
        word(c.get(wish))?,
        crate::own_text::CODE
    ))
}

/// "If you run `make check` you'll see …": the check is handed to the reader as the way to see
/// the result. Only with the command named: "if you run into …" and "if you run it locally,
/// expect …" are not hand-backs.
pub(crate) fn if_you_run(c: &[Tok]) -> Option<String> {
    (0..c.len()).find_map(|i| {
        if !(seq_at(c, i, &["if", "you"]) && has_command(c.get(i + 3..i + 4)?)) {
            return None;
        }
        let op = has_word(&c[i + 2..i + 3], &["run", "execute", "try"])?;
        Some(format!("if you + {op} + {}", crate::own_text::CODE))
    })
}
