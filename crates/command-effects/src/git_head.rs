//! Which git commands leave HEAD on another branch, so that a later `git push` with no refspec
//! or with `HEAD` in the same command sends that branch, not the one checked out when the
//! command was read (`git checkout main && git push`). Read from the arguments; whether a plain
//! operand is a branch, a commit or a path is the caller's to ask (`Moved::Operand`).

use crate::git::GitCall;

/// Where a git call leaves HEAD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moved {
    /// On this branch (`checkout -b x`, `switch -c x`, `branch -m x`, `symbolic-ref HEAD
    /// refs/heads/x`, `rebase <upstream> x`).
    Branch(String),
    /// On the operand if it names a local branch; a commit detaches HEAD; a path leaves it
    /// (`git checkout x`, `git switch x`).
    Operand(String),
    /// Somewhere not known from the arguments (`checkout -`, `bisect`, a run-time word).
    Unknown,
}

/// Options of checkout and switch that take the next word (the new branch's name first).
const NEW_BRANCH: [&str; 6] = ["-b", "-B", "-c", "-C", "--orphan", "--create"];
const VALUED: [&str; 3] = ["--conflict", "--pathspec-from-file", "--force-create"];

/// `None`: HEAD stays on its branch (not a switch, or a checkout of paths).
pub fn moved(call: &GitCall<'_>) -> Option<Moved> {
    let sub = match &call.subcommand {
        None => return None,
        Some(None) => return Some(Moved::Unknown),
        Some(Some(s)) => s.as_str(),
    };
    let words: Vec<Option<&str>> = call.args.iter().map(|a| a.value.as_deref()).collect();
    if words.iter().any(|w| matches!(w, Some("-h" | "--help"))) {
        return None;
    }
    match sub {
        "checkout" | "switch" => checkout(&words),
        "branch" => branch_move(&words),
        "rebase" => {
            let operands: Vec<Option<&str>> = words
                .iter()
                .copied()
                .filter(|w| !w.is_some_and(|w| w.starts_with('-')))
                .collect();
            match operands.get(1) {
                Some(Some(b)) => Some(Moved::Branch(b.to_string())),
                Some(None) => Some(Moved::Unknown),
                None => None,
            }
        }
        "symbolic-ref" => match words.as_slice() {
            [Some("HEAD"), Some(r)] => Some(
                r.strip_prefix("refs/heads/")
                    .map_or(Moved::Unknown, |b| Moved::Branch(b.to_string())),
            ),
            [Some("HEAD"), None] => Some(Moved::Unknown),
            _ => None,
        },
        "bisect" => Some(Moved::Unknown),
        _ => None,
    }
}

fn checkout(words: &[Option<&str>]) -> Option<Moved> {
    let mut operands: Vec<Option<&str>> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            // What follows `--` is paths.
            Some("--") => break,
            Some(o) if NEW_BRANCH.contains(&o) => {
                return Some(match words.get(i + 1).copied().flatten() {
                    Some(b) => Moved::Branch(b.to_string()),
                    None => Moved::Unknown,
                })
            }
            Some(o) if o.starts_with("--orphan=") || o.starts_with("--create=") => {
                return Some(Moved::Branch(o.split_once('=')?.1.to_string()))
            }
            Some("-" | "@{-1}") => return Some(Moved::Unknown),
            Some("--detach" | "-d") => return Some(Moved::Unknown),
            Some(o) if o.starts_with('-') => {
                if VALUED.contains(&o) {
                    i += 1;
                }
            }
            w => operands.push(w),
        }
        i += 1;
    }
    match operands.first() {
        None | Some(Some(".")) => None,
        Some(Some(x)) => Some(Moved::Operand(x.to_string())),
        Some(None) => Some(Moved::Unknown),
    }
}

/// `git branch -m [<old>] <new>`: renames the current branch when one name is given.
fn branch_move(words: &[Option<&str>]) -> Option<Moved> {
    let moving = words.iter().any(|w| {
        w.is_some_and(|w| {
            matches!(w, "-m" | "-M" | "--move")
                || (w.starts_with('-')
                    && !w.starts_with("--")
                    && (w.contains('m') || w.contains('M')))
        })
    });
    if !moving {
        return None;
    }
    let operands: Vec<Option<&str>> = words
        .iter()
        .copied()
        .filter(|w| !w.is_some_and(|w| w.starts_with('-')))
        .collect();
    match operands.as_slice() {
        [Some(new)] => Some(Moved::Branch(new.to_string())),
        _ => Some(Moved::Unknown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved_by(cmd: &str) -> Option<Moved> {
        crate::git::with_last_call(cmd, moved)
    }

    #[test]
    fn switches_in_every_form() {
        let b = |s: &str| Some(Moved::Branch(s.to_string()));
        let op = |s: &str| Some(Moved::Operand(s.to_string()));
        for (cmd, want) in [
            ("git checkout -b fix", b("fix")),
            ("git checkout -B fix origin/main", b("fix")),
            ("git switch -c fix", b("fix")),
            ("git switch --create fix", b("fix")),
            ("git switch --orphan=site", b("site")),
            ("git checkout --orphan site", b("site")),
            ("git branch -m renamed", b("renamed")),
            ("git branch -M old new", Some(Moved::Unknown)),
            ("git rebase main topic", b("topic")),
            ("git symbolic-ref HEAD refs/heads/main", b("main")),
            ("git checkout main", op("main")),
            ("git switch -q main", op("main")),
            ("git checkout -f --conflict merge main", op("main")),
            ("git -C wt checkout main", op("main")),
            ("git checkout -", Some(Moved::Unknown)),
            ("git switch --detach v1", Some(Moved::Unknown)),
            ("git checkout \"$B\"", Some(Moved::Unknown)),
            ("git bisect start", Some(Moved::Unknown)),
            ("git $sub main", Some(Moved::Unknown)),
        ] {
            assert_eq!(moved_by(cmd), want, "{cmd}");
        }
    }

    #[test]
    fn paths_and_other_commands_leave_head() {
        for cmd in [
            "git checkout -- src/lib.rs",
            "git checkout .",
            "git checkout",
            "git branch -D old",
            "git branch --list",
            "git rebase main",
            "git commit -m x",
            "git push origin main",
            "git checkout -h",
        ] {
            assert_eq!(moved_by(cmd), None, "{cmd}");
        }
    }
}
