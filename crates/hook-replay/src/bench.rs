//! Timing a hook binary as Claude Code runs it, for the benchmarks' printed figures: one process
//! per call, the payload on stdin, the answer read from stdout, stderr discarded. Each run records
//! the wall time from spawn to exit and the CPU time (user + system) the process used: on a
//! shared machine the wall time also measures the other tenants, the CPU time much less so.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// One timed run of a binary.
pub struct Run {
    /// Spawn to exit.
    pub wall: Duration,
    /// User + system time of the process.
    pub cpu: Duration,
    /// How the process ended.
    pub status: ExitStatus,
    /// Everything it printed on stdout.
    pub stdout: Vec<u8>,
}

/// Starts `command` with `payload` on stdin, reads its stdout to the end and reaps it. Panics
/// (a benchmark failure) when it cannot start. The payload is written before the answer is read:
/// a hook reads its whole input before it answers.
pub fn run_once(command: &mut Command, payload: &[u8]) -> Run {
    let start = Instant::now();
    // Reaped below by `wait4`, which also reads its CPU time; std's `wait` would not.
    #[allow(clippy::zombie_processes)]
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    if let Some(mut stdin) = child.stdin.take() {
        // A binary that exits before reading everything shows in its status, not here.
        let _ = stdin.write_all(payload);
    }
    let mut stdout = Vec::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_end(&mut stdout);
    }
    let (status, cpu) = reap(child.id());
    Run {
        wall: start.elapsed(),
        cpu,
        status,
        stdout,
    }
}

/// Waits for our child `pid`; returns its exit status and CPU time (user + system).
fn reap(pid: u32) -> (ExitStatus, Duration) {
    let mut status = 0;
    // SAFETY: zeroed `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-pointers; the pid is our own child, not yet reaped.
    let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(r, pid as libc::pid_t, "wait4");
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    (
        ExitStatus::from_raw(status),
        time(usage.ru_utime) + time(usage.ru_stime),
    )
}

/// The wall and CPU times of repeated runs.
#[derive(Default)]
pub struct Timings {
    /// Spawn to exit, per run.
    pub wall: Samples,
    /// User + system time, per run.
    pub cpu: Samples,
}

impl Timings {
    /// Adds one run.
    pub fn push(&mut self, run: &Run) {
        self.wall.push(run.wall);
        self.cpu.push(run.cpu);
    }

    /// How many runs.
    pub fn len(&self) -> usize {
        self.wall.len()
    }

    /// Whether no run was added.
    pub fn is_empty(&self) -> bool {
        self.wall.is_empty()
    }

    /// `median M ms, p90 P ms over N runs` (wall time), the line every whole-process figure has.
    pub fn summary(&self) -> String {
        format!(
            "median {:.2} ms, p90 {:.2} ms over {} runs",
            ms(self.wall.median()),
            ms(self.wall.p90()),
            self.len()
        )
    }
}

/// Runs `command` `runs` times with the same `payload`; `check` sees every run (to assert that the
/// binary answered as the case expects, so a broken build is not timed as a fast one).
pub fn time_runs(
    command: &mut Command,
    payload: &[u8],
    runs: usize,
    mut check: impl FnMut(&Run),
) -> Timings {
    let mut timings = Timings::default();
    for _ in 0..runs {
        let run = run_once(command, payload);
        check(&run);
        timings.push(&run);
    }
    timings
}

/// Durations of repeated measurements, for order statistics.
#[derive(Default, Clone)]
pub struct Samples(Vec<Duration>);

impl Samples {
    /// Adds one sample.
    pub fn push(&mut self, d: Duration) {
        self.0.push(d);
    }

    /// How many samples.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The sample at `percent` (0 to 100) of the sorted samples, at index `len * percent / 100`
    /// (the last for 100); zero for none.
    pub fn percentile(&self, percent: usize) -> Duration {
        let mut sorted = self.0.clone();
        sorted.sort();
        let at = (sorted.len() * percent / 100).min(sorted.len().saturating_sub(1));
        sorted.get(at).copied().unwrap_or_default()
    }

    /// The 50th percentile.
    pub fn median(&self) -> Duration {
        self.percentile(50)
    }

    /// The 90th percentile.
    pub fn p90(&self) -> Duration {
        self.percentile(90)
    }

    /// The largest sample.
    pub fn max(&self) -> Duration {
        self.percentile(100)
    }
}

impl FromIterator<Duration> for Samples {
    fn from_iter<I: IntoIterator<Item = Duration>>(iter: I) -> Self {
        Samples(iter.into_iter().collect())
    }
}

/// `d` in milliseconds, the unit every printed figure uses.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Prints the load average: whole-process figures scale with it, so it goes beside them.
pub fn print_load_average() {
    println!(
        "load average: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_statistics_pick_the_documented_index() {
        let s: Samples = (1..=10).rev().map(Duration::from_millis).collect();
        assert_eq!(s.median(), Duration::from_millis(6));
        assert_eq!(s.p90(), Duration::from_millis(10));
        assert_eq!(s.percentile(0), Duration::from_millis(1));
        assert_eq!(s.max(), Duration::from_millis(10));
        assert_eq!(Samples::default().median(), Duration::ZERO);
    }

    #[test]
    fn a_real_process_is_timed_with_its_answer_and_cpu_time() {
        // Busy for a while in user space, so the CPU time cannot be zero.
        let script = "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; cat; exit 3";
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        let mut seen = 0;
        let t = time_runs(&mut c, b"payload", 2, |run| {
            assert_eq!(run.status.code(), Some(3));
            assert_eq!(run.stdout, b"payload");
            seen += 1;
        });
        assert_eq!((seen, t.len()), (2, 2));
        assert!(t.summary().ends_with("ms over 2 runs"), "{}", t.summary());
        assert!(t.cpu.max() > Duration::ZERO);
    }
}
