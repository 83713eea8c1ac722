//! G6: a mutating git operation in a primary checkout is denied.
//!
//! For each `git` invocation of every unit: work out which repository it acts on (the unit's
//! cwd, every `cd` before it, the `-C` chain, `--git-dir`/`GIT_DIR`, `--work-tree`/
//! `GIT_WORK_TREE`, `~`/`$HOME`), expand aliases ([`command_effects::git_alias`]), classify the subcommand
//! ([`mutates`]), and only for a mutating one ask the world what kind of repository the target
//! is. A grant (K2) or config `primary_checkout` lets the maintainer allow it.

use crate::analysis::{Analysis, Unit};
use crate::context::Context;
use crate::finding::{Code, Finding, Requirement};
use crate::world::{RepoKind, World};
use command_effects::dirs::{self, expand_home};
use command_effects::git::{self, GitCall};
use guard_config::CheckoutConfig;
use serde::Serialize;
use serde_json::json;
use shell_syntax::view::{Arg, EnvSource, Invocation};
use std::path::{Path, PathBuf};

/// The name of the G6 grant in the hook's own environment.
pub const GRANT: &str = "GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT";

const REMEDY: &str = "Create a worktree (git worktree add ../<name> -b <branch>) and work there, \
                      or ask the maintainer to run it";

/// Where a git invocation acts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The directory whose repository is tested (the git dir when one was named).
    Dir(#[serde(serialize_with = "lossy")] PathBuf),
    /// Decided at run time; the string says why.
    Unknown(String),
}

/// The verdict on one git invocation (for findings and `explain`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GitVerdict {
    /// Index of the invocation in its unit's view.
    pub invocation: usize,
    pub target: Target,
    /// The target's repository kind; looked up only for a mutating operation.
    #[serde(rename = "repo_kind")]
    pub kind: Option<RepoKind>,
    /// Aliases expanded, in order.
    pub aliases: Vec<String>,
    /// The subcommand and arguments judged (after expansion).
    pub argv: Vec<String>,
    /// `Some(why)` when the operation mutates the checkout.
    pub mutating: Option<String>,
    /// It mutates a primary checkout (or an unknown target from a primary cwd).
    pub in_primary: bool,
}

/// A path as text, lossily: a path with non-UTF-8 bytes must not make the record fail.
fn lossy<S: serde::Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

impl GitVerdict {
    /// The verdict as JSON for the audit log and `explain`.
    pub fn to_json(&self) -> serde_json::Value {
        // Cannot fail: every field serialises to JSON, paths through `lossy`.
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// The maintainer's G6 policy: the K2 grant and config `primary_checkout`.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub granted: bool,
    /// Set but not a recognised truthy value (the reason says so).
    pub grant_note: Option<String>,
    pub checkout: CheckoutConfig,
}

impl Policy {
    /// From the grant's raw value and config `primary_checkout`.
    pub fn new(grant: Option<&str>, config: Option<&CheckoutConfig>) -> Policy {
        let g = safety_kernel::grant(grant);
        Policy {
            granted: g.is_granted(),
            grant_note: g.note(GRANT),
            checkout: config.cloned().unwrap_or_default(),
        }
    }

    /// The policy of a hook's (or the exec gate's launch) context.
    pub fn of(cx: &Context) -> Policy {
        Policy::new(cx.env(GRANT), cx.config.primary_checkout.as_ref())
    }

    /// Whether the maintainer allows mutations in the repository at `dir`.
    pub fn allows(&self, dir: Option<&Path>) -> bool {
        if self.granted {
            return true;
        }
        match (&self.checkout, dir) {
            (CheckoutConfig::Allow, _) => true,
            // The longest matching repository path decides.
            (CheckoutConfig::PerRepo(repos), Some(dir)) => repos
                .iter()
                .map(|(p, allow)| (dirs::join(Path::new("/"), p), allow))
                .filter(|(p, _)| dir.starts_with(p))
                .max_by_key(|(p, _)| p.as_os_str().len())
                .is_some_and(|(_, allow)| *allow),
            _ => false,
        }
    }
}

/// Findings of G6 over every invocation of the analysis.
pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let policy = Policy::of(a.cx);
    let home = a.home();
    a.units
        .iter()
        .flat_map(|unit| {
            verdicts(unit, a.world, home.as_deref())
                .into_iter()
                .filter_map(|v| finding(v, &unit.cwd, &policy))
        })
        .collect()
}

/// G6 over one git call split from an exec's literal argv ([`crate::exec_argv`]): the same
/// verdict and finding as [`check`] gives the `git` of `NAME=value git <argv...>` run in `cwd`.
pub fn check_call(
    call: &GitCall,
    cwd: &Path,
    policy: &Policy,
    world: &dyn World,
    home: Option<&Path>,
) -> Option<Finding> {
    let v = verdict_of(call, Some(cwd.to_path_buf()), cwd, 0, world, home);
    finding(v, cwd, policy)
}

/// The finding for one verdict: none unless it mutates a primary checkout; a note when the
/// maintainer allows it, else the refusal.
fn finding(v: GitVerdict, cwd: &Path, policy: &Policy) -> Option<Finding> {
    if !v.in_primary {
        return None;
    }
    let dir = match &v.target {
        Target::Dir(d) => Some(d.clone()),
        Target::Unknown(_) => Some(cwd.to_path_buf()),
    };
    let evidence = json!({ "git": v.to_json(), "cwd": cwd.to_string_lossy() });
    if policy.allows(dir.as_deref()) {
        return Some(Finding::note(
            Requirement::G6,
            "a mutating git operation in a primary checkout, allowed by the maintainer",
            evidence,
        ));
    }
    let shape = v.argv.iter().take(3).cloned().collect::<Vec<_>>().join(" ");
    let (code, refused) = match &v.target {
        Target::Dir(_) => (
            Code::G6PrimaryCheckout,
            format!("`git {shape}` mutates a primary checkout"),
        ),
        Target::Unknown(_) => (
            Code::G6RunTimeCheckout,
            format!(
                "`git {shape}` mutates a checkout decided at run time, from a primary checkout"
            ),
        ),
    };
    let remedy = match &policy.grant_note {
        Some(n) => format!("{REMEDY} ({n})"),
        None => REMEDY.to_string(),
    };
    Some(Finding::deny(code, refused, remedy, evidence))
}

/// The verdict on every git invocation of a unit.
pub fn verdicts(unit: &Unit, world: &dyn World, home: Option<&Path>) -> Vec<GitVerdict> {
    let view = unit.view();
    let arena = bumpalo::Bump::new();
    let mut funcs = None;
    let mut out = Vec::new();
    // What the calls of functions set (built once: a long script of git calls stays linear).
    let calls = command_effects::functions::CallSets::of(view);
    for inv in &view.invocations {
        if inv.name() == Some("git") {
            let args = command_effects::argv0::git_args_of(inv);
            out.push(judge_git(unit, inv, &args, world, home, &calls));
        } else if maybe_dashed(inv) {
            // git's dashed programs (`/usr/lib/git-core/git-add`, `"$(git --exec-path)"/git-commit`)
            // as command-effects resolves them: `git <sub> ...`.
            let funcs = funcs.get_or_insert_with(|| command_effects::program::Functions::of(view));
            let run = command_effects::program::resolve(funcs, inv, &arena);
            if run.name() == Some("git") && run.runners.iter().any(|r| r.starts_with("git-")) {
                out.push(judge_git(unit, inv, &run.args, world, home, &calls));
            }
        }
    }
    out
}

/// Whether the program word may name one of git's dashed programs (checked cheaply, before
/// the program is resolved).
fn maybe_dashed(inv: &Invocation<'_>) -> bool {
    match &inv.program {
        shell_syntax::Program::Static { name, .. } => name.starts_with("git-"),
        shell_syntax::Program::Dynamic(w) => shell_syntax::printer::word(w).contains("/git-"),
        shell_syntax::Program::None => false,
    }
}

/// A git invocation's arguments (`args`, after the program) split with `~`/`$HOME` resolved in
/// its words and environment.
fn split_git<'a>(
    view: &shell_syntax::CommandView<'a>,
    inv: &Invocation<'a>,
    args: &[Arg<'a>],
    home: Option<&Path>,
    calls: &command_effects::functions::CallSets<'_>,
) -> GitCall<'a> {
    let args: Vec<Arg<'a>> = args
        .iter()
        .map(|a| Arg {
            word: a.word,
            value: expand_home(a, home).map(Into::into),
        })
        .collect();
    git::parse_git_args(&args, &|name| {
        let Some(e) = inv.env_value(name) else {
            // What a function called before it set (`f() { export GIT_DIR=...; }; f`): the
            // variables that name the repository and work tree.
            let target_var = matches!(name, "GIT_DIR" | "GIT_WORK_TREE");
            return target_var
                .then(|| calls.set_by_calls(view, inv, name))
                .flatten();
        };
        if e.source == EnvSource::Unset {
            return None;
        }
        Some(e.value.as_ref().and_then(|a| expand_home(a, home)))
    })
}

fn judge_git<'a>(
    unit: &Unit,
    inv: &Invocation<'a>,
    args: &[Arg<'a>],
    world: &dyn World,
    home: Option<&Path>,
    calls: &command_effects::functions::CallSets<'_>,
) -> GitVerdict {
    // `HOME=/w; git -C ~/x`: the words expand with the home the command set.
    let own_home = dirs::tilde_home(inv, home);
    let call = split_git(unit.view(), inv, args, own_home.as_deref(), calls);
    let base = unit.dir_of(inv, home, world);
    verdict_of(
        &call,
        base,
        &unit.cwd,
        inv.index,
        world,
        own_home.as_deref(),
    )
}

/// The verdict on one split git call whose shell directory is `base` (`None`: unknown), from
/// a unit started in `cwd`.
fn verdict_of(
    call: &GitCall,
    base: Option<PathBuf>,
    cwd: &Path,
    invocation: usize,
    world: &dyn World,
    home: Option<&Path>,
) -> GitVerdict {
    let target = locate(base, call, home);
    let mut v = GitVerdict {
        invocation,
        target: target.clone(),
        kind: None,
        aliases: Vec::new(),
        argv: Vec::new(),
        mutating: None,
        in_primary: false,
    };
    let dir = match &target {
        Target::Dir(d) => Some(d.as_path()),
        Target::Unknown(_) => None,
    };
    let sub = match call.subcommand.as_ref() {
        None => return v,
        Some(None) => {
            v.argv = vec!["<dynamic>".into()];
            v.mutating = Some("the git subcommand is decided at run time".into());
            None
        }
        Some(Some(s)) => Some(s.clone()),
    };
    if let Some(sub) = sub {
        let builtin = command_effects::git_alias::is_builtin(&sub);
        let persisted = match dir {
            Some(d) if !builtin => world.git_aliases(d),
            _ => Default::default(),
        };
        // The words an alias adds live only as long as this verdict is made.
        let arena = bumpalo::Bump::new();
        let e = command_effects::git_alias::expand(&arena, call, &persisted);
        v.aliases = e.chain.clone();
        v.argv = argv_of(&e.call);
        // A `-c` whose key is decided at run time could define any alias.
        let unknown_setting = !builtin && call.config.iter().any(|c| c.key.is_empty());
        let corrected = || {
            let configured = dir.and_then(|d| world.git_autocorrect(d));
            command_effects::git_alias::may_autocorrect(&e, configured.as_deref())
        };
        v.mutating = if let Some(shell) = &e.shell {
            v.argv = vec![format!("!{shell}")];
            Some("a shell alias (git runs it with a shell)".into())
        } else if let Some(err) = &e.error {
            // git itself refuses a cycle or an unreadable alias value: nothing runs. Anything
            // else (run-time alias, hop limit) cannot be judged.
            if err.starts_with("alias cycle") || err.ends_with("cannot be read") {
                None
            } else {
                Some(err.clone())
            }
        } else if unknown_setting && e.chain.is_empty() {
            Some("a -c setting decided at run time could define this alias".into())
        } else if !builtin && e.chain.is_empty() && corrected() {
            Some(format!(
                "git may run a similar command in place of `{sub}` (help.autocorrect)"
            ))
        } else {
            // Run-time words stay placeholders: they never resolve to a commit, match no flag.
            let resolves = |a: &str| {
                !a.starts_with("<$") && dir.is_some_and(|d| world.resolves_to_commit(d, a))
            };
            mutates(&v.argv, &resolves)
        };
    }
    if v.mutating.is_none() {
        return v;
    }
    // Only now ask the world: reads never cost a repository lookup.
    v.kind = dir.map(|d| world.repo_kind(d));
    v.in_primary = match (&target, v.kind) {
        (_, Some(RepoKind::Primary | RepoKind::Bare)) => true,
        (Target::Unknown(_), _) => world.repo_kind(cwd) == RepoKind::Primary,
        _ => false,
    };
    v
}

/// The subcommand and arguments as text; a run-time word shows as `<$...>`.
fn argv_of(call: &GitCall) -> Vec<String> {
    call.sub()
        .map(str::to_string)
        .into_iter()
        .chain(call.args.iter().map(|a| match &a.value {
            Some(v) => v.to_string(),
            None => format!("<${}>", shell_syntax::printer::word(&a.word)),
        }))
        .collect()
}

/// Which directory's repository the call acts on, from the directory it runs in (`base`).
fn locate(base: Option<PathBuf>, call: &GitCall, home: Option<&Path>) -> Target {
    let starts_absolute = |c: &Option<String>| c.as_deref().is_some_and(|c| c.starts_with('/'));
    let dir = match &base {
        Some(b) => dirs::after_git_c(b, call, home),
        // An absolute `-C` still names the directory after an unknown `cd`.
        None if call.dir_changes.first().is_some_and(starts_absolute) => {
            dirs::after_git_c(Path::new("/"), call, home)
        }
        None => None,
    };
    let named = |v: &Option<String>, what: &str| -> Target {
        match v {
            None => Target::Unknown(format!("{what} is decided at run time")),
            Some(p) if p.starts_with('/') => Target::Dir(dirs::join(Path::new("/"), p)),
            Some(p) => match &dir {
                Some(d) => Target::Dir(dirs::join(d, p)),
                None => Target::Unknown(format!("{what} is relative to an unknown directory")),
            },
        }
    };
    if let Some(gd) = &call.git_dir {
        return named(gd, "the git dir");
    }
    if let Some(wt) = &call.work_tree {
        return named(wt, "the work tree");
    }
    match dir {
        Some(d) => Target::Dir(d),
        None => Target::Unknown(match base {
            None => "a cd before it goes to a directory decided at run time".into(),
            Some(_) => "a -C directory is decided at run time".into(),
        }),
    }
}

/// Whether a git subcommand with these arguments mutates the checkout, and why.
/// `resolves(arg)`: whether `arg` names a commit (for `checkout <arg>`).
pub fn mutates(argv: &[String], resolves: &dyn Fn(&str) -> bool) -> Option<String> {
    let (sub, args) = argv.split_first()?;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let before_dd: Vec<&str> = args.iter().take_while(|a| **a != "--").copied().collect();
    let has = |long: &str, short: char| {
        before_dd
            .iter()
            .any(|a| long_given(a, long) || short_cluster_has(a, short))
    };
    let why = |s: &str| Some(format!("git {sub}: {s}"));
    // `git <sub> --help` shows the manual and `-h` the usage: nothing runs.
    if before_dd.iter().any(|a| *a == "--help" || *a == "-h") {
        return None;
    }
    match sub.as_str() {
        "reset" | "rebase" | "cherry-pick" | "revert" | "restore" | "add" | "commit" | "rm"
        | "mv" | "apply" | "am" | "push" | "filter-branch" | "update-ref" => {
            why("rewrites the work tree, the index or refs")
        }
        "merge" | "pull" if !fast_forward_only(&before_dd) => why("merges without --ff-only"),
        "stash" if !matches!(args.first(), Some(&"list") | Some(&"show")) => {
            why("moves uncommitted work out of the work tree")
        }
        "clean" if has("--force", 'f') && !has("--dry-run", 'n') => why("deletes untracked files"),
        "worktree" if args.first() == Some(&"remove") && has("--force", 'f') => {
            why("remove --force discards the worktree's changes")
        }
        "checkout" | "switch" => checkout_mutates(sub, &args, resolves),
        "branch"
            if has("--force", 'D')
                || has("--force", 'f')
                || has("--force", 'M')
                || has("--force", 'C') =>
        {
            why("deletes, moves or copies over a branch")
        }
        "tag" if has("--delete", 'd') => why("deletes a tag"),
        "symbolic-ref"
            if has("--delete", 'd') || args.iter().filter(|a| !a.starts_with('-')).count() >= 2 =>
        {
            why("rewrites a symbolic ref")
        }
        "reflog" if matches!(args.first(), Some(&"expire") | Some(&"delete")) => {
            why("drops recovery points")
        }
        "gc" if args.iter().enumerate().any(|(i, a)| {
            let (name, value) = a.split_once('=').map_or((*a, None), |(n, v)| (n, Some(v)));
            long_given(name, "--prune")
                && match value {
                    Some(v) => !v.is_empty(),
                    None => args.get(i + 1).is_some_and(|v| !v.starts_with('-')),
                }
        }) =>
        {
            why("--prune=<date> drops unreachable objects (now, all, ...)")
        }
        "prune" if !has("--dry-run", 'n') => why("drops unreachable objects"),
        "read-tree" if !has("--dry-run", 'n') => {
            why("replaces the index (with -u, the work tree's files too)")
        }
        "checkout-index" if has("--force", 'f') => why("overwrites work tree files"),
        "submodule"
            if matches!(
                args.iter().find(|a| !a.starts_with('-')),
                Some(&"deinit") | Some(&"update")
            ) && has("--force", 'f') =>
        {
            why("--force discards a submodule's changes")
        }
        "fast-import" if before_dd.iter().any(|a| long_given(a, "--force")) => {
            why("--force moves branches without checks")
        }
        "replace"
            if !args
                .iter()
                .any(|a| matches!(*a, "-l" | "--list" | "--format")) =>
        {
            why("changes what objects mean")
        }
        _ => None,
    }
}

/// Whether `merge`/`pull` options end on fast-forward only: the last of `--ff`, `--no-ff`,
/// `--ff-only` wins, as git reads them (`--ff-only --no-ff` merges; `--ff-o` is `--ff-only`,
/// `--ff` itself the exact option).
fn fast_forward_only(args: &[&str]) -> bool {
    args.iter()
        .rev()
        .find_map(|a| match *a {
            "--ff" | "--no-ff" => Some(false),
            a if a.len() > "--ff".len() && long_given(a, "--ff-only") => Some(true),
            a if a.len() > "--no".len() && long_given(a, "--no-ff") => Some(false),
            _ => None,
        })
        .unwrap_or(false)
}

/// Whether the word `a` gives the long option `long` as git's option parser reads it: whole,
/// or any prefix of it (`--forc` is `--force`; a prefix two options share git refuses, and then
/// nothing runs).
fn long_given(a: &str, long: &str) -> bool {
    a == long
        || a.strip_prefix("--").is_some_and(|x| {
            !x.is_empty()
                && !x.contains('=')
                && long.strip_prefix("--").is_some_and(|l| l.starts_with(x))
        })
}

/// A short option cluster (`-qf`, `-fd`) containing `c`.
fn short_cluster_has(a: &str, c: char) -> bool {
    a.len() > 1 && a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c)
}

fn checkout_mutates(sub: &str, args: &[&str], resolves: &dyn Fn(&str) -> bool) -> Option<String> {
    let why = |s: &str| Some(format!("git {sub}: {s}"));
    let checkout = sub == "checkout";
    // Force-oriented short flags; the branch-creating ones take a value (attached or next).
    let force_short: &[char] = if checkout {
        &['f', 'b', 'B']
    } else {
        &['f', 'c', 'C']
    };
    let force_long: &[&str] = if checkout {
        &["--force", "--discard-changes", "--orphan"]
    } else {
        &[
            "--force",
            "--discard-changes",
            "--orphan",
            "--create",
            "--force-create",
        ]
    };
    // Long options (not force-oriented) that take a separate value.
    let long_valued = ["--conflict", "--pathspec-from-file"];
    let mut positional = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        if a == "--" {
            return why("`--` restores paths");
        }
        if a == "-" {
            positional.push(a);
            continue;
        }
        if a.starts_with("--") {
            // Any prefix git takes for an option (`--forc`, `--disc`).
            let name = a.split('=').next().unwrap_or(a);
            if let Some(f) = force_long.iter().find(|f| long_given(name, f)) {
                return why(&format!("{f} discards or rewrites work"));
            }
            if long_given(name, "--pathspec-from-file") {
                return why("--pathspec-from-file restores the paths it lists");
            }
            if long_valued.iter().any(|v| long_given(name, v)) && !a.contains('=') {
                i += 1;
            }
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            if let Some(c) = a[1..].chars().find(|c| force_short.contains(c)) {
                return why(&format!("-{c} forces, creates or resets a branch"));
            }
            continue;
        }
        positional.push(a);
    }
    match positional.as_slice() {
        [] | ["-"] => None,
        [one] if resolves(one) => None,
        [one] => why(&format!("{one:?} is not a commit (a pathspec restore)")),
        _ => why("more than one operand restores paths"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(cmd: &str) -> bool {
        let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
        mutates(&argv, &|a| a != "." && a != "nope").is_some()
    }

    #[test]
    fn mutating_list_and_exemptions() {
        for d in [
            "reset --hard",
            "checkout .",
            "checkout -- x",
            "checkout -qf main",
            "checkout -Bnew",
            "switch -C x",
            "switch --discard-changes x",
            "checkout a b",
            "checkout nope",
            "clean -fd",
            "clean -f -- -n",
            "stash",
            "stash push",
            "pull",
            "merge x",
            "branch -D x",
            "branch -Df x",
            "branch --force x",
            "tag -d v",
            "update-ref a b",
            "symbolic-ref HEAD refs/heads/x",
            "reflog expire --all",
            "gc --prune=now",
            "gc --prune now",
            "filter-branch x",
            "replace a b",
            "worktree remove -ff x",
        ] {
            assert!(m(d), "{d} should mutate");
        }
        for a in [
            "status",
            "checkout main",
            "checkout -",
            "switch -",
            "checkout -q --detach main",
            "checkout -qt main",
            "pull --ff-only",
            "merge --ff-only x",
            "stash list",
            "stash show",
            "clean -n",
            "clean -fn",
            "clean -nf -- x",
            "worktree add ../x",
            "worktree remove x",
            "worktree list",
            "worktree prune",
            "branch x",
            "branch -d x",
            "tag v2",
            "symbolic-ref --short HEAD",
            "reflog",
            "gc",
            "replace -l",
        ] {
            assert!(!m(a), "{a} should not mutate");
        }
    }

    #[test]
    fn the_verdict_record_keeps_its_keys_and_a_non_utf8_path() {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(b"/r/\xff"));
        let mut v = GitVerdict {
            invocation: 2,
            target: Target::Dir(path.to_path_buf()),
            kind: Some(RepoKind::Primary),
            aliases: vec!["wipe".into()],
            argv: vec!["reset".into(), "--hard".into()],
            mutating: Some("discards changes".into()),
            in_primary: true,
        };
        let want = json!({"invocation": 2, "target": {"dir": "/r/\u{fffd}"}, "repo_kind": "primary",
            "aliases": ["wipe"], "argv": ["reset", "--hard"], "mutating": "discards changes",
            "in_primary": true});
        assert_eq!(v.to_json(), want);
        v.target = Target::Unknown("run-time cd".into());
        assert_eq!(v.to_json()["target"], json!({"unknown": "run-time cd"}));
    }

    #[test]
    fn policy_reads_grant_and_config() {
        assert!(Policy::new(Some("yes"), None).allows(None));
        let p = Policy::new(Some("y"), None);
        assert!(!p.allows(None));
        assert!(p.grant_note.is_some());
        let t: toml::Value =
            toml::from_str("a = { \"/src/a\" = \"allow\", \"/src/x/../a/b\" = \"deny\" }")
                .expect("toml");
        let p = Policy::new(None, Some(&CheckoutConfig::from_toml(&t["a"])));
        assert!(p.allows(Some(Path::new("/src/a/x"))));
        assert!(!p.allows(Some(Path::new("/src/a/b/c"))));
        assert!(!p.allows(Some(Path::new("/src/c"))));
        let word = |w: &str| CheckoutConfig::from_toml(&toml::Value::String(w.into()));
        assert!(Policy::new(None, Some(&word("allow"))).allows(None));
        for other in ["deny", "yes"] {
            let value = word(other);
            assert!(!Policy::new(None, Some(&value)).allows(Some(Path::new("/src/a"))));
        }
    }
}
