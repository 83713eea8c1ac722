//! The destination of a push given no refspec, checked against what the real git does: every
//! case runs `git push --dry-run --porcelain` against local bare remotes (nothing leaves the
//! machine) and compares the refs git would push, and where git refuses, that we say so too.
//! `@{push}` is compared with `git rev-parse --abbrev-ref @{push}` after a real push.

mod common;

use branch_rules::remote::{default_push, remote_urls, DefaultPush, PushTarget};
use common::Fixture;

/// What git would push: (destination URL, [(src, dst)]), or `None` when git refuses.
fn git_would_push(fx: &Fixture, remote: Option<&str>) -> Option<(String, Vec<(String, String)>)> {
    let mut args = vec!["push", "--dry-run", "--porcelain"];
    args.extend(remote);
    let (ok, stdout, _) = fx.git_try(&args);
    if !ok {
        return None;
    }
    let mut url = String::new();
    let mut refs = Vec::new();
    for line in stdout.lines() {
        if let Some(to) = line.strip_prefix("To ") {
            url = to.to_string();
        } else if let Some(spec) = line.split('\t').nth(1) {
            if let Some((src, dst)) = spec.split_once(':') {
                refs.push((src.to_string(), dst.to_string()));
            }
        }
    }
    Some((url, refs))
}

/// A work repository whose `main` is pushed to a bare `origin` with upstream set, on a new
/// branch `feat` with its own commit.
fn with_origin() -> Fixture {
    let fx = Fixture::new();
    let origin = fx.bare("origin");
    fx.git(&["remote", "add", "origin", &origin]);
    fx.git(&["push", "-q", "-u", "origin", "main"]);
    fx.git(&["switch", "-q", "-c", "feat"]);
    std::fs::write(fx.work().join("f"), "f\n").expect("write");
    fx.git(&["add", "f"]);
    fx.git(&["commit", "-qm", "feat"]);
    fx
}

fn ours(fx: &Fixture, remote: Option<&str>) -> DefaultPush {
    default_push(&fx.repo(), remote).expect("default push")
}

/// Ours says `src` → `dst` on `remote`; git pushes exactly that, to that remote's push URL.
fn assert_branch_push(fx: &Fixture, explicit: Option<&str>, remote: &str, src: &str, dst: &str) {
    let ours = ours(fx, explicit);
    assert_eq!(
        (ours.remote.as_str(), ours.target),
        (
            remote,
            PushTarget::Branch {
                src: src.into(),
                dst: dst.into()
            }
        )
    );
    let (url, refs) = git_would_push(fx, explicit).expect("git pushes");
    let push_url = remote_urls(&fx.repo(), remote).expect("urls").push;
    assert_eq!(vec![url], push_url, "git pushes to the remote we named");
    assert_eq!(
        refs,
        vec![(format!("refs/heads/{src}"), format!("refs/heads/{dst}"))]
    );
}

/// Ours refuses; so does git.
fn assert_refused(fx: &Fixture, explicit: Option<&str>) {
    let ours = ours(fx, explicit);
    assert!(
        matches!(ours.target, PushTarget::Refused(_)),
        "expected a refusal, got {ours:?}"
    );
    assert_eq!(git_would_push(fx, explicit), None, "git refuses too");
}

/// After a real push and fetch, `git rev-parse --abbrev-ref @{push}` names `<remote>/<dst>`.
fn assert_at_push(fx: &Fixture, remote: &str) {
    let ours = ours(fx, None);
    let PushTarget::Branch { dst, .. } = &ours.target else {
        panic!("not a branch push: {ours:?}");
    };
    fx.git(&["push", "-q"]);
    fx.git(&["fetch", "-q", remote]);
    let at_push = fx.git(&["rev-parse", "--abbrev-ref", "@{push}"]);
    assert_eq!(at_push.trim(), format!("{remote}/{dst}"));
}

#[test]
fn simple_needs_a_same_named_upstream() {
    let fx = with_origin();
    assert_refused(&fx, None); // no upstream yet
    fx.git(&["config", "branch.feat.remote", "origin"]);
    fx.git(&["config", "branch.feat.merge", "refs/heads/other"]);
    assert_refused(&fx, None); // upstream of another name
    fx.git(&["config", "branch.feat.merge", "refs/heads/feat"]);
    assert_branch_push(&fx, None, "origin", "feat", "feat");
    assert_at_push(&fx, "origin");
}

#[test]
fn simple_with_auto_setup_remote_pushes_the_same_name() {
    let fx = with_origin();
    fx.git(&["config", "push.autoSetupRemote", "true"]);
    assert_branch_push(&fx, None, "origin", "feat", "feat");
}

#[test]
fn upstream_mode_pushes_to_the_configured_upstream() {
    let fx = with_origin();
    fx.git(&["config", "push.default", "upstream"]);
    assert_refused(&fx, None);
    fx.git(&["config", "branch.feat.remote", "origin"]);
    fx.git(&["config", "branch.feat.merge", "refs/heads/other"]);
    assert_branch_push(&fx, None, "origin", "feat", "other");
    assert_at_push(&fx, "origin");
    // Naming another remote is triangular: upstream mode refuses.
    let fork = fx.bare("fork");
    fx.git(&["remote", "add", "fork", &fork]);
    assert_refused(&fx, Some("fork"));
}

#[test]
fn current_and_nothing_and_unknown_modes() {
    let fx = with_origin();
    fx.git(&["config", "push.default", "current"]);
    assert_branch_push(&fx, None, "origin", "feat", "feat");
    fx.git(&["config", "push.default", "nothing"]);
    assert_refused(&fx, None);
    fx.git(&["config", "push.default", "sideways"]);
    assert_refused(&fx, None);
}

#[test]
fn triangular_pushes_go_to_the_push_remote_under_the_same_name() {
    let fx = with_origin();
    let fork = fx.bare("fork");
    fx.git(&["remote", "add", "fork", &fork]);
    fx.git(&["config", "branch.feat.remote", "origin"]);
    fx.git(&["config", "branch.feat.merge", "refs/heads/other"]);
    // branch.<b>.pushRemote
    fx.git(&["config", "branch.feat.pushRemote", "fork"]);
    assert_branch_push(&fx, None, "fork", "feat", "feat");
    // git's own `@{push}` disagrees with `git push` here: for `simple` it insists the upstream
    // and the push destination coincide even in a triangular setup. We follow what the push
    // itself does (checked above with the dry run); this pins the disagreement.
    let (ok, _, stderr) = fx.git_try(&["rev-parse", "--abbrev-ref", "@{push}"]);
    assert!(!ok && stderr.contains("single destination"), "{stderr}");
    // remote.pushDefault (when the branch has no pushRemote)
    fx.git(&["config", "--unset", "branch.feat.pushRemote"]);
    fx.git(&["config", "remote.pushDefault", "fork"]);
    assert_branch_push(&fx, None, "fork", "feat", "feat");
    // An explicit remote that is not the branch's remote is triangular as well.
    fx.git(&["config", "--unset", "remote.pushDefault"]);
    assert_branch_push(&fx, Some("fork"), "fork", "feat", "feat");
    // Back on the branch's own remote, simple refuses the mismatched upstream.
    assert_refused(&fx, Some("origin"));
}

#[test]
fn configured_push_refspecs_replace_the_default() {
    let fx = with_origin();
    fx.git(&[
        "config",
        "remote.origin.push",
        "refs/heads/feat:refs/heads/published",
    ]);
    assert_eq!(
        ours(&fx, None).target,
        PushTarget::ConfiguredRefspecs(vec!["refs/heads/feat:refs/heads/published".into()])
    );
    let (_, refs) = git_would_push(&fx, None).expect("git pushes");
    assert_eq!(
        refs,
        vec![("refs/heads/feat".into(), "refs/heads/published".into())]
    );
}

#[test]
fn mirror_remotes_push_everything() {
    let fx = with_origin();
    fx.git(&["config", "remote.origin.mirror", "true"]);
    assert_eq!(ours(&fx, None).target, PushTarget::Mirror);
    let (_, refs) = git_would_push(&fx, None).expect("git pushes");
    let dsts: Vec<&str> = refs.iter().map(|(_, d)| d.as_str()).collect();
    assert!(dsts.contains(&"refs/heads/feat"), "{refs:?}");
    assert!(dsts.contains(&"refs/heads/main"), "{refs:?}");
}

#[test]
fn matching_lists_every_local_branch_git_could_push() {
    let fx = with_origin();
    fx.git(&["config", "push.default", "matching"]);
    let PushTarget::Matching { branches } = ours(&fx, None).target else {
        panic!("expected matching");
    };
    assert_eq!(branches, vec!["feat".to_string(), "main".to_string()]);
    let (_, refs) = git_would_push(&fx, None).expect("git pushes");
    assert!(!refs.is_empty());
    for (src, dst) in &refs {
        assert_eq!(src, dst);
        let name = dst.strip_prefix("refs/heads/").expect("a branch");
        assert!(
            branches.iter().any(|b| b == name),
            "{name} not in {branches:?}"
        );
    }
}

#[test]
fn detached_head_and_no_remote_push_nothing() {
    let fx = with_origin();
    fx.git(&["switch", "-q", "--detach", "HEAD"]);
    assert_refused(&fx, None);

    let bare = Fixture::new();
    assert_refused(&bare, None);
}

#[test]
fn command_line_push_default_overrides_the_files() {
    use branch_rules::remote::{default_push_with, ConfigOverrides};
    let fx = with_origin();
    fx.git(&["config", "push.default", "nothing"]);
    assert_refused(&fx, None);
    let overrides = ConfigOverrides::from_pairs([("push.default", "current")]);
    assert_eq!(
        default_push_with(&fx.repo(), None, &overrides).expect("push"),
        DefaultPush {
            remote: "origin".into(),
            target: PushTarget::Branch {
                src: "feat".into(),
                dst: "feat".into()
            },
            mode: Some("current".into()),
        }
    );
    let (ok, stdout, _) = fx.git_try(&[
        "-c",
        "push.default=current",
        "push",
        "--dry-run",
        "--porcelain",
    ]);
    assert!(ok);
    assert!(
        stdout.contains("refs/heads/feat:refs/heads/feat"),
        "{stdout}"
    );
}
