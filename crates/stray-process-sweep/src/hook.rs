//! The hook events: SessionEnd sweeps and reports; SessionStart repeats an unread report.

use crate::s1_discovery::Query;
use crate::s3_delivery::{recheck, start_message, store, take_unread};
use crate::sweep::{sweep, Request};
use hook_io::{Answer, Event, HookInput, HookSpec};
use std::path::Path;
use std::time::{Duration, Instant};

/// Inside the CLI's default 1.5 s SessionEnd budget, with room to print.
pub const DEADLINE: Duration = Duration::from_millis(1400);
/// The table read stops this long before the deadline.
const READ_MARGIN: Duration = Duration::from_millis(400);

fn env(k: &str) -> Option<String> {
    std::env::var(k).ok()
}

/// The project a report belongs to: `CLAUDE_PROJECT_DIR`, else the payload's `cwd`.
fn project(input: &HookInput) -> Option<String> {
    env("CLAUDE_PROJECT_DIR")
        .filter(|p| !p.is_empty())
        .or_else(|| input.cwd.clone())
}

/// Judges one payload.
pub fn judge(input: HookInput, started: Instant) -> Answer {
    match input.event {
        Event::SessionEnd => session_end(&input, started),
        Event::SessionStart => session_start(&input),
        _ => Answer::Silent,
    }
}

fn session_end(input: &HookInput, started: Instant) -> Answer {
    if !crate::s4_limits::PROCESS_TABLE_HERE {
        return Answer::Report {
            text: crate::s4_limits::no_process_table(),
        };
    }
    let session_id = input
        .session_id
        .clone()
        .or_else(|| env("CLAUDE_CODE_SESSION_ID"))
        .unwrap_or_default();
    let req = Request {
        query: Query {
            session_id: session_id.clone(),
            reason: input.reason.clone(),
            self_pid: std::process::id() as i32,
            uid: nix::unistd::geteuid().as_raw(),
        },
        claude_pid: env("CLAUDE_PID").and_then(|p| p.trim().parse().ok()),
        project: project(input),
        deadline: started + DEADLINE.saturating_sub(READ_MARGIN),
        suite_own: match session_store::state_dir(&env) {
            // The session's exec-gate supervisors and the state folder's OTLP sender.
            Ok(dir) => session_store::Session::new(&dir, Some(&session_id))
                .supervisor_processes()
                .into_iter()
                .chain(session_store::paths::otlp_sender(&dir))
                .collect(),
            Err(_) => Vec::new(),
        },
    };
    let mut report = sweep(Path::new("/proc"), &req);
    if report.text.is_empty() {
        return Answer::Silent;
    }
    match session_store::state_dir(&env) {
        Ok(dir) => {
            if let Err(e) = store(&dir, &report) {
                report.text.push_str(&format!(
                    "\nstray-process-sweep ({}): could not store the JSON copy: {e}",
                    crate::codes::S3_NOT_STORED
                ));
            }
        }
        Err(e) => report.text.push_str(&format!(
            "\nstray-process-sweep ({}): no state dir: {e}",
            crate::codes::S3_NO_STATE_DIR
        )),
    }
    Answer::Report { text: report.text }
}

fn session_start(input: &HookInput) -> Answer {
    let lost = session_store::state_dir(&env)
        .ok()
        .and_then(|d| undelivered_notice(&d));
    match (sweep_notice(input), lost) {
        (Answer::Notice { system_message }, Some(l)) => Answer::Notice {
            system_message: format!("{system_message}\n{l}"),
        },
        (Answer::Silent, Some(l)) => Answer::Notice { system_message: l },
        (answer, _) => answer,
    }
}

/// Audit records the hooks could not write since the last SessionStart said so (issue 47: the
/// answer comes first, so a held or replaced log loses its record, and the maintainer is told
/// here and in `agent-guards report`). The file is kept as said, once.
fn undelivered_notice(state_dir: &Path) -> Option<String> {
    let file = state_dir.join(session_store::audit::UNDELIVERED_FILE);
    let (count, last) = session_store::audit::undelivered_in(&file)?;
    let said = file.with_extension("jsonl.said");
    // Said once: the next SessionStart is quiet unless more were lost.
    if std::fs::rename(&file, &said).is_err() {
        return None;
    }
    Some(format!(
        "agent-guards: {count} audit record(s) could not be written since the last session start (the last at {}: {}); `agent-guards report` shows them",
        last["time"].as_str().unwrap_or("?"),
        hook_io::escape_text(last["error"].as_str().unwrap_or("?"), 200)
    ))
}

/// The last session's unread sweep report, repeated once.
fn sweep_notice(input: &HookInput) -> Answer {
    // No sweep runs where the table cannot be read, so there is no report to repeat.
    if !crate::s4_limits::PROCESS_TABLE_HERE {
        return Answer::Silent;
    }
    let Some(project) = project(input) else {
        return Answer::Silent;
    };
    let Ok(dir) = session_store::state_dir(&env) else {
        return Answer::Silent;
    };
    match take_unread(&dir, &project) {
        Ok(Some(report)) => {
            let live = recheck(&report, Path::new("/proc"));
            match start_message(&report, &live) {
                Some(system_message) => Answer::Notice { system_message },
                None => Answer::Silent,
            }
        }
        Ok(None) => Answer::Silent,
        Err(e) => Answer::Notice {
            system_message: format!(
                "stray-process-sweep: could not read the last session's report: {e}"
            ),
        },
    }
}

/// Runs the hook and exits.
pub fn run() -> ! {
    let started = Instant::now();
    hook_io::run_hook(
        HookSpec {
            name: "stray-process-sweep",
            input_limit: hook_io::DEFAULT_INPUT_LIMIT,
            deadline: DEADLINE,
        },
        move |input| judge(input, started),
        |ctx, cause| match ctx.event {
            Some(Event::SessionStart) => Answer::Silent,
            _ => Answer::Report {
                text: format!(
                    "stray-process-sweep ({}) COULD NOT COMPLETE: {cause}",
                    crate::codes::S3_HOOK_FAILED
                ),
            },
        },
    )
}
