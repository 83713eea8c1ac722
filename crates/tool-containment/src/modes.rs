//! The binary's modes, wired from the requirement modules: the prefix (hot path, C1–C6), the
//! systemd re-entry, `--report`, and the SessionEnd hook (C7).

use crate::c1_invocation::{choose_shell, exec_shell, SCRIPT_ENV, SHELL_ENV};
use crate::c2_agent_commands::{classify, Kind};
use crate::c3_groups::{command_group_name, enter, session_group_name, systemd_run_invocation};
use crate::c4_backends::{choose, probe, Backend, HostFacts};
use crate::c5_ceilings::{host_ram_bytes, resolve, Ceilings, MEMORY_ENV, TASKS_ENV};
use crate::c6_notice::{unbounded_notice, unbounded_reason};
use crate::c7_session_end::{render, stop_session_into, Deadlines, EndReport, Shared};
use hook_io::{Answer, FailureCause, HookInput, HookSpec};
use std::path::Path;
use std::time::{Duration, Instant};

fn env(k: &str) -> Option<String> {
    std::env::var(k).ok()
}

fn euid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// The ceilings from the CLI's environment and, only when needed, the config file.
pub fn current_ceilings() -> Ceilings {
    let (t, m) = (env(TASKS_ENV), env(MEMORY_ENV));
    let set = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.trim().is_empty());
    let loaded = if set(&t) && set(&m) {
        guard_config::Loaded::default()
    } else {
        guard_config::load()
    };
    let mut c = resolve(
        t.as_deref(),
        m.as_deref(),
        loaded.config.tasks_max.as_ref(),
        loaded.config.memory_max.as_ref(),
        host_ram_bytes(),
    );
    if let Some(e) = loaded.error {
        c.notices.push(format!(
            "tool-containment: config error (defaults in use): {e}"
        ));
    }
    c
}

/// The backend facts of this process.
pub fn current_facts() -> HostFacts {
    probe(Path::new("/proc/self"), euid(), &env)
}

/// Prefix mode: contain an agent command, pass anything else through, then exec the shell.
/// Returns only when the exec failed (the exit code to use).
pub fn run_prefix(script: &std::ffi::OsStr) -> i32 {
    // Read as text (lossily) to choose; run as the bytes it is.
    let text = script.to_string_lossy();
    let shell = choose_shell(&text, env("SHELL").as_deref());
    if let Kind::PassThrough(_) = classify(&text, env("AI_AGENT").as_deref()) {
        return exec_shell(&shell, script);
    }
    // C10 in two phases: the supervisor starts first (it must stay outside the command's
    // group); the filter comes last, after the group's ceilings are written.
    let second_line = crate::c10_second_line::prepare();
    let backend = choose(&current_facts());
    if let Some(why) = unbounded_reason(&backend) {
        eprintln!("{}", unbounded_notice(crate::codes::C6_NO_BACKEND, &why));
        crate::c10_second_line::finish(second_line);
        return exec_shell(&shell, script);
    }
    let ceilings = current_ceilings();
    for n in &ceilings.notices {
        eprintln!("{n}");
    }
    let session = match env("CLAUDE_CODE_SESSION_ID").filter(|s| !s.is_empty()) {
        Some(id) => session_group_name(Some(&id)),
        // No session id: the group is the CLI's own (our parent), so its SessionEnd finds it and
        // two sessions never share one group.
        None => crate::c3_groups::no_session_group_of(nix::unistd::getppid().as_raw())
            .unwrap_or_else(|| session_group_name(None)),
    };
    let pid = std::process::id();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let cmd = command_group_name(pid, nanos);
    if let Backend::Systemd { program } = &backend {
        crate::c10_second_line::finish(second_line);
        return exec_systemd_run(program, &shell, script, &session, &cmd, &ceilings);
    }
    if let Err(why) = enter(&backend, &session, &cmd, &ceilings, pid) {
        eprintln!("{}", unbounded_notice(crate::codes::C6_GROUP_FAILED, &why));
    }
    crate::c10_second_line::finish(second_line);
    exec_shell(&shell, script)
}

fn exec_systemd_run(
    program: &Path,
    shell: &str,
    script: &std::ffi::OsStr,
    session: &str,
    cmd: &str,
    ceilings: &Ceilings,
) -> i32 {
    use std::os::unix::process::CommandExt;
    let self_exe = std::env::current_exe().unwrap_or_else(|_| "tool-containment".into());
    let (args, extra) = systemd_run_invocation(&self_exe, shell, script, session, cmd, ceilings);
    let err = std::process::Command::new(program)
        .args(&args)
        .envs(extra)
        .exec();
    eprintln!(
        "{}",
        unbounded_notice(
            crate::codes::C6_SYSTEMD_RUN_FAILED,
            &format!("cannot run systemd-run: {err}")
        )
    );
    exec_shell(shell, script)
}

/// Re-entered by `systemd-run` inside the scope: take the script from the environment, drop the
/// carrier variables, exec the shell.
pub fn run_from_env() -> i32 {
    let (Some(script), Some(shell)) = (std::env::var_os(SCRIPT_ENV), env(SHELL_ENV)) else {
        eprintln!("tool-containment: --run-from-env without {SCRIPT_ENV} and {SHELL_ENV}");
        return 2;
    };
    // SAFETY: single-threaded at this point; nothing else reads the environment concurrently.
    unsafe {
        std::env::remove_var(SCRIPT_ENV);
        std::env::remove_var(SHELL_ENV);
    }
    exec_shell(&shell, &script)
}

/// `--report`: the backend and ceilings this host gives commands.
pub fn run_report() -> i32 {
    let facts = current_facts();
    let backend = choose(&facts);
    println!(
        "{}",
        crate::c6_notice::report(&facts, &backend, &current_ceilings())
    );
    for line in crate::c10_second_line::report_lines() {
        println!("{line}");
    }
    0
}

/// The installer declares a 30 s timeout for this hook; everything is done well inside it.
pub const SESSION_END_DEADLINE: Duration = Duration::from_secs(25);
/// `AGENT_CONTAINMENT_SESSION_END_MS` in the hook's environment shortens (or lengthens, up to
/// 60 s) the run, for a registration with a different timeout.
pub const SESSION_END_DEADLINE_ENV: &str = "AGENT_CONTAINMENT_SESSION_END_MS";
/// Time kept back from the watchdog for writing the report and the audit record.
const REPORT_MARGIN: Duration = Duration::from_millis(300);

/// How long the failure answer may spend stopping a session whose judge never began: inside
/// the CLI's SessionEnd timeout (30 s, `src/registry.rs`) after the deadline (25 s by default).
const STOP_AFTER_FAILURE: Duration = Duration::from_secs(3);

/// The run's total deadline.
pub fn session_end_deadline() -> Duration {
    env(SESSION_END_DEADLINE_ENV)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|ms| Duration::from_millis(ms.clamp(200, 60_000)))
        .unwrap_or(SESSION_END_DEADLINE)
}

/// The session the hook ends: the payload's id, else the hook's own environment.
fn ended_session(payload_id: Option<&str>) -> Option<String> {
    payload_id
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| env("CLAUDE_CODE_SESSION_ID").filter(|s| !s.is_empty()))
}

/// Stops the session's groups (and those of commands that ran without a session id under the
/// same CLI), filling `shared`.
fn stop_all(session_id: Option<&str>, stop_by: Instant, shared: &Shared) {
    let backend = choose(&current_facts());
    let deadlines = Deadlines::until(stop_by);
    if let Some(id) = session_id {
        // C10: the session's exec-gate supervisors, once their processes are stopped and before
        // the verify step (a supervisor carries the session's marker until it has exited).
        let supervisors = || {
            crate::c10_second_line::stop(id, deadlines.remove);
        };
        stop_session_into(
            &backend,
            &session_group_name(Some(id)),
            Some(id),
            deadlines,
            shared,
            &supervisors,
        );
    }
    // Commands the CLI ran without a session id are grouped under the CLI's pid and start
    // time (C3); the CLI is this hook's parent.
    if let Some(group) = crate::c3_groups::no_session_group_of(nix::unistd::getppid().as_raw()) {
        let extra: Shared = Default::default();
        stop_session_into(&backend, &group, None, deadlines, &extra, &|| {});
        let extra = extra.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut r = shared.lock().unwrap_or_else(|p| p.into_inner());
        r.stopped.extend(extra.stopped);
        r.failures.extend(extra.failures);
        r.survivors.extend(extra.survivors);
        r.held += extra.held;
        r.killed += extra.killed;
        r.removed_groups += extra.removed_groups;
        r.groups_left += extra.groups_left;
        if r.phase.is_empty() {
            r.phase = "done";
        }
    }
}

/// Appends the report to the session's audit log (also for a partial report).
fn audit(session_id: &str, report: &EndReport, note: Option<&str>) {
    if let Ok(dir) = session_store::state_dir(&env) {
        let record = serde_json::json!({
            "binary": "tool-containment",
            "decision": session_store::Decision::Report.as_str(),
            "requirement": "C7",
            "session": session_id,
            "note": note,
            "report": report,
        });
        let _ = session_store::Session::new(&dir, Some(session_id))
            .audit()
            .append(&record);
    }
}

/// The SessionEnd judge: stop the session's groups, then report.
pub fn session_end(input: HookInput, started: Instant, shared: Shared) -> Answer {
    let Some(session_id) = ended_session(input.session_id.as_deref()) else {
        return Answer::Report {
            text: "tool-containment (C7) FAILED: the SessionEnd payload names no session and CLAUDE_CODE_SESSION_ID is not set: nothing was stopped".into(),
        };
    };
    let stop_by = started + session_end_deadline().saturating_sub(REPORT_MARGIN);
    stop_all(Some(&session_id), stop_by, &shared);
    let report = shared.lock().unwrap_or_else(|p| p.into_inner()).clone();
    if render(&report, &session_id).is_some() {
        audit(&session_id, &report, None);
    }
    match render(&report, &session_id) {
        Some(text) => Answer::Report { text },
        None => Answer::Silent,
    }
}

/// The answer when the judge did not finish: the partial report (what was done, never more),
/// recorded in the audit log. An unreadable payload still stops the session named in the
/// hook's environment.
fn session_end_failure(
    payload_session: Option<&str>,
    cause: &FailureCause,
    started: Instant,
    shared: &Shared,
) -> Answer {
    let mut lines = Vec::new();
    let env_session = ended_session(payload_session);
    if let FailureCause::Input(e) = cause {
        lines.push(format!(
            "tool-containment (C7) FAILED: the SessionEnd payload could not be read ({})",
            hook_io::escape_text(&e.to_string(), 200)
        ));
        match &env_session {
            Some(id) => {
                let stop_by = started + session_end_deadline().saturating_sub(REPORT_MARGIN);
                stop_all(Some(id), stop_by, shared);
            }
            None => lines.push(
                "tool-containment (C7) FAILED: CLAUDE_CODE_SESSION_ID is not set either: nothing was stopped".into(),
            ),
        }
    }
    // The judge may hold the lock for a moment; never wait on it for long.
    let read_report = || {
        for _ in 0..50 {
            if let Ok(guard) = shared.try_lock() {
                return Some(guard.clone());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        None
    };
    let mut report = read_report();
    // The judge never began the stop (it panicked or hung before it): stop the session here,
    // in the time the CLI still gives (issue 47: SessionEnd stopped nothing when its judge never
    // ran).
    let never_began = report.as_ref().is_some_and(|r| r.phase.is_empty());
    if never_began && !matches!(cause, FailureCause::Input(_)) {
        if let Some(id) = &env_session {
            stop_all(Some(id), Instant::now() + STOP_AFTER_FAILURE, shared);
            report = read_report();
        }
    }
    let id = env_session.unwrap_or_default();
    match &report {
        Some(r) => {
            if let Some(text) = render(r, &id) {
                lines.push(text);
            }
            audit(&id, r, Some(&cause.to_string()));
        }
        None => lines.push(
            "tool-containment (C7) INCOMPLETE: the deadline passed and the partial report could not be read; some processes may still be running".into(),
        ),
    }
    if !matches!(cause, FailureCause::Input(_)) {
        lines.push(format!(
            "tool-containment (C7) FAILED: could not finish the session-end stop: {}",
            hook_io::escape_text(&cause.to_string(), 200)
        ));
    }
    Answer::Report {
        text: lines.join("\n"),
    }
}

/// Runs the SessionEnd hook and exits.
pub fn run_session_end() -> ! {
    let started = Instant::now();
    let shared: Shared = Default::default();
    let for_judge = shared.clone();
    hook_io::run_hook(
        HookSpec {
            name: "tool-containment",
            input_limit: hook_io::DEFAULT_INPUT_LIMIT,
            deadline: session_end_deadline(),
        },
        move |input| session_end(input, started, for_judge),
        move |ctx, cause| session_end_failure(ctx.session_id.as_deref(), cause, started, &shared),
    )
}
