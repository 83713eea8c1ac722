//! Compound commands: groups, subshells, `if`, loops, `case`, `[[ ]]`, `(( ))`, functions,
//! `coproc`.

use super::word::Mode;
use super::{is_meta, PResult, Parser};
use crate::ast::*;
use crate::error::ErrorKind;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    Brace,
    Subshell,
    Arith,
    If,
    While,
    Until,
    For,
    Select,
    Case,
    Test,
}

impl<'a, 'b> Parser<'a, 'b> {
    /// Which compound command starts at the cursor, if any.
    pub(super) fn compound_start(&mut self) -> Option<Start> {
        if self.starts_with("((") && self.arith_command_end().is_some() {
            return Some(Start::Arith);
        }
        if self.peek() == Some(b'(') {
            return Some(Start::Subshell);
        }
        Some(match self.reserved()? {
            "{" => Start::Brace,
            "if" => Start::If,
            "while" => Start::While,
            "until" => Start::Until,
            "for" => Start::For,
            "select" => Start::Select,
            "case" => Start::Case,
            "[[" => Start::Test,
            _ => return None,
        })
    }

    /// For `((` at the cursor: the index of the closing `))` if this is arithmetic (bash
    /// falls back to nested subshells otherwise).
    pub(super) fn arith_command_end(&mut self) -> Option<usize> {
        let mut depth = 0usize;
        let mut i = self.pos + 2;
        while i < self.end {
            self.sh.work += 1;
            match self.b[i] {
                b'(' => depth += 1,
                b')' => {
                    if depth == 0 {
                        return (i + 1 < self.end && self.b[i + 1] == b')').then_some(i);
                    }
                    depth -= 1;
                }
                b'\\' => i += 1,
                b'\'' | b'"' => {
                    let q = self.b[i];
                    i += 1;
                    while i < self.end && self.b[i] != q {
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    pub(super) fn compound(&mut self, kind: Start, start: usize) -> PResult<CompoundCommand<'a>> {
        let kind = match kind {
            Start::Brace => {
                self.pos += 1;
                let body = self.nonempty_list("`}`")?;
                self.expect_reserved("}")?;
                CompoundKind::Brace(body)
            }
            Start::Subshell => {
                self.pos += 1;
                let body = self.nonempty_list("`)`")?;
                self.expect_char(b')', "`)`")?;
                CompoundKind::Subshell(body)
            }
            Start::Arith => {
                self.pos += 2;
                let e = self.arith(b')', true)?;
                self.pos += 2;
                CompoundKind::Arith(e)
            }
            Start::If => self.if_clause()?,
            Start::While | Start::Until => {
                self.pos += 5; // `while` and `until` have the same length
                let condition = self.nonempty_list("`do`")?;
                self.expect_reserved("do")?;
                let body = self.nonempty_list("`done`")?;
                self.expect_reserved("done")?;
                CompoundKind::While(WhileLoop {
                    until: kind == Start::Until,
                    condition,
                    body,
                })
            }
            Start::For | Start::Select => self.for_clause(kind == Start::Select)?,
            Start::Case => self.case_clause()?,
            Start::Test => {
                self.pos += 2;
                CompoundKind::Test(self.test_words()?)
            }
        };
        let redirects = self.trailing_redirects()?;
        Ok(CompoundCommand {
            kind,
            redirects,
            span: self.span(start),
        })
    }

    pub(super) fn expect_char(&mut self, c: u8, what: &'static str) -> PResult<()> {
        self.skip_linebreaks()?;
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else if self.at_eof() {
            self.err(ErrorKind::UnexpectedEof(what))
        } else {
            self.unexpected()
        }
    }

    /// Redirections after a compound command.
    pub(super) fn trailing_redirects(&mut self) -> PResult<&'a [Redirect<'a>]> {
        let mut out: smallvec::SmallVec<[Redirect<'a>; 1]> = smallvec::SmallVec::new();
        loop {
            self.skip_blanks()?;
            match self.try_redirect()? {
                Some(r) => out.push(r),
                None => break,
            }
        }
        // Anything else but an operator or a closer after a compound command is an error.
        match self.peek() {
            None => {}
            Some(c) if is_meta(c) && c != b'(' => {}
            _ if self.at_closer() => {}
            _ => return self.unexpected(),
        }
        Ok(self.slice(&out))
    }

    fn if_clause(&mut self) -> PResult<CompoundKind<'a>> {
        self.pos += 2;
        let mut branches: smallvec::SmallVec<[(List<'a>, List<'a>); 2]> = smallvec::SmallVec::new();
        let mut else_body = None;
        loop {
            let cond = self.nonempty_list("`then`")?;
            self.expect_reserved("then")?;
            let body = self.nonempty_list("`fi`")?;
            branches.push((cond, body));
            if self.eat_reserved("elif")? {
                continue;
            }
            if self.eat_reserved("else")? {
                else_body = Some(self.nonempty_list("`fi`")?);
            }
            self.expect_reserved("fi")?;
            break;
        }
        Ok(CompoundKind::If(IfClause {
            branches: self.slice(&branches),
            else_body,
        }))
    }

    fn for_clause(&mut self, select: bool) -> PResult<CompoundKind<'a>> {
        self.pos += if select { 6 } else { 3 };
        self.skip_blanks()?;
        if !select && self.starts_with("((") {
            self.pos += 2;
            let init = self.arith(b';', false)?;
            self.pos += 1;
            let condition = self.arith(b';', false)?;
            self.pos += 1;
            let step = self.arith(b')', true)?;
            self.pos += 2;
            self.skip_blanks()?;
            if self.peek() == Some(b';') {
                self.pos += 1;
            }
            let body = self.loop_body()?;
            return Ok(CompoundKind::ArithFor(self.node(ArithFor {
                init,
                condition,
                step,
                body,
            })));
        }
        // bash checks the name only at run time (`for 1x in` parses).
        if self.peek().is_none_or(is_meta) {
            return if self.at_eof() {
                self.err(ErrorKind::UnexpectedEof("a loop variable"))
            } else {
                self.unexpected()
            };
        }
        let name_start = self.pos;
        let name_word = self.word(Mode::Normal)?;
        let var = match self.static_text(&name_word) {
            Some(v) => v,
            None => &self.src[name_start..self.pos],
        };
        self.skip_linebreaks()?;
        let mut items = None;
        if self.eat_reserved("in")? {
            let mut words: smallvec::SmallVec<[Word<'a>; 4]> = smallvec::SmallVec::new();
            loop {
                self.skip_blanks()?;
                match self.peek() {
                    Some(b';') | Some(b'\n') => break,
                    None => return self.err(ErrorKind::UnexpectedEof("`do`")),
                    Some(c) if is_meta(c) => return self.unexpected(),
                    _ => words.push(self.word(Mode::Normal)?),
                }
            }
            items = Some(self.slice(&words));
            if self.peek() == Some(b';') {
                self.pos += 1;
            }
        } else if self.peek() == Some(b';') {
            self.pos += 1;
        }
        let body = self.loop_body()?;
        let f = ForLoop { var, items, body };
        Ok(if select {
            CompoundKind::Select(f)
        } else {
            CompoundKind::For(f)
        })
    }

    /// `do list done` (or bash's `{ list }` alternative).
    fn loop_body(&mut self) -> PResult<List<'a>> {
        self.skip_linebreaks()?;
        if self.reserved() == Some("{") {
            self.pos += 1;
            let body = self.nonempty_list("`}`")?;
            self.expect_reserved("}")?;
            return Ok(body);
        }
        self.expect_reserved("do")?;
        let body = self.nonempty_list("`done`")?;
        self.expect_reserved("done")?;
        Ok(body)
    }

    fn case_clause(&mut self) -> PResult<CompoundKind<'a>> {
        self.pos += 4;
        self.skip_blanks()?;
        if self.peek().is_none_or(is_meta) {
            return if self.at_eof() {
                self.err(ErrorKind::UnexpectedEof("a case word"))
            } else {
                self.unexpected()
            };
        }
        let subject = self.word(Mode::Normal)?;
        self.skip_linebreaks()?;
        self.expect_reserved("in")?;
        let mut arms: smallvec::SmallVec<[CaseArm<'a>; 4]> = smallvec::SmallVec::new();
        loop {
            self.tick()?;
            self.skip_linebreaks()?;
            if self.eat_reserved("esac")? {
                break;
            }
            if self.at_eof() {
                return self.err(ErrorKind::UnexpectedEof("`esac`"));
            }
            let arm_start = self.pos;
            if self.peek() == Some(b'(') {
                self.pos += 1;
                self.skip_blanks()?;
            }
            let mut patterns: smallvec::SmallVec<[Word<'a>; 2]> = smallvec::SmallVec::new();
            loop {
                self.skip_blanks()?;
                match self.peek() {
                    Some(c) if is_meta(c) => return self.unexpected(),
                    None => return self.err(ErrorKind::UnexpectedEof("a case pattern")),
                    _ => {}
                }
                patterns.push(self.word(Mode::Pattern)?);
                self.skip_blanks()?;
                match self.peek() {
                    Some(b'|') => self.pos += 1,
                    Some(b')') => {
                        self.pos += 1;
                        break;
                    }
                    None => return self.err(ErrorKind::UnexpectedEof("`)`")),
                    _ => return self.unexpected(),
                }
            }
            let body = self.list()?;
            self.skip_linebreaks()?;
            let terminator = if self.starts_with(";;&") {
                self.pos += 3;
                CaseTerminator::Continue
            } else if self.starts_with(";;") {
                self.pos += 2;
                CaseTerminator::Break
            } else if self.starts_with(";&") {
                self.pos += 2;
                CaseTerminator::FallThrough
            } else {
                CaseTerminator::None
            };
            arms.push(CaseArm {
                patterns: self.slice(&patterns),
                body,
                terminator,
                span: self.span(arm_start),
            });
            if terminator == CaseTerminator::None {
                self.skip_linebreaks()?;
                self.expect_reserved("esac")?;
                break;
            }
        }
        Ok(CompoundKind::Case(CaseClause {
            subject,
            arms: self.slice(&arms),
        }))
    }

    /// Words of `[[ ... ]]` up to and including `]]`.
    fn test_words(&mut self) -> PResult<&'a [Word<'a>]> {
        let mut words: smallvec::SmallVec<[Word<'a>; 8]> = smallvec::SmallVec::new();
        let mut regex_next = false;
        loop {
            self.tick()?;
            self.skip_linebreaks()?;
            let start = self.pos;
            let Some(c) = self.peek() else {
                return self.err(ErrorKind::UnexpectedEof("`]]`"));
            };
            if self.reserved() == Some("]]") {
                self.pos += 2;
                return Ok(self.slice(&words));
            }
            if regex_next && !matches!(c, b'&' | b'|' | b')') {
                words.push(self.word(Mode::Regex)?);
                regex_next = false;
                continue;
            }
            let op = ["&&", "||", "(", ")", "<", ">", "!"]
                .into_iter()
                .find(|op| self.starts_with(op));
            if let Some(op) = op {
                if op == "!" && !self.peek_at(1).is_none_or(is_meta) {
                    words.push(self.word(Mode::Test)?);
                    continue;
                }
                self.pos += op.len();
                words.push(Word::literal(self.sh.arena, op, self.span(start)));
                continue;
            }
            if matches!(c, b';' | b'&' | b'|') {
                return self.unexpected();
            }
            let w = self.word(Mode::Test)?;
            // Most words are one literal: compare without building the static value.
            regex_next = match w.parts {
                [WordPart::Literal(l)] => *l == "=~",
                _ => w.static_value().as_deref() == Some("=~"),
            };
            words.push(w);
        }
    }

    pub(super) fn function_keyword(&mut self, start: usize) -> PResult<Command<'a>> {
        self.pos += 8;
        self.skip_blanks()?;
        let ns = self.pos;
        while self.peek().is_some_and(|c| !is_meta(c)) {
            self.pos += 1;
        }
        let name = &self.src[ns..self.pos];
        if name.is_empty() {
            return self.unexpected();
        }
        self.skip_blanks()?;
        let parens = self.peek() == Some(b'(');
        if !parens {
            self.skip_linebreaks()?;
        }
        self.function_parens(start, name, true)
    }

    /// After the function name: optional `()` (required without `function`), then the body.
    pub(super) fn function_parens(
        &mut self,
        start: usize,
        name: &'a str,
        keyword: bool,
    ) -> PResult<Command<'a>> {
        self.skip_blanks()?;
        // With `function`, a `(` not followed by `)` starts the body (`function f ( ... )`).
        let save = self.pos;
        let mut parens = false;
        if self.peek() == Some(b'(') {
            self.pos += 1;
            self.skip_blanks()?;
            parens = self.peek() == Some(b')');
            if parens {
                self.pos += 1;
            } else if keyword {
                self.pos = save;
            } else {
                return self.unexpected();
            }
        }
        if !parens && !keyword {
            return self.unexpected();
        }
        self.skip_linebreaks()?;
        let body_start = self.pos;
        let Some(kind) = self.compound_start() else {
            if self.at_eof() {
                return self.err(ErrorKind::UnexpectedEof("a function body"));
            }
            return self.unexpected();
        };
        self.enter()?;
        let mut body = self.compound(kind, body_start)?;
        self.leave();
        let redirects = std::mem::take(&mut body.redirects);
        Ok(Command::Function(self.node(FunctionDef {
            name,
            keyword,
            body: self.node(body),
            redirects,
            span: self.span(start),
        })))
    }

    pub(super) fn coproc(&mut self, start: usize) -> PResult<Command<'a>> {
        self.pos += 6;
        self.skip_blanks()?;
        // `coproc NAME compound`: any word followed by a compound command names it.
        let mut name = None;
        if self.compound_start().is_none()
            && self.reserved().is_none()
            && self.peek().is_some_and(|c| !is_meta(c))
        {
            let save = self.pos;
            let w = self.word(Mode::Normal)?;
            let raw = &self.src[save..self.pos];
            let blank_after = matches!(self.peek(), Some(b' ') | Some(b'\t'));
            self.skip_blanks()?;
            // bash reads the word after `coproc NAME` in command position.
            if blank_after && self.reserved().is_some() && self.compound_start().is_none() {
                return self.unexpected();
            }
            if !w.parts.is_empty() && blank_after && self.compound_start().is_some() {
                name = Some(self.static_text(&w).unwrap_or(raw));
            } else {
                self.pos = save;
            }
        }
        let body = self.command()?;
        Ok(Command::Coproc(self.node(Coproc {
            name,
            body: self.node(body),
            span: self.span(start),
        })))
    }
}
