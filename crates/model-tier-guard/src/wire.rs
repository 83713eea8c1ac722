//! M3's wire reader (issue 39): the models a request to a model API asks for, read from the
//! request itself, the one fact no launcher can disguise (a copy of the CLI, `node cli.js`, a
//! `--settings` file rewritten after the exec was judged, a script calling the API: each ends in
//! a request whose body or path names the model). The broker hands each request to a GitHub or
//! model host here through the face ([`crate::face::judge_wire_request`]).
//!
//! Read as the APIs define them:
//! - Anthropic's Messages API (and an `ANTHROPIC_BASE_URL` with a path prefix: the endpoint is
//!   the path's end): `POST .../v1/messages`, `.../v1/messages/count_tokens`, `.../v1/complete`
//!   name the model in the body's `model`; `.../v1/messages/batches` in each
//!   `requests[].params.model`.
//! - Amazon Bedrock: `POST /model/{modelId}/invoke` (and `invoke-with-response-stream`,
//!   `converse`, `converse-stream`), the id percent-encoded in the path.
//! - Google Vertex AI: `POST .../publishers/anthropic/models/{model}:rawPredict` (and
//!   `:streamRawPredict`, `:countTokens`).
//!
//! Anything else (the CLI's token refresh, the models list, a `GET`) names no model and is not
//! a model request. A model request whose model cannot be read (a body that is not JSON, over
//! the broker's bound, a `model` that is not a string) asks for an unknown model, which M3
//! counts as the maintainer-only tier.

use serde_json::Value;

/// One model a request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireModel {
    /// The model as the request names it; `None`: unreadable.
    pub model: Option<String>,
    /// Where it was read (`POST /v1/messages`), for the reason and the evidence.
    pub source: String,
}

/// Which model endpoint a request goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    /// The body's `model`.
    BodyModel,
    /// Each `requests[].params.model` of a message batch.
    Batch,
}

/// The endpoints whose body names the model, by the end of the path.
const BODY_ENDPOINTS: [(&str, Endpoint); 4] = [
    ("/v1/messages", Endpoint::BodyModel),
    ("/v1/messages/count_tokens", Endpoint::BodyModel),
    ("/v1/complete", Endpoint::BodyModel),
    ("/v1/messages/batches", Endpoint::Batch),
];

/// Bedrock's runtime operations on a model.
const BEDROCK_OPERATIONS: [&str; 4] = [
    "invoke",
    "invoke-with-response-stream",
    "converse",
    "converse-stream",
];

/// Vertex AI's methods on a publisher model.
const VERTEX_METHODS: [&str; 3] = ["rawPredict", "streamRawPredict", "countTokens"];

/// The models `method path` with `body` asks for; empty when it is no model request.
/// `body`: `None` when it was not read whole (over the bound).
pub fn requested_models(method: &str, path: &str, body: Option<&[u8]>) -> Vec<WireModel> {
    if !method.eq_ignore_ascii_case("POST") {
        return Vec::new();
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let source = format!("POST {path}");
    if let Some(model) = bedrock_model(path).or_else(|| vertex_model(path)) {
        return vec![WireModel {
            model: Some(model),
            source,
        }];
    }
    let trimmed = path.trim_end_matches('/');
    let Some((_, endpoint)) = BODY_ENDPOINTS.iter().find(|(e, _)| trimmed.ends_with(e)) else {
        return Vec::new();
    };
    let json: Option<Value> = body.and_then(|b| serde_json::from_slice(b).ok());
    let unreadable = || {
        vec![WireModel {
            model: None,
            source: source.clone(),
        }]
    };
    let Some(json) = json else {
        return unreadable();
    };
    match endpoint {
        Endpoint::BodyModel => vec![WireModel {
            model: json.get("model").and_then(Value::as_str).map(String::from),
            source,
        }],
        Endpoint::Batch => {
            let Some(requests) = json.get("requests").and_then(Value::as_array) else {
                return unreadable();
            };
            let models: Vec<WireModel> = requests
                .iter()
                .map(|r| WireModel {
                    model: r
                        .pointer("/params/model")
                        .and_then(Value::as_str)
                        .map(String::from),
                    source: source.clone(),
                })
                .collect();
            if models.is_empty() {
                return unreadable();
            }
            models
        }
    }
}

/// `/model/{modelId}/{operation}`: the id, percent-decoded.
fn bedrock_model(path: &str) -> Option<String> {
    let rest = path.strip_prefix("/model/")?;
    let (id, op) = rest.rsplit_once('/')?;
    (BEDROCK_OPERATIONS.contains(&op) && !id.is_empty()).then(|| percent_decode(id))
}

/// `.../publishers/anthropic/models/{model}:{method}`.
fn vertex_model(path: &str) -> Option<String> {
    let (_, rest) = path.rsplit_once("/publishers/anthropic/models/")?;
    let (model, method) = rest.rsplit_once(':')?;
    (VERTEX_METHODS.contains(&method) && !model.is_empty() && !model.contains('/'))
        .then(|| percent_decode(model))
}

/// `%XX` sequences decoded (an invalid one kept as written).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models(method: &str, path: &str, body: &str) -> Vec<Option<String>> {
        requested_models(method, path, Some(body.as_bytes()))
            .into_iter()
            .map(|m| m.model)
            .collect()
    }

    #[test]
    fn the_messages_api_names_the_model_in_its_body() {
        let body = r#"{"model":"claude-fable-5","max_tokens":10,"stream":true,"messages":[]}"#;
        assert_eq!(
            models("POST", "/v1/messages", body),
            [Some("claude-fable-5".into())]
        );
        assert_eq!(
            models("POST", "/v1/messages?beta=true", body),
            [Some("claude-fable-5".into())]
        );
        assert_eq!(
            models("POST", "/v1/messages/count_tokens", body),
            [Some("claude-fable-5".into())]
        );
        // A base URL with a path prefix: the endpoint is the path's end.
        assert_eq!(
            models("POST", "/anthropic/v1/messages", body),
            [Some("claude-fable-5".into())]
        );
        let batch = r#"{"requests":[{"custom_id":"a","params":{"model":"claude-haiku-4-5"}},
                                    {"custom_id":"b","params":{"model":"claude-fable-5"}}]}"#;
        assert_eq!(
            models("POST", "/v1/messages/batches", batch),
            [
                Some("claude-haiku-4-5".into()),
                Some("claude-fable-5".into())
            ]
        );
    }

    #[test]
    fn a_model_request_whose_model_cannot_be_read_asks_for_an_unknown_model() {
        for body in ["not json", r#"{"model":5}"#, r#"{"messages":[]}"#] {
            assert_eq!(models("POST", "/v1/messages", body), [None], "{body}");
        }
        assert_eq!(
            requested_models("POST", "/v1/messages", None)
                .into_iter()
                .map(|m| m.model)
                .collect::<Vec<_>>(),
            [None],
            "a body over the bound"
        );
        assert_eq!(
            models("POST", "/v1/messages/batches", r#"{"requests":[]}"#),
            [None]
        );
    }

    #[test]
    fn bedrock_and_vertex_name_the_model_in_the_path() {
        assert_eq!(
            models(
                "POST",
                "/model/us.anthropic.claude-opus-4-20250514-v1%3A0/invoke-with-response-stream",
                "{}"
            ),
            [Some("us.anthropic.claude-opus-4-20250514-v1:0".into())]
        );
        assert_eq!(
            models(
                "POST",
                "/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-fable-5@20261001:streamRawPredict",
                "{}"
            ),
            [Some("claude-fable-5@20261001".into())]
        );
    }

    #[test]
    fn what_names_no_model_is_no_model_request() {
        for (method, path) in [
            ("GET", "/v1/models"),
            ("GET", "/v1/messages/batches/msgbatch_1"),
            ("POST", "/v1/oauth/token"),
            ("POST", "/api/oauth/claude_cli/create_api_key"),
            ("POST", "/v1/messages/batches/msgbatch_1/cancel"),
            ("POST", "/model/x/list"),
        ] {
            assert!(
                requested_models(method, path, Some(b"{\"model\":\"fable\"}")).is_empty(),
                "{method} {path}"
            );
        }
    }
}
