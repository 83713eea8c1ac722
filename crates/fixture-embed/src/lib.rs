//! Build-script helper: embeds `fixtures/<binary>/**.json` so an installed binary can run its
//! `--selftest` with no repository around. A build script calls [`embed`]; the crate then
//! `include!`s `$OUT_DIR/embedded_fixtures.rs`, which defines
//! `pub const EMBEDDED: &[(&str, &str)]` (path under the folder, file text).

#![warn(missing_docs)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// Writes `$OUT_DIR/embedded_fixtures.rs` for `fixtures/<folder>` of the workspace and tells
/// cargo to rebuild when a fixture changes. Panics only where cargo broke its own contract
/// (no `CARGO_MANIFEST_DIR`/`OUT_DIR`, unwritable `OUT_DIR`), which fails the build loudly.
pub fn embed(folder: &str) {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join("../../fixtures").join(folder);
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let mut f =
        fs::File::create(out_dir.join("embedded_fixtures.rs")).expect("OUT_DIR is writable");
    writeln!(f, "pub const EMBEDDED: &[(&str, &str)] = &[").unwrap();
    for p in &files {
        println!("cargo:rerun-if-changed={}", p.display());
        let rel = p.strip_prefix(&root).unwrap_or(p).display().to_string();
        writeln!(
            f,
            "    ({rel:?}, include_str!({:?})),",
            p.display().to_string()
        )
        .unwrap();
    }
    writeln!(f, "];").unwrap();
}

/// Writes `$OUT_DIR/codes.rs` from the code table of `spec/<binary>.md`, the one place a
/// binary's sub-codes are listed: each row `` | `<code>` | <what fires it> | `` becomes
/// `pub const <CODE>: &str` (`M2.call-model` → `M2_CALL_MODEL`, documented by the row's text),
/// then `ALL` (every code, in the spec's order) and `requirement` (the requirement a code belongs
/// to). A code listed twice is two constants of one name: the build fails. Panics where cargo
/// broke its contract or the spec cannot be read, which fails the build loudly.
pub fn code_table(binary: &str) {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let spec = manifest.join(format!("../../spec/{binary}.md"));
    println!("cargo:rerun-if-changed={}", spec.display());
    let text = fs::read_to_string(&spec).expect("the binary's spec is readable");
    let rows = code_rows(&text);
    assert!(!rows.is_empty(), "no code table in {}", spec.display());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    fs::write(out_dir.join("codes.rs"), code_table_rust(&rows)).expect("OUT_DIR is writable");
}

/// The `(code, what fires it)` rows of a spec's code table, in order.
fn code_rows(spec: &str) -> Vec<(&str, &str)> {
    spec.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("| `")?;
            let (code, rest) = rest.split_once("` | ")?;
            let (req, name) = code.split_once('.')?;
            let is_code = req.len() >= 2
                && req.starts_with(|c: char| c.is_ascii_uppercase())
                && req[1..].chars().all(|c| c.is_ascii_digit())
                && !name.is_empty()
                && name.chars().all(|c| c.is_ascii_lowercase() || c == '-');
            // The second cell; later ones (a module, the tests that pin it) are for readers.
            let row = rest.trim_end().strip_suffix('|')?;
            let fires = row.split(" | ").next().unwrap_or(row).trim();
            is_code.then_some((code, fires))
        })
        .collect()
}

/// The Rust text [`code_table`] writes.
fn code_table_rust(rows: &[(&str, &str)]) -> String {
    let name = |code: &str| code.to_ascii_uppercase().replace(['.', '-'], "_");
    let mut out = String::new();
    for (code, fires) in rows {
        out.push_str(&format!(
            "#[doc = {fires:?}]\npub const {}: &str = {code:?};\n",
            name(code)
        ));
    }
    out.push_str("/// Every code, once, in the spec's order.\npub const ALL: &[&str] = &[");
    for (code, _) in rows {
        out.push_str(&name(code));
        out.push_str(", ");
    }
    out.push_str("];\n");
    out.push_str(
        "/// The requirement a code belongs to: `M2.call-model` → `M2`.\n\
         pub fn requirement(code: &'static str) -> &'static str {\n    \
         code.split_once('.').map_or(code, |(r, _)| r)\n}\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_rows_are_the_table_rows_only() {
        let spec = "| code | fires when |\n|---|---|\n| `M2.call-model` | the call's `model` is on the tier. |\n\
                    | `M2` | a bare requirement |\n| `x.y` | lower case |\n| `G4.rule` | a rule | `src/g4.rs` | `tests/g4.rs` |\n\
                    text | `M3.x` | not a row\n";
        assert_eq!(
            code_rows(spec),
            [
                ("M2.call-model", "the call's `model` is on the tier."),
                ("G4.rule", "a rule")
            ]
        );
        let rust = code_table_rust(&code_rows(spec));
        assert!(
            rust.contains("pub const M2_CALL_MODEL: &str = \"M2.call-model\";"),
            "{rust}"
        );
        assert!(
            rust.contains("pub const ALL: &[&str] = &[M2_CALL_MODEL, G4_RULE, ];"),
            "{rust}"
        );
    }
}
