//! Shared helpers for the integration tests: real git repositories in temp dirs, driven by the
//! real `git` with an isolated configuration, and git2 pointed away from the machine's config.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Once, OnceLock};

/// An empty directory standing in for HOME / global config for the whole test process.
fn empty_home() -> &'static Path {
    static HOME: OnceLock<tempfile::TempDir> = OnceLock::new();
    HOME.get_or_init(|| tempfile::tempdir().expect("temp home"))
        .path()
}

/// Points libgit2's global, XDG, system and programdata config search at an empty directory,
/// so the machine's `~/.gitconfig` cannot change what the tests see.
pub fn isolate_git2() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for level in [
            git2::ConfigLevel::Global,
            git2::ConfigLevel::XDG,
            git2::ConfigLevel::System,
            git2::ConfigLevel::ProgramData,
        ] {
            // SAFETY: called once, before any git2 use in this process (every test calls this
            // first and `Once` makes the others wait).
            unsafe {
                git2::opts::set_search_path(level, empty_home()).expect("set search path");
            }
        }
    });
}

/// Runs the real git in `dir` with an isolated configuration; panics (test failure) when it
/// fails. Returns stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    hook_replay::git::checked(&mut git_command(dir, args), args)
}

/// Runs the real git and returns (success, stdout, stderr).
pub fn git_try(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = git_command(dir, args).output().expect("run git");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The shared isolated git, with HOME in the empty directory too.
fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = hook_replay::git::command(dir, args);
    cmd.env("HOME", empty_home())
        .env("XDG_CONFIG_HOME", empty_home());
    cmd
}

/// A work repository with one commit on `main`, plus a place for bare remotes.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        isolate_git2();
        let dir = tempfile::tempdir().expect("temp dir");
        hook_replay::git::init_with_commit(&dir.path().join("work"), &[("README", "hello\n")]);
        Fixture { dir }
    }

    pub fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// Runs git in the work repository.
    pub fn git(&self, args: &[&str]) -> String {
        git(&self.work(), args)
    }

    pub fn git_try(&self, args: &[&str]) -> (bool, String, String) {
        git_try(&self.work(), args)
    }

    /// Creates a bare repository beside the work repository; returns its path.
    pub fn bare(&self, name: &str) -> String {
        let path = self.dir.path().join(format!("{name}.git"));
        git(
            self.dir.path(),
            &["init", "-q", "--bare", path.to_str().expect("utf-8 path")],
        );
        path.to_string_lossy().into_owned()
    }

    pub fn repo(&self) -> git2::Repository {
        git2::Repository::open(self.work()).expect("open work repo")
    }
}
