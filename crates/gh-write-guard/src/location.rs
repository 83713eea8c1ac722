//! Which directory a command acts in: the payload `cwd`, then every `cd`/`pushd`/`env -C` that
//! ran before it, then git's `-C` chain. `~`, `~user`-less `~/x`, `$HOME` and `${HOME}` expand
//! from the hook's environment; any other run-time word makes the directory unknown.

use command_effects::git::GitCall;
use shell_syntax::view::{Arg, CdKind, CdStep};
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

/// Joins `path` onto `base` the way `cd` does (absolute replaces), normalising `.` and `..`
/// lexically.
pub fn join(base: &Path, path: &str) -> PathBuf {
    let mut out = if path.starts_with('/') {
        PathBuf::from("/")
    } else {
        base.to_path_buf()
    };
    for c in Path::new(path).components() {
        match c {
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
        }
    }
    out
}

/// The directory after the `cd` steps, starting at `base`; `None` when a step's target is not
/// known (dynamic word, `cd -`, `popd`).
pub fn after_cds(base: &Path, cds: &[CdStep], home: Option<&Path>) -> Option<PathBuf> {
    let mut dir = base.to_path_buf();
    let mut stack: Vec<PathBuf> = Vec::new();
    // `cd -` goes back to OLDPWD: the directory before the last change (unknown before any).
    let mut oldpwd: Option<PathBuf> = None;
    for step in cds {
        match step.kind {
            CdKind::Cd | CdKind::Pushd | CdKind::EnvChdir => {
                let target = match &step.target {
                    None => home?.to_string_lossy().into_owned(),
                    Some(arg) => expand_home(arg, home)?,
                };
                if step.kind == CdKind::Pushd {
                    stack.push(dir.clone());
                }
                let next = join(&dir, &target);
                oldpwd = Some(std::mem::replace(&mut dir, next));
            }
            CdKind::Popd => {
                let next = stack.pop()?;
                oldpwd = Some(std::mem::replace(&mut dir, next));
            }
            CdKind::Back => {
                let next = oldpwd.take()?;
                oldpwd = Some(std::mem::replace(&mut dir, next));
            }
        }
    }
    Some(dir)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_like_cd() {
        assert_eq!(join(Path::new("/a/b"), "../c"), PathBuf::from("/a/c"));
        assert_eq!(join(Path::new("/a/b"), "/x/./y"), PathBuf::from("/x/y"));
    }

    #[test]
    fn cds_from_a_view() {
        let parsed = shell_syntax::parse("cd /r && cd sub && cd ~/w && git status");
        let view = shell_syntax::commands(&parsed);
        let inv = view.invocations.last().unwrap();
        let dir = after_cds(Path::new("/start"), &inv.cds, Some(Path::new("/home/u")));
        assert_eq!(dir, Some(PathBuf::from("/home/u/w")));
        let parsed = shell_syntax::parse("cd \"$X\" && git status");
        let view = shell_syntax::commands(&parsed);
        let inv = view.invocations.last().unwrap();
        assert_eq!(after_cds(Path::new("/s"), &inv.cds, None), None);
        let parsed = shell_syntax::parse("cd \"$HOME/p\" && git status");
        let view = shell_syntax::commands(&parsed);
        let inv = view.invocations.last().unwrap();
        assert_eq!(
            after_cds(Path::new("/s"), &inv.cds, Some(Path::new("/h"))),
            Some(PathBuf::from("/h/p"))
        );
    }

    /// `cd -` returns to the directory before the last change; `HOME=x; cd` goes to x.
    #[test]
    fn oldpwd_and_a_reassigned_home() {
        let dir_of = |cmd: &str| {
            let parsed = shell_syntax::parse(cmd);
            let view = shell_syntax::commands(&parsed);
            let inv = view.invocations.last().unwrap();
            after_cds(Path::new("/s"), &inv.cds, Some(Path::new("/h")))
        };
        assert_eq!(
            dir_of("cd /a; cd /b; cd - >/dev/null; git status"),
            Some(PathBuf::from("/a"))
        );
        assert_eq!(dir_of("cd - ; git status"), None);
        assert_eq!(dir_of("HOME=/w; cd; git status"), Some(PathBuf::from("/w")));
        assert_eq!(dir_of("cd; git status"), Some(PathBuf::from("/h")));
        assert_eq!(dir_of("HOME=$(pwd); cd; git status"), None);
    }
}
