//! Side by side in one run (medians; the machine is shared, so only same-run comparisons mean
//! anything):
//!
//! * per command: `bash -c true` directly, through `second-line-exec` with the second line off
//!   (`AGENT_GUARDS_SECOND_LINE=off`: the runner's own exec) and with it on; the second line's
//!   cost is on − off;
//! * per exec: each exec timed inside the command by bash (`EPOCHREALTIME` around it), 2,000
//!   samples per variant (20 interleaved rounds of 100; `SECOND_LINE_BENCH_ROUNDS` sets the
//!   rounds: with 500 samples the medians moved by ±40 µs between runs here), medians, on − off
//!   (and the median of each round's on − off, its two batches back to back, which a slow
//!   phase of the VM moves less than the pooled medians), twice: with the exec's own `>/dev/null 2>&1` (a
//!   notified write-open before the exec) and the exec alone (output to `/dev/null` opened once
//!   for the loop): `/bin/true` (no rule reads it), `git --version`
//!   (judged: a read, settled from its arguments), a stand-in `gh pr view 1` (a read, settled
//!   from its arguments by gh's write inventory), `git stash` outside a repository
//!   (judged: it mutates a checkout, so the whole G2–G6 pipeline runs, repository lookup
//!   included; then git refuses), and `git -C wt stash` in a linked worktree run by a
//!   stand-in `git` (a copy of `/bin/true`: the gate judges by the program's name, so the
//!   same pipeline runs on a real repository, opened once per command and kept while
//!   unchanged, `repo_cache`; the real git's own ~3 ms would drown the figure), and the same
//!   stand-in's `git -C wt commit -q -m x` (G4's hook check and G6) and `git -C wt push -q
//!   origin HEAD` (a push: the whole G2–G6 pipeline, the repository's config read; `origin` is
//!   not a remote here, so no rules are fetched and the branch is not protected by default).
//!
//! Then the per-exec lines again with every process on one CPU ("[one CPU, N]"): there the
//! exec and the supervisor hand the CPU to each other, and what is added is our code's own
//! time; on two CPUs this VM adds its cross-CPU wake-ups to every notified call, which
//! `/bin/true` (nothing judges it) shows.
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

fn command(home: &Path, via: Option<bool>, script: &str) -> Command {
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
        .stderr(Stdio::null());
    c
}

fn run(home: &Path, via: Option<bool>, script: &str) -> Duration {
    let mut c = command(home, via, script);
    c.stdout(Stdio::null());
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

/// Per-exec wall clock inside one command: bash times each exec of `program` with
/// `EPOCHREALTIME` (so the command's own start and end are not in it, and one slow wake-up moves
/// one sample, not the figure). Interleaved rounds of `count` execs; medians in µs.
/// `own_redirect`: each exec opens `/dev/null` for its output itself (`prog >/dev/null 2>&1`:
/// a notified write-open in the child before the exec); else the output goes to `/dev/null`
/// opened once for the loop, and only the exec is timed.
fn per_exec(
    home: &Path,
    program: &str,
    rounds: usize,
    count: usize,
    own_redirect: bool,
) -> ([f64; 3], f64) {
    let script = match own_redirect {
        true => format!(
            "for i in $(seq {count}); do s=$EPOCHREALTIME; {program} >/dev/null 2>&1; e=$EPOCHREALTIME; echo \"$s $e\"; done"
        ),
        false => format!(
            "exec 3>&1 >/dev/null 2>&1; for i in $(seq {count}); do s=$EPOCHREALTIME; {program}; e=$EPOCHREALTIME; echo \"$s $e\" >&3; done"
        ),
    };
    let mut t: [Vec<f64>; 3] = Default::default();
    // Each round's on − off, its two batches run back to back: this VM's slow phases last
    // seconds, so a pooled median moves with the rounds a phase happened to fall on.
    let mut paired = Vec::new();
    for r in 0..rounds {
        let mut round: [Vec<f64>; 3] = Default::default();
        // Off before on, then on before off: a drift within a round counts both ways.
        let order = match r % 2 {
            0 => [(0, None), (1, Some(false)), (2, Some(true))],
            _ => [(0, None), (2, Some(true)), (1, Some(false))],
        };
        for (i, via) in order {
            let out = command(home, via, &script).output().expect("runs");
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                let v: Vec<f64> = line
                    .split_whitespace()
                    .filter_map(|w| w.replace(',', ".").parse().ok())
                    .collect();
                if let [s, e] = v[..] {
                    round[i].push((e - s) * 1e6);
                }
            }
        }
        paired.push(middle(round[2].clone()) - middle(round[1].clone()));
        for (all, r) in t.iter_mut().zip(round) {
            all.extend(r);
        }
    }
    let pooled = t.map(|v| {
        assert!(!v.is_empty(), "no samples from {script}");
        middle(v)
    });
    (pooled, middle(paired))
}

/// The median of `v` (not empty).
fn middle(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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
    // A repository on `main` and a linked worktree `wt` beside it (G6 lets `git stash` run
    // there).
    hook_replay::git::init_with_commit(&dir.join("repo"), &[("f", "a\n")]);
    hook_replay::git::git(&dir.join("repo"), &["worktree", "add", "-q", "../wt"]);
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::copy("/bin/true", dir.join("bin/git")).unwrap();
    std::fs::copy("/bin/true", dir.join("bin/gh")).unwrap();
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
    let rounds: usize = std::env::var("SECOND_LINE_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .filter(|r| *r > 0)
        .unwrap_or(20);
    per_exec_lines(&dir, rounds, "");
    // The same with every process on one CPU: the exec and the supervisor hand the CPU to
    // each other, so what is left is our code's own time; on two CPUs this VM adds its
    // cross-CPU wake-ups to every notified call (`/bin/true`, which nothing judges, shows it).
    if let Some(cpu) = last_cpu() {
        let mut one = nix::sched::CpuSet::new();
        if one.set(cpu).is_ok()
            && nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &one).is_ok()
        {
            per_exec_lines(&dir, rounds, &format!(" [one CPU, {cpu}]"));
        }
    }
    second_line::stop_session(&dir.join(".local/state/agent-guards/sessions/bench"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// One line per program and way of running it: `per_exec`'s medians (`pinned`: said after
/// "per exec").
fn per_exec_lines(dir: &Path, rounds: usize, pinned: &str) {
    for (what, program) in [
        ("programs no rule reads: /bin/true", "/bin/true"),
        ("judged reads: git --version", "git --version"),
        ("judged reads: a stand-in gh pr view 1", "bin/gh pr view 1"),
        (
            "judged by the rules: git stash (no repository)",
            "git stash",
        ),
        (
            "judged by the rules: a stand-in git -C wt stash (a linked worktree)",
            "bin/git -C wt stash",
        ),
        (
            "judged by the rules: a stand-in git -C wt commit -q -m x (a linked worktree)",
            "bin/git -C wt commit -q -m x",
        ),
        (
            "judged by the rules: a stand-in git -C wt push -q origin HEAD (the whole G2–G6 pipeline)",
            "bin/git -C wt push -q origin HEAD",
        ),
    ] {
        for (own_redirect, how) in [(true, "with its own >/dev/null"), (false, "the exec alone")] {
            let ([plain, off, on], paired) =
                per_exec(dir, program, rounds, 100, own_redirect);
            println!(
                "per exec{pinned}, {what}, {how} (median of {} single execs each): bash -c {plain:.0} µs | off {off:.0} µs | on {on:.0} µs | added per exec {:.0} µs (median of the {rounds} rounds' on − off: {paired:.0} µs)",
                rounds * 100,
                on - off
            );
        }
    }
}

/// The highest CPU this process may run on (`None`: fewer than two).
fn last_cpu() -> Option<usize> {
    let mine = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).ok()?;
    let cpus: Vec<usize> = (0..nix::sched::CpuSet::count())
        .filter(|c| mine.is_set(*c).unwrap_or(false))
        .collect();
    (cpus.len() >= 2).then(|| cpus[cpus.len() - 1])
}
