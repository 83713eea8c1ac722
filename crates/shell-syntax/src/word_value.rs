//! What a word's value is: static (known now) or dynamic (decided at run time).

use crate::ast::{Span, Text, Word, WordPart};

impl<'a> Word<'a> {
    /// A word made of one literal, in `arena` (for synthesised words, e.g. split `env -S`
    /// strings). `s` is copied unless it already lives in the arena's lifetime.
    pub fn literal(arena: &'a bumpalo::Bump, s: &'a str, span: Span) -> Word<'a> {
        Word {
            parts: arena.alloc([WordPart::Literal(s)]),
            span,
        }
    }

    /// [`Word::literal`] for text that must first be copied into `arena`.
    pub fn literal_copy(arena: &'a bumpalo::Bump, s: &str, span: Span) -> Word<'a> {
        Word::literal(arena, arena.alloc_str(s), span)
    }

    /// The word's value after quote removal, if it does not depend on run time (no
    /// expansions, globs, brace expansion or tilde).
    pub fn static_value(&self) -> Option<String> {
        self.static_text().map(String::from)
    }

    /// [`Word::static_value`] as a [`Text`] (short values need no allocation).
    pub fn static_text(&self) -> Option<Text> {
        // Measured hot (every argument the view reports): a one-part word is a plain copy;
        // otherwise size the value first so it is built in one allocation, and a dynamic
        // word allocates nothing.
        if let [WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s)] = self.parts
        {
            return Some(Text::from(*s));
        }
        let mut out = String::with_capacity(static_len(self.parts)?);
        static_parts(self.parts, &mut out);
        Some(out.into())
    }

    /// True when bash decides the value at run time (expansion, substitution, glob, tilde,
    /// brace expansion).
    pub fn is_dynamic(&self) -> bool {
        static_len(self.parts).is_none()
    }

    pub fn span(&self) -> Span {
        self.span
    }

    /// Whether any part of the word is quoted or escaped-by-quoting.
    pub fn is_quoted(&self) -> bool {
        self.parts.iter().any(|p| {
            matches!(
                p,
                WordPart::SingleQuoted(_)
                    | WordPart::DoubleQuoted(_)
                    | WordPart::AnsiC(_)
                    | WordPart::Locale(_)
            )
        })
    }

    /// The value with `~` (as `$HOME`) and plain `$NAME`/`${NAME}` expansions (quoted or not)
    /// resolved through `lookup`; `None` if anything else is dynamic or a lookup fails.
    pub fn resolve(&self, lookup: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        let mut out = String::new();
        resolve_parts(self.parts, lookup, &mut out, None).then_some(out)
    }

    /// [`Word::resolve`] for a word used as a path pattern: unquoted globs and extglobs are kept
    /// as pattern text and a brace expansion becomes `*` (any alternative may be the one); the
    /// flag says whether the text is a pattern.
    pub fn resolve_pattern(
        &self,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Option<(String, bool)> {
        let mut out = String::new();
        let mut glob = false;
        resolve_parts(self.parts, lookup, &mut out, Some(&mut glob)).then_some((out, glob))
    }
}

/// Length of the static value of `parts`, or `None` if run time decides it.
fn static_len(parts: &[WordPart]) -> Option<usize> {
    let mut n = 0;
    for p in parts {
        n += match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => s.len(),
            WordPart::DoubleQuoted(inner) | WordPart::Locale(inner) => static_len(inner)?,
            _ => return None,
        };
    }
    Some(n)
}

fn static_parts(parts: &[WordPart], out: &mut String) -> bool {
    for p in parts {
        match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => {
                out.push_str(s)
            }
            WordPart::DoubleQuoted(inner) | WordPart::Locale(inner) => {
                if !static_parts(inner, out) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

fn mark(glob: &mut Option<&mut bool>) {
    if let Some(f) = glob {
        **f = true;
    }
}

/// `glob`: `Some` to keep glob parts as pattern text (and note that there was one).
fn resolve_parts(
    parts: &[WordPart],
    lookup: &dyn Fn(&str) -> Option<String>,
    out: &mut String,
    mut glob: Option<&mut bool>,
) -> bool {
    for p in parts {
        match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => {
                out.push_str(s)
            }
            WordPart::DoubleQuoted(inner) | WordPart::Locale(inner) => {
                if !resolve_parts(inner, lookup, out, glob.as_deref_mut()) {
                    return false;
                }
            }
            WordPart::Tilde("") => match lookup("HOME") {
                Some(h) => out.push_str(&h),
                None => return false,
            },
            WordPart::Param(pe)
                if pe.op.is_none() && !pe.length && !pe.indirect && pe.index.is_none() =>
            {
                match lookup(pe.name) {
                    Some(v) => out.push_str(&v),
                    None => return false,
                }
            }
            WordPart::Glob(g) if glob.is_some() => {
                mark(&mut glob);
                out.push_str(g);
            }
            WordPart::ExtGlob { op, pattern } if glob.is_some() => {
                mark(&mut glob);
                out.push(*op);
                out.push('(');
                out.push_str(pattern);
                out.push(')');
            }
            WordPart::Brace(_) if glob.is_some() => {
                mark(&mut glob);
                out.push('*');
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::parse;

    /// The first word of `src`, resolved in `check`.
    fn with_word(src: &str, check: impl FnOnce(&crate::ast::Word<'_>)) {
        let p = parse(src);
        match &p.script().body.items[0].and_or.first.commands[0].command {
            crate::ast::Command::Simple(c) => check(&c.words[0]),
            other => panic!("not a simple command: {other:?}"),
        }
    }

    #[test]
    fn resolve_pattern_keeps_globs_that_resolve_refuses() {
        let home = |n: &str| (n == "HOME").then(|| "/h".to_string());
        with_word("~/src/*.rs", |w| {
            assert_eq!(w.resolve(&home), None);
            assert_eq!(w.resolve_pattern(&home), Some(("/h/src/*.rs".into(), true)));
        });
        with_word("\"$HOME\"/a+(b|c)/{x,y}", |w| {
            assert_eq!(
                w.resolve_pattern(&home),
                Some(("/h/a+(b|c)/*".into(), true))
            )
        });
        with_word("\"$HOME/*\"", |w| {
            assert_eq!(w.resolve_pattern(&home), Some(("/h/*".into(), false)))
        });
        with_word("$OTHER/x", |w| assert_eq!(w.resolve_pattern(&home), None));
        with_word("$(pwd)/x", |w| assert_eq!(w.resolve_pattern(&home), None));
    }
}
