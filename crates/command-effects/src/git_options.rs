//! git's option grammar for the subcommands guards judge, kept as data (one table per
//! subcommand), read the way git's `parse-options` reads them: a long option may be given as any
//! unique prefix (`--no-verif`, `--mirro`, `--force-w`), an exact name beats a prefix, `--no-X`
//! negates a negatable option, short options cluster (`-fu`), a valued option takes the rest of
//! its word or the next word, `--` ends options, and the last occurrence of an option wins
//! (`--dry-run --no-dry-run`, `--no-verify --verify`).

use shell_syntax::view::Arg;

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// A flag (`--force`); negatable as `--no-force`.
    Nothing,
    /// A value, attached (`--repo=x`, `-ox`) or the next word.
    Value,
    /// An optional value, attached only (`--force-with-lease[=x]`, `-S[keyid]`).
    Optional,
}

/// One option of one subcommand: its long name, its short letter, what it takes.
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    pub long: &'static str,
    pub short: Option<char>,
    pub takes: Takes,
    /// `-n` of `git commit` is `--no-verify`: the short letter sets the negation.
    pub short_negates: bool,
}

pub(crate) const fn flag(long: &'static str, short: Option<char>) -> Opt {
    Opt {
        long,
        short,
        takes: Takes::Nothing,
        short_negates: false,
    }
}
pub(crate) const fn valued(long: &'static str, short: Option<char>) -> Opt {
    Opt {
        long,
        short,
        takes: Takes::Value,
        short_negates: false,
    }
}
pub(crate) const fn optional(long: &'static str, short: Option<char>) -> Opt {
    Opt {
        long,
        short,
        takes: Takes::Optional,
        short_negates: false,
    }
}

/// `git push` (git 2.47 `builtin/push.c`).
pub const PUSH: &[Opt] = &[
    flag("verbose", Some('v')),
    flag("quiet", Some('q')),
    valued("repo", None),
    flag("all", None),
    flag("branches", None),
    flag("mirror", None),
    flag("delete", Some('d')),
    flag("tags", None),
    flag("dry-run", Some('n')),
    flag("porcelain", None),
    flag("force", Some('f')),
    optional("force-with-lease", None),
    flag("force-if-includes", None),
    valued("recurse-submodules", None),
    flag("thin", None),
    valued("receive-pack", None),
    valued("exec", None),
    flag("set-upstream", Some('u')),
    flag("progress", None),
    flag("prune", None),
    flag("verify", None),
    flag("follow-tags", None),
    optional("signed", None),
    flag("atomic", None),
    valued("push-option", Some('o')),
    flag("ipv4", Some('4')),
    flag("ipv6", Some('6')),
    flag("help", Some('h')),
];

/// `git commit` (git 2.47 `builtin/commit.c`).
pub const COMMIT: &[Opt] = &[
    flag("quiet", Some('q')),
    flag("verbose", Some('v')),
    valued("file", Some('F')),
    valued("author", None),
    valued("date", None),
    valued("message", Some('m')),
    valued("reedit-message", Some('c')),
    valued("reuse-message", Some('C')),
    valued("fixup", None),
    valued("squash", None),
    flag("reset-author", None),
    valued("trailer", None),
    flag("signoff", Some('s')),
    valued("template", Some('t')),
    flag("edit", Some('e')),
    valued("cleanup", None),
    flag("status", None),
    optional("gpg-sign", Some('S')),
    flag("all", Some('a')),
    flag("include", Some('i')),
    flag("interactive", None),
    flag("patch", Some('p')),
    flag("only", Some('o')),
    Opt {
        long: "verify",
        short: Some('n'),
        takes: Takes::Nothing,
        short_negates: true,
    },
    flag("dry-run", None),
    flag("short", None),
    flag("branch", None),
    flag("ahead-behind", None),
    flag("porcelain", None),
    flag("long", None),
    flag("null", Some('z')),
    flag("amend", None),
    flag("post-rewrite", None),
    optional("untracked-files", Some('u')),
    valued("pathspec-from-file", None),
    flag("pathspec-file-nul", None),
    flag("allow-empty", None),
    flag("allow-empty-message", None),
    flag("help", Some('h')),
];

/// `git merge`, `git am`, `git pull`: the options that matter for hooks and help.
pub const MERGE_LIKE: &[Opt] = &[
    flag("verify", None),
    flag("ff", None),
    flag("ff-only", None),
    flag("commit", None),
    flag("squash", None),
    flag("edit", Some('e')),
    valued("message", Some('m')),
    valued("file", Some('F')),
    valued("strategy", Some('s')),
    valued("strategy-option", Some('X')),
    flag("rebase", Some('r')),
    flag("help", Some('h')),
];

/// The table of a subcommand, if we keep one.
pub fn table(sub: &str) -> Option<&'static [Opt]> {
    match sub {
        "push" => Some(PUSH),
        "commit" => Some(COMMIT),
        "merge" | "am" | "pull" => Some(MERGE_LIKE),
        _ => None,
    }
}

/// One option occurrence, by its long name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    pub long: &'static str,
    /// `--no-X`, or a negating short letter.
    pub negated: bool,
    /// `None`: no value; `Some(None)`: a value decided at run time.
    pub value: Option<Option<String>>,
}

/// What git's option parser makes of a subcommand's arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub given: Vec<Given>,
    /// Operands in order (`None`: decided at run time).
    pub operands: Vec<Option<String>>,
    /// A word git rejects (unknown or ambiguous option): git exits without acting.
    pub rejected: Vec<String>,
    /// A run-time word stood where an option could be.
    pub dynamic_option: bool,
}

impl Parsed {
    /// The last setting of a flag: `Some(true)` set, `Some(false)` negated, `None` not given.
    pub fn flag(&self, long: &str) -> Option<bool> {
        self.given
            .iter()
            .rev()
            .find(|g| g.long == long)
            .map(|g| !g.negated)
    }

    /// Every value of an option, in order.
    pub fn values<'s>(&'s self, long: &'s str) -> impl Iterator<Item = Option<&'s str>> + 's {
        self.given
            .iter()
            .filter(move |g| g.long == long && !g.negated)
            .filter_map(|g| g.value.as_ref().map(|v| v.as_deref()))
    }

    /// The last occurrence of an option (negated or not).
    pub fn last(&self, long: &str) -> Option<&Given> {
        self.given.iter().rev().find(|g| g.long == long)
    }
}

/// Finds the long option `name` (no leading dashes): exact, then a unique prefix, both for the
/// option itself and for its `no-` negation. `Err(())`: ambiguous or unknown.
fn long_option(table: &'static [Opt], name: &str) -> Result<(&'static Opt, bool), ()> {
    if let Some(o) = table.iter().find(|o| o.long == name) {
        return Ok((o, false));
    }
    if let Some(rest) = name.strip_prefix("no-") {
        if let Some(o) = table.iter().find(|o| o.long == rest) {
            return Ok((o, true));
        }
    }
    let mut found: Option<(&'static Opt, bool)> = None;
    let mut ambiguous = false;
    for o in table {
        for (negated, full) in [
            (false, o.long.to_string()),
            (true, format!("no-{}", o.long)),
        ] {
            if negated && o.takes == Takes::Value {
                continue;
            }
            if full.starts_with(name) {
                match found {
                    Some((f, n)) if !(std::ptr::eq(f, o) && n == negated) => ambiguous = true,
                    _ => found = Some((o, negated)),
                }
            }
        }
    }
    match found {
        Some(f) if !ambiguous && !name.is_empty() => Ok(f),
        _ => Err(()),
    }
}

/// One word of a command line as a getopt-style parser reads it.
pub(crate) enum OptWord<'v> {
    /// Not an option: a plain word, `-` alone, or any word after `--`.
    Operand(&'v str),
    /// `--` itself: the words after it are operands.
    EndOfOptions,
    /// `--name` or `--name=value`.
    Long(&'v str, Option<&'v str>),
    /// `-abc`: a cluster of short options.
    Short,
}

/// What `v` is to an option parser (`only_operands`: after `--`).
pub(crate) fn opt_word(v: &str, only_operands: bool) -> OptWord<'_> {
    if only_operands || !v.starts_with('-') || v == "-" {
        return OptWord::Operand(v);
    }
    if v == "--" {
        return OptWord::EndOfOptions;
    }
    match v.strip_prefix("--") {
        Some(long) => match long.split_once('=') {
            Some((n, val)) => OptWord::Long(n, Some(val)),
            None => OptWord::Long(long, None),
        },
        None => OptWord::Short,
    }
}

/// Reads `args` (after the subcommand) with `table`.
pub fn parse(table: &'static [Opt], args: &[Arg<'_>]) -> Parsed {
    let mut p = Parsed::default();
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let Some(v) = args[i].value.as_deref() else {
            // A run-time word: an operand, or an option we cannot read.
            p.dynamic_option |= !only_operands;
            p.operands.push(None);
            i += 1;
            continue;
        };
        i += 1;
        let (name, attached) = match opt_word(v, only_operands) {
            OptWord::Operand(v) => {
                p.operands.push(Some(v.to_string()));
                continue;
            }
            OptWord::EndOfOptions => {
                only_operands = true;
                continue;
            }
            OptWord::Long(name, attached) => (name, attached),
            OptWord::Short => ("", None),
        };
        if !name.is_empty() {
            let Ok((o, negated)) = long_option(table, name) else {
                p.rejected.push(v.to_string());
                continue;
            };
            let value = match (o.takes, negated, attached) {
                (_, true, _) => None,
                (Takes::Nothing, _, Some(_)) => {
                    p.rejected.push(v.to_string());
                    continue;
                }
                (Takes::Nothing, _, None) => None,
                (_, _, Some(val)) => Some(Some(val.to_string())),
                (Takes::Optional, _, None) => None,
                (Takes::Value, _, None) => {
                    let next = args.get(i).map(|a| a.value.as_deref().map(String::from));
                    i += 1;
                    Some(next.flatten())
                }
            };
            p.given.push(Given {
                long: o.long,
                negated,
                value,
            });
            continue;
        }
        // A short cluster.
        let body = &v[1..];
        for (pos, c) in body.char_indices() {
            let Some(o) = table.iter().find(|o| o.short == Some(c)) else {
                p.rejected.push(format!("-{c}"));
                break;
            };
            let rest = &body[pos + c.len_utf8()..];
            match o.takes {
                Takes::Nothing => p.given.push(Given {
                    long: o.long,
                    negated: o.short_negates,
                    value: None,
                }),
                Takes::Optional => {
                    p.given.push(Given {
                        long: o.long,
                        negated: false,
                        value: (!rest.is_empty()).then(|| Some(rest.to_string())),
                    });
                    break;
                }
                Takes::Value => {
                    let value = if rest.is_empty() {
                        let next = args.get(i).map(|a| a.value.as_deref().map(String::from));
                        i += 1;
                        next.flatten()
                    } else {
                        Some(rest.to_string())
                    };
                    p.given.push(Given {
                        long: o.long,
                        negated: false,
                        value: Some(value),
                    });
                    break;
                }
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(cmd: &str) -> Parsed {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        parse(PUSH, &v.invocations[0].args[1..])
    }

    #[test]
    fn unique_prefixes_and_negations() {
        assert_eq!(
            push("git push --no-verif origin main").flag("verify"),
            Some(false)
        );
        assert_eq!(push("git push --mirro origin").flag("mirror"), Some(true));
        assert_eq!(
            push("git push --force-w origin main")
                .last("force-with-lease")
                .map(|g| g.negated),
            Some(false)
        );
        // `--f` is ambiguous (force, force-with-lease, force-if-includes, follow-tags): git
        // refuses it.
        assert_eq!(
            push("git push --f origin main").rejected,
            vec!["--f".to_string()]
        );
        assert_eq!(
            push("git push --dry-run --no-dry-run origin main").flag("dry-run"),
            Some(false)
        );
        assert_eq!(
            push("git push --no-verify --verify origin").flag("verify"),
            Some(true)
        );
        assert_eq!(push("git push -fuo ci.skip origin main").operands.len(), 2);
        assert_eq!(
            push("git push --repo=o x")
                .values("repo")
                .collect::<Vec<_>>(),
            vec![Some("o")]
        );
    }

    #[test]
    fn commit_short_n_is_no_verify() {
        let p = shell_syntax::parse("git commit -anm msg");
        let v = shell_syntax::commands(&p);
        let c = parse(COMMIT, &v.invocations[0].args[1..]);
        assert_eq!(c.flag("verify"), Some(false));
        let p = shell_syntax::parse("git commit -mn");
        let v = shell_syntax::commands(&p);
        let c = parse(COMMIT, &v.invocations[0].args[1..]);
        assert_eq!(c.flag("verify"), None);
    }
}
