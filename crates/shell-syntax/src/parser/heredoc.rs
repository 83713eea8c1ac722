//! Heredocs: registering `<<`/`<<-` operators, reading their bodies at the next newline, and
//! attaching the bodies to their redirections once the tree is complete.

use super::{PResult, Parser, PendingHeredoc};
use crate::ast::*;
use crate::error::ErrorKind;

impl<'s, 'b> Parser<'s, 'b> {
    /// Note a heredoc whose body starts after the next newline.
    pub(super) fn register_heredoc(&mut self, target: &Word, strip_tabs: bool) -> PResult<Heredoc> {
        self.sh.heredocs += 1;
        if self.sh.heredocs > self.sh.limits.max_heredocs {
            return self.err(ErrorKind::TooManyHeredocs {
                limit: self.sh.limits.max_heredocs,
            });
        }
        let raw = target.span.text_in(self.src, self.base);
        let quoted = raw.contains(['\'', '"', '\\']);
        let mut delimiter = String::new();
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            match c {
                '\'' | '"' => {}
                '\\' => {
                    if let Some(n) = chars.next() {
                        delimiter.push(n);
                    }
                }
                _ => delimiter.push(c),
            }
        }
        // `$'..'`/`$".."` delimiters: bash drops the `$` too.
        if raw.starts_with("$'") || raw.starts_with("$\"") {
            delimiter.remove(0);
        }
        let id = self.sh.bodies.len() as u32;
        self.sh.bodies.push(None);
        self.pending.push(PendingHeredoc {
            id,
            delimiter: delimiter.clone(),
            quoted,
            strip_tabs,
        });
        Ok(Heredoc {
            id,
            delimiter: delimiter.into(),
            quoted,
            strip_tabs,
            body: Word::default(),
            unterminated: false,
        })
    }

    /// Read the bodies of all pending heredocs, in order, starting at the cursor.
    pub(super) fn read_heredocs(&mut self) -> PResult<()> {
        let pending = std::mem::take(&mut self.pending);
        for h in pending {
            let body_start = self.pos;
            let mut line_start = self.pos;
            let (body_end, unterminated) = loop {
                self.tick()?;
                if line_start >= self.end {
                    self.pos = self.end;
                    break (self.end, true);
                }
                let line_end = memchr_newline(&self.b[line_start..self.end])
                    .map(|i| line_start + i)
                    .unwrap_or(self.end);
                let line = &self.src[line_start..line_end];
                let cmp = if h.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if cmp == h.delimiter {
                    self.pos = (line_end + 1).min(self.end);
                    break (line_start, false);
                }
                line_start = line_end + 1;
            };
            let word = if h.quoted {
                let mut text = self.src[body_start..body_end].to_string();
                if h.strip_tabs {
                    text = strip_line_tabs(&text, true);
                }
                Word {
                    parts: smallvec::smallvec![WordPart::Literal(text.into())],
                    span: Span::new(body_start + self.base, body_end + self.base),
                }
            } else {
                let mut parts = self.sub(body_start, body_end).dq_parts(None)?;
                if h.strip_tabs {
                    let mut at_line_start = true;
                    for p in parts.iter_mut() {
                        if let WordPart::Literal(s) = p {
                            *s = strip_line_tabs(s, at_line_start).into();
                            at_line_start = s.ends_with('\n');
                        } else {
                            at_line_start = false;
                        }
                    }
                }
                Word {
                    parts: parts.into(),
                    span: Span::new(body_start + self.base, body_end + self.base),
                }
            };
            if let Some(slot) = self.sh.bodies.get_mut(h.id as usize) {
                *slot = Some((word, unterminated));
            }
        }
        Ok(())
    }
}

fn memchr_newline(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

fn strip_line_tabs(s: &str, at_start: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut start = at_start;
    for c in s.chars() {
        if start && c == '\t' {
            continue;
        }
        start = c == '\n';
        out.push(c);
    }
    out
}

impl Span {
    /// Text of a span produced by a parser whose spans are shifted by `base`.
    fn text_in<'a>(&self, src: &'a str, base: usize) -> &'a str {
        src.get(
            (self.start as usize).saturating_sub(base)..(self.end as usize).saturating_sub(base),
        )
        .unwrap_or("")
    }
}

type Bodies = [Option<(Word, bool)>];

/// Attach the heredoc bodies read so far to their redirections (each body is moved out).
pub(super) fn fill(items: &mut [ListItem], bodies: &mut Bodies) {
    for item in items {
        fill_item(item, bodies);
    }
}

fn fill_item(item: &mut ListItem, b: &mut Bodies) {
    let ao = &mut item.and_or;
    for p in std::iter::once(&mut ao.first).chain(ao.rest.iter_mut().map(|(_, p)| p)) {
        for e in &mut p.commands {
            fill_command(&mut e.command, b);
        }
    }
}

fn fill_list(l: &mut List, b: &mut Bodies) {
    for item in &mut l.items {
        fill_item(item, b);
    }
}

fn fill_command(c: &mut Command, b: &mut Bodies) {
    match c {
        Command::Simple(s) => {
            for a in &mut s.assignments {
                if let Some(i) = &mut a.index {
                    fill_word(i, b);
                }
                match &mut a.value {
                    AssignValue::Scalar(w) => fill_word(w, b),
                    AssignValue::Array(ws) => ws.iter_mut().for_each(|w| fill_word(w, b)),
                }
            }
            s.words.iter_mut().for_each(|w| fill_word(w, b));
            fill_redirects(&mut s.redirects, b);
        }
        Command::Compound(cc) => fill_compound(cc, b),
        Command::Function(f) => {
            fill_compound(&mut f.body, b);
            fill_redirects(&mut f.redirects, b);
        }
        Command::Coproc(co) => fill_command(&mut co.body, b),
    }
}

fn fill_compound(cc: &mut CompoundCommand, b: &mut Bodies) {
    match &mut cc.kind {
        CompoundKind::Brace(l) | CompoundKind::Subshell(l) => fill_list(l, b),
        CompoundKind::If(i) => {
            for (c, body) in &mut i.branches {
                fill_list(c, b);
                fill_list(body, b);
            }
            if let Some(e) = &mut i.else_body {
                fill_list(e, b);
            }
        }
        CompoundKind::While(w) => {
            fill_list(&mut w.condition, b);
            fill_list(&mut w.body, b);
        }
        CompoundKind::For(f) | CompoundKind::Select(f) => {
            if let Some(items) = &mut f.items {
                items.iter_mut().for_each(|w| fill_word(w, b));
            }
            fill_list(&mut f.body, b);
        }
        CompoundKind::ArithFor(f) => {
            for e in [&mut f.init, &mut f.condition, &mut f.step] {
                fill_parts(&mut e.parts, b);
            }
            fill_list(&mut f.body, b);
        }
        CompoundKind::Case(c) => {
            fill_word(&mut c.subject, b);
            for arm in &mut c.arms {
                arm.patterns.iter_mut().for_each(|w| fill_word(w, b));
                fill_list(&mut arm.body, b);
            }
        }
        CompoundKind::Test(ws) => ws.iter_mut().for_each(|w| fill_word(w, b)),
        CompoundKind::Arith(e) => fill_parts(&mut e.parts, b),
    }
    fill_redirects(&mut cc.redirects, b);
}

fn fill_redirects(rs: &mut [Redirect], b: &mut Bodies) {
    for r in rs {
        fill_word(&mut r.target, b);
        if let Some(h) = &mut r.heredoc {
            if let Some((body, unterminated)) = b.get_mut(h.id as usize).and_then(Option::take) {
                h.body = body;
                h.unterminated = unterminated;
            }
            fill_word(&mut h.body, b);
        }
    }
}

fn fill_word(w: &mut Word, b: &mut Bodies) {
    fill_parts(&mut w.parts, b);
}

fn fill_parts(parts: &mut [WordPart], b: &mut Bodies) {
    for p in parts {
        match p {
            WordPart::DoubleQuoted(ps) | WordPart::Locale(ps) => fill_parts(ps, b),
            WordPart::Param(pe) => {
                if let Some(i) = &mut pe.index {
                    fill_word(i, b);
                }
                match pe.op.as_deref_mut() {
                    Some(ParamOp::Default { word, .. }) => fill_word(word, b),
                    Some(ParamOp::RemovePrefix { pattern, .. })
                    | Some(ParamOp::RemoveSuffix { pattern, .. })
                    | Some(ParamOp::Case { pattern, .. }) => fill_word(pattern, b),
                    Some(ParamOp::Replace {
                        pattern,
                        replacement,
                        ..
                    }) => {
                        fill_word(pattern, b);
                        if let Some(r) = replacement {
                            fill_word(r, b);
                        }
                    }
                    Some(ParamOp::Substring { offset, length }) => {
                        fill_word(offset, b);
                        if let Some(l) = length {
                            fill_word(l, b);
                        }
                    }
                    _ => {}
                }
            }
            WordPart::CommandSubst(cs) => fill_list(&mut cs.script.body, b),
            WordPart::ProcessSubst { script, .. } => fill_list(&mut script.body, b),
            WordPart::Arith(e) => fill_parts(&mut e.parts, b),
            WordPart::Brace(be) => be.alternatives.iter_mut().for_each(|w| fill_word(w, b)),
            WordPart::ArrayLiteral(ws) => ws.iter_mut().for_each(|w| fill_word(w, b)),
            _ => {}
        }
    }
}
