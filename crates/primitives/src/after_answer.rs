//! Work a hook does after its answer is out: the answer first (issue 47).
//!
//! The CLI waits for a hook's answer and lets the call through when none comes in time. Anything
//! the agent can hold (a lock on the audit log, a FIFO in place of a record, a stalled disk) must
//! therefore come *after* the answer is printed, and under a bound. A hook runner calls
//! [`start_deferring`] before its judge runs; from then on the stores hand their writes to
//! [`defer`] instead of doing them, and the runner calls [`run_within`] once the answer is out.
//! Outside a hook (tests, the admin binary, the exec gate) nothing is deferred: [`defer`] runs
//! the job at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

/// One piece of deferred work; its error is one line for stderr and the failure record.
pub type Job = Box<dyn FnOnce() -> Result<(), String> + Send + 'static>;

static DEFERRING: AtomicBool = AtomicBool::new(false);
static QUEUE: Mutex<Vec<Job>> = Mutex::new(Vec::new());

/// From now on this process defers its writes until the answer is out.
pub fn start_deferring() {
    DEFERRING.store(true, Ordering::SeqCst);
}

/// Whether writes are deferred (a hook that has not yet answered).
pub fn is_deferring() -> bool {
    DEFERRING.load(Ordering::SeqCst)
}

/// Runs `job` after the answer when deferring, else now. `Ok` when deferred: a deferred job's
/// failure is reported by [`run_within`], never to the caller, who must not wait on it.
pub fn defer(job: Job) -> Result<(), String> {
    if !is_deferring() {
        return job();
    }
    match QUEUE.lock() {
        Ok(mut q) => {
            q.push(job);
            Ok(())
        }
        // A poisoned queue (a panic while pushing) loses nothing more by running the job now.
        Err(_) => job(),
    }
}

/// What happened to the deferred work.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Jobs that ran to the end without an error.
    pub done: usize,
    /// One line per job that failed.
    pub errors: Vec<String>,
    /// Jobs still running or never started when the bound passed.
    pub unfinished: usize,
}

/// Runs every deferred job, in order, on a worker thread, waiting at most `bound` for them.
/// What is still running when the bound passes is counted and abandoned (the process is about to
/// exit, which ends it). Deferring stops: a job that defers more work runs it at once.
pub fn run_within(bound: Duration) -> Outcome {
    DEFERRING.store(false, Ordering::SeqCst);
    let jobs: Vec<Job> = match QUEUE.lock() {
        Ok(mut q) => std::mem::take(&mut *q),
        Err(p) => std::mem::take(&mut *p.into_inner()),
    };
    let total = jobs.len();
    let mut outcome = Outcome::default();
    if total == 0 {
        return outcome;
    }
    let (tx, rx) = mpsc::channel::<Result<(), String>>();
    let spawned = std::thread::Builder::new()
        .name("after-answer".into())
        .spawn(move || {
            for job in jobs {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job))
                    .unwrap_or_else(|_| Err("a deferred write panicked".into()));
                if tx.send(result).is_err() {
                    return;
                }
            }
        });
    if spawned.is_err() {
        outcome.unfinished = total;
        outcome
            .errors
            .push("could not start the thread for deferred writes".into());
        return outcome;
    }
    let until = Instant::now() + bound;
    for _ in 0..total {
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(Ok(())) => outcome.done += 1,
            Ok(Err(e)) => outcome.errors.push(e),
            Err(_) => break,
        }
    }
    outcome.unfinished = total - outcome.done - outcome.errors.len();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    /// One test owns the process-wide state: the steps run in sequence.
    #[test]
    fn deferred_work_runs_after_and_within_the_bound() {
        // Not deferring: the job runs at once and its error reaches the caller.
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        assert_eq!(
            defer(Box::new(move || {
                r.fetch_add(1, Ordering::SeqCst);
                Err("now".into())
            })),
            Err("now".into())
        );
        assert_eq!(ran.load(Ordering::SeqCst), 1);

        // Deferring: nothing runs until run_within; a job that hangs is abandoned at the bound.
        start_deferring();
        for i in 0..3 {
            let r = ran.clone();
            let job: Job = match i {
                0 => Box::new(move || {
                    r.fetch_add(1, Ordering::SeqCst);
                    Ok(())
                }),
                1 => Box::new(|| Err("audit log locked".into())),
                _ => Box::new(|| {
                    std::thread::sleep(Duration::from_secs(30));
                    Ok(())
                }),
            };
            assert_eq!(defer(job), Ok(()));
        }
        assert_eq!(
            ran.load(Ordering::SeqCst),
            1,
            "nothing ran before the answer"
        );
        let started = Instant::now();
        let outcome = run_within(Duration::from_millis(200));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the bound holds"
        );
        assert_eq!(
            outcome,
            Outcome {
                done: 1,
                errors: vec!["audit log locked".into()],
                unfinished: 1
            }
        );
        assert_eq!(ran.load(Ordering::SeqCst), 2);
        assert!(!is_deferring(), "after the flush, writes run at once");
    }
}
