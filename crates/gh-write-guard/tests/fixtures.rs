//! Every fixture under `fixtures/gh-write-guard/G*/` decided as it says, naming its
//! requirement (the same replay `--selftest` runs on the embedded copies).

use gh_write_guard::cases::replay_all;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("fixtures dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

#[test]
fn every_fixture_is_decided_as_it_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/gh-write-guard");
    let mut all = Vec::new();
    files(&root, &mut all);
    assert!(
        all.len() >= 6,
        "fixture files missing under {}",
        root.display()
    );
    let mut failures = Vec::new();
    let mut total = 0;
    for f in &all {
        let text = std::fs::read_to_string(f).expect("readable fixture");
        for r in replay_all(&text).expect("fixture file is an array of cases") {
            total += 1;
            if !(r.passed && r.requirement_matched) {
                failures.push(format!(
                    "{} ({}): expected {} got {} named {:?}: {:?}\n    {:?}",
                    r.id,
                    f.display(),
                    r.expected,
                    r.got,
                    r.named,
                    r.reason,
                    r.command
                ));
            }
        }
    }
    assert!(total > 50, "only {total} fixtures");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Prints attacks refused and look-alikes allowed per requirement for one round of issue 42
/// (`fixtures/gh-write-guard/G*/<round>.json`); the decisions themselves are held by
/// `every_fixture_is_decided_as_it_says`.
fn round_figures(round: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/gh-write-guard");
    let (mut refused, mut attacks, mut allowed, mut lookalikes) = (0, 0, 0, 0);
    let mut refused_any = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("fixtures dir")
        .flatten()
        .collect();
    dirs.sort_by_key(|e| e.path());
    for d in dirs {
        let f = d.path().join(format!("{round}.json"));
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let (mut r, mut a, mut l, mut k) = (0, 0, 0, 0);
        let mut any = 0;
        for c in replay_all(&text).expect("fixture file is an array of cases") {
            let ok = c.passed && c.requirement_matched;
            if c.expected == "deny" {
                a += 1;
                r += usize::from(ok);
                any += usize::from(c.got == "deny");
            } else {
                l += 1;
                k += usize::from(ok);
            }
            if !ok {
                println!(
                    "  miss {}: {:?} -> {} {:?}",
                    c.id, c.command, c.got, c.reason
                );
            }
        }
        println!(
            "{}: attacks refused with their code {r}/{a} (with any code {any}), look-alikes allowed {k}/{l}",
            d.file_name().to_string_lossy()
        );
        (refused, attacks, allowed, lookalikes) =
            (refused + r, attacks + a, allowed + k, lookalikes + l);
        refused_any += any;
    }
    println!(
        "{round}: attacks refused with their code {refused}/{attacks} (with any code \
         {refused_any}), look-alikes allowed {allowed}/{lookalikes}"
    );
}

/// Issue 42's third round (`G*/round3c.json`, written by `make_round3c.py`;
/// `cargo test -p gh-write-guard --test fixtures round3c -- --nocapture`).
#[test]
fn round3c_figures() {
    round_figures("round3c");
}

/// Issue 42's fourth round (`G*/round3d.json`, written by `make_round3d.py`: constant text fed
/// to a shell, constants in a push's operands; `cargo test -p gh-write-guard --test fixtures
/// round3d -- --nocapture`).
#[test]
fn round3d_figures() {
    round_figures("round3d");
}

/// Issue 42's fifth round (`G*/round3e.json`, written by `make_round3e.py`: a branch that is
/// main on one path, `eval`, substitutions decided by literal text, `xargs`, positional arguments
/// of `bash -c`, wrappers; `cargo test -p gh-write-guard --test fixtures round3e -- --nocapture`).
#[test]
fn round3e_figures() {
    round_figures("round3e");
}
