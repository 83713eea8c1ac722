//! The house drawn from outside (issue 44, K10): no crate reaches into another guard's inside.
//! A guard crate shows other crates its `face` (the judgement over a typed operation, and the
//! world it consults) and its `codes`; the cross-guard agreement test may also replay each
//! guard's fixtures through its test kit. Read from the sources, so a new import of a guard's
//! module fails here with the file and line.

use std::path::{Path, PathBuf};

/// The guard crates, as their library names are written in code.
const GUARDS: [&str; 6] = [
    "gh_write_guard",
    "model_tier_guard",
    "integrity_signals",
    "egress_audit",
    "stray_process_sweep",
    "tool_containment",
];

/// What any crate may use of a guard.
const FACE: [&str; 2] = ["face", "codes"];

/// What the agreement test (crate `guard-agreement`, K7 over every reason each guard gives)
/// also uses: each guard's fixture replay and its whole hook decision on a remedy's command.
const AGREEMENT_KIT: [&str; 6] = [
    "cases",
    "fixtures",
    "selftest",
    "fake_world",
    "judge",
    "e5_hook",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && p.file_name().is_some_and(|n| n != "target") {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `(guard, item)` for every `guard::item` path in `line` (code only: comments are skipped).
fn guard_paths(line: &str) -> Vec<(&'static str, String)> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    for g in GUARDS {
        let pat = format!("{g}::");
        let mut from = 0;
        while let Some(i) = code[from..].find(&pat) {
            let at = from + i;
            let starts_word = at == 0
                || !code[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let rest = &code[at + pat.len()..];
            let item: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '{')
                .collect();
            if starts_word {
                out.push((g, item));
            }
            from = at + pat.len();
        }
    }
    out
}

#[test]
fn no_crate_uses_another_guards_inside() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path())
        .collect();
    crates.push(root.to_path_buf());
    let mut seen = 0;
    for dir in crates {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().replace('-', "_"))
            .unwrap_or_default();
        let mut files = Vec::new();
        for sub in ["src", "tests", "benches", "examples"] {
            rust_files(&dir.join(sub), &mut files);
        }
        // This file's own examples are not uses.
        for f in files.into_iter().filter(|f| !f.ends_with("tests/house.rs")) {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                for (guard, item) in guard_paths(line) {
                    if guard == name {
                        continue;
                    }
                    seen += 1;
                    let allowed = FACE.contains(&item.as_str())
                        || name == "guard_agreement" && AGREEMENT_KIT.contains(&item.as_str());
                    if !allowed {
                        problems.push(format!(
                            "{}:{}: {guard}::{item}",
                            f.strip_prefix(root).unwrap_or(&f).display(),
                            n + 1
                        ));
                    }
                }
            }
        }
    }
    // The check reads real imports: the exec gate alone uses three guards' faces.
    assert!(
        seen >= 10,
        "only {seen} uses of a guard found: the scan is broken"
    );
    assert!(
        problems.is_empty(),
        "uses of a guard's inside (only its face and codes are for other crates):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_scan_sees_a_use_of_an_inside() {
    assert_eq!(
        guard_paths("use gh_write_guard::g6_primary_checkout::mutates;"),
        vec![("gh_write_guard", "g6_primary_checkout".to_string())]
    );
    assert_eq!(
        guard_paths("    x(integrity_signals::face::I3_SETTINGS) // model_tier_guard::host"),
        vec![("integrity_signals", "face".to_string())]
    );
    assert!(guard_paths("fn my_gh_write_guard::x").is_empty());
}
