//! The hook events, wired: what each event reads, which requirement modules judge it, what is
//! recorded and what is answered. Decisions are made by the `i*` modules; this module only moves
//! facts between them, the store and the answer.

use crate::bash_facts::{self, Access, BashFacts};
use crate::i1_signals::{self, Call, Settings};
use crate::i2_fabricated_claims::{self as i2, RunResult, Runner};
use crate::i3_tamper::{Hit, Protected};
use crate::i4_scoring;
use crate::i5_modes::Mode;
use crate::i6_report;
use crate::signal::{Kind, Signal};
use crate::store::{self, Store};
use hook_io::{Answer, Event, HookInput};
use phrase_gate::IntegrityPhrases;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
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
        let (mode, mode_notice) = Mode::from_config(config.mode.as_deref());
        notices.extend(mode_notice);
        Deps {
            phrases: std::sync::OnceLock::new(),
            mode,
            protected: Protected::from_env(env, exe),
            home: env("HOME")
                .filter(|h| h.starts_with('/'))
                .map(PathBuf::from),
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
        Event::PreToolUse => pre_tool_use(input, deps),
        Event::PostToolUse | Event::PostToolUseFailure => post_tool_use(input, deps),
        Event::Stop => stop(input, deps),
        Event::SessionEnd => session_end(input, deps),
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

fn tamper_signal(hit: &Hit, call: &Call) -> Signal {
    Signal::observed(
        Kind::GuardTamper,
        &[
            ("path", json!(hit.path)),
            ("timestamp", json!(call.timestamp)),
            ("tool_use_id", json!(call.tool_use_id)),
            ("tool_name", json!(call.tool_name)),
            ("protects", json!(hit.what.describe())),
            ("how", json!(hit.how)),
        ],
    )
}

/// I3 hits of a call: Write/Edit paths and the Bash command's writes.
pub fn tamper_hits(
    call: &Call,
    protected: &Protected,
    home: Option<&Path>,
    facts: Option<&BashFacts>,
) -> Vec<Hit> {
    let mut hits: Vec<Hit> = i1_signals::tool_paths(call, home)
        .into_iter()
        .filter(|(_, a, _)| matches!(a, Access::Write { .. }))
        .filter_map(|(p, _, _)| {
            protected.protection(&p).map(|what| Hit {
                path: p.display().to_string(),
                what,
                how: format!("{} writes it", call.tool_name),
            })
        })
        .collect();
    if let Some(f) = facts {
        hits.extend(protected.bash_hits(f));
    }
    hits
}

fn pre_tool_use(input: &HookInput, deps: &Deps) -> Verdict {
    let mut tool_input = input.tool_input.clone().unwrap_or(json!({}));
    let stripped = safety_kernel::strip_asserted_authority(&mut tool_input);
    let tool_name = input.tool_name.as_deref().unwrap_or("");
    let tool_use_id = input.tool_use_id.as_deref().unwrap_or("");
    let timestamp = now_text();
    let cwd = input
        .cwd
        .as_deref()
        .filter(|c| c.starts_with('/'))
        .map(Path::new);
    let call = Call {
        tool_name,
        input: &tool_input,
        tool_use_id,
        cwd,
        timestamp: &timestamp,
    };
    let facts = (tool_name == "Bash")
        .then(|| tool_input.get("command").and_then(Value::as_str))
        .flatten()
        .map(|c| {
            bash_facts::analyse(
                c,
                &bash_facts::Env {
                    cwd,
                    home: deps.home.as_deref(),
                    vars: &deps.shell_vars,
                },
            )
        });

    let hits = tamper_hits(&call, &deps.protected, deps.home.as_deref(), facts.as_ref());
    let mut signals: Vec<Signal> = hits.iter().map(|h| tamper_signal(h, &call)).collect();
    let memory = durable_memory_write(
        &call,
        deps,
        facts.as_ref(),
        input.session_id.as_deref(),
        input.transcript_path.as_deref().map(Path::new),
    );

    let settings = deps.settings(input.cwd.as_deref());
    let path_signals = i1_signals::path_signals(&call, &settings, facts.as_ref());
    let would_deny = !hits.is_empty() || path_signals.iter().any(|s| deps.mode.denies(s.kind));
    let network = i1_signals::network_signals(&call, &settings, facts.as_ref(), "pending");
    let deny = would_deny || memory.is_some() || network.iter().any(|s| deps.mode.denies(s.kind));
    // Whether the call runs is known later (another guard may refuse it): the report resolves
    // `pending` from the audit log ([`crate::outcomes`]).
    let decision = if deny { "blocked" } else { "pending" };
    signals.extend(path_signals);
    signals.extend(network.into_iter().map(|mut s| {
        s.evidence.insert("decision".into(), json!(decision));
        s
    }));
    if let Some((place, text)) = i1_signals::written_text(&call, facts.as_ref()) {
        signals.extend(i1_signals::judge_signal(
            deps.phrases(),
            &text,
            &place,
            &timestamp,
            Some(tool_use_id),
        ));
    }
    let mut run_error = None;
    if let Ok(store) = &deps.store {
        let fp = i1_signals::call_fingerprint(tool_name, &tool_input);
        match store.record_call(input.session_id.as_deref(), &fp, tool_use_id, now_secs()) {
            Ok(run) if run.count == i1_signals::RETRY_THRESHOLD + 1 => {
                signals.push(i1_signals::retry_signal(
                    &call,
                    run.count,
                    &run.first_tool_use_id,
                ));
            }
            Ok(_) => {}
            Err(e) => run_error = Some(e),
        }
    }
    let (code, answer) = match refusal(&hits, memory.as_ref(), deny, &signals, deps.mode) {
        Some((code, answer)) => (Some(code), answer),
        None => (None, Answer::Silent),
    };
    let audit = json!({
        "requirement": code.map_or(if hits.is_empty() { "I1" } else { "I3" }, crate::codes::requirement),
        "code": code,
        "decision": if deny { "deny" } else { "allow" },
        "tamper": hits.iter().map(|h| json!({"path": h.path, "protects": h.what.describe(), "how": h.how})).collect::<Vec<_>>(),
        "durable_memory_while_tainted": memory.as_ref().map(|(p, t)| json!({"path": p, "taint": t})),
        "stripped_fields": stripped.iter().map(|s| s.path.clone()).collect::<Vec<_>>(),
        "bash_incomplete": facts.as_ref().and_then(|f| f.incomplete.clone()),
        "ledger_error": run_error,
    });
    Verdict {
        answer,
        signals,
        audit,
    }
}

/// The deny of a PreToolUse call and its code, if it is refused: a write to something protected
/// first (I3), then durable memory in a tainted session, then the first signal the mode denies.
fn refusal(
    hits: &[Hit],
    memory: Option<&(String, String)>,
    deny: bool,
    signals: &[Signal],
    mode: Mode,
) -> Option<(&'static str, Answer)> {
    let deny_with = |code: &'static str, refused: &str, remedy: &str, note: Option<String>| {
        let answer = Answer::Deny {
            event: "PreToolUse".into(),
            reason: safety_kernel::feedback::reason(code, refused, remedy),
            system_message: note,
        };
        Some((code, answer))
    };
    if let Some(h) = hits.first() {
        let what = h.what.describe();
        return deny_with(
            crate::codes::tamper(h.what),
            &format!("this call would change {what} ({})", h.path),
            "Guard settings, binaries, config and logs are changed only by the maintainer; leave them as they are and carry on with the task, or ask the maintainer.",
            Some(format!("integrity-signals denied a write to {what} ({}).", h.path)),
        );
    }
    if let Some((path, _)) = memory {
        return deny_with(
            crate::codes::I3_DURABLE_MEMORY,
            &format!("this session read untrusted external content or its taint record cannot be read, so it may not write durable memory ({path})"),
            "Finish the task without changing memory or agent files; the maintainer can record what is worth keeping.",
            Some(format!("integrity-signals denied a durable-memory write in a tainted session ({path}).")),
        );
    }
    if !deny {
        return None;
    }
    let first = signals.iter().find(|s| mode.denies(s.kind)).map(|s| s.kind);
    let refused = match first {
        Some(Kind::RestrictedPath) => "this call touches a restricted path",
        Some(Kind::NetworkEscape) => "this call contacts a host outside the network allow-list",
        _ => "this call reads outside the workspace root",
    };
    deny_with(
        crate::codes::i1(first),
        refused,
        "Work inside the workspace with the allowed hosts; if the task needs more, say so and stop.",
        None,
    )
}

/// A write to durable memory in a tainted session (K5, I3): the path and the taint summary. The
/// ledger is read only when the call writes durable memory at all.
fn durable_memory_write(
    call: &Call,
    deps: &Deps,
    facts: Option<&BashFacts>,
    session: Option<&str>,
    transcript: Option<&Path>,
) -> Option<(String, String)> {
    let mut targets: Vec<PathBuf> = i1_signals::tool_paths(call, deps.home.as_deref())
        .into_iter()
        .filter(|(_, a, _)| matches!(a, Access::Write { .. }))
        .map(|(p, _, _)| p)
        .collect();
    if let Some(f) = facts {
        targets.extend(
            f.paths
                .iter()
                .filter(|u| !matches!(u.access, Access::Read))
                .filter_map(|u| u.path.clone().or_else(|| Some(PathBuf::from(&u.text)))),
        );
    }
    if call.tool_name == "Bash" {
        let command = call
            .input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("");
        targets.extend(interpreter_named_paths(command, call.cwd));
    }
    let path = targets
        .into_iter()
        .find(|p| crate::i3_tamper::is_durable_memory(p))?;
    let own = call.cwd.and_then(taint::origin_owner);
    let policy = taint::TaintPolicy::new(deps.config.trusted_mcp_servers.clone(), own);
    let summary = match &deps.store {
        Ok(store) => memory_taint(store, session, transcript, &policy)?,
        Err(e) => format!("no state dir ({e}): taint cannot be ruled out"),
    };
    Some((path.display().to_string(), summary))
}

/// Paths named inside interpreter one-liners (`python3 -c "open('CLAUDE.md','a')..."`): a
/// script that names a file may write it. Only consulted for durable memory in a tainted
/// session, where refusing a script that only reads such a file costs little.
fn interpreter_named_paths(command: &str, cwd: Option<&Path>) -> Vec<PathBuf> {
    const INTERPRETERS: &[&str] = &[
        "python", "python3", "python2", "node", "perl", "ruby", "deno", "bun", "php", "lua",
    ];
    let parsed = shell_syntax::parse(command);
    let view = shell_syntax::commands(&parsed);
    let mut out = Vec::new();
    for inv in &view.invocations {
        if !inv.name().is_some_and(|n| INTERPRETERS.contains(&n)) {
            continue;
        }
        for arg in inv.args.iter().filter_map(|a| a.value.as_deref()) {
            let pieces = arg.split(|c: char| {
                c.is_whitespace()
                    || matches!(c, '\'' | '"' | '`' | '(' | ')' | ',' | ';' | '[' | ']')
            });
            for piece in pieces.filter(|p| p.contains("CLAUDE") || p.contains(".claude")) {
                let p = Path::new(piece);
                out.push(match cwd {
                    Some(c) if p.is_relative() => c.join(p),
                    _ => p.to_path_buf(),
                });
            }
        }
    }
    out
}

/// Whether durable memory is closed to the session, and why (K5): it is tainted, or its taint
/// cannot be ruled out — the ledger cannot be read (damaged, a folder in its place), or the
/// session's state is gone although the transcript shows completed tool calls (the state folder
/// was removed: deleting it must not erase taint), or the transcript shows a completed call that
/// taints although the ledger does not.
pub fn memory_taint(
    store: &Store,
    session: Option<&str>,
    transcript: Option<&Path>,
    policy: &taint::TaintPolicy,
) -> Option<String> {
    let s = store.session(session);
    match taint::taint_state(&s) {
        Err(e) => Some(format!(
            "the session ledger could not be read ({e}): taint cannot be ruled out"
        )),
        Ok(state) if state.tainted => Some(state.summary()),
        Ok(_) => {
            // The transcript keeps what the ledger may have lost (K5: taint survives the state).
            if let Some((src, id)) = transcript.and_then(|t| taint::transcript_source(t, policy)) {
                return Some(format!(
                    "the transcript shows {} ({}) in call {id}",
                    src.kind.as_str(),
                    src.detail
                ));
            }
            let state_kept = s.dir().join(store::CALLS_FILE).exists() || s.ledger().path().exists();
            if state_kept {
                return None;
            }
            let earlier = transcript.map_or(0, completed_calls);
            (earlier > 0).then(|| {
                format!("the session's state is missing although the transcript shows {earlier} completed tool call(s): taint cannot be ruled out")
            })
        }
    }
}

/// Tool calls of the main thread that have a result in the transcript (bounded scan).
fn completed_calls(transcript: &Path) -> usize {
    let mut n = 0;
    let _ = transcript::calls_newest_first_in_file(transcript, &mut |c| {
        if c.result().is_some() {
            n += 1;
        }
        if n >= 1 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    n
}

/// Records taint at the source (K5) for a completed call: the type of the call decides, never
/// what it returned.
fn record_taint(input: &HookInput, deps: &Deps) -> Result<Option<String>, String> {
    let (Some(tool), Ok(store)) = (input.tool_name.as_deref(), &deps.store) else {
        return Ok(None);
    };
    let tool_input = input.tool_input.clone().unwrap_or(json!({}));
    let own = input
        .cwd
        .as_deref()
        .and_then(|c| taint::origin_owner(Path::new(c)));
    let policy = taint::TaintPolicy::new(deps.config.trusted_mcp_servers.clone(), own);
    let Some(source) = taint::source_of(tool, &tool_input, &policy) else {
        return Ok(None);
    };
    taint::record(
        &store.session(input.session_id.as_deref()),
        &source,
        input.tool_use_id.as_deref(),
        &now_text(),
    )
    .map(|_| Some(format!("{} ({})", source.kind.as_str(), source.detail)))
    .map_err(|e| e.to_string())
}

/// The output text and error flag of a tool result.
fn result_text(input: &HookInput) -> (String, bool) {
    if input.event == Event::PostToolUseFailure {
        let err = input
            .raw
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        return (err, true);
    }
    match &input.tool_response {
        Some(Value::String(s)) => (s.clone(), false),
        Some(Value::Object(o)) => {
            let part = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let (out, err) = (part("stdout"), part("stderr"));
            let text = match (out.is_empty(), err.is_empty()) {
                (_, true) => out,
                (true, false) => err,
                (false, false) => format!("{out}\n{err}"),
            };
            let code = o
                .get("exit_code")
                .or(o.get("exitCode"))
                .and_then(Value::as_i64);
            match code {
                Some(c) if c != 0 => (format!("Exit code {c}\n{text}"), true),
                _ => (text, false),
            }
        }
        _ => (String::new(), false),
    }
}

fn post_tool_use(input: &HookInput, deps: &Deps) -> Verdict {
    let taint_audit = match record_taint(input, deps) {
        Ok(t) => json!({"taint_source": t}),
        Err(e) => json!({"taint_error": e}),
    };
    let silent = |why: &str| Verdict {
        answer: Answer::Silent,
        signals: Vec::new(),
        audit: json!({"decision": "recorded", "why": why, "taint": taint_audit}),
    };
    if input.tool_name.as_deref() != Some("Bash") {
        return silent("not a Bash result");
    }
    let tool_input = input.tool_input.clone().unwrap_or(json!({}));
    let Some(command) = tool_input.get("command").and_then(Value::as_str) else {
        return silent("no command");
    };
    let tool_use_id = input.tool_use_id.as_deref().unwrap_or("");
    let timestamp = now_text();
    let (output, is_error) = result_text(input);
    let runners = i2::runners_of(command);
    let result = i2::result_of(command, tool_use_id, &output, is_error, &timestamp);
    let mut ledger_error = None;
    if let Ok(store) = &deps.store {
        if let Err(e) =
            store.record_result(input.session_id.as_deref(), &runners, &result, now_secs())
        {
            ledger_error = Some(e);
        }
    }
    let interrupted = input
        .tool_response
        .as_ref()
        .and_then(|r| r.get("interrupted"))
        .and_then(Value::as_bool)
        == Some(true);
    let timed_out = interrupted || (is_error && output.to_ascii_lowercase().contains("timed out"));
    let duration = input.raw.get("duration_ms").and_then(Value::as_u64);
    let call = Call {
        tool_name: "Bash",
        input: &tool_input,
        tool_use_id,
        cwd: None,
        timestamp: &timestamp,
    };
    let signals: Vec<Signal> = i1_signals::timeout_signal(&call, timed_out, duration)
        .into_iter()
        .collect();
    Verdict {
        answer: Answer::Silent,
        signals,
        audit: json!({
            "requirement": "I2",
            "decision": "recorded",
            "runners": runners.iter().map(|r| r.key()).collect::<Vec<_>>(),
            "failed": result.failed,
            "exit_code": result.exit_code,
            "ledger_error": ledger_error,
            "taint": taint_audit,
        }),
    }
}

/// The most recent result of each `wanted` runner. The ledger's (written at PostToolUse, so never
/// behind the transcript, which the CLI writes asynchronously) is used unless the transcript holds
/// a newer matching call with a result (one the ledger missed). The transcript is walked newest
/// first and the walk stops as soon as every runner is decided.
pub fn latest_results(
    transcript: Option<&[u8]>,
    wanted: &[Runner],
    ledger: &dyn Fn(Runner) -> Option<RunResult>,
) -> HashMap<Runner, RunResult> {
    let from_ledger: HashMap<Runner, RunResult> = wanted
        .iter()
        .filter_map(|r| ledger(*r).map(|l| (*r, l)))
        .collect();
    let mut newer: HashMap<Runner, RunResult> = HashMap::new();
    let mut ledger_seen: HashSet<Runner> = HashSet::new();
    if let Some(bytes) = transcript {
        transcript::calls_newest_first(bytes, &mut |c| {
            let Some(cmd) = c
                .input
                .get("command")
                .and_then(Value::as_str)
                .filter(|_| c.tool_name == "Bash")
            else {
                return ControlFlow::Continue(());
            };
            let mut runners: Option<Vec<Runner>> = None;
            for r in wanted {
                if ledger_seen.contains(r) {
                    continue;
                }
                if from_ledger
                    .get(r)
                    .is_some_and(|l| l.tool_use_id == c.tool_use_id)
                {
                    ledger_seen.insert(*r);
                    continue;
                }
                if newer.contains_key(r) {
                    continue;
                }
                if runners
                    .get_or_insert_with(|| i2::runners_of(cmd))
                    .contains(r)
                {
                    if let Some(res) = c.result() {
                        let ts = res.timestamp.unwrap_or_default();
                        newer.insert(
                            *r,
                            i2::result_of(cmd, &c.tool_use_id, &res.text, res.is_error, &ts),
                        );
                    }
                }
            }
            let decided = wanted.iter().all(|r| {
                ledger_seen.contains(r) || (!from_ledger.contains_key(r) && newer.contains_key(r))
            });
            if decided {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
    }
    wanted
        .iter()
        .filter_map(|r| {
            let chosen = match from_ledger.get(r) {
                // The ledger's call is in the transcript: a newer match found before it wins.
                Some(l) if ledger_seen.contains(r) => newer.get(r).cloned().or(Some(l.clone())),
                // Not (yet) in the transcript: the ledger is the newest record.
                Some(l) => Some(l.clone()),
                None => newer.get(r).cloned(),
            };
            chosen.map(|c| (*r, c))
        })
        .collect()
}

fn stop(input: &HookInput, deps: &Deps) -> Verdict {
    let timestamp = now_text();
    let transcript_path = input
        .transcript_path
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(Path::new);
    let mut errors = Vec::new();
    let text = match input
        .last_assistant_message
        .as_deref()
        .filter(|t| !t.is_empty())
    {
        Some(t) => t.to_string(),
        None => match transcript_path.map(transcript::last_assistant_text) {
            Some(Ok(Some(t))) => t,
            Some(Err(e)) => {
                errors.push(e);
                String::new()
            }
            _ => String::new(),
        },
    };
    let mut signals: Vec<Signal> =
        i1_signals::judge_signal(deps.phrases(), &text, "final message", &timestamp, None)
            .into_iter()
            .collect();
    let claims = i2::claims(deps.phrases(), &text);
    if !claims.is_empty() {
        let ledger = match &deps.store {
            Ok(s) => s.ledger(input.session_id.as_deref()).unwrap_or_else(|e| {
                errors.push(e);
                Default::default()
            }),
            Err(_) => Default::default(),
        };
        let bytes = match transcript_path.map(|p| transcript::read_tail(p, transcript::TAIL_BYTES))
        {
            Some(Ok(b)) => Some(b),
            Some(Err(e)) => {
                errors.push(e);
                None
            }
            None => None,
        };
        let wanted: Vec<Runner> = claims.iter().map(|(r, _)| *r).collect();
        let found = latest_results(bytes.as_deref(), &wanted, &|r| {
            store::ledger_result(&ledger, r)
        });
        let latest = |r: Runner| found.get(&r).cloned();
        signals.extend(i2::check(deps.phrases(), &text, &latest, &timestamp));
    }
    let fabricated = signals.iter().find(|s| s.kind == Kind::FabricatedClaim);
    let answer = match fabricated {
        Some(s) => Answer::Notice {
            system_message: format!(
                "integrity-signals: I2 fabricated claim recorded: the final message says \"{}\" but the last `{}` run failed.",
                i1_signals::clip(s.evidence.get("claim").and_then(Value::as_str).unwrap_or(""), 120),
                i1_signals::clip(s.evidence.get("command").and_then(Value::as_str).unwrap_or(""), 80),
            ),
        },
        None => Answer::Silent,
    };
    Verdict {
        answer,
        signals,
        audit: json!({
            "requirement": "I2",
            "decision": "recorded",
            "claims": claims.iter().map(|(r, c)| json!({"runner": r.key(), "claim": c})).collect::<Vec<_>>(),
            "errors": errors,
        }),
    }
}

/// Scores a session's recorded signals (plus `extra`) and writes its report.
pub fn write_report(
    store: &Store,
    session: Option<&str>,
    mode: Mode,
    extra: &[Signal],
) -> Result<(i4_scoring::Score, String), String> {
    let (mut signals, unreadable) = store.signals(session)?;
    signals.extend(extra.iter().cloned());
    let audit = store
        .session(session)
        .audit()
        .read_all()
        .map(|(records, _)| records)
        .unwrap_or_default();
    crate::outcomes::Outcomes::from_audit(&audit).resolve(&mut signals);
    let mut score = i4_scoring::score(&signals);
    score.rejected.extend(
        unreadable
            .into_iter()
            .map(|reason| i4_scoring::RejectedSignal {
                kind: "unknown".into(),
                reason,
            }),
    );
    let report = i6_report::report_json(session, &score, &now_text(), mode.as_str());
    let text = i6_report::summary(session, &score);
    let body = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    store.write_report(session, &body, &text)?;
    Ok((score, text))
}

fn session_end(input: &HookInput, deps: &Deps) -> Verdict {
    let session = input.session_id.as_deref();
    let Ok(store) = &deps.store else {
        return Verdict {
            answer: Answer::Report {
                text: "integrity-signals: no state dir; no report written".into(),
            },
            signals: Vec::new(),
            audit: json!({"decision": "no_report"}),
        };
    };
    let mut signals = Vec::new();
    let started = store.started_at(session);
    if let Some(start) = started {
        // The log keeps milliseconds: a session shorter than the rounding is not negative.
        signals.extend(i1_signals::time_signal(
            (now_secs() - start).max(0.0),
            deps.config.integrity_reference_secs,
            &now_text(),
        ));
    }
    // Recorded before scoring so the report and the signals file agree.
    let recorded = store.append_signals(session, &signals);
    match (recorded, write_report(store, session, deps.mode, &[])) {
        (Ok(()), Ok((score, text))) => {
            let answer = if score.outcome == i4_scoring::Outcome::Clean && score.rejected.is_empty()
            {
                Answer::Silent
            } else {
                Answer::Report { text }
            };
            Verdict {
                answer,
                signals: Vec::new(),
                audit: json!({"requirement": "I6", "decision": "report", "outcome": score.outcome.as_str(), "net": score.net}),
            }
        }
        (Err(e), _) | (_, Err(e)) => Verdict {
            answer: Answer::Report {
                text: format!("integrity-signals: report not written: {e}"),
            },
            signals: Vec::new(),
            audit: json!({"requirement": "I6", "decision": "no_report", "error": e}),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, cmd: &str) -> String {
        json!({"type":"assistant","message":{"id":format!("m{id}"),"content":[
            {"type":"tool_use","id":id,"name":"Bash","input":{"command":cmd}}]}})
        .to_string()
    }
    fn result(id: &str, text: &str, err: bool) -> String {
        json!({"type":"user","message":{"content":[
            {"type":"tool_result","tool_use_id":id,"content":text,"is_error":err}]}})
        .to_string()
    }
    fn ledger_entry(id: &str, failed: bool) -> RunResult {
        let out = if failed {
            "Exit code 1\n1 failed"
        } else {
            "3 passed"
        };
        i2::result_of("pytest", id, out, failed, "T")
    }

    #[test]
    fn the_newest_result_wins_between_ledger_and_transcript() {
        let t = [
            call("a", "pytest"),
            result("a", "Exit code 1\n1 failed", true),
            call("b", "ls"),
            result("b", "x", false),
        ]
        .join("\n");
        let bytes = t.as_bytes();
        let tests = [Runner::Tests];
        // Transcript only.
        let r = latest_results(Some(bytes), &tests, &|_| None);
        assert_eq!(r[&Runner::Tests].tool_use_id, "a");
        assert!(r[&Runner::Tests].failed);
        // The ledger has a newer run the transcript does not show yet (the CLI writes it late).
        let r = latest_results(Some(bytes), &tests, &|_| Some(ledger_entry("c", false)));
        assert_eq!(r[&Runner::Tests].tool_use_id, "c");
        // The ledger's run is in the transcript and a newer one follows it: the newer one wins.
        let t2 = format!(
            "{t}\n{}\n{}",
            call("d", "pytest -x"),
            result("d", "2 passed", false)
        );
        let r = latest_results(Some(t2.as_bytes()), &tests, &|_| {
            Some(ledger_entry("a", true))
        });
        assert_eq!(r[&Runner::Tests].tool_use_id, "d");
        assert!(!r[&Runner::Tests].failed);
        // Nothing anywhere: no result.
        assert!(latest_results(None, &tests, &|_| None).is_empty());
        // Any command: the newest Bash call.
        assert_eq!(
            latest_results(Some(bytes), &[Runner::Any], &|_| None)[&Runner::Any].tool_use_id,
            "b"
        );
    }
}
