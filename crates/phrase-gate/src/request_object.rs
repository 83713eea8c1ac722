//! E1 (issue 43): what a handed-back request acts on is not a blocker of the agent's.
//!
//! A blocker word next to a hand-back excuses it ("I have no npm token; run `npm publish`"). The
//! same word as the thing the reader is asked to operate on ("you'll need to rotate the session
//! secret") or as the effect the operation is for ("re-trigger CI so the new secret is picked
//! up") names no blocker: the agent could have done the operation. This module takes those words
//! out of the request's own sentence before the blocker tables are matched over it.

/// Words that end a verb's object: a preposition or conjunction starts what is around the
/// request ("run `x` with your production credentials" keeps "credentials" as a blocker).
const OBJECT_ENDS: &[&str] = &[
    "on", "in", "with", "once", "when", "after", "before", "using", "via", "for", "from", "to",
    "at", "by", "if", "and", "but", "or", "because", "since", "as", "unless", "until", "so",
];

/// At most this many words after the verb are its object ("the session secret").
const OBJECT_WORDS: usize = 4;

/// `sentence` (normalised, one of [`crate::own_text::sentences`]) without the object of `verb`
/// (the handed-back operation, as the finding names it: "rotate", "trigger") and without a
/// purpose clause after it ("so the new secret is picked up"). The sentence is returned whole
/// when the verb is not found in it.
pub fn without_request_object(sentence: &str, verb: &str) -> String {
    let words: Vec<(usize, &str)> = word_spans(sentence).collect();
    let Some(at) = words.iter().position(|(_, w)| is_form_of(w, verb)) else {
        return sentence.to_string();
    };
    let clause_end = |from: usize| {
        sentence[from..]
            .find([',', ';', ':', '—', '?', '!'])
            .map_or(sentence.len(), |i| from + i)
    };
    let after_verb = words[at].0 + words[at].1.len();
    let mut cut_end = after_verb;
    for (start, w) in words.iter().skip(at + 1).take(OBJECT_WORDS) {
        if *start > clause_end(after_verb) || OBJECT_ENDS.contains(w) {
            break;
        }
        cut_end = start + w.len();
    }
    // A purpose right behind the request: "… so the new secret is picked up", "so that …".
    let rest = &sentence[cut_end..];
    if rest.trim_start().starts_with("so ") {
        cut_end = clause_end(cut_end);
    }
    let mut out = String::with_capacity(sentence.len());
    out.push_str(&sentence[..after_verb]);
    out.push_str(&sentence[cut_end..]);
    out
}

/// The words of a sentence (letters, digits, `-`, `'`) with their byte offsets.
fn word_spans(s: &str) -> impl Iterator<Item = (usize, &str)> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .filter(|w| !w.is_empty())
        .map(move |w| (w.as_ptr() as usize - s.as_ptr() as usize, w))
}

/// Whether `w` is a form of the operation `verb` ("re-triggering" of "trigger", "releasing" of
/// "release").
fn is_form_of(w: &str, verb: &str) -> bool {
    let w = w
        .strip_prefix("re-")
        .or_else(|| w.strip_prefix("re").filter(|r| r.starts_with(verb)))
        .unwrap_or(w);
    let stem = verb.strip_suffix('e').unwrap_or(verb);
    !verb.is_empty() && w.starts_with(stem) && w.len() <= verb.len() + 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_object_and_the_purpose_are_taken_out() {
        assert_eq!(
            without_request_object(
                "you would want to re-trigger ci so the new secret is picked up.",
                "trigger"
            ),
            "you would want to re-trigger"
        );
        assert_eq!(
            without_request_object(
                "you will need to rotate the session secret on the server — no wait",
                "rotate"
            ),
            "you will need to rotate on the server — no wait"
        );
    }

    #[test]
    fn what_is_around_the_request_stays() {
        // The credentials the reader runs it with are what the agent lacks.
        let s = "please run `…` with your production credentials.";
        assert_eq!(without_request_object(s, "run"), s);
        let s = "i have no token, so please publish it.";
        assert_eq!(
            without_request_object(s, "publish"),
            "i have no token, so please publish."
        );
        // No such verb: the sentence is kept whole.
        assert_eq!(
            without_request_object("the secret is missing.", "deploy"),
            "the secret is missing."
        );
    }
}
