//! Scripts on disk at and past the read bounds (issue 47: "unknown, never unseen"), judged by the
//! real world against files a test writes: a push four scripts deep is refused as past the bound
//! (`G0.past-bound`), three deep is judged as the push it is; a script that is not valid UTF-8
//! is still read; a program (a NUL near its start, as bash refuses to run as a script) and a
//! FIFO are unseen without a wait; a script over 1 MiB is past the bound. Each expectation on
//! what runs was checked against real bash (`bash a.sh` runs d.sh's push four levels down).

use hook_replay::git::init_with_commit;
use std::path::Path;
use std::time::{Duration, Instant};

mod offline_support;
use offline_support::{denies, github_worktree};

/// Writes `chain.len()` scripts `s0.sh` → `s1.sh` → ...; the last one holds `last`.
fn chain(dir: &Path, depth: usize, last: &[u8]) {
    for i in 0..depth {
        let path = dir.join(format!("s{i}.sh"));
        match i + 1 == depth {
            true => std::fs::write(&path, last).unwrap(),
            false => std::fs::write(&path, format!("bash s{}.sh\n", i + 1)).unwrap(),
        }
    }
}

#[test]
fn a_push_past_the_depth_bound_is_unknown_and_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    init_with_commit(&work, &[("f", "x\n")]);
    let wt = github_worktree(&work);
    let push = b"git push origin HEAD:main\n";
    // Three deep: read and judged as the push to a protected-by-default branch it is.
    chain(&wt, 3, push);
    let codes = denies("bash s0.sh", &wt, tmp.path());
    assert!(!codes.contains(&"G0.past-bound".to_string()), "{codes:?}");
    assert!(codes.iter().any(|c| c.starts_with("G4")), "{codes:?}");
    // Four deep: the push is past the bound.
    chain(&wt, 4, push);
    let codes = denies("bash s0.sh", &wt, tmp.path());
    assert_eq!(
        codes.first().map(String::as_str),
        Some("G0.past-bound"),
        "{codes:?}"
    );
    // Four deep, the last one missing: it cannot run; nothing to refuse.
    std::fs::remove_file(wt.join("s3.sh")).unwrap();
    assert_eq!(denies("bash s0.sh", &wt, tmp.path()), Vec::<String>::new());
}

#[test]
fn odd_bytes_programs_fifos_and_oversize_scripts() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    init_with_commit(&work, &[("f", "x\n")]);
    let wt = github_worktree(&work);
    // Not valid UTF-8 (a Latin-1 comment): bash runs it, so it is read.
    std::fs::write(
        wt.join("latin1.sh"),
        b"# caf\xe9\ngit push origin HEAD:main\n",
    )
    .unwrap();
    let codes = denies("bash latin1.sh", &wt, tmp.path());
    assert!(codes.iter().any(|c| c.starts_with("G4")), "{codes:?}");
    // A program: a NUL in its first bytes. Not a script; left to the exec gate.
    std::fs::write(
        wt.join("prog"),
        b"\x7fELF\x02\x01\x01\0\0git push origin HEAD:main\n",
    )
    .unwrap();
    assert_eq!(denies("./prog", &wt, tmp.path()), Vec::<String>::new());
    // A FIFO where the script should be: unseen at once, no wait on a writer.
    let made = std::process::Command::new("mkfifo")
        .arg(wt.join("fifo.sh"))
        .status()
        .unwrap();
    assert!(made.success());
    let started = Instant::now();
    assert_eq!(
        denies("bash fifo.sh", &wt, tmp.path()),
        Vec::<String>::new()
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // Over 1 MiB of text: past the bound, whatever it holds.
    let mut big = b"git status\n".repeat(110_000);
    big.extend_from_slice(b"git push origin HEAD:main\n");
    std::fs::write(wt.join("big.sh"), big).unwrap();
    let codes = denies("bash big.sh", &wt, tmp.path());
    assert_eq!(
        codes.first().map(String::as_str),
        Some("G0.past-bound"),
        "{codes:?}"
    );
}
