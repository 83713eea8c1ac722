//! Hook mode: a PreToolUse payload to a [`Context`], the decision against the [`RealWorld`],
//! the audit record, and the deliberate answers when judging fails (fail closed for Bash).

use crate::context::Context;
use crate::finding::Code;
use crate::judge::judge;
use crate::real_world::{LedgerRulesCache, RealWorld, RealWorldConfig};
use branch_rules::cache::{MemoryCache, RulesCache};
use guard_config::Loaded;
use hook_io::runner::FailureContext;
use hook_io::{Answer, FailureCause, HookInput};
use serde_json::{json, Value};
use session_store::Decision;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub const NAME: &str = "gh-write-guard";
/// Default watchdog deadline of a PreToolUse hook (section 0).
pub use guard_config::DEFAULT_HOOK_DEADLINE_MS;
/// Default total deadline of the rules lookup (G4); it is cut to fit the hook's deadline.
pub use guard_config::DEFAULT_RULES_TIMEOUT_MS;

/// Everything hook mode reads from the process, gathered once.
pub struct Process {
    pub loaded: Loaded,
    pub env: BTreeMap<String, String>,
    pub state_dir: Option<PathBuf>,
    pub process_cwd: Option<PathBuf>,
}

impl Process {
    pub fn current() -> Process {
        let env: BTreeMap<String, String> = std::env::vars().collect();
        let lookup = |k: &str| env.get(k).cloned();
        Process {
            loaded: guard_config::load_with(&lookup),
            state_dir: session_store::state_dir(&lookup).ok(),
            process_cwd: std::env::current_dir().ok(),
            env,
        }
    }

    /// The rules lookup deadline (guard-config's, the one place it is worked out).
    pub fn rules_deadline(&self) -> Duration {
        self.loaded.config.rules_deadline()
    }

    /// The watchdog deadline: config `hook_deadline_ms` (guard-config's, the one place).
    pub fn hook_deadline(&self) -> Duration {
        self.loaded.config.hook_deadline()
    }

    /// The API base override (branch-rules' `api_base_override`, the one place it is worked
    /// out).
    pub fn api_base_override(&self) -> Option<String> {
        branch_rules::hosts::api_base_override(&self.env, self.loaded.config.github_api.as_deref())
    }
}

/// Judges one payload. Not a Bash call: silent.
pub fn decide(input: HookInput, process: &Process) -> Answer {
    let mut input = input;
    if input.tool_name.as_deref() != Some("Bash") {
        return Answer::Silent;
    }
    // K3: authority fields asserted in the tool input are stripped before any rule reads it.
    let stripped = input
        .tool_input
        .as_mut()
        .map(safety_kernel::strip_asserted_authority)
        .unwrap_or_default();
    let Some(command) = input.bash_command().map(str::to_string) else {
        return Answer::Silent;
    };
    let cwd = input
        .cwd
        .as_deref()
        .filter(|c| c.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| process.process_cwd.clone())
        .unwrap_or_else(|| PathBuf::from("/"));
    let cx = Context {
        cwd,
        config: process.loaded.config.clone(),
        env: process.env.clone(),
        session_id: input.session_id.clone(),
        tool_use_id: input.tool_use_id.clone(),
    };
    let session = process
        .state_dir
        .as_deref()
        .map(|s| session_store::Session::new(s, input.session_id.as_deref()));
    let cache: Arc<dyn RulesCache + Send + Sync> = match &session {
        Some(s) if s.ensure().is_ok() => Arc::new(LedgerRulesCache::new(s.ledger())),
        _ => Arc::new(MemoryCache::new()),
    };
    // The exec gate judges G3 against the project's origin too, but agent commands do not get
    // `CLAUDE_PROJECT_DIR`: it reads the folder recorded here (best effort).
    if let (Some(s), Some(p)) = (&session, cx.env("CLAUDE_PROJECT_DIR")) {
        let _ = s.record_project_dir(Path::new(p));
    }
    let world = RealWorld::new(RealWorldConfig {
        env: process.env.clone(),
        api_base_override: process.api_base_override(),
        rules_deadline: process.rules_deadline(),
        cache,
    });
    let decision = judge(&command, &cx, &world);
    // A config problem: in the audit log and to the user, once per session (as every hook).
    let notice = session_store::config_notice::once(
        process.state_dir.as_deref(),
        input.session_id.as_deref(),
        NAME,
        process.loaded.notice(),
    );
    let mut audit_error = None;
    if !decision.findings.is_empty() || !stripped.is_empty() || !decision.unread_scripts.is_empty()
    {
        let mut record = decision.audit(&command);
        if let Value::Object(m) = &mut record {
            m.insert("binary".into(), json!(NAME));
            m.insert("time".into(), json!(session_store::time::now_rfc3339()));
            m.insert("session_id".into(), json!(input.session_id));
            m.insert("tool_use_id".into(), json!(input.tool_use_id));
            m.insert("cwd".into(), json!(cx.cwd));
            m.insert(
                "stripped_authority_fields".into(),
                json!(stripped
                    .iter()
                    .map(|s| format!("{s:?}"))
                    .collect::<Vec<_>>()),
            );
            let notes = world.live_rules().last_notes();
            m.insert(
                "rules_lookup".into(),
                json!({"api_base": notes.api_base, "token_source": notes.token_source.map(|t| format!("{t:?}")), "cache_error": notes.cache_error}),
            );
        }
        if let Some(s) = &session {
            if let Err(e) = s.audit().append(&record) {
                audit_error = Some(format!("{NAME}: audit log not written: {e}"));
            }
        }
    }
    let message = match (notice, audit_error) {
        (Some(a), Some(b)) => Some(format!("{a} {b}")),
        (a, b) => a.or(b),
    };
    match decision.reason() {
        Some(reason) => Answer::Deny {
            event: "PreToolUse".into(),
            reason,
            system_message: message,
        },
        None => match message {
            Some(m) => Answer::Notice { system_message: m },
            None => Answer::Silent,
        },
    }
}

/// The answer when judging failed: deny a Bash call (or a payload we could not read, which may
/// be one) with "could not be judged: `<cause>`"; anything else is not ours and passes.
pub fn failure_answer(ctx: &FailureContext, cause: &FailureCause, process: &Process) -> Answer {
    let ours = match &ctx.tool_name {
        Some(t) => t == "Bash",
        None => matches!(cause, FailureCause::Input(_)) || ctx.event.is_none(),
    };
    let record = json!({
        "binary": NAME,
        "time": session_store::time::now_rfc3339(),
        "session_id": ctx.session_id,
        "tool_name": ctx.tool_name,
        "decision": if ours { Decision::DenyUnjudged } else { Decision::AllowUnjudged }.as_str(),
        "requirement": "G0",
        "code": ours.then_some(Code::G0Unjudged),
        "error": cause.to_string(),
    });
    if let Some(state) = &process.state_dir {
        let session = session_store::Session::new(state, ctx.session_id.as_deref());
        if session.ensure().is_ok() {
            let _ = session.audit().append(&record);
        }
    }
    if ours {
        Answer::Deny {
            event: "PreToolUse".into(),
            reason: safety_kernel::clip_reason(&format!(
                "{}: could not be judged: {cause}. Retry the command; if it keeps failing, the maintainer must check {NAME}.",
                Code::G0Unjudged
            )),
            system_message: Some(format!("{NAME}: could not judge a Bash call: {cause}")),
        }
    } else {
        Answer::Silent
    }
}
