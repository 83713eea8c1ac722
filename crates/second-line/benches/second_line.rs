//! Side by side in one run (medians; the machine is shared, so only same-run comparisons mean
//! anything):
//!
//! * per command: `bash -c true` directly, through `second-line-exec` with the second line off
//!   (`AGENT_GUARDS_SECOND_LINE=off`: the runner's own exec) and with it on; the second line's
//!   cost is on − off;
//! * per exec: a loop of 500 `/bin/true` (programs no rule reads) and of 50 `git --version`
//!   (judged by the rules) inside one command, on − off, divided by the count.
//!
//! `cargo bench -p second-line` (root, for the layers to be on).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_second-line-exec");

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn run(home: &Path, via: Option<bool>, script: &str) -> Duration {
    let mut c = match via {
        None => Command::new("bash"),
        Some(on) => {
            let mut c = Command::new(BIN);
            c.arg("bash");
            if !on {
                c.env("AGENT_GUARDS_SECOND_LINE", "off");
            }
            c
        }
    };
    c.args(["-c", script])
        .env("HOME", home)
        .env("CLAUDE_CODE_SESSION_ID", "bench")
        .current_dir(home)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let start = Instant::now();
    let status = c.status().expect("runs");
    let took = start.elapsed();
    assert!(status.success(), "{script}");
    took
}

/// Interleaved rounds of the three variants; medians.
fn compare(home: &Path, script: &str, rounds: usize) -> [Duration; 3] {
    let mut t: [Vec<Duration>; 3] = Default::default();
    for _ in 0..rounds {
        t[0].push(run(home, None, script));
        t[1].push(run(home, Some(false), script));
        t[2].push(run(home, Some(true), script));
    }
    t.map(median)
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("second-line-bench-{}", std::process::id()));
    for d in [
        ".claude",
        ".local/state/agent-guards",
        ".config/agent-guards",
    ] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    std::fs::write(dir.join(".claude/settings.json"), "{}").unwrap();
    let env = |k: &str| std::env::var(k).ok();
    for l in second_line::layers::report_lines(&second_line::layers::report(&env)) {
        println!("{l}");
    }
    let [plain, off, on] = compare(&dir, "true", 200);
    println!(
        "per command (median of 200): bash -c {:.0} µs | runner, second line off {:.0} µs | on {:.0} µs | added by the second line {:.0} µs",
        us(plain),
        us(off),
        us(on),
        us(on) - us(off)
    );
    let n = 500.0;
    let [_, off, on] = compare(&dir, "for i in $(seq 500); do /bin/true; done", 15);
    println!(
        "per exec, programs no rule reads (500 /bin/true, median of 15): off {:.0} µs | on {:.0} µs | added per exec {:.1} µs",
        us(off),
        us(on),
        (us(on) - us(off)) / n
    );
    let n = 50.0;
    let [_, off, on] = compare(&dir, "for i in $(seq 50); do git --version; done", 9);
    println!(
        "per exec, judged (50 git --version, median of 9): off {:.0} µs | on {:.0} µs | added per exec {:.1} µs",
        us(off),
        us(on),
        (us(on) - us(off)) / n
    );
    second_line::stop_session(&dir.join(".local/state/agent-guards/sessions/bench"));
    let _ = std::fs::remove_dir_all(&dir);
}
