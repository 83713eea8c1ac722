//! The supervisor keeps the repositories it opened for the rest of the command
//! (`repo_cache`): an exec is still judged on the state the commands before it left. Each case
//! runs one command under the real gate that first has a git exec judged (so the repository
//! is opened and kept), then changes what the next exec's verdict depends on: an alias in the
//! repository's config and in a global config that did not exist, the branch HEAD names, the
//! repository itself (a linked worktree replaced by a clone, a primary checkout).

mod common;
use branch_rules::test_support::TestServer;
use common::*;
use hook_replay::git::Origin;
use std::time::Duration;

/// Files changed within a second of an opening are not kept (`repo_cache`): the repositories
/// here are made settled first, so the first judged exec keeps them.
fn settle() {
    std::thread::sleep(Duration::from_millis(1100));
}

/// A primary checkout of a served origin whose `main` needs a pull request; G6 granted so G4
/// alone decides the pushes.
fn pushing_world(name: &str) -> Option<(World, Origin, TestServer)> {
    let mut w = root_world(name)?;
    let server = TestServer::protecting_main().unwrap();
    let origin = Origin::serve();
    origin.checkout_in(&w.project());
    w.env("GH_HOST", "127.0.0.1")
        .env("GH_ENTERPRISE_TOKEN", "test-token")
        .env("AGENT_GUARDS_GITHUB_API", &server.base())
        .env("GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT", "1");
    Some((w, origin, server))
}

#[test]
fn an_alias_written_during_the_command_is_judged_as_the_push_it_stands_for() {
    let Some((w, origin, _server)) = pushing_world("alias") else {
        return;
    };
    // `p` stands for a harmless command first (judged: the repository is kept), then for a
    // push; `q` is defined in a global config that does not exist when the repository is
    // opened.
    hook_replay::git::git(&w.project(), &["config", "alias.p", "status"]);
    settle();
    let script = "git p -s >/dev/null; echo status $?; \
                  git config alias.p push; git p -q origin main; echo p $?; \
                  git config --global alias.q push; git q -q origin main; echo q $?";
    w.ran("bash", &["-c", script])
        .prints(&["status 0", "p 126", "q 126"])
        .says(&[
            "agent-guards: refused git p -q origin main (G4",
            "agent-guards: refused git q -q origin main (G4",
        ]);
    assert!(origin.git(&["for-each-ref"]).is_empty(), "nothing landed");
}

/// Runs `script` (checkouts and pushes of `HEAD`) in a pushing world: exactly the push from
/// `main` is refused (G4), `prints` are its lines, and only `feature` reached the origin.
fn pushes_of_head(name: &str, script: &str, prints: &[&str]) {
    let Some((w, origin, _server)) = pushing_world(name) else {
        return;
    };
    settle();
    let out = w.ran("bash", &["-c", script]);
    out.prints(prints)
        .says(&["agent-guards: refused git push -q origin HEAD (G4"]);
    assert_eq!(out.said("agent-guards: refused"), 1, "{}", out.stderr);
    assert_eq!(
        origin.git(&["for-each-ref", "--format=%(refname)"]),
        "refs/heads/feature"
    );
}

#[test]
fn a_push_of_head_is_judged_on_the_branch_checked_out_since() {
    pushes_of_head(
        "head",
        "git checkout -q feature; git push -q origin HEAD; echo feature $?; \
         git checkout -q main; git push -q origin HEAD; echo main $?",
        &["feature 0", "main 126"],
    );
}

/// The same, with each checkout settled before the push (more than a second old): the branch
/// `HEAD` names is kept between judgements, and only the change events (the checkout's rename
/// of `HEAD`) say it must be read again.
#[test]
fn a_push_of_head_is_judged_on_the_branch_checked_out_a_while_ago() {
    pushes_of_head(
        "head-settled",
        "git checkout -q feature; sleep 1.2; git push -q origin HEAD; echo feature $?; \
         git checkout -q main; sleep 1.2; git push -q origin HEAD; echo main $?; \
         git checkout -q feature; sleep 1.2; git push -q origin HEAD; echo again $?",
        &["feature 0", "main 126", "again 0"],
    );
}

#[test]
fn a_worktree_replaced_by_a_clone_is_judged_as_the_primary_checkout_it_became() {
    let Some(w) = root_world("replaced") else {
        return;
    };
    let repo = w.project().join("repo");
    hook_replay::git::init_with_commit(&repo, &[("f", "a\n")]);
    hook_replay::git::git(&repo, &["worktree", "add", "-q", "../wt"]);
    settle();
    let script = "cd wt && git reset -q --hard; echo linked $?; \
                  cd .. && rm -rf wt && git clone -q repo wt && cd wt && git reset -q --hard; echo primary $?";
    let out = w.ran("bash", &["-c", script]);
    out.prints(&["linked 0", "primary 126"])
        .says(&["agent-guards: refused git reset -q --hard (G6"]);
    assert_eq!(out.said("agent-guards: refused"), 1, "{}", out.stderr);
}
