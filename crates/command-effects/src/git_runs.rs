//! The commands a git subcommand is handed to run, as shell text: `rebase -x/--exec <cmd>`
//! (after each commit; `--no-exec` drops the ones before it), `bisect run <cmd> [<arg>...]`,
//! `submodule [--quiet] foreach [--recursive] <cmd>` (in each submodule), `filter-branch
//! --<kind>-filter <cmd>`, `difftool -x/--extcmd <cmd>`. git hands each to a shell (`sh -c`, or
//! difftool's `eval`; bisect's words are an argv), so what it runs is what a command line would
//! run: `git rebase -x 'git push origin HEAD:main' HEAD~3` pushes to main. rebase's options are
//! read with git's grammar ([`crate::git_options`]: `--ex` is `--exec`). Also the commands git
//! runs to reach a remote (`--upload-pack`, `--receive-pack`, an `ext::` remote's command) and,
//! through [`crate::git_run_settings`], those settings and variables name.

use crate::git::GitCall;
use crate::git_options::{self, flag, optional, valued, Opt, Takes};

/// One command a git call runs: which option handed it, and its text (`None`: decided at run
/// time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handed {
    /// `rebase --exec`, `bisect run`, ...
    pub what: &'static str,
    pub text: Option<String>,
}

/// `git rebase` (git 2.47 `builtin/rebase.c`, as `git rebase -h` lists them).
const REBASE: &[Opt] = &[
    valued("onto", None),
    flag("keep-base", None),
    flag("verify", None),
    flag("quiet", Some('q')),
    flag("verbose", Some('v')),
    Opt {
        long: "stat",
        short: Some('n'),
        takes: Takes::Nothing,
        short_negates: true,
    },
    flag("signoff", None),
    flag("committer-date-is-author-date", None),
    flag("reset-author-date", None),
    // `-C <n>` has no long name; this one cannot be typed as one.
    valued("-C", Some('C')),
    flag("ignore-whitespace", None),
    valued("whitespace", None),
    flag("ignore-date", None),
    flag("force-rebase", Some('f')),
    flag("ff", None),
    flag("continue", None),
    flag("skip", None),
    flag("abort", None),
    flag("quit", None),
    flag("edit-todo", None),
    flag("show-current-patch", None),
    flag("apply", None),
    flag("merge", Some('m')),
    flag("interactive", Some('i')),
    flag("rerere-autoupdate", None),
    valued("empty", None),
    flag("autosquash", None),
    flag("update-refs", None),
    optional("gpg-sign", Some('S')),
    flag("autostash", None),
    valued("exec", Some('x')),
    optional("rebase-merges", Some('r')),
    flag("fork-point", None),
    valued("strategy", Some('s')),
    valued("strategy-option", Some('X')),
    flag("root", None),
    flag("reschedule-failed-exec", None),
    flag("reapply-cherry-picks", None),
    flag("keep-empty", Some('k')),
    flag("allow-empty-message", None),
    flag("help", Some('h')),
];

/// filter-branch's options that hand it shell text (its own parser takes them whole).
const FILTERS: [(&str, &str); 7] = [
    ("--env-filter", "filter-branch --env-filter"),
    ("--tree-filter", "filter-branch --tree-filter"),
    ("--index-filter", "filter-branch --index-filter"),
    ("--parent-filter", "filter-branch --parent-filter"),
    ("--msg-filter", "filter-branch --msg-filter"),
    ("--commit-filter", "filter-branch --commit-filter"),
    ("--tag-name-filter", "filter-branch --tag-name-filter"),
];

/// The commands `call` hands to a shell, in the order given.
pub fn handed(call: &GitCall<'_>) -> Vec<Handed> {
    let words: Vec<Option<&str>> = call.args.iter().map(|a| a.value.as_deref()).collect();
    // A value the parse could not read is decided at run time only when some word is; with
    // every word literal it is missing (`git rebase --exec`), and git refuses the command.
    let dynamic = words.iter().any(Option::is_none);
    let given = move |v: Option<String>| (v.is_some() || dynamic).then_some(v);
    match call.sub() {
        Some("rebase") => {
            let parsed = git_options::parse(REBASE, &call.args);
            // `--no-exec` forgets the commands given before it.
            let after = parsed
                .given
                .iter()
                .rposition(|g| g.long == "exec" && g.negated)
                .map_or(0, |i| i + 1);
            parsed.given[after..]
                .iter()
                .filter(|g| g.long == "exec")
                .filter_map(|g| given(g.value.clone().flatten()))
                .map(|v| handed_text("rebase --exec", v))
                .collect()
        }
        Some("difftool") => difftool(&words)
            .into_iter()
            .filter_map(given)
            .map(|v| handed_text("difftool --extcmd", v))
            .collect(),
        Some("bisect") => match words.split_first() {
            // Its words are the command's argv: each is quoted (`git bisect run 'a && b'`
            // runs a program named `a && b`).
            Some((Some("run"), rest)) if !rest.is_empty() => vec![Handed {
                what: "bisect run",
                text: rest
                    .iter()
                    .copied()
                    .collect::<Option<Vec<&str>>>()
                    .map(shell_words::join),
            }],
            _ => Vec::new(),
        },
        Some("submodule") => {
            let mut rest = words.as_slice();
            while let Some((Some("--quiet" | "-q"), tail)) = rest.split_first() {
                rest = tail;
            }
            match rest.split_first() {
                Some((Some("foreach"), tail)) => {
                    let cmd: Vec<Option<&str>> = tail
                        .iter()
                        .copied()
                        .skip_while(|w| matches!(w, Some("--recursive" | "-q" | "--quiet")))
                        .collect();
                    if cmd.is_empty() {
                        Vec::new()
                    } else {
                        vec![argv_text("submodule foreach", &cmd)]
                    }
                }
                _ => Vec::new(),
            }
        }
        Some("filter-branch") => filter_branch(&words),
        _ => Vec::new(),
    }
    .into_iter()
    .chain(
        transport(call, &words)
            .into_iter()
            .filter_map(|(what, v)| given(v).map(|text| handed_text(what, text))),
    )
    .chain(ext_remotes(call))
    .chain(
        crate::git_run_settings::commands(call)
            .into_iter()
            .map(|(what, text)| handed_text(what, text)),
    )
    .collect()
}

/// Commands git runs to reach a remote given as options, as shell text with the remote's path
/// or host appended (real git ran each): `--upload-pack` (fetch, pull, clone `-u`, ls-remote
/// `--exec`) and `--receive-pack`/`--exec` (push, send-pack) for a local or ssh remote,
/// `archive --exec` (the settings and variables, `core.sshCommand`, `GIT_SSH_COMMAND`, are
/// [`crate::git_run_settings`]'s). Judged whatever the remote is (a URL or a remote's
/// configured one may be local or ssh). `--upload-pack` by any prefix from `--upl` (no other
/// option of those commands starts so).
fn transport(call: &GitCall<'_>, words: &[Option<&str>]) -> Vec<(&'static str, Option<String>)> {
    let mut out = Vec::new();
    let sub = call.sub().unwrap_or("");
    let valued: &[(&str, &'static str)] = match sub {
        "fetch" | "pull" | "clone" | "ls-remote" => &[("--upload-pack", "--upload-pack")],
        _ => &[],
    };
    each_word(words, &mut |w, next| {
        let (name, attached) = w.split_once('=').map_or((w, None), |(n, v)| (n, Some(v)));
        let what = match (sub, name) {
            ("clone", "-u") => "clone --upload-pack",
            ("ls-remote" | "archive", "--exec") => "--exec",
            ("send-pack", "--receive-pack" | "--exec") => "send-pack --receive-pack",
            (_, n) if n.len() >= 5 && valued.iter().any(|(full, _)| full.starts_with(n)) => {
                "--upload-pack"
            }
            _ => return,
        };
        out.push((what, attached.map_or_else(next, |v| Some(v.to_string()))));
    });
    // Only a word that may spell `--receive-pack`/`--exec` is worth push's option parse.
    let may_name = || {
        words
            .iter()
            .flatten()
            .any(|w| w.starts_with("--r") || w.starts_with("--e"))
    };
    if sub == "push" && may_name() {
        let parsed = git_options::parse(git_options::PUSH, &call.args);
        for long in ["receive-pack", "exec"] {
            out.extend(
                parsed
                    .values(long)
                    .map(|v| ("push --receive-pack", v.map(String::from))),
            );
        }
    }
    out
}

/// `ext::<command> [<argument>...]` remotes (git-remote-ext): to reach one git runs the
/// command (without a shell) with those words, so it is judged as their shell quoting. Any
/// word of the call (a URL, `--repo=`, `git remote add`, `git config ... url`), any setting's
/// value (`remote.<r>.url`) and an `url.<base>.insteadOf` base name one. Judged whatever
/// `protocol.ext.allow` says (git refuses it by default; `-c protocol.ext.allow=always` or
/// `GIT_ALLOW_PROTOCOL=ext` lets it run: real git ran `ext::sh -c touch% <file>`).
fn ext_remotes(call: &GitCall<'_>) -> Vec<Handed> {
    let words = call.args.iter().filter_map(|a| a.value.as_deref());
    let values = call.config.iter().filter_map(|c| c.value.as_deref());
    let bases = call.config.iter().filter_map(|c| {
        let rest = c.key.strip_prefix("url.")?;
        rest.rsplit_once('.').map(|(base, _)| base)
    });
    words
        .chain(values)
        .chain(bases)
        .filter_map(|w| match w.find("ext::") {
            Some(0) => Some(&w[5..]),
            Some(i) if w[..i].ends_with('=') => Some(&w[i + 5..]),
            _ => None,
        })
        .map(|spec| handed_text("ext:: remote", Some(ext_command(spec))))
        .collect()
}

/// git-remote-ext's words: split at unescaped spaces; `% ` is a space, `%%` a `%`, `%s`/`%S`
/// the service (`upload-pack`/`git-upload-pack`), and a word with `%G`/`%V` is not passed.
fn ext_command(spec: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let (mut word, mut dropped) = (String::new(), false);
    let mut chars = spec.chars();
    let mut end = |word: &mut String, dropped: &mut bool| {
        if !word.is_empty() && !*dropped {
            words.push(std::mem::take(word));
        }
        word.clear();
        *dropped = false;
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' => end(&mut word, &mut dropped),
            '%' => match chars.next() {
                Some(' ') => word.push(' '),
                Some('%') => word.push('%'),
                Some('s') => word.push_str("upload-pack"),
                Some('S') => word.push_str("git-upload-pack"),
                Some('G' | 'V') => dropped = true,
                Some(o) => {
                    word.push('%');
                    word.push(o);
                }
                None => word.push('%'),
            },
            c => word.push(c),
        }
    }
    end(&mut word, &mut dropped);
    shell_words::join(words)
}

fn handed_text(what: &'static str, text: Option<String>) -> Handed {
    Handed { what, text }
}

/// Words run as `sh -c '<first> "$@"' <first> <rest>...`: the first is shell text, the others
/// its arguments (quoted again); any word decided at run time makes the text unknown.
fn argv_text(what: &'static str, words: &[Option<&str>]) -> Handed {
    let text = words
        .iter()
        .copied()
        .collect::<Option<Vec<&str>>>()
        .map(|w| {
            let mut t = w[0].to_string();
            for a in &w[1..] {
                t.push(' ');
                t.push_str(&shell_words::quote(a));
            }
            t
        });
    Handed { what, text }
}

/// `difftool -x <cmd>`, `--extcmd[=]<cmd>` (`--no-extcmd` drops the one before). difftool
/// passes options it does not know to `git diff`, so git reads its own only when spelled whole
/// (`--ext` is not `--extcmd` there); short ones cluster (`-yx <cmd>`). `Some(None)`: the
/// value is not a literal word, or missing.
fn difftool(words: &[Option<&str>]) -> Vec<Option<String>> {
    let mut out = Vec::new();
    each_word(words, &mut |w, next| {
        if w == "--extcmd" {
            out.push(next());
        } else if w == "--no-extcmd" {
            out.clear();
        } else if let Some(v) = w.strip_prefix("--extcmd=") {
            out.push(Some(v.to_string()));
        } else if !w.starts_with("--") && w.len() > 1 && w.starts_with('-') {
            // `-gdyx...`: flags, then `x` with the rest of the word or the next one.
            match w[1..].trim_start_matches(['g', 'd', 'y']).strip_prefix('x') {
                Some("") => out.push(next()),
                Some(v) => out.push(Some(v.to_string())),
                None => {}
            }
        }
    });
    out
}

fn filter_branch(words: &[Option<&str>]) -> Vec<Handed> {
    let mut out = Vec::new();
    each_word(words, &mut |w, next| {
        for (opt, what) in FILTERS {
            if w == opt {
                out.push(handed_text(what, next()));
            } else if let Some(v) = w.strip_prefix(opt).and_then(|r| r.strip_prefix('=')) {
                out.push(handed_text(what, Some(v.to_string())));
            }
        }
    });
    out
}

/// What [`each_word`] hands each word: `next()` takes the word after it as a value (`None`:
/// decided at run time, or missing).
type OnWord<'e> = dyn FnMut(&str, &mut dyn FnMut() -> Option<String>) + 'e;

/// Calls `each(word, next)` for each literal word before `--` (a run-time one is skipped).
fn each_word(words: &[Option<&str>], each: &mut OnWord<'_>) {
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        i += 1;
        let Some(w) = w else { continue };
        if w == "--" {
            break;
        }
        let mut next = || {
            let v = words.get(i).copied().flatten().map(String::from);
            i += 1;
            v
        };
        each(w, &mut next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handed_by(cmd: &str) -> Vec<(&'static str, Option<String>)> {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        let call = crate::git::parse_git(&v.invocations[0]);
        handed(&call)
            .into_iter()
            .map(|h| (h.what, h.text))
            .collect()
    }

    #[test]
    fn each_command_git_is_handed_in_every_spelling() {
        let push = Some("git push origin HEAD:main".to_string());
        for cmd in [
            "git rebase -x 'git push origin HEAD:main' HEAD~1",
            "git rebase --exec='git push origin HEAD:main' HEAD~1",
            "git rebase --ex 'git push origin HEAD:main' HEAD~1",
            "git rebase -ix'git push origin HEAD:main' HEAD~1",
            "git -C /r rebase --onto main -x 'git push origin HEAD:main' HEAD~1",
        ] {
            assert_eq!(
                handed_by(cmd),
                vec![("rebase --exec", push.clone())],
                "{cmd}"
            );
        }
        assert_eq!(
            handed_by("git rebase -x 'git push origin HEAD:main' --no-exec -x make HEAD~1"),
            vec![("rebase --exec", Some("make".into()))]
        );
        assert_eq!(
            handed_by("git rebase -x \"$CMD\" HEAD~1"),
            vec![("rebase --exec", None)]
        );
        assert_eq!(
            handed_by("git bisect run git push origin HEAD:main"),
            vec![("bisect run", Some("git push origin HEAD:main".into()))]
        );
        assert_eq!(
            handed_by("git bisect run 'make test && git push origin HEAD:main'"),
            vec![(
                "bisect run",
                Some("'make test && git push origin HEAD:main'".into())
            )]
        );
        assert_eq!(
            handed_by("git submodule --quiet foreach --recursive 'git push origin HEAD:main'"),
            vec![("submodule foreach", push.clone())]
        );
        assert_eq!(
            handed_by("git filter-branch --tree-filter 'git push origin HEAD:main' HEAD"),
            vec![("filter-branch --tree-filter", push.clone())]
        );
        assert_eq!(
            handed_by("git difftool --extcmd='git push origin HEAD:main' HEAD~1"),
            vec![("difftool --extcmd", push.clone())]
        );
        assert_eq!(
            handed_by("git difftool -yx 'git push origin HEAD:main'"),
            vec![("difftool --extcmd", push.clone())]
        );
        assert_eq!(
            handed_by("git difftool -x'git push origin HEAD:main' --no-extcmd -x make"),
            vec![("difftool --extcmd", Some("make".into()))]
        );
        // Transport commands, for a local or ssh remote.
        for (cmd, what) in [
            (
                "git push --receive-pack='git push origin HEAD:main' ../o.git main",
                "push --receive-pack",
            ),
            (
                "git push --receive-p='git push origin HEAD:main' ../o.git main",
                "push --receive-pack",
            ),
            (
                "git push --exec 'git push origin HEAD:main' ../o.git main",
                "push --receive-pack",
            ),
            (
                "git fetch --upload-pack 'git push origin HEAD:main' ../o.git",
                "--upload-pack",
            ),
            (
                "git ls-remote --uplo='git push origin HEAD:main' ../o.git",
                "--upload-pack",
            ),
            (
                "git ls-remote --exec='git push origin HEAD:main' ../o.git",
                "--exec",
            ),
            (
                "git clone -u 'git push origin HEAD:main' ../o.git x",
                "clone --upload-pack",
            ),
            (
                "git -c core.sshCommand='git push origin HEAD:main' fetch",
                "-c core.sshCommand",
            ),
            (
                "git -c remote.o.uploadpack='git push origin HEAD:main' fetch o",
                "-c remote.<name>.uploadpack",
            ),
            (
                "GIT_SSH_COMMAND='git push origin HEAD:main' git ls-remote git@h:x",
                "GIT_SSH_COMMAND",
            ),
        ] {
            assert_eq!(
                handed_by(cmd),
                vec![(what, Some("git push origin HEAD:main".into()))],
                "{cmd}"
            );
        }
        // ext:: remotes: git runs the command with its words.
        for cmd in [
            "git -c protocol.ext.allow=always fetch 'ext::sh -c git% push% origin% HEAD:main'",
            "GIT_ALLOW_PROTOCOL=ext git ls-remote 'ext::sh -c git% push% origin% HEAD:main %S'",
            "git clone -- 'ext::sh -c git% push% origin% HEAD:main' x",
            "git push --repo='ext::sh -c git% push% origin% HEAD:main' main",
            "git remote add x 'ext::sh -c git% push% origin% HEAD:main'",
            "git -c remote.x.url='ext::sh -c git% push% origin% HEAD:main' fetch x",
            "git -c 'url.ext::sh -c git% push% origin% HEAD:main.insteadOf=https://h/' fetch https://h/r",
        ] {
            let got = handed_by(cmd);
            let text = got.iter().find(|(w, _)| *w == "ext:: remote").map(|(_, t)| t.clone());
            let text = text.flatten().unwrap_or_default();
            let words = shell_words::split(&text).unwrap();
            assert_eq!(words[..3], ["sh", "-c", "git push origin HEAD:main"], "{cmd}");
        }
        assert_eq!(
            handed_by("git fetch 'ext::ssh -p 22 %G/repo h %S% /r'"),
            vec![(
                "ext:: remote",
                Some("ssh -p 22 h 'git-upload-pack /r'".into())
            )]
        );
        // Nothing handed: the look-alikes.
        for cmd in [
            "git rebase -i HEAD~3",
            "git rebase --exec",
            "git bisect run",
            "git bisect start HEAD HEAD~5",
            "git submodule update --init",
            "git submodule foreach",
            "git difftool -t vimdiff",
            "git log --exec x",
            "git rebase -s ours -X theirs main",
            // difftool hands `--ext` to git diff: not its `--extcmd`.
            "git difftool --ext 'git push origin HEAD:main'",
            // `--up` is ambiguous to fetch (`--update-head-ok`, `--update-shallow`).
            "git fetch --up x ../o.git",
            // `--rec` is ambiguous to push (`--recurse-submodules`): git refuses it.
            "git push --rec='git push origin HEAD:main' ../o.git main",
            "git push origin main",
            "git commit -m 'see ext::sh for the transport'",
            "git log --grep=text::x",
        ] {
            assert_eq!(handed_by(cmd), vec![], "{cmd}");
        }
    }
}
