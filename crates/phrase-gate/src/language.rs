//! E1 (issue 43): English first; a message in another language is reported as not judged.
//!
//! The tables are English, so a verdict on another language would be a guess: a German hand-back
//! would pass as "green" and look judged. Instead the gate says it did not judge the message. The
//! test is deliberately simple and transparent: a message is other-language when most of its
//! letters are of a non-Latin script (after look-alike letters are mapped to Latin, so a few
//! Cyrillic `о`s cannot take a message out of judgement), or when its function words are clearly
//! another language's and not English's. Short messages, and anything in doubt, are judged.
//! Code spans and fenced code are skipped: commands are not language.

use crate::unicode_tables::latin_lookalike;

/// Function words of English (a message has them in nearly every sentence).
const ENGLISH: &[&str] = &[
    "the", "a", "an", "and", "is", "are", "was", "to", "of", "in", "on", "for", "it", "this",
    "that", "i", "you", "with", "be", "have", "has", "not", "can", "will", "all", "as", "at", "by",
    "from", "or", "we", "my", "your", "please", "if", "so", "now", "should", "run", "done", "i've",
    "i'm", "it's", "let", "me", "when", "what", "there", "then", "shall", "may", "could", "would",
];

/// Function words of other languages that English does not use (none of them is in [`ENGLISH`]).
const OTHER: &[&str] = &[
    // German
    "und",
    "ist",
    "nicht",
    "ich",
    "der",
    "das",
    "bitte",
    "habe",
    "wir",
    "sie",
    "mit",
    "auf",
    "für",
    "aus",
    "ein",
    "eine",
    "sind",
    "wird",
    "selbst",
    "alle",
    "auch",
    "noch",
    "die",
    "laufen",
    "durch",
    "führe",
    "ausgeführt",
    "bestanden",
    // French
    "le",
    "la",
    "les",
    "des",
    "est",
    "et",
    "je",
    "vous",
    "une",
    "pour",
    "avec",
    "pas",
    "puis",
    "sont",
    "tout",
    "j'ai",
    "nous",
    "dans",
    "du",
    "au",
    "suivante",
    // Spanish, Portuguese, Italian
    "el",
    "los",
    "las",
    "está",
    "es",
    "y",
    "que",
    "por",
    "con",
    "una",
    "para",
    "todo",
    "cuando",
    "puedas",
    "todas",
    "del",
    "pero",
    "não",
    "os",
    "uma",
    "posso",
    "com",
    "foi",
    "são",
    "il",
    "è",
    "sono",
    "ho",
    "tutti",
    "della",
    "per",
    "che",
    "non",
    "gli",
    "fase",
    "primeira",
    "terminei",
    "listo",
    "he",
    // Dutch, Swedish, Polish
    "het",
    "een",
    "en",
    "niet",
    "ik",
    "je",
    "wanneer",
    "alles",
    "klaar",
    "voer",
    "zijn",
    "och",
    "att",
    "jag",
    "ska",
    "med",
    "det",
    "är",
    "nästa",
    "inte",
    "się",
    "są",
    "nie",
    "jest",
    "wszystkie",
    "zmiany",
];

/// Why a message is not judged, or `None` when it is English (or too short to tell).
pub fn not_english(text: &str) -> Option<&'static str> {
    // The language of a message shows in its first few kilobytes; reading them only keeps the
    // cost flat on long messages.
    let prose = without_code(&text[..floor_char_boundary(text, SAMPLE)]);
    // By words, not letters: a word with a letter of another script that is no look-alike of a
    // Latin one ("Запустите") is another script's; a word spelled in look-alikes ("Рlеаsе") is not.
    let (mut latin, mut other_script) = (0usize, 0usize);
    for w in prose
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
    {
        let foreign = w.chars().any(|c| {
            let lower = c.to_lowercase().next().unwrap_or(c);
            !(c.is_ascii_alphabetic() || is_latin(lower) || latin_lookalike(lower).is_some())
        });
        if foreign {
            other_script += 1;
        } else {
            latin += 1;
            // Clearly Latin script already: the rest of the sample cannot turn it.
            if latin >= 64 && latin > 8 * other_script {
                break;
            }
        }
    }
    if other_script >= 2 && other_script > latin {
        return Some("not English: most words are in another script");
    }
    let (mut english, mut other, mut words) = (0usize, 0usize, 0usize);
    for w in prose
        .split(|c: char| !(c.is_alphabetic() || c == '\''))
        .filter(|w| !w.is_empty())
    {
        words += 1;
        // Clearly English already: the rest of the sample cannot turn it.
        if english >= 20 && english > 4 * other {
            return None;
        }
        let w = w.to_lowercase();
        if ENGLISH.contains(&w.as_str()) {
            english += 1;
        } else if OTHER.contains(&w.as_str()) || w.chars().any(|c| !c.is_ascii() && is_latin(c)) {
            other += 1;
        }
    }
    (words >= 3 && other >= 2 && other > 2 * english)
        .then_some("not English: its function words are another language's")
}

/// How much of the message is read to tell its language.
const SAMPLE: usize = 4096;

/// The largest char boundary at or below `at`.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// Latin letters beyond ASCII (accented letters of European languages).
fn is_latin(c: char) -> bool {
    matches!(c, '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}')
        && c != '\u{00D7}'
        && c != '\u{00F7}'
}

/// The text without code spans and fenced blocks.
fn without_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_fence = false;
    for line in crate::own_text::lines(text) {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                out.push_str(part);
                out.push(' ');
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_languages_are_not_judged_and_english_is() {
        for t in [
            "Die Tests laufen durch. Bitte führe `cargo publish` selbst aus.",
            "Les tests passent. Puis-je continuer avec la phase suivante ?",
            "第一阶段已完成。我可以继续吗？",
            "Всё готово. Запустите `make deploy`, когда будет удобно.",
        ] {
            assert!(not_english(t).is_some(), "{t}");
        }
        for t in [
            "Proceed?",
            "Please run `cargo publish` yourself.",
            "Should I pr\u{043E}ceed with the café menu?",
            "The résumé parser is done; I ran `cargo test` and it passes.",
        ] {
            assert_eq!(not_english(t), None, "{t}");
        }
    }
}
