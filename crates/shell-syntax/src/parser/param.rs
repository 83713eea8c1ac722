//! Parameter expansion (`${...}` with all its operators) and ANSI-C quoting (`$'...'`).

use super::word::Mode;
use super::{PResult, Parser};
use crate::ast::*;
use crate::error::ErrorKind;

impl<'a, 'b> Parser<'a, 'b> {
    /// `${...}` with the cursor after `${`.
    pub(super) fn param_braced(&mut self, start: usize, in_dq: bool) -> PResult<ParamExp<'a>> {
        self.enter()?;
        let mut p = ParamExp {
            name: "",
            braced: true,
            length: false,
            indirect: false,
            index: None,
            op: None,
            span: Span::default(),
        };
        let name_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let special = |c: u8| b"@*#?$!-".contains(&c);
        // `${#...}` is a length unless it is `${#}` or `${#op...}` on `$#`.
        if self.peek() == Some(b'#')
            && self
                .peek_at(1)
                .is_some_and(|c| name_char(c) || (special(c) && self.peek_at(2) == Some(b'}')))
        {
            p.length = true;
            self.pos += 1;
        } else if self.peek() == Some(b'!')
            && self.peek_at(1).is_some_and(|c| name_char(c) || special(c))
        {
            p.indirect = true;
            self.pos += 1;
        }
        let s = self.pos;
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
            }
            Some(c) if name_char(c) => {
                while self.peek().is_some_and(name_char) {
                    self.pos += 1;
                }
            }
            Some(c) if special(c) => self.pos += 1,
            _ => {}
        }
        p.name = &self.src[s..self.pos];
        if self.peek() == Some(b'[') && !p.name.is_empty() {
            if let Some(close) = self.closing(self.pos, *b"[]", b"}", false)? {
                let w = self.sub(self.pos + 1, close).word(Mode::Index)?;
                p.index = Some(self.node(w));
                self.pos = close + 1;
            }
        }
        if p.name.is_empty() {
            // Not a name bash can expand; bash only complains at run time, so read up to the
            // closing brace and keep the text.
            let s = self.pos;
            self.param_word(b"}", in_dq)?;
            p.name = &self.src[s..self.pos];
        } else {
            if let Some(op) = self.param_op(&p, in_dq)? {
                p.op = Some(self.node(op));
            }
        }
        if self.peek() != Some(b'}') {
            return Err((ErrorKind::Unterminated("${...}"), start + self.base));
        }
        self.pos += 1;
        p.span = self.span(start);
        self.leave();
        Ok(p)
    }

    fn param_word(&mut self, stops: &'static [u8], in_dq: bool) -> PResult<Word<'a>> {
        self.word(Mode::Param { stops, in_dq })
    }

    fn param_op(&mut self, p: &ParamExp<'a>, in_dq: bool) -> PResult<Option<ParamOp<'a>>> {
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        let op = match c {
            b'}' => return Ok(None),
            b'*' | b'@' if p.indirect && self.peek_at(1) == Some(b'}') => {
                self.pos += 1;
                ParamOp::PrefixNames(c as char)
            }
            b':' if self.peek_at(1).is_some_and(|c| b"-=?+".contains(&c)) => {
                let kind = self.peek_at(1).unwrap_or(b'-') as char;
                self.pos += 2;
                let word = self.param_word(b"}", in_dq)?;
                ParamOp::Default {
                    colon: true,
                    kind,
                    word,
                }
            }
            b'-' | b'=' | b'?' | b'+' => {
                self.pos += 1;
                let word = self.param_word(b"}", in_dq)?;
                ParamOp::Default {
                    colon: false,
                    kind: c as char,
                    word,
                }
            }
            b':' => {
                self.pos += 1;
                let offset = self.param_word(b":}", in_dq)?;
                let length = self.second_param_word(b':', in_dq)?;
                ParamOp::Substring { offset, length }
            }
            b'#' | b'%' => {
                let longest = self.peek_at(1) == Some(c);
                self.pos += if longest { 2 } else { 1 };
                let pattern = self.param_word(b"}", false)?;
                if c == b'#' {
                    ParamOp::RemovePrefix { longest, pattern }
                } else {
                    ParamOp::RemoveSuffix { longest, pattern }
                }
            }
            b'/' => self.replace_op(in_dq)?,
            b'^' | b',' => {
                let len = if self.peek_at(1) == Some(c) { 2 } else { 1 };
                let op = &self.src[self.pos..self.pos + len];
                self.pos += len;
                let pattern = self.param_word(b"}", false)?;
                ParamOp::Case { op, pattern }
            }
            b'@' => {
                self.pos += 1;
                let letter = self.peek().map(|c| c as char).unwrap_or('?');
                if self.peek().is_some_and(|c| c != b'}') {
                    self.pos += 1;
                }
                ParamOp::Transform(letter)
            }
            _ => {
                // Unknown operator: bash reports it at run time; keep the text as a default.
                let word = self.param_word(b"}", in_dq)?;
                ParamOp::Default {
                    colon: false,
                    kind: '?',
                    word,
                }
            }
        };
        Ok(Some(op))
    }

    /// `${x/pattern/replacement}` and its `//`, `/#`, `/%` forms; the cursor is on the first `/`.
    fn replace_op(&mut self, in_dq: bool) -> PResult<ParamOp<'a>> {
        self.pos += 1;
        let mode = match self.peek() {
            Some(b'/') => ReplaceMode::All,
            Some(b'#') => ReplaceMode::Prefix,
            Some(b'%') => ReplaceMode::Suffix,
            _ => ReplaceMode::First,
        };
        if mode != ReplaceMode::First {
            self.pos += 1;
        }
        let pattern = self.param_word(b"/}", false)?;
        let replacement = self.second_param_word(b'/', in_dq)?;
        Ok(ParamOp::Replace {
            mode,
            pattern,
            replacement,
        })
    }

    /// The word after `sep` up to `}` (`${x:1:2}`'s length, `${x/a/b}`'s replacement), if the
    /// cursor is on `sep`.
    fn second_param_word(&mut self, sep: u8, in_dq: bool) -> PResult<Option<Word<'a>>> {
        if self.peek() != Some(sep) {
            return Ok(None);
        }
        self.pos += 1;
        Ok(Some(self.param_word(b"}", in_dq)?))
    }

    /// `$'...'` with the cursor on the quote; escapes decoded.
    pub(super) fn ansi_c(&mut self) -> PResult<String> {
        self.until_close(b'\'', "$'...'", |p, c, out| {
            if c == b'\\' {
                p.pos += 1;
                p.ansi_escape(out);
            } else {
                let ch = p.src[p.pos..].chars().next().unwrap_or('?');
                out.push(ch);
                p.pos += ch.len_utf8();
            }
        })
    }

    /// `\\cX` (the cursor after the `c`): the control character of X's first byte, as bash's
    /// `TOCTRL` (`?` gives DEL). The string's end follows bash's lexer, which pairs a backslash
    /// with the next character: `\\c\\` pairs with what follows, which is dropped when it is
    /// another backslash (`\\c\\\\`) and kept as a literal otherwise (even a `'`). The other
    /// bytes of a multibyte X stay raw; like other raw bytes here they become Latin-1 chars.
    fn ansi_control(&mut self, out: &mut String) {
        let ch = match self.src[self.pos..].chars().next() {
            // Nothing to control: the closing quote (or the end) follows, `\\c` stays as written.
            None | Some('\'') => {
                out.push_str("\\c");
                return;
            }
            Some(ch) => ch,
        };
        self.pos += ch.len_utf8();
        let mut utf8 = [0u8; 4];
        let bytes = ch.encode_utf8(&mut utf8).as_bytes();
        let ctrl = match bytes[0] {
            b'?' => 0x7f,
            b => b.to_ascii_uppercase() & 0x1f,
        };
        out.push(char::from(ctrl));
        out.extend(bytes[1..].iter().map(|&b| char::from(b)));
        if ch == '\\' {
            if let Some(next) = self.src[self.pos..].chars().next() {
                self.pos += next.len_utf8();
                if next != '\\' {
                    out.push(next);
                }
            }
        }
    }

    fn ansi_escape(&mut self, out: &mut String) {
        let Some(c) = self.peek() else {
            out.push('\\');
            return;
        };
        self.pos += 1;
        let simple = match c {
            b'a' => Some('\x07'),
            b'b' => Some('\x08'),
            b'e' | b'E' => Some('\x1b'),
            b'f' => Some('\x0c'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'v' => Some('\x0b'),
            b'\\' => Some('\\'),
            b'\'' => Some('\''),
            b'"' => Some('"'),
            b'?' => Some('?'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            return;
        }
        let digits = |p: &mut Self, max: usize, radix: u32| -> Option<u32> {
            let s = p.pos;
            while p.pos - s < max && p.peek().is_some_and(|c| (c as char).is_digit(radix)) {
                p.pos += 1;
            }
            if p.pos == s {
                None
            } else {
                u32::from_str_radix(&p.src[s..p.pos], radix).ok()
            }
        };
        match c {
            b'0'..=b'7' => {
                self.pos -= 1;
                let v = digits(self, 3, 8).unwrap_or(0);
                out.push(char::from_u32(v & 0xff).unwrap_or('?'));
            }
            // `\x{HHH...}`: every hex digit, a closing `}` is dropped, the value is masked to
            // a byte (bash's strtrans.c; `$'\x{72}m'` is `rm`).
            b'x' if self.peek() == Some(b'{') => {
                self.pos += 1;
                let s = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    self.pos += 1;
                }
                let v = self.src[s..self.pos].bytes().fold(0u32, |acc, c| {
                    (acc << 4 | (c as char).to_digit(16).unwrap_or(0)) & 0xff
                });
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                }
                out.push(char::from_u32(v).unwrap_or('?'));
            }
            b'x' => match digits(self, 2, 16) {
                Some(v) => out.push(char::from_u32(v).unwrap_or('?')),
                None => out.push_str("\\x"),
            },
            b'u' | b'U' => {
                let max = if c == b'u' { 4 } else { 8 };
                match digits(self, max, 16) {
                    Some(v) => out.push(char::from_u32(v).unwrap_or('\u{fffd}')),
                    None => {
                        out.push('\\');
                        out.push(c as char);
                    }
                }
            }
            b'c' => self.ansi_control(out),
            _ => {
                out.push('\\');
                self.pos -= 1;
                let ch = self.src[self.pos..].chars().next().unwrap_or('?');
                out.push(ch);
                self.pos += ch.len_utf8();
            }
        }
    }
}
