//! G5: where the maintainer configured a review helper (`review_helper`), a hand-rolled reply
//! or resolve on a review thread is denied and pointed at the helper: `gh api graphql`
//! mutations that resolve or reply to review threads (an unreadable GraphQL body may be one) and
//! REST POSTs to `.../pulls/<n>/comments/<id>/replies`. A target covered by
//! `GH_WRITE_GUARD_ALLOW` is allowed (for GraphQL, whose thread id is opaque, any active grant).

use crate::analysis::Analysis;
use crate::finding::{Code, Finding, Requirement};
use crate::operations::OpKind;
use command_effects::gh_api::{has_word, rest_path, Query};
use serde_json::json;

/// GraphQL mutations that reply to or resolve review threads.
pub const THREAD_MUTATIONS: [&str; 4] = [
    "resolveReviewThread",
    "unresolveReviewThread",
    "addPullRequestReviewThreadReply",
    "addPullRequestReviewComment",
];

/// Whether a REST path is `repos/o/r/pulls/<n>/comments/<id>/replies`.
fn is_replies_path(path: &str) -> Option<(String, String)> {
    let p: Vec<&str> = path.split('/').collect();
    // A segment decided at run time (`${ID}`, `${__subst__}` in the endpoint's template) may be
    // any word, the path's keywords too.
    let kw = |s: &str, k: &str| s == k || s.contains("${");
    (p.len() == 8
        && p[0] == "repos"
        && kw(p[3], "pulls")
        && kw(p[5], "comments")
        && kw(p[7], "replies"))
    .then(|| (p[1].to_string(), p[2].to_string()))
}

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let Some(helper) =
        a.cx.config
            .review_helper
            .as_deref()
            .map(str::trim)
            .filter(|h| !h.is_empty())
    else {
        return Vec::new();
    };
    let grant = a.cx.owner_grant();
    let remedy = format!("Use the maintainer's review helper instead: {helper}");
    let mut out = Vec::new();
    for op in a.ops() {
        // An HTTP client posting to the GraphQL endpoint is judged as `gh api graphql` is.
        if let (OpKind::HttpWrite { .. }, Some((query, _))) = (&op.kind, op.kind.graphql()) {
            if let Some(f) = thread_mutation(query, &grant, &remedy, helper) {
                out.push(f);
            }
            continue;
        }
        // An HTTP client posting to a REST replies path is the reply `gh api` would be.
        if let OpKind::HttpWrite { url, .. } = &op.kind {
            if let Some((owner, repo)) = is_replies_path(&rest_path(url)) {
                if !grant.covers(&owner, &repo) {
                    out.push(reply_deny(&owner, &repo, &remedy, helper));
                }
            }
            continue;
        }
        let OpKind::Gh { api: Some(api), .. } = &op.kind else {
            continue;
        };
        if !api.is_write() {
            continue;
        }
        if api.graphql {
            if let Some(f) = thread_mutation(&api.query, &grant, &remedy, helper) {
                out.push(f);
            }
        } else if let Some((owner, repo)) = api
            .rest_path_template()
            .as_deref()
            .and_then(is_replies_path)
            .or_else(|| {
                // The older spelling: a review comment created `in_reply_to` another.
                let path = api.rest_path_template()?;
                let p: Vec<&str> = path.split('/').collect();
                (p.len() == 6
                    && p[0] == "repos"
                    && p[3] == "pulls"
                    && p[5] == "comments"
                    && api
                        .fields
                        .iter()
                        // A key decided at run time (an unreadable `--input` body) may be it.
                        .any(|f| f.key.as_deref().is_none_or(|k| k == "in_reply_to")))
                .then(|| (p[1].to_string(), p[2].to_string()))
            })
        {
            if grant.covers(&owner, &repo) {
                continue;
            }
            out.push(reply_deny(&owner, &repo, &remedy, helper));
        }
    }
    out
}

/// The deny of a REST reply to a review comment in `owner/repo`.
fn reply_deny(owner: &str, repo: &str, remedy: &str, helper: &str) -> Finding {
    Finding::deny(
        Code::G5CommentReply,
        "a hand-rolled reply to a review comment",
        remedy.to_string(),
        json!({"target": format!("{owner}/{repo}"), "helper": helper}),
    )
}

/// A GraphQL document that replies to or resolves a review thread (or cannot be read): the
/// deny, or the note of the grant that allows it.
fn thread_mutation(
    query: &Query,
    grant: &safety_kernel::ListGrant,
    remedy: &str,
    helper: &str,
) -> Option<Finding> {
    let shape = match query {
        Query::Text(q) => THREAD_MUTATIONS
            .iter()
            .find(|m| has_word(q, m))
            .map(|m| m.to_string()),
        Query::Unreadable(why) => Some(format!("an unreadable GraphQL body ({why})")),
        Query::Absent => None,
    }?;
    if !grant.is_empty() {
        return Some(Finding::note(
            Requirement::G5,
            "review-thread mutation allowed by an active GH_WRITE_GUARD_ALLOW grant",
            json!({"shape": shape}),
        ));
    }
    Some(Finding::deny(
        Code::G5ReviewThread,
        format!("a hand-rolled review-thread reply or resolve ({shape})"),
        remedy.to_string(),
        json!({"shape": shape, "helper": helper}),
    ))
}
