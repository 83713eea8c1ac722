//! Audit records exported to an OpenTelemetry collector (issue 45, items 1 and 2): each line of
//! each session's `audit.jsonl` becomes one OTLP log record, POSTed as OTLP/HTTP protobuf.
//!
//! Off by default: on when config `otlp_endpoint` or `OTEL_EXPORTER_OTLP_ENDPOINT` names a
//! collector ([`endpoint`]). Hooks never wait on the network and write nothing more: the sender
//! ([`flush()`]) reads what the logs already hold from a per-session cursor ([`cursor`]), outside
//! every hook's answer path: in the detached [`sender`] integrity-signals starts after its
//! SessionEnd and Stop answers, or the `audit-export flush` command. [`status`] is what the
//! report shows.
//!
//! * [`proto`] — the OTLP messages (prost derive, mirroring opentelemetry-proto);
//! * [`encode`] — one audit line to one log record, a batch to the request bytes (pure);
//! * [`batch`] — complete lines and batches (pure);
//! * [`endpoint`] — the endpoint and headers from config and environment (pure);
//! * [`cursor`] — the per-session position, written new-then-rename;
//! * [`file`](mod@file) — the exporter's small JSON files (bounded reads, atomic writes);
//! * [`send`] — one POST within the time left;
//! * [`flush`](mod@flush) — the sender run and its guarantees;
//! * [`sender`] — the detached sender that outlives the hook: who starts it, when, its rounds;
//! * [`state`] — the last sent, the last error, for the report.

#![warn(missing_docs)]

pub mod batch;
pub mod cursor;
pub mod encode;
pub mod endpoint;
pub mod file;
pub mod flush;
pub mod proto;
pub mod send;
pub mod sender;
pub mod state;

pub use endpoint::Endpoint;
pub use flush::flush_with;
pub use state::{Failure, Sent};

use std::path::Path;
use std::time::{Duration, Instant};

/// Errors at the crate's boundary, each one line.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The endpoint named is not usable (nothing is exported until it is fixed).
    #[error("OTLP export: {0}")]
    Config(String),
    /// The HTTP client could not be built.
    #[error("OTLP export: no HTTP client: {0}")]
    Client(String),
    /// A file of the exporter (a log, a cursor, the state) could not be read or written.
    #[error("OTLP export: {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
}

/// The sender's bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes of one session's log left unsent before the oldest are skipped ("queue
    /// full").
    pub max_queue_bytes: u64,
    /// The most records in one request.
    pub batch_records: usize,
    /// About the most bytes of records in one request (a longer record goes alone).
    pub batch_bytes: usize,
    /// The longest wait for one request's answer (less when the deadline is nearer).
    pub request_timeout: Duration,
}

/// The queue bound per session: 8 MiB of audit lines (about 16,000 records).
pub const DEFAULT_MAX_QUEUE_BYTES: u64 = 8 * 1024 * 1024;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_queue_bytes: DEFAULT_MAX_QUEUE_BYTES,
            batch_records: 512,
            batch_bytes: 1024 * 1024,
            request_timeout: Duration::from_secs(5),
        }
    }
}

/// An exporter that is on: where to, and its bounds.
#[derive(Debug, Clone)]
pub struct Exporter {
    /// The collector's logs URL and headers.
    pub endpoint: Endpoint,
    /// The bounds.
    pub limits: Limits,
}

impl Exporter {
    /// The exporter the launch environment `env` and `config` name; `Ok(None)` when off.
    pub fn from_config(
        env: &dyn Fn(&str) -> Option<String>,
        config: &guard_config::Config,
    ) -> Result<Option<Exporter>, ExportError> {
        Ok(
            endpoint::resolve(env, config.otlp_endpoint.as_deref())?.map(|endpoint| Exporter {
                endpoint,
                limits: Limits::default(),
            }),
        )
    }

    /// The exporter of this process's environment and config file.
    pub fn from_process() -> Result<Option<Exporter>, ExportError> {
        Exporter::from_config(&|k| std::env::var(k).ok(), &guard_config::load().config)
    }
}

/// What one sender run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlushReport {
    /// The exporter is off (no endpoint): nothing was read.
    pub disabled: bool,
    /// Another sender was running: this one did nothing (it never waits for it).
    pub busy: bool,
    /// Records the collector took (2xx).
    pub sent: u64,
    /// Requests that got a 2xx.
    pub batches: u64,
    /// Records skipped in this run because a session's queue was full.
    pub skipped: u64,
    /// The failure that stopped the run (the collector down, slow or refusing), if any.
    pub error: Option<String>,
    /// A partial success the collector answered (records it read and rejected).
    pub rejected: Option<String>,
    /// The deadline came before everything was sent.
    pub out_of_time: bool,
}

/// One sender run with the process's config, returning by `deadline`.
pub fn flush(state_dir: &Path, deadline: Instant) -> Result<FlushReport, ExportError> {
    match Exporter::from_process()? {
        Some(exporter) => flush_with(state_dir, &exporter, deadline),
        None => Ok(FlushReport {
            disabled: true,
            ..FlushReport::default()
        }),
    }
}

/// What is waiting to be sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Queued {
    /// Complete records not yet sent (within each session's bound).
    pub records: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Sessions with records waiting.
    pub sessions: usize,
}

/// The queue bound's count: records never sent because a session's queue was full.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueFull {
    /// Records skipped so far (they remain in their sessions' `audit.jsonl`).
    pub skipped_records: u64,
    /// Their bytes.
    pub skipped_bytes: u64,
    /// Sessions over the bound now (their oldest records will be skipped at the next run).
    pub over_bound_sessions: usize,
    /// The bound, per session.
    pub bound_bytes: u64,
}

/// The exporter's state, for `agent-guards report`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExporterStatus {
    /// The collector's logs URL and where it was named; `None`: off.
    pub endpoint: Option<(String, &'static str)>,
    /// An endpoint that is named but unusable (the exporter is off until it is fixed).
    pub config_error: Option<String>,
    /// What waits to be sent (nothing is counted while off).
    pub queued: Queued,
    /// Set when the queue bound has skipped records or will at the next run.
    pub queue_full: Option<QueueFull>,
    /// The last run that sent records.
    pub last_sent: Option<Sent>,
    /// The last failure.
    pub last_error: Option<Failure>,
    /// Records sent in all runs.
    pub sent_total: u64,
}

/// The exporter's state with the process's config (bounded reads only; sends nothing).
pub fn status(state_dir: &Path) -> ExporterStatus {
    match Exporter::from_process() {
        Ok(exporter) => status_with(state_dir, exporter.as_ref()),
        Err(e) => ExporterStatus {
            config_error: Some(match e {
                ExportError::Config(why) => why,
                other => other.to_string(),
            }),
            ..status_with(state_dir, None)
        },
    }
}

/// The exporter's state for `exporter` (`None`: off).
pub fn status_with(state_dir: &Path, exporter: Option<&Exporter>) -> ExporterStatus {
    let st = state::read(state_dir);
    let mut out = ExporterStatus {
        endpoint: exporter.map(|e| (e.endpoint.url.clone(), e.endpoint.source)),
        last_sent: st.last_sent,
        last_error: st.last_error,
        sent_total: st.sent_total,
        ..ExporterStatus::default()
    };
    let Some(exporter) = exporter else {
        return out;
    };
    let bound = exporter.limits.max_queue_bytes.max(1);
    let mut full = QueueFull {
        bound_bytes: bound,
        ..QueueFull::default()
    };
    for s in flush::sessions(state_dir) {
        let cur = cursor::read(&s.dir);
        full.skipped_records += cur.skipped_records;
        full.skipped_bytes += cur.skipped_bytes;
        if cur.log.ino != 0 && cur.offset == s.len {
            continue;
        }
        let Ok((mut file, identity, len)) = cursor::open_log(&s.log) else {
            continue;
        };
        let cur = cursor::for_log(cur, identity, len);
        let unsent = len - cur.offset;
        if unsent == 0 {
            continue;
        }
        if unsent > bound {
            full.over_bound_sessions += 1;
        }
        // The window the next run sends, with the byte before it: a window that starts inside
        // a line (the bound cut there) sends from the next line, as the run does.
        let from = len - unsent.min(bound);
        let before = from.saturating_sub(1);
        let mut tail = Vec::new();
        use std::io::{Read, Seek, SeekFrom};
        if file.seek(SeekFrom::Start(before)).is_ok()
            && (&mut file)
                .take(len - before)
                .read_to_end(&mut tail)
                .is_ok()
        {
            let start = match (from > 0, tail.first()) {
                (true, Some(b'\n')) => 1,
                (true, _) => tail
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(tail.len(), |p| p + 1),
                (false, _) => 0,
            };
            let tail = &tail[start..];
            let (_, used) = batch::complete_lines(tail);
            let records = batch::count_lines(&tail[..used]);
            if records > 0 {
                out.queued.records += records;
                out.queued.bytes += used as u64;
                out.queued.sessions += 1;
            }
        }
    }
    if full.skipped_records > 0 || full.over_bound_sessions > 0 {
        out.queue_full = Some(full);
    }
    out
}

fn count(n: u64, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

impl std::fmt::Display for ExporterStatus {
    /// The report's lines, one fact each.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.endpoint, &self.config_error) {
            (_, Some(e)) => writeln!(f, "OTLP export: off ({e})")?,
            (None, None) => writeln!(
                f,
                "OTLP export: off (set otlp_endpoint or OTEL_EXPORTER_OTLP_ENDPOINT to send audit records to a collector)"
            )?,
            (Some((url, source)), None) => writeln!(f, "OTLP export: on, to {url} (from {source})")?,
        }
        if self.endpoint.is_some() {
            writeln!(
                f,
                "  queued: {} ({}) in {}",
                count(self.queued.records, "record"),
                size(self.queued.bytes),
                count(self.queued.sessions as u64, "session")
            )?;
        }
        if let Some(q) = &self.queue_full {
            writeln!(
                f,
                "  queue full: {} ({}) not sent because their session had more than {} unsent (the oldest are skipped; they remain in the session's audit.jsonl); {} over the bound now",
                count(q.skipped_records, "record"),
                size(q.skipped_bytes),
                size(q.bound_bytes),
                count(q.over_bound_sessions as u64, "session")
            )?;
        }
        match &self.last_sent {
            Some(s) => writeln!(
                f,
                "  last sent: {} ({}; {} in all)",
                s.time,
                count(s.records, "record"),
                self.sent_total
            )?,
            None if self.endpoint.is_some() => writeln!(f, "  last sent: never")?,
            None => {}
        }
        if let Some(e) = &self.last_error {
            writeln!(f, "  last error: {}: {}", e.time, e.message)?;
        }
        Ok(())
    }
}
