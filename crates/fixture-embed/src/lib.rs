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
