//! A git remote helper run as a command reads its instructions from stdin, and `push
//! <src>:<dst>` there pushes: real `git remote-http origin <url>` fed `push
//! refs/heads/main:refs/heads/main` updates main on a real smart-HTTP origin (`git
//! http-backend` on 127.0.0.1). The first line reads a helper run by hand as a push to its URL
//! (or its remote's) of branches decided at run time: refused for a GitHub repository
//! (G4.run-time-branch), whatever the branch; git's own `remote` command, a fetch and a helper
//! towards another host are not. `git send-pack --stdin` takes refs from stdin the same way.

use hook_replay::git::{git, Origin};
use std::io::Write;
use std::process::{Command, Stdio};

mod offline_support;
use offline_support::{denies, github_worktree};

/// Runs `c` with `stdin` fed to it. A helper ends with an error once its input ends (git
/// would send more): what it pushed is read from the origin, not from its status.
fn fed(mut c: Command, stdin: &str) {
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the helper runs");
    let mut input = child.stdin.take().expect("piped");
    input.write_all(stdin.as_bytes()).expect("fed");
    drop(input);
    child.wait().expect("the helper ends");
}

#[test]
fn a_remote_helper_run_by_hand_pushes_and_the_first_line_refuses_it_for_github() {
    let tmp = tempfile::tempdir().unwrap();
    let origin = Origin::serve();
    let work = tmp.path().join("work");
    origin.checkout_in(&work);
    let url = origin.http_url();
    git(&work, &["remote", "set-url", "origin", &url]);
    // Nothing on the origin yet; the helper, driven by hand, pushes main.
    assert!(origin.git(&["for-each-ref"]).is_empty());
    fed(
        hook_replay::git::command(&work, &["remote-http", "origin", &url]),
        "push refs/heads/main:refs/heads/main\n\n",
    );
    assert_eq!(
        origin.git(&["rev-parse", "main"]),
        git(&work, &["rev-parse", "main"]).trim(),
        "real git's helper pushed main"
    );
    // The dashed program does the same.
    let exec_path = git(&work, &["--exec-path"]).trim().to_string();
    let dashed = format!("{exec_path}/git-remote-http");
    let mut by_path = Command::new(&dashed);
    by_path
        .args(["origin", &url])
        .current_dir(&work)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    fed(by_path, "push refs/heads/feature:refs/heads/feature\n\n");
    assert_eq!(
        origin.git(&["rev-parse", "feature"]),
        git(&work, &["rev-parse", "feature"]).trim(),
        "the dashed helper pushed feature"
    );

    // `send-pack --stdin` takes its refs from stdin too.
    git(&work, &["branch", "from-stdin"]);
    let bare = origin.bare.display().to_string();
    fed(
        hook_replay::git::command(&work, &["send-pack", "--stdin", &bare]),
        "from-stdin\n",
    );
    assert_eq!(
        origin.git(&["rev-parse", "from-stdin"]),
        git(&work, &["rev-parse", "from-stdin"]).trim(),
        "send-pack pushed the branch its stdin named"
    );

    // The same shapes aimed at GitHub, judged from a linked worktree (G6 does not apply).
    let wt = github_worktree(&work);
    let judge = |cmd: &str| denies(cmd, &wt, tmp.path());
    let refused = vec!["G4.run-time-branch".to_string()];
    for cmd in [
        "printf 'push refs/heads/main:refs/heads/main\\n\\n' | git remote-http origin https://github.com/acme/widget.git",
        "git remote-https origin < cmds.txt",
        &format!("{dashed} origin https://github.com/acme/widget.git < cmds.txt"),
        "git-remote-https origin https://github.com/acme/widget.git < cmds.txt",
        "git send-pack --stateless-rpc --helper-status https://github.com/acme/widget.git/ --stdin < refs.txt",
        "echo main | git send-pack --stdin git@github.com:acme/widget.git",
    ] {
        assert_eq!(judge(cmd), refused, "{cmd}");
    }
    // Look-alikes: git's own remote command, a push and a fetch as git runs them, a helper
    // towards another host, the plumbing that names its refs.
    for cmd in [
        "git remote -v",
        "git remote add up https://github.com/acme/widget.git",
        "git fetch origin",
        "git push origin wt",
        &format!("git remote-http origin {url} < cmds.txt"),
        "git send-pack https://github.com/acme/widget.git wt",
    ] {
        assert_eq!(judge(cmd), Vec::<String>::new(), "{cmd}");
    }
}
