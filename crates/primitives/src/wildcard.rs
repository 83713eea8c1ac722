//! Shell-style wildcards, matched by `globset`. Each caller's source defines which characters
//! are wild, so a pattern is read in one of three [`Dialect`]s; everything else in it matches
//! itself (`{`, `}`, `\` and, where not wild, `?` and `[` included). In every dialect `*`
//! matches any run of characters, `/` too: a branch pattern `release/*` covers
//! `release/1/hotfix`, and a shell word reaching further than its folder only widens what a
//! check considers.

use globset::{GlobBuilder, GlobMatcher};

/// Which characters of a pattern are wild.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `*` only: configured branch patterns and refspecs (git allows one `*`, and a ref name
    /// cannot hold one, so reading every `*` as wild changes no match git makes).
    Star,
    /// `*` and `?`: ssh_config `Host` and `Match host` patterns. As in OpenSSH's `match.c`,
    /// `?` is one byte (a host name is ASCII).
    StarQuestion,
    /// `*`, `?` and a bracket class `[...]`, read as one character of any class (a wider match
    /// than the shell's, never a narrower one); a `[` without a closing `]` matches itself. `?`
    /// and a class are one character, as bash reads them in a UTF-8 locale: a text with
    /// non-ASCII characters is matched with each of them (in text and pattern alike) folded to
    /// one placeholder, so the match is never narrower than bash's.
    Shell,
}

/// A compiled pattern: compile once, match many texts.
#[derive(Debug, Clone)]
pub struct Wildcard {
    matcher: Option<GlobMatcher>,
    pattern: String,
    dialect: Dialect,
}

impl Wildcard {
    /// Compiles `pattern` read in `dialect`.
    pub fn new(pattern: &str, dialect: Dialect) -> Wildcard {
        let matcher = GlobBuilder::new(&to_glob(pattern, dialect))
            .literal_separator(false)
            .backslash_escape(false)
            .build()
            .ok()
            .map(|g| g.compile_matcher());
        Wildcard {
            matcher,
            pattern: pattern.to_string(),
            dialect,
        }
    }

    /// Whether the whole of `text` matches.
    pub fn is_match(&self, text: &str) -> bool {
        if self.dialect == Dialect::Shell && !text.is_ascii() {
            // globset's `?` is one byte: fold each non-ASCII character to one placeholder.
            let folded = Wildcard::new(&fold(&self.pattern), Dialect::Shell);
            return folded.is_match(&fold(text));
        }
        match &self.matcher {
            Some(m) => m.is_match(text),
            // The translation escapes every special character, so globset accepts every
            // pattern (tested below); were it ever to refuse one, the pattern matches itself.
            None => self.pattern == text,
        }
    }
}

/// Whether the whole of `text` matches `pattern` read in `dialect`.
pub fn matches(pattern: &str, dialect: Dialect, text: &str) -> bool {
    Wildcard::new(pattern, dialect).is_match(text)
}

/// `text` with each non-ASCII character replaced by one ASCII placeholder (SUB).
fn fold(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii() { c } else { '\u{1a}' })
        .collect()
}

/// The globset spelling of `pattern`: wild characters as globset reads them, the rest escaped.
fn to_glob(pattern: &str, dialect: Dialect) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut literal = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let wild = match (c, dialect) {
            ('*', _) => {
                // A run of stars is one star (globset gives `**` a meaning of its own).
                while chars.get(i + 1) == Some(&'*') {
                    i += 1;
                }
                Some("*")
            }
            ('?', Dialect::StarQuestion | Dialect::Shell) => Some("?"),
            ('[', Dialect::Shell) => match chars[i + 1..].iter().position(|c| *c == ']') {
                Some(end) => {
                    i += end + 1;
                    Some("?")
                }
                None => None,
            },
            _ => None,
        };
        match wild {
            Some(w) => {
                out.push_str(&globset::escape(&literal));
                literal.clear();
                out.push_str(w);
            }
            None => literal.push(c),
        }
        i += 1;
    }
    out.push_str(&globset::escape(&literal));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Dialect::*;

    #[test]
    fn each_dialect_as_its_source_defines() {
        for &(dialect, pattern, text, want) in &[
            // Cases of the matcher branch-rules had (verdict.rs) and of gh-write-guard's refspecs.
            (Star, "a*b*c", "aXbYc", true),
            (Star, "a*b*c", "abc", true),
            (Star, "a*b*c", "acb", false),
            (Star, "*", "", true),
            (Star, "ab*ba", "aba", false),
            (Star, "release/*", "release/1/hotfix", true),
            (Star, "main", "main", true),
            (Star, "main", "mainline", false),
            // Only `*` is wild: the rest matches itself.
            (Star, "v?", "v1", false),
            (Star, "v?", "v?", true),
            (Star, "[x]", "[x]", true),
            (Star, "[x]", "x", false),
            (Star, "{a,b}", "{a,b}", true),
            (Star, "{a,b}", "a", false),
            (Star, r"a\*", r"a\bc", true),
            (Star, "a**b", "a/x/b", true),
            (Star, "", "", true),
            (Star, "", "x", false),
            // Cases of the matcher branch-rules' ssh_alias.rs had.
            (StarQuestion, "gh-*", "gh-work", true),
            (StarQuestion, "?x*", "ax", true),
            (StarQuestion, "gh-?", "gh-ab", false),
            (StarQuestion, "*", "", true),
            (StarQuestion, "a*b*c", "a-b-b-c", true),
            (StarQuestion, "??", "é", true),
            (StarQuestion, "?", "é", false),
            (StarQuestion, "[ab]", "[ab]", true),
            (StarQuestion, "[ab]", "a", false),
            // Cases of the matcher integrity-signals' paths.rs had.
            (
                Shell,
                "/h/.claude/settings*.json",
                "/h/.claude/settings.local.json",
                true,
            ),
            (Shell, "/scor?ng", "/scoring", true),
            (Shell, "/s[a-z]oring", "/scoring", true),
            (Shell, "/h/*.txt", "/h/a.json", false),
            // A class is any one character, even one outside it, and never two.
            (Shell, "/s[!c]oring", "/scoring", true),
            (Shell, "[0-9]", "x", true),
            (Shell, "[0-9]", "xy", false),
            // The first `]` closes the class; `[]` is one character.
            (Shell, "a[]b", "axb", true),
            // An unclosed `[` matches itself.
            (Shell, "a[b", "a[b", true),
            (Shell, "a[b", "axb", false),
            (Shell, "/a/*", "/a/b/c", true),
            (Shell, "{x}", "{x}", true),
            // `?` and a class are one character, not one byte, as in bash.
            (Shell, "/d/?/f", "/d/é/f", true),
            (Shell, "/d/[é]/f", "/d/ü/f", true),
            (Shell, "/d/?/f", "/d/éé/f", false),
            (Shell, "/d/é*", "/d/éa", true),
        ] {
            assert_eq!(
                matches(pattern, dialect, text),
                want,
                "{dialect:?}: {pattern} ~ {text}"
            );
        }
    }

    #[test]
    fn every_pattern_compiles() {
        let specials = [
            "*", "?", "[", "]", "{", "}", "\\", "!", ",", "/", "-", "^", "a",
        ];
        for a in specials {
            for b in specials {
                for c in specials {
                    let p = format!("{a}{b}{c}");
                    for d in [Star, StarQuestion, Shell] {
                        assert!(Wildcard::new(&p, d).matcher.is_some(), "{p:?} in {d:?}");
                    }
                }
            }
        }
    }
}
