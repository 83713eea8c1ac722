//! git alias expansion (G0): inline `-c alias.x=...`, `GIT_CONFIG_*` settings and the
//! repository's persisted aliases (config with includes, from the world), with a hop limit and
//! cycle detection. A shell alias (`!...`) is returned as shell text for the caller to judge.

use crate::git::GitCall;
use shell_syntax::view::Arg;
use std::collections::BTreeMap;

/// Most alias hops followed.
pub const MAX_HOPS: usize = 10;

/// git's own commands: an alias cannot shadow them.
const BUILTINS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "describe",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "for-each-ref",
    "format-patch",
    "fsck",
    "gc",
    "grep",
    "gui",
    "hash-object",
    "help",
    "index-pack",
    "init",
    "instaweb",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "mv",
    "notes",
    "pack-objects",
    "pack-refs",
    "prune",
    "pull",
    "push",
    "range-diff",
    "read-tree",
    "rebase",
    "reflog",
    "remote",
    "repack",
    "replace",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-email",
    "shortlog",
    "show",
    "show-branch",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "update-index",
    "update-ref",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
    "init-db",
    "backfill",
    "last-modified",
    "repo",
    "hook",
];

/// Whether `name` is one of git's own commands (never an alias).
pub fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name)
}

/// Whether git runs a similar command in place of an unknown one under `help.autocorrect =
/// value` (`None`: decided at run time): every value but those that only show suggestions or
/// none (`0`, `false`, `off`, `no`, `show`, `never`); `prompt` asks, and may be answered.
pub fn autocorrect_runs(value: Option<&str>) -> bool {
    let Some(v) = value else {
        return true;
    };
    let v = v.trim().to_ascii_lowercase();
    !matches!(v.as_str(), "0" | "false" | "off" | "no" | "show" | "never")
}

/// Whether git may run another command in place of `e`'s subcommand: it is neither one of
/// git's own nor an alias (an external `git-<name>` is an exec of its own), and
/// `help.autocorrect` runs a correction: the call's own setting (`-c`, `GIT_CONFIG_*`; the
/// last wins, a run-time one may), else `configured` (the config files' value, if set).
/// `git -c help.autocorrect=1 psh origin HEAD:main` runs `git push`.
pub fn may_autocorrect(e: &Expanded<'_>, configured: Option<&str>) -> bool {
    let unknown =
        e.chain.is_empty() && e.error.is_none() && e.call.sub().is_some_and(|s| !is_builtin(s));
    if !unknown {
        return false;
    }
    let own = e
        .call
        .config
        .iter()
        .rev()
        .find(|c| c.key.is_empty() || c.key == "help.autocorrect");
    match own {
        Some(c) => c.key.is_empty() || autocorrect_runs(c.value.as_deref()),
        None => configured.is_some_and(|v| autocorrect_runs(Some(v))),
    }
}

/// The outcome of expanding a git command's aliases.
#[derive(Debug, Clone)]
pub struct Expanded<'a> {
    /// The call after expansion (unchanged when no alias applied).
    pub call: GitCall<'a>,
    /// Alias names followed, in order.
    pub chain: Vec<String>,
    /// A shell alias reached: its command text (without `!`), the arguments appended by git.
    pub shell: Option<String>,
    /// Expansion stopped: hop limit, cycle, or an unparsable alias value.
    pub error: Option<String>,
}

/// Expands `call`'s subcommand through `alias.*` settings: inline ones first (they override
/// config), then `persisted` (lower-cased names). The words an alias adds are allocated in
/// `arena`.
pub fn expand<'a>(
    arena: &'a bumpalo::Bump,
    call: &GitCall<'a>,
    persisted: &BTreeMap<String, String>,
) -> Expanded<'a> {
    let mut out = Expanded {
        call: call.clone(),
        chain: Vec::new(),
        shell: None,
        error: None,
    };
    let inline: BTreeMap<String, Option<String>> = call
        .config
        .iter()
        .filter_map(|c| Some((c.key.strip_prefix("alias.")?.to_string(), c.value.clone())))
        .collect();
    let lower: BTreeMap<String, &String> = persisted
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v))
        .collect();
    loop {
        let Some(sub) = out.call.sub().map(str::to_string) else {
            return out;
        };
        if BUILTINS.contains(&sub.as_str()) {
            return out;
        }
        let key = sub.to_ascii_lowercase();
        let value = match inline.get(&key) {
            Some(Some(v)) => v.clone(),
            Some(None) => {
                out.error = Some(format!("alias {sub} is decided at run time"));
                return out;
            }
            None => match lower.get(&key) {
                Some(v) => (*v).clone(),
                None => return out,
            },
        };
        if out.chain.contains(&sub) {
            out.error = Some(format!("alias cycle through {sub}"));
            return out;
        }
        if out.chain.len() >= MAX_HOPS {
            out.error = Some(format!("more than {MAX_HOPS} alias hops"));
            return out;
        }
        out.chain.push(sub.clone());
        if let Some(shell) = value.trim_start().strip_prefix('!') {
            out.shell = Some(shell.to_string());
            return out;
        }
        let words = match shell_words::split(&value) {
            Ok(w) if !w.is_empty() => w,
            _ => {
                out.error = Some(format!("alias {sub} cannot be read"));
                return out;
            }
        };
        let span = out
            .call
            .args
            .first()
            .map(|a| a.word.span())
            .unwrap_or_default();
        // The alias value is read as git's own arguments: it may start with global options
        // (`-c core.hooksPath=/dev/null commit`), which apply to the expanded command.
        let mut all: Vec<Arg<'a>> = words
            .iter()
            .map(|w| Arg::synthetic(arena, w.as_str(), span))
            .collect();
        all.extend(out.call.args.iter().cloned());
        let inner = crate::git::parse_git_args(&all, &|_| None);
        out.call.dir_changes.extend(inner.dir_changes);
        out.call.config.extend(inner.config);
        if inner.git_dir.is_some() {
            out.call.git_dir = inner.git_dir;
        }
        if inner.work_tree.is_some() {
            out.call.work_tree = inner.work_tree;
        }
        out.call.subcommand = inner.subcommand;
        out.call.args = inner.args;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::parse_git;

    /// Expands the git call `cmd` runs through `aliases` and hands the result to `check`.
    fn expanded(cmd: &str, aliases: &BTreeMap<String, String>, check: impl FnOnce(&Expanded<'_>)) {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        let arena = bumpalo::Bump::new();
        check(&expand(&arena, &parse_git(&v.invocations[0]), aliases));
    }

    #[test]
    fn expands_persisted_and_inline_aliases() {
        let aliases = BTreeMap::from([
            ("ci".to_string(), "commit -n".to_string()),
            ("pub".to_string(), "ci2 --amend".to_string()),
            ("ci2".to_string(), "ci".to_string()),
            ("sh".to_string(), "!git reset --hard".to_string()),
            ("loop".to_string(), "loop2".to_string()),
            ("loop2".to_string(), "loop".to_string()),
        ]);
        expanded("git ci -m x", &aliases, |e| {
            assert_eq!(e.call.sub(), Some("commit"));
            assert_eq!(e.call.arg_values(), vec![Some("-n"), Some("-m"), Some("x")]);
        });
        expanded("git pub", &aliases, |e| {
            assert_eq!(e.chain, vec!["pub", "ci2", "ci"]);
            assert_eq!(e.call.arg_values(), vec![Some("-n"), Some("--amend")]);
        });
        expanded("git sh", &aliases, |e| {
            assert_eq!(e.shell.as_deref(), Some("git reset --hard"))
        });
        expanded("git loop", &aliases, |e| assert!(e.error.is_some()));
        expanded("git -c alias.p=push p origin main", &BTreeMap::new(), |e| {
            assert_eq!(e.call.sub(), Some("push"))
        });
        // Builtins are never aliased.
        let shadow = BTreeMap::from([("push".to_string(), "status".to_string())]);
        expanded("git push", &shadow, |e| {
            assert_eq!(e.call.sub(), Some("push"))
        });
    }

    #[test]
    fn an_unknown_command_may_be_corrected_into_another_when_autocorrect_runs() {
        for (value, runs) in [
            (Some("1"), true),
            (Some("immediate"), true),
            (Some("-1"), true),
            (Some("20"), true),
            (Some("prompt"), true),
            (None, true),
            (Some("0"), false),
            (Some("false"), false),
            (Some("Never"), false),
            (Some("show"), false),
        ] {
            assert_eq!(autocorrect_runs(value), runs, "{value:?}");
        }
        let none = BTreeMap::new();
        let aliases = BTreeMap::from([("psh".to_string(), "status".to_string())]);
        for (cmd, aliases, configured, may) in [
            (
                "git -c help.autocorrect=1 psh origin HEAD:main",
                &none,
                None,
                true,
            ),
            ("git -c help.autocorrect=\"$A\" psh", &none, None, true),
            ("git -c \"$K\"=1 psh", &none, None, true),
            ("git psh origin HEAD:main", &none, Some("immediate"), true),
            // The command's own setting wins over the files'.
            ("git -c help.autocorrect=0 psh", &none, Some("1"), false),
            ("git psh origin HEAD:main", &none, None, false),
            ("git psh", &none, Some("never"), false),
            // Known commands and aliases are run as they are.
            ("git -c help.autocorrect=1 push", &none, None, false),
            ("git -c help.autocorrect=1 psh", &aliases, None, false),
            ("git -c help.autocorrect=1 --version", &none, None, false),
        ] {
            expanded(cmd, aliases, |e| {
                assert_eq!(may_autocorrect(e, configured), may, "{cmd} {configured:?}")
            });
        }
    }
}
