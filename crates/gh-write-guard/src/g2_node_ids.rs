//! G2: a GraphQL mutation with a literal global node id is denied, whether the id is a field
//! value in any flag spelling (`-F id=X`, `-Fid=X`, `--field=id=X`, `--raw-field id=X`) or sits
//! inside the query text. A variable reference (`$ID`, `"$ID"`) is fine.

use crate::analysis::Analysis;
use crate::finding::{Code, Finding};
use command_effects::gh_api::{has_word, Query};
use serde_json::json;

const REMEDY: &str = "Look the id up in the same command, or pass it from a variable captured from a live query; do not paste ids.";

fn url_safe(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Whether `token` is a global node id: 1-5 upper-case letters, `_`, then 12+ URL-safe base64
/// characters, or the legacy `MD` + 12+ alphanumerics. To tell ids from GraphQL enum values
/// (`REQUEST_CHANGES`), the tail must hold a lower-case letter or a digit.
pub fn is_node_id(token: &str) -> bool {
    let mixed = |t: &str| {
        t.chars()
            .any(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    };
    if let Some((prefix, tail)) = token.split_once('_') {
        if (1..=5).contains(&prefix.len())
            && prefix.chars().all(|c| c.is_ascii_uppercase())
            && tail.chars().count() >= 12
            && tail.chars().all(url_safe)
            && mixed(tail)
        {
            return true;
        }
    }
    if let Some(tail) = token.strip_prefix("MD") {
        return tail.len() >= 12 && tail.chars().all(|c| c.is_ascii_alphanumeric()) && mixed(tail);
    }
    false
}

/// Node ids written literally in a text (query document or field value).
pub fn node_ids_in(text: &str) -> Vec<String> {
    text.split(|c: char| !url_safe(c))
        .filter(|t| is_node_id(t))
        .map(str::to_string)
        .collect()
}

/// The remedy of a GraphQL body that cannot be read.
const UNREADABLE_REMEDY: &str = "Write the GraphQL document in the command (`-f query='...'` or a quoted heredoc on stdin) and pass ids from variables captured from a live query.";

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for op in a.ops() {
        // `gh api graphql`, or an HTTP client posting to the GraphQL endpoint.
        let Some((query, fields)) = op.kind.graphql() else {
            continue;
        };
        let at = json!({"unit": op.unit, "invocation": op.invocation});
        out.extend(judge_document(query, fields, &|_| false, at));
    }
    out
}

/// G2 over one GraphQL document and its fields (`-f` values, or a request's variables):
/// a document nobody can read is a typed unknown, a mutation naming a literal node id is
/// refused unless `live(id)`: the id is known to come from a live query (the command text
/// has no such ids; on the wire, ids GitHub itself returned in the session). `at` says where
/// the document was found (merged into the evidence). The command text and the wire
/// ([`crate::wire_api`]) both ask this.
pub(crate) fn judge_document(
    query: &Query,
    fields: &[command_effects::gh_api::Field],
    live: &dyn Fn(&str) -> bool,
    at: serde_json::Value,
) -> Option<Finding> {
    let with_at = |mut v: serde_json::Value| {
        if let (Some(v), Some(at)) = (v.as_object_mut(), at.as_object()) {
            v.extend(at.clone());
        }
        v
    };
    let mutation = match query {
        Query::Text(t) => has_word(t, "mutation"),
        Query::Unreadable(why) => {
            // A document nobody can read before it runs may hold a mutation on a literal
            // id: a typed unknown.
            return Some(Finding::deny(
                Code::G2UnreadableBody,
                format!("a GraphQL request whose document cannot be read ({why})"),
                UNREADABLE_REMEDY,
                with_at(json!({"why": why})),
            ));
        }
        Query::Absent => fields.iter().any(|f| f.key.is_none()),
    };
    if !mutation {
        return None;
    }
    let mut ids: Vec<(String, String)> = Vec::new();
    for f in fields {
        if let (Some(k), Some(v)) = (&f.key, &f.value) {
            if k == "query" {
                continue;
            }
            for id in node_ids_in(v).into_iter().filter(|i| !live(i)) {
                ids.push((format!("field {k}"), id));
            }
        }
    }
    if let Query::Text(q) = query {
        for id in node_ids_in(q).into_iter().filter(|i| !live(i)) {
            ids.push(("query text".into(), id));
        }
    }
    let (place, id) = ids.first()?;
    Some(Finding::deny(
        Code::G2NodeId,
        format!("a GraphQL mutation with a literal node id ({place})"),
        REMEDY,
        with_at(
            json!({"ids": ids.iter().map(|(p, i)| json!({"where": p, "id": i})).collect::<Vec<_>>(), "id": id}),
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_id_shapes() {
        for id in [
            "PRRT_kwDOabc123def",
            "PR_kwDOAbCdEf12345",
            "I_kwDOabcdefghij1",
            "IC_kwDOABCDEFGH12",
            "BOT_kgDOabcdef1234",
            "MDExOlB1bGxSZXF1ZXN0MQ",
        ] {
            assert!(is_node_id(id), "{id}");
        }
        for not in [
            "REQUEST_CHANGES",
            "PR_short",
            "pr_kwDOabc123def",
            "ABCDEF_kwDOabc123def",
            "$ID",
            "PULL_REQUEST_REVIEW",
        ] {
            assert!(!is_node_id(not), "{not}");
        }
        assert_eq!(
            node_ids_in(
                "mutation{resolveReviewThread(input:{threadId:\"PRRT_kwDOabc123def\"}){x}}"
            ),
            vec!["PRRT_kwDOabc123def"]
        );
    }
}
