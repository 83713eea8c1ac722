//! The `gh` command line as gh (cobra/pflag) reads it: the command path (`pr merge`), flags in
//! every spelling (`-R x`, `-Rx`, `-R=x`, `--repo x`, `--repo=x`, short clusters), positionals,
//! and the write inventory of `github-api.md` §3.5. `gh api` calls are read further in
//! [`crate::gh_api`].

use shell_syntax::view::Arg;

/// One flag as given: its canonical spelling (`-R` or `--repo`) and its value, if it takes one
/// (`Some(None)`: the value is decided at run time).
#[derive(Debug, Clone, PartialEq)]
pub struct Flag {
    pub name: String,
    pub value: Option<Option<String>>,
    /// The value with plain `$NAME`/`${NAME}` kept as `${NAME}` (run-time parts named), for
    /// reading the static parts of a dynamic value (`-F id="$ID"`: key `id`).
    pub template: Option<String>,
}

/// The text of a word with plain parameter expansions kept as `${NAME}`; `None` when it holds
/// anything else decided at run time (substitutions, globs).
pub fn template(arg: &Arg) -> Option<String> {
    arg.value
        .as_deref()
        .map(String::from)
        .or_else(|| arg.word.resolve(&|name| Some(format!("${{{name}}}"))))
        .or_else(|| {
            // `repos/o/r/issues/$(gh pr view --json number -q .number)/comments`: a command
            // substitution stands as `${__subst__}` (a run-time part like a parameter).
            let mut out = String::new();
            template_parts(arg.word.parts, &mut out).then_some(out)
        })
}

/// The text of word parts with each parameter as `${name}` and each command substitution as
/// `${__subst__}`; false for anything else decided at run time (globs, arithmetic).
fn template_parts(parts: &[shell_syntax::ast::WordPart<'_>], out: &mut String) -> bool {
    use shell_syntax::ast::WordPart;
    parts.iter().all(|p| match p {
        WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => {
            out.push_str(s);
            true
        }
        WordPart::DoubleQuoted(inner) => template_parts(inner, out),
        WordPart::Param(pe) => {
            out.push_str(&format!("${{{}}}", pe.name));
            true
        }
        WordPart::CommandSubst(_) => {
            out.push_str("${__subst__}");
            true
        }
        _ => false,
    })
}

/// `gh <top> <sub> ...` split into its parts.
#[derive(Debug, Clone, Default)]
pub struct GhArgs {
    /// Top-level command (`pr`, `api`, an alias or extension name); `None`: no command word.
    pub top: Option<String>,
    /// Subcommand words after the top (`merge`; `ports visibility` for codespace).
    pub sub: Vec<String>,
    pub flags: Vec<Flag>,
    /// Positionals after the command path (static values or `None`).
    pub positionals: Vec<Option<String>>,
    /// The positionals with plain `$NAME`/`${NAME}` kept as `${NAME}` (see [`template`]), for
    /// reading the static parts of a dynamic word (`repos/o/r/issues/$N/comments`).
    pub positional_templates: Vec<Option<String>>,
    /// A dynamic word stood where the command path was.
    pub dynamic_command: bool,
}

impl GhArgs {
    /// Values of every occurrence of the named flags (short and long spellings).
    pub fn values<'a>(
        &'a self,
        names: &'a [&'a str],
    ) -> impl Iterator<Item = Option<&'a str>> + 'a {
        self.flags
            .iter()
            .filter(move |f| names.contains(&f.name.as_str()))
            .filter_map(|f| f.value.as_ref().map(|v| v.as_deref()))
    }

    /// Whether any of the named flags is present.
    pub fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|f| names.contains(&f.name.as_str()))
    }

    /// A boolean flag as pflag reads it: the last occurrence wins; `--x` is true, `--x=v`
    /// takes `v` as strconv.ParseBool does (`1 t T TRUE true True`, `0 f F FALSE false False`;
    /// anything else makes gh refuse the command, counted as true here); `None`: not given.
    pub fn bool_flag(&self, names: &[&str]) -> Option<bool> {
        let f = self
            .flags
            .iter()
            .rev()
            .find(|f| names.contains(&f.name.as_str()))?;
        Some(match &f.value {
            None => true,
            Some(Some(v)) => !matches!(v.as_str(), "0" | "f" | "F" | "FALSE" | "false" | "False"),
            Some(None) => true,
        })
    }

    pub fn sub(&self) -> Option<&str> {
        self.sub.first().map(String::as_str)
    }
}

/// Long flags that take a value (the union over gh's commands). A long flag not listed here is
/// boolean; `--flag=value` is read as a value either way.
const VALUED_LONG: &[&str] = &[
    "--repo",
    "--title",
    "--body",
    "--body-file",
    "--base",
    "--head",
    "--label",
    "--assignee",
    "--milestone",
    "--project",
    "--reviewer",
    "--template",
    "--jq",
    "--json",
    "--state",
    "--limit",
    "--search",
    "--author",
    "--subject",
    "--match-head-commit",
    "--author-email",
    "--notes",
    "--notes-file",
    "--target",
    "--ref",
    "--field",
    "--raw-field",
    "--method",
    "--header",
    "--input",
    "--hostname",
    "--cache",
    "--preview",
    "--color",
    "--description",
    "--name",
    "--visibility",
    "--homepage",
    "--branch",
    "--workflow",
    "--job",
    "--env",
    "--org",
    "--add-label",
    "--remove-label",
    "--add-assignee",
    "--remove-assignee",
    "--add-reviewer",
    "--remove-reviewer",
    "--add-project",
    "--remove-project",
    "--user",
    "--env-file",
    "--repos",
    "--app",
    "--gitignore",
    "--license",
    "--team",
    "--source",
    "--remote",
    "--default-branch",
    "--fork-name",
    "--discussion-category",
    "--title-prefix",
    "--owner",
    "--format",
    "--key",
    "--type",
    "--codespace",
    "--machine",
    "--status",
    "--commit",
    "--event",
    "--reason",
    "--body-text",
    "--git-protocol",
    "--scopes",
    "--with-token",
    "--secret",
    "--display-name",
    "--idle-timeout",
    "--retention-period",
    "--devcontainer-path",
    "--location",
    "--id",
    "--field-id",
    "--single-select-options",
    "--data-type",
    "--number",
    "--text",
    "--date",
    "--iteration-id",
    "--url",
    "--item-id",
    "--project-id",
    "--target-repo",
    "--clobber-file",
    "--pin",
    "--shell",
    "--dir",
    "--depth",
    "--exclude",
    "--pattern",
    "--sort",
    "--order",
    "--created",
    "--attempt",
    "--include-keys",
    "--deny",
    "--mode",
];

/// Short flags that take a value, per command (pflag shorthands differ between commands: `-f`
/// is `--fill` for `pr create` and `--raw-field` for `api`).
fn valued_shorts(top: &str, sub: &str) -> &'static str {
    match (top, sub) {
        ("pr", "create") => "aBbFHlmprRtT",
        ("pr", "merge") => "AbFRt",
        ("pr", "review") | ("pr", "comment") | ("issue", "comment") => "bFR",
        ("pr", _) => "AaBbFHLlmpqRrSsTt",
        ("issue", _) => "AaBbFLlmpqRSsTt",
        ("api", _) => "FfHpqtX",
        ("workflow", "run") => "FfrR",
        ("workflow", _) | ("run", _) => "bcejLqRrstuw",
        ("release", _) => "FnqRTt",
        ("label", _) => "cdLqRs",
        ("secret", _) | ("variable", _) => "abefoqRrv",
        ("repo", _) => "bcdghlpqRt",
        ("gist", _) => "dfp",
        ("project", _) => "dfLoqtT",
        ("cache", _) => "kLoqRrS",
        ("ssh-key", _) | ("gpg-key", _) => "t",
        ("codespace", _) | ("cs", _) => "bcdlmRs",
        ("search", _) => "LoqS",
        ("auth", _) => "hps",
        _ => "R",
    }
}

/// How many subcommand words a top-level command has (`codespace ports visibility`: 2).
fn sub_depth(top: &str, first_sub: Option<&str>) -> usize {
    match (top, first_sub) {
        ("api", _) => 0,
        ("codespace" | "cs", Some("ports")) => 2,
        ("repo", Some("deploy-key" | "autolink")) => 2,
        _ => 1,
    }
}

/// Splits the arguments after `gh`.
pub fn parse(args: &[Arg]) -> GhArgs {
    let mut out = GhArgs::default();
    let mut i = 0;
    let mut path_done = false;
    let mut wanted_sub = 0usize;
    let mut only_positionals = false;
    while i < args.len() {
        let a = &args[i];
        let tmpl = template(a);
        let dynamic_flag = a.value.is_none() && tmpl.as_deref().is_some_and(|t| t.starts_with('-'));
        let v_owned;
        let v_opt = if dynamic_flag {
            v_owned = tmpl.clone();
            v_owned.as_deref()
        } else {
            a.value.as_deref()
        };
        let Some(v) = v_opt else {
            if !path_done && (out.top.is_none() || out.sub.len() < wanted_sub) {
                out.dynamic_command = true;
                path_done = true;
            }
            out.positionals.push(None);
            out.positional_templates.push(tmpl);
            i += 1;
            continue;
        };
        if only_positionals || !v.starts_with('-') || v == "-" {
            if !path_done {
                if out.top.is_none() {
                    out.top = Some(v.to_string());
                    wanted_sub = sub_depth(v, args.get(i + 1).and_then(|n| n.value.as_deref()));
                    path_done = wanted_sub == 0;
                    i += 1;
                    continue;
                }
                if out.sub.len() < wanted_sub {
                    out.sub.push(v.to_string());
                    path_done = out.sub.len() >= wanted_sub;
                    i += 1;
                    continue;
                }
            }
            out.positionals.push(Some(v.to_string()));
            out.positional_templates.push(Some(v.to_string()));
            i += 1;
            continue;
        }
        if v == "--" {
            only_positionals = true;
            path_done = true;
            i += 1;
            continue;
        }
        let top = out.top.clone().unwrap_or_default();
        let sub = out.sub.first().cloned().unwrap_or_default();
        if let Some(long) = v.strip_prefix("--") {
            let flag = long_flag(long, dynamic_flag, args, &mut i);
            out.flags.push(flag);
            i += 1;
            continue;
        }
        // A short flag or a cluster: `-R x`, `-Rx`, `-R=x`, `-fR x`.
        short_flags(
            &v[1..],
            valued_shorts(&top, &sub),
            dynamic_flag,
            args,
            &mut i,
            &mut out.flags,
        );
        i += 1;
    }
    out
}

/// The value of a flag given as the next word (at `*i + 1`; `*i` moves onto it): the value
/// (`Some(None)`: decided at run time) and its template.
fn next_value(args: &[Arg], i: &mut usize) -> (Option<Option<String>>, Option<String>) {
    *i += 1;
    (
        Some(
            args.get(*i)
                .and_then(|x| x.value.as_deref().map(String::from)),
        ),
        args.get(*i).and_then(template),
    )
}

/// `--name`, `--name=value` or `--name value` (a name in [`VALUED_LONG`]); `long` is the word
/// without its dashes, `*i` its index.
fn long_flag(long: &str, dynamic_flag: bool, args: &[Arg], i: &mut usize) -> Flag {
    let (name, attached) = match long.split_once('=') {
        Some((n, val)) => (format!("--{n}"), Some(val.to_string())),
        None => (format!("--{long}"), None),
    };
    let (value, template) = match attached {
        Some(val) => (Some((!dynamic_flag).then(|| val.clone())), Some(val)),
        None if VALUED_LONG.contains(&name.as_str()) => next_value(args, i),
        None => (None, None),
    };
    Flag {
        name,
        value,
        template,
    }
}

/// A cluster of short flags (`body` is the word without its dash): each letter a flag until
/// one in `shorts` takes the rest of the word (`-Rx`, `-R=x`) or the next word (`-fR x`).
fn short_flags(
    body: &str,
    shorts: &str,
    dynamic_flag: bool,
    args: &[Arg],
    i: &mut usize,
    flags: &mut Vec<Flag>,
) {
    for (pos, c) in body.char_indices() {
        if shorts.contains(c) {
            let rest = &body[pos + c.len_utf8()..];
            let (value, template) = if !rest.is_empty() {
                let val = rest.strip_prefix('=').unwrap_or(rest).to_string();
                (Some((!dynamic_flag).then(|| val.clone())), Some(val))
            } else {
                next_value(args, i)
            };
            flags.push(Flag {
                name: format!("-{c}"),
                value,
                template,
            });
            return;
        }
        flags.push(Flag {
            name: format!("-{c}"),
            value: None,
            template: None,
        });
    }
}

/// gh top-level commands that only read (or act locally), whatever follows.
const READ_ONLY_TOP: &[&str] = &[
    "browse",
    "search",
    "status",
    "completion",
    "help",
    "version",
    "org",
    "attestation",
    "ruleset",
    "preview",
    "accessibility",
    "licenses",
];

/// For each top-level command that has writes: its subcommands that do not write.
fn read_subs(top: &str) -> Option<&'static [&'static str]> {
    Some(match top {
        "pr" => &["list", "view", "status", "checks", "diff", "checkout", "co"],
        "issue" => &["list", "view", "status"],
        "release" => &["list", "view", "download", "verify", "verify-asset"],
        "repo" => &[
            "view",
            "list",
            "clone",
            "set-default",
            "gitignore",
            "license",
            "deploy-key list",
            "autolink list",
            "autolink view",
        ],
        "label" => &["list"],
        "secret" => &["list"],
        "variable" => &["list", "get"],
        "gist" => &["list", "view", "clone"],
        "workflow" => &["list", "view"],
        "run" => &["list", "view", "watch", "download"],
        "cache" => &["list"],
        "ssh-key" | "gpg-key" => &["list"],
        "codespace" | "cs" => &["list", "view", "logs", "jupyter", "code", "ports"],
        "project" => &["list", "view", "field-list", "item-list"],
        "auth" => &["status"],
        "config" => &["get", "list"],
        "alias" => &["list"],
        "extension" | "extensions" | "ext" => &["list", "search", "browse"],
        "agent-task" => &["list", "view"],
        _ => return None,
    })
}

/// Whether `top` is one of gh's own commands (an alias cannot shadow it).
pub fn is_builtin(top: &str) -> bool {
    top == "api" || READ_ONLY_TOP.contains(&top) || read_subs(top).is_some()
}

/// Whether `gh <args>` (after alias expansion) writes to GitHub or its credentials: the
/// inventory of `github-api.md` §3.5. An unknown top-level word counts as a write (an extension
/// or an alias that did not resolve). `gh api` is decided by [`crate::gh_api`]; this answers
/// `true` for it only when the caller has not.
pub fn is_write_command(g: &GhArgs) -> bool {
    if g.dynamic_command {
        return true;
    }
    let Some(top) = g.top.as_deref() else {
        return false;
    };
    if READ_ONLY_TOP.contains(&top) {
        return false;
    }
    if top == "api" {
        return true;
    }
    let Some(reads) = read_subs(top) else {
        // Unknown top-level word: an extension or an unresolved alias.
        return true;
    };
    let Some(sub) = g.sub() else {
        // `gh pr` alone prints help.
        return false;
    };
    let asks_help = g
        .flags
        .iter()
        .any(|f| f.value.is_none() && (f.name == "--help" || f.name == "-h"));
    if matches!(sub, "help") || asks_help {
        return false;
    }
    let path = g.sub.join(" ");
    if reads.contains(&path.as_str()) {
        return false;
    }
    !(g.sub.len() == 1 && reads.contains(&sub))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gh(cmd: &str) -> GhArgs {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        parse(&v.invocations[0].args)
    }

    #[test]
    fn repo_flag_in_every_spelling() {
        for cmd in [
            "gh issue create -R o/r",
            "gh issue create -Ro/r",
            "gh issue create -R=o/r",
            "gh issue create --repo o/r",
            "gh issue create --repo=o/r",
        ] {
            let g = gh(cmd);
            assert_eq!(
                g.values(&["-R", "--repo"]).collect::<Vec<_>>(),
                vec![Some("o/r")],
                "{cmd}"
            );
        }
    }

    #[test]
    fn values_are_not_flags() {
        let g = gh("gh issue create --repo a/b --title \"-Rx/y\"");
        assert_eq!(
            g.values(&["-R", "--repo"]).collect::<Vec<_>>(),
            vec![Some("a/b")]
        );
        let g = gh("gh pr create -f --repo x/y --title t");
        assert_eq!(
            g.values(&["-R", "--repo"]).collect::<Vec<_>>(),
            vec![Some("x/y")]
        );
        let g = gh("gh pr create -F repos/x/y --title t");
        assert_eq!(g.values(&["-R", "--repo"]).count(), 0);
    }

    #[test]
    fn inventory() {
        for w in [
            "gh pr create",
            "gh pr merge 1",
            "gh issue develop 3",
            "gh repo sync",
            "gh auth token",
            "gh workflow run x",
            "gh cache delete 1",
            "gh codespace ports visibility 80:public",
            "gh repo deploy-key add k",
            "gh my-extension",
            "gh secret set X",
            "gh pr update-branch",
        ] {
            assert!(is_write_command(&gh(w)), "{w}");
        }
        for r in [
            "gh pr list",
            "gh pr view 1",
            "gh issue list",
            "gh repo view",
            "gh search issues x",
            "gh run watch",
            "gh auth status",
            "gh pr",
            "gh ruleset list",
            "gh codespace ports",
            "gh repo deploy-key list",
            "gh pr create --help",
        ] {
            assert!(!is_write_command(&gh(r)), "{r}");
        }
    }
}
