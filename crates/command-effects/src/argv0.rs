//! What a program is told it is called (its `argv[0]`) when that is not its file's name, and
//! the program that dispatches on it: git runs `git-<sub> ARGS` as `git <sub> ARGS` whatever its
//! file is called (`exec -a git-push git origin main` pushes; issue 41). One rule for every
//! reader: the command text (`exec -a NAME`, [`exec_name`]) and the exec gate (the kernel's
//! argv, [`git_argv`]).

use shell_syntax::view::{Invocation, Wrapper};
use shell_syntax::{Arg, Text};
use std::borrow::Cow;

/// The `argv[0]` an `exec` wrapper gives the program it runs: the `NAME` word of `-a NAME` (also
/// `-aNAME` and `-cla NAME`; its value is `None` when decided at run time, and so is a run-time
/// word where an option may be), `None` for an `exec` without `-a` or another wrapper.
pub fn exec_name<'a>(w: &Wrapper<'a>) -> Option<Arg<'a>> {
    if w.name != "exec" {
        return None;
    }
    let mut found = None;
    let mut words = w.args.iter();
    while let Some(a) = words.next() {
        let Some(v) = a.value.as_deref() else {
            // It may be `-a`, or the name itself.
            found = Some(a.clone());
            continue;
        };
        let Some(cluster) = v.strip_prefix('-').filter(|c| !c.is_empty() && *c != "-") else {
            continue;
        };
        if let Some(at) = cluster.find('a') {
            let attached = &cluster[at + 1..];
            found = match attached.is_empty() {
                true => words.next().cloned(),
                false => Some(Arg {
                    word: a.word,
                    value: Some(Text::from(attached)),
                }),
            };
        }
    }
    found
}

/// The subcommand git runs when it is called `name` (`git-push`, `/x/git-push.exe` → `push`),
/// or `None` when git reads its arguments as usual.
pub fn git_dispatch(name: &str) -> Option<&str> {
    let base = name.rsplit('/').next().unwrap_or(name);
    let base = match base.len() > 4 && base[base.len() - 4..].eq_ignore_ascii_case(".exe") {
        true => &base[..base.len() - 4],
        false => base,
    };
    base.strip_prefix("git-").filter(|s| !s.is_empty())
}

/// git's argv as git reads it (`argv[0]` first): `["git-push", "o"]` → `["git", "push", "o"]`;
/// an argv git reads as usual is returned as it is.
pub fn git_argv(argv: Vec<String>) -> Vec<String> {
    let Some(sub) = argv.first().and_then(|a| git_dispatch(a)).map(String::from) else {
        return argv;
    };
    let mut out = Vec::with_capacity(argv.len() + 1);
    out.push("git".to_string());
    out.push(sub);
    out.extend(argv.into_iter().skip(1));
    out
}

/// The arguments a git run sees after its program word when `exec` named it `argv0`: the
/// dispatched subcommand first (the name's own run-time word when it is decided at run time).
pub(crate) fn git_args<'a>(argv0: Arg<'a>, args: &mut Vec<Arg<'a>>) {
    let sub = match argv0.value.as_deref() {
        Some(name) => match git_dispatch(name) {
            Some(sub) => Arg {
                word: argv0.word,
                value: Some(Text::from(sub)),
            },
            None => return,
        },
        None => argv0,
    };
    args.insert(0, sub);
}

/// The arguments git reads in `inv` (a git invocation), after its program word: `inv.args`,
/// with the subcommand first when an `exec -a` wrapper named it (`exec -a git-push git o`).
pub fn git_args_of<'i, 'a>(inv: &'i Invocation<'a>) -> Cow<'i, [Arg<'a>]> {
    match inv.wrappers.last().and_then(exec_name) {
        None => Cow::Borrowed(&inv.args),
        Some(argv0) => {
            let mut args = inv.args.clone();
            git_args(argv0, &mut args);
            Cow::Owned(args)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_runs_the_subcommand_its_name_carries() {
        assert_eq!(git_dispatch("git-push"), Some("push"));
        assert_eq!(git_dispatch("/usr/lib/git-core/git-commit"), Some("commit"));
        assert_eq!(git_dispatch("git-push.EXE"), Some("push"));
        assert_eq!(git_dispatch("git"), None);
        assert_eq!(git_dispatch("git-"), None);
        assert_eq!(git_dispatch("deploy"), None);
        let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert_eq!(git_argv(words("git-push o main")), words("git push o main"));
        assert_eq!(git_argv(words("pusher push o")), words("pusher push o"));
    }
}
