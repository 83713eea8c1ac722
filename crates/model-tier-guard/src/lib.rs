//! model-tier-guard: keeps the maintainer-only model tier out of the agent's reach (M1–M6) and
//! records taint at the source (K5) for every guard that refuses things in a tainted session.
//!
//! One binary for several events; [`judge`] reads `hook_event_name` and dispatches:
//!
//! | Event | Tool | Module |
//! |---|---|---|
//! | PreToolUse | `Agent`, `Task` | [`m2_dispatch`] (M2, with M1 and M5) |
//! | PreToolUse | `Bash` | [`m3_launch`] (nested `claude` launches) |
//! | PreToolUse | `Write`, `Edit` | [`m3_files`] (agent definitions, settings) |
//! | PreModelSwitch, UserPromptSubmit | — | [`m3_session`] |
//! | SessionStart, PostModelSwitch | — | [`main_model`] (recorded in the ledger) |
//! | PostToolUse | `Agent`, `Task` | [`m6_verify`] |
//! | PostToolUse | any other | [`m5_taint`] + the `taint` crate (K5) |
//!
//! Rules are pure over typed facts; [`judge`] gathers the facts (ledger, transcript, agent
//! folders, the CLI's command line) through [`host::Host`] and a [`session_store::Session`].

pub mod agents;
pub mod fixtures;
pub mod host;
pub mod m1_tiers;
pub mod m2_dispatch;
pub mod m3_files;
pub mod m3_launch;
pub mod m3_session;
pub mod m5_taint;
pub mod m6_verify;
pub mod main_model;

use hook_io::{Answer, Event, HookInput};
use host::Host;
use m1_tiers::TierPolicy;
use serde_json::{json, Map, Value};
use session_store::Session;
use std::path::PathBuf;
use taint::{TaintPolicy, TaintState};

/// What one rule found: a deny reason (for the model), a warning (for the user), and the
/// evidence (for the audit log).
#[derive(Debug, Clone)]
pub struct Finding {
    pub requirement: &'static str,
    pub deny: Option<String>,
    pub warning: Option<String>,
    pub evidence: Value,
}

/// Everything a judgement may consult besides the payload.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub host: Host,
    pub tiers: TierPolicy,
    pub trusted_mcp_servers: Vec<String>,
    /// The state dir (`None`: neither XDG_STATE_HOME nor HOME is set).
    pub state_dir: Option<PathBuf>,
    /// RFC 3339 time of the call.
    pub now: String,
    /// A config problem to pass on to the user.
    pub config_notice: Option<String>,
}

impl Ctx {
    /// The context of this process: its environment, the maintainer's config, the clock.
    pub fn from_process() -> Ctx {
        let loaded = guard_config::load();
        let host = Host::from_process();
        let mut notice = loaded.notice();
        let tiers = TierPolicy::from_config(loaded.config.maintainer_only_tiers.as_deref());
        if !tiers.ignored.is_empty() {
            let n = format!(
                "agent-guards config: maintainer_only_tiers entries that name no model family were ignored: {}",
                tiers.ignored.join(", ")
            );
            notice = Some(match notice {
                Some(o) => format!("{o}; {n}"),
                None => n,
            });
        }
        let env = |k: &str| host.env.get(k).cloned();
        Ctx {
            state_dir: session_store::state_dir(&env).ok(),
            tiers,
            trusted_mcp_servers: loaded.config.trusted_mcp_servers.clone(),
            now: session_store::time::now_rfc3339(),
            config_notice: notice,
            host,
        }
    }
}

/// A decision and the audit records that explain it.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub answer: Answer,
    pub audit: Vec<Value>,
}

fn is_agent_tool(name: &str) -> bool {
    matches!(name, "Agent" | "Task")
}

/// Judges one payload.
pub fn judge(mut input: HookInput, ctx: &Ctx) -> Verdict {
    let session = ctx
        .state_dir
        .as_deref()
        .map(|s| Session::new(s, input.session_id.as_deref()));
    // K3: authority the model writes into a tool input is removed before any rule reads it.
    let stripped = input
        .tool_input
        .as_mut()
        .map(safety_kernel::strip_asserted_authority)
        .unwrap_or_default();
    let tool = input.tool_name.clone().unwrap_or_default();
    let tool_input = input.tool_input.clone().unwrap_or(Value::Null);
    let mut store_errors: Vec<String> = Vec::new();
    let ledger = || -> Map<String, Value> {
        session
            .as_ref()
            .and_then(|s| s.ledger().read().ok())
            .unwrap_or_default()
    };
    let project = ctx.host.project_dir(input.cwd.as_deref());
    let learn_main = |map: &Map<String, Value>| {
        main_model::learn(
            map,
            input.transcript_path.as_deref(),
            &ctx.host,
            project.as_deref(),
        )
    };
    let grant = ctx.host.grant();

    let (finding, kind) = match (&input.event, tool.as_str()) {
        (Event::PreToolUse, t) if is_agent_tool(t) => {
            let map = ledger();
            let subagent_type = str_of(&tool_input, "subagent_type");
            let dirs = agent_dirs(ctx, input.cwd.as_deref());
            let definition = subagent_type
                .as_deref()
                .filter(|s| !s.is_empty() && *s != "fork")
                .and_then(|s| agents::find(s, &dirs));
            let facts = m2_dispatch::DispatchFacts {
                call_model: str_of(&tool_input, "model"),
                subagent_type,
                definition,
                env_model: ctx
                    .host
                    .var("CLAUDE_CODE_SUBAGENT_MODEL")
                    .map(str::to_string),
                env_force: ctx
                    .host
                    .var("CLAUDE_CODE_SUBAGENT_MODEL_FORCE")
                    .map(str::to_string),
                main: learn_main(&map),
                grant: grant.clone(),
                taint: TaintState::from_ledger(&map),
            };
            (m2_dispatch::decide(&facts, &ctx.tiers), Kind::Pre)
        }
        (Event::PreToolUse, "Bash") => {
            let command = str_of(&tool_input, "command").unwrap_or_default();
            let dirs = agent_dirs(ctx, input.cwd.as_deref());
            let cwd = input.cwd.as_deref().map(std::path::Path::new);
            let reqs = m3_launch::requested_models(&command, cwd, &dirs);
            (
                m3_session::judge_requests("a nested agent launch", &reqs, &ctx.tiers, &grant),
                Kind::Pre,
            )
        }
        (Event::PreToolUse, "Write" | "Edit") => {
            let path = str_of(&tool_input, "file_path").unwrap_or_default();
            let reqs = match m3_files::kind_of(&path) {
                Some(kind) => m3_files::text_after(&tool, &tool_input)
                    .map(|t| m3_files::requested_models(kind, &t))
                    .unwrap_or_default(),
                None => Vec::new(),
            };
            let what = "a file that sets a model";
            let mut f = m3_session::judge_requests(what, &reqs, &ctx.tiers, &grant);
            f.evidence["file_path"] = json!(path);
            (f, Kind::Pre)
        }
        (Event::PreModelSwitch, _) => {
            let raw = &input.raw;
            let f = m3_session::switch(
                raw.get("requested_model").and_then(Value::as_str),
                raw.get("to_model").and_then(Value::as_str),
                &ctx.tiers,
                &grant,
            );
            (f, Kind::Switch)
        }
        (Event::UserPromptSubmit, _) => {
            let main = learn_main(&ledger());
            (
                m3_session::prompt(main.as_ref(), &ctx.tiers, &grant),
                Kind::Prompt,
            )
        }
        (Event::SessionStart | Event::PostModelSwitch, _) => {
            let model = match input.event {
                Event::SessionStart => input.model.clone(),
                _ => input
                    .raw
                    .get("to_model")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            };
            let source = input.event.name().to_string();
            if let (Some(m), Some(s)) = (model.as_deref().filter(|m| !m.is_empty()), &session) {
                let entry = main_model::ledger_value(m, &source, &ctx.now);
                if let Err(e) = s.ledger().update(|map| {
                    map.insert(main_model::LEDGER_KEY.into(), entry);
                }) {
                    store_errors.push(e.to_string());
                }
            }
            let f = Finding {
                requirement: "M3",
                deny: None,
                warning: None,
                evidence: json!({"recorded_main_model": model, "source": source}),
            };
            (f, Kind::Record)
        }
        (Event::PostToolUse, t) if is_agent_tool(t) => {
            let map = ledger();
            let response = input.tool_response.clone().unwrap_or(Value::Null);
            let f = m6_verify::verify(
                &response,
                learn_main(&map).as_ref(),
                &TaintState::from_ledger(&map),
                &ctx.tiers,
                &grant,
            );
            (f, Kind::Post)
        }
        (Event::PostToolUse, t) => {
            let own = input
                .cwd
                .as_deref()
                .and_then(|c| m5_taint::origin_owner(std::path::Path::new(c)));
            let policy = TaintPolicy::new(ctx.trusted_mcp_servers.clone(), own);
            let source = taint::source_of(t, &tool_input, &policy);
            let mut evidence = json!({"taint_source": null});
            if let (Some(src), Some(s)) = (&source, &session) {
                evidence = json!({"taint_source": {"kind": src.kind.as_str(), "tool": src.tool, "detail": src.detail}});
                if let Err(e) = taint::record(s, src, input.tool_use_id.as_deref(), &ctx.now) {
                    store_errors.push(e.to_string());
                }
            }
            let f = Finding {
                requirement: "K5",
                deny: None,
                warning: None,
                evidence,
            };
            // Only sources are worth a record; other tools pass silently.
            if source.is_none() {
                return Verdict {
                    answer: silent_or_notice(ctx.config_notice.clone()),
                    audit: Vec::new(),
                };
            }
            (f, Kind::Record)
        }
        _ => {
            return Verdict {
                answer: silent_or_notice(ctx.config_notice.clone()),
                audit: Vec::new(),
            }
        }
    };
    let decision = match (&finding.deny, kind) {
        (Some(_), Kind::Prompt) => "block",
        (Some(_), _) => "deny",
        (None, Kind::Post) if finding.warning.is_some() => "critical",
        (None, Kind::Record) => "record",
        (None, _) => "allow",
    };
    let mut record = json!({
        "binary": "model-tier-guard",
        "event": input.event.name(),
        "session_id": input.session_id,
        "tool_use_id": input.tool_use_id,
        "tool_name": input.tool_name,
        "agent_id": input.agent_id,
        "requirement": finding.requirement,
        "decision": decision,
        "reason": finding.deny,
        "warning": finding.warning,
        "evidence": finding.evidence,
        "time": ctx.now,
    });
    if !stripped.is_empty() {
        record["k3_stripped"] = json!(stripped.iter().map(|s| s.path.clone()).collect::<Vec<_>>());
    }
    if !store_errors.is_empty() {
        record["store_errors"] = json!(store_errors);
    }
    let mut user_notes: Vec<String> = Vec::new();
    if let Some(w) = &finding.warning {
        user_notes.push(w.clone());
    }
    if let Some(n) = &ctx.config_notice {
        user_notes.push(n.clone());
    }
    for e in &store_errors {
        user_notes.push(format!("model-tier-guard: session ledger not updated: {e}"));
    }
    let message = (!user_notes.is_empty()).then(|| user_notes.join(" "));
    let answer = match (finding.deny, kind) {
        (Some(reason), Kind::Prompt) => Answer::Block {
            reason,
            system_message: message,
        },
        (Some(reason), Kind::Switch) => Answer::Deny {
            event: "PreModelSwitch".into(),
            reason,
            system_message: message,
        },
        (Some(reason), _) => Answer::Deny {
            event: "PreToolUse".into(),
            reason,
            system_message: message,
        },
        (None, _) => silent_or_notice(message),
    };
    Verdict {
        answer,
        audit: vec![record],
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Pre,
    Switch,
    Prompt,
    Record,
    Post,
}

fn silent_or_notice(message: Option<String>) -> Answer {
    match message {
        Some(m) => Answer::Notice { system_message: m },
        None => Answer::Silent,
    }
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn agent_dirs(ctx: &Ctx, cwd: Option<&str>) -> agents::AgentDirs {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(p) = ctx
        .host
        .var("CLAUDE_PROJECT_DIR")
        .filter(|p| p.starts_with('/'))
    {
        dirs.push(PathBuf::from(p));
    }
    if let Some(c) = cwd.filter(|c| c.starts_with('/')) {
        dirs.push(PathBuf::from(c));
    }
    agents::AgentDirs::new(&dirs, ctx.host.home().as_deref())
}

/// Appends the verdict's audit records to the session's audit log.
pub fn write_audit(ctx: &Ctx, session_id: Option<&str>, records: &[Value]) -> Result<(), String> {
    if records.is_empty() {
        return Ok(());
    }
    let state = ctx
        .state_dir
        .as_deref()
        .ok_or("no state dir (HOME and XDG_STATE_HOME unset)")?;
    let log = Session::new(state, session_id).audit();
    for r in records {
        log.append(r).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The answer when judging failed: PreToolUse and PreModelSwitch fail closed (the input looks
/// like what this guard guards); every other event fails open with the cause shown to the user.
pub fn failure_answer(event: Option<&Event>, tool: Option<&str>, cause: &str) -> Answer {
    let reason = safety_kernel::feedback::reason(
        "M2",
        &format!("could not be judged: {cause}"),
        "Retry the call; if it keeps failing, the maintainer must look at model-tier-guard.",
    );
    match event {
        Some(Event::PreModelSwitch) => Answer::Deny {
            event: "PreModelSwitch".into(),
            reason,
            system_message: None,
        },
        Some(Event::PreToolUse) => {
            let ours =
                tool.is_none_or(|t| matches!(t, "Agent" | "Task" | "Bash" | "Write" | "Edit"));
            if ours {
                Answer::Deny {
                    event: "PreToolUse".into(),
                    reason,
                    system_message: None,
                }
            } else {
                Answer::Silent
            }
        }
        // Unreadable input: we cannot tell which event it was; a PreToolUse deny is the safe shape.
        None => Answer::Deny {
            event: "PreToolUse".into(),
            reason,
            system_message: None,
        },
        Some(_) => Answer::Notice {
            system_message: format!("model-tier-guard could not judge this event: {cause}"),
        },
    }
}
