//! No false refusal in the recommended workflow (issue 41 item 6): in a repository that tracks
//! `.claude/settings.json` and `.mcp.json`, `git worktree add` and `git clone` under the second
//! line write them into the new checkout (git writing the repository's files is not tampering
//! with this session's registrations), while the session's own registration stays read-only.
//! As root and as uid 65534.

mod common;
use common::*;

/// Makes the project a repository whose commit tracks both registrations.
fn tracked_repository(w: &World) {
    let p = w.project();
    std::fs::write(p.join(".mcp.json"), "{\"mcpServers\":{}}\n").unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args([
                "-c",
                "user.email=a@b",
                "-c",
                "user.name=n",
                "-c",
                "safe.directory=*",
            ])
            .args(args)
            .current_dir(&p)
            .output()
            .unwrap();
        assert!(ok.status.success(), "git {args:?}: {ok:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", ".claude/settings.json", ".mcp.json"]);
    git(&["commit", "-qm", "registrations tracked"]);
}

fn script(w: &World) -> String {
    format!(
        "cd {p} && git worktree add -q ../wt -b feature; echo worktree $?; \
         git clone -q . ../clone; echo clone $?; \
         echo '{{\"hooks\":{{}}}}' > .claude/settings.json; echo own $?",
        p = w.project().display()
    )
}

fn check(w: &World, out: &str) {
    assert!(out.contains("worktree 0"), "{out}");
    assert!(out.contains("clone 0"), "{out}");
    assert!(
        out.contains("own 1"),
        "the session's own stays read-only: {out}"
    );
    let work = w.project().parent().unwrap().to_path_buf();
    for made in [
        "wt/.claude/settings.json",
        "wt/.mcp.json",
        "clone/.claude/settings.json",
    ] {
        assert!(work.join(made).is_file(), "{made}: {out}");
    }
    let about_new = |l: &&str| l.contains("/wt/") || l.contains("/clone/");
    assert!(
        !out.lines().filter(about_new).any(|l| l.contains("refused")),
        "nothing written into the new checkouts is refused: {out}"
    );
}

#[test]
fn as_root_a_worktree_and_a_clone_get_the_repositorys_registrations() {
    let run = gated_script("worktree-root", RunAs::Root, tracked_repository, script);
    if let Some((w, out)) = run {
        check(&w, &out);
    }
}

#[test]
fn as_a_non_root_user_a_worktree_and_a_clone_get_the_repositorys_registrations() {
    let run = gated_script("worktree-nobody", RunAs::Nobody, tracked_repository, script);
    if let Some((w, out)) = run {
        check(&w, &out);
    }
}
