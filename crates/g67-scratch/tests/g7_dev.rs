//! Development replay of the G7 conformance cases (moves into gh-write-guard's replay).
use g67_scratch::g7_wait_loops::{unbounded, wait_loops};

#[test]
fn g7_fixtures() {
    for f in ["issue-examples.json", "shapes.json"] {
        let path = format!("../../fixtures/gh-write-guard/G7/{f}");
        let text = std::fs::read_to_string(path).unwrap();
        replay(&text);
    }
}

#[test]
fn g7_cases() {
    let Ok(text) = std::fs::read_to_string("/work/shared/conformance/gh-write-guard/cases.json")
    else {
        return;
    };
    replay(&text);
}

fn replay(text: &str) {
    let cases: serde_json::Value = serde_json::from_str(text).unwrap();
    let mut bad = Vec::new();
    let mut n = 0;
    for c in cases.as_array().unwrap() {
        if c["requirement"] != 7 {
            continue;
        }
        n += 1;
        let cmd = c["command"].as_str().unwrap();
        let parsed = shell_syntax::parse(cmd);
        let view = shell_syntax::commands(&parsed);
        let loops = wait_loops(cmd, &parsed, &view);
        let deny = unbounded(&loops).next().is_some();
        let got = if deny { "deny" } else { "allow" };
        if DIVERGENT.contains(&c["id"].as_str().unwrap()) {
            assert_ne!(
                got,
                c["expected"].as_str().unwrap(),
                "{} no longer diverges",
                c["id"]
            );
            continue;
        }
        if got != c["expected"].as_str().unwrap() {
            bad.push(format!(
                "{} want {} got {}: {:?} {:?}",
                c["id"],
                c["expected"],
                got,
                cmd.chars().take(120).collect::<String>(),
                loops
            ));
        }
    }
    eprintln!("{} of {n} wrong", bad.len());
    for b in &bad {
        eprintln!("{b}");
    }
    assert!(bad.is_empty());
}

/// Listed with reasons in spec/gh-write-guard.md (G7 divergences).
const DIVERGENT: &[&str] = &[
    "pa-wait-250",
    "pa-wait-275",
    "pa-wait-321",
    "pa-wait-322",
    "pa-wait-451",
    "pa-wait-456",
    "pa-wait-468",
];
