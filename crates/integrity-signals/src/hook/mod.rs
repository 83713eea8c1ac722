//! The hook events, wired: what each event reads, which requirement modules judge it, what is
//! recorded and what is answered. Decisions are made by the `i*` modules; this module and one
//! submodule per event only move facts between them, the store and the answer.

mod durable_memory;
pub(crate) use durable_memory::{memory_refused, MEMORY_REMEDY};
mod post_tool_use;
mod pre_tool_use;
mod session_end;
mod stop;

pub use durable_memory::memory_taint;
pub use pre_tool_use::tamper_hits;
pub use session_end::write_report;
pub use stop::latest_results;

use crate::bash_facts;
use crate::i1_signals::Settings;
use crate::i3_tamper::Protected;
use crate::i5_modes::Mode;
use crate::signal::Signal;
use crate::store::Store;
use hook_io::{Answer, Event, HookInput};
use phrase_gate::IntegrityPhrases;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Everything a judgement needs from outside the payload.
pub struct Deps {
    pub config: guard_config::Config,
    /// Built on first use: a PreToolUse on a Read never scans text.
    phrases: std::sync::OnceLock<IntegrityPhrases>,
    pub mode: Mode,
    pub protected: Protected,
    pub home: Option<PathBuf>,
    /// The hook's own values of the variables a command may spell a protected path with
    /// ([`bash_facts::HOOK_VARS`]); a command that reassigns one uses its own value.
    pub shell_vars: Vec<(String, String)>,
    pub project_dir: Option<String>,
    pub store: Result<Store, String>,
    /// Problems with the config, for the user.
    pub notices: Vec<String>,
}

impl Deps {
    /// Builds the dependencies from an environment lookup, the loaded config and the binary's path.
    pub fn new(
        env: &dyn Fn(&str) -> Option<String>,
        loaded: &guard_config::Loaded,
        exe: Option<&Path>,
    ) -> Deps {
        let config = loaded.config.clone();
        let mut notices: Vec<String> = loaded.notice().into_iter().collect();
        let unknown: Vec<String> = config
            .integrity_extra_phrases
            .keys()
            .filter(|k| !phrase_gate::integrity::FAMILIES.contains(&k.as_str()))
            .cloned()
            .collect();
        if !unknown.is_empty() {
            notices.push(format!(
                "agent-guards config: integrity_extra_phrases names unknown families: {}",
                unknown.join(", ")
            ));
        }
        let mode = config.integrity_mode.unwrap_or_default();
        Deps {
            phrases: std::sync::OnceLock::new(),
            mode,
            protected: Protected::from_env(env, exe),
            home: primitives::home::home(env),
            shell_vars: bash_facts::HOOK_VARS
                .iter()
                .filter_map(|n| env(n).map(|v| (n.to_string(), v)))
                .collect(),
            project_dir: env("CLAUDE_PROJECT_DIR").filter(|p| !p.is_empty()),
            store: Store::from_env(env),
            notices,
            config,
        }
    }

    pub fn phrases(&self) -> &IntegrityPhrases {
        self.phrases
            .get_or_init(|| IntegrityPhrases::with_extra(&self.config.integrity_extra_phrases).0)
    }

    fn settings(&self, cwd: Option<&str>) -> Settings {
        Settings::new(
            &self.config,
            self.project_dir.as_deref(),
            cwd,
            self.home.clone(),
        )
    }
}

/// What one event decided and what it recorded.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub answer: Answer,
    pub signals: Vec<Signal>,
    pub audit: Value,
}

/// Judges one payload, records its signals and audit record, and returns the answer.
pub fn run(input: &HookInput, deps: &Deps) -> Verdict {
    let mut v = match input.event {
        Event::PreToolUse => pre_tool_use::pre_tool_use(input, deps),
        Event::PostToolUse | Event::PostToolUseFailure => post_tool_use::post_tool_use(input, deps),
        Event::Stop => stop::stop(input, deps),
        Event::SessionEnd => session_end::session_end(input, deps),
        _ => Verdict {
            answer: Answer::Silent,
            signals: Vec::new(),
            audit: json!({"decision": "ignored", "why": "not an event integrity-signals answers"}),
        },
    };
    let session = input.session_id.as_deref();
    let mut problems = Vec::new();
    match &deps.store {
        Ok(store) => {
            if !v.signals.is_empty() {
                if let Err(e) = store.append_signals(session, &v.signals) {
                    problems.push(format!("signals not recorded: {e}"));
                }
            }
            let mut record = json!({
                "binary": "integrity-signals",
                "event": input.event.name(),
                "session_id": session,
                "tool_use_id": input.tool_use_id,
                "tool_name": input.tool_name,
                "mode": deps.mode.as_str(),
                "signals": v.signals.iter().map(|s| s.kind.id()).collect::<Vec<_>>(),
            });
            merge(&mut record, &v.audit);
            if let Err(e) = store.audit(session, &record) {
                problems.push(format!("audit log not written: {e}"));
            }
        }
        Err(e) => problems.push(format!("no state dir: {e}")),
    }
    // A config problem: in the audit log and to the user, once per session.
    let config_notice = (!deps.notices.is_empty()).then(|| deps.notices.join(" "));
    let state_dir = deps.store.as_ref().ok().map(|s| s.state_dir.as_path());
    let mut notes: Vec<String> =
        session_store::config_notice::once(state_dir, session, "integrity-signals", config_notice)
            .into_iter()
            .collect();
    notes.extend(
        problems
            .into_iter()
            .map(|p| format!("integrity-signals: {p}")),
    );
    if !notes.is_empty() {
        v.answer = v.answer.with_user_note(&notes.join(" "));
    }
    // The OTLP sender (issue 45): decided and started after the answer, behind this record.
    let moment = match input.event {
        Event::SessionEnd => Some(audit_export::sender::Moment::SessionEnd),
        Event::Stop => Some(audit_export::sender::Moment::Later),
        _ => None,
    };
    if let (Some(moment), Some(dir)) = (moment, state_dir) {
        audit_export::sender::start_after_answer(moment, dir.to_path_buf(), deps.config.clone());
    }
    v
}

fn merge(into: &mut Value, from: &Value) {
    if let (Some(a), Some(b)) = (into.as_object_mut(), from.as_object()) {
        for (k, val) in b {
            a.insert(k.clone(), val.clone());
        }
    }
}

fn now_secs() -> f64 {
    session_store::time::unix_now()
}

fn now_text() -> String {
    session_store::time::now_rfc3339()
}
