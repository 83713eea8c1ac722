//! C1: how the binary is invoked, and running the command with the CLI's shell.
//!
//! The CLI runs `<prefix> '<script>'`: exactly one argument, the whole shell text. We run it with
//! the shell the CLI would have used and `exec` it, so the exit status and signals are the
//! command's own. No argument means a hook payload on stdin (the SessionEnd mode, C7).

use std::ffi::OsString;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// One argument: the script to run (C1).
    /// The script as the CLI gave it: bytes, not necessarily UTF-8 (bash runs bytes; issue 47:
    /// a script that was not valid UTF-8 was refused).
    Prefix(OsString),
    /// No argument: a SessionEnd payload on stdin (C7).
    SessionEnd,
    /// `--report`: what backend this host offers, and why not when none.
    Report,
    Selftest,
    Help,
    Version,
    /// Internal: re-entered by `systemd-run` with the script in the environment (C4).
    RunFromEnv,
    /// `--exec-gate-service`: a system install's exec-gate service (C10, issue 40), started as
    /// root or by its systemd unit.
    ExecGateService,
    /// Anything else: usage, exit 2.
    Usage(String),
}

/// The flag `systemd-run` re-enters us with; the script travels in [`SCRIPT_ENV`].
pub const RUN_FROM_ENV_FLAG: &str = "--run-from-env";
/// The flag that runs the exec-gate service.
pub const EXEC_GATE_SERVICE_FLAG: &str = "--exec-gate-service";
/// The variable carrying the script through `systemd-run` (never argv: systemd expands `${...}`).
pub const SCRIPT_ENV: &str = "AGENT_CONTAINMENT_SCRIPT";
/// The variable carrying the chosen shell through `systemd-run`.
pub const SHELL_ENV: &str = "AGENT_CONTAINMENT_SHELL";

/// Reads the arguments after the program name. A single argument that is exactly one of our
/// flags is the flag: the CLI never passes a bare flag as a script (its scripts are wrapped).
pub fn parse_args(args: &[OsString]) -> Mode {
    match args {
        [] => Mode::SessionEnd,
        [one] => match one.to_str() {
            Some("--report") => Mode::Report,
            Some("--selftest") => Mode::Selftest,
            Some("--help") | Some("-h") => Mode::Help,
            Some("--version") | Some("-V") => Mode::Version,
            Some(RUN_FROM_ENV_FLAG) => Mode::RunFromEnv,
            Some(EXEC_GATE_SERVICE_FLAG) => Mode::ExecGateService,
            Some(_) | None => Mode::Prefix(one.clone()),
        },
        more => Mode::Usage(format!(
            "expected exactly one argument (the script), got {}",
            more.len()
        )),
    }
}

/// Shells we hand a POSIX-style script to. `$SHELL` naming anything else (fish, nu) is not used:
/// the CLI itself only runs bash or zsh, and a hook command is written for a POSIX shell.
const POSIX_SHELLS: [&str; 6] = ["bash", "zsh", "sh", "dash", "ksh", "mksh"];

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The shell family named by the CLI's snapshot file (`.../shell-snapshots/snapshot-zsh-...`).
pub fn snapshot_shell(script: &str) -> Option<&str> {
    let at = script.find("shell-snapshots/snapshot-")? + "shell-snapshots/snapshot-".len();
    let rest = script.get(at..)?;
    let family = rest.split('-').next()?;
    ["bash", "zsh"].into_iter().find(|s| *s == family)
}

/// The shell to run `script` with: the snapshot's shell (as `$SHELL` when that is the same
/// family, else found on `PATH`), else a POSIX `$SHELL`, else bash.
pub fn choose_shell(script: &str, shell_env: Option<&str>) -> String {
    let shell_env = shell_env.filter(|s| !s.is_empty());
    if let Some(family) = snapshot_shell(script) {
        return match shell_env {
            Some(s) if basename(s) == family => s.to_string(),
            _ => family.to_string(),
        };
    }
    match shell_env {
        Some(s) if POSIX_SHELLS.contains(&basename(s)) => s.to_string(),
        _ => "bash".to_string(),
    }
}

/// Replaces this process with `<shell> -c <script>`. Returns only on failure, with the exit code
/// a shell would use (127 not found, 126 otherwise).
pub fn exec_shell(shell: &str, script: &std::ffi::OsStr) -> i32 {
    use std::os::unix::process::CommandExt;
    let err = std::process::Command::new(shell)
        .arg("-c")
        .arg(script)
        .exec();
    eprintln!("tool-containment: cannot run {shell}: {err}");
    if err.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn argument_counts() {
        assert_eq!(parse_args(&args(&[])), Mode::SessionEnd);
        assert_eq!(
            parse_args(&args(&["echo hi"])),
            Mode::Prefix("echo hi".into())
        );
        assert_eq!(parse_args(&args(&["--report"])), Mode::Report);
        assert!(matches!(parse_args(&args(&["a", "b"])), Mode::Usage(_)));
    }

    #[test]
    fn shell_from_snapshot_then_env_then_bash() {
        let zsh =
            "source /h/.claude/shell-snapshots/snapshot-zsh-1.sh 2>/dev/null || true && eval 'ls'";
        assert_eq!(choose_shell(zsh, Some("/bin/bash")), "zsh");
        assert_eq!(
            choose_shell(zsh, Some("/usr/local/bin/zsh")),
            "/usr/local/bin/zsh"
        );
        assert_eq!(choose_shell("ls", Some("/bin/zsh")), "/bin/zsh");
        assert_eq!(choose_shell("ls", Some("/usr/bin/fish")), "bash");
        assert_eq!(choose_shell("ls", None), "bash");
        assert_eq!(choose_shell("ls", Some("")), "bash");
    }
}
