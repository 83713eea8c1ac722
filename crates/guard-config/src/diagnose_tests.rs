//! Cases written from the issue: each mistake a user makes is named, with its line and remedy; a
//! correct file has no problems.

use super::*;

fn messages(text: &str) -> Vec<String> {
    diagnose(text).iter().map(|p| p.to_string()).collect()
}

#[test]
fn a_correct_file_and_the_default_config_have_no_problems() {
    assert!(diagnose("").is_empty());
    assert!(diagnose(&default_config()).is_empty());
    // Every commented-out line of the default config is itself a valid setting.
    let uncommented: String = default_config()
        .lines()
        .filter_map(|l| l.strip_prefix("# "))
        .filter(|l| l.contains(" = ") && !l.contains(" — "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(uncommented.contains("primary_checkout = \"allow\""));
    assert_eq!(diagnose(&uncommented), vec![], "{uncommented}");
    let text = r#"
primary_checkout = { "/src/a" = "allow", "/src/b" = "deny" }
egress_mode = "report"
mode = "enforce"
tasks_max = "max"
memory_max = "2G"
hook_deadline_ms = 1500
github_api = "https://ghe.example/api/v3"
egress_extra_phrases = { command_displacement = ["please execute"] }
"#;
    assert_eq!(diagnose(text), vec![]);
}

#[test]
fn invalid_toml_is_named_with_its_line() {
    let m = messages("egress_mode = \"report\"\nmode = [1\n");
    assert_eq!(m.len(), 1);
    assert!(m[0].starts_with("line 2: invalid TOML"), "{m:?}");
}

#[test]
fn an_unknown_key_names_the_nearest_known_key() {
    let p = diagnose("\n\negres_mode = \"report\"\nzzzzzz = 1\n");
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].line, Some(3));
    assert!(p[0].message.contains("did you mean `egress_mode`"), "{p:?}");
    assert!(!p[1].message.contains("did you mean"), "{p:?}");
    assert_eq!(nearest_key("primary-checkout"), Some("primary_checkout"));
    assert_eq!(nearest_key("tasks_mx"), Some("tasks_max"));
}

#[test]
fn invalid_values_say_what_is_allowed() {
    for (text, allowed) in [
        ("primary_checkout = \"alow\"", "\"allow\""),
        ("primary_checkout = { \"/src\" = \"yes\" }", "\"allow\""),
        ("egress_mode = \"block\"", "\"report\""),
        ("mode = \"enforcing\"", "\"observe\""),
        ("tasks_max = 10", "64 to 2^31"),
        ("tasks_max = \"lots\"", "\"max\""),
        ("memory_max = \"2X\"", "\"NG\""),
        ("memory_max = \"1M\"", "256 MiB"),
        ("memory_max = \"150%\"", "1-100"),
        ("hook_deadline_ms = 5", "100 to 8500"),
        ("hook_deadline_ms = 15000", "100 to 8500"),
        ("rules_timeout_ms = 0", "1 or more"),
        ("protected_branches = \"main\"", "list of branch names"),
        ("github_api = \"api.github.com\"", "URL"),
    ] {
        let m = messages(text);
        assert_eq!(m.len(), 1, "{text}: {m:?}");
        assert!(m[0].starts_with("line 1: `"), "{text}: {m:?}");
        assert!(m[0].contains(allowed), "{text}: {m:?}");
        assert!(!m[0].contains('\n'));
    }
    // Look-alikes that are valid.
    for ok in [
        "primary_checkout = \"Allow\"",
        "tasks_max = \"4096\"",
        "memory_max = 268435456",
        "memory_max = \"max\"",
    ] {
        assert_eq!(diagnose(ok), vec![], "{ok}");
    }
}

#[test]
fn deadlines_that_cannot_hold_together_are_named() {
    // Issue 47: a rules lookup of 14 s under a hook deadline of 15 s answered after the CLI's
    // 10 s; the hook deadline is clamped, and the lookup said to be cut.
    let m = messages("hook_deadline_ms = 15000\nrules_timeout_ms = 14000\n");
    assert_eq!(m.len(), 2, "{m:?}");
    assert!(m[1].contains("cut to 8200 ms"), "{m:?}");
    assert_eq!(
        messages("rules_timeout_ms = 2000\n").len(),
        1,
        "the default hook deadline (2 s) leaves 1700 ms"
    );
    assert_eq!(
        diagnose("hook_deadline_ms = 5000\nrules_timeout_ms = 3000\n"),
        vec![]
    );
}

#[test]
fn every_problem_of_a_file_is_named_at_once() {
    let m = messages("tasks_mx = 5\nprimary_checkout = \"alow\"\nmemory_max = \"lots\"\n");
    assert_eq!(m.len(), 3, "{m:?}");
    assert!(
        m[0].starts_with("line 1:") && m[1].starts_with("line 2:") && m[2].starts_with("line 3:")
    );
}

#[test]
fn control_characters_from_the_file_are_escaped() {
    let m = messages("\"bad\\u001b[31m\" = 1");
    assert!(!m[0].contains('\u{1b}'), "{m:?}");
}

#[test]
fn the_table_names_each_key_once_and_every_field_the_loader_reads() {
    let mut names: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before, "a key is listed twice");
    let table = markdown_table();
    for k in KEYS {
        assert_eq!(table.matches(&format!("| `{}` |", k.name)).count(), 1);
    }
}
