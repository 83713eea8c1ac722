//! The real `git` for tests and benchmarks that build repositories in temp dirs: no system or
//! global config (the machine's `~/.gitconfig` cannot change what a test sees), no inherited
//! `GIT_DIR`/`GIT_WORK_TREE`, and a fixed identity so commits work on a machine without one.

use std::path::Path;
use std::process::{Command, Output};

/// `git <args>` in `dir`, isolated as above; the caller adds what its case needs.
pub fn command(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("git");
    c.current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE");
    c
}

/// Runs `git <args>` in `dir` and returns its output, success or not.
pub fn output(dir: &Path, args: &[&str]) -> Output {
    command(dir, args).output().expect("git runs")
}

/// Runs `git <args>` in `dir`; panics (a test failure) with git's stderr when it fails. Returns
/// stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    checked(&mut command(dir, args), args)
}

/// Runs a prepared git `command`; panics (a test failure) with git's stderr when it fails.
/// Returns stdout.
pub fn checked(command: &mut Command, args: &[&str]) -> String {
    let out = command.output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Creates `dir` (and its parents) as a repository on `main` with one commit holding `files`
/// (`(path in the repository, text)`; none: an empty commit).
pub fn init_with_commit(dir: &Path, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).expect("the repository's folder");
    git(dir, &["init", "-q", "-b", "main"]);
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("a file of the first commit");
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", "work"]);
}

/// `git daemon` serving the bare repositories under `base` on a free 127.0.0.1 port, with
/// pushes enabled (a real git host for push tests); killed on drop.
pub struct Daemon {
    child: std::process::Child,
    /// The port it listens on.
    pub port: u16,
}

impl Daemon {
    /// Starts the daemon and waits until it accepts connections.
    pub fn start(base: &Path) -> Daemon {
        use std::net::{TcpListener, TcpStream};
        use std::time::{Duration, Instant};
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("git")
            .args([
                "daemon",
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
            ])
            .arg("--listen=127.0.0.1")
            .arg(format!("--port={port}"))
            .arg(format!("--base-path={}", base.display()))
            .arg(base)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("git daemon starts");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "git daemon did not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Daemon { child, port }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A bare `acme/widget.git` behind [`Daemon`] (and [`Origin::http_url`]) in a temp folder: the real origin the push tests
/// push to (the rules API they pair it with names the same `acme/widget`).
pub struct Origin {
    /// The bare repository, to read what landed.
    pub bare: std::path::PathBuf,
    // Dropped first: the servers stop before their folder goes.
    daemon: Daemon,
    http: crate::git_http::HttpBackend,
    _dir: tempfile::TempDir,
}

impl Origin {
    /// Creates the bare repository (default branch `main`) and starts serving it.
    pub fn serve() -> Origin {
        let dir = tempfile::tempdir().expect("a temp folder");
        let bare = dir.path().join("acme/widget.git");
        std::fs::create_dir_all(&bare).expect("the bare repository's folder");
        git(&bare, &["init", "-q", "--bare", "-b", "main"]);
        let daemon = Daemon::start(dir.path());
        let http = crate::git_http::HttpBackend::start(dir.path());
        Origin {
            bare,
            daemon,
            http,
            _dir: dir,
        }
    }

    /// The same repository over git's smart HTTP protocol (through git's remote helper,
    /// `git-remote-http`): `http://127.0.0.1:<port>/acme/widget.git`.
    pub fn http_url(&self) -> String {
        format!("http://127.0.0.1:{}/acme/widget.git", self.http.port)
    }

    /// The port of [`Origin::http_url`].
    pub fn http_port(&self) -> u16 {
        self.http.port
    }

    /// Makes `project` a repository with one commit on `main`, a `feature` branch beside it, and
    /// this origin as `origin`.
    pub fn checkout_in(&self, project: &Path) {
        init_with_commit(project, &[]);
        git(project, &["branch", "feature"]);
        let url = format!("git://127.0.0.1:{}/acme/widget.git", self.daemon.port);
        git(project, &["remote", "add", "origin", &url]);
    }

    /// Trimmed `git <args>` in the bare repository.
    pub fn git(&self, args: &[&str]) -> String {
        git(&self.bare, args).trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_with_a_commit_and_no_outside_config() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        git(dir.path(), &["commit", "-q", "--allow-empty", "-m", "one"]);
        let author = git(dir.path(), &["log", "-1", "--format=%an <%ae>"]);
        assert_eq!(author.trim(), "Test <test@example.invalid>");
        // Only the repository's own config is read.
        let origins = git(dir.path(), &["config", "--show-origin", "--list"]);
        assert!(
            origins.lines().all(|l| l.starts_with("file:.git/config")),
            "{origins}"
        );
        let failed = output(dir.path(), &["rev-parse", "--verify", "no-such-branch"]);
        assert!(!failed.status.success());
    }

    #[test]
    #[should_panic(expected = "no-such-branch")]
    fn a_failing_git_fails_the_test_with_its_words() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        git(dir.path(), &["checkout", "no-such-branch"]);
    }
}
