//! model-tier-guard's face (K10): what the other readers of an act use of this guard. The exec
//! gate hands it a nested agent launch ([`Launch`]), the broker a model named on the wire
//! ([`ModelRequest`]); both get M3's [`Refusal`] or nothing. Which variables a launch's
//! judgement reads ([`reads_var`]) is this guard's fact, kept here.

pub use crate::host::GRANT_VAR;
use crate::host::{Host, MANAGED_SETTINGS_DIR};
use crate::m1_tiers::TierPolicy;
use crate::m3_launch::Requested;
pub use crate::m3_launch::MODEL_VARS;
pub use crate::wire::WireModel;
pub use safety_kernel::Refusal;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One nested launch as the exec gate read it.
pub struct Launch<'a> {
    /// The exec's command line: its model variables as prefix assignments, then the program
    /// and its arguments (M3 reads launches from shell text; an argv reader is still to come).
    pub command: &'a str,
    /// The process's working directory.
    pub cwd: &'a Path,
}

/// One request to the model API as the broker read it: the `model` its body names.
pub struct ModelRequest<'a> {
    /// The model as the body names it (`None`: missing or unreadable, which M3 counts as the
    /// maintainer-only tier).
    pub model: Option<&'a str>,
    /// Where it was read (`POST /v1/messages`), for the reason.
    pub source: &'a str,
}

/// The session's side of a judgement: its launch environment (grants come only from here, K2)
/// and the maintainer's tier policy.
pub struct Session<'a> {
    pub launch_env: &'a BTreeMap<String, String>,
    /// Config `maintainer_only_tiers` (`None`: the default set).
    pub maintainer_only_tiers: Option<&'a [String]>,
}

impl Session<'_> {
    fn host(&self) -> Host {
        Host {
            env: self.launch_env.clone(),
            launch_args: None,
            managed_dir: Some(PathBuf::from(MANAGED_SETTINGS_DIR)),
        }
    }
}

/// Whether an exec's variable `name` is part of a launch's command: the model variables.
pub fn reads_var(name: &str) -> bool {
    name.ends_with("_MODEL") && MODEL_VARS.contains(&name)
}

/// M3 over a nested launch: the models it asks for (its arguments, its `--settings`, its agent
/// definitions, the variables it inherits) judged against the tiers, unless granted.
pub fn judge_launch(launch: &Launch<'_>, session: &Session<'_>) -> Option<Refusal> {
    let host = session.host();
    let mut project: Vec<PathBuf> = host
        .var("CLAUDE_PROJECT_DIR")
        .filter(|p| p.starts_with('/'))
        .map(PathBuf::from)
        .into_iter()
        .collect();
    project.push(launch.cwd.to_path_buf());
    let dirs = crate::agents::AgentDirs::new(&project, &host.user_dirs());
    let reqs = crate::m3_launch::requested_models(
        launch.command,
        Some(launch.cwd),
        &dirs,
        &host.aliases(),
    );
    if reqs.is_empty() {
        return None;
    }
    refusal(
        &reqs,
        "a nested agent launch",
        launch.command,
        session,
        &host,
    )
}

/// M3 over a request on the wire: the model it names, aliases resolved as for a launch.
pub fn judge_model_request(req: &ModelRequest<'_>, session: &Session<'_>) -> Option<Refusal> {
    let host = session.host();
    let reqs: Vec<Requested> = match req.model {
        // The name as written and every target an alias variable gives it (M1's reading).
        Some(m) => crate::model_aliases::possible(m, &host.aliases())
            .into_iter()
            .map(|meaning| Requested {
                model: Some(meaning.model),
                source: req.source.to_string(),
            })
            .collect(),
        None => vec![Requested {
            model: None,
            source: req.source.to_string(),
        }],
    };
    refusal(&reqs, "a model request", req.source, session, &host)
}

/// M3 over one request to a model API as the broker read it (method, path, body: `None` when
/// it was over the broker's bound): every model it asks for judged as [`judge_model_request`]
/// does; `None` for an allowed request and for one that is no model request.
pub fn judge_wire_request(
    method: &str,
    path: &str,
    body: Option<&[u8]>,
    session: &Session<'_>,
) -> Option<Refusal> {
    crate::wire::requested_models(method, path, body)
        .iter()
        .find_map(|m| {
            judge_model_request(
                &ModelRequest {
                    model: m.model.as_deref(),
                    source: &m.source,
                },
                session,
            )
        })
}

/// The models a request to a model API asks for (the wire reader, [`crate::wire`]); empty
/// when it is no model request. `body`: `None` when it was not read whole.
pub fn wire_models(method: &str, path: &str, body: Option<&[u8]>) -> Vec<WireModel> {
    crate::wire::requested_models(method, path, body)
}

/// Whether `method path` is a model request (its body or path names a model), known from the
/// head alone: the broker reads and judges these bodies, and streams every other one through.
pub fn is_model_request(method: &str, path: &str) -> bool {
    !crate::wire::requested_models(method, path, None).is_empty()
}

/// The status the model API states a permission error with (the status of
/// [`api_error_body`]).
pub const API_REFUSAL_STATUS: u16 = 403;

/// A refusal as the model API states an error ([`API_REFUSAL_STATUS`], `permission_error`),
/// so the CLI and the SDKs print the reason.
pub fn api_error_body(refusal: &Refusal) -> String {
    api_error("permission_error", &refusal.reason)
}

/// Any error in the model API's own shape (`{"type":"error","error":{"type":..,"message":..}}`,
/// the message starting `agent-guards: `): one place for the shape, also for the broker's own
/// refusals (`invalid_request_error`, `request_too_large`, `api_error`).
pub fn api_error(error_type: &str, reason: &str) -> String {
    json!({
        "type": "error",
        "error": {"type": error_type, "message": format!("agent-guards: {reason}")},
    })
    .to_string()
}

fn refusal(
    reqs: &[Requested],
    what: &str,
    command: &str,
    session: &Session<'_>,
    host: &Host,
) -> Option<Refusal> {
    let tiers = TierPolicy::from_config(session.maintainer_only_tiers);
    let f = crate::m3_session::judge_requests(what, reqs, &tiers, &host.grant());
    f.deny.map(|reason| Refusal {
        code: f.code.unwrap_or(f.requirement).to_string(),
        reason,
        evidence: json!({"command": command, "finding": f.evidence}),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(env: &[(&str, &str)]) -> BTreeMap<String, String> {
        env.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_request_for_the_maintainer_tier_is_refused_at_the_wire_unless_granted() {
        let plain = session(&[]);
        let s = Session {
            launch_env: &plain,
            maintainer_only_tiers: None,
        };
        let body = |m: &str| format!(r#"{{"model":"{m}","max_tokens":1,"messages":[]}}"#);
        let refused = judge_wire_request(
            "POST",
            "/v1/messages",
            Some(body("claude-fable-5").as_bytes()),
            &s,
        )
        .expect("the tier is refused");
        assert_eq!(refused.code, "M3.launch");
        assert!(
            refused.reason.starts_with("M3.launch"),
            "{}",
            refused.reason
        );
        let api: serde_json::Value = serde_json::from_str(&api_error_body(&refused)).unwrap();
        assert_eq!(api["error"]["type"], "permission_error");
        for allowed in ["claude-haiku-4-5", "claude-sonnet-4-5-20250929"] {
            let b = body(allowed);
            assert_eq!(
                judge_wire_request("POST", "/v1/messages", Some(b.as_bytes()), &s),
                None
            );
        }
        // Unreadable: the maintainer-only tier.
        assert!(judge_wire_request("POST", "/v1/messages", Some(b"{"), &s).is_some());
        // No model request at all, known from the head.
        assert!(is_model_request("POST", "/v1/messages"));
        assert!(!is_model_request("GET", "/v1/models"));
        assert!(!is_model_request("POST", "/v1/oauth/token"));
        assert_eq!(
            judge_wire_request("POST", "/v1/oauth/token", Some(b"{}"), &s),
            None
        );
        // An alias the launch environment points at the tier.
        let aliased = session(&[("ANTHROPIC_DEFAULT_SONNET_MODEL", "claude-fable-5")]);
        let s2 = Session {
            launch_env: &aliased,
            maintainer_only_tiers: None,
        };
        let b = body("sonnet");
        assert!(judge_wire_request("POST", "/v1/messages", Some(b.as_bytes()), &s2).is_some());
        // The grant, from the launch environment only.
        let granted = session(&[(crate::host::GRANT_VAR, "1")]);
        let s3 = Session {
            launch_env: &granted,
            maintainer_only_tiers: None,
        };
        let b = body("claude-fable-5");
        assert_eq!(
            judge_wire_request("POST", "/v1/messages", Some(b.as_bytes()), &s3),
            None
        );
    }
}
