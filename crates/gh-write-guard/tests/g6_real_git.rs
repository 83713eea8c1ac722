//! G6 against real repositories and real git: the guard's verdict through git2, and what git
//! actually does with each denied shape (destroys uncommitted work or moves HEAD/branches) and
//! with each exemption (leaves uncommitted work alone).

use gh_write_guard::real_world::{RealWorld, RealWorldConfig};
use gh_write_guard::world::RepoKind;
use gh_write_guard::{Context, Requirement, World};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Isolated HOME/XDG for git and libgit2 (never the real user's config).
fn sandbox_env() -> &'static Path {
    static HOME: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let d = tempfile::tempdir().expect("tempdir").keep();
        // Set once, before any libgit2 call reads its global config paths.
        std::env::set_var("HOME", &d);
        std::env::set_var("XDG_CONFIG_HOME", d.join(".config"));
        std::env::set_var("XDG_STATE_HOME", d.join(".state"));
        std::env::set_var("GIT_CONFIG_NOSYSTEM", "1");
        d
    })
}

/// The shared isolated git, with local paths as the only transport.
fn git_command(dir: &Path, args: &[&str]) -> Command {
    sandbox_env();
    let mut c = hook_replay::git::command(dir, args);
    c.env("GIT_PROTOCOL_FROM_USER", "0")
        .env("GIT_ALLOW_PROTOCOL", "file");
    c
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    git_command(dir, args).output().expect("run git")
}

fn ok(dir: &Path, args: &[&str]) {
    hook_replay::git::checked(&mut git_command(dir, args), args);
}

fn write(p: &Path, s: &str) {
    std::fs::write(p, s).expect("write");
}

/// A primary checkout with history on `main`, a branch `other`, a tag, an origin (bare) that
/// has one more commit, plus uncommitted work: a modified tracked file and an untracked file.
fn primary(root: &Path) -> PathBuf {
    let bare = root.join("origin.git");
    let p = root.join("primary");
    std::fs::create_dir_all(&p).unwrap();
    ok(&p, &["init", "-q", "-b", "main"]);
    write(&p.join("a.txt"), "a1\n");
    write(&p.join("b.txt"), "b1\n");
    std::fs::create_dir_all(p.join("src")).unwrap();
    write(&p.join("src/s.txt"), "s1\n");
    ok(&p, &["add", "."]);
    ok(&p, &["commit", "-qm", "one"]);
    ok(&p, &["branch", "other"]);
    ok(&p, &["tag", "v1"]);
    write(&p.join("b.txt"), "b2\n");
    ok(&p, &["commit", "-qam", "two"]);
    let _ = &bare;
    // Relative paths throughout, so a root with non-UTF-8 bytes works too.
    ok(root, &["clone", "-q", "--bare", "primary", "origin.git"]);
    ok(&p, &["remote", "add", "origin", "../origin.git"]);
    ok(&p, &["fetch", "-q", "origin"]);
    ok(&p, &["branch", "-q", "-u", "origin/main"]);
    // origin moves ahead by one commit (for pull/merge shapes).
    let side = root.join("side");
    ok(root, &["clone", "-q", "origin.git", "side"]);
    write(&side.join("c.txt"), "c1\n");
    ok(&side, &["add", "c.txt"]);
    ok(&side, &["commit", "-qm", "three"]);
    ok(&side, &["push", "-q", "origin", "main"]);
    ok(&p, &["fetch", "-q", "origin"]);
    // A patch and a mail for apply/am.
    write(
        &p.join("../fix.patch"),
        "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b2\n+b3\n",
    );
    let mail = git(&side, &["format-patch", "-1", "--stdout"]);
    std::fs::write(root.join("0001.patch"), mail.stdout).unwrap();
    // Uncommitted work.
    write(&p.join("a.txt"), "a-dirty\n");
    write(&p.join("u.txt"), "untracked\n");
    write(&p.join("-n"), "untracked, named like an option\n");
    // Work that only the object store still holds (as after a dropped stash): `gc --prune=now`
    // is what destroys it.
    write(&p.join("lost.txt"), "work only the object store holds\n");
    let lost = git(&p, &["hash-object", "-w", "lost.txt"]);
    assert!(lost.status.success());
    std::fs::remove_file(p.join("lost.txt")).unwrap();
    std::fs::write(root.join("lost.oid"), lost.stdout).unwrap();
    p
}

/// A fresh copy of one template primary checkout (building each from scratch is slow).
fn fresh_primary() -> (tempfile::TempDir, PathBuf) {
    static TEMPLATE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let root = tempfile::tempdir().expect("tempdir").keep();
        primary(&root);
        root
    });
    let root = tempfile::tempdir().unwrap();
    let st = Command::new("cp")
        .arg("-a")
        .arg(template.join("."))
        .arg(root.path())
        .status()
        .expect("cp");
    assert!(st.success());
    let p = root.path().join("primary");
    (root, p)
}

/// What matters to the maintainer: uncommitted work and where HEAD and the refs point.
#[derive(Debug, PartialEq, Eq)]
struct State {
    a: Option<String>,
    untracked: bool,
    head: String,
    refs: BTreeMap<String, String>,
    stash: String,
    reflog: usize,
    /// Branches of the remote (what `push` moves).
    remote: String,
    /// The unreachable object still exists.
    lost_object: bool,
    /// Work tree against the index, the index against HEAD, untracked files.
    changes: String,
}

fn state(p: &Path) -> State {
    let out = |args: &[&str]| String::from_utf8_lossy(&git(p, args).stdout).into_owned();
    let refs = out(&["for-each-ref", "--format=%(refname) %(objectname)"])
        .lines()
        .filter(|l| !l.starts_with("refs/remotes/"))
        .filter_map(|l| {
            l.split_once(' ')
                .map(|(a, b)| (a.to_string(), b.to_string()))
        })
        .collect();
    State {
        a: std::fs::read_to_string(p.join("a.txt")).ok(),
        untracked: p.join("u.txt").exists(),
        head: out(&["symbolic-ref", "-q", "HEAD"]) + &out(&["rev-parse", "HEAD"]),
        refs,
        stash: out(&["stash", "list"]),
        reflog: out(&["reflog", "--all"]).lines().count(),
        remote: out(&["ls-remote", "origin"]),
        lost_object: {
            let oid = std::fs::read_to_string(p.join("../lost.oid")).unwrap_or_default();
            git(p, &["cat-file", "-e", oid.trim()]).status.success()
        },
        changes: out(&["diff"]) + &out(&["diff", "--cached"]) + &out(&["ls-files", "--others"]),
    }
}

/// The hook's environment in these tests: the sandbox HOME, nothing else.
fn hook_env() -> BTreeMap<String, String> {
    let home = sandbox_env();
    [
        ("HOME".to_string(), home.display().to_string()),
        (
            "XDG_CONFIG_HOME".to_string(),
            home.join(".config").display().to_string(),
        ),
    ]
    .into_iter()
    .collect()
}

/// The real world (git2; the rules API points at a closed port and is never needed here).
fn world() -> RealWorld {
    RealWorld::new(RealWorldConfig {
        env: hook_env(),
        api_base_override: Some("http://127.0.0.1:9/".into()),
        rules_deadline: std::time::Duration::from_millis(50),
        cache: std::sync::Arc::new(branch_rules::cache::MemoryCache::new()),
    })
}

/// Whether the decision core, over the real world, has a G6 deny for `cmd` run in `cwd`.
fn guard_denies(cmd: &str, cwd: &Path) -> bool {
    let mut cx = Context::new(cwd);
    cx.env = hook_env();
    let d = gh_write_guard::judge(cmd, &cx, &world());
    d.findings
        .iter()
        .any(|f| f.is_deny() && f.requirement == Requirement::G6)
}

fn run_sh(cmd: &str, cwd: &Path) {
    let home = sandbox_env();
    let _ = Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(cwd)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_EDITOR", "true")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run bash");
}

/// Denied shapes: the guard denies each in a primary checkout, and real git shows why.
const DENIED: &[&str] = &[
    "git reset --hard",
    "git reset --hard HEAD~1",
    "git checkout .",
    "git checkout -- a.txt",
    "git checkout HEAD -- a.txt",
    "git checkout -f other",
    "git checkout -qf other",
    "git checkout -Bnewbranch HEAD~1",
    "git checkout -b newbranch",
    "git checkout --orphan fresh",
    "git switch -C other",
    "git switch -c newb",
    "git switch --discard-changes other",
    "git restore a.txt",
    "git stash",
    "git stash push -m wip",
    "git clean -fd",
    "git clean -f -- -n",
    "git rm -f a.txt",
    "git mv a.txt moved.txt",
    "git add -A",
    "git commit -qam x",
    "git apply ../fix.patch",
    "git am -q ../0001.patch",
    "git pull -q --no-rebase --no-edit",
    "git merge -q --no-edit --no-ff origin/main",
    "git rebase -q --autostash origin/main",
    "git cherry-pick origin/main",
    "git revert --no-edit HEAD",
    "git push -q origin HEAD:refs/heads/pushed",
    "git branch -D other",
    "git branch -f other HEAD",
    "git update-ref refs/heads/other HEAD",
    "git tag -d v1",
    "git symbolic-ref HEAD refs/heads/other",
    "git reflog expire --expire=now --all",
    "git gc -q --prune=now",
    "git replace HEAD HEAD~1",
    // Long options by any prefix git takes for them.
    "git clean --forc -d",
    "git clean --f",
    "git branch --del --forc other",
    "git tag --del v1",
    "git checkout --forc other",
    "git switch --disc other",
    "git gc -q --prun=now",
    // Plumbing that rewrites the work tree or drops objects.
    "git read-tree -u --reset HEAD",
    "git checkout-index -f -a",
    "git prune",
    "git -c alias.wipe='reset --hard' wipe",
    "eval 'git reset --hard'",
    "(cd . && git reset --hard)",
];

/// `worktree remove --force` and `filter-branch` need a setup the loop above cannot give: a
/// dirty linked worktree, and a clean work tree (filter-branch refuses a dirty one).
#[test]
fn forced_worktree_remove_and_filter_branch() {
    let (root, p) = fresh_primary();
    ok(&p, &["worktree", "add", "-q", "../wt", "other"]);
    write(&root.path().join("wt/a.txt"), "dirty in the worktree\n");
    assert!(guard_denies("git worktree remove -f ../wt", &p));
    assert!(!guard_denies("git worktree remove ../wt", &p));
    run_sh("git worktree remove ../wt", &p);
    assert!(
        root.path().join("wt/a.txt").exists(),
        "unforced remove refuses"
    );
    run_sh("git worktree remove -f ../wt", &p);
    assert!(
        !root.path().join("wt").exists(),
        "forced remove deleted the dirty worktree"
    );

    ok(&p, &["stash", "-q", "-u"]);
    let cmd = "git filter-branch -f --msg-filter 'cat; echo rewritten' HEAD";
    assert!(guard_denies(cmd, &p));
    let before = state(&p);
    run_sh(cmd, &p);
    assert_ne!(
        before.head,
        state(&p).head,
        "filter-branch moved the branch"
    );
}

#[test]
fn denied_shapes_destroy_work_or_move_refs() {
    let mut failures = Vec::new();
    for cmd in DENIED {
        let (_root, p) = fresh_primary();
        if !guard_denies(cmd, &p) {
            failures.push(format!("guard allowed {cmd:?}"));
            continue;
        }
        let before = state(&p);
        run_sh(cmd, &p);
        let after = state(&p);
        if before == after {
            failures.push(format!("real git left everything as it was for {cmd:?}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Exemptions: allowed in a primary checkout, and real git keeps uncommitted work (and the
/// read-only ones also keep HEAD and branches).
const ALLOWED: &[(&str, bool)] = &[
    ("git status", true),
    ("git log --oneline -1", true),
    ("git diff", true),
    ("git stash list", true),
    ("git stash show", true),
    ("git clean -n", true),
    ("git clean -fn", true),
    ("git worktree list", true),
    ("git worktree prune", true),
    (
        "git worktree add -q ../wt-x other && git worktree remove ../wt-x",
        true,
    ),
    ("git checkout other", false),
    ("git checkout -q --detach other", false),
    ("git checkout -qt origin/main", false),
    ("git switch other && git switch -", false),
    ("git checkout other && git checkout -", false),
    ("git merge --ff-only origin/main", false),
    ("git merge --ff-onl origin/main", false),
    ("git clean -f --dry", true),
    ("git prune -n", true),
    ("git pull -q --ff-only", false),
    ("git fetch -q origin", true),
    ("git branch newb", false),
];

#[test]
fn exemptions_keep_uncommitted_work() {
    let mut failures = Vec::new();
    for (cmd, read_only) in ALLOWED {
        let (_root, p) = fresh_primary();
        if guard_denies(cmd, &p) {
            failures.push(format!("guard denied {cmd:?}"));
            continue;
        }
        let before = state(&p);
        run_sh(cmd, &p);
        let after = state(&p);
        if after.a != before.a || !after.untracked || after.stash != before.stash {
            failures.push(format!("{cmd:?} lost uncommitted work"));
        }
        if *read_only && (after.head != before.head || after.refs != before.refs) {
            failures.push(format!("{cmd:?} moved HEAD or a branch"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn repository_kinds() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let p = primary(r);
    ok(&p, &["worktree", "add", "-q", "../linked", "other"]);
    let linked = r.join("linked");
    let bare = r.join("origin.git");
    // A submodule inside the primary checkout.
    let sub_src = r.join("side");
    ok(
        &p,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            sub_src.to_str().unwrap(),
            "sub",
        ],
    );
    let none = r.join("plain");
    std::fs::create_dir_all(&none).unwrap();
    let w = world();
    assert_eq!(w.repo_kind(&p), RepoKind::Primary);
    assert_eq!(w.repo_kind(&p.join("src")), RepoKind::Primary);
    assert_eq!(w.repo_kind(&p.join(".git")), RepoKind::Primary);
    assert_eq!(w.repo_kind(&linked), RepoKind::Linked);
    assert_eq!(
        w.repo_kind(&p.join("sub")),
        RepoKind::Primary,
        "a submodule is primary"
    );
    assert_eq!(w.repo_kind(&bare), RepoKind::Bare);
    // A directory that does not exist yet inherits its nearest existing ancestor.
    assert_eq!(w.repo_kind(&p.join("not-yet/deeper")), RepoKind::Primary);
    // Reached through symbolic links (the git dir and the common dir are compared as
    // directories, not as spellings).
    std::os::unix::fs::symlink(&p, r.join("via-link")).unwrap();
    std::os::unix::fs::symlink(&linked, r.join("linked-via-link")).unwrap();
    std::os::unix::fs::symlink(p.join(".git"), r.join("git-dir-link")).unwrap();
    assert_eq!(w.repo_kind(&r.join("via-link")), RepoKind::Primary);
    assert_eq!(w.repo_kind(&r.join("via-link/src")), RepoKind::Primary);
    assert_eq!(w.repo_kind(&r.join("linked-via-link")), RepoKind::Linked);
    assert_eq!(w.repo_kind(&r.join("git-dir-link")), RepoKind::Primary);
    if w.repo_kind(&none) != RepoKind::NoRepo {
        // Temp dirs could sit inside a repository on some machines; say so rather than pass.
        panic!("temp dir {none:?} is inside a repository");
    }
    // The whole decision, from each place: (command, where it runs, denied).
    let lp = linked.to_str().unwrap();
    let pp = p.to_str().unwrap();
    let sub = p.join("sub");
    let cases: Vec<(String, &Path, bool)> = vec![
        ("git reset --hard".into(), &p, true),
        ("git reset --hard".into(), &linked, false),
        ("git reset --hard".into(), &none, false),
        ("git reset --hard".into(), &sub, true),
        (format!("cd {pp} && git reset --hard"), &linked, true),
        (
            format!("git status && cd {pp} && git reset --hard"),
            &linked,
            true,
        ),
        (format!("(cd {pp} && git reset --hard)"), &linked, true),
        (format!("git -C {pp} reset --hard"), &linked, true),
        (format!("git -C {lp} reset --hard"), &p, false),
        (
            format!("git --git-dir={pp}/.git --work-tree={lp} commit -m x"),
            &linked,
            true,
        ),
        (format!("GIT_DIR={pp}/.git git reset --hard"), &none, true),
        (
            format!("export GIT_WORK_TREE={pp}; git reset --hard"),
            &none,
            true,
        ),
        // An unknown target is denied when the cwd is a primary checkout.
        ("git -C \"$REPO\" reset --hard".into(), &p, true),
        ("git -C \"$REPO\" reset --hard".into(), &linked, false),
        ("git branch -D other".into(), &p, true),
        ("git checkout .".into(), &p, true),
        ("git checkout other".into(), &p, false),
        ("git checkout no-such-thing".into(), &p, true),
        ("git status".into(), &p, false),
    ];
    for (cmd, dir, denied) in cases {
        assert_eq!(
            guard_denies(&cmd, dir),
            denied,
            "{cmd} in {}",
            dir.display()
        );
    }
}

#[test]
fn persisted_aliases_with_includes() {
    let root = tempfile::tempdir().unwrap();
    let p = primary(root.path());
    let inc = root.path().join("aliases.inc");
    write(&inc, "[alias]\n\twipe = reset --hard\n\tnuke = !git clean -fdx\n\tchain = wipe\n\tsafe = status\n");
    ok(&p, &["config", "include.path", inc.to_str().unwrap()]);
    ok(&p, &["config", "alias.loopa", "loopb"]);
    ok(&p, &["config", "alias.loopb", "loopa"]);
    let a = world().git_aliases(&p);
    assert_eq!(a.get("wipe").map(String::as_str), Some("reset --hard"));
    assert!(guard_denies("git wipe", &p));
    assert!(guard_denies("git chain", &p));
    assert!(
        guard_denies("git nuke", &p),
        "shell alias in a primary checkout"
    );
    assert!(!guard_denies("git safe", &p));
    // git itself refuses an alias loop, so nothing runs.
    assert!(!guard_denies("git loopa", &p));
    let o = git(&p, &["loopa"]);
    assert!(!o.status.success());
    // Real git agrees that the alias destroys work.
    let before = state(&p);
    run_sh("git wipe", &p);
    assert_ne!(before.a, state(&p).a);
    // In a linked worktree of the same repository, the same alias is allowed.
    ok(&p, &["worktree", "add", "-q", "../wt", "other"]);
    assert!(!guard_denies("git wipe", &root.path().join("wt")));
}

#[test]
fn non_utf8_path() {
    use std::os::unix::ffi::OsStrExt;
    let root = tempfile::tempdir().unwrap();
    let odd = root.path().join(std::ffi::OsStr::from_bytes(b"dir-\xff-x"));
    std::fs::create_dir_all(&odd).unwrap();
    let p = primary(&odd);
    assert_eq!(world().repo_kind(&p), RepoKind::Primary);
    assert!(guard_denies("git reset --hard", &p));
    ok(&p, &["worktree", "add", "-q", "../wt", "other"]);
    assert!(!guard_denies("git reset --hard", &odd.join("wt")));
}
