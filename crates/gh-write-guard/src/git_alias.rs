//! Git alias expansion (G0, used by G6): inline `-c alias.x=...`, `GIT_CONFIG_COUNT/KEY_n/VALUE_n`
//! and `GIT_CONFIG_PARAMETERS` (as [`crate::git_args`] collects them), and the repository's
//! persisted aliases (read through the world, `include.path` followed there). A hop limit and
//! cycle detection bound the expansion.

use std::collections::BTreeMap;

/// Most alias hops followed (git itself has no limit but detects loops).
pub const MAX_HOPS: usize = 16;

/// The result of expanding the subcommand of a git invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expansion {
    /// The subcommand and its arguments after expansion, and the aliases used in order.
    Git {
        argv: Vec<String>,
        used: Vec<String>,
    },
    /// A shell alias (`!...`): git runs this text with a shell.
    Shell { text: String, used: Vec<String> },
    /// Git refuses to run (alias loop, unparseable alias value): nothing runs.
    Refused { why: String, used: Vec<String> },
    /// Expansion went past the hop limit: cannot be judged.
    TooDeep { used: Vec<String> },
    /// The alias (or a config setting that could define it) is decided at run time.
    Dynamic { used: Vec<String> },
}

/// An alias value: known, or set by a word decided at run time.
pub type AliasValue = Option<String>;

/// Aliases in git's order of precedence: persisted config, then the command-scope settings
/// (`GIT_CONFIG_*`, `-c`) in the order given (later wins). A setting with an unknown key (a
/// run-time `-c` word) is kept under the empty name: it could define any alias.
pub fn alias_table(
    persisted: &BTreeMap<String, String>,
    settings: &[(String, Option<String>)],
) -> BTreeMap<String, AliasValue> {
    let mut t: BTreeMap<String, AliasValue> = persisted
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), Some(v.clone())))
        .collect();
    for (k, v) in settings {
        let lk = k.to_ascii_lowercase();
        if lk.is_empty() {
            t.insert(String::new(), None);
        } else if let Some(name) = lk.strip_prefix("alias.") {
            t.insert(name.to_string(), v.clone());
        }
    }
    t
}

/// Expand `argv[0]` through `aliases` until it is not an alias (git's builtins are never
/// aliased: an alias with a builtin's name is ignored by git).
pub fn expand(argv: &[String], aliases: &BTreeMap<String, AliasValue>) -> Expansion {
    let mut cur: Vec<String> = argv.to_vec();
    let mut used: Vec<String> = Vec::new();
    loop {
        let Some(first) = cur.first().cloned() else {
            return Expansion::Git { argv: cur, used };
        };
        if is_builtin(&first) {
            return Expansion::Git { argv: cur, used };
        }
        let value = match aliases.get(&first.to_ascii_lowercase()) {
            Some(Some(v)) => v,
            Some(None) => {
                used.push(first);
                return Expansion::Dynamic { used };
            }
            None if aliases.contains_key("") => return Expansion::Dynamic { used },
            None => return Expansion::Git { argv: cur, used },
        };
        if used.contains(&first) {
            used.push(first);
            return Expansion::Refused {
                why: "alias loop".into(),
                used,
            };
        }
        used.push(first);
        if used.len() > MAX_HOPS {
            return Expansion::TooDeep { used };
        }
        if let Some(shell) = value.strip_prefix('!') {
            let mut text = shell.to_string();
            for a in &cur[1..] {
                text.push(' ');
                text.push_str(&shell_words::quote(a));
            }
            return Expansion::Shell { text, used };
        }
        let Ok(words) = shell_words::split(value) else {
            return Expansion::Refused {
                why: format!("alias value {value:?} does not parse"),
                used,
            };
        };
        if words.is_empty() {
            return Expansion::Refused {
                why: "empty alias".into(),
                used,
            };
        }
        cur = words.into_iter().chain(cur[1..].iter().cloned()).collect();
    }
}

/// Git commands an alias cannot shadow (the ones G6 judges plus common reads).
pub fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "add"
            | "am"
            | "apply"
            | "branch"
            | "checkout"
            | "cherry-pick"
            | "clean"
            | "clone"
            | "commit"
            | "diff"
            | "fetch"
            | "filter-branch"
            | "gc"
            | "log"
            | "merge"
            | "mv"
            | "pull"
            | "push"
            | "rebase"
            | "reflog"
            | "remote"
            | "replace"
            | "reset"
            | "restore"
            | "revert"
            | "rm"
            | "show"
            | "stash"
            | "status"
            | "switch"
            | "symbolic-ref"
            | "tag"
            | "update-ref"
            | "worktree"
            | "config"
            | "init"
            | "rev-parse"
            | "ls-files"
            | "grep"
            | "blame"
            | "describe"
            | "bisect"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(pairs: &[(&str, &str)]) -> BTreeMap<String, AliasValue> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Some(v.to_string())))
            .collect()
    }

    #[test]
    fn chains_cycles_and_shell_aliases() {
        let t = table(&[
            ("wipe", "alsowipe"),
            ("alsowipe", "reset --hard"),
            ("a", "b"),
            ("b", "a"),
            ("x", "!rm -rf ."),
        ]);
        let argv = |s: &str| vec![s.to_string()];
        assert_eq!(
            expand(&argv("wipe"), &t),
            Expansion::Git {
                argv: vec!["reset".into(), "--hard".into()],
                used: vec!["wipe".into(), "alsowipe".into()]
            }
        );
        assert!(matches!(expand(&argv("a"), &t), Expansion::Refused { .. }));
        assert!(matches!(expand(&argv("x"), &t), Expansion::Shell { .. }));
        // A builtin is never shadowed.
        let t2 = table(&[("reset", "status")]);
        assert!(
            matches!(expand(&argv("reset"), &t2), Expansion::Git { ref argv, .. } if argv[0] == "reset")
        );
    }

    #[test]
    fn precedence_and_dynamic_settings() {
        let persisted: BTreeMap<String, String> = [("w".to_string(), "status".to_string())]
            .into_iter()
            .collect();
        let t = alias_table(
            &persisted,
            &[("alias.w".into(), Some("reset --hard".into()))],
        );
        let argv = vec!["w".to_string()];
        assert!(matches!(expand(&argv, &t), Expansion::Git { ref argv, .. } if argv[0] == "reset"));
        let t = alias_table(&persisted, &[(String::new(), None)]);
        assert!(matches!(
            expand(&["zz".to_string()], &t),
            Expansion::Dynamic { .. }
        ));
        let t = alias_table(&persisted, &[("alias.w".into(), None)]);
        assert!(matches!(expand(&argv, &t), Expansion::Dynamic { .. }));
    }

    #[test]
    fn hop_limit() {
        let t: BTreeMap<String, AliasValue> = (0..40)
            .map(|i| (format!("a{i}"), Some(format!("a{}", i + 1))))
            .collect();
        assert!(matches!(
            expand(&["a0".to_string()], &t),
            Expansion::TooDeep { .. }
        ));
    }
}
