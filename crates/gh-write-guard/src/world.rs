//! Every fact from outside the command text that a requirement needs, behind one trait.
//!
//! The decision core ([`crate::judge`](mod@crate::judge)) asks only this trait, so the same code runs against the
//! real machine ([`crate::real_world::RealWorld`]: git2, branch-rules' live lookup, the file
//! system) and against the worlds the conformance cases describe
//! ([`crate::fake_world::FakeWorld`]). The hook's own environment is not here: it is part of
//! [`crate::context::Context`], because it is an input of the call, not a lookup.

pub use branch_rules::remote::{DefaultPush, PushTarget};
pub use branch_rules::{Destination, RepoSlug, Rules, RulesOutcome};
use std::collections::BTreeMap;
use std::path::Path;

/// What a directory is, for G6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RepoKind {
    /// A repository's main work tree (also a submodule's): not a linked worktree.
    Primary,
    /// A linked worktree (`git worktree add`).
    Linked,
    /// A bare repository or a git dir without a work tree.
    Bare,
    /// Not inside any repository.
    NoRepo,
}

/// A lookup that could not be answered (unreadable repository, config, file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupError(pub String);

impl std::fmt::Display for LookupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Upper bound on a script read by path (G0): command-effects' one bound for every guard.
pub const MAX_SCRIPT_BYTES: u64 = command_effects::scripts::MAX_SCRIPT_BYTES;

/// How a script over [`MAX_SCRIPT_BYTES`] is said: the one spelling [`LookupError::too_large`]
/// writes and [`LookupError::is_too_large`] reads.
const TOO_LARGE: &str = "larger than the script read bound";

impl LookupError {
    /// A script at `path` over [`MAX_SCRIPT_BYTES`]: past a read bound, not missing.
    pub fn too_large(path: &std::path::Path) -> LookupError {
        LookupError(format!(
            "{}: {TOO_LARGE} ({MAX_SCRIPT_BYTES} bytes)",
            path.display()
        ))
    }

    /// Whether this is [`LookupError::too_large`]'s error.
    pub fn is_too_large(&self) -> bool {
        self.0.contains(TOO_LARGE)
    }
}

/// The outside world as the requirements see it. `dir` arguments are absolute directories the
/// command acts in (the payload `cwd` after `cd`s and `-C`).
pub trait World {
    /// Origin's host/owner/repo for the repository at `dir` (G3); `None`: no repository or no
    /// origin naming an `owner/repo`.
    fn origin(&self, dir: &Path) -> Option<RepoSlug>;

    /// Where `git push <remote>` writes, one destination per push URL, after `pushurl`,
    /// `insteadOf` and `pushInsteadOf` (G3, G4). `remote` is a remote name or a URL/path.
    /// `overrides` are the command's own config pairs (`-c`, `GIT_CONFIG_*`), in order; git
    /// reads them last.
    fn push_destinations(
        &self,
        dir: &Path,
        remote: &str,
        overrides: &[(String, String)],
    ) -> Result<Vec<Destination>, LookupError>;

    /// What `git push [<remote>]` without refspecs pushes (`@{push}`, upstream, current branch
    /// per `push.default`) (G4), with the command's own config pairs.
    fn default_push(
        &self,
        dir: &Path,
        explicit_remote: Option<&str>,
        overrides: &[(String, String)],
    ) -> Result<DefaultPush, LookupError>;

    /// Whether the remote-tracking branch `refs/remotes/<remote>/<branch>` exists in the
    /// repository at `dir` (G4: a push with none may create the branch); `None`: not known.
    fn remote_tracking_branch(&self, _dir: &Path, _remote: &str, _branch: &str) -> Option<bool> {
        None
    }

    /// The branch `HEAD` points at in the repository at `dir` (short name), for `HEAD` and `@`
    /// in refspecs (G4: `git push -u origin HEAD` pushes the current branch); `None`: detached,
    /// unborn or no repository.
    fn head_branch(&self, dir: &Path) -> Option<String>;

    /// Local branch names (`git push --all`) (G4).
    fn local_branches(&self, dir: &Path) -> Vec<String>;

    /// The branches of `remote` as its remote-tracking refs in the repository at `dir` record
    /// them (`refs/remotes/<remote>/<b>`, without `HEAD`): what a mirror push deletes when no
    /// local branch has the name (G4).
    fn remote_tracking_branches(&self, dir: &Path, remote: &str) -> Vec<String>;

    /// Whether `dir` exists now (G4: a push in a directory the command itself makes, a clone
    /// or a `mkdir`, acts in a repository not known until it runs).
    fn dir_exists(&self, dir: &Path) -> bool;

    /// Whether `host` is GitHub (github.com or a configured enterprise host).
    fn is_github_host(&self, host: &str) -> bool;

    /// Branch rules on a GitHub host (G4); live or fixed.
    fn rules(&self) -> &dyn Rules;

    /// Primary checkout, linked worktree, bare or no repository (G6). `dir` may also be a git
    /// dir (`--git-dir`).
    fn repo_kind(&self, dir: &Path) -> RepoKind;

    /// Whether `arg` resolves to a commit in the repository at `dir` (G6 `checkout <arg>`).
    fn resolves_to_commit(&self, dir: &Path, arg: &str) -> bool;

    /// Persisted git aliases of the repository at `dir` (config with includes; global config
    /// too), name → value as written (`!cmd` for shell aliases) (G0, G4, G6).
    fn git_aliases(&self, dir: &Path) -> BTreeMap<String, String>;

    /// `help.autocorrect` as the config files of the repository at `dir` set it (global
    /// config too; `None`: unset): whether git runs a similar command in place of an unknown
    /// one (command-effects' `git_alias::may_autocorrect`; G4, G6).
    fn git_autocorrect(&self, dir: &Path) -> Option<String>;

    /// gh aliases from gh's `config.yml`, name → expansion as written (G0).
    fn gh_aliases(&self) -> BTreeMap<String, String>;

    /// Whether `path` is an existing directory (a `CDPATH` search takes the first entry that
    /// holds the name).
    fn is_dir(&self, path: &Path) -> bool;

    /// The text of a script run by path (`bash x.sh`, `./x.sh`, `source x.sh`), read bounded by
    /// [`MAX_SCRIPT_BYTES`] (G0). An error means the script is judged as unseen.
    fn read_script(&self, path: &Path) -> Result<String, LookupError>;

    /// The text of a git config file a command names (`-c include.path`, `GIT_CONFIG_GLOBAL`,
    /// another `HOME`'s `.gitconfig`), read as a script is; `Ok(None)` when there is no file
    /// there (git skips it).
    fn read_config_file(&self, path: &Path) -> Result<Option<String>, LookupError>;
}
