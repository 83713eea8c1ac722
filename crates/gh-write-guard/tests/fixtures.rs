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
