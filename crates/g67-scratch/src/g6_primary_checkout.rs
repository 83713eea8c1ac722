//! G6: a mutating git operation in a primary checkout is denied.
//!
//! For each `git` invocation of the command view: work out which repository it acts on (payload
//! cwd, every `cd` before it, `-C` chains, `--git-dir`/`GIT_DIR`, `--work-tree`/`GIT_WORK_TREE`,
//! `~`/`$HOME`), expand aliases, classify the subcommand as mutating or not, and ask the world
//! whether the target is a primary checkout. Pure apart from the [`RepoWorld`] lookups.

use crate::git_alias::{self, Expansion};
use shell_syntax::view::{CdKind, CommandView, EnvSource, Invocation};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// What kind of repository a directory belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepoKind {
    /// The main work tree or its git dir (also a submodule).
    Primary,
    /// A linked worktree (`git worktree add`).
    Linked,
    /// Not inside any repository.
    NoRepo,
}

/// The lookups G6 needs; the real one uses git2, the conformance replay fakes it.
pub trait RepoWorld {
    /// The repository kind of `dir` (a work tree, a directory inside one, or a git dir).
    fn repo_kind(&self, dir: &Path) -> RepoKind;
    /// Whether `arg` resolves to a commit in the repository at `dir`.
    fn resolves_to_commit(&self, dir: &Path, arg: &str) -> bool;
    /// Persisted `alias.*` entries of the repository at `dir` (includes followed).
    fn aliases(&self, dir: &Path) -> BTreeMap<String, String>;
}

/// Inputs besides the command: the payload cwd and the hook's own `HOME`.
#[derive(Debug, Clone, Default)]
pub struct Session {
    pub cwd: Option<PathBuf>,
    pub home: Option<PathBuf>,
}

/// Where a git invocation acts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The directory whose repository is tested (git dir when one was named).
    Dir(PathBuf),
    /// Decided at run time (a dynamic word, `cd -`, `popd`, no cwd).
    Unknown(String),
}

/// The verdict on one git invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitVerdict {
    /// Index of the invocation in the view.
    pub invocation: usize,
    pub target: Target,
    pub kind: Option<RepoKind>,
    /// Aliases expanded, in order.
    pub aliases: Vec<String>,
    /// The subcommand and arguments judged (after expansion).
    pub argv: Vec<String>,
    /// `Some(why)` when the operation mutates the checkout.
    pub mutating: Option<String>,
    /// True when this invocation fires G6.
    pub deny: bool,
}

/// Judge every git invocation of the view.
pub fn judge(view: &CommandView, session: &Session, world: &dyn RepoWorld) -> Vec<GitVerdict> {
    let mut out = Vec::new();
    for inv in &view.invocations {
        if inv.name() != Some("git") {
            continue;
        }
        out.push(judge_git(inv, session, world));
    }
    out
}

struct GlobalOpts {
    work_tree: Option<String>,
    git_dir: Option<String>,
    c_dirs: Vec<String>,
    inline_config: Vec<(String, String)>,
    rest: Vec<String>,
    dynamic: bool,
}

/// Split git's global options from the subcommand.
fn global_opts(args: &[Option<&str>]) -> GlobalOpts {
    let mut g = GlobalOpts {
        work_tree: None,
        git_dir: None,
        c_dirs: Vec::new(),
        inline_config: Vec::new(),
        rest: Vec::new(),
        dynamic: false,
    };
    let mut i = 0;
    while i < args.len() {
        let Some(a) = args[i] else {
            g.dynamic = true;
            return g;
        };
        i += 1;
        let take = |i: &mut usize| -> Option<String> {
            let v = args.get(*i).copied().flatten().map(str::to_string);
            *i += 1;
            v
        };
        match a {
            "-C" => match take(&mut i) {
                Some(d) => g.c_dirs.push(d),
                None => g.dynamic = true,
            },
            "-c" => match take(&mut i) {
                Some(kv) => g.inline_config.push(split_kv(&kv)),
                None => g.dynamic = true,
            },
            "--git-dir" => g.git_dir = take(&mut i).or_else(|| Some(String::new())),
            "--work-tree" => g.work_tree = take(&mut i).or_else(|| Some(String::new())),
            "--namespace" | "--exec-path" | "--super-prefix" | "--config-env" | "--list-cmds"
            | "--attr-source" => {
                take(&mut i);
            }
            _ if a.starts_with("--git-dir=") => g.git_dir = Some(a[10..].to_string()),
            _ if a.starts_with("--work-tree=") => g.work_tree = Some(a[12..].to_string()),
            _ if a.starts_with('-') => {}
            _ => {
                g.rest = args[i - 1..]
                    .iter()
                    .map(|v| v.unwrap_or("\u{0}dynamic").to_string())
                    .collect();
                if args[i - 1..].iter().any(|v| v.is_none()) {
                    g.dynamic = g.dynamic || false;
                }
                return g;
            }
        }
    }
    g
}

fn split_kv(kv: &str) -> (String, String) {
    match kv.split_once('=') {
        Some((k, v)) => (k.to_string(), v.to_string()),
        None => (kv.to_string(), "true".to_string()),
    }
}

/// `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` in the invocation's environment.
fn env_config(inv: &Invocation) -> Vec<(String, String)> {
    let val = |n: &str| {
        inv.env_value(n)
            .filter(|e| e.source != EnvSource::Unset)
            .and_then(|e| e.value.as_ref())
            .and_then(|a| a.value.clone())
    };
    let count: usize = val("GIT_CONFIG_COUNT")
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or(0)
        .min(64);
    (0..count)
        .filter_map(|i| {
            Some((
                val(&format!("GIT_CONFIG_KEY_{i}"))?,
                val(&format!("GIT_CONFIG_VALUE_{i}"))?,
            ))
        })
        .collect()
}

/// The environment value of `name` for the invocation: `Ok(None)` unset, `Err` when dynamic.
fn env_path(inv: &Invocation, name: &str) -> Result<Option<String>, ()> {
    match inv.env_value(name) {
        None => Ok(None),
        Some(e) if e.source == EnvSource::Unset => Ok(None),
        Some(e) => match e.value.as_ref() {
            Some(a) => match &a.value {
                Some(v) => Ok(Some(v.clone())),
                None => resolve_home_word(a, None).map(Some).ok_or(()),
            },
            None => Err(()),
        },
    }
}

fn resolve_home_word(a: &shell_syntax::view::Arg, home: Option<&Path>) -> Option<String> {
    let home = home.and_then(|h| h.to_str()).map(str::to_string);
    a.word
        .resolve(&|n: &str| if n == "HOME" { home.clone() } else { None })
}

/// Expand `~`, `~/x` in an already-static value (from `-C ~/x` the view keeps `~` dynamic).
fn join(base: &Path, p: &str, home: Option<&Path>) -> PathBuf {
    let expanded: PathBuf = if p == "~" {
        home.map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from(p))
    } else if let (Some(rest), Some(h)) = (p.strip_prefix("~/"), home) {
        h.join(rest)
    } else {
        PathBuf::from(p)
    };
    normalise(&base.join(expanded))
}

/// Lexical normalisation (`.`, `..`, repeated separators), as `cd` does by default.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The directory after the `cd`s that ran before the invocation.
fn after_cds(inv: &Invocation, session: &Session) -> Result<PathBuf, String> {
    let mut dir = session
        .cwd
        .clone()
        .ok_or_else(|| "no cwd in the payload".to_string())?;
    for cd in &inv.cds {
        match cd.kind {
            CdKind::Back | CdKind::Popd => {
                return Err(format!("{cd} depends on the shell's history"))
            }
            CdKind::Cd | CdKind::Pushd | CdKind::EnvChdir => match &cd.target {
                None => {
                    dir = session
                        .home
                        .clone()
                        .ok_or_else(|| "cd to an unknown $HOME".to_string())?
                }
                Some(a) => {
                    let v = match &a.value {
                        Some(v) => v.clone(),
                        None => resolve_home_word(a, session.home.as_deref())
                            .ok_or_else(|| format!("cd to a run-time value {a}"))?,
                    };
                    dir = join(&dir, &v, session.home.as_deref());
                }
            },
        }
    }
    Ok(dir)
}

fn judge_git(inv: &Invocation, session: &Session, world: &dyn RepoWorld) -> GitVerdict {
    // Arguments whose value only `~`/`$HOME` makes dynamic are resolved here.
    let args: Vec<Option<String>> = inv
        .args
        .iter()
        .map(|a| {
            a.value
                .clone()
                .or_else(|| resolve_home_word(a, session.home.as_deref()))
        })
        .collect();
    let arg_refs: Vec<Option<&str>> = args.iter().map(|a| a.as_deref()).collect();
    let g = global_opts(&arg_refs);
    let target = locate(inv, session, &g);
    let mut v = GitVerdict {
        invocation: inv.index,
        target: target.clone(),
        kind: None,
        aliases: Vec::new(),
        argv: g.rest.clone(),
        mutating: None,
        deny: false,
    };
    let repo_dir = match &target {
        Target::Dir(d) => Some(d.clone()),
        Target::Unknown(_) => None,
    };
    let kind = repo_dir.as_deref().map(|d| world.repo_kind(d));
    v.kind = kind;
    if kind == Some(RepoKind::NoRepo) || kind == Some(RepoKind::Linked) {
        // Aliases still expand for explain, but nothing here can fire.
    }
    let persisted = repo_dir
        .as_deref()
        .filter(|_| kind != Some(RepoKind::NoRepo))
        .map(|d| world.aliases(d))
        .unwrap_or_default();
    let table = git_alias::alias_table(&persisted, &env_config(inv), &g.inline_config);
    let mutating = if g.dynamic || g.rest.iter().any(|a| a.contains('\u{0}')) {
        Some("an argument is decided at run time".to_string())
    } else {
        match git_alias::expand(&g.rest, &table) {
            Expansion::Git { argv, used } => {
                v.aliases = used;
                v.argv = argv.clone();
                let resolve = |a: &str| {
                    repo_dir
                        .as_deref()
                        .is_some_and(|d| world.resolves_to_commit(d, a))
                };
                mutates(&argv, &resolve)
            }
            Expansion::Shell { text, used } => {
                v.aliases = used;
                v.argv = vec![format!("!{text}")];
                Some("a shell alias (git runs it with a shell)".to_string())
            }
            Expansion::Refused { used, .. } => {
                v.aliases = used;
                None
            }
            Expansion::TooDeep { used } => {
                v.aliases = used;
                Some("alias expansion past the hop limit".to_string())
            }
        }
    };
    v.mutating = mutating;
    if v.mutating.is_some() {
        v.deny = match (&target, kind) {
            (_, Some(RepoKind::Primary)) => true,
            (Target::Unknown(_), _) => session
                .cwd
                .as_deref()
                .is_some_and(|c| world.repo_kind(c) == RepoKind::Primary),
            _ => false,
        };
    }
    v
}

/// Which directory's repository the invocation acts on.
fn locate(inv: &Invocation, session: &Session, g: &GlobalOpts) -> Target {
    let home = session.home.as_deref();
    let mut dir = match after_cds(inv, session) {
        Ok(d) => Some(d),
        Err(e) => {
            // An absolute -C, --git-dir or --work-tree still names the target.
            let abs = g
                .git_dir
                .iter()
                .chain(g.work_tree.iter())
                .chain(g.c_dirs.iter())
                .any(|p| p.starts_with('/') || p.starts_with('~'));
            if !abs {
                return Target::Unknown(e);
            }
            None
        }
    };
    for c in &g.c_dirs {
        dir = match dir {
            Some(d) => Some(join(&d, c, home)),
            None if c.starts_with('/') || c.starts_with('~') => Some(join(Path::new("/"), c, home)),
            None => return Target::Unknown("-C relative to an unknown directory".into()),
        };
    }
    let git_dir = match &g.git_dir {
        Some(d) => Some(d.clone()),
        None => match env_path(inv, "GIT_DIR") {
            Ok(v) => v,
            Err(()) => return Target::Unknown("GIT_DIR is decided at run time".into()),
        },
    };
    let work_tree = match &g.work_tree {
        Some(d) => Some(d.clone()),
        None => match env_path(inv, "GIT_WORK_TREE") {
            Ok(v) => v,
            Err(()) => return Target::Unknown("GIT_WORK_TREE is decided at run time".into()),
        },
    };
    let base = dir.clone().unwrap_or_else(|| PathBuf::from("/"));
    if let Some(gd) = git_dir {
        return Target::Dir(join(&base, &gd, home));
    }
    if let Some(wt) = work_tree {
        return Target::Dir(join(&base, &wt, home));
    }
    match dir {
        Some(d) => Target::Dir(d),
        None => Target::Unknown("the directory is decided at run time".into()),
    }
}

/// Whether a git subcommand with these arguments mutates the checkout, and why.
pub fn mutates(argv: &[String], resolves: &dyn Fn(&str) -> bool) -> Option<String> {
    let (sub, args) = argv.split_first()?;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let why = |s: &str| Some(format!("git {sub}: {s}"));
    match sub.as_str() {
        "reset" | "rebase" | "cherry-pick" | "revert" | "restore" | "add" | "commit" | "rm"
        | "mv" | "apply" | "am" | "push" | "filter-branch" | "update-ref" => {
            why("rewrites the work tree, index or refs")
        }
        "merge" | "pull" if !args.contains(&"--ff-only") => why("merges without --ff-only"),
        "stash" if !matches!(args.first(), Some(&"list") | Some(&"show")) => {
            why("stashes (removes) uncommitted work")
        }
        "clean" => {
            let before_dd: Vec<&str> = args.iter().take_while(|a| **a != "--").copied().collect();
            let force = before_dd
                .iter()
                .any(|a| *a == "--force" || short_cluster_has(a, 'f'));
            let dry = before_dd
                .iter()
                .any(|a| *a == "--dry-run" || short_cluster_has(a, 'n'));
            (force && !dry).then(|| format!("git clean: deletes untracked files"))
        }
        "worktree" => {
            let force = args
                .iter()
                .any(|a| *a == "--force" || short_cluster_has(a, 'f'));
            (args.first() == Some(&"remove") && force)
                .then(|| "git worktree remove --force: discards its changes".to_string())
        }
        "checkout" | "switch" => checkout_mutates(sub, &args, resolves),
        "branch" => args
            .iter()
            .take_while(|a| **a != "--")
            .any(|a| {
                *a == "--force"
                    || (a.starts_with('-')
                        && !a.starts_with("--")
                        && (a.contains('D') || a.contains('f')))
            })
            .then(|| "git branch -D/-f: deletes or moves a branch".to_string()),
        "tag" => args
            .iter()
            .any(|a| *a == "--delete" || short_cluster_has(a, 'd'))
            .then(|| "git tag -d: deletes a tag".to_string()),
        "symbolic-ref" => {
            let pos = args.iter().filter(|a| !a.starts_with('-')).count();
            (pos >= 2
                || args
                    .iter()
                    .any(|a| *a == "--delete" || short_cluster_has(a, 'd')))
            .then(|| "git symbolic-ref: rewrites a ref".to_string())
        }
        "reflog" => matches!(args.first(), Some(&"expire") | Some(&"delete"))
            .then(|| "git reflog expire/delete: drops recovery points".to_string()),
        "gc" => {
            let now = args.iter().enumerate().any(|(i, a)| {
                *a == "--prune=now" || (*a == "--prune" && args.get(i + 1) == Some(&"now"))
            });
            now.then(|| "git gc --prune=now: drops unreachable objects".to_string())
        }
        "replace" => {
            let list = args
                .iter()
                .any(|a| matches!(*a, "-l" | "--list" | "--format"));
            (!list).then(|| "git replace: rewrites what objects mean".to_string())
        }
        _ => None,
    }
}

/// A short option cluster (`-qf`, `-fd`) containing `c`.
fn short_cluster_has(a: &str, c: char) -> bool {
    a.len() > 1 && a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c)
}

fn checkout_mutates(sub: &str, args: &[&str], resolves: &dyn Fn(&str) -> bool) -> Option<String> {
    let why = |s: &str| Some(format!("git {sub}: {s}"));
    // Short options that take a value (attached or next word).
    let with_value: &[char] = if sub == "checkout" {
        &['b', 'B']
    } else {
        &['c', 'C']
    };
    let force_short: &[char] = if sub == "checkout" {
        &['f', 'b', 'B']
    } else {
        &['f', 'c', 'C']
    };
    let force_long: &[&str] = if sub == "checkout" {
        &[
            "--force",
            "--discard-changes",
            "--orphan",
            "--overlay",
            "--pathspec-from-file",
        ]
    } else {
        &[
            "--force",
            "--discard-changes",
            "--orphan",
            "--create",
            "--force-create",
        ]
    };
    let long_with_value = [
        "--orphan",
        "--conflict",
        "--pathspec-from-file",
        "--track",
        "--create",
        "--force-create",
    ];
    let mut positional = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        if a == "--" {
            return why("restores paths (`--`)");
        }
        if a == "-" {
            positional.push(a);
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let name = format!("--{}", long.split('=').next().unwrap_or(""));
            if force_long.contains(&name.as_str()) {
                return why(&format!("{name} discards or rewrites work"));
            }
            if matches!(
                name.as_str(),
                "--orphan" | "--conflict" | "--pathspec-from-file"
            ) && !long.contains('=')
                && long_with_value.contains(&name.as_str())
            {
                i += 1;
            }
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            for c in a[1..].chars() {
                if force_short.contains(&c) {
                    return why(&format!("-{c} forces, creates or resets a branch"));
                }
                if with_value.contains(&c) {
                    break;
                }
            }
            continue;
        }
        positional.push(a);
    }
    match positional.as_slice() {
        [] => None,
        ["-"] => None,
        [one] if resolves(one) => None,
        [one] => why(&format!("{one:?} is not a commit (a pathspec restore)")),
        _ => why("more than one argument (restores paths)"),
    }
}

/// The maintainer's G6 policy: the K2 grant and `primary_checkout` from config.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// `GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT` read strictly (K2).
    pub granted: bool,
    /// Config `primary_checkout = "allow"`.
    pub allow_all: bool,
    /// Config `primary_checkout = { "/path" = "allow" | "deny" }`: per repository path.
    pub per_repo: Vec<(PathBuf, bool)>,
}

impl Policy {
    /// Read the config value (`"deny"`, `"allow"`, or a table of repository paths).
    pub fn from_config(granted: bool, value: Option<&toml::Value>) -> Policy {
        let mut p = Policy {
            granted,
            ..Policy::default()
        };
        match value {
            Some(toml::Value::String(s)) => p.allow_all = s.eq_ignore_ascii_case("allow"),
            Some(toml::Value::Table(t)) => {
                for (k, v) in t {
                    if let Some(s) = v.as_str() {
                        p.per_repo
                            .push((normalise(Path::new(k)), s.eq_ignore_ascii_case("allow")));
                    }
                }
            }
            _ => {}
        }
        p
    }

    /// Whether mutations in the repository at `dir` are allowed by the maintainer.
    pub fn allows(&self, dir: Option<&Path>) -> bool {
        if self.granted || self.allow_all {
            return true;
        }
        let Some(dir) = dir else { return false };
        // The longest matching repository path decides.
        self.per_repo
            .iter()
            .filter(|(p, _)| dir.starts_with(p))
            .max_by_key(|(p, _)| p.as_os_str().len())
            .is_some_and(|(_, allow)| *allow)
    }
}

/// G6 over the whole command: the verdicts, and the first that fires under the policy.
pub fn check(
    view: &CommandView,
    session: &Session,
    world: &dyn RepoWorld,
    policy: &Policy,
) -> (Vec<GitVerdict>, Option<usize>) {
    let verdicts = judge(view, session, world);
    let fired = verdicts.iter().position(|v| {
        v.deny
            && !policy.allows(match &v.target {
                Target::Dir(d) => Some(d.as_path()),
                Target::Unknown(_) => session.cwd.as_deref(),
            })
    });
    (verdicts, fired)
}
