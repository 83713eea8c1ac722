//! The installation report (`agent-guards report`): read-only.
//!
//! What is installed and in which version, what is registered where and how it drifted from what
//! the installer wrote (missing, edited, duplicated entries), whether containment works on this
//! host, whether a GitHub token is available for live branch rules, the state dir's size, and
//! every problem of the config file (guard-config's diagnosis), and the audit records the journal
//! holds that a session's log lost (`journal_check`).

use crate::registry::{Registration, ADMIN_BINARY, BINARIES, REGISTRATIONS};
use crate::settings_merge;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs a command with a deadline; `None` when it could not run or did not finish in time.
pub fn run_bounded(cmd: &mut Command, deadline: Duration) -> Option<(i32, String)> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let mut out = String::new();
                if let Some(mut s) = child.stdout.take() {
                    use std::io::Read;
                    let _ = s.by_ref().take(1 << 20).read_to_string(&mut out);
                }
                return Some((status.code().unwrap_or(-1), out));
            }
            Ok(None) if start.elapsed() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// The state of one expected registration in a settings file.
pub fn registration_state(settings: &Value, reg: &Registration, bin_dir: &Path) -> &'static str {
    let command = bin_dir.join(reg.binary).to_string_lossy().to_string();
    let mut exact = 0;
    let mut edited = 0;
    if let Some(groups) = settings
        .pointer(&format!("/hooks/{}", reg.event))
        .and_then(Value::as_array)
    {
        for g in groups {
            let same_matcher = g.get("matcher").and_then(Value::as_str) == reg.matcher;
            for h in g
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if h.get("command").and_then(Value::as_str) != Some(command.as_str()) {
                    continue;
                }
                let expected = settings_merge::handler(reg, bin_dir);
                if same_matcher && *h == expected {
                    exact += 1;
                } else if same_matcher {
                    edited += 1;
                }
            }
        }
    }
    match (exact, edited) {
        (1, 0) => "ok",
        (0, 0) => "missing",
        (0, _) => "edited",
        _ => "duplicated",
    }
}

fn dir_size(dir: &Path, budget: &mut usize) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut total = 0;
    for e in entries.flatten() {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        let Ok(meta) = e.metadata() else { continue };
        if meta.is_dir() {
            total += dir_size(&e.path(), budget);
        } else {
            total += meta.len();
        }
    }
    total
}

/// Every problem of the config file at `path` (empty: fine), from guard-config's diagnosis. The
/// read is bounded and only a regular file is read: a FIFO must not hang the report.
pub fn config_problems(path: &Path) -> Result<Vec<String>, String> {
    use std::io::Read;
    const LIMIT: u64 = 1024 * 1024;
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("not found; the defaults are in use".into())
        }
        Err(e) => return Err(format!("cannot read it: {e}")),
        Ok(m) if !m.is_file() => return Err("not a regular file; the defaults are in use".into()),
        Ok(m) if m.len() > LIMIT => return Err("larger than 1 MiB; the defaults are in use".into()),
        Ok(_) => {}
    }
    let mut bytes = Vec::new();
    primitives::no_wait::open_regular(path, std::fs::OpenOptions::new().read(true))
        .and_then(|f| f.take(LIMIT).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read it: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text; the defaults are in use")?;
    Ok(guard_config::diagnose::diagnose(&text)
        .iter()
        .map(ToString::to_string)
        .collect())
}

/// Everything the report needs to know about where to look.
pub struct Where {
    pub prefix: PathBuf,
    pub settings: PathBuf,
    pub state_dir: Option<PathBuf>,
    pub config: Option<PathBuf>,
    /// Where each kind of install would be, to say which is active.
    pub kinds: Kinds,
}

/// The places of both kinds of install.
pub struct Kinds {
    pub system_prefix: PathBuf,
    pub managed_settings: PathBuf,
    pub system_config: PathBuf,
    pub user_prefix: PathBuf,
    pub user_settings: PathBuf,
}

/// Which kind of install is active: every registration of the kind in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    System,
    PerUser,
    Both,
    None,
}

impl Kind {
    /// From whether the system install's and the per-user install's registrations are all in
    /// place. Pure.
    pub fn of(system: bool, per_user: bool) -> Kind {
        match (system, per_user) {
            (true, true) => Kind::Both,
            (true, false) => Kind::System,
            (false, true) => Kind::PerUser,
            (false, false) => Kind::None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::System => "system",
            Kind::PerUser => "per-user",
            Kind::Both => "system and per-user (the hooks run twice: uninstall the per-user one)",
            Kind::None => {
                "none (no complete install: agent-guards install, or sudo ./install.sh --system)"
            }
        }
    }
}

/// What each kind of install guarantees and what it does not stop, said plainly. Pure.
pub fn guarantees(kind: Kind) -> (Vec<&'static str>, Vec<&'static str>) {
    let system_gives = [
        "the binaries, the system config and the hook registrations (managed settings) are root's: the agent's user cannot rename, replace or remove them",
        "no lower settings scope (user, project, local, --settings) can remove or disable the managed hooks",
        "a per-user config may only tighten the system config, never loosen it (github_api only from the system file)",
        "each audit record also goes to the system journal (config audit_journal, default auto: when journald runs), which the agent's user cannot erase; report names the records a session's audit.jsonl lost",
    ];
    let system_gives = [
        system_gives[0],
        system_gives[1],
        system_gives[2],
        system_gives[3],
        "the exec gate's supervisors and the credential broker run as the agent-guards user (the exec-gate service): an agent command cannot stop, trace or read them or take their listener, and what they record (audit, taint) is in /var/lib/agent-guards, which it cannot change; without the service every agent command is refused (C10.service)",
    ];
    let system_not = [
        "the hooks' own audit logs (their journal copy aside) and the ledger they write (taint from fetches, the branch-rules cache) are still in the agent's user's folders (a missing or damaged ledger reads as tainted; a taint is also relayed to the exec-gate service)",
        "user and project hooks still run beside ours unless allowManagedHooksOnly is set",
    ];
    let user_gives =
        ["every hook runs on every tool call of a session that reads your settings file"];
    let user_not = [
        "the agent's user owns every file: an agent command can rename or replace the settings file, the config and the binaries, or the state dir and its audit logs, and so turn the guards off (the second line makes them read-only inside contained commands, where it is active)",
        "a per-user config can point github_api at any server and turn any check off",
        "the exec gate's supervisors run as the agent's user: an agent command can stop one (SIGSTOP; its watchdog then fails every exec of that command closed) or kill it, and can erase what it recorded",
    ];
    match kind {
        Kind::System | Kind::Both => (system_gives.to_vec(), system_not.to_vec()),
        Kind::PerUser => (user_gives.to_vec(), user_not.to_vec()),
        Kind::None => (Vec::new(), vec!["no guard runs: nothing is registered"]),
    }
}

/// What the other kind of install would give, one line. Pure.
pub fn other_kind(kind: Kind) -> &'static str {
    match kind {
        Kind::System | Kind::Both => "a per-user install gives less: the agent's user can rename or replace its settings, config and binaries, and so turn the guards off",
        Kind::PerUser | Kind::None => "a system install (sudo ./install.sh --system) would make the binaries, config and registrations root's: the agent's user could then not rename, replace or remove them",
    }
}

/// Whether every registration is in place in `settings` for `bin_dir`.
fn all_registered(settings: &Path, bin_dir: &Path) -> bool {
    let (status, _) = settings_section(settings, bin_dir);
    status == "every hook registered"
}

/// The bin dir our registrations in `settings` point into (an install with another `--prefix`),
/// else `fallback`.
fn registered_bin_dir(settings: &Path, fallback: PathBuf) -> PathBuf {
    let parsed = settings_merge::read_file(settings)
        .ok()
        .flatten()
        .and_then(|t| settings_merge::parse(&t).ok());
    let commands = parsed
        .iter()
        .filter_map(|m| m.get("hooks")?.as_object())
        .flat_map(|h| h.values())
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|g| g.get("hooks")?.as_array())
        .flatten()
        .filter_map(|h| h.get("command")?.as_str().map(PathBuf::from))
        .find(|c| {
            c.is_absolute()
                && c.file_name()
                    .is_some_and(|n| BINARIES.iter().any(|b| n == *b))
        });
    commands
        .and_then(|c| c.parent().map(Path::to_path_buf))
        .unwrap_or(fallback)
}

/// The install-kind section: which kind is active and what it guarantees.
fn kind_section(k: &Kinds) -> Value {
    let system_bin = registered_bin_dir(&k.managed_settings, k.system_prefix.join("bin"));
    let user_bin = registered_bin_dir(&k.user_settings, k.user_prefix.join("bin"));
    let kind = Kind::of(
        all_registered(&k.managed_settings, &system_bin),
        all_registered(&k.user_settings, &user_bin),
    );
    let managed_only = settings_merge::read_file(&k.managed_settings)
        .ok()
        .flatten()
        .and_then(|t| settings_merge::parse(&t).ok())
        .and_then(|m| m.get(crate::system::MANAGED_ONLY_KEY).cloned());
    let (gives, not) = guarantees(kind);
    let service = matches!(kind, Kind::System | Kind::Both).then(exec_gate_service);
    json!({
        "kind": kind.name(),
        "exec_gate_service": service,
        "managed_settings": k.managed_settings,
        "system_config": k.system_config,
        "system_config_present": k.system_config.exists(),
        "allow_managed_hooks_only": managed_only,
        "gives": gives,
        "does_not_stop": not,
        "other_kind": other_kind(kind),
    })
}

/// The exec-gate service of a system install: its account and whether its socket answers (a
/// connection the service drops at once, its set-up missing).
fn exec_gate_service() -> Value {
    use session_store::service::{SOCKET, USER};
    let account = primitives::users::account(USER);
    let listening = session_store::service::answers(Path::new(SOCKET));
    let status = match (account, listening) {
        (Some(a), true) => format!("running as `{USER}` (uid {}), listening at {SOCKET}", a.uid),
        (Some(_), false) => format!("NOT RUNNING (nothing answers at {SOCKET}): every agent command is refused (C10.service) until it runs; start it as root: <prefix>/bin/tool-containment --exec-gate-service & (or systemctl start agent-guards-exec-gate.socket)"),
        (None, _) => format!("NO `{USER}` ACCOUNT: the service cannot run and every agent command is refused (C10.service); run the system install again or create the account"),
    };
    json!({"account": account.map(|a| a.uid), "listening": listening, "status": status})
}

/// Builds the report as JSON.
pub fn build(w: &Where) -> Value {
    let bin_dir = w.prefix.join("bin");
    let (settings_status, registrations) = settings_section(&w.settings, &bin_dir);
    let containment = containment_section(&bin_dir);
    let state_size = w.state_dir.as_ref().map(|d| {
        let mut budget = 100_000;
        dir_size(d, &mut budget)
    });
    json!({
        "install": kind_section(&w.kinds),
        "prefix": w.prefix,
        "binaries": binaries_section(&bin_dir),
        "settings": {"path": w.settings, "status": settings_status, "registrations": registrations},
        "config": with_system_config(config_section(w.config.as_deref()), w.config.as_deref(), &w.kinds.system_config),
        "second_line": second_line_layers(&containment),
        "containment": containment,
        "github_token": token_source().unwrap_or_else(|| "none (live branch rules only for public repositories)".into()),
        "state_dir": {"path": w.state_dir, "bytes": state_size},
        "undelivered": w.state_dir.as_deref().map(undelivered_section),
        // The exporter's state (issue 45): endpoint, queued, last sent, last error; its own
        // lines, from bounded reads only.
        "otlp_export": w.state_dir.as_deref().map(|d| audit_export::status(d).to_string()),
        // The journal's copies against the logs (issue 40): what the agent erased.
        "audit_journal": w.state_dir.as_deref().map(crate::journal_check::section),
    })
}

/// Audit records the hooks could not write (issue 47: the answer came first; the log was held,
/// replaced or full), from the state dir's record of them, said and not yet said at a
/// SessionStart.
fn undelivered_section(state_dir: &Path) -> Value {
    let file = state_dir.join(session_store::audit::UNDELIVERED_FILE);
    let said = file.with_extension("jsonl.said");
    let count = |p: &Path| session_store::audit::undelivered_in(p);
    let (new, last_new) = count(&file).unwrap_or((0, Value::Null));
    let (old, last_old) = count(&said).unwrap_or((0, Value::Null));
    json!({"not_yet_said": new, "said_before": old,
        "last": if last_new.is_null() { last_old } else { last_new }})
}

/// Each binary: installed or not, and what `--version` says.
fn binaries_section(bin_dir: &Path) -> Vec<Value> {
    BINARIES
        .iter()
        .chain([&ADMIN_BINARY])
        .map(|name| {
            let path = bin_dir.join(name);
            let version = path
                .exists()
                .then(|| run_bounded(Command::new(&path).arg("--version"), Duration::from_secs(2)))
                .flatten()
                .map(|(_, out)| out.trim().to_string());
            json!({"name": name, "path": path, "installed": path.exists(), "version": version})
        })
        .collect()
}

/// The settings file's status line and the state of each registration.
fn settings_section(settings: &Path, bin_dir: &Path) -> (String, Vec<Value>) {
    let settings_text = match settings_merge::read_file(settings) {
        Ok(text) => text,
        Err(e) => return (format!("unreadable: {e}"), Vec::new()),
    };
    let settings_value = settings_text
        .as_deref()
        .map(settings_merge::parse)
        .map(|r| r.map(Value::Object));
    match &settings_value {
        None => ("absent".to_string(), Vec::new()),
        Some(Err(e)) => (format!("unreadable: {e}"), Vec::new()),
        Some(Ok(v)) => {
            let states: Vec<&str> = REGISTRATIONS
                .iter()
                .map(|r| registration_state(v, r, bin_dir))
                .collect();
            let not_ok = states.iter().filter(|s| **s != "ok").count();
            let status = if not_ok == 0 {
                "every hook registered".to_string()
            } else if states.iter().all(|s| *s == "missing") {
                "NO hook of agent-guards is registered (agent-guards install, or ./install.sh in the clone)".into()
            } else {
                format!(
                    "DRIFTED: {not_ok} of {} registrations are not as installed (agent-guards install puts them back)",
                    states.len()
                )
            };
            let rows = REGISTRATIONS
                .iter()
                .zip(states)
                .map(|(r, state)| {
                    json!({"binary": r.binary, "event": r.event, "matcher": r.matcher, "state": state})
                })
                .collect();
            (status, rows)
        }
    }
}

/// Under a system config, the per-user file's values it does not apply (`guard_config::layered`)
/// join the problems: the hooks name them too.
fn with_system_config(mut section: Value, config: Option<&Path>, system: &Path) -> Value {
    let Some(user) = config.filter(|c| *c != system) else {
        return section;
    };
    if !system.exists() {
        return section;
    }
    let user_s = user.to_string_lossy().into_owned();
    let env = move |k: &str| (k == "AGENT_GUARDS_CONFIG").then(|| user_s.clone());
    let loaded = guard_config::load_layered(system, &env);
    let layered: Vec<String> = loaded
        .error
        .into_iter()
        .chain(loaded.problems)
        .filter(|p| p.starts_with("system config") || p.contains(": the system config "))
        .collect();
    if layered.is_empty() {
        return section;
    }
    let mut problems: Vec<Value> = section["problems"].as_array().cloned().unwrap_or_default();
    problems.extend(layered.into_iter().map(Value::from));
    section["status"] = json!(format!("{} problem(s)", problems.len()));
    section["problems"] = json!(problems);
    section
}

/// The config file's path, status and problems.
fn config_section(config: Option<&Path>) -> Value {
    match config {
        None => json!({"path": null, "status": "no config path (HOME is not set)", "problems": []}),
        Some(p) => match config_problems(p) {
            Ok(problems) if problems.is_empty() => {
                json!({"path": p, "status": "ok", "problems": []})
            }
            Ok(problems) => {
                json!({"path": p, "status": format!("{} problem(s)", problems.len()), "problems": problems})
            }
            Err(e) => json!({"path": p, "status": e, "problems": []}),
        },
    }
}

/// What `tool-containment --report` says: the installed copy, else the one built beside this
/// binary (the report says what this host offers even before the first install).
fn containment_section(bin_dir: &Path) -> Value {
    let installed = bin_dir.join("tool-containment");
    let beside = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("tool-containment")));
    let tc = if installed.exists() {
        installed
    } else {
        beside.filter(|p| p.exists()).unwrap_or(installed)
    };
    if !tc.exists() {
        return json!({"error": "tool-containment is not installed"});
    }
    match run_bounded(Command::new(&tc).arg("--report"), Duration::from_secs(5)) {
        Some((code, out)) => json!({"exit": code, "report": out.trim()}),
        None => json!({"error": "tool-containment --report did not answer within 5 s"}),
    }
}

/// The second line's layers (C10) as the containment report names them: one entry per layer,
/// `{"layer", "active", "why"}`. Empty when the report could not be had (its error says why).
pub fn second_line_layers(containment: &Value) -> Vec<Value> {
    containment["report"]
        .as_str()
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.trim().strip_prefix("second line: "))
        .map(|rest| {
            let (layer, state) = rest.split_once(": ").unwrap_or((rest, ""));
            let active = state.starts_with("active");
            let why = state
                .split_once(" (")
                .map(|(_, w)| w.strip_suffix(')').unwrap_or(w))
                .unwrap_or(state);
            json!({"layer": layer, "active": active, "why": why})
        })
        .collect()
}

/// Where a GitHub token would come from, if any.
fn token_source() -> Option<String> {
    ["GH_TOKEN", "GITHUB_TOKEN"]
        .iter()
        .find(|k| std::env::var(k).is_ok_and(|v| !v.is_empty()))
        .map(|k| format!("from {k}"))
        .or_else(|| {
            run_bounded(
                Command::new("gh").args(["auth", "token", "--hostname", "github.com"]),
                Duration::from_secs(3),
            )
            .filter(|(code, out)| *code == 0 && !out.trim().is_empty())
            .map(|_| "from gh auth token".to_string())
        })
}

/// Renders the report for a person.
pub fn render(r: &Value) -> Vec<String> {
    let mut out = vec![format!(
        "agent-guards installation report (prefix {})",
        r["prefix"].as_str().unwrap_or("?")
    )];
    let k = &r["install"];
    if k.is_object() {
        out.push(format!(
            "install kind: {}",
            k["kind"].as_str().unwrap_or("?")
        ));
        for g in k["gives"].as_array().into_iter().flatten() {
            out.push(format!("  guarantees: {}", g.as_str().unwrap_or("?")));
        }
        for g in k["does_not_stop"].as_array().into_iter().flatten() {
            out.push(format!(
                "  what this install does not stop: {}",
                g.as_str().unwrap_or("?")
            ));
        }
        if let Some(status) = k["exec_gate_service"]["status"].as_str() {
            out.push(format!("  exec-gate service: {status}"));
        }
        out.push(format!(
            "  the other kind: {}",
            k["other_kind"].as_str().unwrap_or("?")
        ));
        out.push(format!(
            "  managed settings {}: allowManagedHooksOnly {}",
            k["managed_settings"].as_str().unwrap_or("?"),
            if k["allow_managed_hooks_only"].is_null() {
                "not set".to_string()
            } else {
                k["allow_managed_hooks_only"].to_string()
            }
        ));
    }
    out.push("binaries:".into());
    for b in r["binaries"].as_array().into_iter().flatten() {
        out.push(format!(
            "  {:<20} {}",
            b["name"].as_str().unwrap_or("?"),
            if b["installed"] == true {
                b["version"]
                    .as_str()
                    .unwrap_or("installed, --version did not answer")
                    .to_string()
            } else {
                "NOT INSTALLED".into()
            }
        ));
    }
    out.push(format!(
        "settings {}: {}",
        r["settings"]["path"].as_str().unwrap_or("?"),
        r["settings"]["status"].as_str().unwrap_or("?")
    ));
    // Columns as wide as their widest cell (issue 46: fixed widths broke on `PostToolUseFailure`
    // and the taint sources' matcher).
    let rows: Vec<[&str; 4]> = r["settings"]["registrations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|reg| {
            [
                reg["event"].as_str().unwrap_or("?"),
                reg["matcher"].as_str().unwrap_or("*"),
                reg["binary"].as_str().unwrap_or("?"),
                reg["state"].as_str().unwrap_or("?"),
            ]
        })
        .collect();
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (we, wm, wb) = (width(0), width(1), width(2));
    for [event, matcher, binary, state] in &rows {
        out.push(format!(
            "  {event:<we$} {matcher:<wm$} {binary:<wb$} {state}"
        ));
    }
    out.push(format!(
        "config {}: {}",
        r["config"]["path"].as_str().unwrap_or("(none)"),
        r["config"]["status"].as_str().unwrap_or("?")
    ));
    for p in r["config"]["problems"].as_array().into_iter().flatten() {
        out.push(format!("  {}", p.as_str().unwrap_or("?")));
    }
    let c = &r["containment"];
    out.push(format!(
        "containment: {}",
        c["report"].as_str().or(c["error"].as_str()).unwrap_or("?")
    ));
    out.push(format!(
        "github token: {}",
        r["github_token"].as_str().unwrap_or("?")
    ));
    out.push(format!(
        "state dir {}: {} bytes",
        r["state_dir"]["path"].as_str().unwrap_or("(none)"),
        r["state_dir"]["bytes"].as_u64().unwrap_or(0)
    ));
    if let Some(export) = r["otlp_export"].as_str() {
        out.extend(export.lines().map(|l| hook_io::escape_text(l, 400)));
    }
    if r["audit_journal"].is_object() {
        out.extend(crate::journal_check::render(&r["audit_journal"]));
    }
    let u = &r["undelivered"];
    let total = u["not_yet_said"].as_u64().unwrap_or(0) + u["said_before"].as_u64().unwrap_or(0);
    if total > 0 {
        out.push(format!(
            "audit records NOT WRITTEN (the answer was given first): {total}; the last at {} to {}: {}",
            u["last"]["time"].as_str().unwrap_or("?"),
            u["last"]["log"].as_str().unwrap_or("?"),
            hook_io::escape_text(u["last"]["error"].as_str().unwrap_or("?"), 300)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_line_layers_are_read_from_the_containment_report() {
        let report = json!({"exit": 0, "report": "backend: cgroup v1\n\
second line: protected files read-only (mount namespace): active (root)\n\
second line: exec gate (seccomp user notification): off (turned off by the maintainer (AGENT_GUARDS_SECOND_LINE=off))"});
        let layers = second_line_layers(&report);
        assert_eq!(layers.len(), 2, "{layers:?}");
        assert_eq!(
            layers[0]["layer"],
            "protected files read-only (mount namespace)"
        );
        assert_eq!(layers[0]["active"], true);
        assert_eq!(layers[0]["why"], "root");
        assert_eq!(layers[1]["active"], false);
        assert_eq!(
            layers[1]["why"],
            "turned off by the maintainer (AGENT_GUARDS_SECOND_LINE=off)"
        );
        assert!(second_line_layers(&json!({"error": "not installed"})).is_empty());
    }

    #[test]
    fn each_kind_says_what_it_guarantees() {
        assert_eq!(Kind::of(true, false), Kind::System);
        assert_eq!(Kind::of(false, true), Kind::PerUser);
        assert_eq!(Kind::of(true, true), Kind::Both);
        assert_eq!(Kind::of(false, false), Kind::None);
        let (gives, not) = guarantees(Kind::System);
        assert!(gives
            .iter()
            .any(|g| g.contains("cannot rename, replace or remove")));
        assert!(not.iter().any(|g| g.contains("audit logs")));
        assert!(gives.iter().any(|g| g.contains("system journal")));
        let (_, not) = guarantees(Kind::PerUser);
        assert!(not.iter().any(|g| g.contains("can rename or replace")));
        assert!(other_kind(Kind::PerUser).contains("could then not rename"));
        assert!(other_kind(Kind::System).contains("can rename or replace"));
    }

    #[test]
    fn registration_columns_are_as_wide_as_their_widest_cell() {
        let r = json!({"settings": {"path": "s", "status": "ok", "registrations": [
            {"event": "Stop", "matcher": null, "binary": "egress-audit", "state": "registered"},
            {"event": "PostToolUseFailure", "matcher": "Agent|Task|WebFetch", "binary": "integrity-signals", "state": "registered"},
        ]}});
        let lines = render(&r);
        let rows: Vec<&String> = lines.iter().filter(|l| l.ends_with("registered")).collect();
        assert_eq!(rows.len(), 2, "{lines:?}");
        // The states start in one column, past the longest event, matcher and binary.
        let at: Vec<usize> = rows.iter().map(|l| l.find("registered").unwrap()).collect();
        assert_eq!(at[0], at[1], "{rows:?}");
        assert!(rows[1].contains("PostToolUseFailure Agent|Task|WebFetch integrity-signals"));
    }
}
