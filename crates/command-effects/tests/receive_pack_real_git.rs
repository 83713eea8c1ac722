//! The push wire reader against what real git sends: pushes through git's own smart-HTTP client
//! (`git-remote-http`) to `git http-backend` on 127.0.0.1, with a relay in between that keeps
//! the bytes of each request; each `POST .../git-receive-pack` body is read with
//! `git_receive_pack::read_push` and must name exactly the ref updates the push made.

use command_effects::git_push::PushKind;
use command_effects::git_receive_pack::read_push;
use hook_replay::git::{git, init_with_commit, Origin};
use hook_replay::git_http::Recorder;

#[test]
fn what_git_sends_is_read_as_the_push_it_is() {
    let origin = Origin::serve();
    let relay = Recorder::start(origin.http_port());
    let url = format!("http://127.0.0.1:{}/acme/widget.git", relay.port);
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("w");
    init_with_commit(&repo, &[]);
    git(&repo, &["remote", "add", "origin", &url]);
    let kinds = |bodies: Vec<Vec<u8>>| -> Vec<(String, PushKind)> {
        assert_eq!(bodies.len(), 1, "one receive-pack request per push");
        read_push(&bodies[0])
            .unwrap()
            .commands
            .iter()
            .map(|c| (c.refname.clone(), c.kind()))
            .collect()
    };

    git(
        &repo,
        &[
            "push",
            "-q",
            "origin",
            "HEAD:refs/heads/main",
            "HEAD:refs/heads/topic",
        ],
    );
    let mut got = kinds(relay.push_bodies());
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        [
            ("refs/heads/main".into(), PushKind::Create),
            ("refs/heads/topic".into(), PushKind::Create)
        ]
    );
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "two"]);
    git(&repo, &["tag", "v1"]);
    git(
        &repo,
        &["push", "-q", "origin", "HEAD:main", "v1", ":topic"],
    );
    let mut got = kinds(relay.push_bodies());
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        [
            ("refs/heads/main".into(), PushKind::Update),
            ("refs/heads/topic".into(), PushKind::Delete),
            ("refs/tags/v1".into(), PushKind::Create)
        ]
    );
    assert_eq!(
        origin.git(&["rev-parse", "main"]),
        git(&repo, &["rev-parse", "HEAD"]).trim(),
        "the pushes landed: the relay changed nothing"
    );
    // A forced update is an update on the wire (whether it is a fast-forward needs the commits).
    git(&repo, &["reset", "-q", "--hard", "HEAD~1"]);
    git(&repo, &["push", "-q", "--force", "origin", "HEAD:main"]);
    assert_eq!(
        kinds(relay.push_bodies()),
        [("refs/heads/main".into(), PushKind::Update)]
    );
}
