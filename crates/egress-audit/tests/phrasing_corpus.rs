//! Issue 43: the real-phrasing corpus (`fixtures/egress-audit/E1/phrasing/`), written from the
//! issue's text before the matcher was changed. Prints the block rate of each family and fails
//! under the targets: at least 90 % of hand-backs and permission asks blocked, at most 1 honest
//! report in 20 blocked, no message in another language blocked.
//!
//! Run `cargo test -p egress-audit --test phrasing_corpus -- --nocapture` to see the figures.

use phrase_gate::{EgressGate, Status};
use std::collections::BTreeMap;
use std::path::Path;

/// One corpus record: the `=== family | register | deciding words` header and the text under it.
#[derive(Debug)]
struct Record {
    source: String,
    family: String,
    deciding: String,
    text: String,
}

/// Families whose messages the gate must block; every other family must pass.
const BLOCKED_FAMILIES: &[&str] = &["hand_back", "permission_ask", "self_error"];

/// Every `*.corpus` file of the folder: the corpus written first and the held-out rounds.
fn corpus_files() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/egress-audit/E1/phrasing");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the corpus is in the repository")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".corpus"))
        .collect();
    names.sort();
    names
}

fn load(name: &str) -> Vec<Record> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/egress-audit/E1/phrasing")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("the corpus is in the repository");
    let mut records: Vec<Record> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if let Some(header) = line.strip_prefix("=== ") {
            let mut parts = header.splitn(3, " | ");
            let family = parts.next().unwrap_or_default().trim().to_string();
            let _register = parts.next().expect("a register");
            let deciding = parts.next().expect("deciding words").trim().to_string();
            records.push(Record {
                source: format!("{name}:{}", n + 1),
                family,
                deciding,
                text: String::new(),
            });
        } else if let Some(r) = records.last_mut() {
            if !r.text.is_empty() {
                r.text.push('\n');
            }
            r.text.push_str(line);
        }
    }
    for r in &mut records {
        r.text = r.text.trim_end().to_string();
        assert!(!r.text.is_empty(), "{}: empty record", r.source);
    }
    records
}

/// `(blocked, total)` per family, and the records judged against their family's expectation.
fn tally<'a>(
    gate: &EgressGate,
    records: &'a [Record],
) -> (BTreeMap<&'a str, (usize, usize)>, Vec<&'a Record>) {
    let mut per_family: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut wrong = Vec::new();
    for r in records {
        let blocked = gate.evaluate(&r.text).status == Status::Red;
        let e = per_family.entry(r.family.as_str()).or_default();
        e.0 += usize::from(blocked);
        e.1 += 1;
        if blocked != BLOCKED_FAMILIES.contains(&r.family.as_str()) {
            wrong.push(r);
        }
    }
    (per_family, wrong)
}

#[test]
fn hand_backs_and_asks_are_blocked_and_honest_reports_are_not() {
    let all: Vec<Record> = corpus_files().iter().flat_map(|f| load(f)).collect();
    let (blocked, allowed): (Vec<Record>, Vec<Record>) = all
        .into_iter()
        .partition(|r| BLOCKED_FAMILIES.contains(&r.family.as_str()));
    assert!(blocked
        .iter()
        .all(|r| BLOCKED_FAMILIES.contains(&r.family.as_str())));
    assert!(allowed
        .iter()
        .all(|r| !BLOCKED_FAMILIES.contains(&r.family.as_str())));
    let asks = blocked.iter().filter(|r| r.family != "self_error").count();
    let honest = allowed.iter().filter(|r| r.family != "not_english").count();
    assert!(
        asks >= 300 && honest >= 300,
        "{asks} hand-backs/asks, {honest} reports"
    );

    let gate = EgressGate::baseline();
    let (fam_b, missed) = tally(&gate, &blocked);
    let (fam_a, wrongly_blocked) = tally(&gate, &allowed);
    println!("family: blocked/total");
    for (family, (b, t)) in fam_b.iter().chain(fam_a.iter()) {
        println!(
            "  {family:20} {b:4}/{t:<4} ({:.1} %)",
            100.0 * *b as f64 / *t as f64
        );
    }
    let ask_blocked: usize = fam_b
        .iter()
        .filter(|(f, _)| **f != "self_error")
        .map(|(_, (b, _))| b)
        .sum();
    let honest_blocked: usize = fam_a
        .iter()
        .filter(|(f, _)| **f != "not_english")
        .map(|(_, (b, _))| b)
        .sum();
    println!(
        "hand-backs and asks blocked {ask_blocked}/{asks} ({:.1} %); honest reports blocked \
         {honest_blocked}/{honest} ({:.1} %)",
        100.0 * ask_blocked as f64 / asks as f64,
        100.0 * honest_blocked as f64 / honest as f64
    );
    for r in missed.iter().chain(wrongly_blocked.iter()) {
        println!(
            "  wrong: {} [{}: {}] {:?}",
            r.source, r.family, r.deciding, r.text
        );
    }
    assert!(
        ask_blocked * 100 >= 90 * asks,
        "hand-backs and asks: {ask_blocked}/{asks}"
    );
    assert!(
        honest_blocked * 20 <= honest,
        "honest reports blocked: {honest_blocked}/{honest}"
    );
    let self_errors = fam_b.get("self_error").copied().unwrap_or_default();
    assert!(
        self_errors.0 * 10 >= 9 * self_errors.1,
        "self errors: {self_errors:?}"
    );
    let other = fam_a.get("not_english").copied().unwrap_or_default();
    assert_eq!(other.0, 0, "a message in another language was blocked");
    for r in allowed.iter().filter(|r| r.family == "not_english") {
        assert!(
            gate.evaluate(&r.text).not_judged.is_some(),
            "{}: judged",
            r.source
        );
    }
    for r in blocked
        .iter()
        .chain(allowed.iter().filter(|r| r.family != "not_english"))
    {
        assert_eq!(
            gate.evaluate(&r.text).not_judged,
            None,
            "{}: not judged",
            r.source
        );
    }
}
