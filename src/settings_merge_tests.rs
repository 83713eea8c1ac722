//! The merge on settings text: others' entries keep their bytes, ours are replaced in place, and
//! install then uninstall gives the text back.

use super::*;
use crate::registry::REGISTRATIONS;

const BIN: &str = "/home/u/.local/share/agent-guards/bin";

fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn full_cycle(text: &str) -> String {
    let bin = Path::new(BIN);
    let prefix = Path::new(BIN).join("tool-containment");
    let installed = install(text, REGISTRATIONS, bin);
    let (installed, _) = set_shell_prefix(&installed, bin, Some(&prefix));
    let removed = remove_ours(&installed, bin);
    set_shell_prefix(&removed, bin, None).0
}

#[test]
fn refuses_what_it_cannot_merge() {
    assert!(matches!(parse("{"), Err(Refusal::NotJson(_))));
    assert_eq!(parse("[]"), Err(Refusal::NotObject));
    assert_eq!(
        parse(r#"{"hooks": []}"#),
        Err(Refusal::WrongType("hooks", "an object"))
    );
    assert_eq!(
        parse(r#"{"env": "x"}"#),
        Err(Refusal::WrongType("env", "an object"))
    );
    assert!(parse(r#"{"hooks": {"Stop": {}}}"#).is_err());
    assert!(parse("").unwrap().is_empty());
    assert_eq!(
        parse(r#"{"hooks": {}, "hooks": {"Stop": []}}"#),
        Err(Refusal::DuplicateKey("hooks".into()))
    );
}

#[test]
fn install_keeps_others_and_is_idempotent() {
    let text = r#"{"model":"sonnet","hooks":{"Stop":[{"hooks":[{"type":"command","command":"/opt/other"}]}]},"env":{"A":"1"}}"#;
    let once = install(text, REGISTRATIONS, Path::new(BIN));
    assert_eq!(install(&once, REGISTRATIONS, Path::new(BIN)), once);
    let v = value(&once);
    assert_eq!(v["model"], "sonnet");
    assert_eq!(v["env"]["A"], "1");
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "/opt/other");
    assert_eq!(
        v["hooks"]["Stop"][1]["hooks"][0]["command"],
        format!("{BIN}/egress-audit")
    );
    assert_eq!(v["hooks"]["SubagentStop"].as_array().unwrap().len(), 1);
    // A one-line file stays on one line.
    assert!(!once.contains('\n'), "{once}");
}

#[test]
fn install_then_uninstall_gives_the_text_back() {
    let texts = [
        "{}\n",
        "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"/opt/other\"}]}]}}",
        // Hand-written: odd key order, four-space and tab indentation, a 20-digit integer, a
        // number with a trailing zero, an escaped character.
        "{\n    \"zeta\": 12345678901234567890,\n    \"hooks\": {\n        \"Notification\": [{\"hooks\": []}],\n        \"Stop\": [\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"/opt/x\"}]}\n        ]\n    },\n    \"alpha\": 1.50,\n    \"env\": {\"A\": \"\\u00e9\"}\n}\n",
        "{\n\t\"env\": {\n\t\t\"FOO\": \"bar\"\n\t}\n}",
    ];
    for t in texts {
        assert_eq!(full_cycle(t), t);
    }
}

#[test]
fn installed_text_is_the_same_value_as_before_plus_ours() {
    let text = "{\n  \"b\": {\"x\": [1, 2]},\n  \"a\": 3\n}\n";
    let out = install(text, REGISTRATIONS, Path::new(BIN));
    assert!(
        out.starts_with("{\n  \"b\": {\"x\": [1, 2]},\n  \"a\": 3,\n  \"hooks\": {\n    \""),
        "{out}"
    );
    let v = value(&out);
    for reg in REGISTRATIONS {
        let groups = v["hooks"][reg.event].as_array().unwrap();
        let found = groups.iter().any(|g| {
            g.get("matcher").and_then(Value::as_str) == reg.matcher
                && g["hooks"]
                    .as_array()
                    .unwrap()
                    .contains(&handler(reg, Path::new(BIN)))
        });
        assert!(found, "{reg:?}");
    }
}

#[test]
fn a_hand_edited_entry_of_ours_is_replaced_in_place() {
    let text = format!(
        r#"{{"hooks":{{"Stop":[{{"hooks":[{{"type":"command","command":"{BIN}/egress-audit","args":["old"]}},{{"type":"command","command":"/x"}}]}}]}}}}"#
    );
    let v = value(&install(&text, REGISTRATIONS, Path::new(BIN)));
    // egress-audit's entry was replaced where it stood; other Stop hooks of ours got groups.
    assert_eq!(v["hooks"]["Stop"][0]["hooks"].as_array().unwrap().len(), 2);
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        format!("{BIN}/egress-audit")
    );
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["args"], json!([]));
    let stop_regs = REGISTRATIONS.iter().filter(|r| r.event == "Stop").count();
    assert_eq!(v["hooks"]["Stop"].as_array().unwrap().len(), stop_regs);
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][1]["command"], "/x");
    // Uninstall takes ours out of the shared group and keeps theirs.
    let removed = value(&remove_ours(
        &install(&text, REGISTRATIONS, Path::new(BIN)),
        Path::new(BIN),
    ));
    assert_eq!(
        removed,
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/x"}]}]}})
    );
}

#[test]
fn a_shell_prefix_of_someone_else_is_left_alone() {
    let text = r#"{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/opt/w"}}"#;
    let p = Path::new(BIN).join("tool-containment");
    let (out, note) = set_shell_prefix(text, Path::new(BIN), Some(&p));
    assert_eq!(out, text);
    assert!(note.unwrap().contains("someone else"));
    assert_eq!(set_shell_prefix(text, Path::new(BIN), None).0, text);
}
