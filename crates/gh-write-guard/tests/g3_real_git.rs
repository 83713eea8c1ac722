//! G3's reference point against real repositories: the owner a write is compared with is the
//! origin of the project the session started in (`CLAUDE_PROJECT_DIR`), so a `cd` into a
//! clone of another owner's repository does not make that owner the maintainer's.

use gh_write_guard::real_world::{RealWorld, RealWorldConfig};
use gh_write_guard::{Context, Requirement};
use std::collections::BTreeMap;
use std::path::Path;

/// A repository at `dir` whose origin is `url` (git2 only: no git process, no network).
fn repo_with_origin(dir: &Path, url: &str) {
    let r = git2::Repository::init(dir).expect("init");
    r.remote("origin", url).expect("remote");
}

fn judge(cmd: &str, cwd: &Path, env: &[(&str, String)]) -> Vec<(Requirement, String)> {
    let env: BTreeMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let mut cx = Context::new(cwd);
    cx.env = env.clone();
    let world = RealWorld::new(RealWorldConfig {
        env,
        api_base_override: Some("http://127.0.0.1:9/".into()),
        rules_deadline: std::time::Duration::from_millis(50),
        cache: std::sync::Arc::new(branch_rules::cache::MemoryCache::new()),
    });
    gh_write_guard::judge(cmd, &cx, &world)
        .findings
        .into_iter()
        .filter(|f| f.is_deny())
        .map(|f| (f.requirement, f.code_str().to_string()))
        .collect()
}

#[test]
fn a_cd_into_another_owners_clone_does_not_make_it_the_maintainers() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, project, other) = (
        tmp.path().join("home"),
        tmp.path().join("widget"),
        tmp.path().join("tools"),
    );
    std::fs::create_dir_all(&home).unwrap();
    repo_with_origin(&project, "https://github.com/acme/widget.git");
    repo_with_origin(&other, "https://github.com/stranger/tools.git");
    let env = |grant: Option<&str>| {
        let mut e = vec![
            ("HOME", home.display().to_string()),
            ("CLAUDE_PROJECT_DIR", project.display().to_string()),
        ];
        e.extend(grant.map(|g| ("GH_WRITE_GUARD_ALLOW", g.to_string())));
        e
    };
    let issue = "gh issue create --title x --body y";
    let g3 = |denies: &[(Requirement, String)]| denies.iter().any(|(r, _)| *r == Requirement::G3);
    // From the project, into the clone.
    let cd = format!("cd {} && {issue}", other.display());
    assert!(g3(&judge(&cd, &project, &env(None))), "{cd}");
    // The hook's cwd already in the clone (an earlier command's `cd`).
    assert!(g3(&judge(issue, &other, &env(None))), "cwd in the clone");
    let push = format!("cd {} && git push origin feature", other.display());
    assert!(g3(&judge(&push, &project, &env(None))), "{push}");
    // Not a repository's write: a gist is the user's.
    let gist = format!("cd {} && gh gist create notes.md", other.display());
    assert!(!g3(&judge(&gist, &project, &env(None))), "{gist}");
    // The look-alikes: the project itself, and the clone with the maintainer's grant.
    assert!(
        !g3(&judge(issue, &project, &env(None))),
        "the project's own repository"
    );
    assert!(
        !g3(&judge(issue, &other, &env(Some("stranger/tools")))),
        "granted"
    );
    // A session started in the clone: that is the project.
    let mut started_there = env(None);
    started_there[1].1 = other.display().to_string();
    assert!(!g3(&judge(issue, &other, &started_there)), "started there");
}
