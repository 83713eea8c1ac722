//! Heredocs: registering `<<`/`<<-` operators, reading their bodies at the next newline, and
//! attaching the bodies to their redirections once the tree is complete.

use super::{PResult, Parser, PendingHeredoc};
use crate::ast::*;
use crate::error::ErrorKind;

impl<'a, 'b> Parser<'a, 'b> {
    /// Note a heredoc whose body starts after the next newline.
    pub(super) fn register_heredoc(
        &mut self,
        target: &Word<'a>,
        strip_tabs: bool,
    ) -> PResult<Heredoc<'a>> {
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
            delimiter: self.text(&delimiter),
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
                let mut text = &self.src[body_start..body_end];
                if h.strip_tabs {
                    text = self.text(&strip_line_tabs(text, true));
                }
                Word {
                    parts: std::slice::from_ref(self.node(WordPart::Literal(text))),
                    span: Span::new(body_start + self.base, body_end + self.base),
                }
            } else {
                let mut parts = self.sub(body_start, body_end).dq_parts(None)?;
                if h.strip_tabs {
                    let mut stripped = parts.to_vec();
                    let mut at_line_start = true;
                    for p in stripped.iter_mut() {
                        if let WordPart::Literal(s) = p {
                            *s = self.text(&strip_line_tabs(s, at_line_start));
                            at_line_start = s.ends_with('\n');
                        } else {
                            at_line_start = false;
                        }
                    }
                    parts = self.slice(&stripped);
                }
                Word {
                    parts,
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

pub(super) type Bodies<'a> = [Option<(Word<'a>, bool)>];

/// Attach the heredoc bodies read so far to their redirections in `items` (each body is taken
/// out of `bodies`). Tree nodes are shared and immutable, so the nodes on the path to a filled
/// redirection are copied; a subtree with nothing to fill is kept as it is.
pub(super) fn fill<'a>(
    arena: &'a bumpalo::Bump,
    items: &mut [ListItem<'a>],
    bodies: &mut Bodies<'a>,
) {
    let mut f = Filler { arena, bodies };
    for item in items {
        if let Some(new) = f.item(item) {
            *item = new;
        }
    }
}

struct Filler<'a, 'x> {
    arena: &'a bumpalo::Bump,
    bodies: &'x mut Bodies<'a>,
}

/// `new` if it is `Some`, else the old value (for rebuilding a node whose fields may change).
fn or<T>(new: Option<T>, old: T) -> T {
    new.unwrap_or(old)
}

/// Two fields of a node, each `(new, old)`: both values to rebuild it with (the new one where
/// it changed), or `None` when neither changed and the node is kept as it is.
fn changed<A, B>(a: (Option<A>, A), b: (Option<B>, B)) -> Option<(A, B)> {
    if a.0.is_none() && b.0.is_none() {
        return None;
    }
    Some((or(a.0, a.1), or(b.0, b.1)))
}

impl<'a> Filler<'a, '_> {
    /// `s` with the elements `f` changed replaced, copied once; `None` if nothing changed.
    fn slice<T: Copy>(
        &mut self,
        s: &'a [T],
        f: impl Fn(&mut Self, &T) -> Option<T>,
    ) -> Option<&'a [T]> {
        let mut out: Option<Vec<T>> = None;
        for (i, x) in s.iter().enumerate() {
            if let Some(new) = f(self, x) {
                out.get_or_insert_with(|| s.to_vec())[i] = new;
            }
        }
        out.map(|v| &*self.arena.alloc_slice_copy(&v))
    }

    fn words(&mut self, ws: &'a [Word<'a>]) -> Option<&'a [Word<'a>]> {
        self.slice(ws, |f, w| f.word(w))
    }

    fn item(&mut self, item: &ListItem<'a>) -> Option<ListItem<'a>> {
        let ao = item.and_or;
        let first = self.pipeline(&ao.first);
        let rest = self.slice(ao.rest, |f, (op, p)| f.pipeline(p).map(|p| (*op, p)));
        let (first, rest) = changed((first, ao.first), (rest, ao.rest))?;
        Some(ListItem {
            and_or: AndOr { first, rest, ..ao },
            ..*item
        })
    }

    fn pipeline(&mut self, p: &Pipeline<'a>) -> Option<Pipeline<'a>> {
        let commands = self.slice(p.commands, |f, e| {
            f.command(&e.command)
                .map(|command| PipeElem { command, ..*e })
        })?;
        Some(Pipeline { commands, ..*p })
    }

    fn list(&mut self, l: &List<'a>) -> Option<List<'a>> {
        let items = self.slice(l.items, |f, i| f.item(i))?;
        Some(List { items, ..*l })
    }

    fn command(&mut self, c: &Command<'a>) -> Option<Command<'a>> {
        match *c {
            Command::Simple(s) => {
                let assignments = self.slice(s.assignments, |f, a| f.assignment(a));
                let words = self.words(s.words);
                let redirects = self.redirects(s.redirects);
                if assignments.is_none() && words.is_none() && redirects.is_none() {
                    return None;
                }
                Some(Command::Simple(SimpleCommand {
                    assignments: or(assignments, s.assignments),
                    words: or(words, s.words),
                    redirects: or(redirects, s.redirects),
                    span: s.span,
                }))
            }
            Command::Compound(cc) => {
                let new = self.compound(cc)?;
                Some(Command::Compound(self.arena.alloc(new)))
            }
            Command::Function(fd) => {
                let body = self.compound(fd.body);
                let redirects = self.redirects(fd.redirects);
                let (body, redirects) = changed((body, *fd.body), (redirects, fd.redirects))?;
                let new = FunctionDef {
                    body: self.arena.alloc(body),
                    redirects,
                    ..*fd
                };
                Some(Command::Function(self.arena.alloc(new)))
            }
            Command::Coproc(co) => {
                let body = self.command(co.body)?;
                let new = Coproc {
                    body: self.arena.alloc(body),
                    ..*co
                };
                Some(Command::Coproc(self.arena.alloc(new)))
            }
        }
    }

    fn assignment(&mut self, a: &Assignment<'a>) -> Option<Assignment<'a>> {
        let index = a.index.as_ref().and_then(|w| self.word(w)).map(Some);
        let value = match a.value {
            AssignValue::Scalar(w) => self.word(&w).map(AssignValue::Scalar),
            AssignValue::Array(ws) => self.words(ws).map(AssignValue::Array),
        };
        let (index, value) = changed((index, a.index), (value, a.value))?;
        Some(Assignment { index, value, ..*a })
    }

    fn compound(&mut self, cc: &CompoundCommand<'a>) -> Option<CompoundCommand<'a>> {
        let kind = self.kind(&cc.kind);
        let redirects = self.redirects(cc.redirects);
        let (kind, redirects) = changed((kind, cc.kind), (redirects, cc.redirects))?;
        Some(CompoundCommand {
            kind,
            redirects,
            span: cc.span,
        })
    }

    fn kind(&mut self, k: &CompoundKind<'a>) -> Option<CompoundKind<'a>> {
        Some(match *k {
            CompoundKind::Brace(l) => CompoundKind::Brace(self.list(&l)?),
            CompoundKind::Subshell(l) => CompoundKind::Subshell(self.list(&l)?),
            CompoundKind::If(i) => {
                let branches = self.slice(i.branches, |f, (c, b)| {
                    changed((f.list(c), *c), (f.list(b), *b))
                });
                let else_body = i.else_body.as_ref().and_then(|e| self.list(e)).map(Some);
                let (branches, else_body) =
                    changed((branches, i.branches), (else_body, i.else_body))?;
                CompoundKind::If(IfClause {
                    branches,
                    else_body,
                })
            }
            CompoundKind::While(w) => {
                let (condition, body) = changed(
                    (self.list(&w.condition), w.condition),
                    (self.list(&w.body), w.body),
                )?;
                CompoundKind::While(WhileLoop {
                    condition,
                    body,
                    ..w
                })
            }
            CompoundKind::For(l) => CompoundKind::For(self.for_loop(&l)?),
            CompoundKind::Select(l) => CompoundKind::Select(self.for_loop(&l)?),
            CompoundKind::ArithFor(a) => {
                let init = self.arith(&a.init);
                let condition = self.arith(&a.condition);
                let step = self.arith(&a.step);
                let body = self.list(&a.body);
                if init.is_none() && condition.is_none() && step.is_none() && body.is_none() {
                    return None;
                }
                CompoundKind::ArithFor(self.arena.alloc(ArithFor {
                    init: or(init, a.init),
                    condition: or(condition, a.condition),
                    step: or(step, a.step),
                    body: or(body, a.body),
                }))
            }
            CompoundKind::Case(c) => {
                let subject = self.word(&c.subject);
                let arms = self.slice(c.arms, |f, arm| {
                    let (patterns, body) = changed(
                        (f.words(arm.patterns), arm.patterns),
                        (f.list(&arm.body), arm.body),
                    )?;
                    Some(CaseArm {
                        patterns,
                        body,
                        ..*arm
                    })
                });
                let (subject, arms) = changed((subject, c.subject), (arms, c.arms))?;
                CompoundKind::Case(CaseClause { subject, arms })
            }
            CompoundKind::Test(ws) => CompoundKind::Test(self.words(ws)?),
            CompoundKind::Arith(e) => CompoundKind::Arith(self.arith(&e)?),
        })
    }

    fn for_loop(&mut self, l: &ForLoop<'a>) -> Option<ForLoop<'a>> {
        let items = l.items.and_then(|ws| self.words(ws)).map(Some);
        let (items, body) = changed((items, l.items), (self.list(&l.body), l.body))?;
        Some(ForLoop { items, body, ..*l })
    }

    fn arith(&mut self, e: &ArithExpr<'a>) -> Option<ArithExpr<'a>> {
        let parts = self.parts(e.parts)?;
        Some(ArithExpr { parts, ..*e })
    }

    fn redirects(&mut self, rs: &'a [Redirect<'a>]) -> Option<&'a [Redirect<'a>]> {
        self.slice(rs, |f, r| f.redirect(r))
    }

    fn redirect(&mut self, r: &Redirect<'a>) -> Option<Redirect<'a>> {
        let target = self.word(&r.target);
        let heredoc = r.heredoc.and_then(|mut h| {
            let taken = self.bodies.get_mut(h.id as usize).and_then(Option::take);
            let filled = taken.is_some();
            if let Some((body, unterminated)) = taken {
                h.body = body;
                h.unterminated = unterminated;
            }
            match self.word(&h.body) {
                Some(body) => Some(Heredoc { body, ..h }),
                None => filled.then_some(h),
            }
        });
        let (target, heredoc) = changed((target, r.target), (heredoc.map(Some), r.heredoc))?;
        Some(Redirect {
            target,
            heredoc,
            ..*r
        })
    }

    fn word(&mut self, w: &Word<'a>) -> Option<Word<'a>> {
        let parts = self.parts(w.parts)?;
        Some(Word {
            parts,
            span: w.span,
        })
    }

    fn parts(&mut self, parts: &'a [WordPart<'a>]) -> Option<&'a [WordPart<'a>]> {
        self.slice(parts, |f, p| f.part(p))
    }

    fn part(&mut self, p: &WordPart<'a>) -> Option<WordPart<'a>> {
        Some(match *p {
            WordPart::DoubleQuoted(ps) => WordPart::DoubleQuoted(self.parts(ps)?),
            WordPart::Locale(ps) => WordPart::Locale(self.parts(ps)?),
            WordPart::Param(pe) => {
                let index = pe.index.and_then(|w| self.word(w));
                let op = pe.op.and_then(|op| self.param_op(op));
                if index.is_none() && op.is_none() {
                    return None;
                }
                let index = match index {
                    Some(w) => Some(&*self.arena.alloc(w)),
                    None => pe.index,
                };
                let op = match op {
                    Some(o) => Some(&*self.arena.alloc(o)),
                    None => pe.op,
                };
                WordPart::Param(self.arena.alloc(ParamExp { index, op, ..*pe }))
            }
            WordPart::CommandSubst(cs) => {
                let body = self.list(&cs.script.body)?;
                let script = Script { body, ..cs.script };
                WordPart::CommandSubst(self.arena.alloc(CommandSubst { script, ..*cs }))
            }
            WordPart::ProcessSubst { output, script } => {
                let body = self.list(&script.body)?;
                WordPart::ProcessSubst {
                    output,
                    script: self.arena.alloc(Script { body, ..*script }),
                }
            }
            WordPart::Arith(e) => {
                let new = self.arith(e)?;
                WordPart::Arith(self.arena.alloc(new))
            }
            WordPart::Brace(be) => {
                let alternatives = self.words(be.alternatives)?;
                WordPart::Brace(self.arena.alloc(BraceExp {
                    alternatives,
                    ..*be
                }))
            }
            WordPart::ArrayLiteral(ws) => WordPart::ArrayLiteral(self.words(ws)?),
            _ => return None,
        })
    }

    fn param_op(&mut self, op: &ParamOp<'a>) -> Option<ParamOp<'a>> {
        Some(match *op {
            ParamOp::Default { colon, kind, word } => ParamOp::Default {
                colon,
                kind,
                word: self.word(&word)?,
            },
            ParamOp::RemovePrefix { longest, pattern } => ParamOp::RemovePrefix {
                longest,
                pattern: self.word(&pattern)?,
            },
            ParamOp::RemoveSuffix { longest, pattern } => ParamOp::RemoveSuffix {
                longest,
                pattern: self.word(&pattern)?,
            },
            ParamOp::Case { op, pattern } => ParamOp::Case {
                op,
                pattern: self.word(&pattern)?,
            },
            ParamOp::Replace {
                mode,
                pattern,
                replacement,
            } => {
                let p = self.word(&pattern);
                let r = replacement.and_then(|w| self.word(&w));
                if p.is_none() && r.is_none() {
                    return None;
                }
                ParamOp::Replace {
                    mode,
                    pattern: or(p, pattern),
                    replacement: r.or(replacement),
                }
            }
            ParamOp::Substring { offset, length } => {
                let o = self.word(&offset);
                let l = length.and_then(|w| self.word(&w));
                if o.is_none() && l.is_none() {
                    return None;
                }
                ParamOp::Substring {
                    offset: or(o, offset),
                    length: l.or(length),
                }
            }
            ParamOp::Transform(_) | ParamOp::PrefixNames(_) => return None,
        })
    }
}
