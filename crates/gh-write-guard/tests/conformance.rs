//! Conformance replay: every case of `fixtures/conformance/gh-write-guard/cases.json` through the
//! decision core, the world faked from the case's `env` behind the same [`World`] trait the real
//! lookups implement. Cases this project decides differently on purpose are listed in
//! `spec/gh-write-guard.md` (and carry `divergence` in the file itself).
//!
//! [`World`]: gh_write_guard::World

use gh_write_guard::cases::{replay, CaseResult};
use gh_write_guard::Requirement;
use std::path::PathBuf;

/// The conformance file: `AGENT_GUARDS_CONFORMANCE` or the copy in the repository's fixtures.
fn cases_path() -> PathBuf {
    if let Ok(p) = std::env::var("AGENT_GUARDS_CONFORMANCE") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/conformance/gh-write-guard/cases.json")
}

/// Cases this project decides differently on purpose, with the reason; each is also listed in
/// `spec/gh-write-guard.md`. The replay checks that each is decided the other way, so the list
/// cannot go stale.
const DIVERGENCES: &[(&str, &str)] = &[
    (
        "pa-cases-028",
        "G5 names addPullRequestReviewThreadReply: a GraphQL thread reply is a hand-rolled reply \
         where a review helper exists (the prior art only denied resolves)",
    ),
    (
        "pa-reply-resolve-035",
        "G5 names addPullRequestReviewThreadReply: a GraphQL thread reply is a hand-rolled reply \
         where a review helper exists (the prior art only denied resolves)",
    ),
];

fn results(req: Requirement) -> (Vec<CaseResult>, usize) {
    let path = cases_path();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("conformance cases at {}: {e}", path.display()));
    let cases: serde_json::Value = serde_json::from_str(&text).expect("cases.json is JSON");
    let cases = cases.as_array().expect("an array of cases");
    let mine: Vec<&serde_json::Value> = cases
        .iter()
        .filter(|c| c["requirement"].as_u64().and_then(Requirement::from_number) == Some(req))
        .collect();
    let n = mine.len();
    (
        mine.into_iter()
            .map(replay)
            // A listed divergence must be decided the other way; anything else as expected.
            .filter(|r| r.passed == DIVERGENCES.iter().any(|(id, _)| *id == r.id))
            .collect(),
        n,
    )
}

/// One test per requirement whose cases must all be decided as they say (listed divergences
/// aside).
macro_rules! all_decided {
    ($($name:ident => $req:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            assert_decided_except(Requirement::$req, &|_| false);
        }
    )*};
}

all_decided!(
    g1_cases => G1,
    g2_cases => G2,
    g3_cases => G3,
    g4_cases => G4,
    g5_cases => G5,
);

/// G6 cases decided differently on purpose (spec/gh-write-guard.md, "G6/G7 divergences"):
/// the Windows Git Bash drive-path cases are not replayed on Linux.
fn g6_skipped(case: &CaseResult) -> bool {
    case.id.starts_with("pa-msys-")
}

/// G7 cases decided differently on purpose (spec/gh-write-guard.md, "G6/G7 divergences").
const G7_DIVERGENT: &[&str] = &[
    "pa-wait-250",
    "pa-wait-275",
    "pa-wait-451",
    "pa-wait-456",
    "pa-wait-468",
];

fn assert_decided_except(req: Requirement, skip: &dyn Fn(&CaseResult) -> bool) {
    let (failures, n) = results(req);
    assert!(n > 0, "no {} cases found", req.id());
    let report: Vec<String> = failures
        .iter()
        .filter(|r| !skip(r))
        .map(|r| {
            format!(
                "{} expected {} got {} (named {:?}: {:?})\n    {:?}",
                r.id, r.expected, r.got, r.named, r.reason, r.command
            )
        })
        .collect();
    assert!(
        report.is_empty(),
        "{} of {n} {} cases decided differently:\n{}",
        report.len(),
        req.id(),
        report.join("\n")
    );
}

#[test]
fn g6_cases() {
    assert_decided_except(Requirement::G6, &g6_skipped);
}

#[test]
fn g7_cases() {
    assert_decided_except(Requirement::G7, &|r| G7_DIVERGENT.contains(&r.id.as_str()));
}

/// The listed divergences still diverge (a fix elsewhere must update the spec's list).
#[test]
fn g7_divergences_are_current() {
    let path = cases_path();
    let text = std::fs::read_to_string(&path).expect("cases");
    let cases: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    for c in cases.as_array().expect("array") {
        let id = c["id"].as_str().unwrap_or("");
        if G7_DIVERGENT.contains(&id) {
            let r = replay(c);
            assert!(
                !r.passed,
                "{id} now matches the case; drop it from the divergence list"
            );
        }
    }
}
