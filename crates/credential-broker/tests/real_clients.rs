//! The real `gh` through the broker (C11.4: a refusal in a shape the program prints): `gh api`
//! of a refused merge prints GitHub's error message, which starts with the rule's code; an
//! allowed read and write go through. gh (Go) reads `HTTPS_PROXY` and `SSL_CERT_FILE`.

mod support;

use std::process::Command;
use support::{received, Scene, REAL};

fn gh(s: &Scene, args: &[&str]) -> Option<std::process::Output> {
    let home = s.dir.path().join("gh-home");
    std::fs::create_dir_all(&home).ok()?;
    Command::new("gh")
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("GH_CONFIG_DIR", home.join("config"))
        .env("GH_NO_UPDATE_NOTIFIER", "1")
        .env("GH_PROMPT_DISABLED", "1")
        .envs(s.client_env())
        .output()
        .ok()
}

#[test]
fn gh_prints_the_refusal_and_its_allowed_calls_go_through() {
    let s = Scene::new();
    let Some(out) = gh(
        &s,
        &["api", "-X", "PUT", "repos/maintainer/app/pulls/1/merge"],
    ) else {
        hook_replay::skip::cannot_run(
            "gh_prints_the_refusal_and_its_allowed_calls_go_through",
            "gh is not installed (apt-get install gh)",
        );
        return;
    };
    let text = received(&out);
    assert!(!text.contains(REAL));
    assert!(!out.status.success());
    assert!(
        text.contains("agent-guards: G4.admin-merge") && text.contains("HTTP 403"),
        "{text}"
    );
    let out = gh(&s, &["api", "repos/maintainer/app"]).expect("gh runs");
    assert!(out.status.success(), "{}", received(&out));
    assert!(received(&out).contains("maintainer/app"));
    let comment = [
        "api",
        "repos/maintainer/app/issues/1/comments",
        "-f",
        "body=hi",
    ];
    let out = gh(&s, &comment).expect("gh runs");
    assert!(out.status.success(), "{}", received(&out));
    assert_eq!(
        s.github.auths("POST"),
        ["real"],
        "gh's write landed with the real token"
    );
}
