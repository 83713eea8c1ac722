//! Fixture cases: `{case_id, text, expected_status, case_type?, expected_diagnostic?}` JSON files.

use serde::Deserialize;
use std::path::Path;

/// The fixtures compiled into the binary (`fixtures/egress-audit/**.json`).
pub mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_fixtures.rs"));
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaseType {
    Positive,
    Negative,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    /// Where the case came from (file path relative to the fixture root).
    #[serde(skip)]
    pub source: String,
    pub case_id: String,
    pub text: String,
    pub expected_status: String,
    #[serde(default)]
    pub case_type: Option<CaseType>,
    #[serde(default)]
    pub expected_diagnostic: Option<String>,
}

/// Parses one case; the error names the file.
pub fn parse_case(source: &str, json: &str) -> Result<Case, String> {
    let mut case: Case =
        serde_json::from_str(json).map_err(|e| format!("{source}: not a fixture case: {e}"))?;
    if !matches!(case.expected_status.as_str(), "red" | "green") {
        return Err(format!(
            "{source}: expected_status must be \"red\" or \"green\", not {:?}",
            case.expected_status
        ));
    }
    case.source = source.to_string();
    Ok(case)
}

/// The embedded cases, in file order.
pub fn embedded_cases() -> Result<Vec<Case>, String> {
    embedded::EMBEDDED
        .iter()
        .map(|(path, json)| parse_case(path, json))
        .collect()
}

/// Every `*.json` case under `dir`, recursively, sorted by path. Bounded: at most 10,000 files of
/// at most 1 MiB each.
pub fn load_dir(dir: &Path) -> Result<Vec<Case>, String> {
    let mut files = Vec::new();
    walk(dir, &mut files, 0)?;
    files.sort();
    if files.len() > 10_000 {
        return Err(format!("{}: more than 10,000 fixture files", dir.display()));
    }
    let mut out = Vec::new();
    for f in files {
        let meta = std::fs::metadata(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        if meta.len() > 1024 * 1024 {
            return Err(format!("{}: larger than 1 MiB", f.display()));
        }
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let rel = f.strip_prefix(dir).unwrap_or(&f).display().to_string();
        out.push(parse_case(&rel, &text)?);
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>, depth: usize) -> Result<(), String> {
    if depth > 8 {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if kind.is_dir() {
            walk(&path, out, depth + 1)?;
        } else if kind.is_file() && path.extension().is_some_and(|x| x == "json") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_cases_parse() {
        let cases = embedded_cases().unwrap();
        let baseline = cases
            .iter()
            .filter(|c| c.source.starts_with("E1/") || c.source.starts_with("E4/"))
            .count();
        assert_eq!(baseline, 10);
        assert!(
            cases
                .iter()
                .filter(|c| c.source.starts_with("corpus/"))
                .count()
                >= 200
        );
        assert!(cases
            .iter()
            .any(|c| c.case_id == "command_displacement_no_receipt"));
    }

    #[test]
    fn bad_cases_name_their_file() {
        assert!(parse_case("x.json", "{")
            .unwrap_err()
            .starts_with("x.json:"));
        let e = parse_case(
            "y.json",
            r#"{"case_id":"a","text":"t","expected_status":"amber"}"#,
        )
        .unwrap_err();
        assert!(e.contains("amber"));
    }
}
