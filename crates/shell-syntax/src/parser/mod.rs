//! Recursive-descent parser for bash: lists, pipelines, simple and compound commands.
//!
//! Lexing is done on demand by the parser (bash's tokens depend on where the parser is:
//! reserved words only count in command position, `#` only at a word start, `)` ends a case
//! pattern...): the token-level reads live in [`lexer`], word-level scanning in [`word`],
//! heredoc bodies in [`heredoc`].
//! Every nesting step goes through [`Parser::enter`], which enforces the depth limit long before
//! the Rust stack could overflow; every scanning loop calls [`Parser::tick`] (work budget).

mod compound;
mod heredoc;
mod lexer;
mod param;
mod word;

use crate::ast::*;
use crate::error::{ErrorKind, Limits, SyntaxError};
use lexer::CLOSERS;
pub(crate) use lexer::{is_meta, PLAIN_STOP, WORD_SPECIAL};

pub(crate) type PResult<T> = Result<T, (ErrorKind, usize)>;

/// State shared by a parser and the sub-parsers it starts (backticks, heredoc bodies).
pub(crate) struct Shared<'a> {
    /// Where the tree is built (see [`crate::ast`]).
    pub arena: &'a bumpalo::Bump,
    pub limits: Limits,
    pub depth: usize,
    pub work: u64,
    pub heredocs: usize,
    /// Heredoc bodies read so far, by heredoc id.
    pub bodies: Vec<Option<(Word<'a>, bool)>>,
    /// Words of the simple commands being read, innermost command's on top: each command
    /// copies its own out at exact size (see [`exact`]).
    pub words: Vec<Word<'a>>,
}

struct PendingHeredoc {
    id: u32,
    delimiter: String,
    quoted: bool,
    strip_tabs: bool,
}

pub(crate) struct Parser<'a, 'b> {
    /// Text in the arena: literals are slices of it.
    src: &'a str,
    /// The bytes of `src` up to `end` (one bounds check per peek).
    b: &'a [u8],
    pos: usize,
    /// Exclusive end of the text this parser may read.
    end: usize,
    /// Added to every span (for sub-parsers over a different string).
    base: usize,
    sh: &'b mut Shared<'a>,
    pending: Vec<PendingHeredoc>,
    /// The last [`Parser::reserved`] answer and the position it was for: the parser asks
    /// several times at each command start (pipeline, compound, closer checks).
    reserved_memo: std::cell::Cell<(usize, Option<&'static str>)>,
}

/// The arena size for parsing `src`: one block sized for its tree (measured with the `arena_size`
/// example: 15 bytes per byte of a mixed script), so a large parse fills one block instead of
/// a chain of doubling ones. Only the pages the tree touches are ever mapped.
pub(crate) fn arena_estimate(src: &str, limits: &Limits) -> usize {
    let len = if src.len() > limits.max_input {
        0
    } else {
        src.len()
    };
    len.saturating_mul(16).saturating_add(1024)
}

/// Parse `src` into `arena`: the part bash would run plus the first error. The source is copied
/// into the arena first so the tree's literals can be slices of it.
pub(crate) fn parse_in<'a>(
    arena: &'a bumpalo::Bump,
    src: &str,
    limits: &Limits,
) -> (Script<'a>, Option<SyntaxError>) {
    if src.len() > limits.max_input {
        let err = SyntaxError {
            kind: ErrorKind::InputTooLarge {
                size: src.len(),
                limit: limits.max_input,
            },
            pos: 0,
            unparsed_from: 0,
        };
        return (Script::default(), Some(err));
    }
    let src: &'a str = arena.alloc_str(src);
    let mut sh = Shared {
        arena,
        limits: limits.clone(),
        depth: 0,
        work: 0,
        heredocs: 0,
        bodies: Vec::new(),
        words: Vec::new(),
    };
    let mut p = Parser::new(src, 0, src.len(), &mut sh);
    p.top_level()
}

impl<'a, 'b> Parser<'a, 'b> {
    pub(crate) fn new(src: &'a str, pos: usize, end: usize, sh: &'b mut Shared<'a>) -> Self {
        let end = end.min(src.len());
        Parser {
            src,
            b: &src.as_bytes()[..end],
            pos,
            end,
            base: 0,
            sh,
            pending: Vec::new(),
            reserved_memo: std::cell::Cell::new((usize::MAX, None)),
        }
    }

    // ---- arena ---------------------------------------------------------------------------

    /// `items` copied into the arena at exact size (an empty list takes no space).
    #[inline]
    pub(crate) fn slice<T: Copy>(&self, items: &[T]) -> &'a [T] {
        if items.is_empty() {
            &[]
        } else {
            self.sh.arena.alloc_slice_copy(items)
        }
    }

    /// `x` moved into the arena.
    #[inline]
    pub(crate) fn node<T: Copy>(&self, x: T) -> &'a T {
        self.sh.arena.alloc(x)
    }

    /// `s` copied into the arena (text that is not a slice of the source: unescaped literals).
    #[inline]
    pub(crate) fn text(&self, s: &str) -> &'a str {
        self.sh.arena.alloc_str(s)
    }

    /// A word's static value in the arena: the part itself for a one-part word (no copy).
    pub(crate) fn static_text(&self, w: &Word<'a>) -> Option<&'a str> {
        match w.parts {
            [WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s)] => Some(s),
            _ => w.static_value().map(|v| self.text(&v)),
        }
    }

    // ---- lists -------------------------------------------------------------------------

    /// Parse the whole input; on error keep the complete top-level commands before the line
    /// that failed (bash reads and runs a script one complete line at a time).
    fn top_level(&mut self) -> (Script<'a>, Option<SyntaxError>) {
        // About one top-level item per 64 bytes in real scripts: sizing up front saves the
        // copies of a growing vector of large items.
        let mut items: Vec<ListItem<'a>> = Vec::with_capacity((self.end - self.pos) / 64);
        let mut fill_from: Option<usize> = None;
        let mut complete = 0;
        let mut unparsed_from = 0;
        let result = (|| -> PResult<()> {
            loop {
                self.skip_blanks()?;
                match self.peek() {
                    None => {
                        complete = items.len();
                        return Ok(());
                    }
                    Some(b'\n') => {
                        self.newline()?;
                        complete = items.len();
                        unparsed_from = self.pos;
                        continue;
                    }
                    _ => {}
                }
                let heredocs_before = self.sh.heredocs;
                let item = self.list_item()?;
                let ends_line = item.terminator == Terminator::Newline;
                if self.sh.heredocs > heredocs_before && fill_from.is_none() {
                    fill_from = Some(items.len());
                }
                items.push(item);
                // Bodies are all read once no heredoc is pending: attach them now, walking
                // only the items that have heredocs (keeps the cost linear).
                if let Some(f) = fill_from.filter(|_| self.pending.is_empty()) {
                    heredoc::fill(self.sh.arena, &mut items[f..], &mut self.sh.bodies);
                    fill_from = None;
                }
                if ends_line {
                    complete = items.len();
                    unparsed_from = self.pos;
                } else if items.last().map(|i| i.terminator) == Some(Terminator::None) {
                    self.skip_blanks()?;
                    if !self.at_eof() {
                        return self.unexpected();
                    }
                }
            }
        })();
        if let Some(f) = fill_from {
            heredoc::fill(self.sh.arena, &mut items[f..], &mut self.sh.bodies);
        }
        let err = result.err().map(|(kind, pos)| {
            items.truncate(complete);
            SyntaxError {
                kind,
                pos,
                unparsed_from,
            }
        });
        let span = Span::new(
            0,
            if err.is_some() {
                unparsed_from
            } else {
                self.end
            },
        );
        let body = List {
            span,
            items: self.slice(&items),
        };
        (Script { body, span }, err)
    }

    /// One and/or list with its separator. A newline separator is consumed (heredocs read).
    fn list_item(&mut self) -> PResult<ListItem<'a>> {
        let start = self.pos;
        let and_or = self.and_or()?;
        self.skip_blanks()?;
        let terminator = match self.peek() {
            Some(b';') if !matches!(self.peek_at(1), Some(b';') | Some(b'&')) => {
                self.pos += 1;
                Terminator::Semi
            }
            Some(b'&') if self.peek_at(1) != Some(b'&') => {
                self.pos += 1;
                Terminator::Amp
            }
            Some(b'\n') => Terminator::Newline,
            _ => Terminator::None,
        };
        let span = self.span(start);
        if terminator == Terminator::Newline {
            self.newline()?;
        }
        Ok(ListItem {
            and_or,
            terminator,
            span,
        })
    }

    /// A compound list: items until a closing token (reserved closer, `)`, `;;`, end).
    fn list(&mut self) -> PResult<List<'a>> {
        self.enter()?;
        let start = self.pos;
        let mut items: smallvec::SmallVec<[ListItem<'a>; 2]> = smallvec::SmallVec::new();
        loop {
            self.skip_linebreaks()?;
            if self.at_closer() {
                break;
            }
            let item = self.list_item()?;
            let done = item.terminator == Terminator::None;
            items.push(item);
            if done {
                break;
            }
        }
        self.leave();
        Ok(List {
            items: self.slice(&items),
            span: self.span(start),
        })
    }

    /// A list that must contain at least one command (bash rejects empty bodies).
    fn nonempty_list(&mut self, what: &'static str) -> PResult<List<'a>> {
        let l = self.list()?;
        if l.items.is_empty() {
            if self.at_eof() {
                return self.err(ErrorKind::UnexpectedEof(what));
            }
            return self.unexpected();
        }
        Ok(l)
    }

    fn and_or(&mut self) -> PResult<AndOr<'a>> {
        let start = self.pos;
        let first = self.pipeline()?;
        let mut rest: smallvec::SmallVec<[(AndOrOp, Pipeline<'a>); 2]> = smallvec::SmallVec::new();
        loop {
            self.skip_blanks()?;
            let op = if self.starts_with("&&") {
                AndOrOp::And
            } else if self.starts_with("||") {
                AndOrOp::Or
            } else {
                break;
            };
            self.pos += 2;
            self.skip_linebreaks()?;
            rest.push((op, self.pipeline()?));
        }
        Ok(AndOr {
            first,
            rest: self.slice(&rest),
            span: self.span(start),
        })
    }

    fn pipeline(&mut self) -> PResult<Pipeline<'a>> {
        self.skip_blanks()?;
        let start = self.pos;
        let mut negations = 0;
        let mut time = None;
        loop {
            self.tick()?;
            match self.reserved() {
                Some("time") => {
                    // bash accepts `time time cmd` and `! time cmd`.
                    self.pos += 4;
                    self.skip_blanks()?;
                    let mut posix = time.is_some_and(|t: TimeFlags| t.posix);
                    if self.starts_with("-p") && self.peek_at(2).is_none_or(is_meta) {
                        self.pos += 2;
                        posix = true;
                        self.skip_blanks()?;
                    }
                    // bash's TIMEIGN: `time [-p] -- cmd` ignores the `--`.
                    if self.starts_with("--") && self.peek_at(2).is_none_or(is_meta) {
                        self.pos += 2;
                    }
                    time = Some(TimeFlags { posix });
                }
                Some("!") => {
                    self.pos += 1;
                    negations += 1;
                }
                _ => break,
            }
            self.skip_blanks()?;
        }
        let mut commands: smallvec::SmallVec<[PipeElem<'a>; 2]> = smallvec::SmallVec::new();
        // `time` and `!` may stand alone.
        if (time.is_some() || negations > 0) && self.at_pipeline_end() {
            return Ok(Pipeline {
                negations,
                time,
                commands: &[],
                span: self.span(start),
            });
        }
        loop {
            let command = self.command()?;
            self.skip_blanks()?;
            let pipe_stderr = self.starts_with("|&");
            if pipe_stderr || (self.peek() == Some(b'|') && self.peek_at(1) != Some(b'|')) {
                self.pos += if pipe_stderr { 2 } else { 1 };
                commands.push(PipeElem {
                    command,
                    pipe_stderr,
                });
                self.skip_linebreaks()?;
                if self.reserved() == Some("!") {
                    return self.unexpected();
                }
            } else {
                commands.push(PipeElem {
                    command,
                    pipe_stderr: false,
                });
                break;
            }
        }
        Ok(Pipeline {
            negations,
            time,
            commands: self.slice(&commands),
            span: self.span(start),
        })
    }

    /// Whether a bare `!` or `time` may end here (bash rejects `! &`, `time || x`).
    fn at_pipeline_end(&self) -> bool {
        match self.peek() {
            None | Some(b'\n') | Some(b';') | Some(b')') => true,
            _ => self.reserved().is_some_and(|r| CLOSERS.contains(&r)),
        }
    }

    // ---- commands ----------------------------------------------------------------------

    fn command(&mut self) -> PResult<Command<'a>> {
        self.enter()?;
        let r = self.command_inner();
        self.leave();
        r
    }

    fn command_inner(&mut self) -> PResult<Command<'a>> {
        self.skip_blanks()?;
        let start = self.pos;
        if let Some(kind) = self.compound_start() {
            let c = self.compound(kind, start)?;
            return Ok(Command::Compound(self.node(c)));
        }
        match self.reserved() {
            Some("function") => return self.function_keyword(start),
            Some("coproc") => return self.coproc(start),
            Some(r) if CLOSERS.contains(&r) || matches!(r, "]]" | "in" | "!") => {
                return self.unexpected()
            }
            _ => {}
        }
        match self.peek() {
            None => return self.err(ErrorKind::UnexpectedEof("a command")),
            Some(b'\n') | Some(b';') | Some(b')') | Some(b'|') => return self.unexpected(),
            Some(b'&') if self.peek_at(1) != Some(b'>') => return self.unexpected(),
            _ => {}
        }
        self.simple_command(start)
    }

    fn simple_command(&mut self, start: usize) -> PResult<Command<'a>> {
        let mut assignments: smallvec::SmallVec<[Assignment<'a>; 1]> = smallvec::SmallVec::new();
        let mut redirects: smallvec::SmallVec<[Redirect<'a>; 1]> = smallvec::SmallVec::new();
        let mut decl = false;
        // This command's words are `self.sh.words[mark..]`.
        let mark = self.sh.words.len();
        loop {
            self.tick()?;
            self.skip_blanks()?;
            let Some(c) = self.peek() else { break };
            match c {
                b'\n' | b';' | b'|' | b')' => break,
                b'&' if self.peek_at(1) != Some(b'>') => break,
                b'(' => {
                    let words = &self.sh.words[mark..];
                    let is_name = assignments.is_empty()
                        && redirects.is_empty()
                        && words.len() == 1
                        && words[0].static_value().is_some_and(|n| valid_funcname(&n));
                    if is_name {
                        let name = self.static_text(&self.sh.words[mark]).unwrap_or_default();
                        self.sh.words.truncate(mark);
                        return self.function_parens(start, name, false);
                    }
                    return self.unexpected();
                }
                _ => {}
            }
            // First-byte checks before the calls: this loop runs once per word.
            if matches!(c, b'0'..=b'9' | b'{' | b'<' | b'>' | b'&') {
                if let Some(r) = self.try_redirect()? {
                    redirects.push(r);
                    continue;
                }
            }
            let name_start = c.is_ascii_alphabetic() || c == b'_';
            let first = self.sh.words.len() == mark;
            if first {
                if name_start {
                    if let Some(a) = self.try_assignment()? {
                        assignments.push(a);
                        continue;
                    }
                }
            } else if decl && (c.is_ascii_alphanumeric() || c == b'_') {
                if let Some(w) = self.try_decl_array()? {
                    self.sh.words.push(w);
                    continue;
                }
            }
            let w = self.word(word::Mode::Normal)?;
            if first {
                decl = matches!(
                    w.parts,
                    [WordPart::Literal(n)]
                        if matches!(*n, "declare" | "typeset" | "local" | "export" | "readonly")
                );
            }
            self.sh.words.push(w);
        }
        if self.sh.words.len() == mark && assignments.is_empty() && redirects.is_empty() {
            return self.unexpected();
        }
        let words = self.slice(&self.sh.words[mark..]);
        self.sh.words.truncate(mark);
        Ok(Command::Simple(SimpleCommand {
            assignments: self.slice(&assignments),
            words,
            redirects: self.slice(&redirects),
            span: self.span(start),
        }))
    }

    /// `name=value` at the cursor (only before the command word).
    fn try_assignment(&mut self) -> PResult<Option<Assignment<'a>>> {
        let start = self.pos;
        let e = self.name_end(self.pos);
        if e == self.pos || self.b[self.pos].is_ascii_digit() {
            return Ok(None);
        }
        let name_end = e;
        let mut index = None;
        let mut p = e;
        if p < self.end && self.b[p] == b'[' {
            let Some(close) = self.find_bracket_close(p, true) else {
                return Ok(None);
            };
            let idx = self.sub(p + 1, close).word(word::Mode::Index)?;
            index = Some(idx);
            p = close + 1;
        }
        let append = p + 1 < self.end && self.b[p] == b'+' && self.b[p + 1] == b'=';
        if !(append || (p < self.end && self.b[p] == b'=')) {
            return Ok(None);
        }
        let name = &self.src[self.pos..name_end];
        self.pos = p + if append { 2 } else { 1 };
        let value = if self.peek() == Some(b'(') {
            AssignValue::Array(self.array_elements()?)
        } else {
            AssignValue::Scalar(self.word(word::Mode::Assign)?)
        };
        Ok(Some(Assignment {
            name,
            index,
            append,
            value,
            span: self.span(start),
        }))
    }

    /// `x=(a b)` as an argument of `declare`/`local`/...: kept as one word.
    fn try_decl_array(&mut self) -> PResult<Option<Word<'a>>> {
        let start = self.pos;
        let e = self.name_end(self.pos);
        if e == start {
            return Ok(None);
        }
        let mut p = e;
        if p < self.end && self.b[p] == b'+' {
            p += 1;
        }
        if !(p + 1 < self.end && self.b[p] == b'=' && self.b[p + 1] == b'(') {
            return Ok(None);
        }
        let prefix = &self.src[start..=p];
        self.pos = p + 1;
        let elems = self.array_elements()?;
        Ok(Some(Word {
            parts: self.slice(&[WordPart::Literal(prefix), WordPart::ArrayLiteral(elems)]),
            span: self.span(start),
        }))
    }

    /// `( elem ... )` of an array assignment; the cursor is on `(`.
    fn array_elements(&mut self) -> PResult<&'a [Word<'a>]> {
        self.enter()?;
        self.pos += 1;
        let mut elems: smallvec::SmallVec<[Word<'a>; 4]> = smallvec::SmallVec::new();
        loop {
            self.skip_linebreaks()?;
            match self.peek() {
                Some(b')') => {
                    self.pos += 1;
                    break;
                }
                None => return self.err(ErrorKind::Unterminated("array assignment")),
                Some(c) if is_meta(c) && !matches!(c, b'<' | b'>') => return self.unexpected(),
                _ => {}
            }
            let w = self.word(word::Mode::Normal)?;
            if w.parts.is_empty() {
                return self.unexpected();
            }
            elems.push(w);
        }
        self.leave();
        Ok(self.slice(&elems))
    }

    /// A redirection at the cursor, if one starts here.
    fn try_redirect(&mut self) -> PResult<Option<Redirect<'a>>> {
        let start = self.pos;
        let Some((p, fd, fd_var)) = self.redirect_start() else {
            return Ok(None);
        };
        let Some((op, len)) = self.redirect_operator(p, fd.is_some() || fd_var.is_some()) else {
            return Ok(None);
        };
        self.pos = p + len;
        self.skip_blanks()?;
        match self.peek() {
            None => return self.err(ErrorKind::UnexpectedEof("a redirection target")),
            Some(c)
                if is_meta(c) && !(matches!(c, b'<' | b'>') && self.peek_at(1) == Some(b'(')) =>
            {
                return self.unexpected()
            }
            _ => {}
        }
        // `>2>&1`: a number right before a redirection operator is that operator's fd, so
        // it cannot be this one's target.
        let digits = self.b[self.pos..self.end]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let dup = matches!(op, RedirOp::DupIn | RedirOp::DupOut);
        if !dup && digits > 0 && matches!(self.peek_at(digits), Some(b'<') | Some(b'>')) {
            return self.unexpected();
        }
        let target = self.word(word::Mode::Normal)?;
        if target.parts.is_empty() {
            return self.unexpected();
        }
        let mut heredoc = None;
        if matches!(op, RedirOp::Heredoc | RedirOp::HeredocStrip) {
            heredoc = Some(self.register_heredoc(&target, op == RedirOp::HeredocStrip)?);
        }
        Ok(Some(Redirect {
            fd,
            fd_var,
            op,
            target,
            heredoc,
            span: self.span(start),
        }))
    }
}

fn valid_funcname(n: &str) -> bool {
    // bash (outside POSIX mode) takes a slash in a function name: `a/b() { ...; }; a/b` runs it.
    !n.is_empty() && !n.contains(['$', '`', '\'', '"']) && !CLOSERS.contains(&n)
}
