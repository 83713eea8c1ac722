//! Embeds `fixtures/gh-write-guard/**.json` so an installed binary can replay its fixtures with no
//! repository around (`--selftest`).

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

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join("../../fixtures/gh-write-guard");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let mut f =
        fs::File::create(out_dir.join("embedded_fixtures.rs")).expect("OUT_DIR is writable");
    writeln!(f, "pub const EMBEDDED: &[(&str, &str)] = &[").expect("write");
    for p in &files {
        println!("cargo:rerun-if-changed={}", p.display());
        let rel = p.strip_prefix(&root).unwrap_or(p).display().to_string();
        writeln!(
            f,
            "    ({rel:?}, include_str!({:?})),",
            p.display().to_string()
        )
        .expect("write");
    }
    writeln!(f, "];").expect("write");
}
