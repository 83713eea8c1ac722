//! Runs a child process with a hard deadline: output captured on reader threads, the child's
//! whole process group killed when the deadline passes, and output reading itself bounded so a
//! grandchild that keeps a pipe open cannot hang the test. (The end-to-end harness runs the
//! Claude Code CLI through it; [`crate::process`] is the runner for one hook call.)

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Largest stdout/stderr kept per stream.
const MAX_CAPTURE: u64 = 16 * 1024 * 1024;
/// How long to wait for the pipes to close after the child exited or was killed.
const DRAIN_GRACE: Duration = Duration::from_secs(5);

/// What a bounded run produced.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// `None` when the child was killed for its deadline.
    pub status: Option<ExitStatus>,
    /// Captured stdout (at most 16 MiB), lossily UTF-8.
    pub stdout: String,
    /// Captured stderr (at most 16 MiB), lossily UTF-8.
    pub stderr: String,
    /// The deadline passed and the child's process group was killed.
    pub timed_out: bool,
    /// From spawn to the end of output collection.
    pub elapsed: Duration,
}

impl RunOutput {
    /// The child exited on its own with status 0.
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// How the run ended, for a failure message.
    pub fn status_text(&self) -> String {
        match self.status {
            _ if self.timed_out => format!("killed after {:?}", self.elapsed),
            Some(s) => s.to_string(),
            None => "no status".into(),
        }
    }
}

fn spawn_reader(stream: Option<impl Read + Send + 'static>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    if let Some(stream) = stream {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stream.take(MAX_CAPTURE).read_to_end(&mut buf);
            let _ = tx.send(String::from_utf8_lossy(&buf).into_owned());
        });
    }
    rx
}

/// Runs `cmd` (stdin closed) in a new process group; kills the group after `timeout`.
pub fn run_bounded(cmd: &mut Command, timeout: Duration) -> std::io::Result<RunOutput> {
    run_bounded_from(cmd, Stdio::null(), timeout)
}

/// [`run_bounded`] with `stdin` (a file, say: writing a pipe could itself wait on the child).
pub fn run_bounded_from(
    cmd: &mut Command,
    stdin: Stdio,
    timeout: Duration,
) -> std::io::Result<RunOutput> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let stdout = spawn_reader(child.stdout.take());
    let stderr = spawn_reader(child.stderr.take());
    let deadline = start + timeout;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            timed_out = true;
            kill_group(child.id());
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let drain_deadline = Instant::now() + DRAIN_GRACE;
    let collect = |rx: mpsc::Receiver<String>| {
        rx.recv_timeout(drain_deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| "<output still open after exit; not collected>".into())
    };
    let stdout = collect(stdout);
    let stderr = collect(stderr);
    Ok(RunOutput {
        status,
        stdout,
        stderr,
        timed_out,
        elapsed: start.elapsed(),
    })
}

fn kill_group(pid: u32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) with a negative pid signals the process group we created for the child;
    // it touches no memory of ours.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> RunOutput {
        run_bounded(Command::new("sh").args(["-c", script]), timeout).unwrap()
    }

    #[test]
    fn captures_output_and_status() {
        let out = sh("echo out; echo err >&2; exit 3", Duration::from_secs(30));
        assert_eq!(out.stdout, "out\n");
        assert_eq!(out.stderr, "err\n");
        assert_eq!(out.status.and_then(|s| s.code()), Some(3));
        assert!(!out.timed_out && !out.success());
    }

    #[test]
    fn kills_the_group_on_timeout() {
        // The grandchild `sleep` holds the pipes; killing only the shell would leave them open.
        let out = sh(
            "echo started; sleep 60 & sleep 60",
            Duration::from_millis(300),
        );
        assert!(out.timed_out);
        assert!(out.status.is_none());
        assert_eq!(out.stdout, "started\n");
        assert!(out.elapsed < Duration::from_secs(30));
    }
}
