//! model-tier-guard's face (K10): what the other readers of an act use of this guard. The exec
//! gate hands it a nested agent launch ([`Launch`]), the broker a model named on the wire
//! ([`ModelRequest`]); both get M3's [`Refusal`] or nothing. Which variables a launch's
//! judgement reads ([`reads_var`]) is this guard's fact, kept here.

use crate::host::{Host, MANAGED_SETTINGS_DIR};
use crate::m1_tiers::TierPolicy;
use crate::m3_launch::Requested;
pub use crate::m3_launch::MODEL_VARS;
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
