//! E6: text normalisation before matching, so formatting cannot dodge a phrase.
//!
//! Unicode NFKC (full-width letters, ligatures), lower case, curly quotes and apostrophes folded to
//! ASCII, invisible format characters removed, and every run of white space collapsed to one space.
//! ASCII bytes take a table-free path; only non-ASCII characters pay for Unicode work, because
//! final messages are mostly ASCII and the gate runs at every stop.

use crate::unicode_tables::{is_default_ignorable, latin_lookalike};
use std::borrow::Cow;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

fn fold_char(c: char) -> Option<char> {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{02BC}'
        | '\u{FF07}' => Some('\''),
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{FF02}' => Some('"'),
        // Characters that render as nothing (zero-width, bidi marks, invisible operators, variation
        // selectors, soft hyphen, ...) hide inside words: NFKC keeps many of them.
        c if is_default_ignorable(c) => None,
        c => Some(c),
    }
}

/// A lower-cased non-ASCII character as the tables meet it: a look-alike of a Latin letter
/// (Cyrillic `о`) becomes that letter.
fn skeleton_char(c: char) -> char {
    latin_lookalike(c).unwrap_or(c)
}

/// Normalises `text` for matching. Text that is already normal is borrowed, not copied.
pub fn normalise(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        let bytes = text.as_bytes();
        let upper = bytes.iter().any(u8::is_ascii_uppercase);
        let spaces = needs_space_work(bytes);
        return match (upper, spaces) {
            (false, false) => Cow::Borrowed(text),
            // The common case: a vectorised lower-casing copy and nothing else.
            (true, false) => Cow::Owned(text.to_ascii_lowercase()),
            _ => Cow::Owned(collapse_ascii_space(text)),
        };
    }
    // The quick check only needs the non-ASCII characters: dropping ASCII can only turn a "yes"
    // into a "maybe" (full normalisation, still correct), never the other way round.
    if is_nfkc_quick(non_ascii_chars(text)) == IsNormalized::Yes {
        Cow::Owned(fold(text))
    } else {
        let composed: String = text.nfkc().collect();
        Cow::Owned(fold(&composed))
    }
}

/// [`normalise`] into a buffer the caller reuses (cleared first). [`crate::own_text`] normalises
/// every unit of a message: an ASCII unit is one copy, lower-cased in place (and compacted only
/// when its white space needs it), with no allocation and no separate pass for upper case.
pub(crate) fn normalise_into(text: &str, out: &mut String) {
    out.clear();
    if !text.is_ascii() {
        out.push_str(&normalise(text));
        return;
    }
    out.push_str(text);
    out.make_ascii_lowercase();
    if needs_space_work(text.as_bytes()) {
        let mut bytes = std::mem::take(out).into_bytes();
        compact_spaces(&mut bytes, 0, false);
        // ASCII in, ASCII out.
        *out = String::from_utf8(bytes).unwrap_or_default();
    }
}

/// The non-ASCII characters of `text`, found by bytes (lead bytes of multi-byte sequences) so that
/// ASCII runs are skipped without decoding.
fn non_ascii_chars(text: &str) -> impl Iterator<Item = char> + '_ {
    text.bytes()
        .enumerate()
        .filter(|(_, b)| *b >= 0xC0)
        .filter_map(move |(i, _)| text[i..].chars().next())
}

/// Lower-cases, folds quotes, drops invisible characters and collapses white space.
///
/// ASCII runs are copied and lower-cased in bulk (and only walked again when their white space
/// needs collapsing); only non-ASCII characters are decoded one by one.
fn fold(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut pending_space = false;
    let mut i = 0;
    while i < bytes.len() {
        let run_end = bytes[i..]
            .iter()
            .position(|&b| b >= 0x80)
            .map_or(bytes.len(), |p| i + p);
        if run_end > i {
            push_ascii_run(&mut out, &bytes[i..run_end], &mut pending_space);
            i = run_end;
            continue;
        }
        // `i` is on a char boundary: runs end before a lead byte, and we step whole chars here.
        let c = text[i..].chars().next().unwrap_or(' ');
        i += c.len_utf8();
        let Some(c) = fold_char(c) else { continue };
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(b' ');
            pending_space = false;
        }
        let mut buf = [0u8; 4];
        for l in c.to_lowercase() {
            let l = skeleton_char(l);
            out.extend_from_slice(l.encode_utf8(&mut buf).as_bytes());
        }
    }
    // Only whole UTF-8 sequences were pushed, so this cannot fail; the fallback keeps it total.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn is_ascii_space(b: u8) -> bool {
    b.is_ascii_whitespace() || b == 0x0b
}

/// Appends an ASCII run lower-cased, with white space collapsed across run boundaries.
fn push_ascii_run(out: &mut Vec<u8>, run: &[u8], pending_space: &mut bool) {
    if *pending_space && !is_ascii_space(run[0]) {
        out.push(b' ');
        *pending_space = false;
    }
    let start = out.len();
    out.extend_from_slice(run);
    out[start..].make_ascii_lowercase();
    let clean_inside = !needs_space_work(run);
    if clean_inside && !*pending_space {
        return;
    }
    *pending_space = compact_spaces(out, start, *pending_space);
}

/// Collapses, in place from `start`, every run of ASCII white space in `out` to one space (none
/// at the very beginning, none left at the end); returns whether a space is still owed to
/// whatever comes next. `pending`: one was owed before `start`. `w` never passes `r`, because a
/// space is only written after at least one white-space byte was skipped.
fn compact_spaces(out: &mut Vec<u8>, start: usize, mut pending: bool) -> bool {
    let mut w = start;
    for r in start..out.len() {
        let b = out[r];
        if is_ascii_space(b) {
            pending = w > 0;
        } else {
            if pending {
                out[w] = b' ';
                w += 1;
                pending = false;
            }
            out[w] = b;
            w += 1;
        }
    }
    out.truncate(w);
    pending
}

/// Lower-cases and collapses every run of ASCII white space to one space, trimming both ends.
/// One copy, lower-cased in bulk, then compacted in place: splitting into words and copying each
/// cost about 25 instructions a byte of a long paragraph.
fn collapse_ascii_space(text: &str) -> String {
    let mut out = text.as_bytes().to_vec();
    out.make_ascii_lowercase();
    compact_spaces(&mut out, 0, false);
    // ASCII in, ASCII out.
    String::from_utf8(out).unwrap_or_default()
}

/// True when ASCII text has white space other than single inner spaces: at either end, other
/// than a space, or two together. One branch-free pass (a walk with the previous byte in hand cost
/// about 6 instructions a byte of every unit).
fn needs_space_work(bytes: &[u8]) -> bool {
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    if is_ascii_space(first) || is_ascii_space(last) {
        return true;
    }
    // Every byte but the last (no white space, seen above) as the first of a pair: tab, line
    // feed, vertical tab, form feed or carriage return (9 to 13), or a space before a space.
    let found = bytes.iter().zip(&bytes[1..]).fold(0u8, |acc, (&a, &b)| {
        acc | u8::from(a.wrapping_sub(9) < 5) | (u8::from(a == b' ') & u8::from(b == b' '))
    });
    found != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn folds_case_quotes_width_and_space() {
        assert_eq!(normalise("You  CAN\n\trun"), "you can run");
        assert_eq!(normalise("I\u{2019}m"), "i'm");
        assert_eq!(normalise("ｙｏｕ ｃａｎ ｒｕｎ"), "you can run");
        assert_eq!(normalise("you\u{00A0}can run"), "you can run");
        assert_eq!(normalise("my mis\u{200B}take"), "my mistake");
        assert_eq!(normalise("  lead and trail  "), "lead and trail");
        assert_eq!(normalise("cafe\u{0301} OK"), "caf\u{e9} ok");
        assert_eq!(normalise("ﬁle"), "file");
    }

    #[test]
    fn invisible_characters_nfkc_keeps_and_look_alike_letters_do_not_split_a_phrase() {
        for hidden in [
            '\u{200E}',
            '\u{2061}',
            '\u{2062}',
            '\u{2063}',
            '\u{2064}',
            '\u{034F}',
            '\u{180E}',
            '\u{FE0F}',
            '\u{E0020}',
        ] {
            assert_eq!(
                normalise(&format!("pro{hidden}ceed")),
                "proceed",
                "{hidden:?}"
            );
        }
        assert_eq!(normalise("pr\u{043E}ceed"), "proceed", "Cyrillic о");
        assert_eq!(
            normalise("PR\u{041E}CEED"),
            "proceed",
            "Cyrillic О, upper case"
        );
        assert_eq!(normalise("\u{0440}\u{0443}n"), "pyn", "Cyrillic р, у");
        assert_eq!(normalise("caf\u{e9}"), "caf\u{e9}", "accents stay");
    }

    #[test]
    fn into_a_buffer_is_the_same() {
        let mut buf = String::from("left over");
        for t in [
            "You  CAN\n\trun",
            "  lead and trail  ",
            "already plain",
            "UPPER only",
            "I\u{2019}m",
            "",
        ] {
            normalise_into(t, &mut buf);
            assert_eq!(buf, normalise(t), "{t:?}");
        }
    }

    #[test]
    fn plain_lower_ascii_is_borrowed() {
        assert!(matches!(normalise("already plain text"), Cow::Borrowed(_)));
        assert!(matches!(normalise("two  spaces"), Cow::Owned(_)));
    }

    /// The reference: the straightforward definition, one char at a time.
    fn reference(text: &str) -> String {
        let composed: String = text.nfkc().collect();
        let folded: String = composed.chars().filter_map(fold_char).collect();
        folded
            .split(char::is_whitespace)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
            .chars()
            .map(skeleton_char)
            .collect()
    }

    proptest! {
        #[test]
        fn fast_paths_agree_with_the_reference(text in "[ a-zA-Z\u{2019}\u{00A0}\u{200B}\u{200E}\u{2061}\u{034F}\u{180E}\u{0301}\u{0400}-\u{045F}\u{FF21}-\u{FF3A}\u{00C0}-\u{00FF}\t\n]{0,40}") {
            prop_assert_eq!(normalise(&text).into_owned(), reference(&text));
            let mut buf = String::new();
            normalise_into(&text, &mut buf);
            prop_assert_eq!(buf, reference(&text));
        }
    }
}
