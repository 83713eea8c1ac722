//! Which token to ask GitHub with, by gh's own precedence: `GH_TOKEN`, then `GITHUB_TOKEN` for
//! github.com and `*.ghe.com`; `GH_ENTERPRISE_TOKEN`, then `GITHUB_ENTERPRISE_TOKEN` for
//! enterprise servers; else `gh auth token --hostname H` run under a deadline (killed on
//! timeout; no `gh` on `PATH` means no token); else none (unauthenticated, fine for public
//! repositories). The environment is read through [`Environment`] so tests are deterministic.
//! The token's value never appears in `Debug` output.

use crate::hosts::{canonical_host, HostKind};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Read access to the hook's own environment.
pub trait Environment {
    /// The variable's value, if set and valid UTF-8.
    fn var(&self, name: &str) -> Option<String>;
}

/// The real process environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl Environment for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

impl Environment for std::collections::BTreeMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

impl Environment for HashMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

/// Where a token came from (recorded in the audit log instead of the token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// An environment variable, by name.
    Env(&'static str),
    /// `gh auth token --hostname H`.
    GhCli,
}

/// A GitHub token. `Debug` shows only its source.
#[derive(Clone, PartialEq, Eq)]
pub struct Token {
    secret: String,
    pub source: TokenSource,
}

impl Token {
    pub fn new(secret: impl Into<String>, source: TokenSource) -> Self {
        Token {
            secret: secret.into(),
            source,
        }
    }

    /// The token's value, for the `Authorization` header only.
    pub fn secret(&self) -> &str {
        &self.secret
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("source", &self.source)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// What running `gh auth token` gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GhOutcome {
    /// No `gh` on `PATH`.
    Absent,
    /// It printed a token.
    Token,
    /// It exited without printing one (not logged in for that host, or an error).
    NoToken { status: Option<i32> },
    /// It ran past the deadline and was killed.
    TimedOut,
    /// It could not be started or read.
    Failed(String),
}

/// The result of looking for a token, with what `gh` did (for the audit log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenSearch {
    pub token: Option<Token>,
    /// `None` when an environment variable answered and `gh` was not run.
    pub gh: Option<GhOutcome>,
}

/// Upper bound on what is read from `gh`'s output: a token is well under 1 KiB.
const GH_OUTPUT_LIMIT: u64 = 4096;

/// Finds the token for `host` of `kind`; `gh_deadline` bounds the `gh` subprocess.
pub fn find_token(
    env: &dyn Environment,
    host: &str,
    kind: HostKind,
    gh_deadline: Duration,
) -> TokenSearch {
    let names: [&'static str; 2] = match kind {
        HostKind::GitHubCom | HostKind::Tenancy => ["GH_TOKEN", "GITHUB_TOKEN"],
        HostKind::Server => ["GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"],
    };
    for name in names {
        if let Some(value) = env.var(name) {
            let value = value.trim();
            if !value.is_empty() {
                return TokenSearch {
                    token: Some(Token::new(value, TokenSource::Env(name))),
                    gh: None,
                };
            }
        }
    }
    let host = canonical_host(host);
    let Some(gh) = find_program("gh", env.var("PATH").as_deref()) else {
        return TokenSearch {
            token: None,
            gh: Some(GhOutcome::Absent),
        };
    };
    match gh_auth_token(&gh, &host, gh_deadline) {
        Ok(Some(secret)) => TokenSearch {
            token: Some(Token::new(secret, TokenSource::GhCli)),
            gh: Some(GhOutcome::Token),
        },
        Ok(None) => TokenSearch {
            token: None,
            gh: Some(GhOutcome::NoToken { status: None }),
        },
        Err(outcome) => TokenSearch {
            token: None,
            gh: Some(outcome),
        },
    }
}

/// The first executable file named `program` in the `PATH` list.
pub fn find_program(program: &str, path: Option<&str>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    path?
        .split(':')
        .filter(|dir| !dir.is_empty())
        .map(|dir| Path::new(dir).join(program))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// How long to wait before starting gh again when its file is busy being written.
const TEXT_BUSY_PAUSE: Duration = Duration::from_millis(5);

/// Runs `<gh> auth token --hostname <host>` with stdin closed; kills its whole process group
/// when it outlives `deadline`. `Ok(None)` when it printed no token.
pub fn gh_auth_token(
    gh: &Path,
    host: &str,
    deadline: Duration,
) -> Result<Option<String>, GhOutcome> {
    use std::os::unix::process::CommandExt;
    let started = Instant::now();
    let mut command = Command::new(gh);
    command
        .args(["auth", "token", "--hostname", host])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        // Its own process group, so a timeout also ends anything it started.
        .process_group(0);
    let mut child = loop {
        match command.spawn() {
            Ok(child) => break child,
            // The file is open for writing somewhere (gh being installed or updated, or a
            // fork of another thread holding the descriptor that wrote it until its exec):
            // the kernel refuses the exec for that moment only.
            Err(e)
                if e.raw_os_error() == Some(nix::errno::Errno::ETXTBSY as i32)
                    && started.elapsed() + TEXT_BUSY_PAUSE < deadline =>
            {
                std::thread::sleep(TEXT_BUSY_PAUSE)
            }
            Err(e) => return Err(GhOutcome::Failed(format!("could not start gh: {e}"))),
        }
    };
    let pid = child.id();
    let stdout = child.stdout.take();
    // Read the first line on a helper thread: a child (or grandchild) that keeps stdout open
    // must not block us past the deadline, and the token is the first line.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = Vec::new();
        if let Some(out) = stdout {
            let mut reader = std::io::BufReader::new(out.take(GH_OUTPUT_LIMIT));
            let _ = std::io::BufRead::read_until(&mut reader, b'\n', &mut line);
        }
        let _ = tx.send(line);
    });

    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                kill_group(pid);
                let _ = child.wait();
                return Err(GhOutcome::Failed(format!("waiting for gh: {e}")));
            }
        }
        let elapsed = started.elapsed();
        if elapsed >= deadline {
            kill_group(pid);
            let _ = child.wait();
            return Err(GhOutcome::TimedOut);
        }
        std::thread::sleep((deadline - elapsed).min(Duration::from_millis(5)));
    };
    // gh has exited: its first line is in the pipe, or arrives before the deadline.
    let remaining = deadline.saturating_sub(started.elapsed());
    let output = rx.recv_timeout(remaining.max(Duration::from_millis(50)));
    // Anything gh left running in its group is ours to end (gh itself was just reaped, so its
    // pid cannot have been reused yet).
    kill_group(pid);
    let output = output.map_err(|_| GhOutcome::TimedOut)?;
    if !status.success() {
        return Err(GhOutcome::NoToken {
            status: status.code(),
        });
    }
    let text = String::from_utf8_lossy(&output);
    let token = text.lines().next().unwrap_or("").trim();
    // A token is one printable word; anything else is not something to send as a header.
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Ok(None);
    }
    Ok(Some(token.to_string()))
}

fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn precedence_per_host_kind() {
        let e = env(&[
            ("GH_TOKEN", "a"),
            ("GITHUB_TOKEN", "b"),
            ("GH_ENTERPRISE_TOKEN", "c"),
            ("GITHUB_ENTERPRISE_TOKEN", "d"),
            ("PATH", ""),
        ]);
        let d = Duration::from_millis(100);
        let t = |h, k| {
            find_token(&e, h, k, d)
                .token
                .map(|t| t.secret().to_string())
        };
        assert_eq!(t("github.com", HostKind::GitHubCom), Some("a".into()));
        assert_eq!(t("acme.ghe.com", HostKind::Tenancy), Some("a".into()));
        assert_eq!(t("ghe.example.com", HostKind::Server), Some("c".into()));

        let e = env(&[
            ("GH_TOKEN", "  "),
            ("GITHUB_TOKEN", "b"),
            ("GITHUB_ENTERPRISE_TOKEN", "d"),
        ]);
        let search = find_token(&e, "github.com", HostKind::GitHubCom, d);
        assert_eq!(
            search.token.as_ref().map(|t| &t.source),
            Some(&TokenSource::Env("GITHUB_TOKEN"))
        );
        assert_eq!(search.gh, None);
        let search = find_token(&e, "ghe.example.com", HostKind::Server, d);
        assert_eq!(
            search.token.map(|t| t.secret().to_string()),
            Some("d".into())
        );
    }

    #[test]
    fn debug_redacts() {
        let t = Token::new("ghp_secretvalue", TokenSource::GhCli);
        let shown = format!("{t:?}");
        assert!(!shown.contains("ghp_secretvalue"), "{shown}");
        assert!(shown.contains("GhCli"));
    }
}
