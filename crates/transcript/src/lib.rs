//! Reading Claude Code transcripts (`transcript_path`, JSON lines), shared by the hooks that need
//! them (egress-audit, integrity-signals).
//!
//! * [`last_text`] — the agent's last assistant text;
//! * [`tool_results`] — tool calls, newest first, and the results that came back for them.
//!
//! Only the tail of a large file is read ([`read_tail`]), so a long session cannot make a hook slow,
//! and the format is read leniently: lines that do not parse are skipped (the format is internal to
//! the CLI and changes between versions).

#![warn(missing_docs)]

pub mod last_text;
mod light;
#[cfg(any(test, feature = "test-support"))]
pub mod test_lines;
pub mod tool_results;

pub use last_text::{last_assistant_text, last_assistant_text_in};
pub use tool_results::{calls_newest_first, calls_newest_first_in_file, CallRef, ToolResult};

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// How much of the end of a transcript we read.
pub const TAIL_BYTES: u64 = 16 * 1024 * 1024;

/// Reads at most the last `max` bytes of the file at `path`. The open never waits: anything but
/// a regular file (a FIFO the agent put in the transcript's place) is an error, not a hang.
pub fn read_tail(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let mut f = primitives::no_wait::open_regular(path, std::fs::OpenOptions::new().read(true))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let len = f
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    let start = len.saturating_sub(max);
    f.seek(SeekFrom::Start(start))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::with_capacity(usize::try_from(len - start).unwrap_or(0));
    f.take(max)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes)
}
