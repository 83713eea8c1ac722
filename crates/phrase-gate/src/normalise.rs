//! E6: text normalisation before matching, so formatting cannot dodge a phrase.
//!
//! Unicode NFKC (full-width letters, ligatures), lower case, curly quotes and apostrophes folded to
//! ASCII, invisible format characters removed, and every run of white space collapsed to one space.

use std::borrow::Cow;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

fn fold_char(c: char) -> Option<char> {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{02BC}'
        | '\u{FF07}' => Some('\''),
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{FF02}' => Some('"'),
        // Zero-width and soft-hyphen characters hide inside words.
        '\u{00AD}' | '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' => None,
        c => Some(c),
    }
}

/// Normalises `text` for matching. ASCII input takes a fast path with no Unicode tables.
pub fn normalise(text: &str) -> Cow<'_, str> {
    let ascii = text.is_ascii();
    if ascii && !needs_ascii_work(text.as_bytes()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    let mut push = |c: char, out: &mut String| {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            return;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        for l in c.to_lowercase() {
            out.push(l);
        }
    };
    if ascii {
        for c in text.chars() {
            push(c, &mut out);
        }
    } else {
        let folded = text.chars().filter_map(fold_char);
        if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
            for c in folded {
                push(c, &mut out);
            }
        } else {
            for c in folded.nfkc() {
                // NFKC can produce curly forms from compatibility characters; fold again.
                if let Some(c) = fold_char(c) {
                    push(c, &mut out);
                }
            }
        }
    }
    Cow::Owned(out)
}

/// True when ASCII text has an upper-case letter or white space other than single inner spaces.
fn needs_ascii_work(bytes: &[u8]) -> bool {
    let mut prev_space = true;
    for &b in bytes {
        if b.is_ascii_uppercase() {
            return true;
        }
        if b.is_ascii_whitespace() {
            if b != b' ' || prev_space {
                return true;
            }
            prev_space = true;
        } else {
            prev_space = false;
        }
    }
    prev_space && !bytes.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_quotes_width_and_space() {
        assert_eq!(normalise("You  CAN\n\trun"), "you can run");
        assert_eq!(normalise("I\u{2019}m"), "i'm");
        assert_eq!(normalise("ｙｏｕ ｃａｎ ｒｕｎ"), "you can run");
        assert_eq!(normalise("you\u{00A0}can run"), "you can run");
        assert_eq!(normalise("my mis\u{200B}take"), "my mistake");
        assert_eq!(normalise("  lead and trail  "), "lead and trail");
    }

    #[test]
    fn plain_lower_ascii_is_borrowed() {
        assert!(matches!(normalise("already plain text"), Cow::Borrowed(_)));
        assert!(matches!(normalise("two  spaces"), Cow::Owned(_)));
    }
}
