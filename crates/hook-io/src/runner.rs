//! Running a hook: read, judge, answer — exactly once, whatever happens.
//!
//! The judge runs on a worker thread with a large stack, under `catch_unwind`. The main thread waits
//! for its answer until the deadline; if the deadline passes first, the failure answer is printed and
//! the process exits, so the harness never sees a hang. A panic, an unreadable payload or the deadline
//! each become a [`FailureCause`] that the binary turns into its deliberate answer (deny where its
//! requirement fails closed) and a one-line error on stderr.
//!
//! **The answer first** (issue 47). Every write a judge or a failure answer makes to state the
//! agent can touch (the audit log above all: one agent command can hold its lock) is deferred
//! ([`primitives::after_answer`]) and done only after the answer is printed, within
//! [`AFTER_ANSWER_BOUND`]; what did not land is said on stderr. The process then exits whatever
//! those writes do, so the CLI always gets the answer and an exit within the deadline plus that
//! bound.

use crate::answer::{Answer, Emitted};
use crate::input::{read_bounded, Event, HookInput, InputError};
use serde_json::Value;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a hook binary runs.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// The binary's name, used at the start of stderr lines.
    pub name: &'static str,
    /// Bound on the payload, in bytes.
    pub input_limit: usize,
    /// Total run time from process start until an answer must be printed.
    pub deadline: Duration,
}

/// Why the judge did not produce its own answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FailureCause {
    /// The payload could not be read.
    #[error("{0}")]
    Input(InputError),
    /// The judge panicked (its message).
    #[error("internal error: {0}")]
    Panic(String),
    /// The judge did not answer within the deadline.
    #[error("no verdict within {} ms", .0.as_millis())]
    Deadline(Duration),
}

impl FailureCause {
    /// The audit record of this failure: the binary, the payload's event, tool and session as far
    /// as they were read (`ctx`), the `decision` taken instead of a verdict, and the cause. The tool
    /// is left out when the payload named none (a Stop has none).
    pub fn audit_record(
        &self,
        ctx: &FailureContext,
        binary: &str,
        decision: session_store::Decision,
    ) -> Value {
        let mut record = serde_json::json!({
            "binary": binary,
            "event": ctx.event.as_ref().map(|e| e.name().to_string()),
            "session_id": ctx.session_id,
            "decision": decision.as_str(),
            "error": self.to_string(),
        });
        if let Some(tool) = &ctx.tool_name {
            record["tool_name"] = Value::from(tool.as_str());
        }
        record
    }
}

/// What is known about the payload when a failure happens after it was parsed.
#[derive(Debug, Clone, Default)]
pub struct FailureContext {
    /// The payload's event.
    pub event: Option<Event>,
    /// The payload's tool.
    pub tool_name: Option<String>,
    /// The payload's session.
    pub session_id: Option<String>,
}

static ANSWERED: AtomicBool = AtomicBool::new(false);

/// How long the writes deferred until after the answer may take before the process exits anyway.
/// Each waits for a lock at most [`primitives::no_wait::LOCK_BOUND`]; this bounds a stalled disk.
pub const AFTER_ANSWER_BOUND: Duration = Duration::from_millis(600);
static PANIC_MESSAGE: Mutex<Option<String>> = Mutex::new(None);

/// Prints `emitted`, then does the writes deferred until after the answer (within
/// [`AFTER_ANSWER_BOUND`], saying on stderr what did not land), and exits, unless another thread
/// already did; then this thread parks forever (the winner is exiting the process).
pub fn emit_and_exit(emitted: &Emitted) -> ! {
    if ANSWERED
        .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
    {
        let mut out = std::io::stdout().lock();
        // A write error (closed stdout) leaves nothing better to do than exit.
        let _ = out.write_all(emitted.stdout.as_bytes());
        let _ = out.write_all(b"\n");
        let _ = out.flush();
        drop(out);
        let after = primitives::after_answer::run_within(AFTER_ANSWER_BOUND);
        let mut e = std::io::stderr().lock();
        if let Some(err) = &emitted.stderr {
            let _ = e.write_all(err.as_bytes());
            let _ = e.write_all(b"\n");
        }
        if let Some(line) = after_answer_line(&after) {
            let _ = e.write_all(line.as_bytes());
            let _ = e.write_all(b"\n");
        }
        let _ = e.flush();
        std::process::exit(emitted.exit_code);
    }
    loop {
        std::thread::park();
    }
}

/// One stderr line on the deferred writes that did not land, or `None` when all did.
fn after_answer_line(after: &primitives::after_answer::Outcome) -> Option<String> {
    if after.errors.is_empty() && after.unfinished == 0 {
        return None;
    }
    let mut parts: Vec<String> = after.errors.iter().map(|e| one_line(e)).collect();
    if after.unfinished > 0 {
        parts.push(format!(
            "{} not finished within {} ms",
            after.unfinished,
            AFTER_ANSWER_BOUND.as_millis()
        ));
    }
    Some(format!(
        "agent-guards: the answer was given; records not written after it: {}",
        parts.join("; ")
    ))
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn install_quiet_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_string());
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut slot) = PANIC_MESSAGE.lock() {
            *slot = Some(format!("{}{}", one_line(&msg), location));
        }
    }));
}

enum Progress {
    Parsed(FailureContext),
    Answered(Answer),
    Failed(FailureCause),
}

/// Fault injection for tests of the failure paths: `AGENT_GUARDS_INJECT_FAULT=panic|hang` in the
/// hook's own environment makes the judge fail that way. It can only produce the failure answer.
fn injected_fault() -> Option<String> {
    std::env::var("AGENT_GUARDS_INJECT_FAULT")
        .ok()
        .filter(|v| !v.is_empty())
}

/// The longest stretch before [`run_hook`] that its deadline counts: the bounded reads a binary
/// does on its way in (the config, within 250 ms each).
pub const COUNTED_BEFORE_RUN: Duration = Duration::from_millis(500);

/// When this process started, as an [`Instant`]: the watchdog's deadline counts from there, so
/// whatever a binary reads before it calls [`run_hook`] (its config) is inside the deadline. Read
/// from `/proc/self/stat` (start time in clock ticks) against `/proc/uptime`; the stretch counted
/// is at most [`COUNTED_BEFORE_RUN`], and `now` when `/proc` cannot tell.
pub fn process_started() -> Instant {
    let now = Instant::now();
    let age = (|| {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let rest = stat.get(stat.rfind(')')? + 1..)?;
        // Field 22 (starttime) is the 20th after the command name.
        let ticks: f64 = rest.split_whitespace().nth(19)?.parse().ok()?;
        let uptime: f64 = std::fs::read_to_string("/proc/uptime")
            .ok()?
            .split_whitespace()
            .next()?
            .parse()
            .ok()?;
        // SAFETY: sysconf has no memory-safety preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        let hz = if hz > 0 { hz as f64 } else { 100.0 };
        let secs = (uptime - ticks / hz).max(0.0);
        Some(Duration::from_secs_f64(secs))
    })()
    .unwrap_or_default();
    now.checked_sub(age.min(COUNTED_BEFORE_RUN)).unwrap_or(now)
}

/// Runs a hook and exits. `judge` decides; `on_failure` turns any failure into the deliberate answer.
pub fn run_hook<J, F>(spec: HookSpec, judge: J, on_failure: F) -> !
where
    J: FnOnce(HookInput) -> Answer + Send + 'static,
    F: Fn(&FailureContext, &FailureCause) -> Answer,
{
    let started = process_started();
    install_quiet_panic_hook();
    // From here on, writes to state the agent can touch wait until the answer is out.
    primitives::after_answer::start_deferring();
    let (tx, rx) = mpsc::channel::<Progress>();
    let limit = spec.input_limit;
    let worker = std::thread::Builder::new()
        .name("judge".into())
        .stack_size(64 * 1024 * 1024)
        .spawn(move || {
            let bytes = match read_bounded(std::io::stdin().lock(), limit) {
                Ok(b) => b,
                Err(e) => {
                    let _ = tx.send(Progress::Failed(FailureCause::Input(e)));
                    return;
                }
            };
            let input = match HookInput::parse(&bytes) {
                Ok(i) => i,
                Err(e) => {
                    let _ = tx.send(Progress::Failed(FailureCause::Input(e)));
                    return;
                }
            };
            let _ = tx.send(Progress::Parsed(FailureContext {
                event: Some(input.event.clone()),
                tool_name: input.tool_name.clone(),
                session_id: input.session_id.clone(),
            }));
            // A call whose input has the wrong shape for its tool is not judged as "nothing to
            // judge": it fails as unreadable, which each guard answers (deny where it protects).
            if let Some(e) = input.malformed() {
                let _ = tx.send(Progress::Failed(FailureCause::Input(e)));
                return;
            }
            let fault = injected_fault();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                match fault.as_deref() {
                    Some("panic") => panic!("injected fault"),
                    Some("hang") => loop {
                        std::thread::sleep(Duration::from_secs(3600));
                    },
                    _ => {}
                }
                judge(input)
            }));
            let msg = match result {
                Ok(answer) => Progress::Answered(answer),
                Err(_) => {
                    let text = PANIC_MESSAGE
                        .lock()
                        .ok()
                        .and_then(|s| s.clone())
                        .unwrap_or_else(|| "panic".into());
                    Progress::Failed(FailureCause::Panic(text))
                }
            };
            let _ = tx.send(msg);
        });
    let mut context = FailureContext::default();
    if worker.is_err() {
        fail(
            &spec,
            &context,
            FailureCause::Panic("could not start the judge thread".into()),
            &on_failure,
        );
    }
    loop {
        let remaining = spec.deadline.saturating_sub(started.elapsed());
        match rx.recv_timeout(remaining) {
            Ok(Progress::Parsed(c)) => context = c,
            Ok(Progress::Answered(answer)) => emit_and_exit(&answer.render()),
            Ok(Progress::Failed(cause)) => fail(&spec, &context, cause, &on_failure),
            Err(mpsc::RecvTimeoutError::Timeout) => fail(
                &spec,
                &context,
                FailureCause::Deadline(spec.deadline),
                &on_failure,
            ),
            Err(mpsc::RecvTimeoutError::Disconnected) => fail(
                &spec,
                &context,
                FailureCause::Panic("the judge ended without an answer".into()),
                &on_failure,
            ),
        }
    }
}

fn fail<F>(spec: &HookSpec, context: &FailureContext, cause: FailureCause, on_failure: &F) -> !
where
    F: Fn(&FailureContext, &FailureCause) -> Answer,
{
    // The failure answer itself must not be able to take the process down.
    let answer =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| on_failure(context, &cause)))
            .unwrap_or(Answer::Silent);
    let mut emitted = answer.render();
    let line = format!("{}: {}", spec.name, one_line(&cause.to_string()));
    emitted.stderr = Some(match emitted.stderr.take() {
        Some(existing) => format!("{line}\n{existing}"),
        None => line,
    });
    emit_and_exit(&emitted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_record_names_what_was_read() {
        let ctx = FailureContext {
            event: Some(Event::Stop),
            tool_name: None,
            session_id: Some("s1".into()),
        };
        let record = FailureCause::Panic("boom".into()).audit_record(
            &ctx,
            "b",
            session_store::Decision::AllowUnjudged,
        );
        assert_eq!(
            record,
            serde_json::json!({"binary": "b", "event": "Stop", "session_id": "s1",
                "decision": "allow_unjudged", "error": "internal error: boom"})
        );
        let ctx = FailureContext {
            tool_name: Some("Bash".into()),
            ..FailureContext::default()
        };
        let record = FailureCause::Panic("x".into()).audit_record(
            &ctx,
            "b",
            session_store::Decision::Failure,
        );
        assert_eq!(record["tool_name"], "Bash");
        assert_eq!(record["event"], Value::Null);
    }
}
