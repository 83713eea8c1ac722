//! Words and their parts: quoting, parameter expansion, command/process/arithmetic
//! substitution, globs, extglobs, brace expansion and tilde prefixes.

use super::{is_meta, PResult, Parser};
use crate::ast::*;
use crate::error::ErrorKind;

/// Where a word is being read; decides what ends it and which parts are recognised.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mode {
    /// A command word or argument.
    Normal,
    /// The value of an assignment (no globbing or brace expansion; `~` after `:`).
    Assign,
    /// A `case` pattern.
    Pattern,
    /// A word inside `[[ ]]`.
    Test,
    /// The right side of `=~` inside `[[ ]]` (parentheses and `|` belong to the word).
    Regex,
    /// A word inside `${...}`, ended by one of `stops`.
    Param { stops: &'static [u8], in_dq: bool },
    /// A subscript (bounded sub-parser; only its end stops it).
    Index,
}

impl Mode {
    fn globs(self) -> bool {
        !matches!(self, Mode::Assign | Mode::Index)
    }
}

/// Literal text being collected for one part. While the text is one contiguous range of the
/// source it is only a range; it is copied once, at its final size, when the part ends (or
/// into `buf` when an unescaped character breaks the range). Growing a `String` piece by piece
/// cost a reallocation per piece and dominated the parse profile.
struct Lit {
    start: usize,
    end: usize,
    buf: String,
}

impl Lit {
    fn new() -> Self {
        Lit {
            start: 0,
            end: 0,
            buf: String::new(),
        }
    }

    /// Append `src[s..e]`.
    fn push_src(&mut self, src: &str, s: usize, e: usize) {
        if self.buf.is_empty() {
            if self.start == self.end {
                (self.start, self.end) = (s, e);
                return;
            }
            if self.end == s {
                self.end = e;
                return;
            }
            self.materialise(src);
        }
        self.buf.push_str(&src[s..e]);
    }

    /// Append a character that is not the source text at this point (an unescaped one).
    fn push(&mut self, src: &str, c: char) {
        self.materialise(src);
        self.buf.push(c);
    }

    fn materialise(&mut self, src: &str) {
        if self.start < self.end {
            self.buf.push_str(&src[self.start..self.end]);
            (self.start, self.end) = (0, 0);
        }
    }

    /// Push the collected text as a `Literal` part, if any: a slice of `src` when it is one
    /// range of it, else copied into `arena`.
    fn flush<'a>(
        &mut self,
        src: &'a str,
        arena: &'a bumpalo::Bump,
        parts: &mut impl Extend<WordPart<'a>>,
    ) {
        if !self.buf.is_empty() {
            self.materialise(src);
            parts.extend(Some(WordPart::Literal(arena.alloc_str(&self.buf))));
            self.buf.clear();
        } else if self.start < self.end {
            parts.extend(Some(WordPart::Literal(&src[self.start..self.end])));
            (self.start, self.end) = (0, 0);
        }
    }
}

/// The parts of a word or quoted string being read (copied into the arena when it ends).
pub(super) type PartBuf<'a> = smallvec::SmallVec<[WordPart<'a>; 4]>;

impl<'a, 'b> Parser<'a, 'b> {
    /// A sub-parser over `pos..end` of the same text, sharing limits and heredoc table.
    pub(super) fn sub(&mut self, pos: usize, end: usize) -> Parser<'a, '_> {
        let mut p = Parser::new(self.src, pos, end, self.sh);
        p.base = self.base;
        p
    }

    /// Read one word in `mode`. May return a word with no parts if a terminator is at the
    /// cursor; callers that need a word check that.
    pub(crate) fn word(&mut self, mode: Mode) -> PResult<Word<'a>> {
        let start = self.pos;
        if let Some(w) = self.plain_word(mode)? {
            return Ok(w);
        }
        let mut parts = PartBuf::new();
        let mut lit = Lit::new();
        let mut depth = 0usize;
        loop {
            self.tick()?;
            let Some(c) = self.peek() else { break };
            if self.word_ends(c, mode, &mut depth) {
                break;
            }
            match c {
                b'\\' => self.escaped_char(&mut lit),
                b'\'' if !matches!(mode, Mode::Param { in_dq: true, .. }) => {
                    lit.flush(self.src, self.sh.arena, &mut parts);
                    parts.push(WordPart::SingleQuoted(self.single_quoted()?));
                }
                b'"' => {
                    lit.flush(self.src, self.sh.arena, &mut parts);
                    self.pos += 1;
                    let inner = self.dq_parts(Some(b'"'))?;
                    parts.push(WordPart::DoubleQuoted(inner));
                }
                b'$' | b'`' => self.expansion(c, false, &mut parts, &mut lit)?,
                b'*' | b'?' | b'+' | b'@' | b'!'
                    if self.peek_at(1) == Some(b'(') && mode.globs() =>
                {
                    let p = self.extglob()?;
                    self.part_or_byte(p, &mut parts, &mut lit);
                }
                b'*' | b'?' if mode.globs() => {
                    lit.flush(self.src, self.sh.arena, &mut parts);
                    self.pos += 1;
                    parts.push(WordPart::Glob(if c == b'*' { "*" } else { "?" }));
                }
                b'[' if mode.globs() && !matches!(mode, Mode::Regex) => {
                    match self.find_bracket_close(self.pos, false) {
                        Some(close) if close > self.pos + 1 => {
                            lit.flush(self.src, self.sh.arena, &mut parts);
                            let raw = &self.src[self.pos..=close];
                            self.pos = close + 1;
                            parts.push(WordPart::Glob(raw));
                        }
                        _ => {
                            lit.push_src(self.src, self.pos, self.pos + 1);
                            self.pos += 1;
                        }
                    }
                }
                b'{' if mode == Mode::Normal => {
                    let p = self.brace()?;
                    self.part_or_byte(p, &mut parts, &mut lit);
                }
                b'~' if self.tilde_allowed(mode, start) => {
                    let p = self.tilde(mode);
                    self.part_or_byte(p, &mut parts, &mut lit);
                }
                b'<' | b'>' if self.peek_at(1) == Some(b'(') => {
                    lit.flush(self.src, self.sh.arena, &mut parts);
                    parts.push(self.process_subst()?);
                }
                _ => {
                    let s = self.pos;
                    self.pos += 1;
                    while let Some(c) = self.peek() {
                        if super::WORD_SPECIAL[c as usize] {
                            break;
                        }
                        self.pos += 1;
                    }
                    lit.push_src(self.src, s, self.pos);
                }
            }
        }
        lit.flush(self.src, self.sh.arena, &mut parts);
        Ok(Word {
            parts: self.slice(&parts),
            span: self.span(start),
        })
    }

    /// The fast path of [`Parser::word`]: most words are one run of plain bytes up to a word
    /// end, read as one literal part without the general loop.
    #[inline(always)]
    fn plain_word(&mut self, mode: Mode) -> PResult<Option<Word<'a>>> {
        let start = self.pos;
        if matches!(
            mode,
            Mode::Normal | Mode::Assign | Mode::Pattern | Mode::Test
        ) {
            let mut e = start;
            while e < self.end && !super::PLAIN_STOP[self.b[e] as usize] {
                e += 1;
            }
            let ends = e == self.end
                || (is_meta(self.b[e])
                    && !(mode == Mode::Normal
                        && matches!(self.b[e], b'<' | b'>')
                        && e + 1 < self.end
                        && self.b[e + 1] == b'('));
            if e > start && ends {
                self.pos = e;
                self.tick()?;
                let part = self.node(WordPart::Literal(&self.src[start..e]));
                return Ok(Some(Word {
                    parts: std::slice::from_ref(part),
                    span: self.span(start),
                }));
            }
        }
        Ok(None)
    }

    /// A backslash outside quotes: a line continuation, or the next character taken
    /// literally.
    fn escaped_char(&mut self, lit: &mut Lit) {
        self.pos += 1;
        match self.peek() {
            Some(b'\n') => self.pos += 1,
            None => lit.push(self.src, '\\'),
            Some(_) => {
                let ch = self.src[self.pos..].chars().next().unwrap_or('\\');
                lit.push_src(self.src, self.pos, self.pos + ch.len_utf8());
                self.pos += ch.len_utf8();
            }
        }
    }

    /// After probing a construct at the cursor (extglob, brace expansion, tilde): push the part
    /// it made, or, when there was none, take the cursor's byte as literal text.
    fn part_or_byte(&mut self, part: Option<WordPart<'a>>, parts: &mut PartBuf<'a>, lit: &mut Lit) {
        match part {
            Some(p) => {
                lit.flush(self.src, self.sh.arena, parts);
                parts.push(p);
            }
            None => {
                lit.push_src(self.src, self.pos, self.pos + 1);
                self.pos += 1;
            }
        }
    }

    fn word_ends(&self, c: u8, mode: Mode, depth: &mut usize) -> bool {
        match mode {
            Mode::Normal => {
                is_meta(c) && !(matches!(c, b'<' | b'>') && self.peek_at(1) == Some(b'('))
            }
            Mode::Assign | Mode::Pattern | Mode::Test => is_meta(c),
            Mode::Regex => match c {
                b'(' => {
                    *depth += 1;
                    false
                }
                b')' if *depth > 0 => {
                    *depth -= 1;
                    false
                }
                b' ' | b'\t' | b'\n' => *depth == 0,
                b')' | b';' | b'&' => true,
                _ => false,
            },
            Mode::Param { stops, .. } => stops.contains(&c),
            Mode::Index => false,
        }
    }

    fn tilde_allowed(&self, mode: Mode, start: usize) -> bool {
        match mode {
            Mode::Normal | Mode::Test => self.pos == start,
            Mode::Assign => self.pos == start || self.b[self.pos - 1] == b':',
            _ => false,
        }
    }

    fn tilde(&mut self, mode: Mode) -> Option<WordPart<'a>> {
        let s = self.pos + 1;
        let mut e = s;
        while e < self.end {
            let c = self.b[e];
            if c == b'/' || is_meta(c) || (mode == Mode::Assign && c == b':') {
                break;
            }
            if !(c.is_ascii_alphanumeric() || b"._-+".contains(&c)) {
                return None;
            }
            e += 1;
        }
        let user = &self.src[s..e];
        self.pos = e;
        Some(WordPart::Tilde(user))
    }

    pub(super) fn single_quoted(&mut self) -> PResult<&'a str> {
        let open = self.pos;
        self.pos += 1;
        let s = self.pos;
        while self.peek().is_some_and(|c| c != b'\'') {
            self.pos += 1;
        }
        if self.at_eof() {
            return Err((ErrorKind::Unterminated("single quote"), open + self.base));
        }
        let v = &self.src[s..self.pos];
        self.pos += 1;
        Ok(v)
    }

    /// Parts of a double-quoted string (cursor after the `"`), or of an unquoted heredoc body
    /// (`close == None`: runs to the end of this parser's text).
    pub(super) fn dq_parts(&mut self, close: Option<u8>) -> PResult<&'a [WordPart<'a>]> {
        self.enter()?;
        let open = self.pos.saturating_sub(1);
        let mut parts = PartBuf::new();
        let mut lit = Lit::new();
        loop {
            self.tick()?;
            let Some(c) = self.peek() else {
                if close.is_some() {
                    return Err((ErrorKind::Unterminated("double quote"), open + self.base));
                }
                break;
            };
            match c {
                b'"' if close == Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    let n = self.peek_at(1);
                    let special = match n {
                        Some(b'$') | Some(b'`') | Some(b'\\') | Some(b'\n') => true,
                        Some(b'"') => close == Some(b'"'),
                        _ => false,
                    };
                    if special {
                        if n != Some(b'\n') {
                            lit.push_src(self.src, self.pos + 1, self.pos + 2);
                        }
                        self.pos += 2;
                    } else {
                        lit.push_src(self.src, self.pos, self.pos + 1);
                        self.pos += 1;
                    }
                }
                b'$' | b'`' => self.expansion(c, true, &mut parts, &mut lit)?,
                _ => {
                    let s = self.pos;
                    self.pos += 1;
                    while self.peek().is_some_and(|c| !b"\"\\$`".contains(&c)) {
                        self.pos += 1;
                    }
                    lit.push_src(self.src, s, self.pos);
                }
            }
        }
        lit.flush(self.src, self.sh.arena, &mut parts);
        self.leave();
        Ok(self.slice(&parts))
    }

    /// At `$` or a backquote: push the expansion it starts (or a literal `$`).
    fn expansion(
        &mut self,
        c: u8,
        in_dq: bool,
        parts: &mut impl Extend<WordPart<'a>>,
        lit: &mut Lit,
    ) -> PResult<()> {
        let part = if c == b'`' {
            Some(self.backtick(in_dq)?)
        } else {
            self.dollar(in_dq)?
        };
        match part {
            Some(p) => {
                lit.flush(self.src, self.sh.arena, parts);
                parts.extend(Some(p));
            }
            None => lit.push_src(self.src, self.pos - 1, self.pos),
        }
        Ok(())
    }

    /// At `$`: the expansion it starts, or `None` for a literal `$` (cursor moved past it).
    fn dollar(&mut self, in_dq: bool) -> PResult<Option<WordPart<'a>>> {
        let start = self.pos;
        let Some(n) = self.peek_at(1) else {
            self.pos += 1;
            return Ok(None);
        };
        match n {
            b'{' => {
                self.pos += 2;
                let p = self.param_braced(start, in_dq)?;
                Ok(Some(WordPart::Param(self.node(p))))
            }
            b'(' => {
                if self.peek_at(2) == Some(b'(') {
                    if let Some(close) = self.arith_end(self.pos + 3) {
                        self.pos += 3;
                        let e = self.arith(b')', true)?;
                        debug_assert!(self.pos == close || self.pos > start);
                        self.pos += 2;
                        return Ok(Some(WordPart::Arith(self.node(e))));
                    }
                }
                self.pos += 2;
                let script = self.nested_script(start)?;
                Ok(Some(WordPart::CommandSubst(self.node(CommandSubst {
                    script,
                    backtick: false,
                    span: self.span(start),
                }))))
            }
            b'[' => {
                self.pos += 2;
                let e = self.arith(b']', false)?;
                self.pos += 1;
                Ok(Some(WordPart::Arith(self.node(e))))
            }
            b'\'' if !in_dq => {
                self.pos += 1;
                let mut v = self.ansi_c()?;
                // Bash keeps the decoded text as a C string: a NUL (`\x00`, `\0`, `\c@`,
                // `\u0000`) ends this part; the rest of the word still follows.
                if let Some(nul) = v.find('\0') {
                    v.truncate(nul);
                }
                Ok(Some(WordPart::AnsiC(self.text(&v))))
            }
            b'"' if !in_dq => {
                self.pos += 2;
                Ok(Some(WordPart::Locale(self.dq_parts(Some(b'"'))?)))
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                self.pos += 1;
                let s = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    self.pos += 1;
                }
                Ok(Some(self.simple_param(start, &self.src[s..self.pos])))
            }
            c if c.is_ascii_digit() || b"@*#?$!-".contains(&c) => {
                self.pos += 2;
                // A one-byte ASCII name: the source byte itself.
                let name = &self.src[self.pos - 1..self.pos];
                Ok(Some(self.simple_param(start, name)))
            }
            _ => {
                self.pos += 1;
                Ok(None)
            }
        }
    }

    fn simple_param(&self, start: usize, name: &'a str) -> WordPart<'a> {
        WordPart::Param(self.node(ParamExp {
            name,
            braced: false,
            length: false,
            indirect: false,
            index: None,
            op: None,
            span: self.span(start),
        }))
    }

    /// `( list )` after `$(`, `<(` or `>(`: cursor just after the `(`.
    fn nested_script(&mut self, start: usize) -> PResult<Script<'a>> {
        let body = self.list()?;
        self.skip_linebreaks()?;
        if self.peek() != Some(b')') {
            if self.at_eof() {
                return Err((ErrorKind::Unterminated("substitution"), start + self.base));
            }
            return self.unexpected();
        }
        self.pos += 1;
        Ok(Script {
            body,
            span: self.span(start),
        })
    }

    fn process_subst(&mut self) -> PResult<WordPart<'a>> {
        let start = self.pos;
        let output = self.peek() == Some(b'>');
        self.pos += 2;
        let script = self.nested_script(start)?;
        Ok(WordPart::ProcessSubst {
            output,
            script: self.node(script),
        })
    }

    /// For text starting at `from` (after `$((`): where the closing `))` is, if the whole
    /// thing is arithmetic rather than a command substitution starting with a subshell.
    pub(super) fn arith_end(&mut self, from: usize) -> Option<usize> {
        let save = self.pos;
        self.pos = from - 2;
        let r = self.arith_command_end();
        self.pos = save;
        r
    }

    /// Arithmetic text up to `close` at depth 0 (`))` when `double`). Leaves the cursor on
    /// the closing character.
    pub(super) fn arith(&mut self, close: u8, double: bool) -> PResult<ArithExpr<'a>> {
        self.enter()?;
        let start = self.pos;
        let mut parts = PartBuf::new();
        let mut lit = Lit::new();
        let mut depth = 0usize;
        loop {
            self.tick()?;
            let Some(c) = self.peek() else {
                return self.err(ErrorKind::Unterminated("arithmetic expression"));
            };
            if depth == 0 && c == close {
                if !double {
                    break;
                }
                if self.peek_at(1) == Some(b')') {
                    break;
                }
                return self.unexpected();
            }
            match c {
                b'(' | b'[' => {
                    depth += 1;
                    lit.push_src(self.src, self.pos, self.pos + 1);
                    self.pos += 1;
                }
                b')' | b']' => {
                    if depth == 0 {
                        return self.unexpected();
                    }
                    depth -= 1;
                    lit.push_src(self.src, self.pos, self.pos + 1);
                    self.pos += 1;
                }
                b'$' | b'`' => self.expansion(c, false, &mut parts, &mut lit)?,
                b'"' => {
                    lit.flush(self.src, self.sh.arena, &mut parts);
                    self.pos += 1;
                    let inner = self.dq_parts(Some(b'"'))?;
                    parts.push(WordPart::DoubleQuoted(inner));
                }
                b'\\' if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                _ => {
                    let s = self.pos;
                    self.pos += 1;
                    while self
                        .peek()
                        .is_some_and(|c| !b"()[]$`\"\\".contains(&c) && c != close)
                    {
                        self.pos += 1;
                    }
                    lit.push_src(self.src, s, self.pos);
                }
            }
        }
        lit.flush(self.src, self.sh.arena, &mut parts);
        self.leave();
        Ok(ArithExpr {
            raw: &self.src[start..self.pos],
            parts: self.slice(&parts),
            span: self.span(start),
        })
    }

    /// `` `...` ``: unescape the inner text and parse it as its own script.
    fn backtick(&mut self, in_dq: bool) -> PResult<WordPart<'a>> {
        let start = self.pos;
        let inner = self.until_close(b'`', "backquote", |p, c, inner| {
            if c == b'\\' {
                let n = p.peek_at(1);
                match n {
                    Some(b'$') | Some(b'`') | Some(b'\\') => {
                        inner.push(n.unwrap_or(b'\\') as char);
                        p.pos += 2;
                    }
                    Some(b'"') if in_dq => {
                        inner.push('"');
                        p.pos += 2;
                    }
                    _ => {
                        inner.push('\\');
                        p.pos += 1;
                    }
                }
            } else {
                let s = p.pos;
                while p.peek().is_some_and(|c| c != b'`' && c != b'\\') {
                    p.pos += 1;
                }
                inner.push_str(&p.src[s..p.pos]);
            }
        })?;
        self.enter()?;
        let base = self.base + start + 1;
        let inner: &'a str = self.text(&inner);
        let script = {
            let mut p = Parser::new(inner, 0, inner.len(), self.sh);
            p.base = base;
            let body = p.list()?;
            p.skip_linebreaks()?;
            if !p.at_eof() {
                return p.unexpected();
            }
            Script {
                span: Span::new(base, base + inner.len()),
                body,
            }
        };
        self.leave();
        Ok(WordPart::CommandSubst(self.node(CommandSubst {
            script,
            backtick: true,
            span: self.span(start),
        })))
    }

    /// `?(...)`-style extglob at the cursor, if its parenthesis closes.
    fn extglob(&mut self) -> PResult<Option<WordPart<'a>>> {
        let op = self.b[self.pos] as char;
        let Some(i) = self.closing(self.pos + 1, *b"()", b"\n", true)? else {
            return Ok(None);
        };
        let pattern = &self.src[self.pos + 2..i];
        self.pos = i + 1;
        Ok(Some(WordPart::ExtGlob { op, pattern }))
    }

    /// Brace expansion at `{`, if the braces close within the word and hold a comma or a
    /// sequence.
    fn brace(&mut self) -> PResult<Option<WordPart<'a>>> {
        let open = self.pos;
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut i = open;
        let mut close = None;
        while i < self.end {
            self.tick()?;
            let c = self.b[i];
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                b'\\' => i += 1,
                b'\'' | b'"' => {
                    i += 1;
                    while i < self.end && self.b[i] != c {
                        i += 1;
                    }
                }
                _ if is_meta(c) => return Ok(None),
                _ => {}
            }
            i += 1;
        }
        let Some(close) = close else { return Ok(None) };
        let inner = &self.src[open + 1..close];
        let raw = &self.src[open..=close];
        if commas.is_empty() {
            if !is_sequence(inner) {
                return Ok(None);
            }
            let arena = self.sh.arena;
            let alternatives: smallvec::SmallVec<[Word<'a>; 3]> = inner
                .split("..")
                .map(|s| Word::literal(arena, s, Span::default()))
                .collect();
            let alternatives = self.slice(&alternatives);
            self.pos = close + 1;
            return Ok(Some(WordPart::Brace(self.node(BraceExp {
                raw,
                alternatives,
                sequence: true,
            }))));
        }
        self.enter()?;
        let mut alternatives = Vec::new();
        let mut s = open + 1;
        for e in commas.into_iter().chain(std::iter::once(close)) {
            let w = self.sub(s, e).word(Mode::Normal)?;
            alternatives.push(w);
            s = e + 1;
        }
        self.leave();
        self.pos = close + 1;
        let alternatives = self.slice(&alternatives);
        Ok(Some(WordPart::Brace(self.node(BraceExp {
            raw,
            alternatives,
            sequence: false,
        }))))
    }
}

/// `a..z`, `1..10`, `1..10..2`
fn is_sequence(s: &str) -> bool {
    let parts: Vec<&str> = s.split("..").collect();
    if !(parts.len() == 2 || parts.len() == 3) {
        return false;
    }
    let int = |x: &str| {
        let x = x.strip_prefix('-').unwrap_or(x);
        !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit())
    };
    let ch = |x: &str| x.len() == 1 && x.bytes().all(|c| c.is_ascii_alphabetic());
    let ends_ok = (int(parts[0]) && int(parts[1])) || (ch(parts[0]) && ch(parts[1]));
    ends_ok && (parts.len() == 2 || int(parts[2]))
}
