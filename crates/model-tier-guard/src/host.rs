//! The edge: what the hook knows about the machine it runs on — its own environment (which is
//! the session's launch environment), the CLI's command line, the home and project folders.
//!
//! Rules read these through [`Host`] so that fixtures and tests can supply their own.

use safety_kernel::Grant;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Name of the grant (M4).
pub const GRANT_VAR: &str = "MODEL_TIER_GUARD_ALLOW";

/// Longest CLI command line read from `/proc`.
const MAX_CMDLINE_BYTES: u64 = 256 * 1024;

#[derive(Debug, Clone, Default)]
pub struct Host {
    pub env: BTreeMap<String, String>,
    /// The CLI's argv (from `/proc/$CLAUDE_PID/cmdline`), without the program.
    pub launch_args: Option<Vec<String>>,
}

impl Host {
    /// The hook's own process: its environment and its CLI's command line.
    pub fn from_process() -> Host {
        let env: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let launch_args = env
            .get("CLAUDE_PID")
            .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|pid| read_cmdline(Path::new(&format!("/proc/{pid}/cmdline"))));
        Host { env, launch_args }
    }

    pub fn var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// M4: the grant, read strictly from the launch environment.
    pub fn grant(&self) -> Grant {
        safety_kernel::grant(self.env.get(GRANT_VAR).map(String::as_str))
    }

    pub fn home(&self) -> Option<PathBuf> {
        self.var("HOME")
            .filter(|h| h.starts_with('/'))
            .map(PathBuf::from)
    }

    /// The session's project folder: `CLAUDE_PROJECT_DIR`, else the payload's `cwd`.
    pub fn project_dir(&self, cwd: Option<&str>) -> Option<PathBuf> {
        self.var("CLAUDE_PROJECT_DIR")
            .or(cwd)
            .filter(|d| d.starts_with('/'))
            .map(PathBuf::from)
    }

    /// The value of `--name X` / `--name=X` in the CLI's own command line (last one wins).
    pub fn launch_option(&self, name: &str) -> Option<String> {
        option_value(self.launch_args.as_deref()?, name)
    }
}

/// The value of `--name X` / `--name=X` in an argv (last one wins).
pub fn option_value(args: &[String], name: &str) -> Option<String> {
    let mut found = None;
    let prefix = format!("{name}=");
    let mut i = 0;
    while i < args.len() {
        if args[i] == name {
            found = args.get(i + 1).cloned();
            i += 1;
        } else if let Some(v) = args[i].strip_prefix(&prefix) {
            found = Some(v.to_string());
        }
        i += 1;
    }
    found
}

fn read_cmdline(path: &Path) -> Option<Vec<String>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_CMDLINE_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    let mut args: Vec<String> = bytes
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    if args.last().is_some_and(String::is_empty) {
        args.pop();
    }
    if args.is_empty() {
        return None;
    }
    args.remove(0);
    Some(args)
}

/// Reads at most `limit` bytes of a file as text (lossy). `None` when it cannot be opened.
pub fn read_prefix(path: &Path, limit: u64) -> Option<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(limit)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_in_an_argv() {
        let a: Vec<String> = ["-p", "x", "--model", "opus", "--model=fable"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(option_value(&a, "--model").as_deref(), Some("fable"));
        assert_eq!(option_value(&a, "--agents"), None);
    }

    #[test]
    fn cmdline_of_this_process() {
        let args = read_cmdline(Path::new("/proc/self/cmdline"));
        assert!(args.is_some());
    }

    #[test]
    fn grant_is_strict() {
        let mut h = Host::default();
        h.env.insert(GRANT_VAR.into(), "tru".into());
        assert!(!h.grant().is_granted());
        h.env.insert(GRANT_VAR.into(), "YES".into());
        assert!(h.grant().is_granted());
    }
}
