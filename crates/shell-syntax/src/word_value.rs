//! What a word's value is: static (known now) or dynamic (decided at run time).

use crate::ast::{Span, Text, Word, WordPart};

impl Word {
    /// A word made of one literal (for synthesised words, e.g. split `env -S` strings).
    pub fn literal(s: &str, span: Span) -> Word {
        Word {
            parts: smallvec::smallvec![WordPart::Literal(Text::from(s))],
            span,
        }
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
        if let [WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s)] =
            self.parts.as_slice()
        {
            return Some(s.clone());
        }
        let mut out = String::with_capacity(static_len(&self.parts)?);
        static_parts(&self.parts, &mut out);
        Some(out.into())
    }

    /// True when bash decides the value at run time (expansion, substitution, glob, tilde,
    /// brace expansion).
    pub fn is_dynamic(&self) -> bool {
        static_len(&self.parts).is_none()
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
        resolve_parts(&self.parts, lookup, &mut out).then_some(out)
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

fn resolve_parts(
    parts: &[WordPart],
    lookup: &dyn Fn(&str) -> Option<String>,
    out: &mut String,
) -> bool {
    for p in parts {
        match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => {
                out.push_str(s)
            }
            WordPart::DoubleQuoted(inner) | WordPart::Locale(inner) => {
                if !resolve_parts(inner, lookup, out) {
                    return false;
                }
            }
            WordPart::Tilde(user) if user.is_empty() => match lookup("HOME") {
                Some(h) => out.push_str(&h),
                None => return false,
            },
            WordPart::Param(pe)
                if pe.op.is_none() && !pe.length && !pe.indirect && pe.index.is_none() =>
            {
                match lookup(&pe.name) {
                    Some(v) => out.push_str(&v),
                    None => return false,
                }
            }
            _ => return false,
        }
    }
    true
}
