//! The second line's own sub-codes. The one place that lists them is the code table of
//! `spec/second-line.md`: the build makes a constant of each row (`C10.unjudged` →
//! `C10_UNJUDGED`). Refusals by a guard's rule carry that guard's codes, from its face.

// The constants, `ALL` and `requirement`: see `fixture_embed::code_table`.
include!(concat!(env!("OUT_DIR"), "/codes.rs"));

#[cfg(test)]
mod tests {
    use std::path::Path;

    const SPEC: &str = include_str!("../../../spec/second-line.md");

    /// Each code's row: its module and tests columns name files that exist and use the code.
    #[test]
    fn every_code_reaches_its_module_and_tests_in_one_hop() {
        let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert!(!super::ALL.is_empty());
        for code in super::ALL {
            let row = SPEC
                .lines()
                .find(|l| l.starts_with(&format!("| `{code}` |")))
                .unwrap_or_else(|| panic!("{code} has a row"));
            let cells: Vec<&str> = row.split(" | ").collect();
            assert_eq!(cells.len(), 4, "{code}: code, what fires it, module, tests");
            let files = |cell: &str| -> Vec<String> {
                cell.split('`')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_string)
                    .collect()
            };
            let constant = code.to_ascii_uppercase().replace(['.', '-'], "_");
            let modules = files(cells[2]);
            assert!(!modules.is_empty(), "{code} names its module");
            let said = modules.iter().any(|m| {
                std::fs::read_to_string(crate_dir.join(m))
                    .unwrap_or_else(|e| panic!("{code}: {m}: {e}"))
                    .contains(&constant)
            });
            assert!(said, "{code}: none of {modules:?} uses {constant}");
            for t in files(cells[3]) {
                assert!(crate_dir.join(&t).is_file(), "{code}: {t} exists");
            }
        }
    }
}
