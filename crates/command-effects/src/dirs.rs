//! Which directory an invocation runs in: the start directory, then every `cd`/`pushd`/`popd`/
//! `cd -`/`env -C` before it as bash runs them: `CDPATH` searched for a relative name (`cd
//! widget` with `CDPATH=/home/dev` lands in `/home/dev/widget` when that exists), a shell function
//! that shadows `cd`, `pushd` or `popd` run instead of the builtin, and the directory changes a
//! called function's body leaves behind (`go() { cd /x; }; go; git ...` runs in `/x`); then git's
//! `-C` chain. `~` and `$HOME` expand from the hook's environment; any other run-time word makes
//! the directory unknown.

use crate::functions::{function_body_runs, Functions};
use crate::git::GitCall;
use crate::program::{resolve, Resolved, Run};
use shell_syntax::view::{Arg, CdKind, CdStep, CommandView, EnvSource, Invocation};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// The value of a word with `~` and `$HOME`/`${HOME}` expanded from the hook's environment;
/// `None` when anything else in it is decided at run time.
pub fn expand_home(arg: &Arg, home: Option<&Path>) -> Option<String> {
    if let Some(v) = &arg.value {
        return Some(v.to_string());
    }
    let home = home.map(|h| h.to_string_lossy().into_owned());
    arg.word
        .resolve(&|name| if name == "HOME" { home.clone() } else { None })
}

/// The home `~` and `$HOME` expand to in `inv`'s words: a `HOME` the command set before it (a
/// shell variable or an export: `HOME=/w; git -C ~/x`), else the hook's. A prefix assignment
/// of `inv` itself does not count (bash expands the words first: `HOME=/w echo ~` prints the
/// old home). `None` when the command set it to a run-time value.
pub fn tilde_home(inv: &Invocation<'_>, hook_home: Option<&Path>) -> Option<PathBuf> {
    match inv.env_value("HOME") {
        Some(e) if matches!(e.source, EnvSource::Shell | EnvSource::Export) => e
            .value
            .as_ref()
            .and_then(|a| a.value.as_deref())
            .map(PathBuf::from),
        _ => hook_home.map(Path::to_path_buf),
    }
}

/// Joins `path` onto `base` the way `cd` does (absolute replaces), normalising `.` and `..`
/// lexically ([`normalise`]).
pub fn join(base: &Path, path: &str) -> PathBuf {
    match path.starts_with('/') {
        true => normalise(Path::new(path)),
        false => normalise(&base.join(path)),
    }
}

/// `path` with `.` removed and `..` resolved lexically (no file system access: a hook judges a
/// call before it runs, and the path may not exist yet); a `..` above the root stays at the
/// root, one above a relative path's start is kept. The one normaliser of the workspace.
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    let mut depth = 0usize; // normal components in `out` that a `..` can take back
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => {
                out.pop();
                depth -= 1;
            }
            Component::ParentDir if path.is_absolute() => {}
            Component::ParentDir => out.push(".."),
            Component::Normal(n) => {
                out.push(n);
                depth += 1;
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The directory a git command runs in after its `-C` chain; `None` when one is dynamic.
pub fn after_git_c(dir: &Path, call: &GitCall, home: Option<&Path>) -> Option<PathBuf> {
    let mut dir = dir.to_path_buf();
    for c in &call.dir_changes {
        let c = c.as_deref()?;
        let c = match c.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                format!("{}{rest}", home?.display())
            }
            _ => c.to_string(),
        };
        // `git -C ""` is a no-op.
        if !c.is_empty() {
            dir = join(&dir, &c);
        }
    }
    Some(dir)
}

/// The facts from outside the command that the walk needs.
pub struct DirCx<'x> {
    /// `$HOME` of the hook's environment.
    pub home: Option<&'x Path>,
    /// `CDPATH` of the hook's environment (inherited unless the command sets its own).
    pub cdpath: Option<&'x str>,
    /// Whether a directory exists: bash's `CDPATH` search takes the first entry holding it.
    pub is_dir: &'x dyn Fn(&Path) -> bool,
}

/// One directory change with its words read.
#[derive(Debug, Clone, PartialEq)]
enum Change {
    /// `cd`/`pushd` (`search`: `CDPATH` applies) or `env -C` to `target` (`None`: run time).
    /// `cdpath` as the command set it (`None`: not set there, the hook's; `Some(None)`: run
    /// time).
    To {
        target: Option<String>,
        push: bool,
        search: bool,
        cdpath: Option<Option<String>>,
    },
    Pop,
    Back,
    /// `pushd -n dir`: `dir` goes on the stack, the directory stays (`None`: run time).
    PushStack(Option<String>),
    /// `pushd +N` / `pushd -N` (bare `pushd`: `+1`): the stack rotated so that entry N (of
    /// `dirs`, counted from the left, or from the right with `-`) is the directory.
    Rotate {
        n: usize,
        from_right: bool,
    },
    /// `popd +N` / `popd -N`: entry N removed (entry 0 is the directory: that is `popd`);
    /// `popd -n`: the entry below the directory removed, the directory stays.
    Remove {
        n: usize,
        from_right: bool,
    },
    /// A change whose target is decided at run time (`pushd` alone, `pushd +1`).
    Unknown,
}

/// A call of a shell function whose body changes directory, or that shadows `cd`/`pushd`/
/// `popd` (the view's step for it is replaced by the body's changes).
#[derive(Debug)]
struct Call {
    index: usize,
    shadows: bool,
    changes: Vec<Change>,
}

/// Most directory-changing function calls followed; past them directories are unknown.
const MAX_CALLS: usize = 64;

/// What [`dir_of`] reads of a view, built once per view: the `CDPATH` each `cd` sees and the
/// directory changes of function calls. Owns its data (no borrow of the view).
#[derive(Debug, Default)]
pub struct DirIndex {
    /// Span of a `cd`/`pushd` operand → the `CDPATH` that command sets.
    cdpath_at: HashMap<(u32, u32), Option<String>>,
    calls: Vec<Call>,
    /// Index of the first call not followed ([`MAX_CALLS`]).
    overflow: Option<usize>,
}

/// `CDPATH` as an environment entry gives it (`unset` clears it).
fn cdpath_value(v: Option<&shell_syntax::view::EnvVar>) -> Option<Option<String>> {
    let e = v?;
    if e.source == EnvSource::Unset {
        return Some(Some(String::new()));
    }
    Some(
        e.value
            .as_ref()
            .and_then(|a| a.value.as_deref().map(String::from)),
    )
}

impl DirIndex {
    /// Reads `view` (`home`: the hook's, for targets in function bodies).
    pub fn of(view: &CommandView<'_>, home: Option<&Path>) -> DirIndex {
        let mut ix = DirIndex::default();
        let funcs = Functions::of(view);
        let arena = bumpalo::Bump::new();
        for inv in &view.invocations {
            if matches!(inv.name(), Some("cd" | "pushd")) {
                if let Some(cp) = cdpath_value(inv.env_value("CDPATH")) {
                    for a in &inv.args {
                        ix.cdpath_at
                            .insert((a.word.span.start, a.word.span.end), cp.clone());
                    }
                }
            }
            if funcs.is_empty() || ix.overflow.is_some() {
                continue;
            }
            let run = resolve(&funcs, inv, &arena);
            let Resolved::Function(name) = &run.program else {
                continue;
            };
            let shadows = matches!(name.as_str(), "cd" | "pushd" | "popd");
            let changes: Vec<Change> = function_body_runs(view, &funcs, &run, &arena)
                .iter()
                .filter_map(|r| change_of_run(view, r, home))
                .collect();
            if !shadows && changes.is_empty() {
                continue;
            }
            if ix.calls.len() >= MAX_CALLS {
                ix.overflow = Some(inv.index);
                continue;
            }
            ix.calls.push(Call {
                index: inv.index,
                shadows,
                changes,
            });
        }
        ix
    }
}

/// The change a `cd`/`pushd`/`popd` run makes (a run of a function body, words substituted).
fn change_of_run(view: &CommandView<'_>, r: &Run<'_>, home: Option<&Path>) -> Option<Change> {
    let name = r.name()?;
    if name == "popd" {
        return Some(Change::Pop);
    }
    if name != "cd" && name != "pushd" {
        return None;
    }
    let inv = view.invocations.get(r.invocation)?;
    // Options (`-L`, `-P`, `-e`, `-@`, and `--`) end at the first other word.
    let is_option = |a: &Arg| {
        a.value
            .as_deref()
            .is_some_and(|v| v.len() > 1 && v.starts_with('-'))
    };
    let first = r
        .args
        .iter()
        .position(|a| !is_option(a))
        .unwrap_or(r.args.len());
    let mut operands = r.args[first..].iter();
    let push = name == "pushd";
    // `pushd -n dir`: only the stack changes.
    if push
        && r.args[..first].iter().any(|a| {
            a.value
                .as_deref()
                .is_some_and(|v| !v.starts_with("--") && v[1..].contains('n'))
        })
    {
        return Some(Change::PushStack(
            operands.next().and_then(|a| expand_home(a, home)),
        ));
    }
    let target = match operands.next() {
        None if push => return Some(Change::Unknown),
        None => match r.env_value(inv, "HOME") {
            Some(v) => v,
            None => home.map(|h| h.to_string_lossy().into_owned()),
        },
        Some(a) => match a.value.as_deref() {
            Some("-") if !push => return Some(Change::Back),
            Some(v) if push && v.len() > 1 && v.starts_with(['+', '-']) => {
                return Some(Change::Unknown)
            }
            _ => expand_home(a, home),
        },
    };
    Some(Change::To {
        target,
        push,
        search: true,
        cdpath: r.env_value(inv, "CDPATH"),
    })
}

/// Where the effects of the call `j` land in `k.cds` (the length of `j.cds`), when `k` runs
/// after `j` in the same shell (not after a pipeline member, a background job, a
/// substitution, or another function's body).
fn reaches(j: &Invocation<'_>, k: &Invocation<'_>) -> Option<usize> {
    let (cj, ck) = (&j.context, &k.context);
    let same_shell = cj.pipeline.is_none()
        && !cj.background
        && cj.command_subst <= ck.command_subst
        && cj.process_subst <= ck.process_subst
        && (cj.function.is_none() || cj.function == ck.function)
        && k.origin.starts_with(&j.origin)
        && !j.scope_truncated
        && !k.scope_truncated;
    let n = j.cds.len();
    (same_shell && k.cds.len() >= n && k.cds[..n] == j.cds[..]).then_some(n)
}

/// Whether `step` is the view's step for the `cd`/`pushd`/`popd` call `j`.
fn step_of(step: &CdStep<'_>, j: &Invocation<'_>) -> bool {
    match &step.target {
        Some(t) => j.args.is_empty() || j.args.iter().any(|a| a.word.span == t.word.span),
        None => true,
    }
}

impl DirIndex {
    /// The change the view's `step` makes.
    fn change_of_step(&self, step: &CdStep<'_>, home: Option<&Path>) -> Change {
        let index = |a: &shell_syntax::view::Arg<'_>| -> Option<(usize, bool)> {
            let v = a.value.as_deref()?;
            let (from_right, digits) = match v.as_bytes().first()? {
                b'+' => (false, &v[1..]),
                b'-' => (true, &v[1..]),
                _ => return None,
            };
            digits.parse().ok().map(|n| (n, from_right))
        };
        match step.kind {
            CdKind::Popd => match &step.target {
                None => Change::Pop,
                Some(a) if a.value.as_deref() == Some("-n") => Change::Remove {
                    n: 1,
                    from_right: false,
                },
                Some(a) => match index(a) {
                    Some((0, false)) => Change::Pop,
                    Some((n, from_right)) => Change::Remove { n, from_right },
                    None => Change::Unknown,
                },
            },
            CdKind::Pushd if step.target.is_none() => Change::Rotate {
                n: 1,
                from_right: false,
            },
            CdKind::Pushd if step.target.as_ref().and_then(index).is_some() => {
                let (n, from_right) = step.target.as_ref().and_then(index).unwrap_or((0, false));
                Change::Rotate { n, from_right }
            }
            // Bare `pushd -n`: not followed here.
            CdKind::PushStack if step.target.is_none() => Change::Unknown,
            CdKind::Back => Change::Back,
            CdKind::PushStack => {
                Change::PushStack(step.target.as_ref().and_then(|a| expand_home(a, home)))
            }
            CdKind::Cd | CdKind::Pushd | CdKind::EnvChdir => {
                let search = step.kind != CdKind::EnvChdir;
                let (target, cdpath) = match &step.target {
                    None => (home.map(|h| h.to_string_lossy().into_owned()), None),
                    Some(a) => (
                        expand_home(a, home),
                        self.cdpath_at
                            .get(&(a.word.span.start, a.word.span.end))
                            .cloned(),
                    ),
                };
                Change::To {
                    target,
                    push: step.kind == CdKind::Pushd,
                    search,
                    cdpath,
                }
            }
        }
    }
}

/// The directory `inv` (an invocation of `view`, indexed by `ix`) runs in, starting at `base`;
/// `None` when a change before it goes to a place decided at run time.
pub fn dir_of(
    view: &CommandView<'_>,
    ix: &DirIndex,
    inv: &Invocation<'_>,
    base: &Path,
    cx: &DirCx<'_>,
) -> Option<PathBuf> {
    if ix.overflow.is_some_and(|o| o < inv.index) {
        return None;
    }
    let mut splices: Vec<(usize, &Call)> = Vec::new();
    for c in ix.calls.iter().take_while(|c| c.index < inv.index) {
        let j = view.invocations.get(c.index)?;
        let Some(at) = reaches(j, inv) else { continue };
        if c.shadows && !inv.cds.get(at).is_some_and(|s| step_of(s, j)) {
            continue;
        }
        splices.push((at, c));
    }
    splices.sort_by_key(|(at, c)| (*at, c.index));
    let mut walk = Walk {
        dir: base.to_path_buf(),
        stack: Vec::new(),
        oldpwd: None,
        cx,
    };
    let mut next = splices.iter().peekable();
    for (i, step) in inv.cds.iter().enumerate() {
        let mut replaced = false;
        while let Some((_, c)) = next.next_if(|(at, _)| *at == i) {
            c.changes.iter().try_for_each(|ch| walk.apply(ch))?;
            replaced |= c.shadows;
        }
        if !replaced {
            walk.apply(&ix.change_of_step(step, cx.home))?;
        }
    }
    for (_, c) in next {
        c.changes.iter().try_for_each(|ch| walk.apply(ch))?;
    }
    Some(walk.dir)
}

/// The directory, the `pushd` stack and `OLDPWD` as the changes run.
struct Walk<'c, 'x> {
    dir: PathBuf,
    stack: Vec<PathBuf>,
    oldpwd: Option<PathBuf>,
    cx: &'c DirCx<'x>,
}

impl Walk<'_, '_> {
    fn apply(&mut self, c: &Change) -> Option<()> {
        let next = match c {
            Change::To {
                target,
                push,
                search,
                cdpath,
            } => {
                let next = self.target(target.as_deref()?, *search, cdpath)?;
                if *push {
                    self.stack.push(self.dir.clone());
                }
                next
            }
            Change::PushStack(t) => {
                let at = join(&self.dir, t.as_deref()?);
                self.stack.push(at);
                return Some(());
            }
            Change::Rotate { n, from_right } => {
                // `dirs`: the directory, then the stack from its top.
                let mut all: Vec<PathBuf> = std::iter::once(self.dir.clone())
                    .chain(self.stack.iter().rev().cloned())
                    .collect();
                let len = all.len();
                let at = if *from_right {
                    len.checked_sub(1 + n)?
                } else {
                    *n
                };
                if at >= len {
                    return None;
                }
                all.rotate_left(at);
                let next = all.remove(0);
                self.stack = all.into_iter().rev().collect();
                next
            }
            Change::Remove { n, from_right } => {
                let len = 1 + self.stack.len();
                let at = if *from_right {
                    len.checked_sub(1 + n)?
                } else {
                    *n
                };
                if at == 0 || at >= len {
                    // Entry 0 is `popd` itself; past the end bash refuses (unknown here).
                    return if at == 0 {
                        self.apply(&Change::Pop)
                    } else {
                        None
                    };
                }
                // Entry `at` of `dirs` is `stack[len - 1 - at]`.
                self.stack.remove(len - 1 - at);
                return Some(());
            }
            Change::Pop => self.stack.pop()?,
            // `cd -` goes back to OLDPWD: unknown before any change.
            Change::Back => self.oldpwd.take()?,
            Change::Unknown => return None,
        };
        self.oldpwd = Some(std::mem::replace(&mut self.dir, next));
        Some(())
    }

    /// Where `cd t` lands: a relative name not starting with `.`/`..` is looked up in each
    /// `CDPATH` entry first (an empty entry is the current directory).
    fn target(&self, t: &str, search: bool, cdpath: &Option<Option<String>>) -> Option<PathBuf> {
        let plain = join(&self.dir, t);
        let dotted = t == "." || t == ".." || t.starts_with("./") || t.starts_with("../");
        if !search || t.starts_with('/') || dotted {
            return Some(plain);
        }
        let cp = match cdpath {
            Some(Some(v)) => v.as_str(),
            Some(None) => return None,
            None => self.cx.cdpath.unwrap_or(""),
        };
        if cp.is_empty() {
            return Some(plain);
        }
        let found = cp
            .split(':')
            .map(|e| join(&join(&self.dir, if e.is_empty() { "." } else { e }), t))
            .find(|c| (self.cx.is_dir)(c));
        Some(found.unwrap_or(plain))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The directory of the last invocation of `cmd`, from `/s` with `HOME=/h`, where the
    /// directories `dirs` exist.
    fn last_dir(cmd: &str, dirs: &[&str]) -> Option<PathBuf> {
        let parsed = shell_syntax::parse(cmd);
        let view = shell_syntax::commands(&parsed);
        let home = Some(Path::new("/h"));
        let ix = DirIndex::of(&view, home);
        let is_dir = |p: &Path| dirs.iter().any(|d| Path::new(d) == p);
        let cx = DirCx {
            home,
            cdpath: None,
            is_dir: &is_dir,
        };
        dir_of(&view, &ix, view.invocations.last()?, Path::new("/s"), &cx)
    }

    #[test]
    fn joins_like_cd() {
        assert_eq!(join(Path::new("/a/b"), "../c"), PathBuf::from("/a/c"));
        assert_eq!(join(Path::new("/a/b"), "/x/./y"), PathBuf::from("/x/y"));
    }

    /// (command, existing directories, where its last invocation runs). CDPATH as bash 5.2
    /// reads it (checked with real directories); a function shadowing `cd` runs instead of
    /// the builtin; a called body's `cd` stays.
    const CASES: &[(&str, &[&str], Option<&str>)] = &[
        ("cd /r && cd sub && cd ~/w && git status", &[], Some("/h/w")),
        ("cd \"$X\" && git status", &[], None),
        ("cd \"$HOME/p\" && git status", &[], Some("/h/p")),
        ("cd /a; cd /b; cd - >/dev/null; git status", &[], Some("/a")),
        ("cd - ; git status", &[], None),
        ("HOME=/w; cd; git status", &[], Some("/w")),
        ("cd; git status", &[], Some("/h")),
        ("HOME=$(pwd); cd; git status", &[], None),
        ("pushd /a; pushd /b; popd; git status", &[], Some("/a")),
        ("CDPATH=/d cd w && ls", &["/d/w"], Some("/d/w")),
        ("CDPATH=/d; cd w; ls", &["/d/w"], Some("/d/w")),
        ("export CDPATH=.:/d; cd w; ls", &["/d/w"], Some("/d/w")),
        ("CDPATH=/d pushd w; ls", &["/d/w"], Some("/d/w")),
        ("CDPATH=/d cd ./w; ls", &["/d/w"], Some("/s/w")),
        ("CDPATH=/elsewhere cd w; ls", &["/d/w"], Some("/s/w")),
        ("CDPATH=/d; unset CDPATH; cd w; ls", &["/d/w"], Some("/s/w")),
        ("CDPATH=$X cd w; ls", &["/d/w"], None),
        ("CDPATH=/d env -C w ls", &["/d/w"], Some("/s/w")),
        ("cd() { builtin cd /p; }; cd /tmp && ls", &[], Some("/p")),
        (
            "cd() { builtin cd \"$@\" && ls; }; cd x && ls",
            &[],
            Some("/s/x"),
        ),
        ("cd() { command cd /p; }; cd -; ls", &[], Some("/p")),
        ("cd() { echo no; }; cd /p; ls", &[], Some("/s")),
        (
            "pushd() { builtin cd /p; }; pushd /tmp; ls",
            &[],
            Some("/p"),
        ),
        ("go() { cd /p; }; go; ls", &[], Some("/p")),
        ("go() { cd /p; }; go | cat; ls", &[], Some("/s")),
        ("go() { cd /p; }; (go); cd /q; ls", &[], Some("/q")),
        ("go() { cd /p; }; go; cd x; ls", &[], Some("/p/x")),
        ("go() { cd \"$1\"; }; go /r; ls", &[], Some("/r")),
        ("git status; go() { cd /p; }", &[], Some("/s")),
    ];

    #[test]
    fn directories_as_bash_changes_them() {
        for (cmd, dirs, want) in CASES {
            assert_eq!(last_dir(cmd, dirs), want.map(PathBuf::from), "{cmd}");
        }
    }
}
