//! gh-write-guard's face for an API request read off the wire (issue 38's broker; issue 44's
//! third reader), beside [`crate::wire`] for pushes. A REST or GraphQL request to a GitHub host
//! becomes the same [`ApiCall`] the command text's `gh api` becomes, and is judged by the same
//! G2, G3 and G4 code: literal node ids in a mutation (G2), a write to another owner's
//! repository (G3), a write to branch protection or one that moves a branch past its rules
//! (G4). One thing only the wire can ask: a pull request merge (`PUT .../pulls/N/merge`) lands
//! past the base branch's requirements exactly when GitHub says they are not met (an admin's
//! token merges anyway, the `gh pr merge --admin` of the text), so its merge state is an input
//! here ([`MergeState`]), fetched by the caller. And G2 asks, on the wire, where an id came
//! from: every id in a request is literal, so an id counts as "from a live query" when GitHub
//! returned it in the session ([`WireFacts::live_id`], kept by the caller). G1, G5, G6 and G7
//! are not wire questions.

use crate::context::Context;
use crate::finding::Finding;
use crate::world::World;
use command_effects::gh_api::{graphql_json, has_word, rest_path, ApiCall, Field, Query};
use serde_json::json;

/// An API request as the wire states it.
#[derive(Debug, Clone)]
pub struct WireApi {
    /// The host the request went to (`api.github.com`, an enterprise host).
    pub host: String,
    /// The request read as `gh api` reads its arguments.
    pub call: ApiCall,
}

impl WireApi {
    /// The request `method target` (origin-form, query included) to `host` with `body`.
    /// GraphQL is the `graphql` endpoint (`/graphql`, `/api/graphql`); a REST body's top-level
    /// members are its fields (the values rules read: `force`, `branch`, `base`, `ref`).
    pub fn from_request(host: &str, method: &str, target: &str, body: &[u8]) -> WireApi {
        let path = rest_path(target);
        let graphql = path == "graphql" || path == "api/graphql";
        let text = String::from_utf8_lossy(body);
        let (query, fields) = if graphql {
            match body.is_empty() {
                true => (Query::Absent, Vec::new()),
                false => graphql_json(&text),
            }
        } else {
            (Query::Absent, rest_fields(&text))
        };
        WireApi {
            host: host.to_ascii_lowercase(),
            call: ApiCall {
                endpoint: Some(target.to_string()),
                endpoint_dynamic: false,
                endpoint_template: None,
                method: Some(method.to_ascii_uppercase()),
                fields,
                input: false,
                hostname: Some(host.to_string()),
                graphql,
                query,
                silent: false,
            },
        }
    }

    /// Whether the rules count it as a write (a mutation, an unreadable GraphQL body, any REST
    /// method but GET and HEAD).
    pub fn is_write(&self) -> bool {
        self.call.is_write()
    }

    /// A GraphQL `mergePullRequest` mutation (what `gh pr merge` sends, `--admin` or not: the
    /// flag only skips gh's own check of the merge state): `Some` with the pull request's node
    /// id as the request states it (the `pullRequestId` member, else the first node id among
    /// its variables or in its text), `Some(None)` when it states none.
    pub fn graphql_merge(&self) -> Option<Option<String>> {
        let Query::Text(q) = &self.call.query else {
            return None;
        };
        if !self.call.graphql || !has_word(q, "mutation") || !has_word(q, "mergePullRequest") {
            return None;
        }
        let value = |f: &Field| f.value.clone();
        let fields = &self.call.fields;
        let id = fields
            .iter()
            .find(|f| f.key.as_deref() == Some("pullRequestId"))
            .and_then(value)
            .or_else(|| {
                fields
                    .iter()
                    .filter_map(value)
                    .find(|v| crate::g2_node_ids::is_node_id(v))
            })
            .or_else(|| crate::g2_node_ids::node_ids_in(q).into_iter().next());
        Some(id)
    }

    /// The repository a read is about, as the request names it: a REST path `repos/<o>/<r>/...`,
    /// or a GraphQL query's `owner` with `name` (or `repo`) among its variables, else written
    /// literally as `repository(owner: "o", name: "r")`. The ids GitHub answers it with belong
    /// to that repository (the broker keeps them for G3: [`WireFacts::repo_of`]).
    pub fn repository(&self) -> Option<(String, String)> {
        if !self.call.graphql {
            let path = self.call.rest_path()?;
            return match path.split('/').collect::<Vec<_>>()[..] {
                ["repos", o, r, ..] if !o.is_empty() && !r.is_empty() => {
                    Some((o.to_string(), r.to_string()))
                }
                _ => None,
            };
        }
        let var = |k: &str| {
            self.call
                .fields
                .iter()
                .find(|f| f.key.as_deref() == Some(k))
                .and_then(|f| f.value.clone())
        };
        if let (Some(o), Some(r)) = (var("owner"), var("name").or_else(|| var("repo"))) {
            return Some((o, r));
        }
        let Query::Text(q) = &self.call.query else {
            return None;
        };
        literal_repository(q)
    }

    /// `PUT repos/<o>/<r>/pulls/<n>/merge`: the pull request it merges.
    pub fn pull_merge(&self) -> Option<PullRef> {
        if self.call.graphql || self.call.method.as_deref() != Some("PUT") {
            return None;
        }
        let path = self.call.rest_path()?;
        match path.split('/').collect::<Vec<_>>()[..] {
            ["repos", owner, repo, "pulls", n, "merge"] => Some(PullRef {
                owner: owner.to_string(),
                repo: repo.to_string(),
                number: n.parse().ok()?,
            }),
            _ => None,
        }
    }
}

/// `repository(owner: "o", name: "r")` written literally in a GraphQL document (either order).
fn literal_repository(q: &str) -> Option<(String, String)> {
    let at = q.find("repository(")?;
    let args = &q[at + "repository(".len()..];
    let args = &args[..args.find(')')?];
    let value = |key: &str| {
        let rest = &args[args.find(key)? + key.len()..];
        let rest = rest
            .trim_start()
            .strip_prefix(':')?
            .trim_start()
            .strip_prefix('"')?;
        Some(rest[..rest.find('"')?].to_string())
    };
    Some((value("owner")?, value("name")?))
}

/// A pull request by repository and number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRef {
    pub owner: String,
    pub repo: String,
    pub number: u64,
}

/// What GitHub says of a pull request's merge (`mergeable_state` of `GET .../pulls/N`), or why
/// it could not be asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeState {
    /// The state GitHub reported (`clean`, `unstable`, `has_hooks`, `blocked`, `behind`,
    /// `dirty`, `draft`, `unknown`).
    Reported(String),
    /// Not known: the lookup failed (the reason).
    Unknown(String),
}

/// States in which a merge lands without bypassing anything: requirements met (`unstable`:
/// only checks that are not required failed; `has_hooks`: met, with pre-receive hooks).
const MERGEABLE: [&str; 3] = ["clean", "unstable", "has_hooks"];

/// The top-level members of a JSON object body as fields (strings as written, other scalars
/// as JSON text: `true`, `3`); anything else has none.
fn rest_fields(body: &str) -> Vec<Field> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(body) else {
        return Vec::new();
    };
    map.into_iter()
        .filter_map(|(k, v)| {
            let value = match v {
                serde_json::Value::String(s) => s,
                serde_json::Value::Bool(_) | serde_json::Value::Number(_) => v.to_string(),
                _ => return None,
            };
            Some(Field {
                key: Some(k),
                value: Some(value),
                typed: false,
            })
        })
        .collect()
}

/// What the wire knows besides the request: facts the caller looked up or kept.
pub struct WireFacts<'a> {
    /// The merge state of the pull request a merge names (`None`: not asked, judged as not
    /// known).
    pub merge: Option<&'a MergeState>,
    /// Whether a node id came from a live query: GitHub returned it in this session (G2 on the
    /// wire, where every id is literal: the question is where it came from).
    pub live_id: &'a dyn Fn(&str) -> bool,
    /// The repository (owner, name) a node id belongs to, when GitHub returned it in this
    /// session answering a read about that repository: G3 for a mutation that names another
    /// owner's repository only by an id (`gh issue create -R other/repo` on the wire).
    pub repo_of: &'a dyn Fn(&str) -> Option<(String, String)>,
}

/// What G2, G3 and G4 find in `req` for the session `cx` describes: the findings the same
/// call as `gh api` gets. A pull request merge is also judged by its merge state, a GraphQL
/// mutation's node ids by whether GitHub gave them ([`WireFacts`]).
pub fn judge_api(
    req: &WireApi,
    facts: &WireFacts<'_>,
    cx: &Context,
    world: &dyn World,
) -> Vec<Finding> {
    let call = &req.call;
    let mut out = Vec::new();
    if call.graphql {
        out.extend(crate::g2_node_ids::judge_document(
            &call.query,
            &call.fields,
            facts.live_id,
            json!({"host": req.host}),
        ));
    }
    if !call.is_write() {
        return out;
    }
    let label = match call.graphql {
        true => "a GraphQL mutation".to_string(),
        false => format!(
            "{} {}",
            call.method.as_deref().unwrap_or("?"),
            call.rest_path().unwrap_or_default()
        ),
    };
    out.extend(crate::g3_other_owner::check_api(cx, world, call, &label));
    if call.graphql {
        let owned = mutation_ids(call)
            .into_iter()
            .filter_map(|id| (facts.repo_of)(&id).map(|(o, r)| (id, o, r)))
            .collect::<Vec<_>>();
        out.extend(crate::g3_other_owner::check_ids(cx, world, &owned, &label));
    }
    let command = || format!("{label} (on the wire, {})", req.host);
    let site = crate::g4_branch_rules::PushSite {
        world,
        rules: world.rules(),
        dir: None,
        label: &label,
        command: &command,
    };
    let policy = branch_rules::FailClosedPolicy::new(&cx.config.protected_branches);
    out.extend(crate::g4_branch_rules::check_api(
        &site, call, &req.host, &policy,
    ));
    if let Some(pull) = req.pull_merge() {
        let PullRef {
            owner,
            repo,
            number,
        } = &pull;
        let evidence = json!({"repository": format!("{owner}/{repo}"), "pull": number});
        out.extend(judge_merge(
            &format!("{owner}/{repo}#{number}"),
            evidence,
            facts.merge,
        ));
    }
    // `gh pr merge` on the wire: the same question, the pull request named by its node id.
    if let Some(id) = req.graphql_merge() {
        let id = id.unwrap_or_else(|| "(not stated)".into());
        out.extend(judge_merge(&id, json!({"pull": id}), facts.merge));
    }
    out
}

/// The node ids a GraphQL request names, in its variables and its text.
fn mutation_ids(call: &ApiCall) -> Vec<String> {
    let mut ids: Vec<String> = call
        .fields
        .iter()
        .filter_map(|f| f.value.as_deref())
        .flat_map(crate::g2_node_ids::node_ids_in)
        .collect();
    if let Query::Text(q) = &call.query {
        ids.extend(crate::g2_node_ids::node_ids_in(q));
    }
    ids.sort();
    ids.dedup();
    ids
}

/// G4 over a merge of the pull request `pull` (as the request names it): refused unless GitHub
/// reports its requirements met (a state compared without case: GraphQL spells it `CLEAN`).
fn judge_merge(
    pull: &str,
    mut evidence: serde_json::Value,
    merge: Option<&MergeState>,
) -> Option<Finding> {
    let state = match merge {
        Some(MergeState::Reported(s)) if MERGEABLE.iter().any(|m| m.eq_ignore_ascii_case(s)) => {
            return None
        }
        Some(MergeState::Reported(s)) => format!("GitHub reports its merge state as `{s}`"),
        Some(MergeState::Unknown(why)) => format!("its merge state could not be read ({why})"),
        None => "its merge state was not asked".to_string(),
    };
    evidence["merge_state"] = json!(state);
    Some(crate::g4_branch_rules::admin_merge(
        format!("merging pull request {pull} would bypass the base branch's merge requirements: {state}"),
        evidence,
    ))
}

#[cfg(test)]
#[path = "wire_api_tests.rs"]
mod tests;
