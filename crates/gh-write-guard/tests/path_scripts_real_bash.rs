//! Programs run by bare name from a folder the command put in front of `PATH`, and git's
//! external commands from `--exec-path`, `GIT_EXEC_PATH` or that `PATH` (command-effects'
//! `scripts::path_candidates`): real bash and git run `bin/foo` and `bin/git-foo` for each
//! shape that says so, and nothing for the look-alikes (a builtin, a folder that does not
//! hold the program, the program left on the inherited `PATH`). The first line, judging the
//! same shapes with the scripts pushing to main (a linked worktree, origin on GitHub, main
//! protected by default), refuses exactly the ones that run them.

use hook_replay::git::init_with_commit;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

mod offline_support;
use offline_support::{denies, github_worktree};

/// Each command line, and whether it runs `bin/foo` or `bin/git-foo`.
const SHAPES: &[(&str, bool)] = &[
    ("PATH=bin:$PATH foo", true),
    ("PATH=./bin:$PATH foo", true),
    ("PATH=$PWD/bin:$PATH foo", true),
    ("PATH=$PWD/bin foo", true),
    ("export PATH=bin:$PATH; foo", true),
    ("PATH=bin:$PATH git foo", true),
    ("git --exec-path=bin foo", true),
    ("GIT_EXEC_PATH=bin git foo", true),
    ("foo", false),
    ("git foo", false),
    ("PATH=bin:$PATH echo foo", false),
    ("PATH=nothere:$PATH foo", false),
    ("PATH=bin:$PATH git status", false),
];

/// Writes `bin/foo` and `bin/git-foo` in `dir`, each running `body`.
fn scripts(dir: &Path, body: &str) {
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    for name in ["foo", "git-foo"] {
        let path = dir.join("bin").join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn the_first_line_reads_a_program_from_a_folder_put_in_front_of_path_exactly_when_it_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    init_with_commit(&work, &[("f", "x\n")]);
    let marker = tmp.path().join("ran");
    // A builtin: the shape may leave only its own folder on `PATH`.
    scripts(&work, &format!(": > {}", marker.display()));
    for (shape, runs) in SHAPES {
        let _ = std::fs::remove_file(&marker);
        let _ = std::process::Command::new("bash")
            .arg("-c")
            .arg(shape)
            .current_dir(&work)
            .envs([
                ("GIT_CONFIG_NOSYSTEM", "1"),
                ("GIT_CONFIG_GLOBAL", "/dev/null"),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("bash runs");
        assert_eq!(marker.exists(), *runs, "real bash: {shape}");
    }

    let wt = github_worktree(&work);
    scripts(&wt, "git push origin HEAD:main");
    for (shape, runs) in SHAPES {
        let want: Vec<String> = match runs {
            true => vec!["G4.fail-closed".into()],
            false => vec![],
        };
        assert_eq!(denies(shape, &wt, tmp.path()), want, "{shape}");
    }
}
