//! What `RealWorld` reads from a repository without libgit2's full lookups, against real
//! repositories made by real git: the branch `HEAD` names (read from the file, libgit2 only
//! where the file says something else), and the answers a world keeps per opened repository
//! (origin, push URLs, kind), which a command's own config must still change.

use gh_write_guard::real_world::{OpenRepo, RealWorld, RealWorldConfig, RepoLender};
use gh_write_guard::world::{Destination, RepoKind, World};
use hook_replay::git::{git, init_with_commit};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

fn world() -> RealWorld {
    RealWorld::new(RealWorldConfig {
        env: BTreeMap::new(),
        api_base_override: Some("http://127.0.0.1:9/".into()),
        rules_deadline: Duration::from_millis(50),
        cache: std::sync::Arc::new(branch_rules::cache::MemoryCache::new()),
    })
}

/// A repository on `main` with one commit whose origin is `url`, in a temporary folder.
fn repo_with_origin(url: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    init_with_commit(&repo, &[]);
    git(&repo, &["remote", "add", "origin", url]);
    (tmp, repo)
}

/// The branch libgit2 reads for `HEAD` in `dir` (what `head_branch` answered before).
fn libgit2_branch(dir: &Path) -> Option<String> {
    let r = git2::Repository::discover(dir).ok()?;
    let head = r.find_reference("HEAD").ok()?;
    let target = head.symbolic_target().ok().flatten()?;
    target.strip_prefix("refs/heads/").map(str::to_string)
}

#[test]
fn the_branch_head_names_is_the_one_libgit2_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    init_with_commit(&repo, &[]);
    let ask = |dir: &Path| world().head_branch(dir);
    // On a branch with a slash in its name.
    git(&repo, &["checkout", "-q", "-b", "feature/x"]);
    assert_eq!(ask(&repo).as_deref(), Some("feature/x"));
    assert_eq!(ask(&repo), libgit2_branch(&repo));
    // Detached: no branch.
    git(&repo, &["checkout", "-q", "--detach"]);
    assert_eq!(ask(&repo), None);
    // A linked worktree reads its own HEAD, not the primary's.
    git(
        &repo,
        &["worktree", "add", "-q", "-b", "wt-branch", "../wt"],
    );
    let wt = tmp.path().join("wt");
    assert_eq!(ask(&wt).as_deref(), Some("wt-branch"));
    assert_eq!(ask(&repo), None);
    // A branch without a commit yet is named (a symbolic HEAD).
    let unborn = tmp.path().join("unborn");
    std::fs::create_dir_all(&unborn).unwrap();
    git(&unborn, &["init", "-q", "-b", "fresh"]);
    assert_eq!(ask(&unborn).as_deref(), Some("fresh"));
    assert_eq!(ask(&unborn), libgit2_branch(&unborn));
    // A file written by hand without its newline: libgit2 answers.
    std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main").unwrap();
    assert_eq!(ask(&repo), libgit2_branch(&repo));
    assert_eq!(ask(&repo).as_deref(), Some("main"));
}

#[test]
fn a_fifo_for_head_does_not_hang_the_read() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    init_with_commit(&repo, &[]);
    let w = world();
    // Opened (and kept) while HEAD is a file, then HEAD becomes a FIFO nobody writes to.
    assert_eq!(w.head_branch(&repo).as_deref(), Some("main"));
    let head = repo.join(".git/HEAD");
    std::fs::remove_file(&head).unwrap();
    let c = std::ffi::CString::new(head.to_str().unwrap()).unwrap();
    // SAFETY: a valid path string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let started = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(w.head_branch(&repo)).unwrap());
    let answer = rx.recv_timeout(Duration::from_secs(10));
    assert!(answer.is_ok(), "no answer in {:?}", started.elapsed());
    // A HEAD that is not a file names no branch.
    assert_eq!(answer.unwrap(), None);
}

#[test]
fn kept_answers_still_see_the_commands_own_config() {
    let (tmp, repo) = repo_with_origin("https://github.com/acme/widget.git");
    let w = world();
    let slug = |d: &Destination| match d {
        Destination::GitHub(s) => format!("{}/{}", s.owner, s.repo),
        other => format!("{other:?}"),
    };
    let ask = |overrides: &[(String, String)]| -> Vec<String> {
        let found = w.push_destinations(&repo, "origin", overrides).unwrap();
        found.iter().map(slug).collect()
    };
    assert_eq!(ask(&[]), ["acme/widget"]);
    // `git -c remote.origin.pushurl=... push origin`: the command's setting wins, kept or not.
    let pushurl = [(
        "remote.origin.pushurl".to_string(),
        "https://github.com/stranger/tools.git".to_string(),
    )];
    assert_eq!(ask(&pushurl), ["stranger/tools"]);
    assert_eq!(ask(&[]), ["acme/widget"]);
    let origin = w.origin(&repo).unwrap();
    assert_eq!(
        (origin.owner.as_str(), origin.repo.as_str()),
        ("acme", "widget")
    );
    // A remote that is not configured is taken as a path, and kept apart from origin.
    assert!(matches!(
        w.push_destinations(&repo, "elsewhere", &[]).unwrap()[..],
        [Destination::Local { .. }]
    ));
    assert_eq!(ask(&[]), ["acme/widget"]);
    assert_eq!(w.repo_kind(&repo), RepoKind::Primary);
    git(&repo, &["worktree", "add", "-q", "../wt"]);
    let wt = tmp.path().join("wt");
    assert_eq!(w.repo_kind(&wt), RepoKind::Linked);
    assert_eq!(w.repo_kind(&repo), RepoKind::Primary);
}

/// Keeps what a world gives back and lends it to the next (as the exec gate's cache does while
/// the repository's files are unchanged).
#[derive(Default)]
struct KeepAll(std::sync::Mutex<Vec<(std::path::PathBuf, OpenRepo)>>);

impl RepoLender for KeepAll {
    fn lend(&self, dir: &Path) -> Option<OpenRepo> {
        let mut kept = self.0.lock().unwrap();
        let at = kept.iter().position(|(d, _)| d == dir)?;
        Some(kept.remove(at).1)
    }
    fn give_back(&self, dir: std::path::PathBuf, repo: OpenRepo) {
        self.0.lock().unwrap().push((dir, repo));
    }
}

#[test]
fn kept_destinations_follow_the_hosts_that_count_as_github() {
    let (tmp, repo) = repo_with_origin("https://ghe.example.com/acme/widget.git");
    let lender = std::sync::Arc::new(KeepAll::default());
    let world_with = |env: &[(&str, &str)]| {
        RealWorld::new(RealWorldConfig {
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            api_base_override: Some("http://127.0.0.1:9/".into()),
            rules_deadline: Duration::from_millis(50),
            cache: std::sync::Arc::new(branch_rules::cache::MemoryCache::new()),
        })
        .with_lender(lender.clone())
    };
    let github = |w: &RealWorld| {
        let found = w.push_destinations(&repo, "origin", &[]).unwrap();
        matches!(found[..], [Destination::GitHub(_)])
    };
    let home = tmp.path().display().to_string();
    // github.com only: the enterprise host is another host; the repository is kept after.
    assert!(!github(&world_with(&[("HOME", &home)])));
    assert_eq!(lender.0.lock().unwrap().len(), 1, "given back");
    // The same kept repository under a world where the host is GitHub (`GH_HOST`).
    assert!(github(&world_with(&[
        ("HOME", &home),
        ("GH_HOST", "ghe.example.com")
    ])));
    assert!(!github(&world_with(&[("HOME", &home)])));
}

#[test]
fn a_hasconfig_include_is_read_as_git_reads_it() {
    // issue 38's red team: `[includeIf "hasconfig:remote.*.url:..."]` in `.git/config` names a
    // file that sets where pushes go; git applies it, libgit2 did not, so both lines judged the
    // push by the files alone.
    let (tmp, repo) = repo_with_origin("https://github.com/acme/widget.git");
    let cfg = tmp.path().join("redirect.cfg");
    std::fs::write(
        &cfg,
        "[remote \"origin\"]\n\tpushurl = https://github.com/stranger/tools.git\n",
    )
    .unwrap();
    let include = |repo: &Path, pattern: &str| {
        let key = format!("includeIf.hasconfig:remote.*.url:{pattern}.path");
        git(repo, &["config", &key, cfg.to_str().unwrap()]);
    };
    // What git itself reads for the push URL (`None`: not set).
    let git_pushurl = |repo: &Path| {
        let out = std::process::Command::new("git")
            .args(["config", "--get", "remote.origin.pushurl"])
            .current_dir(repo)
            .output()
            .unwrap();
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let asked = |repo: &Path| -> Vec<String> {
        let found = world().push_destinations(repo, "origin", &[]).unwrap();
        found
            .iter()
            .map(|d| match d {
                Destination::GitHub(s) => format!("{}/{}", s.owner, s.repo),
                other => format!("{other:?}"),
            })
            .collect()
    };
    include(&repo, "https://github.com/**");
    assert_eq!(
        git_pushurl(&repo).as_deref(),
        Some("https://github.com/stranger/tools.git"),
        "git applies the include"
    );
    assert_eq!(asked(&repo), ["stranger/tools"]);
    // The look-alike: a condition no remote matches is not applied (git agrees).
    let (_tmp2, repo2) = repo_with_origin("https://github.com/acme/widget.git");
    include(&repo2, "https://gitlab.com/**");
    assert_eq!(git_pushurl(&repo2), None);
    assert_eq!(asked(&repo2), ["acme/widget"]);
}
