//! The first line judged against real repositories with no network: `RealWorld` whose rules
//! server is a closed port (every branch's rules are unknown, so protected-by-default branches
//! fail closed), `HOME` set to a folder of the test's.

use gh_write_guard::real_world::{RealWorld, RealWorldConfig};
use gh_write_guard::Context;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The deny codes for `cmd` run in `dir` (`G4.fail-closed`, ...).
#[allow(dead_code)]
pub fn denies(cmd: &str, dir: &Path, home: &Path) -> Vec<String> {
    denies_protecting(cmd, dir, home, &[])
}

/// [`denies`] with `protected` as the config's `protected_branches` (failing closed too).
pub fn denies_protecting(cmd: &str, dir: &Path, home: &Path, protected: &[&str]) -> Vec<String> {
    let env: BTreeMap<String, String> = [("HOME".to_string(), home.display().to_string())].into();
    let mut cx = Context::new(dir);
    cx.env = env.clone();
    cx.config.protected_branches = protected.iter().map(|p| p.to_string()).collect();
    let world = RealWorld::new(RealWorldConfig {
        env,
        api_base_override: Some("http://127.0.0.1:9/".into()),
        rules_deadline: Duration::from_millis(50),
        cache: std::sync::Arc::new(branch_rules::cache::MemoryCache::new()),
    });
    gh_write_guard::judge(cmd, &cx, &world)
        .findings
        .into_iter()
        .filter(|f| f.is_deny())
        .map(|f| f.code_str().to_string())
        .collect()
}

/// Points `work`'s `origin` at GitHub (`acme/widget`, added if missing) and adds a linked
/// worktree `../wt` on a new branch `wt`, where G6 lets git mutate: the worktree's path.
#[allow(dead_code)]
pub fn github_worktree(work: &Path) -> std::path::PathBuf {
    use hook_replay::git::git;
    let url = "https://github.com/acme/widget.git";
    match git(work, &["remote"]).lines().any(|r| r == "origin") {
        true => git(work, &["remote", "set-url", "origin", url]),
        false => git(work, &["remote", "add", "origin", url]),
    };
    git(work, &["worktree", "add", "-q", "-b", "wt", "../wt"]);
    work.parent().expect("a parent folder").join("wt")
}
