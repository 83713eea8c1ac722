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
//! blocker named anywhere in the message still excuses it (see [`crate::egress`]).

use crate::reader_lexicon as lex;
use crate::reader_tables as t;

/// One word of a sentence, or a code span, or a clause mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    /// A word and its [`lex`] bits (looked up once, when the sentence is read).
    Word(&'a str, u32),
    Code,
    /// `,` `;` `:` `—` `(` `)` `|`: a clause boundary.
    Mark(char),
    /// `?` (the sentence is a question from here on).
    Question,
}

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
                    matches!(first.first(), Some(Tok::Word(w, _)) if t::ANSWERS.contains(w))
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

/// What a sentence holds, as [`lex`] bits, with two of our own: a code span and a question mark.
const CODE_BIT: u32 = 1 << 30;
const QUESTION_BIT: u32 = 1 << 31;

fn sentence_bits(s: &[Tok]) -> u32 {
    s.iter().fold(0, |acc, t| {
        acc | match t {
            Tok::Word(_, b) => *b,
            Tok::Code => CODE_BIT,
            Tok::Question => QUESTION_BIT,
            Tok::Mark(_) => 0,
        }
    })
}

/// Splits a normalised sentence into words (contractions expanded), code spans and marks, into a
/// buffer the caller reuses (cleared first), stopping once `limit` tokens are read.
fn tokens_into<'a>(out: &mut Vec<Tok<'a>>, sentence: &'a str, limit: usize) {
    // Bytes, not chars: the text is mostly ASCII and this runs over every byte of the message;
    // a non-ASCII byte only ever continues a word (a letter) or is skipped (a dash is a mark).
    out.clear();
    let bytes = sentence.as_bytes();
    let is_word = |b: u8| WORD_BYTES[usize::from(b)];
    let mut i = 0;
    while i < bytes.len() && out.len() < limit {
        let b = bytes[i];
        if b == b'`' && sentence[i..].starts_with(crate::own_text::CODE) {
            out.push(Tok::Code);
            i += crate::own_text::CODE.len();
            continue;
        }
        if b >= 0x80 {
            let c = sentence[i..].chars().next().unwrap_or(' ');
            if matches!(c, '—' | '–') {
                out.push(Tok::Mark(c));
                i += c.len_utf8();
                continue;
            }
            if !c.is_alphanumeric() {
                i += c.len_utf8();
                continue;
            }
        }
        if is_word(b) {
            let start = i;
            let mut apostrophe = false;
            loop {
                // A run of word bytes, then a joiner ("'", "-", ".", "_", "/") only when a
                // letter or digit follows it.
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                let joins = bytes
                    .get(i)
                    .is_some_and(|c| matches!(c, b'\'' | b'-' | b'.' | b'_' | b'/'))
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric);
                if !joins {
                    break;
                }
                apostrophe |= bytes[i] == b'\'';
                i += 1;
            }
            // A word ends on a char boundary: it stopped at an ASCII byte or the end.
            push_word(out, &sentence[start..i], apostrophe);
            continue;
        }
        match b {
            b',' | b';' | b':' | b'(' | b')' | b'|' => out.push(Tok::Mark(b as char)),
            b'?' => out.push(Tok::Question),
            b'-' if bytes.get(i + 1) == Some(&b' ') => out.push(Tok::Mark('-')),
            _ => {}
        }
        i += 1;
    }
}

/// Bytes that continue a word: ASCII letters and digits, `#`, and every non-ASCII byte (letters
/// of other scripts; a non-ASCII mark was handled before the word started). A `static`, not a
/// `const`: a `const` array indexed at run time can be copied onto the stack at every use.
static WORD_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'#' || c >= 0x80;
        b += 1;
    }
    t
};

/// Pushes a word, expanding the contractions the tables need ("you'll" → "you will");
/// `apostrophe` says whether the word holds one (the tokenizer saw it: no second search).
fn push_word<'a>(out: &mut Vec<Tok<'a>>, w: &'a str, apostrophe: bool) {
    const EXPANSIONS: &[(&str, &[&str])] = &[
        ("you'll", &["you", "will"]),
        ("you'd", &["you", "would"]),
        ("you're", &["you", "are"]),
        ("you've", &["you", "have"]),
        ("i'll", &["i", "will"]),
        ("i'd", &["i", "would"]),
        ("i'm", &["i", "am"]),
        ("i've", &["i", "have"]),
        ("we'll", &["we", "will"]),
        ("don't", &["do", "not"]),
        ("doesn't", &["does", "not"]),
        ("didn't", &["did", "not"]),
        ("won't", &["will", "not"]),
        ("can't", &["can", "not"]),
        ("cannot", &["can", "not"]),
        ("couldn't", &["could", "not"]),
        ("shouldn't", &["should", "not"]),
        ("wouldn't", &["would", "not"]),
        ("isn't", &["is", "not"]),
        ("aren't", &["are", "not"]),
        ("it's", &["it", "is"]),
        ("that's", &["that", "is"]),
        ("there's", &["there", "is"]),
        ("what's", &["what", "is"]),
        ("it'd", &["it", "would"]),
        ("let's", &["let", "us"]),
        ("plan's", &["plan", "is"]),
        ("ball's", &["ball", "is"]),
    ];
    if !apostrophe && w != "cannot" {
        out.push(Tok::Word(w, lex::bits(w)));
        return;
    }
    match EXPANSIONS.iter().find(|(c, _)| *c == w) {
        Some((_, words)) => out.extend(words.iter().map(|w| Tok::Word(w, lex::bits(w)))),
        None => out.push(Tok::Word(w, lex::bits(w))),
    }
}

/// The clauses of a sentence: runs of tokens between marks (a question mark ends one too), each
/// with the token that ends it (`None` at the end of the sentence).
fn clauses<'s, 'a>(s: &'s [Tok<'a>]) -> Vec<Clause<'s, 'a>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut opened_by = None;
    for (i, t) in s.iter().enumerate() {
        if matches!(t, Tok::Mark(_) | Tok::Question) {
            if i > start {
                out.push(Clause {
                    toks: &s[start..i],
                    opened_by,
                    ended_by: Some(*t),
                });
            }
            start = i + 1;
            opened_by = Some(*t);
        }
    }
    if start < s.len() {
        out.push(Clause {
            toks: &s[start..],
            opened_by,
            ended_by: None,
        });
    }
    out
}

/// A clause and the marks around it.
struct Clause<'s, 'a> {
    toks: &'s [Tok<'a>],
    opened_by: Option<Tok<'a>>,
    ended_by: Option<Tok<'a>>,
}

/// A token's [`lex`] bits, as looked up when the sentence was read (0 for no word).
fn bits_of(t: Option<&Tok>) -> u32 {
    match t {
        Some(Tok::Word(_, b)) => *b,
        _ => 0,
    }
}

fn word<'a>(t: Option<&Tok<'a>>) -> Option<&'a str> {
    match t {
        Some(Tok::Word(w, _)) => Some(w),
        _ => None,
    }
}

/// Whether `seq` occurs in `toks` at `at`.
fn seq_at(toks: &[Tok], at: usize, seq: &[&str]) -> bool {
    seq.iter()
        .enumerate()
        .all(|(k, s)| word(toks.get(at + k)) == Some(s))
}

/// The first entry of `table` found anywhere in `toks`, with its position.
/// Positions whose word opens no entry of the table (by the word's [`lex`] bits) are skipped
/// without a comparison.
fn find_any(toks: &[Tok], table: lex::Indexed) -> Option<(usize, &'static [&'static str])> {
    if cannot_hold(toks, table) {
        return None;
    }
    (0..toks.len()).find_map(|i| entry_at(toks, i, table).map(|e| (i, e)))
}

/// Whether no word of `toks` can open an entry of `table`, by one pass over their bits: most
/// clauses hold none, and a call per word cost 1.2 M instructions on a 64 KiB report.
fn cannot_hold(toks: &[Tok], table: lex::Indexed) -> bool {
    table.first.is_some_and(|first| !has_bit(toks, first))
}

/// Whether a word of `toks` carries `bit` (no string compared).
fn has_bit(toks: &[Tok], bit: u32) -> bool {
    toks.iter()
        .any(|t| matches!(t, Tok::Word(_, b) if b & bit != 0))
}

/// The entry of `table` that occurs in `toks` at `i`. A word that carries no bit of the table is
/// skipped at once, and an entry is compared whole only when its first word has the word's length
/// and first byte (no string compare per entry at every word).
fn entry_at(toks: &[Tok], i: usize, table: lex::Indexed) -> Option<&'static [&'static str]> {
    let Some(Tok::Word(w, b)) = toks.get(i).copied() else {
        return None;
    };
    if table.first.is_some_and(|f| b & f == 0) {
        return None;
    }
    let (len, lead) = (w.len(), w.as_bytes().first().copied());
    table.table.iter().copied().find(|e| {
        e.first()
            .is_some_and(|f| f.len() == len && f.as_bytes().first().copied() == lead)
            && seq_at(toks, i, e)
    })
}

/// The first word of `toks` that is in `table`, as the table spells it.
fn has_word(toks: &[Tok], table: &'static [&'static str]) -> Option<&'static str> {
    toks.iter().find_map(|t| match t {
        Tok::Word(w, _) => table.iter().find(|x| *x == w).copied(),
        _ => None,
    })
}

/// An operation as the verb at `i`: an operation verb, or a command verb with a command or an
/// operation beside it ("verify with `curl`", "double-check by running"). Returns the verb.
fn operation_at(clause: &[Tok], i: usize) -> Option<&'static str> {
    let Some(Tok::Word(w, bits)) = clause.get(i).copied() else {
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
            Tok::Word(n, b) if b & lex::OP != 0 => {
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
            .any(|t| matches!(t, Tok::Word(w, _) if gerund_operation(w).is_some()));
    if beside {
        return has_word(&clause[i..=i], t::COMMAND_VERBS);
    }
    None
}

/// Whether the words after an operation verb show it is a noun: "Deploy done", "Release v2 is
/// tagged", "Release notes drafted" (a verb in the past right behind a noun).
fn noun_use(after: &[Tok]) -> bool {
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
            |t| matches!(t, Tok::Word(w, _) if w.len() > 4 && w.ends_with("ed") && !w.ends_with("eed")),
        )
}

/// The operation a word names in any form ("push", "pushing", "merged", "deployment").
fn operation_word(w: &str) -> Option<&'static str> {
    lex::operation(w)
}

/// A code span or a program name.
fn has_command(toks: &[Tok]) -> bool {
    toks.iter().any(|t| {
        matches!(t, Tok::Code) || matches!(t, Tok::Word(w, _) if t::COMMAND_WORDS.contains(w))
    })
}

/// An operation verb in its -ing form ("running", "merging").
fn gerund_operation(w: &str) -> Option<&'static str> {
    w.ends_with("ing").then(|| lex::operation(w)).flatten()
}

/// Whether the clause is about the past or says no ("previously", "no longer", "not").
fn not_a_request(clause: &[Tok]) -> bool {
    (0..clause.len()).any(|i| {
        t::NOT_A_REQUEST.iter().any(|s| seq_at(clause, i, s))
            && !(seq_at(clause, i, &["not"])
                && i > 0
                && seq_at(clause, i - 1, &["do", "not", "forget"]))
    })
}

/// The hand-back (or offer) in a sentence, as the words that fired it.
fn hand_back(s: &[Tok], sb: u32) -> Option<(Kind, String)> {
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
const OFFERS: &[&str] = &[
    "you + can",
    "you + could",
    "you + may",
    "you + might",
    "you + are welcome to",
    "you + are free to",
];
const STRONG: &[&str] = &[
    "wish to", "need to", "have to", "want to", "should", "must", "better",
];

fn hand_back_words(s: &[Tok], sb: u32) -> Option<String> {
    let you = sb & lex::YOU != 0;
    let code = sb & CODE_BIT != 0;
    let cls = clauses(s);
    let table_row = s.contains(&Tok::Mark('|'));
    if table_row
        && cls
            .iter()
            .any(|cl| matches!(cl.toks, [Tok::Word("you", _)]))
    {
        if let Some(op) = first_operation(s) {
            return Some(format!("table: you + {op}"));
        }
    }
    for (ci, cl) in cls.iter().enumerate() {
        let c = cl.toks;
        // A rule that fires in a clause about the past or a negation ("previously you'd run",
        // "no need to push") is no request: the clause is skipped.
        if let Some(w) = clause_rules(cl, ci, s, sb, you, code, table_row) {
            if !not_a_request(c) {
                return Some(w);
            }
        }
    }
    None
}

/// The hand-back rules over one clause, each run only when the sentence holds the words it needs.
fn clause_rules(
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
            if let Some(op) = s.iter().find_map(|t| match t {
                Tok::Word(w, _) => operation_word(w),
                _ => None,
            }) {
                return Some(format!("{} + {op}", seq.join(" ")));
            }
            if has_command(s) {
                return Some(format!("{} + {}", seq.join(" "), crate::own_text::CODE));
            }
        }
        // "Pending: `git push`", "To publish: `cargo publish`", "Next steps" over a code block,
        // "How to ship it" over a code block (a header naming the operation).
        if ci == 0 {
            let how_to =
                (seq_at(c, 0, &["how", "to"]) && operation_at(c, 2).is_some()).then_some("how to");
            if let Some(h) = has_word(&c[..1], t::COMMAND_HEADERS).or(how_to) {
                let words = c.iter().take_while(|t| matches!(t, Tok::Word(..))).count();
                let after = match c.get(words) {
                    Some(t) => Some(t),
                    None => s.get(words + 1),
                };
                if words <= 4 && matches!(after, Some(Tok::Code)) {
                    return Some(format!("{h} … {}", crate::own_text::CODE));
                }
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

/// An operation named as still to happen, with no one doing it: "it's a matter of running
/// `make`", "the release requires running `x`", "the branch is ready to be pushed", "the command
/// to run is `x`", "`cargo publish` and you're done". Not when the agent says it did it ("…,
/// which I did").
fn pending_operation(c: &[Tok], s: &[Tok]) -> Option<String> {
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

/// "… is push; go ahead whenever": leave to do an operation the sentence names, given as an order.
fn go_ahead(c: &[Tok], s: &[Tok]) -> Option<String> {
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

/// "It'd be good to run the linters", "it is best to deploy tonight": the operation recommended
/// with no one named to do it.
fn advisable(c: &[Tok]) -> Option<String> {
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

/// "Smash that merge button!": an order whose object is an operation ("hit the deploy button").
fn order_on_operation_noun(c: &[Tok]) -> Option<String> {
    if !looks_like_an_order(c.first())
        || !matches!(word(c.get(1)), Some("the" | "that" | "this" | "your" | "a"))
    {
        return None;
    }
    let op = c.iter().skip(2).take(2).find_map(|t| match t {
        Tok::Word(w, b) if b & lex::OP != 0 => t::OPERATION_NOUNS.iter().copied().find(|v| v == w),
        _ => None,
    })?;
    Some(format!("order + {op}"))
}

/// The first word of the sentence that names an operation in any form.
fn first_operation(s: &[Tok]) -> Option<&'static str> {
    s.iter().find_map(|t| match t {
        Tok::Word(w, _) => operation_word(w),
        _ => None,
    })
}

/// "The final piece is pushing the branch", "the only remaining action is a deploy": what is left
/// is named as a noun, and it is an operation (or a command). Not when the sentence says it is
/// done ("the last step was done too").
fn remainder(c: &[Tok], s: &[Tok], end: Option<Tok>) -> Option<String> {
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
            Tok::Word("is" | "are" | "for" | "left" | "pending" | "remaining", _)
        ),
    };
    if !introduces || has_word(s, t::DONE).is_some() {
        return None;
    }
    let what = format!("{} {}", word(c.get(i))?, word(c.get(i + n))?);
    // What is left is still to do: an operation in the past ("I pushed and deployed") is a report
    // beside it, not the remainder.
    let pending_op = s.iter().find_map(|t| match t {
        Tok::Word(w, _) if past_operation(w).is_none() => operation_word(w),
        _ => None,
    });
    if let Some(op) = pending_op {
        return Some(format!("{what} + {op}"));
    }
    has_command(s).then(|| format!("{what} + {}", crate::own_text::CODE))
}

/// "I'll leave publishing to you", "the push is left to you": an operation passed to the reader.
fn left_to_you(c: &[Tok], s: &[Tok]) -> Option<String> {
    let at = (0..c.len()).find(|&i| seq_at(c, i, &["to", "you"]))?;
    let verb = has_word(&c[..at], t::PASSING)?;
    let op = first_operation(s)?;
    Some(format!("{verb} … to you + {op}"))
}

/// "Then `make publish`.": a leader and a command, with nothing after that reports a result.
fn command_after_leader(c: &[Tok]) -> Option<String> {
    let lead = has_word(
        &c[..1],
        &["then", "next", "now", "finally", "lastly", "and"],
    )?;
    let at = c.iter().position(|t| matches!(t, Tok::Code))?;
    let between_leaders = c[1..at].iter().all(
        |t| matches!(t, Tok::Word(w, _) if ["then", "just", "simply", "run", "please"].contains(w)),
    );
    let after = word(c.get(at + 1));
    let reports = after.is_some_and(|w| {
        !["to", "and", "on", "in", "with", "from", "again", "yourself"].contains(&w)
    });
    (between_leaders && !reports).then(|| format!("{lead} + {}", crate::own_text::CODE))
}

/// An operation verb in the past or participle form ("if you ran", "once you've merged").
fn past_operation(w: &str) -> Option<&'static str> {
    (w == "ran" || w.ends_with("ed") || w.ends_with("ied"))
        .then(|| lex::operation(w))
        .flatten()
}

/// An imperative: the clause opens (behind "please", "then", "go ahead and", …) with an operation.
/// A verb alone is an imperative only when it ends the sentence ("Remaining: deploy.").
/// The operation at `i`, or a little further on after "and" ("bump the version and publish").
fn operation_or_and(c: &[Tok], i: usize) -> Option<&'static str> {
    operation_at(c, i).or_else(|| {
        (i + 1..(i + 8).min(c.len()))
            .find(|&k| word(c.get(k)) == Some("and"))
            .and_then(|k| operation_at(c, k + 1))
    })
}

fn imperative(c: &[Tok], s: &[Tok], ends_sentence: bool) -> Option<String> {
    let mut i = 0;
    let mut lead = Vec::new();
    'skip: loop {
        if bits_of(c.get(i)) & lex::LEADER == 0 {
            break;
        }
        for l in t::LEADERS {
            if seq_at(c, i, l) {
                lead.push(l.join(" "));
                i += l.len();
                continue 'skip;
            }
        }
        break;
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
fn looks_like_an_order(t: Option<&Tok>) -> bool {
    let Some(Tok::Word(w, b)) = t.copied() else {
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
fn reader_modal(c: &[Tok]) -> Option<String> {
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
            for m in t::READER_MODALS {
                if seq_at(c, j, m) {
                    walked.push(m.join(" "));
                    j += m.len();
                    modal = true;
                    continue 'walk;
                }
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
fn asking(c: &[Tok]) -> Option<String> {
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
fn recommending(c: &[Tok]) -> Option<String> {
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
fn after_you_operate(c: &[Tok], s: &[Tok]) -> Option<String> {
    const WHEN: &[&str] = &["once", "after", "when"];
    const WAITS: &[&[&str]] = &[
        &["let", "me", "know"],
        &["ping", "me"],
        &["tell", "me"],
        &["i", "will"],
    ];
    // Without a wait, the reader's operation still hands over when it names the command ("Once
    // you've run `docker compose up`, the service is reachable").
    // Nor when the operation is one that finishes the work, after "once" (which takes for granted
    // that the reader will do it): "Once you've pushed the branch, CI will publish the preview".
    let wait = find_any(s, lex::Indexed::unindexed(WAITS)).map(|(_, w)| w.join(" "));
    let once_completing = word(c.first()) == Some("once")
        && has_word(s, t::SOME_DAY).is_none()
        && (2..4).any(|j| {
            word(c.get(j))
                .and_then(|v| past_operation(v).or(Some(v)))
                .is_some_and(|op| t::COMPLETING_OPERATIONS.contains(&op))
        });
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
fn wished_completion(c: &[Tok], s: &[Tok]) -> Option<String> {
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
fn if_you_run(c: &[Tok]) -> Option<String> {
    (0..c.len()).find_map(|i| {
        if !(seq_at(c, i, &["if", "you"]) && has_command(c.get(i + 3..i + 4)?)) {
            return None;
        }
        let op = has_word(&c[i + 2..i + 3], &["run", "execute", "try"])?;
        Some(format!("if you + {op} + {}", crate::own_text::CODE))
    })
}

/// The permission ask in a sentence, as the words that fired it.
fn permission_ask(s: &[Tok], answered: bool, sb: u32) -> Option<String> {
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
fn operation_verb_in_use(s: &[Tok]) -> Option<&'static str> {
    const NOUN_MARKERS: &[&str] = &[
        "the", "a", "an", "this", "that", "each", "every", "its", "your", "my", "our", "their",
    ];
    (0..s.len()).find_map(|i| {
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
fn leave_after_to(s: &[Tok]) -> bool {
    (0..s.len())
        .any(|i| word(s.get(i)) == Some("to") && t::LEAVE.iter().any(|l| seq_at(s, i + 1, l)))
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
