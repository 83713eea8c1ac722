//! The inputs of one call besides the command text: where it runs, the maintainer's config and
//! the hook's own environment (the only place grants come from, K2).

use guard_config::Config;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One call's inputs. Pure data: built from the payload and the process by `main`, from a case's
/// `env` by the conformance replay.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The payload's `cwd` (absolute), else the hook's own working directory.
    pub cwd: PathBuf,
    pub config: Config,
    /// The hook's own process environment (grants, `HOME`, `GH_*`), never the command's.
    pub env: BTreeMap<String, String>,
    pub session_id: Option<String>,
    pub tool_use_id: Option<String>,
}

impl Context {
    pub fn new(cwd: impl Into<PathBuf>) -> Context {
        Context {
            cwd: cwd.into(),
            ..Context::default()
        }
    }

    /// A variable of the hook's own environment.
    pub fn env(&self, name: &str) -> Option<&str> {
        self.env.get(name).map(String::as_str)
    }

    /// `$HOME` of the hook's environment, for `~` expansion.
    pub fn home(&self) -> Option<PathBuf> {
        self.env("HOME")
            .filter(|h| h.starts_with('/'))
            .map(PathBuf::from)
    }

    /// The maintainer's cross-owner grant (`GH_WRITE_GUARD_ALLOW`, K2 list grant).
    pub fn owner_grant(&self) -> safety_kernel::ListGrant {
        safety_kernel::list_grant(self.env("GH_WRITE_GUARD_ALLOW"))
    }
}
