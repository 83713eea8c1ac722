//! E1 (issue 43): a sentence of the agent's own text as words, code spans and clause marks, each
//! word with its [`lex`] bits looked up once; and the helpers every reading rule uses to look at
//! them ([`crate::reader_handback`], [`crate::reader_asks`]). Split from `reader_address`: the
//! words are one thing, the rules that read them another.

use crate::reader_lexicon as lex;

/// One word of a sentence, or a code span, or a clause mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    /// A word, its [`lex`] bits and its lexicon slot (looked up once, when the sentence is read;
    /// the slot lists the phrase-table entries the word opens).
    Word(&'a str, u32, u16),
    Code,
    /// `,` `;` `:` `—` `(` `)` `|`: a clause boundary.
    Mark(char),
    /// `?` (the sentence is a question from here on).
    Question,
}

/// What a sentence holds, as [`lex`] bits, with two of our own: a code span and a question mark.
pub(crate) const CODE_BIT: u32 = 1 << 30;
pub(crate) const QUESTION_BIT: u32 = 1 << 31;

pub(crate) fn sentence_bits(s: &[Tok]) -> u32 {
    s.iter().fold(0, |acc, t| {
        acc | match t {
            Tok::Word(_, b, _) => *b,
            Tok::Code => CODE_BIT,
            Tok::Question => QUESTION_BIT,
            Tok::Mark(_) => 0,
        }
    })
}

/// Splits a normalised sentence into words (contractions expanded), code spans and marks, into a
/// buffer the caller reuses (cleared first), stopping once `limit` tokens are read.
pub(crate) fn tokens_into<'a>(out: &mut Vec<Tok<'a>>, sentence: &'a str, limit: usize) {
    // Bytes, not chars: the text is mostly ASCII and this runs over every byte of the message;
    // a non-ASCII byte only ever continues a word (a letter) or is skipped (a dash is a mark).
    // The common bytes are tested first (an ASCII letter or digit starts a word, a space is
    // skipped), and the limit is checked per token, not per byte.
    out.clear();
    let bytes = sentence.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 && WORD_BYTES[usize::from(b)] {
            i = push_word_at(out, sentence, i);
            if out.len() >= limit {
                return;
            }
            continue;
        }
        if b == b' ' {
            i += 1;
            continue;
        }
        if b == b'`' && sentence[i..].starts_with(crate::own_text::CODE) {
            out.push(Tok::Code);
            i += crate::own_text::CODE.len();
        } else if b >= 0x80 {
            let c = sentence[i..].chars().next().unwrap_or(' ');
            if c.is_alphanumeric() {
                i = push_word_at(out, sentence, i);
            } else {
                if matches!(c, '—' | '–') {
                    out.push(Tok::Mark(c));
                }
                i += c.len_utf8();
            }
        } else {
            match b {
                b',' | b';' | b':' | b'(' | b')' | b'|' => out.push(Tok::Mark(b as char)),
                b'?' => out.push(Tok::Question),
                b'-' if bytes.get(i + 1) == Some(&b' ') => out.push(Tok::Mark('-')),
                _ => {}
            }
            i += 1;
        }
        if out.len() >= limit {
            return;
        }
    }
}

/// Reads the word that starts at `i` (a run of word bytes, then a joiner — "'", "-", ".", "_",
/// "/" — only when a letter or digit follows it), pushes it and returns where it ends.
#[inline(always)]
fn push_word_at<'a>(out: &mut Vec<Tok<'a>>, sentence: &'a str, mut i: usize) -> usize {
    let bytes = sentence.as_bytes();
    let start = i;
    let mut apostrophe = false;
    loop {
        while i < bytes.len() && WORD_BYTES[usize::from(bytes[i])] {
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
    i
}

/// Bytes that continue a word: ASCII letters and digits, `#`, and every non-ASCII byte (letters
/// of other scripts; a non-ASCII mark was handled before the word started). A `static`, not a
/// `const`: a `const` array indexed at run time can be copied onto the stack at every use.
pub(crate) static WORD_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'#' || c >= 0x80;
        b += 1;
    }
    t
};

/// A word token, looked up in the lexicon.
#[inline]
fn word_tok(w: &str) -> Tok<'_> {
    let (bits, slot) = lex::look_up(w);
    Tok::Word(w, bits, slot)
}

/// Pushes a word, expanding the contractions the tables need ("you'll" → "you will");
/// `apostrophe` says whether the word holds one (the tokenizer saw it: no second search).
pub(crate) fn push_word<'a>(out: &mut Vec<Tok<'a>>, w: &'a str, apostrophe: bool) {
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
        out.push(word_tok(w));
        return;
    }
    match EXPANSIONS.iter().find(|(c, _)| *c == w) {
        Some((_, words)) => out.extend(words.iter().map(|w| word_tok(w))),
        None => out.push(word_tok(w)),
    }
}

/// The clauses of a sentence: runs of tokens between marks (a question mark ends one too), each
/// with the token that ends it (`None` at the end of the sentence). An iterator, not a `Vec`: a
/// list per sentence cost an allocation and 0.2 M instructions on a 64 KiB report.
pub(crate) fn clauses<'s, 'a>(s: &'s [Tok<'a>]) -> impl Iterator<Item = Clause<'s, 'a>> {
    let mut start = 0;
    let mut opened_by = None;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < s.len() {
            let t = s[i];
            i += 1;
            if matches!(t, Tok::Mark(_) | Tok::Question) {
                let clause = (i - 1 > start).then(|| Clause {
                    toks: &s[start..i - 1],
                    opened_by,
                    ended_by: Some(t),
                });
                start = i;
                opened_by = Some(t);
                if clause.is_some() {
                    return clause;
                }
            }
        }
        (start < s.len()).then(|| {
            let clause = Clause {
                toks: &s[start..],
                opened_by,
                ended_by: None,
            };
            start = s.len();
            clause
        })
    })
}

/// A clause and the marks around it.
pub(crate) struct Clause<'s, 'a> {
    pub(crate) toks: &'s [Tok<'a>],
    pub(crate) opened_by: Option<Tok<'a>>,
    pub(crate) ended_by: Option<Tok<'a>>,
}

// The helpers below run at every word of every rule, from the rule modules: `#[inline]` lets
// them be inlined across codegen units (split out of one module, they cost 0.45 M instructions
// more on a 64 KiB report without it).

/// A token's [`lex`] bits, as looked up when the sentence was read (0 for no word).
#[inline]
pub(crate) fn bits_of(t: Option<&Tok>) -> u32 {
    match t {
        Some(Tok::Word(_, b, _)) => *b,
        _ => 0,
    }
}

#[inline]
pub(crate) fn word<'a>(t: Option<&Tok<'a>>) -> Option<&'a str> {
    match t {
        Some(Tok::Word(w, ..)) => Some(w),
        _ => None,
    }
}

/// Whether `seq` occurs in `toks` at `at`.
#[inline]
pub(crate) fn seq_at(toks: &[Tok], at: usize, seq: &[&str]) -> bool {
    seq.iter()
        .enumerate()
        .all(|(k, s)| word(toks.get(at + k)) == Some(s))
}

/// The first entry of `table` found anywhere in `toks`, with its position.
/// Positions whose word opens no entry of the table (by the word's [`lex`] bits) are skipped
/// without a comparison.
#[inline]
pub(crate) fn find_any(
    toks: &[Tok],
    table: lex::Indexed,
) -> Option<(usize, &'static [&'static str])> {
    if cannot_hold(toks, table) {
        return None;
    }
    (0..toks.len()).find_map(|i| entry_at(toks, i, table).map(|e| (i, e)))
}

/// Whether no word of `toks` can open an entry of `table`, by one pass over their bits: most
/// clauses hold none, and a call per word cost 1.2 M instructions on a 64 KiB report.
#[inline]
pub(crate) fn cannot_hold(toks: &[Tok], table: lex::Indexed) -> bool {
    table.first.is_some_and(|first| !has_bit(toks, first))
}

/// Whether a word of `toks` carries `bit` (no string compared).
#[inline]
pub(crate) fn has_bit(toks: &[Tok], bit: u32) -> bool {
    toks.iter()
        .any(|t| matches!(t, Tok::Word(_, b, _) if b & bit != 0))
}

/// The entry of `table` that occurs in `toks` at `i`. A word that carries no bit of the table is
/// skipped at once; one that does is compared only with the entries it opens (the lexicon lists
/// them: no walk over the table at every word that can open one of its entries).
#[inline(always)]
pub(crate) fn entry_at(
    toks: &[Tok],
    i: usize,
    table: lex::Indexed,
) -> Option<&'static [&'static str]> {
    let Some(Tok::Word(w, b, slot)) = toks.get(i).copied() else {
        return None;
    };
    match table.first {
        Some(f) if b & f == 0 => None,
        Some(_) => lex::firsts(slot, table).find(|e| seq_at(toks, i, e)),
        // A small table of the rules' own: compared whole, by the first word's length and byte.
        None => {
            let (len, lead) = (w.len(), w.as_bytes().first().copied());
            table.table.iter().copied().find(|e| {
                e.first()
                    .is_some_and(|f| f.len() == len && f.as_bytes().first().copied() == lead)
                    && seq_at(toks, i, e)
            })
        }
    }
}

/// The first word of `toks` that is in `table`, as the table spells it.
#[inline]
pub(crate) fn has_word(toks: &[Tok], table: &'static [&'static str]) -> Option<&'static str> {
    toks.iter().find_map(|t| match t {
        Tok::Word(w, ..) => table.iter().find(|x| *x == w).copied(),
        _ => None,
    })
}
