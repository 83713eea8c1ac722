//! The sender run: every session's unsent records, in batches, to the collector, within a
//! deadline. Called by the detached sender (`crate::sender`) or the command; what one
//! run leaves, the next picks up, since the position is in each session's cursor.
//!
//! The guarantees, and where each comes from:
//! * nothing is lost while the collector is down, slow or refusing: records stay in the logs, and
//!   a cursor moves only after a 2xx answer to the batch it covers;
//! * nothing is sent twice after a success: the cursor is written (new-then-rename) right after
//!   each 2xx, and one sender runs at a time (a lock taken without waiting). A crash, or a failed
//!   cursor write, between the 2xx and the rename resends that one batch on the next run; so
//!   does a collector that took a batch but answered after our timeout;
//! * a bound: past `Limits::max_queue_bytes` unsent in one session the oldest records are not
//!   sent ("queue full"); they are counted in the cursor, shown by `status`, and remain in the
//!   session's `audit.jsonl`;
//! * a deadline: no request outlives the time left; the run returns by it.

use crate::batch::{complete_lines, count_lines, plan};
use crate::cursor::{self, Cursor};
use crate::encode::{encode, Origin};
use crate::send::Sender;
use crate::state::{self, Failure, Sent};
use crate::{ExportError, Exporter, FlushReport};
use primitives::no_wait::open_regular;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The most session folders one run looks at.
pub const MAX_SESSIONS: usize = 10_000;

/// One session's log, to be read.
#[derive(Debug, Clone)]
pub(crate) struct SessionLog {
    pub dir: PathBuf,
    pub log: PathBuf,
    pub name: String,
    pub len: u64,
    pub modified: SystemTime,
}

/// The sessions of `state_dir` that have an audit log, least recently written first (so a later
/// session's run also carries what an earlier one left).
pub(crate) fn sessions(state_dir: &Path) -> Vec<SessionLog> {
    let Ok(dir) = std::fs::read_dir(state_dir.join("sessions")) else {
        return Vec::new();
    };
    let mut out: Vec<SessionLog> = dir
        .flatten()
        .take(MAX_SESSIONS)
        .filter_map(|e| {
            let dir = e.path();
            let log = dir.join("audit.jsonl");
            let meta = std::fs::symlink_metadata(&log).ok()?;
            meta.is_file().then(|| SessionLog {
                name: e.file_name().to_string_lossy().into_owned(),
                len: meta.len(),
                modified: meta.modified().unwrap_or(UNIX_EPOCH),
                dir,
                log,
            })
        })
        .collect();
    out.sort_by_key(|s| s.modified);
    out
}

pub(crate) fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that many bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    if rc == 0 && end > 0 {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "unknown".to_string()
    }
}

fn now_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn io_err(path: &Path, source: std::io::Error) -> ExportError {
    ExportError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Lines in `len` bytes of `file` from `from`, read in pieces (the skipped part of a long log is
/// counted, never held in memory).
fn lines_in(file: &mut File, from: u64, len: u64) -> std::io::Result<u64> {
    file.seek(SeekFrom::Start(from))?;
    let mut left = len;
    let mut buf = vec![0u8; 64 * 1024];
    let mut n = 0;
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        let got = file.read(&mut buf[..want])?;
        if got == 0 {
            break;
        }
        n += count_lines(&buf[..got]);
        left -= got as u64;
    }
    Ok(n)
}

/// Applies the queue bound: when more than `bound` bytes of `len` are unsent, the cursor moves to
/// `len - bound` and what it passed is counted as skipped. Returns whether it moved.
pub(crate) fn apply_bound(
    file: &mut File,
    cur: &mut Cursor,
    len: u64,
    bound: u64,
) -> std::io::Result<bool> {
    if len.saturating_sub(cur.offset) <= bound {
        return Ok(false);
    }
    let to = len - bound;
    let lines = lines_in(file, cur.offset, to - cur.offset)?;
    let mut before = [0u8; 1];
    file.seek(SeekFrom::Start(to - 1))?;
    file.read_exact(&mut before)?;
    cur.skipped_records += lines;
    cur.skipped_bytes += to - cur.offset;
    cur.offset = to;
    cur.resync = before[0] != b'\n';
    Ok(true)
}

/// What one session's turn ended with.
enum Turn {
    Done,
    OutOfTime,
    Failed(String),
}

/// Sends one session's unsent records.
fn session_turn(
    s: &SessionLog,
    sender: &Sender,
    exporter: &Exporter,
    host: &str,
    deadline: Instant,
    report: &mut FlushReport,
) -> Result<Turn, ExportError> {
    let saved = cursor::read(&s.dir);
    if saved.log.ino != 0 && saved.offset == s.len && !saved.resync {
        // Fast path: nothing new since the last run (the identity is checked when it grows).
        return Ok(Turn::Done);
    }
    let (mut file, identity, len) = match cursor::open_log(&s.log) {
        Ok(x) => x,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Turn::Done),
        Err(e) => return Err(io_err(&s.log, e)),
    };
    let mut cur = cursor::for_log(saved.clone(), identity, len);
    let bound = exporter.limits.max_queue_bytes.max(1);
    let skipped_before = cur.skipped_records;
    let moved = apply_bound(&mut file, &mut cur, len, bound).map_err(|e| io_err(&s.log, e))?;
    // The window: everything unsent (at most the bound).
    file.seek(SeekFrom::Start(cur.offset))
        .map_err(|e| io_err(&s.log, e))?;
    let mut data = Vec::new();
    (&mut file)
        .take(len - cur.offset)
        .read_to_end(&mut data)
        .map_err(|e| io_err(&s.log, e))?;
    let mut base = cur.offset;
    if cur.resync {
        match data.iter().position(|b| *b == b'\n') {
            Some(p) => {
                cur.skipped_records += 1;
                cur.skipped_bytes += p as u64 + 1;
                cur.offset += p as u64 + 1;
                cur.resync = false;
                data.drain(..=p);
                base = cur.offset;
            }
            None => data.clear(),
        }
    }
    report.skipped += cur.skipped_records - skipped_before;
    if moved || cur != saved {
        cursor::write(&s.dir, &cur).map_err(|e| io_err(&cursor::path_in(&s.dir), e))?;
    }
    let (lines, _) = complete_lines(&data);
    let lengths: Vec<usize> = lines.iter().map(|r| r.len() + 1).collect();
    let session_id = (s.name != "_no-session").then_some(s.name.as_str());
    let mut at = 0;
    for n in plan(
        &lengths,
        exporter.limits.batch_records,
        exporter.limits.batch_bytes,
    ) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left < Duration::from_millis(5) {
            return Ok(Turn::OutOfTime);
        }
        let batch: Vec<String> = lines[at..at + n]
            .iter()
            .map(|r| String::from_utf8_lossy(&data[r.clone()]).into_owned())
            .collect();
        let texts: Vec<&str> = batch.iter().map(String::as_str).collect();
        let origin = Origin {
            session_id,
            host_name: host,
            sender_pid: std::process::id(),
            observed_unix_nano: now_nanos(),
        };
        let body = encode(&texts, &origin);
        match sender.post(body, left.min(exporter.limits.request_timeout)) {
            Ok(accepted) => {
                // Past the batch's last newline: the next line's start.
                cur.offset = base + lines[at + n - 1].end as u64 + 1;
                cur.sent += n as u64;
                report.sent += n as u64;
                report.batches += 1;
                if let Some((count, message)) = accepted.rejected {
                    report.rejected = Some(format!(
                        "the collector took the batch but rejected {count} records: {message}"
                    ));
                }
                cursor::write(&s.dir, &cur).map_err(|e| io_err(&cursor::path_in(&s.dir), e))?;
            }
            Err(e) => return Ok(Turn::Failed(e)),
        }
        at += n;
    }
    Ok(Turn::Done)
}

/// One sender run with `exporter` over the sessions of `state_dir`, returning by `deadline`.
/// Takes the sender's lock without waiting: when another sender holds it, says "busy".
pub fn flush_with(
    state_dir: &Path,
    exporter: &Exporter,
    deadline: Instant,
) -> Result<FlushReport, ExportError> {
    if !state_dir.join("sessions").is_dir() {
        return Ok(FlushReport::default());
    }
    let Some(lock) = try_lock(state_dir)? else {
        return Ok(FlushReport {
            busy: true,
            ..FlushReport::default()
        });
    };
    let result = flush_held(state_dir, exporter, deadline);
    let _ = lock.unlock();
    result
}

/// The sender's lock of `state_dir`, taken without waiting; `None` when another sender holds it.
/// Held for as long as the returned file is open.
pub(crate) fn try_lock(state_dir: &Path) -> Result<Option<File>, ExportError> {
    let lock_path = state_dir.join(state::LOCK_FILE);
    let lock = open_regular(&lock_path, OpenOptions::new().create(true).append(true))
        .map_err(|e| io_err(&lock_path, e))?;
    Ok(lock.try_lock().is_ok().then_some(lock))
}

/// One run with the lock already held by the caller ([`try_lock`]): the command's run takes it
/// for one run, the detached sender for its whole life (a second flock from the same process
/// would find it taken).
pub(crate) fn flush_held(
    state_dir: &Path,
    exporter: &Exporter,
    deadline: Instant,
) -> Result<FlushReport, ExportError> {
    let mut report = FlushReport::default();
    let sender = Sender::new(&exporter.endpoint.url, &exporter.endpoint.headers)
        .map_err(ExportError::Client)?;
    let host = host_name();
    let mut result = Ok(());
    for s in sessions(state_dir) {
        match session_turn(&s, &sender, exporter, &host, deadline, &mut report) {
            Ok(Turn::Done) => {}
            Ok(Turn::OutOfTime) => {
                report.out_of_time = true;
                break;
            }
            Ok(Turn::Failed(e)) => {
                report.error = Some(e);
                break;
            }
            // A log or cursor that cannot be read or written: said, and the others still go.
            Err(e) => {
                if report.error.is_none() {
                    report.error = Some(e.to_string());
                }
            }
        }
        if Instant::now() >= deadline {
            report.out_of_time = true;
            break;
        }
    }
    let mut st = state::read(state_dir);
    let now = primitives::time::now_rfc3339();
    if report.sent > 0 {
        st.last_sent = Some(Sent {
            time: now.clone(),
            records: report.sent,
        });
        st.sent_total += report.sent;
    }
    if let Some(message) = report.error.clone().or(report.rejected.clone()) {
        st.last_error = Some(Failure { time: now, message });
    }
    if report.sent > 0 || report.error.is_some() || report.rejected.is_some() {
        if let Err(e) = state::write(state_dir, &st) {
            result = Err(io_err(&state::path(state_dir), e));
        }
    }
    result.map(|()| report)
}
