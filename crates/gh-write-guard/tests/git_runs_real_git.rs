//! Commands git is handed to run (command-effects' `git_runs`): real git runs `touch <marker>`
//! given each way (`rebase --exec` in its spellings, `bisect run`, `submodule foreach`,
//! `difftool -x`, the transport commands `--receive-pack`, `--upload-pack`, `GIT_SSH_COMMAND`,
//! `core.sshCommand`; the editors, `core.fsmonitor` given or written by `git config`,
//! `diff.external`, `GIT_EXTERNAL_DIFF`, a `!` credential helper, a filter driver), and runs
//! nothing for the look-alikes (`--no-exec`, difftool's `--ext`, push's ambiguous `--rec`, a
//! pager without a terminal). The
//! first line, judging the same shapes with `git push origin HEAD:main` in place of the touch
//! (a linked worktree, origin on GitHub, main protected by default), refuses exactly the ones
//! git runs.

use hook_replay::git::{git, init_with_commit};
use std::path::Path;

mod offline_support;
use offline_support::{denies, github_worktree};

/// Each command line with `CMD` standing for the command handed to git, and whether git runs
/// it.
const SHAPES: &[(&str, bool)] = &[
    ("git rebase -f -x 'CMD' HEAD~1", true),
    ("git rebase -f --ex 'CMD' HEAD~1", true),
    ("git rebase -f --exec='CMD' HEAD~1", true),
    ("GIT_SEQUENCE_EDITOR=true git rebase -f -ix'CMD' HEAD~1", true),
    ("git rebase -f -x 'CMD' --no-exec -x true HEAD~1", false),
    ("git bisect run sh -c 'CMD'", true),
    ("git submodule foreach 'CMD'", true),
    ("git submodule --quiet foreach --recursive 'CMD'", true),
    ("git difftool -y -x 'CMD'", true),
    ("git difftool -yx 'CMD'", true),
    ("git difftool -y --ext 'CMD'", false),
    // Transport commands for a local or ssh remote.
    (
        "git push --receive-p='CMD; git-receive-pack' ../o.git HEAD:refs/heads/t",
        true,
    ),
    (
        "git push --rec='CMD; git-receive-pack' ../o.git HEAD:refs/heads/t",
        false,
    ),
    ("git ls-remote --upl='CMD; git-upload-pack' ../o.git", true),
    (
        "git fetch --upload-pack 'CMD; git-upload-pack' ../o.git",
        true,
    ),
    ("GIT_SSH_COMMAND='CMD; true' git ls-remote ssh://h/x", true),
    ("git -c core.sshCommand='CMD; true' ls-remote git@h:x", true),
    // Settings and variables whose value git runs (command-effects' `git_run_settings`).
    ("GIT_EDITOR='CMD; true' git commit --allow-empty", true),
    ("git -c core.editor='CMD; true' commit --allow-empty", true),
    ("VISUAL='CMD; true' git commit --allow-empty", true),
    ("EDITOR='CMD; true' git tag -a v1", true),
    ("GIT_SEQUENCE_EDITOR='CMD; true' git rebase -f -i HEAD~1", true),
    ("git -c sequence.editor='CMD; true' rebase -f -i HEAD~1", true),
    ("git -c core.fsmonitor='CMD; true' status", true),
    (
        "git config core.fsmonitor 'CMD; true' && git status; git config --unset core.fsmonitor",
        true,
    ),
    ("git -c diff.external='CMD; true' diff", true),
    ("GIT_EXTERNAL_DIFF='CMD; true' git diff", true),
    (
        "printf 'protocol=https\\nhost=h\\n\\n' | git -c credential.helper='!CMD; true' credential fill",
        true,
    ),
    // An ext:: remote's command (`% ` is its escaped space), where the protocol is allowed.
    ("git -c protocol.ext.allow=always ls-remote 'ext::sh -c CMD'", true),
    ("GIT_ALLOW_PROTOCOL=ext git ls-remote 'ext::sh -c CMD'", true),
    // No terminal: git starts no pager.
    ("git -c core.fsmonitor=true -c core.pager='CMD; cat' log", false),
    // Last: the attributes file stays untracked.
    ("git -c filter.x.clean='CMD; cat' add g", true),
];

/// Shapes git does not run, refused all the same: whether git opens an editor depends on more
/// than the words (a template, a terminal, the subcommand's defaults), so a given editor is
/// judged for every call.
/// And an ext:: remote is judged whatever `protocol.ext.allow` says (git refuses it by default).
const JUDGED_UNRUN: &[&str] = &[
    "GIT_EDITOR='CMD; true' git commit --allow-empty -m x",
    "git ls-remote 'ext::sh -c CMD'",
];

/// `shape` with `CMD` replaced by `cmd` (in an ext:: remote, its spaces escaped as `% `).
fn with_cmd(shape: &str, cmd: &str) -> String {
    match shape.contains("ext::") {
        true => shape.replace("CMD", &cmd.replace(' ', "% ")),
        false => shape.replace("CMD", cmd),
    }
}

/// Runs `shape` as a bash command line in `dir`, the command touching `marker`;
/// whether git ran it. git reads only the repository's config (as `hook_replay::git`).
fn run_shape(dir: &Path, shape: &str, marker: &Path) -> bool {
    let _ = std::fs::remove_file(marker);
    let line = with_cmd(shape, &format!("touch {}", marker.display()));
    let _ = std::process::Command::new("bash")
        .arg("-c")
        .arg(&line)
        .current_dir(dir)
        .envs([
            ("GIT_CONFIG_NOSYSTEM", "1"),
            ("GIT_CONFIG_GLOBAL", "/dev/null"),
            ("GIT_AUTHOR_NAME", "Test"),
            ("GIT_AUTHOR_EMAIL", "test@example.invalid"),
            ("GIT_COMMITTER_NAME", "Test"),
            ("GIT_COMMITTER_EMAIL", "test@example.invalid"),
        ])
        .env_remove("GIT_EDITOR")
        .env_remove("VISUAL")
        .env_remove("EDITOR")
        .env_remove("GIT_SEQUENCE_EDITOR")
        .env_remove("GIT_EXTERNAL_DIFF")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("bash runs");
    marker.exists()
}

#[test]
fn the_first_line_refuses_a_push_git_is_handed_exactly_when_git_runs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let sub = tmp.path().join("sub");
    init_with_commit(&sub, &[]);
    let work = tmp.path().join("work");
    init_with_commit(&work, &[("f", "x\n")]);
    git(&work, &["commit", "-q", "--allow-empty", "-m", "two"]);
    git(
        &work,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            "../sub",
            "sub",
        ],
    );
    git(&work, &["commit", "-q", "-m", "sub"]);
    git(tmp.path(), &["init", "-q", "--bare", "-b", "main", "o.git"]);
    let marker = tmp.path().join("ran");
    for (shape, runs) in SHAPES {
        // A bisect to run; a change for difftool to show (a rebase needs a clean tree).
        let diff = shape.contains(" diff");
        match shape.split(' ').nth(1) {
            Some("bisect") => drop(git(&work, &["bisect", "start", "HEAD", "HEAD~2"])),
            _ if diff => std::fs::write(work.join("f"), "y\n").unwrap(),
            _ if shape.contains("filter.x") => {
                std::fs::write(work.join(".gitattributes"), "g filter=x\n").unwrap();
                std::fs::write(work.join("g"), "g\n").unwrap();
            }
            _ => {}
        }
        assert_eq!(run_shape(&work, shape, &marker), *runs, "real git: {shape}");
        match shape.split(' ').nth(1) {
            Some("bisect") => drop(git(&work, &["bisect", "reset"])),
            _ if diff => drop(git(&work, &["checkout", "-q", "--", "f"])),
            _ => {}
        }
    }
    for shape in JUDGED_UNRUN {
        assert!(!run_shape(&work, shape, &marker), "real git: {shape}");
    }

    // The same shapes handing a push to main, judged from a linked worktree of a clone whose
    // origin is on GitHub.
    let wt = github_worktree(&work);
    for (shape, runs) in SHAPES {
        let line = with_cmd(shape, "git push origin HEAD:main");
        let want: Vec<String> = match runs {
            true => vec!["G4.fail-closed".into()],
            false => vec![],
        };
        assert_eq!(denies(&line, &wt, tmp.path()), want, "{line}");
    }
    for shape in JUDGED_UNRUN {
        let line = with_cmd(shape, "git push origin HEAD:main");
        assert_eq!(denies(&line, &wt, tmp.path()), ["G4.fail-closed"], "{line}");
    }
}
