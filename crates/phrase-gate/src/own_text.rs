//! E1 (issue 43): the agent's own sentences, read from a markdown message.
//!
//! The gate judges what the agent says to the reader, so this module first takes away what the
//! agent did not say in its own voice: fenced and indented code blocks, block quotes (a callout
//! such as `> **Note:**` or `> [!NOTE]` stays: it is the agent speaking), and quoted strings
//! (`"Should I proceed?"` in a report is a quotation, not a question). Code spans stay, as the
//! token `` `…` ``: a command in a code span is how a hand-back names its command.
//!
//! Every heading, list item, table row and paragraph is a unit, and every unit is split into
//! sentences. Each sentence is normalised ([`crate::normalise`]) on its own, so a line break can
//! never join two sentences into a phrase.
//!
//! The output is one string, `". <sentence>\n"` per sentence: the phrase tables match it as they
//! matched the whole text before (a phrase starting with `". "` is a sentence start), and
//! [`sentences`] reads the sentences back.

use std::borrow::Cow;

/// What a code span becomes in the agent's own text: one token, whatever the command was (the
/// record keeps table words only, never the text).
pub const CODE: &str = "`…`";

/// The agent's own sentences, normalised, each as `". <sentence>\n"`.
pub fn own_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut unit = String::new();
    // The unit normalised: one buffer for every unit of the message.
    let mut normal = String::new();
    let mut fence: Option<(char, usize)> = None;
    let mut prev_blank = true;
    let mut in_code_block = false;
    // Whether the last sentence written was a heading (a code block under it is what it heads).
    let mut heading_last = false;
    for line in lines(text) {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some((ch, n)) = fence {
            if trimmed.starts_with(&ch.to_string().repeat(n))
                && trimmed.trim_matches(ch).trim().is_empty()
            {
                fence = None;
            }
            continue;
        }
        if let Some(f) = fence_open(trimmed) {
            flush(&mut unit, &mut out, &mut normal);
            introduce_code_block(&mut out, heading_last);
            fence = Some(f);
            continue;
        }
        if trimmed.is_empty() {
            flush(&mut unit, &mut out, &mut normal);
            prev_blank = true;
            in_code_block = false;
            continue;
        }
        // An indented code block: four spaces (or a tab) after a blank line, outside a list item.
        let indented = indent >= 4 || line.starts_with('\t');
        if indented && (prev_blank || in_code_block) && unit.is_empty() {
            if !in_code_block {
                introduce_code_block(&mut out, heading_last);
            }
            in_code_block = true;
            prev_blank = false;
            continue;
        }
        in_code_block = false;
        prev_blank = false;
        heading_last = trimmed.starts_with('#');
        if let Some(rest) = trimmed.strip_prefix('>') {
            flush(&mut unit, &mut out, &mut normal);
            if is_callout(rest) {
                unit.push_str(rest.trim_start_matches('>'));
                flush(&mut unit, &mut out, &mut normal);
            }
            continue;
        }
        if let Some(body) = block_start(trimmed) {
            flush(&mut unit, &mut out, &mut normal);
            if trimmed.starts_with('|') {
                // A table row: one sentence whose cells are clauses ("|" separates them).
                if !body.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
                    unit.push_str(&body);
                    flush(&mut unit, &mut out, &mut normal);
                }
                continue;
            }
            unit.push_str(&body);
            if trimmed.starts_with('#') {
                flush(&mut unit, &mut out, &mut normal);
            }
            continue;
        }
        if !unit.is_empty() {
            unit.push(' ');
        }
        unit.push_str(trimmed);
    }
    flush(&mut unit, &mut out, &mut normal);
    out
}

/// A code block the agent introduces ("Run these:", a "Next steps" heading) is what that
/// sentence hands over: the sentence gets the block as one [`CODE`] token. Any other code block
/// stays out of the agent's words.
fn introduce_code_block(out: &mut String, heading_last: bool) {
    let introduces = out.ends_with(":\n") || (heading_last && out.ends_with('\n'));
    if introduces {
        out.pop();
        out.push(' ');
        out.push_str(CODE);
        out.push('\n');
    }
}

/// The sentences of an [`own_text`] string.
pub fn sentences(own: &str) -> impl Iterator<Item = &str> {
    lines(own).map(|l| l.strip_prefix(". ").unwrap_or(l))
}

/// [`str::lines`], found with `memchr`: the message's lines and then its sentences are short,
/// and `str::lines`' searcher cost about 170 instructions a line (0.58 M on a 64 KiB report).
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text).filter(|t| !t.is_empty());
    std::iter::from_fn(move || {
        let r = rest?;
        match memchr::memchr(b'\n', r.as_bytes()) {
            Some(i) => {
                rest = Some(&r[i + 1..]).filter(|t| !t.is_empty());
                let line = &r[..i];
                Some(line.strip_suffix('\r').unwrap_or(line))
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// A fence opener: three or more backticks or tildes; returns the character and the count.
fn fence_open(trimmed: &str) -> Option<(char, usize)> {
    let ch = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = trimmed.chars().take_while(|c| *c == ch).count();
    (n >= 3 && !(ch == '`' && trimmed[n..].contains('`'))).then_some((ch, n))
}

/// A block quote the agent writes in its own voice: a note, warning or GitHub alert.
fn is_callout(rest: &str) -> bool {
    let r = rest
        .trim_start()
        .trim_start_matches('*')
        .to_ascii_lowercase();
    ["[!", "note", "warning", "important", "tip", "caution"]
        .iter()
        .any(|p| r.starts_with(p))
}

/// The body of a line that starts its own unit (heading, list item, table row), or `None` for a
/// line that continues a paragraph.
fn block_start(trimmed: &str) -> Option<Cow<'_, str>> {
    if trimmed.starts_with('#') {
        let body = trimmed.trim_start_matches('#');
        return body.starts_with(' ').then(|| Cow::Borrowed(body.trim()));
    }
    if trimmed.starts_with('|') {
        return Some(Cow::Borrowed(trimmed.trim_matches('|').trim()));
    }
    for marker in ["- ", "* ", "+ "] {
        if let Some(b) = trimmed.strip_prefix(marker) {
            return Some(strip_task_box(b));
        }
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let rest = &trimmed[digits..];
        if let Some(b) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some(strip_task_box(b));
        }
    }
    None
}

/// An unchecked box is work still open: it reads as "todo: …" (a bare command under it is handed
/// over). A checked one ("- [x] Push") reports work done: its verb
/// is no order, so the item reads as "done: push" (a clause the rules do not take for an order).
fn strip_task_box(body: &str) -> Cow<'_, str> {
    if let Some(rest) = body.strip_prefix("[ ] ") {
        return Cow::Owned(format!("todo: {rest}"));
    }
    match body
        .strip_prefix("[x] ")
        .or_else(|| body.strip_prefix("[X] "))
    {
        Some(rest) => Cow::Owned(format!("done {rest}")),
        None => Cow::Borrowed(body),
    }
}

/// Normalises a unit, masks its quotations and code spans, and appends its sentences to `out`,
/// in one pass over the normalised text (this runs over every byte of the message).
fn flush(unit: &mut String, out: &mut String, normal: &mut String) {
    if unit.trim().is_empty() {
        unit.clear();
        return;
    }
    crate::normalise::normalise_into(unit, normal);
    let mut w = Sentences::start(out);
    mask_into(normal.trim(), &mut w);
    w.end();
    unit.clear();
}

/// Writes sentences as `". <sentence>\n"`, splitting plain text after `.`, `!` or `?` followed by
/// a space; an empty sentence is dropped.
struct Sentences<'o> {
    out: &'o mut String,
    /// Where the current sentence's text starts.
    start: usize,
}

impl<'o> Sentences<'o> {
    fn start(out: &'o mut String) -> Sentences<'o> {
        out.push_str(". ");
        let start = out.len();
        Sentences { out, start }
    }

    /// Plain text: copied, split where a sentence ends.
    fn plain(&mut self, run: &str) {
        // By the sentence marks, with memchr: most bytes are none (a walk over every space cost
        // about 8 instructions a byte of the message).
        let b = run.as_bytes();
        let mut from = 0;
        for mark in memchr::memchr3_iter(b'.', b'!', b'?', b) {
            let at = mark + 1;
            if b.get(at) == Some(&b' ') {
                self.out.push_str(&run[from..at]);
                self.next();
                from = at + 1;
            }
        }
        self.out.push_str(&run[from..]);
    }

    /// A token (a masked quotation or code span): copied whole.
    fn token(&mut self, t: &str) {
        self.out.push_str(t);
    }

    fn last_char(&self) -> Option<char> {
        self.out[self.start..].chars().last()
    }

    fn next(&mut self) {
        self.end();
        self.out.push_str(". ");
        self.start = self.out.len();
    }

    fn end(&mut self) {
        let kept = self.out[self.start..].trim_end().len();
        self.out.truncate(self.start + kept);
        if kept == 0 {
            self.out.truncate(self.start - 2);
        } else {
            self.out.push('\n');
        }
        self.start = self.out.len();
    }
}

/// Code spans become [`CODE`]; a quotation in double quotes (or single quotes that open after a
/// space and close before one) becomes `"…"`; emphasis markers go. Unbalanced marks are kept.
fn mask_into(text: &str, w: &mut Sentences) {
    let mut rest = text;
    loop {
        // Copy the run up to the next mark that can open something, in one go.
        // By bytes: the marks are ASCII, so a match is a char boundary (a `char` pattern decodes
        // every character of the message).
        let Some(at) = rest
            .bytes()
            .position(|b| matches!(b, b'`' | b'"' | b'\'' | b'*'))
        else {
            w.plain(rest);
            return;
        };
        w.plain(&rest[..at]);
        rest = &rest[at..];
        let c = rest.as_bytes()[0];
        let after = &rest[1..];
        match c {
            b'`' => {
                let ticks = rest.bytes().take_while(|b| *b == b'`').count();
                let close = &rest[..ticks];
                if let Some(end) = rest[ticks..].find(close) {
                    w.token(CODE);
                    rest = &rest[ticks + end + ticks..];
                } else {
                    w.token(close);
                    rest = &rest[ticks..];
                }
                continue;
            }
            b'"' => {
                if let Some(end) = after.find('"') {
                    w.token("\"…\"");
                    rest = &after[end + 1..];
                    continue;
                }
            }
            b'\'' if opens_single_quote(w.last_char()) => {
                if let Some(end) = closing_single_quote(after) {
                    w.token("'…'");
                    rest = &after[end + 1..];
                    continue;
                }
            }
            b'*' => {
                rest = after;
                continue;
            }
            _ => {}
        }
        w.token(&rest[..1]);
        rest = after;
    }
}

fn opens_single_quote(before: Option<char>) -> bool {
    before.is_none_or(|c| c == ' ' || c == '(' || c == ':')
}

/// Where a single quotation that starts at `after` closes: a `'` after a non-space character and
/// before a space, punctuation or the end. An apostrophe inside a word ("don't") never closes it.
fn closing_single_quote(after: &str) -> Option<usize> {
    if after.starts_with(' ') || after.is_empty() {
        return None;
    }
    let bytes = after.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b != b'\'' || i == 0 || bytes[i - 1] == b' ' {
            continue;
        }
        let next = bytes.get(i + 1).copied();
        if next.is_none_or(|n| !n.is_ascii_alphanumeric()) {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(text: &str) -> Vec<String> {
        sentences(&own_text(text)).map(str::to_string).collect()
    }

    #[test]
    fn lines_are_str_lines() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "a\r",
            "\n\nx\n\n",
            "x\ry\n",
        ] {
            assert_eq!(
                lines(text).collect::<Vec<_>>(),
                text.lines().collect::<Vec<_>>(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn code_blocks_and_quotes_are_not_the_agents_words() {
        let t = "I ran:\n\n```\nplease run `x`\n```\n> Should I proceed?\n\nDone.";
        assert_eq!(own(t), vec!["i ran: `…`", "done."]);
        assert_eq!(
            own("The README:\n\n    run make\n\nOk."),
            vec!["the readme: `…`", "ok."]
        );
        assert_eq!(
            own("The issue asked \"should we proceed?\" and 'can I go ahead?' here."),
            vec!["the issue asked \"…\" and '…' here."]
        );
        assert_eq!(
            own("I don't think it's the docs' fault."),
            vec!["i don't think it's the docs' fault."]
        );
    }

    #[test]
    fn units_are_sentences_and_code_spans_one_token() {
        assert_eq!(
            own("## Next steps\n- Run `cargo test`\n- **Push** it\n\nAll good. Ok? Yes!"),
            vec![
                "next steps",
                "run `…`",
                "push it",
                "all good.",
                "ok?",
                "yes!"
            ]
        );
        assert_eq!(
            own("| Step | Who |\n|---|---|\n| Publish | you |"),
            vec!["step | who", "publish | you"]
        );
        assert_eq!(
            own("> **Note:** please run `x`."),
            vec!["note: please run `…`."]
        );
        assert_eq!(own("- [ ] Run it\n  on CI"), vec!["todo: run it on ci"]);
        assert_eq!(own("- [x] Push"), vec!["done push"]);
    }
}
