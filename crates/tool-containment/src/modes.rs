//! The binary's modes, wired from the requirement modules: the prefix (hot path, C1–C6), the
//! systemd re-entry, `--report`, and the SessionEnd hook (C7).

use crate::c1_invocation::{choose_shell, exec_shell, SCRIPT_ENV, SHELL_ENV};
use crate::c2_agent_commands::{classify, Kind};
use crate::c3_groups::{command_group_name, enter, session_group_name, systemd_run_invocation};
use crate::c4_backends::{choose, probe, Backend, HostFacts};
use crate::c5_ceilings::{host_ram_bytes, resolve, Ceilings, MEMORY_ENV, TASKS_ENV};
use crate::c6_notice::{unbounded_notice, unbounded_reason};
use crate::c7_session_end::{render, stop_session};
use hook_io::{Answer, HookInput, HookSpec};
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
pub fn run_prefix(script: &str) -> i32 {
    let shell = choose_shell(script, env("SHELL").as_deref());
    if let Kind::PassThrough(_) = classify(script, env("AI_AGENT").as_deref()) {
        return exec_shell(&shell, script);
    }
    let backend = choose(&current_facts());
    if let Some(why) = unbounded_reason(&backend) {
        eprintln!("{}", unbounded_notice(&why));
        return exec_shell(&shell, script);
    }
    let ceilings = current_ceilings();
    for n in &ceilings.notices {
        eprintln!("{n}");
    }
    let session = session_group_name(env("CLAUDE_CODE_SESSION_ID").as_deref());
    let pid = std::process::id();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let cmd = command_group_name(pid, nanos);
    if let Backend::Systemd { program } = &backend {
        return exec_systemd_run(program, &shell, script, &session, &cmd, &ceilings);
    }
    if let Err(why) = enter(&backend, &session, &cmd, &ceilings, pid) {
        eprintln!("{}", unbounded_notice(&why));
    }
    exec_shell(&shell, script)
}

fn exec_systemd_run(
    program: &Path,
    shell: &str,
    script: &str,
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
        unbounded_notice(&format!("cannot run systemd-run: {err}"))
    );
    exec_shell(shell, script)
}

/// Re-entered by `systemd-run` inside the scope: take the script from the environment, drop the
/// carrier variables, exec the shell.
pub fn run_from_env() -> i32 {
    let (Some(script), Some(shell)) = (env(SCRIPT_ENV), env(SHELL_ENV)) else {
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
    0
}

/// The SessionEnd budget the installer declares for this hook is 30 s; we answer well inside
/// the CLI's default 1.5 s shared budget all the same.
pub const SESSION_END_DEADLINE: Duration = Duration::from_millis(1400);
/// Time kept back from the deadline for writing the report.
const REPORT_MARGIN: Duration = Duration::from_millis(250);

/// The SessionEnd judge: stop the session's groups and report.
pub fn session_end(input: HookInput, started: Instant) -> Answer {
    let session_id = input
        .session_id
        .clone()
        .or_else(|| env("CLAUDE_CODE_SESSION_ID"))
        .unwrap_or_default();
    let group = session_group_name(Some(&session_id));
    let backend = choose(&current_facts());
    let deadline = started + SESSION_END_DEADLINE.saturating_sub(REPORT_MARGIN);
    let report = stop_session(&backend, &group, deadline);
    if !report.stopped.is_empty() || !report.failures.is_empty() {
        if let Ok(dir) = session_store::state_dir(&env) {
            let record = serde_json::json!({
                "binary": "tool-containment",
                "requirement": "C7",
                "session": session_id,
                "report": report,
            });
            let _ = session_store::Session::new(&dir, Some(&session_id))
                .audit()
                .append(&record);
        }
    }
    match render(&report, &session_id) {
        Some(text) => Answer::Report { text },
        None => Answer::Silent,
    }
}

/// Runs the SessionEnd hook and exits.
pub fn run_session_end() -> ! {
    let started = Instant::now();
    hook_io::run_hook(
        HookSpec {
            name: "tool-containment",
            input_limit: hook_io::DEFAULT_INPUT_LIMIT,
            deadline: SESSION_END_DEADLINE,
        },
        move |input| session_end(input, started),
        |_ctx, cause| Answer::Report {
            text: format!(
                "tool-containment (C7) FAILED: could not finish the session-end stop: {cause}"
            ),
        },
    )
}
