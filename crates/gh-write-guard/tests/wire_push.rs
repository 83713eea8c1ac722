//! A push read off the wire is judged by the same rules as its command text (issue 38's broker
//! reads pushes this way): real git pushes through git's smart-HTTP client to `git
//! http-backend` on 127.0.0.1, each request body read with command-effects'
//! `git_receive_pack`, then judged by `gh_write_guard::wire::judge_push` in a world where `main`
//! needs a pull request. The push to `main` is refused with G4.rule, as `git push origin
//! HEAD:main` is as text; the push of a feature branch is not.

use command_effects::git_receive_pack::read_push;
use gh_write_guard::fake_world::FakeWorld;
use gh_write_guard::finding::first_deny;
use gh_write_guard::wire::{judge_push, WirePush};
use gh_write_guard::world::RepoSlug;
use hook_replay::git::{git, init_with_commit, Origin};
use hook_replay::git_http::Recorder;

#[test]
fn a_push_on_the_wire_gets_the_code_its_text_gets() {
    let origin = Origin::serve();
    let relay = Recorder::start(origin.http_port());
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("w");
    init_with_commit(&repo, &[]);
    let url = format!("http://127.0.0.1:{}/acme/widget.git", relay.port);
    git(&repo, &["remote", "add", "origin", &url]);
    let env = serde_json::json!({"origin": ["acme", "widget"],
        "branch_rules": {"main": ["pull_request"]}, "branch_rules_default": [],
        "current_branch": "feature", "primary_checkout_default": false,
        "remotes": {"origin": "https://github.com/acme/widget.git"}});
    let (world, cx) = FakeWorld::from_env(&env, guard_config::Config::default());
    let wire_code = |refspec: &str| {
        git(&repo, &["push", "-q", "origin", refspec]);
        let bodies = relay.push_bodies();
        assert_eq!(bodies.len(), 1, "one receive-pack request");
        let request = read_push(&bodies[0]).unwrap();
        let push = WirePush {
            repo: RepoSlug {
                host: "github.com".into(),
                owner: "acme".into(),
                repo: "widget".into(),
            },
            updates: request.commands.iter().map(|c| c.branch_update()).collect(),
        };
        first_deny(&judge_push(&push, &cx, &world)).and_then(|f| f.code.map(|c| c.as_str()))
    };
    // Creating `main` is not what a pull-request rule restricts (the text, judged against a world
    // where main exists, cannot tell): the wire says it is a creation.
    assert_eq!(wire_code("HEAD:refs/heads/main"), None);
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "two"]);
    assert_eq!(wire_code("HEAD:refs/heads/main"), Some("G4.rule"));
    assert_eq!(wire_code("HEAD:refs/heads/feature"), None);
    // The text of the same push, in the same world.
    let text = gh_write_guard::judge("git push origin HEAD:main", &cx, &world);
    assert_eq!(
        first_deny(&text.findings).and_then(|f| f.code.map(|c| c.as_str())),
        Some("G4.rule")
    );
}
