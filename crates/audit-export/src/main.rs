//! `audit-export`: the sender run and the exporter's state from the command line, for the
//! maintainer (the hooks start the detached sender: `audit_export::sender`).
//!
//! `audit-export flush [--deadline-ms N]` sends what the session logs hold (default deadline
//! 5000 ms) and prints one line; `audit-export status` prints the exporter's state. Exit 0 when
//! everything went (or the exporter is off), 3 when something is left for a later run, 2 on a
//! usage or configuration error.

use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: audit-export flush [--deadline-ms N] | status\n\
  flush   send the audit records not yet sent to the OTLP collector, returning by the deadline\n\
  status  the exporter's endpoint, queue, last sent and last error";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let state_dir = match session_store::state_dir(&|k| std::env::var(k).ok()) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("audit-export: {e}");
            return ExitCode::from(2);
        }
    };
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["status"] => {
            print!("{}", audit_export::status(&state_dir));
            ExitCode::SUCCESS
        }
        ["flush"] => flush(&state_dir, 5000),
        ["flush", "--deadline-ms", ms] => match ms.parse() {
            Ok(ms) => flush(&state_dir, ms),
            Err(_) => usage(),
        },
        ["--help"] | ["-h"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}

fn flush(state_dir: &std::path::Path, ms: u64) -> ExitCode {
    let deadline = Instant::now() + Duration::from_millis(ms);
    match audit_export::flush(state_dir, deadline) {
        Ok(r) if r.disabled => {
            println!("OTLP export: off");
            ExitCode::SUCCESS
        }
        Ok(r) if r.busy => {
            println!("OTLP export: another sender is running; it sends what is queued");
            ExitCode::SUCCESS
        }
        Ok(r) => {
            let mut line = format!(
                "OTLP export: {} records sent in {} requests",
                r.sent, r.batches
            );
            if r.skipped > 0 {
                line.push_str(&format!("; queue full: {} records skipped", r.skipped));
            }
            if let Some(e) = &r.error {
                line.push_str(&format!("; stopped: {e} (the rest waits for the next run)"));
            } else if r.out_of_time {
                line.push_str("; out of time (the rest waits for the next run)");
            }
            println!("{line}");
            if r.error.is_some() || r.out_of_time {
                ExitCode::from(3)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
