//! The lexer: bash's tokens as the parser asks for them.
//!
//! Bash has no separate token stream: what a byte means depends on where the parser is
//! (reserved words count only in command position, `#` starts a comment only at a word start,
//! `)` ends a case pattern). So, as mvdan/sh keeps `lexer.go` beside `parser.go`, this module
//! holds the cursor and the token-level reads the parser calls on demand: blanks, comments and
//! newlines, reserved words, redirection operators, bracket subscripts, and the byte classes
//! the word scanner uses. Every step charges the work budget ([`Parser::tick`]) and every
//! nesting step goes through [`Parser::enter`] (depth limit).

use super::{PResult, Parser};
use crate::ast::*;
use crate::error::ErrorKind;

/// Reserved words that end a list (and cannot name a function).
pub(super) const CLOSERS: &[&str] = &["then", "else", "elif", "fi", "do", "done", "esac", "}"];

impl<'a> Parser<'a, '_> {
    #[inline(always)]
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }
    #[inline(always)]
    pub(super) fn peek_at(&self, off: usize) -> Option<u8> {
        self.b.get(self.pos + off).copied()
    }
    pub(super) fn starts_with(&self, s: &str) -> bool {
        self.b[self.pos..self.end].starts_with(s.as_bytes())
    }
    pub(super) fn at_eof(&self) -> bool {
        self.pos >= self.end
    }
    pub(super) fn span(&self, start: usize) -> Span {
        Span::new(start + self.base, self.pos + self.base)
    }
    pub(super) fn err<T>(&self, kind: ErrorKind) -> PResult<T> {
        Err((kind, self.pos + self.base))
    }
    /// One more unit of work against [`Limits::max_work`](crate::Limits).
    #[inline]
    pub(super) fn tick(&mut self) -> PResult<()> {
        self.sh.work += 1;
        self.within(self.sh.work, self.sh.limits.max_work, |limit| {
            ErrorKind::WorkBudget { limit }
        })
    }
    /// One level deeper, against [`Limits::max_depth`](crate::Limits).
    pub(super) fn enter(&mut self) -> PResult<()> {
        self.sh.depth += 1;
        self.within(self.sh.depth, self.sh.limits.max_depth, |limit| {
            ErrorKind::TooDeep { limit }
        })
    }
    /// `Ok` while `count` is within `limit`, else the error `kind(limit)` here.
    #[inline]
    fn within<N: PartialOrd>(&self, count: N, limit: N, kind: fn(N) -> ErrorKind) -> PResult<()> {
        if count > limit {
            return self.err(kind(limit));
        }
        Ok(())
    }
    /// The index of the `close` byte matching the `open` one at `at` (nested pairs counted),
    /// one unit of work per byte; `None` when a byte of `stop` or the end comes first. With
    /// `escapes`, a backslash hides the byte after it.
    pub(super) fn closing(
        &mut self,
        at: usize,
        [open, close]: [u8; 2],
        stop: &[u8],
        escapes: bool,
    ) -> PResult<Option<usize>> {
        let mut depth = 0usize;
        let mut i = at;
        while i < self.end {
            self.tick()?;
            match self.b[i] {
                b if b == open => depth += 1,
                b if b == close => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(Some(i));
                    }
                }
                b'\\' if escapes => i += 1,
                b if stop.contains(&b) => return Ok(None),
                _ => {}
            }
            i += 1;
        }
        Ok(None)
    }
    /// The text of a construct from its opening byte at the cursor to its `close` byte (both
    /// skipped): `step` reads each other byte `c` at the cursor, advancing it, into the text.
    pub(super) fn until_close(
        &mut self,
        close: u8,
        what: &'static str,
        mut step: impl FnMut(&mut Self, u8, &mut String),
    ) -> PResult<String> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let c = self.inside(open, what)?;
            if c == close {
                self.pos += 1;
                return Ok(out);
            }
            step(self, c, &mut out);
        }
    }
    /// The byte at the cursor inside a construct opened at `open` (one unit of work); the end
    /// of the input there is the error `Unterminated(what)` at the opening.
    pub(super) fn inside(&mut self, open: usize, what: &'static str) -> PResult<u8> {
        self.tick()?;
        self.peek()
            .ok_or((ErrorKind::Unterminated(what), open + self.base))
    }
    pub(super) fn leave(&mut self) {
        self.sh.depth = self.sh.depth.saturating_sub(1);
    }
    pub(super) fn unexpected<T>(&self) -> PResult<T> {
        match self.token_text() {
            Some(t) => self.err(ErrorKind::UnexpectedToken(t)),
            None => self.err(ErrorKind::UnexpectedEof("a command")),
        }
    }
    /// A short rendering of the token at the cursor, for error messages.
    pub(super) fn token_text(&self) -> Option<String> {
        let c = self.peek()?;
        for op in [
            ";;&", ";;", ";&", "&&", "||", "|&", "&>", ">>", "<<", "((", "))",
        ] {
            if self.starts_with(op) {
                return Some(op.to_string());
            }
        }
        if c == b'\n' {
            return Some("newline".into());
        }
        if b";&|()<>".contains(&c) {
            return Some((c as char).to_string());
        }
        let mut e = self.pos;
        while e < self.end && !is_meta(self.b[e]) {
            e += 1;
        }
        Some(self.src[self.pos..e.max(self.pos + 1).min(self.end)].to_string())
    }

    /// Skip spaces, tabs, backslash-newlines and a comment (not the newline ending it).
    /// Called at every token boundary, so the nothing-to-skip case is kept inline.
    #[inline(always)]
    pub(super) fn skip_blanks(&mut self) -> PResult<()> {
        let from = self.pos;
        while let Some(b' ' | b'\t') = self.peek() {
            self.pos += 1;
        }
        self.sh.work += (self.pos - from) as u64;
        match self.peek() {
            Some(b'\\' | b'#') => self.skip_blank_run(),
            _ => Ok(()),
        }
    }

    #[inline(never)]
    fn skip_blank_run(&mut self) -> PResult<()> {
        let from = self.pos;
        loop {
            match self.peek() {
                Some(b' ') | Some(b'\t') => self.pos += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                Some(b'#') => {
                    self.pos = self.b[self.pos..self.end]
                        .iter()
                        .position(|&c| c == b'\n')
                        .map_or(self.end, |i| self.pos + i);
                }
                _ => break,
            }
        }
        // One unit of work per byte skipped, charged once.
        self.sh.work += (self.pos - from) as u64;
        self.tick()
    }

    /// Consume one newline token and read any heredoc bodies that were waiting for it.
    pub(super) fn newline(&mut self) -> PResult<()> {
        self.pos += 1;
        if !self.pending.is_empty() {
            self.read_heredocs()?;
        }
        Ok(())
    }

    /// Skip blanks, comments and newlines.
    pub(super) fn skip_linebreaks(&mut self) -> PResult<()> {
        loop {
            self.skip_blanks()?;
            if self.peek() == Some(b'\n') {
                self.newline()?;
            } else {
                return Ok(());
            }
        }
    }

    /// The reserved word at the cursor, if a plain word equal to one starts here.
    pub(super) fn reserved(&self) -> Option<&'static str> {
        let (at, memo) = self.reserved_memo.get();
        if at == self.pos {
            return memo;
        }
        let r = self.reserved_uncached();
        self.reserved_memo.set((self.pos, r));
        r
    }

    fn reserved_uncached(&self) -> Option<&'static str> {
        // Cheap rejection on the first byte: most command words start with no reserved
        // word's first letter.
        let first = self.peek()?;
        if !RESERVED_START[first as usize] {
            return None;
        }
        // No reserved word is longer than "function".
        let limit = self.end.min(self.pos + 9);
        let mut e = self.pos;
        while e < limit && !RESERVED_STOP[self.b[e] as usize] {
            e += 1;
        }
        if e < self.end && !is_meta(self.b[e]) {
            return None;
        }
        Some(match &self.b[self.pos..e] {
            b"if" => "if",
            b"then" => "then",
            b"else" => "else",
            b"elif" => "elif",
            b"fi" => "fi",
            b"do" => "do",
            b"done" => "done",
            b"case" => "case",
            b"esac" => "esac",
            b"while" => "while",
            b"until" => "until",
            b"for" => "for",
            b"select" => "select",
            b"function" => "function",
            b"time" => "time",
            b"coproc" => "coproc",
            b"in" => "in",
            b"{" => "{",
            b"}" => "}",
            b"!" => "!",
            b"[[" => "[[",
            b"]]" => "]]",
            _ => return None,
        })
    }

    #[inline]
    pub(super) fn at_closer(&self) -> bool {
        match self.peek() {
            None => true,
            Some(b')') => true,
            Some(b';') => self.peek_at(1) == Some(b';') || self.peek_at(1) == Some(b'&'),
            _ => self.reserved().is_some_and(|r| CLOSERS.contains(&r)),
        }
    }

    pub(super) fn eat_reserved(&mut self, w: &str) -> PResult<bool> {
        self.skip_blanks()?;
        if self.reserved() == Some(w) || (w == "in" && self.reserved() == Some("in")) {
            self.pos += w.len();
            Ok(true)
        } else {
            Ok(false)
        }
    }

    pub(super) fn expect_reserved(&mut self, w: &'static str) -> PResult<()> {
        if self.eat_reserved(w)? {
            Ok(())
        } else if self.at_eof() {
            self.err(ErrorKind::UnexpectedEof(w))
        } else {
            self.unexpected()
        }
    }

    /// The end of the name (letters, digits, `_`) that starts at `from`.
    pub(super) fn name_end(&self, from: usize) -> usize {
        let mut e = from;
        while e < self.end && (self.b[e].is_ascii_alphanumeric() || self.b[e] == b'_') {
            e += 1;
        }
        e
    }

    /// Index of the `]` matching the `[` at `open`, within one word.
    pub(super) fn find_bracket_close(&self, open: usize, subscript: bool) -> Option<usize> {
        let mut depth = 0usize;
        let mut i = open;
        while i < self.end {
            match self.b[i] {
                b'[' => depth += 1,
                b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                b'\\' => i += 1,
                // Quotes inside a subscript may hold blanks and newlines (`a["x y"]=1`).
                b'\'' => {
                    i += 1;
                    while i < self.end && self.b[i] != b'\'' {
                        i += 1;
                    }
                }
                b'"' => {
                    i += 1;
                    while i < self.end && self.b[i] != b'"' {
                        if self.b[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                // Blanks belong to an assignment's subscript, as in bash's lexer (`a[ 1 ]=2 rm
                // x` is one assignment word, which bash reports invalid, then it runs `rm`);
                // they end a glob's bracket (`[ -f x ]`).
                b' ' | b'\t' if subscript => {}
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')' => {
                    return None
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// Where a redirection's operator starts and the fd written before it (`2>`, `{fd}>`), if
    /// a redirection can start at the cursor.
    pub(super) fn redirect_start(&self) -> Option<(usize, Option<u32>, Option<&'a str>)> {
        // Runs before every word: reject plain words on their first byte.
        if !self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'{' | b'<' | b'>' | b'&'))
        {
            return None;
        }
        let mut p = self.pos;
        let mut fd = None;
        let mut fd_var = None;
        while p < self.end && self.b[p].is_ascii_digit() {
            p += 1;
        }
        if p > self.pos {
            if p < self.end && matches!(self.b[p], b'<' | b'>') {
                fd = Some(self.src[self.pos..p].parse::<u32>().ok()?);
            } else {
                return None;
            }
        } else if self.peek() == Some(b'{') {
            let e = self.name_end(p + 1);
            if e > p + 1
                && e + 1 < self.end
                && self.b[e] == b'}'
                && matches!(self.b[e + 1], b'<' | b'>')
            {
                fd_var = Some(&self.src[p + 1..e]);
                p = e + 1;
            } else {
                return None;
            }
        }
        Some((p, fd, fd_var))
    }

    /// The redirection operator at `p` and its length; `numbered` when an fd was written
    /// before it (`&>` takes none). Process substitutions (`<(`, `>(`) are words, not operators.
    pub(super) fn redirect_operator(&self, p: usize, numbered: bool) -> Option<(RedirOp, usize)> {
        let rest = &self.b[p..self.end];
        let (text, op) = REDIRECT_OPERATORS
            .iter()
            .find(|(text, _)| rest.starts_with(text))?;
        if numbered && text[0] == b'&' {
            return None;
        }
        Some(((*op)?, text.len()))
    }
}

/// The redirection operators, each before any operator it is a prefix of; `None` for the
/// process substitutions (`<(`, `>(`), which start words.
const REDIRECT_OPERATORS: &[(&[u8], Option<RedirOp>)] = &[
    (b"<<<", Some(RedirOp::HereString)),
    (b"<<-", Some(RedirOp::HeredocStrip)),
    (b"<<", Some(RedirOp::Heredoc)),
    (b"<&", Some(RedirOp::DupIn)),
    (b"<>", Some(RedirOp::ReadWrite)),
    (b"<(", None),
    (b"<", Some(RedirOp::In)),
    (b">>", Some(RedirOp::Append)),
    (b">&", Some(RedirOp::DupOut)),
    (b">|", Some(RedirOp::Clobber)),
    (b">(", None),
    (b">", Some(RedirOp::Out)),
    (b"&>>", Some(RedirOp::AppendOutErr)),
    (b"&>", Some(RedirOp::OutErr)),
];

/// First bytes of the reserved words.
static RESERVED_START: [bool; 256] = byte_table(b"itefdcwus{}![]");

/// Bytes that end the scan for a reserved word: word ends, quotes and expansions.
static RESERVED_STOP: [bool; 256] = byte_table(b" \t\n;&|()<>\"'\\$`");

/// Bytes at which a plain word (one unquoted literal, see [`Parser::word`]) stops: word ends
/// and everything that starts a quote, expansion, glob, brace or tilde in some mode.
pub(crate) static PLAIN_STOP: [bool; 256] = byte_table(b" \t\n;&|()<>\\'\"$`*?[{~+@!");

const fn byte_table(bytes: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
}

/// Bytes at which the literal fast path in [`Parser::word`] stops to look closer.
pub(crate) static WORD_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let special = b" \t\n;&|()<>\\'\"$`*?[{~+@!}:/]=,";
    let mut i = 0;
    while i < special.len() {
        t[special[i] as usize] = true;
        i += 1;
    }
    t
};

/// Bytes that end an unquoted word.
pub(crate) fn is_meta(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}
