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
//! folders, the CLI's command line and settings) through [`host::Host`], [`host::ConfigFiles`]
//! and a [`session_store::Session`].

pub mod agents;
pub mod codes;
pub mod face;
pub mod fixtures;
pub mod front_matter;
pub mod host;
pub mod launch_config;
pub mod m1_tiers;
pub mod m2_dispatch;
pub mod m3_bash_files;
pub mod m3_files;
pub mod m3_launch;
pub mod m3_session;
pub mod m5_taint;
pub mod m6_verify;
pub mod main_model;
pub mod model_aliases;
pub mod skills;
#[cfg(test)]
mod test_files;
pub mod wire;

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
    /// The sub-code of the deny or critical warning ([`codes`]); `None` when nothing fired.
    pub code: Option<&'static str>,
    pub deny: Option<String>,
    pub warning: Option<String>,
    pub evidence: Value,
}

impl Finding {
    /// A finding of `requirement` that refuses nothing (yet).
    pub fn quiet(requirement: &'static str, evidence: Value) -> Finding {
        Finding {
            requirement,
            code: None,
            deny: None,
            warning: None,
            evidence,
        }
    }

    /// Refuses with `code` (its requirement becomes the finding's); `reason` starts with the code.
    pub fn refuse(&mut self, code: &'static str, reason: String) {
        self.requirement = codes::requirement(code);
        self.code = Some(code);
        self.deny = Some(reason);
    }
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

/// One call being judged: the payload (authority stripped), its session and what went wrong
/// with the store along the way.
struct Call<'a> {
    input: &'a HookInput,
    ctx: &'a Ctx,
    session: Option<Session>,
    tool: String,
    tool_input: Value,
    grant: safety_kernel::Grant,
    store_errors: Vec<String>,
}

impl Call<'_> {
    /// The session ledger. One that cannot be read counts as tainted: a lost taint must not
    /// let a session escalate.
    fn ledger(&mut self) -> Map<String, Value> {
        let Some(s) = &self.session else {
            return Map::new();
        };
        match s.ledger().read() {
            Ok(m) => m,
            Err(e) => {
                self.store_errors.push(e.to_string());
                let mut m = Map::new();
                m.insert(
                    taint::LEDGER_KEY.into(),
                    json!({"tainted": true, "count": 1}),
                );
                m
            }
        }
    }

    /// The maintainer's trust (K5): trusted MCP servers and the owner of `origin` around `cwd`.
    fn taint_policy(&self) -> TaintPolicy {
        let own = self
            .input
            .cwd
            .as_deref()
            .and_then(|c| m5_taint::origin_owner(std::path::Path::new(c)));
        TaintPolicy::new(self.ctx.trusted_mcp_servers.clone(), own)
    }

    /// The ledger, with taint the transcript shows when the ledger says clean (a ledger the
    /// agent removed or rewrote must not untaint the session); such taint is recorded again.
    /// Used where taint decides (M5, M6).
    fn ledger_and_transcript(&mut self) -> Map<String, Value> {
        let mut map = self.ledger();
        if TaintState::from_ledger(&map).tainted {
            return map;
        }
        let transcript = self
            .input
            .transcript_path
            .as_deref()
            .map(std::path::Path::new);
        let policy = self.taint_policy();
        let Some((src, id)) = transcript.and_then(|t| taint::transcript_source(t, &policy)) else {
            // Recorded state lost (a taint that could not be written, a removed ledger): fail
            // closed (issue 47).
            if let Some(why) = self
                .session
                .as_ref()
                .and_then(|s| taint::state_lost(s, transcript))
            {
                map.insert(
                    taint::LEDGER_KEY.into(),
                    json!({"tainted": true, "count": 1, "first": {"tool": "ledger", "detail": why}}),
                );
            }
            return map;
        };
        if let Some(s) = &self.session {
            if let Err(e) = taint::record(s, &src, Some(&id), &self.ctx.now) {
                self.store_errors.push(e.to_string());
            }
        }
        map.insert(
            taint::LEDGER_KEY.into(),
            json!({"tainted": true, "count": 1, "first": {
                "tool": src.tool, "kind": src.kind.as_str(), "detail": src.detail,
                "tool_use_id": id, "from": "transcript"}}),
        );
        map
    }

    fn learn_main(&self, map: &Map<String, Value>) -> main_model::MainKnowledge {
        let project = self.ctx.host.project_dir(self.input.cwd.as_deref());
        main_model::learn(
            map,
            self.input.transcript_path.as_deref(),
            &self.ctx.host,
            project.as_deref(),
            &host::Fs,
        )
    }

    fn agent_dirs(&self) -> agents::AgentDirs {
        agents::AgentDirs::new(&self.project_dirs(), &self.ctx.host.user_dirs())
    }

    fn skill_dirs(&self) -> skills::SkillDirs {
        skills::SkillDirs::new(&self.project_dirs(), &self.ctx.host.user_dirs())
    }

    /// M3: a skill or slash command whose front matter names a model (PreToolUse `Skill` /
    /// `SlashCommand`, or a prompt that starts with `/name`).
    fn skill_invocation(&self, name: &str) -> Finding {
        let reqs = skills::requested_models(name, &self.skill_dirs());
        let reqs = m3_launch::through_aliases(reqs, &self.ctx.host.aliases());
        let mut f = m3_session::judge_requested(
            codes::M3_SKILL,
            "a skill or slash command that runs",
            &reqs,
            &self.ctx.tiers,
            &self.grant,
        );
        f.evidence["invoked"] = json!(name);
        f
    }

    /// The name a `Skill` or `SlashCommand` call invokes.
    fn invoked_name(&self) -> Option<String> {
        let raw = self
            .str_input("skill")
            .or_else(|| self.str_input("command"))
            .or_else(|| self.str_input("name"))?;
        let raw = raw.trim();
        match raw.strip_prefix('/') {
            Some(_) => skills::invoked_by_prompt(raw).map(str::to_string),
            None => raw.split_whitespace().next().map(str::to_string),
        }
    }

    fn project_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        if let Some(p) = self
            .ctx
            .host
            .var("CLAUDE_PROJECT_DIR")
            .filter(|p| p.starts_with('/'))
        {
            dirs.push(PathBuf::from(p));
        }
        if let Some(c) = self.input.cwd.as_deref().filter(|c| c.starts_with('/')) {
            dirs.push(PathBuf::from(c));
        }
        dirs
    }

    fn str_input(&self, key: &str) -> Option<String> {
        self.tool_input
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    /// M2: PreToolUse Agent/Task.
    fn dispatch(&mut self) -> Finding {
        let map = self.ledger_and_transcript();
        let subagent_type = self.str_input("subagent_type");
        let definition = subagent_type
            .as_deref()
            .filter(|s| !s.is_empty() && *s != "fork")
            .and_then(|s| agents::find(s, &self.agent_dirs()));
        let host = &self.ctx.host;
        let mut facts = m2_dispatch::DispatchFacts {
            call_model: self.str_input("model"),
            subagent_type,
            definition,
            env_model: host.var("CLAUDE_CODE_SUBAGENT_MODEL").map(str::to_string),
            env_force: host
                .var("CLAUDE_CODE_SUBAGENT_MODEL_FORCE")
                .map(str::to_string),
            aliases: host.aliases(),
            main: main_model::MainKnowledge::Unknown(
                "not looked up: nothing inherits it and the session is not tainted".into(),
            ),
            grant: self.grant.clone(),
            taint: TaintState::from_ledger(&map),
        };
        // The main model (a transcript read) only matters when it may run or be compared.
        if facts.taint.tainted
            || m2_dispatch::candidates(&facts)
                .iter()
                .any(|c| c.inherits_main)
        {
            facts.main = self.learn_main(&map);
        }
        m2_dispatch::decide(&facts, &self.ctx.tiers)
    }

    /// M3: PreToolUse Bash.
    fn nested_launch(&mut self) -> Finding {
        let command = self.str_input("command").unwrap_or_default();
        let cwd = self.input.cwd.as_deref().map(std::path::Path::new);
        let home = self.ctx.host.home();
        let at = cwd.map(|cwd| m3_launch::ScriptPlaces {
            cwd,
            home: home.as_deref(),
            cdpath: self.ctx.host.var("CDPATH"),
            written: &[],
        });
        let text = match at {
            Some(at) => m3_launch::with_sourced(&command, at),
            None => command.clone(),
        };
        let aliases = self.ctx.host.aliases();
        let mut reqs = m3_launch::requested_models(&text, cwd, &self.agent_dirs(), &aliases);
        let mut past_bound = Vec::new();
        if let Some(at) = at {
            let (in_scripts, past) =
                m3_launch::requested_in_scripts(&command, at, &self.agent_dirs(), &aliases);
            reqs.extend(in_scripts);
            past_bound = past;
        }
        let mut f = m3_session::judge_requested(
            codes::M3_LAUNCH,
            "a nested agent launch",
            &reqs,
            &self.ctx.tiers,
            &self.grant,
        );
        if let (None, Some(path), false) = (&f.deny, past_bound.first(), self.grant.is_granted()) {
            f.refuse(
                codes::M3_PAST_BOUND,
                safety_kernel::feedback::reason(
                    codes::M3_PAST_BOUND,
                    &format!("`{path}` is past what is read (more than {} scripts deep, or over {} KiB), so whether it launches the maintainer-only tier is unknown", command_effects::scripts::MAX_SCRIPT_DEPTH, command_effects::scripts::MAX_SCRIPT_BYTES / 1024),
                    "Run the innermost script directly, or split a script that large.",
                ),
            );
            f.evidence["past_bound"] = json!(past_bound);
        }
        if f.deny.is_none() {
            // The same files Write/Edit are judged on, written by the shell.
            let home = self.ctx.host.home();
            let config_dir = self
                .ctx
                .host
                .var("CLAUDE_CONFIG_DIR")
                .and(self.ctx.host.user_config_dir());
            let places = m3_bash_files::Places {
                cwd,
                home: home.as_deref(),
                config_dir: config_dir.as_deref(),
            };
            let written = m3_bash_files::requested_models(&command, places);
            let written = m3_launch::through_aliases(written, &self.ctx.host.aliases());
            let w = m3_session::judge_requested(
                codes::M3_BASH_FILE,
                "a Bash command that writes a file that sets a model",
                &written,
                &self.ctx.tiers,
                &self.grant,
            );
            if w.deny.is_some() {
                return w;
            }
        }
        if f.deny.is_none() && !reqs.is_empty() {
            let map = self.ledger_and_transcript();
            let taint = TaintState::from_ledger(&map);
            if taint.tainted {
                let main = self.learn_main(&map);
                if let Some(r) = m3_session::launch_escalation(&reqs, &main, true) {
                    f.refuse(codes::M5_LAUNCH, r);
                    f.evidence["taint_first"] = taint.first.unwrap_or(Value::Null);
                }
            }
        }
        f
    }

    /// M3: PreToolUse Write/Edit.
    fn file_write(&self) -> Finding {
        let path = self.str_input("file_path").unwrap_or_default();
        let config_dir = self
            .ctx
            .host
            .var("CLAUDE_CONFIG_DIR")
            .and(self.ctx.host.user_config_dir());
        let reqs = match m3_files::kind_of(&path, config_dir.as_deref()) {
            Some(kind) => m3_files::text_after(&self.tool, &self.tool_input)
                .map(|t| {
                    let mut r = m3_files::requested_models(kind, &t);
                    r.extend(self.main_agent_models(kind, &t));
                    r
                })
                .unwrap_or_default(),
            None => Vec::new(),
        };
        // The CLI that reads the file resolves its aliases through its own environment.
        let reqs = m3_launch::through_aliases(reqs, &self.ctx.host.aliases());
        let what = "a file that sets a model";
        let mut f =
            m3_session::judge_requested(codes::M3_FILE, what, &reqs, &self.ctx.tiers, &self.grant);
        f.evidence["file_path"] = json!(path);
        f
    }

    /// A settings file's `agent` key runs the main thread as that agent: its definition's model
    /// is what the file sets.
    fn main_agent_models(&self, kind: m3_files::FileKind, text: &str) -> Vec<m3_launch::Requested> {
        if kind != m3_files::FileKind::Settings {
            return Vec::new();
        }
        let Some(name) = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| v.get("agent").and_then(Value::as_str).map(str::to_string))
        else {
            return Vec::new();
        };
        agents::find(&name, &self.agent_dirs())
            .and_then(|d| {
                let model = d.model.filter(|m| !m.eq_ignore_ascii_case("inherit"))?;
                Some(m3_launch::Requested {
                    model: Some(model),
                    source: format!("the settings `agent` {name:?}: {}", d.path.display()),
                })
            })
            .into_iter()
            .collect()
    }

    /// M3: SessionStart `model` / PostModelSwitch `to_model` into the ledger.
    fn record_main_model(&mut self) -> Finding {
        let model = match self.input.event {
            Event::SessionStart => self.input.model.clone(),
            _ => self
                .input
                .raw
                .get("to_model")
                .and_then(Value::as_str)
                .map(str::to_string),
        };
        let source = self.input.event.name().to_string();
        // The session's ledger exists from its first hook on: one missing later was removed
        // (taint::state_lost).
        if let (Event::SessionStart, Some(s)) = (&self.input.event, &self.session) {
            if let Err(e) = taint::open_session(s, &self.ctx.now) {
                self.store_errors.push(e.to_string());
            }
        }
        if let (Some(m), Some(s)) = (model.as_deref().filter(|m| !m.is_empty()), &self.session) {
            let entry = main_model::ledger_value(m, &source, &self.ctx.now);
            if let Err(e) = s.ledger().update(|map| {
                map.insert(main_model::LEDGER_KEY.into(), entry);
            }) {
                self.store_errors.push(e.to_string());
            }
        }
        Finding::quiet(
            "M3",
            json!({"recorded_main_model": model, "source": source}),
        )
    }

    /// M6: PostToolUse Agent/Task.
    fn verify_after(&mut self) -> Finding {
        let map = self.ledger_and_transcript();
        let response = self.input.tool_response.clone().unwrap_or(Value::Null);
        m6_verify::verify(
            &response,
            &self.learn_main(&map),
            &TaintState::from_ledger(&map),
            &self.ctx.tiers,
            &self.grant,
        )
    }

    /// K5: PostToolUse of any other tool. `None` when the tool does not taint.
    fn record_taint(&mut self) -> Option<Finding> {
        let policy = self.taint_policy();
        let src = taint::source_of(&self.tool, &self.tool_input, &policy)?;
        if let Some(s) = &self.session {
            let id = self.input.tool_use_id.as_deref();
            if let Err(e) = taint::record(s, &src, id, &self.ctx.now) {
                self.store_errors.push(e.to_string());
            }
        }
        Some(Finding::quiet(
            "K5",
            json!({"taint_source": {"kind": src.kind.as_str(), "tool": src.tool, "detail": src.detail}}),
        ))
    }
}

/// Judges one payload.
pub fn judge(mut input: HookInput, ctx: &Ctx) -> Verdict {
    // K3: authority the model writes into a tool input is removed before any rule reads it.
    let stripped = input
        .tool_input
        .as_mut()
        .map(safety_kernel::strip_asserted_authority)
        .unwrap_or_default();
    let mut call = Call {
        session: ctx
            .state_dir
            .as_deref()
            .map(|s| Session::new(s, input.session_id.as_deref())),
        tool: input.tool_name.clone().unwrap_or_default(),
        tool_input: input.tool_input.clone().unwrap_or(Value::Null),
        grant: ctx.host.grant(),
        store_errors: Vec::new(),
        input: &input,
        ctx,
    };
    let tool = call.tool.clone();
    let judged = match (&input.event, tool.as_str()) {
        (Event::PreToolUse, t) if is_agent_tool(t) => Some((call.dispatch(), Kind::Pre)),
        (Event::PreToolUse, "Bash") => Some((call.nested_launch(), Kind::Pre)),
        (Event::PreToolUse, "Write" | "Edit") => Some((call.file_write(), Kind::Pre)),
        (Event::PreToolUse, "Skill" | "SlashCommand") => {
            let f = match call.invoked_name() {
                Some(name) => call.skill_invocation(&name),
                None => call.skill_invocation(""),
            };
            Some((f, Kind::Pre))
        }
        (Event::PreModelSwitch, _) => {
            let raw = &input.raw;
            let f = m3_session::switch(
                raw.get("requested_model").and_then(Value::as_str),
                raw.get("to_model").and_then(Value::as_str),
                &ctx.host.aliases(),
                &ctx.tiers,
                &call.grant,
            );
            Some((f, Kind::Switch))
        }
        (Event::UserPromptSubmit, _) => {
            let map = call.ledger();
            let main = call.learn_main(&map);
            let mut f = m3_session::prompt(&main, &ctx.tiers, &call.grant);
            let prompt = input
                .raw
                .get("prompt")
                .and_then(Value::as_str)
                .unwrap_or("");
            if let (None, Some(name)) = (&f.deny, skills::invoked_by_prompt(prompt)) {
                let s = call.skill_invocation(name);
                if s.deny.is_some() {
                    f = s;
                }
            }
            Some((f, Kind::Prompt))
        }
        (Event::SessionStart | Event::PostModelSwitch, _) => {
            Some((call.record_main_model(), Kind::Record))
        }
        (Event::PostToolUse, t) if is_agent_tool(t) => Some((call.verify_after(), Kind::Post)),
        (Event::PostToolUse, _) => call.record_taint().map(|f| (f, Kind::Record)),
        _ => None,
    };
    let store_errors = std::mem::take(&mut call.store_errors);
    let Some((finding, kind)) = judged else {
        // Not ours to judge (or a tool that does not taint): nothing to record.
        return Verdict {
            answer: silent_or_notice(ctx.config_notice.clone()),
            audit: Vec::new(),
        };
    };
    verdict(&input, ctx, finding, kind, &stripped, &store_errors)
}

/// The answer and the audit record for a finding.
fn verdict(
    input: &HookInput,
    ctx: &Ctx,
    finding: Finding,
    kind: Kind,
    stripped: &[safety_kernel::StrippedField],
    store_errors: &[String],
) -> Verdict {
    use session_store::Decision;
    let decision = match (&finding.deny, kind) {
        (Some(_), Kind::Prompt) => Decision::Block,
        (Some(_), _) => Decision::Deny,
        (None, Kind::Post) if finding.warning.is_some() => Decision::Critical,
        (None, Kind::Record) => Decision::Recorded,
        (None, _) => Decision::Allow,
    }
    .as_str();
    let mut record = json!({
        "binary": "model-tier-guard",
        "event": input.event.name(),
        "session_id": input.session_id,
        "tool_use_id": input.tool_use_id,
        "tool_name": input.tool_name,
        "agent_id": input.agent_id,
        "requirement": finding.requirement,
        "code": finding.code,
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
    for e in store_errors {
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
        codes::M2_FAIL_CLOSED,
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
            let ours = tool.is_none_or(|t| {
                matches!(
                    t,
                    "Agent" | "Task" | "Bash" | "Write" | "Edit" | "Skill" | "SlashCommand"
                )
            });
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
