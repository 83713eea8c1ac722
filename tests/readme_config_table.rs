//! The README's configuration table is generated from guard-config's one list of keys
//! (`guard_config::diagnose::KEYS`): a key added there without a README row fails here, as does a
//! row edited by hand or a key listed twice.

const README: &str = include_str!("../README.md");
const START: &str = "<!-- config-table:start -->\n";
const END: &str = "<!-- config-table:end -->";

fn section() -> &'static str {
    let start = README
        .find(START)
        .expect("the README has the config-table markers")
        + START.len();
    let end = README[start..].find(END).expect("an end marker") + start;
    &README[start..end]
}

#[test]
fn the_readme_configuration_table_is_the_generated_one() {
    let expected = guard_config::diagnose::markdown_table();
    assert_eq!(
        section(),
        expected,
        "README.md's configuration table is out of date; replace the lines between the \
         config-table markers with the output of `cargo run -q -p agent-guards -- config-table`"
    );
}

#[test]
fn every_key_has_exactly_one_row() {
    let rows: Vec<&str> = section().lines().skip(2).collect();
    assert_eq!(rows.len(), guard_config::diagnose::KEYS.len());
    for key in guard_config::diagnose::KEYS {
        let row = format!("| `{}` |", key.name);
        let n = README.matches(&row).count();
        assert_eq!(n, 1, "{} has {n} rows in the README", key.name);
    }
}
