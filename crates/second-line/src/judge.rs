//! What the exec gate decides, as pure data: the facts of one `execve` (real argv, cwd and
//! environment read from the process), the [`ExecJudge`] trait every rule set implements, and
//! the fold of several judges' verdicts through the safety kernel's composition (K1).

use safety_kernel::{compose, Disposition};
use serde_json::Value;
use std::path::PathBuf;

/// One exec as the kernel is about to run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecFacts {
    /// The path handed to `execve` (for `execveat`, resolved against its directory fd).
    pub program: String,
    /// The argument vector exactly as passed (lossy UTF-8 per word).
    pub argv: Vec<String>,
    /// The process's working directory at the call.
    pub cwd: PathBuf,
    /// The variables of the environment the new program gets that a judge reads
    /// ([`ExecJudge::reads_var`]), `NAME=value` split; empty when the program is not one any
    /// rule reads (it is only read when [`ExecJudge::wants`] says so).
    pub env: Vec<(String, String)>,
    /// The program the calling process runs until this exec replaces it (`/proc/<pid>/exe`),
    /// read only when a judge asks ([`ExecJudge::reads_caller`]); `None` otherwise or when it
    /// could not be read.
    pub caller: Option<String>,
}

impl ExecFacts {
    /// The base name of the program path (what a rule calls the program).
    pub fn program_name(&self) -> &str {
        self.program.rsplit('/').next().unwrap_or(&self.program)
    }

    /// The exec as one shell-quoted command line: the rule-relevant variables of its
    /// environment as prefix assignments, then the program's base name and its arguments.
    pub fn as_command(&self, keep_var: impl Fn(&str) -> bool) -> String {
        let mut words: Vec<String> = self
            .env
            .iter()
            .filter(|(k, _)| keep_var(k))
            .map(|(k, v)| format!("{k}={}", shell_words::quote(v)))
            .collect();
        words.push(shell_words::quote(self.program_name()).into_owned());
        words.extend(
            self.argv
                .iter()
                .skip(1)
                .map(|a| shell_words::quote(a).into_owned()),
        );
        words.join(" ")
    }
}

/// A judge's answer about one exec.
#[derive(Debug, Clone, PartialEq)]
pub enum ExecVerdict {
    Allow,
    /// Refuse with a stable code (`G4`, `M3`, ...) and the one-line reason the process sees;
    /// the evidence goes to the audit log.
    Deny {
        code: String,
        reason: String,
        evidence: Value,
    },
}

impl From<Option<safety_kernel::Refusal>> for ExecVerdict {
    /// A guard face's answer (K10) as the gate's.
    fn from(r: Option<safety_kernel::Refusal>) -> ExecVerdict {
        match r {
            Some(r) => ExecVerdict::Deny {
                code: r.code,
                reason: r.reason,
                evidence: r.evidence,
            },
            None => ExecVerdict::Allow,
        }
    }
}

/// A rule set that judges execs. Pure over [`ExecFacts`] (the rule sets may consult the world
/// they were built with: git repositories, the live branch rules, the launch environment).
pub trait ExecJudge: Send + Sync {
    /// Whether this judge reads execs of `program_name` at all (the cheap filter on the hot
    /// path: everything else continues without reading argv or environment).
    fn wants(&self, program_name: &str) -> bool;
    /// The verdict on one exec.
    fn judge(&self, facts: &ExecFacts) -> ExecVerdict;
    /// Whether the arguments alone already show that [`ExecJudge::judge`] allows the exec (a
    /// read such as `git --version` or `git status`): the hot path then reads no environment
    /// and no cwd and runs no rules. Only ever `true` where the rules cannot refuse.
    fn allows_from_argv(&self, _program_name: &str, _argv: &[String]) -> bool {
        false
    }
    /// Whether the judge reads the exec's environment variable `name` (the supervisor keeps
    /// only those in [`ExecFacts::env`]; an environment has a hundred entries).
    fn reads_var(&self, _name: &str) -> bool {
        true
    }
    /// Whether the judge needs [`ExecFacts::caller`] for this exec (a remote helper: git runs
    /// its own for every push and fetch, and one run by hand pushes what its stdin says).
    fn reads_caller(&self, _program_name: &str, _argv: &[String]) -> bool {
        false
    }
}

/// The folded decision over several judges.
#[derive(Debug, Clone, PartialEq)]
pub struct Folded {
    pub disposition: Disposition,
    /// The deny that names the decision (the first judge's that refused), if any.
    pub deny: Option<(String, String, Value)>,
}

impl Folded {
    pub fn is_refused(&self) -> bool {
        self.disposition.label().is_halt()
    }
}

/// Runs every judge that wants the program and folds their dispositions with K1, so a halt from
/// any of them is never lost.
pub fn fold(judges: &[Box<dyn ExecJudge>], facts: &ExecFacts) -> Folded {
    let name = facts.program_name();
    let mut dispositions = Vec::new();
    let mut deny = None;
    for j in judges.iter().filter(|j| j.wants(name)) {
        match j.judge(facts) {
            ExecVerdict::Allow => dispositions.push(Disposition::allow()),
            ExecVerdict::Deny {
                code,
                reason,
                evidence,
            } => {
                dispositions.push(Disposition::halt(format!("{code}: {reason}")));
                deny.get_or_insert((code, reason, evidence));
            }
        }
    }
    Folded {
        disposition: compose(&dispositions),
        deny,
    }
}

/// Whether any judge wants the program.
pub fn any_wants(judges: &[Box<dyn ExecJudge>], program_name: &str) -> bool {
    judges.iter().any(|j| j.wants(program_name))
}

/// Whether every judge that wants the program allows the exec from its arguments alone.
pub fn all_allow_from_argv(
    judges: &[Box<dyn ExecJudge>],
    program_name: &str,
    argv: &[String],
) -> bool {
    judges
        .iter()
        .filter(|j| j.wants(program_name))
        .all(|j| j.allows_from_argv(program_name, argv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Refuses(&'static str);
    impl ExecJudge for Refuses {
        fn wants(&self, p: &str) -> bool {
            p == self.0
        }
        fn judge(&self, _: &ExecFacts) -> ExecVerdict {
            ExecVerdict::Deny {
                code: "X1".into(),
                reason: "X1: no".into(),
                evidence: json!({}),
            }
        }
    }
    struct Allows;
    impl ExecJudge for Allows {
        fn wants(&self, _: &str) -> bool {
            true
        }
        fn judge(&self, _: &ExecFacts) -> ExecVerdict {
            ExecVerdict::Allow
        }
    }

    fn facts(program: &str, argv: &[&str]) -> ExecFacts {
        ExecFacts {
            program: program.into(),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            cwd: "/w".into(),
            env: vec![
                ("GIT_DIR".into(), "/a b".into()),
                ("GH_TOKEN".into(), "s3cret".into()),
            ],
            caller: None,
        }
    }

    #[test]
    fn a_halt_from_any_judge_survives_the_fold() {
        let f = facts("/usr/bin/git", &["git", "push"]);
        let out = fold(
            &[Box::new(Allows), Box::new(Refuses("git")), Box::new(Allows)],
            &f,
        );
        assert!(out.is_refused());
        assert_eq!(out.deny.unwrap().0, "X1");
        let out = fold(&[Box::new(Allows), Box::new(Refuses("gh"))], &f);
        assert!(!out.is_refused());
        assert!(out.deny.is_none());
        // No judge wants it: allowed (an empty fold is allow).
        assert!(!fold(&[Box::new(Refuses("gh"))], &f).is_refused());
    }

    #[test]
    fn the_command_line_uses_the_real_program_and_quotes_every_word() {
        let f = facts("/usr/bin/git", &["not-git", "commit", "-m", "a 'b'"]);
        assert_eq!(
            f.as_command(|k| k.starts_with("GIT_")),
            "GIT_DIR='/a b' git commit -m 'a '\\''b'\\'''"
        );
        assert_eq!(f.program_name(), "git");
    }
}
