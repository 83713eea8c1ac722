//! The wire's API face against the requirement text: each refused write beside a look-alike
//! that must stay allowed, and the same code as the same call written as `gh api`.

use super::*;
use crate::fake_world::FakeWorld;
use crate::finding::first_deny;
use serde_json::json;

fn world() -> (FakeWorld, Context) {
    let env = json!({"origin": ["maintainer", "app"], "branch_rules": {"main": ["pull_request", "deletion"]},
        "branch_rules_default": [], "current_branch": "feature", "primary_checkout_default": false,
        "remotes": {"origin": "https://github.com/maintainer/app.git"}});
    FakeWorld::from_env(&env, guard_config::Config::default())
}

/// The one id GitHub "returned" in these tests' session.
const LIVE_ID: &str = "R_kgDOlivelive1";

fn code(
    method: &str,
    target: &str,
    body: &str,
    merge: Option<&MergeState>,
) -> Option<&'static str> {
    let (world, cx) = world();
    let req = WireApi::from_request("api.github.com", method, target, body.as_bytes());
    let facts = WireFacts {
        merge,
        live_id: &|id| id == LIVE_ID,
        repo_of: &|_| None,
    };
    let found = judge_api(&req, &facts, &cx, &world);
    first_deny(&found).and_then(|f| f.code.map(|c| c.as_str()))
}

#[test]
fn ref_updates_on_a_protected_branch_are_refused_and_others_allowed() {
    let main = "/repos/maintainer/app/git/refs/heads/main";
    assert_eq!(
        code("PATCH", main, r#"{"sha":"abc","force":true}"#, None),
        Some("G4.rule")
    );
    assert_eq!(code("DELETE", main, "", None), Some("G4.rule"));
    assert_eq!(
        code(
            "PATCH",
            "/repos/maintainer/app/git/refs/heads/feature",
            r#"{"sha":"abc"}"#,
            None
        ),
        None
    );
    assert_eq!(
        code(
            "POST",
            "/repos/maintainer/app/git/refs",
            r#"{"ref":"refs/heads/main","sha":"abc"}"#,
            None
        ),
        None,
        "a creation is refused only by a `creation` rule, as for a push that creates"
    );
    assert_eq!(
        code(
            "POST",
            "/repos/maintainer/app/git/refs",
            r#"{"ref":"refs/tags/v1","sha":"abc"}"#,
            None
        ),
        None
    );
    // Contents committed to main, and to a feature branch.
    assert_eq!(
        code(
            "PUT",
            "/repos/maintainer/app/contents/a.txt",
            r#"{"message":"m","content":"eA==","branch":"main"}"#,
            None
        ),
        Some("G4.rule")
    );
    assert_eq!(
        code(
            "PUT",
            "/repos/maintainer/app/contents/a.txt",
            r#"{"message":"m","content":"eA==","branch":"feature"}"#,
            None
        ),
        None
    );
    // The enterprise prefix and dot segments are read as the path they resolve to.
    assert_eq!(
        code(
            "DELETE",
            "/api/v3/repos/maintainer/app/git/refs/heads/main",
            "",
            None
        ),
        Some("G4.rule")
    );
    assert_eq!(
        code(
            "DELETE",
            "/repos/x/../maintainer/app/git/refs/heads/main",
            "",
            None
        ),
        Some("G4.rule")
    );
}

#[test]
fn other_owners_and_protection_writes_are_refused() {
    assert_eq!(
        code(
            "POST",
            "/repos/stranger/app/issues/1/comments",
            r#"{"body":"hi"}"#,
            None
        ),
        Some("G3.other-owner")
    );
    assert_eq!(
        code(
            "POST",
            "/repos/maintainer/app/issues/1/comments",
            r#"{"body":"hi"}"#,
            None
        ),
        None
    );
    assert_eq!(
        code("GET", "/repos/stranger/app", "", None),
        None,
        "a read is no write"
    );
    assert_eq!(
        code(
            "DELETE",
            "/repos/maintainer/app/branches/main/protection",
            "",
            None
        ),
        Some("G4.protection-write")
    );
}

#[test]
fn a_pull_request_merge_is_judged_by_its_merge_state() {
    let merge = "/repos/maintainer/app/pulls/1/merge";
    let st = |s: &str| MergeState::Reported(s.into());
    assert_eq!(
        code("PUT", merge, "{}", Some(&st("blocked"))),
        Some("G4.admin-merge")
    );
    assert_eq!(
        code("PUT", merge, "{}", Some(&st("behind"))),
        Some("G4.admin-merge")
    );
    assert_eq!(
        code(
            "PUT",
            merge,
            "{}",
            Some(&MergeState::Unknown("timed out".into()))
        ),
        Some("G4.admin-merge")
    );
    assert_eq!(code("PUT", merge, "{}", None), Some("G4.admin-merge"));
    assert_eq!(code("PUT", merge, "{}", Some(&st("clean"))), None);
    assert_eq!(code("PUT", merge, "{}", Some(&st("unstable"))), None);
    assert_eq!(
        code(
            "PUT",
            "/repos/stranger/app/pulls/1/merge",
            "{}",
            Some(&st("clean"))
        ),
        Some("G3.other-owner")
    );
    assert_eq!(
        code("GET", "/repos/maintainer/app/pulls/1/merge", "", None),
        None,
        "is it merged? a read"
    );
}

#[test]
fn graphql_mutations_are_judged_by_g2_and_g4() {
    let g = |q: &str, vars: serde_json::Value| {
        code(
            "POST",
            "/graphql",
            &json!({"query": q, "variables": vars}).to_string(),
            None,
        )
    };
    assert_eq!(
        g("mutation { resolveReviewThread(input:{threadId:\"PRRT_kwDOabc123def\"}) { clientMutationId } }", json!({})),
        Some("G2.node-id")
    );
    assert_eq!(
        g(
            "mutation($id:ID!) { resolveReviewThread(input:{threadId:$id}) { clientMutationId } }",
            json!({"id": "PRRT_kwDOabc123def"})
        ),
        Some("G2.node-id"),
        "a literal id among the variables"
    );
    assert_eq!(g("query { viewer { login } }", json!({})), None);
    // An id GitHub returned in the session came from a live query; one it never did did not.
    let create = "mutation($r:ID!) { createPullRequest(input:{repositoryId:$r, baseRefName:\"main\", headRefName:\"f\", title:\"t\"}) { pullRequest { url } } }";
    assert_eq!(g(create, json!({"r": LIVE_ID})), None);
    assert_eq!(
        g(create, json!({"r": "R_kgDOpasted12"})),
        Some("G2.node-id")
    );
    assert_eq!(g("mutation($i:ID!) { deleteBranchProtectionRule(input:{branchProtectionRuleId:$i}) { clientMutationId } }", json!({})), Some("G4.protection-write"));
    assert_eq!(
        code("POST", "/graphql", "not json", None),
        Some("G2.unreadable-body")
    );
}

#[test]
fn the_same_call_as_gh_api_gets_the_same_code() {
    let (world, cx) = world();
    for (text, method, target, body) in [
        (
            "gh api -X DELETE repos/maintainer/app/git/refs/heads/main",
            "DELETE",
            "/repos/maintainer/app/git/refs/heads/main",
            "",
        ),
        (
            "gh api -X POST repos/stranger/app/issues/1/comments -f body=hi",
            "POST",
            "/repos/stranger/app/issues/1/comments",
            r#"{"body":"hi"}"#,
        ),
        (
            "gh api -X POST repos/maintainer/app/issues/1/comments -f body=hi",
            "POST",
            "/repos/maintainer/app/issues/1/comments",
            r#"{"body":"hi"}"#,
        ),
    ] {
        let t = crate::judge::judge(text, &cx, &world);
        let text_code = first_deny(&t.findings).and_then(|f| f.code.map(|c| c.as_str()));
        assert_eq!(code(method, target, body, None), text_code, "{text}");
    }
}
