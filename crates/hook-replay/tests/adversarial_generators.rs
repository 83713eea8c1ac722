//! The adversarial sets (`fixtures/adversarial*/<guard>/{attacks,benign}.json`) are generated from
//! the case tables beside them (`cases.txt`, read by `fixtures/adversarial/common.py`). This test
//! runs every generator on a copy of the fixtures and requires the committed JSON to be what it
//! produces, so a row added to a table (or a JSON edited by hand) cannot drift from its source.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs one generator where it stands; its failure (or a missing python3) fails the test.
fn generate(dir: &Path, name: &str) {
    match Command::new("python3")
        .arg("generate.py")
        .current_dir(dir)
        .output()
    {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "{name}/generate.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!("python3 runs the fixture generators (the tests need it): {e}"),
    }
}

#[test]
fn every_generated_set_matches_its_case_tables() {
    let scratch = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for set in ["adversarial", "adversarial-heldout"] {
        copy_tree(&fixtures().join(set), &scratch.path().join(set));
        for guard in ["gh-write-guard", "model-tier-guard", "integrity-signals"] {
            let dir = scratch.path().join(set).join(guard);
            // Remove the outputs first: a generator that silently stopped writing must fail here.
            for name in ["attacks.json", "benign.json"] {
                std::fs::remove_file(dir.join(name)).unwrap();
            }
            generate(&dir, &format!("{set}/{guard}"));
            for name in ["attacks.json", "benign.json"] {
                let committed = std::fs::read(fixtures().join(set).join(guard).join(name)).unwrap();
                let generated = std::fs::read(dir.join(name))
                    .unwrap_or_else(|e| panic!("{set}/{guard}: {name} not generated: {e}"));
                assert!(
                    committed == generated,
                    "fixtures/{set}/{guard}/{name} differs from what generate.py makes of cases.txt: \
                     re-run the generator and commit both"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 12);
}
