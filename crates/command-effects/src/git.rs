//! A `git` invocation split into its global options and its subcommand, as git's own option
//! parser reads them: `-C <dir>`, `-c <k>=<v>`, `--config-env=<k>=<ENV>`, `--git-dir`,
//! `--work-tree`, `--namespace`, `--exec-path`, `-p`/`-P`/`--no-pager`, ... Shared by G4 and G6.

use shell_syntax::view::{Arg, Invocation};

/// A `-c`/`--config-env`/`GIT_CONFIG_*` setting that applies to one git command.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ConfigSetting {
    /// Lower-cased key (`core.hookspath`); section and variable names are case-insensitive.
    pub key: String,
    /// The value, `None` when it is decided at run time (or comes from `--config-env`).
    pub value: Option<String>,
    /// Where it came from (`-c`, `--config-env`, `GIT_CONFIG_COUNT`, `GIT_CONFIG_PARAMETERS`).
    pub via: &'static str,
}

/// `git [global options] <subcommand> [args]`.
#[derive(Debug, Clone)]
pub struct GitCall<'a> {
    /// Each `-C` operand, in order (`None`: dynamic).
    pub dir_changes: Vec<Option<String>>,
    pub config: Vec<ConfigSetting>,
    /// `--git-dir` (`Some(None)`: given, but dynamic).
    pub git_dir: Option<Option<String>>,
    /// `--work-tree` (`Some(None)`: given, but dynamic).
    pub work_tree: Option<Option<String>>,
    /// The subcommand word: `None` when absent, `Some(None)` when dynamic.
    pub subcommand: Option<Option<String>>,
    /// Arguments after the subcommand.
    pub args: Vec<Arg<'a>>,
    /// The hook managers' switches set in the call's environment ([`HOOK_SKIPS`]), as
    /// `NAME=value` (`NAME=<run time>` when decided at run time).
    pub hook_skips: Vec<String>,
    /// A remote helper's push (`helper_push`): the branches come on its stdin. Read as
    /// `push <destination> <a refspec decided at run time>`.
    pub refs_on_stdin: bool,
    /// The variables of [`CONFIG_VARS`] or [`crate::git_run_settings::VARS`] set in the call's
    /// environment (`None`: decided at run time): where git finds its global and system files,
    /// and shell text it runs (the editors, `GIT_SSH_COMMAND`, ...).
    pub read_vars: Vec<(&'static str, Option<String>)>,
}

/// Variables that move git's config files ([`crate::git_config_files`]). A call reads these and
/// those whose value git runs as shell text ([`crate::git_run_settings::VARS`]).
pub const CONFIG_VARS: [&str; 5] = [
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "HOME",
    "XDG_CONFIG_HOME",
];

/// Environment variables with which the common hook managers skip the repository's hooks, and
/// the value that does (`None`: any non-empty value): husky (`HUSKY=0`, v4's
/// `HUSKY_SKIP_HOOKS`), pre-commit (`SKIP=<hook ids>`), lefthook (`LEFTHOOK=0`,
/// `LEFTHOOK_EXCLUDE`), overcommit (`OVERCOMMIT_DISABLE`).
pub const HOOK_SKIPS: [(&str, Option<&str>); 6] = [
    ("HUSKY", Some("0")),
    ("HUSKY_SKIP_HOOKS", None),
    ("SKIP", None),
    ("LEFTHOOK", Some("0")),
    ("LEFTHOOK_EXCLUDE", None),
    ("OVERCOMMIT_DISABLE", None),
];

fn hook_skips(env: &dyn Fn(&str) -> Option<Option<String>>) -> Vec<String> {
    HOOK_SKIPS
        .iter()
        .filter_map(|(name, skips)| match env(name)? {
            Some(v) if skips.map_or(!v.is_empty(), |s| v == s) => Some(format!("{name}={v}")),
            Some(_) => None,
            None => Some(format!("{name}=<run time>")),
        })
        .collect()
}

impl GitCall<'_> {
    /// The value of one of [`CONFIG_VARS`] or [`crate::git_run_settings::VARS`] in the call's
    /// environment: `None` unset, `Some(None)` decided at run time.
    pub fn var(&self, name: &str) -> Option<Option<String>> {
        self.read_vars
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    }

    /// Static subcommand name.
    pub fn sub(&self) -> Option<&str> {
        self.subcommand.as_ref().and_then(|s| s.as_deref())
    }

    /// Whether the call may push its arguments: `push`, or a subcommand decided at run time
    /// (a word, or an unknown name git may autocorrect) that may be `push`. The one answer
    /// for every rule that judges pushes (G3's targets, G4's branch rules).
    pub fn may_push(&self) -> bool {
        self.sub() == Some("push") || self.subcommand == Some(None)
    }

    /// Static values of the arguments after the subcommand (`None` for dynamic ones).
    pub fn arg_values(&self) -> Vec<Option<&str>> {
        self.args.iter().map(|a| a.value.as_deref()).collect()
    }
}

/// Global options that take a separate value.
const VALUED: [&str; 6] = [
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
];

/// Splits a `git` invocation (program already known to be git). Also reads `GIT_CONFIG_COUNT`,
/// `GIT_CONFIG_KEY_n`/`VALUE_n` and `GIT_CONFIG_PARAMETERS` from the invocation's environment.
pub fn parse_git<'a>(inv: &Invocation<'a>) -> GitCall<'a> {
    parse_git_args(&crate::argv0::git_args_of(inv), &|name| {
        inv.env_value(name).map(|e| {
            e.value
                .as_ref()
                .and_then(|a| a.value.as_deref().map(String::from))
        })
    })
}

/// git's push plumbing is judged as the push it is: `send-pack [options] <repository> [<ref>...]`
/// and `http-push [options] <url> [<ref>...]` take `push`'s repository and refspec operands
/// (`git send-pack git@github.com:o/r.git main` updates `main` there like `git push`);
/// `send-pack --stateless-rpc` is a remote helper's half of a push (`helper_push`).
fn pushes_as<'s>(sub: &'s str, rest: &[Arg<'_>]) -> &'s str {
    let helper = || {
        rest.iter()
            .any(|a| a.value.as_deref() == Some("--stateless-rpc"))
    };
    match sub {
        "send-pack" if !helper() => "push",
        "http-push" => "push",
        s => s,
    }
}

/// A remote helper run as a command reads its instructions from stdin, and `push <src>:<dst>`
/// there pushes (real `git remote-https origin <url>` fed `push HEAD:refs/heads/main` updates
/// main). git runs its helpers itself for every push and fetch over their transports (the exec
/// gate tells those from one run by hand by the program that runs it); in a command, and run by
/// anything else, `remote-<transport> <remote> [<url>]` and a helper's half of a push,
/// `send-pack --stateless-rpc ... <url> --stdin`, are pushes to `<url>` (else `<remote>`'s) of
/// branches decided at run time. `None`: not a helper, or no destination named.
fn helper_push<'a>(sub: &str, rest: &[Arg<'a>]) -> Option<Vec<Arg<'a>>> {
    let dest = match sub {
        "send-pack" => {
            if !rest
                .iter()
                .any(|a| a.value.as_deref() == Some("--stateless-rpc"))
            {
                return None;
            }
            // Its options are attached (`--receive-pack=<x>`); a word decided at run time
            // may be the destination.
            rest.iter()
                .find(|a| a.value.as_deref().is_none_or(|v| !v.starts_with('-')))?
        }
        s if s.len() > "remote-".len() && s.starts_with("remote-") => {
            rest.get(1).or(rest.first())?
        }
        _ => return None,
    };
    let refspec = Arg {
        word: dest.word,
        value: None,
    };
    Some(vec![dest.clone(), refspec])
}

/// Splits git arguments; `env(name)` answers `None` (unset), `Some(None)` (set, dynamic) or
/// `Some(Some(v))`.
pub fn parse_git_args<'a>(
    args: &[Arg<'a>],
    env: &dyn Fn(&str) -> Option<Option<String>>,
) -> GitCall<'a> {
    let mut call = GitCall {
        dir_changes: Vec::new(),
        config: env_config(env),
        git_dir: env("GIT_DIR"),
        work_tree: env("GIT_WORK_TREE"),
        subcommand: None,
        args: Vec::new(),
        hook_skips: hook_skips(env),
        refs_on_stdin: false,
        read_vars: CONFIG_VARS
            .iter()
            .chain(&crate::git_run_settings::VARS)
            .filter_map(|n| env(n).map(|v| (*n, v)))
            .collect(),
    };
    // `https://x-access-token:$T@github.com/o/r`: a URL whose only run-time part is its
    // credentials names its host and repository literally.
    let owned;
    let args = if args.iter().any(|a| a.value.is_none()) {
        owned = args
            .iter()
            .map(|a| match a.value {
                None => Arg {
                    word: a.word,
                    value: crate::git_url::past_credentials(&a.word).map(Into::into),
                },
                Some(_) => a.clone(),
            })
            .collect::<Vec<_>>();
        owned.as_slice()
    } else {
        args
    };
    let mut i = 0;
    while i < args.len() {
        let Some(a) = args[i].value.as_deref() else {
            // A dynamic word where the subcommand would be.
            call.subcommand = Some(None);
            call.args = args[i + 1..].to_vec();
            return call;
        };
        if !a.starts_with('-') || a == "-" {
            let rest = &args[i + 1..];
            match helper_push(a, rest) {
                Some(push) => {
                    call.subcommand = Some(Some("push".to_string()));
                    call.args = push;
                    call.refs_on_stdin = true;
                }
                None => {
                    call.subcommand = Some(Some(pushes_as(a, rest).to_string()));
                    call.args = rest.to_vec();
                    // `send-pack --stdin` takes more refs from its stdin.
                    if a == "send-pack" && call.sub() == Some("push") {
                        if let Some(w) = rest.iter().find(|w| w.value.as_deref() == Some("--stdin"))
                        {
                            call.args.push(Arg {
                                word: w.word,
                                value: None,
                            });
                            call.refs_on_stdin = true;
                        }
                    }
                }
            }
            return call;
        }
        if a == "--" {
            i += 1;
            continue;
        }
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(Some(v.to_string()))),
            _ => (a, None),
        };
        // `-C<dir>` and `-c<k=v>` attached forms.
        let (name, attached) = if attached.is_none()
            && (a.starts_with("-C") || a.starts_with("-c"))
            && a.len() > 2
            && !a.starts_with("--")
        {
            (&a[..2], Some(Some(a[2..].to_string())))
        } else {
            (name, attached)
        };
        let value = if VALUED.contains(&name) {
            match attached {
                Some(v) => Some(v),
                None => {
                    i += 1;
                    args.get(i).map(|x| x.value.as_deref().map(String::from))
                }
            }
        } else {
            attached
        };
        match (name, value) {
            ("-C", Some(v)) => call.dir_changes.push(v),
            ("-c", Some(v)) => {
                if let Some(s) = config_pair(v.as_deref(), "-c") {
                    call.config.push(s);
                }
            }
            ("--config-env", Some(v)) => {
                if let Some(v) = v {
                    if let Some((k, _)) = v.split_once('=') {
                        call.config.push(ConfigSetting {
                            key: normalise_key(k),
                            value: None,
                            via: "--config-env",
                        });
                    }
                } else {
                    call.config.push(ConfigSetting {
                        key: String::new(),
                        value: None,
                        via: "--config-env",
                    });
                }
            }
            ("--git-dir", Some(v)) => call.git_dir = Some(v),
            ("--work-tree", Some(v)) => call.work_tree = Some(v),
            _ => {}
        }
        i += 1;
    }
    call
}

/// A config key as git compares it: section and variable name case-insensitive, the
/// subsection (a remote name, a URL) as written.
pub fn normalise_key(key: &str) -> String {
    match (key.find('.'), key.rfind('.')) {
        (Some(first), Some(last)) if first < last => format!(
            "{}{}{}",
            key[..first].to_ascii_lowercase(),
            &key[first..last],
            key[last..].to_ascii_lowercase()
        ),
        _ => key.to_ascii_lowercase(),
    }
}

/// `key=value` from `-c`; a dynamic pair is recorded with an empty key (unknown setting).
fn config_pair(v: Option<&str>, via: &'static str) -> Option<ConfigSetting> {
    match v {
        None => Some(ConfigSetting {
            key: String::new(),
            value: None,
            via,
        }),
        Some(v) => {
            let (k, val) = v.split_once('=').unwrap_or((v, "true"));
            Some(ConfigSetting {
                key: normalise_key(k),
                value: Some(val.to_string()),
                via,
            })
        }
    }
}

/// Settings from `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` and
/// `GIT_CONFIG_PARAMETERS` (`'k=v' 'k2=v2'`).
fn env_config(env: &dyn Fn(&str) -> Option<Option<String>>) -> Vec<ConfigSetting> {
    let mut out = Vec::new();
    if let Some(count) = env("GIT_CONFIG_COUNT") {
        let n = count
            .as_deref()
            .and_then(|c| c.trim().parse::<usize>().ok())
            .unwrap_or(0)
            .min(1000);
        // A dynamic count: look at every key that is set.
        let upper = if count.is_none() { 64 } else { n };
        for i in 0..upper {
            match env(&format!("GIT_CONFIG_KEY_{i}")) {
                Some(Some(k)) => out.push(ConfigSetting {
                    key: normalise_key(&k),
                    value: env(&format!("GIT_CONFIG_VALUE_{i}")).flatten(),
                    via: "GIT_CONFIG_COUNT",
                }),
                Some(None) => out.push(ConfigSetting {
                    key: String::new(),
                    value: None,
                    via: "GIT_CONFIG_COUNT",
                }),
                None => {}
            }
        }
    }
    match env("GIT_CONFIG_PARAMETERS") {
        Some(Some(p)) => {
            for pair in shell_words::split(&p).unwrap_or_else(|_| vec![p.clone()]) {
                if let Some(s) = config_pair(Some(&pair), "GIT_CONFIG_PARAMETERS") {
                    out.push(s);
                }
            }
        }
        Some(None) => out.push(ConfigSetting {
            key: String::new(),
            value: None,
            via: "GIT_CONFIG_PARAMETERS",
        }),
        None => {}
    }
    out
}

/// Splits the last invocation of `cmd` and hands the call to `check` (the crate's git tests).
#[cfg(test)]
pub(crate) fn with_last_call<T>(cmd: &str, check: impl FnOnce(&GitCall<'_>) -> T) -> T {
    let parsed = shell_syntax::parse(cmd);
    let view = shell_syntax::commands(&parsed);
    let inv = view.invocations.last().expect("one invocation");
    check(&parse_git(inv))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits the last invocation of `cmd` and hands the call to `check`.
    fn call(cmd: &str, check: impl FnOnce(GitCall<'_>)) {
        with_last_call(cmd, |c| check(c.clone()))
    }

    #[test]
    fn hook_managers_switches_are_read_from_the_environment() {
        for (cmd, want) in [
            ("HUSKY=0 git commit -m x", vec!["HUSKY=0"]),
            ("SKIP=lint,fmt git commit -m x", vec!["SKIP=lint,fmt"]),
            ("export LEFTHOOK=0; git commit -m x", vec!["LEFTHOOK=0"]),
            (
                "HUSKY_SKIP_HOOKS=1 OVERCOMMIT_DISABLE=1 git push",
                vec!["HUSKY_SKIP_HOOKS=1", "OVERCOMMIT_DISABLE=1"],
            ),
            ("HUSKY=$H git commit", vec!["HUSKY=<run time>"]),
            ("HUSKY=1 git commit -m x", vec![]),
            ("SKIP= git commit -m x", vec![]),
            ("git commit -m x", vec![]),
        ] {
            call(cmd, |c| assert_eq!(c.hook_skips, want, "{cmd}"));
        }
    }

    #[test]
    fn push_plumbing_is_a_push() {
        for cmd in [
            "git send-pack git@github.com:acme/widget.git main",
            "git -C /r send-pack --force --receive-pack=git-receive-pack ../m.git main:main",
            "git http-push https://example.com/r.git/ main",
            // A dynamic word may be anything: not taken for the helper's flag.
            "git send-pack $opt git@github.com:acme/widget.git main",
        ] {
            call(cmd, |c| assert_eq!(c.sub(), Some("push"), "{cmd}"));
        }
        for cmd in [
            "git send-pack git@github.com:acme/widget.git main",
            "git http-push https://example.com/r.git/ main",
        ] {
            call(cmd, |c| assert!(!c.refs_on_stdin, "{cmd}"));
        }
        // `--stdin`: more refs on stdin, a refspec decided at run time.
        call(
            "git send-pack --stdin git@github.com:acme/widget.git main",
            |c| {
                assert!(c.refs_on_stdin);
                assert_eq!(c.arg_values().last(), Some(&None));
            },
        );
    }

    /// What a remote helper run as a command pushes: the destination, and a refspec decided at
    /// run time (its stdin names the branches).
    #[test]
    fn a_remote_helper_run_as_a_command_pushes_what_its_stdin_names() {
        let url = "https://github.com/acme/widget.git/";
        for (cmd, dest) in [
            ("git remote-https origin https://github.com/acme/widget.git/", url),
            ("git remote-http origin", "origin"),
            ("git -C /r remote-gcrypt up gcrypt::rsync://h/r", "gcrypt::rsync://h/r"),
            // A helper's half of a push (git-remote-https runs it with the refs on stdin).
            ("git send-pack --stateless-rpc --helper-status --thin https://github.com/acme/widget.git/ --stdin", url),
            ("git send-pack --stateless-rpc --receive-pack=x https://github.com/acme/widget.git/", url),
        ] {
            call(cmd, |c| {
                assert_eq!((c.sub(), c.refs_on_stdin), (Some("push"), true), "{cmd}");
                assert_eq!(c.arg_values(), vec![Some(dest), None], "{cmd}");
            });
        }
        // A run-time destination stays unknown.
        call("git remote-https origin \"$URL\"", |c| {
            assert_eq!(c.arg_values(), vec![None, None]);
        });
        // Not helpers: git's own `remote`, a helper name with nothing to push to.
        for cmd in [
            "git remote add up https://github.com/a/b",
            "git remote-https",
            "git remote -v",
        ] {
            call(cmd, |c| {
                assert!(!c.refs_on_stdin && c.sub() != Some("push"), "{cmd}")
            });
        }
    }

    #[test]
    fn global_options_in_every_spelling() {
        call(
            "git -C /a -C b -c user.name=x --git-dir=/r/.git -p push origin main",
            |c| {
                assert_eq!(
                    c.dir_changes,
                    vec![Some("/a".to_string()), Some("b".to_string())]
                );
                assert_eq!(c.git_dir, Some(Some("/r/.git".into())));
                assert_eq!(c.sub(), Some("push"));
                assert_eq!(c.arg_values(), vec![Some("origin"), Some("main")]);
                assert_eq!(c.config[0].key, "user.name");
            },
        );
        call("git -Cfoo -ccore.hooksPath=/dev/null commit", |c| {
            assert_eq!(c.dir_changes, vec![Some("foo".to_string())]);
            assert_eq!(c.config[0].key, "core.hookspath");
        });
    }

    #[test]
    fn config_from_the_environment() {
        call("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x git commit -m y", |c| {
            assert_eq!(c.config[0].key, "core.hookspath");
            assert_eq!(c.config[0].value.as_deref(), Some("/x"));
        });
        call(
            "GIT_CONFIG_PARAMETERS=\"'core.hooksPath=/x'\" git commit",
            |c| assert_eq!(c.config[0].via, "GIT_CONFIG_PARAMETERS"),
        );
        call("git --config-env core.hooksPath=HOOKS commit", |c| {
            assert_eq!(c.config[0].key, "core.hookspath")
        });
    }
}
