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

/// Verbs that ask the reader to supply something the agent lacks ("add your npm token", "provide
/// the registry token"): their object stays a blocker.
const SUPPLYING: &[&str] = &[
    "add",
    "provide",
    "supply",
    "give",
    "share",
    "set",
    "export",
    "grant",
    "enter",
    "paste",
    "create",
    "generate",
    "get",
    "obtain",
    "configure",
    "store",
    "put",
    "send",
];

/// `sentence` (normalised, one of [`crate::own_text::sentences`]) without the object of `verb`
/// (the handed-back operation, as the finding names it: "rotate", "trigger"), without a purpose
/// clause after it ("so the new secret is picked up"), and without the object of any other
/// request to the reader in the sentence ("you'll need to rotate the session secret … you'll need
/// to run `x`": the secret is what the first request acts on, not what the agent lacks).
/// The sentence is returned whole when it holds no such verb.
pub fn without_request_object(sentence: &str, verb: &str) -> String {
    let words: Vec<(usize, &str)> = word_spans(sentence).collect();
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    if let Some(at) = words.iter().position(|(_, w)| is_form_of(w, verb)) {
        let end = object_end(sentence, &words, at);
        // A purpose right behind the request: "… so the new secret is picked up", "so that …".
        let end = if sentence[end..].trim_start().starts_with("so ") {
            clause_end(sentence, end)
        } else {
            end
        };
        cuts.push((words[at].0 + words[at].1.len(), end));
    }
    for at in (0..words.len()).filter(|&k| requested(&words, k)) {
        // The reader's own credential ("add your npm token") is what the agent lacks.
        if SUPPLYING.contains(&words[at].1) || words.get(at + 1).is_some_and(|(_, w)| *w == "your")
        {
            continue;
        }
        cuts.push((
            words[at].0 + words[at].1.len(),
            object_end(sentence, &words, at),
        ));
    }
    if cuts.is_empty() {
        return sentence.to_string();
    }
    cuts.sort_unstable();
    let mut out = String::with_capacity(sentence.len());
    let mut from = 0;
    for (start, end) in cuts {
        if start > from {
            out.push_str(&sentence[from..start]);
        }
        from = from.max(end);
    }
    out.push_str(&sentence[from..]);
    out
}

/// Where the object of the verb at `at` ends: at most [`OBJECT_WORDS`] words, in its clause, up
/// to a word of [`OBJECT_ENDS`].
fn object_end(sentence: &str, words: &[(usize, &str)], at: usize) -> usize {
    let after_verb = words[at].0 + words[at].1.len();
    let clause = clause_end(sentence, after_verb);
    let mut end = after_verb;
    for (start, w) in words.iter().skip(at + 1).take(OBJECT_WORDS) {
        if *start > clause || OBJECT_ENDS.contains(w) {
            break;
        }
        end = start + w.len();
    }
    end
}

fn clause_end(sentence: &str, from: usize) -> usize {
    sentence[from..]
        .find([',', ';', ':', '—', '?', '!'])
        .map_or(sentence.len(), |i| from + i)
}

/// Whether the word at `k` is a verb the reader is asked to do: after "please", "you should",
/// "you must", "you'll", or "need/have/want to" with the reader named just before ("you'll need
/// to rotate"). The agent's own need ("I need to get a token") is not one.
fn requested(words: &[(usize, &str)], k: usize) -> bool {
    let w = |i: usize| k.checked_sub(i).and_then(|j| words.get(j)).map(|(_, w)| *w);
    let reader = |w: Option<&str>| matches!(w, Some("you" | "you'll" | "you'd" | "you've"));
    match (w(2), w(1)) {
        (_, Some("please")) => true,
        (p, Some("should" | "must")) => reader(p),
        (_, Some("you'll")) => true,
        (Some("need" | "needs" | "have" | "want"), Some("to")) => (3..=5).any(|i| reader(w(i))),
        _ => false,
    }
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
