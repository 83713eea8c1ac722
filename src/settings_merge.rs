//! Merging our hook registrations into a Claude Code settings file without touching anything else.
//!
//! Pure functions over JSON values. Ours are recognised by their command: an absolute path in our
//! bin dir whose file name is one of our binaries. Everything else — other tools' hooks, matcher
//! groups, permissions, env, unknown keys — is kept as it was, in its order.

use crate::registry::{Registration, BINARIES};
use serde_json::{json, Map, Value};
use std::path::Path;

/// Why a settings file is refused (the file is left untouched).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    NotJson(String),
    NotObject,
    WrongType(&'static str, &'static str),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::NotJson(e) => write!(f, "not valid JSON ({e})"),
            Refusal::NotObject => write!(f, "the top level is not a JSON object"),
            Refusal::WrongType(key, want) => write!(f, "`{key}` is not {want}"),
        }
    }
}

/// Parses settings text, refusing anything we could not merge into safely. Empty text is `{}`.
pub fn parse(text: &str) -> Result<Map<String, Value>, Refusal> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    let v: Value = serde_json::from_str(text).map_err(|e| Refusal::NotJson(e.to_string()))?;
    let Value::Object(map) = v else {
        return Err(Refusal::NotObject);
    };
    for (key, want) in [
        ("hooks", "an object"),
        ("env", "an object"),
        ("permissions", "an object"),
    ] {
        if let Some(v) = map.get(key) {
            if !v.is_object() {
                return Err(Refusal::WrongType(key, want));
            }
        }
    }
    if let Some(Value::Object(hooks)) = map.get("hooks") {
        for groups in hooks.values() {
            let ok = groups.as_array().is_some_and(|gs| {
                gs.iter()
                    .all(|g| g.is_object() && g.get("hooks").is_none_or(Value::is_array))
            });
            if !ok {
                return Err(Refusal::WrongType(
                    "hooks.<event>",
                    "a list of matcher groups",
                ));
            }
        }
    }
    Ok(map)
}

/// Whether a handler is one of ours.
pub fn is_ours(handler: &Value, bin_dir: &Path) -> bool {
    let Some(cmd) = handler.get("command").and_then(Value::as_str) else {
        return false;
    };
    let p = Path::new(cmd);
    p.parent() == Some(bin_dir)
        && p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| BINARIES.contains(&n))
}

/// The handler we register for `reg`.
pub fn handler(reg: &Registration, bin_dir: &Path) -> Value {
    let mut h = json!({
        "type": "command",
        "command": bin_dir.join(reg.binary).to_string_lossy(),
        "args": reg.args,
    });
    if let Some(t) = reg.timeout {
        h["timeout"] = json!(t);
    }
    h
}

/// Removes our handlers everywhere; drops groups and events that only held ours.
pub fn remove_ours(settings: &mut Map<String, Value>, bin_dir: &Path) {
    let Some(Value::Object(hooks)) = settings.get_mut("hooks") else {
        return;
    };
    for groups in hooks.values_mut() {
        if let Value::Array(gs) = groups {
            for g in gs.iter_mut() {
                if let Some(Value::Array(hs)) = g.get_mut("hooks") {
                    let before = hs.len();
                    hs.retain(|h| !is_ours(h, bin_dir));
                    if hs.len() != before && hs.is_empty() {
                        // Mark the group as emptied by us; removed below.
                        *g = Value::Null;
                    }
                }
            }
            gs.retain(|g| !g.is_null());
        }
    }
    hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    if hooks.is_empty() {
        settings.remove("hooks");
    }
}

/// Installs our registrations: ours are replaced where they stand (same event and matcher group),
/// new ones are appended as their own groups. Running it twice gives the same value.
pub fn install(settings: &mut Map<String, Value>, regs: &[Registration], bin_dir: &Path) {
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else { return };
    for reg in regs {
        let groups = hooks
            .entry(reg.event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(gs) = groups else { continue };
        let wanted = handler(reg, bin_dir);
        let same_group = |g: &Value| g.get("matcher").and_then(Value::as_str) == reg.matcher;
        // Replace our handler for this binary in a group with the same matcher, in place.
        let mut placed = false;
        for g in gs.iter_mut().filter(|g| same_group(g)) {
            if let Some(Value::Array(hs)) = g.get_mut("hooks") {
                for h in hs.iter_mut() {
                    let same_binary = is_ours(h, bin_dir)
                        && h.get("command").and_then(Value::as_str) == wanted["command"].as_str();
                    if same_binary && !placed {
                        *h = wanted.clone();
                        placed = true;
                    }
                }
            }
        }
        if !placed {
            let mut group = Map::new();
            if let Some(m) = reg.matcher {
                group.insert("matcher".into(), json!(m));
            }
            group.insert("hooks".into(), json!([wanted]));
            gs.push(Value::Object(group));
        }
    }
}

/// Sets `env.CLAUDE_CODE_SHELL_PREFIX` to `prefix` (`Some`) or removes ours (`None`). A prefix
/// the user set to something else is never touched; the returned note says so.
pub fn set_shell_prefix(
    settings: &mut Map<String, Value>,
    bin_dir: &Path,
    prefix: Option<&Path>,
) -> Option<String> {
    const KEY: &str = "CLAUDE_CODE_SHELL_PREFIX";
    let current = settings
        .get("env")
        .and_then(|e| e.get(KEY))
        .and_then(Value::as_str)
        .map(str::to_string);
    let ours = |v: &str| is_ours(&json!({"command": v}), bin_dir);
    match (current.as_deref(), prefix) {
        (Some(v), _) if !ours(v) => Some(format!(
            "env.{KEY} is set to {v:?} by someone else; left as it is (containment not registered)"
        )),
        (_, Some(p)) => {
            let env = settings
                .entry("env")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(env) = env {
                env.insert(KEY.into(), json!(p.to_string_lossy()));
            }
            None
        }
        (Some(_), None) => {
            if let Some(Value::Object(env)) = settings.get_mut("env") {
                env.remove(KEY);
                if env.is_empty() {
                    settings.remove("env");
                }
            }
            None
        }
        (None, None) => None,
    }
}

/// Renders settings the way we write them: two-space JSON and a final newline.
pub fn render(settings: &Map<String, Value>) -> String {
    let mut s = serde_json::to_string_pretty(settings).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::REGISTRATIONS;

    const BIN: &str = "/home/u/.local/share/agent-guards/bin";

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
    }

    #[test]
    fn install_keeps_others_and_is_idempotent() {
        let text = r#"{"model":"sonnet","hooks":{"Stop":[{"hooks":[{"type":"command","command":"/opt/other"}]}]},"env":{"A":"1"}}"#;
        let mut s = parse(text).unwrap();
        install(&mut s, REGISTRATIONS, Path::new(BIN));
        let once = render(&s);
        install(&mut s, REGISTRATIONS, Path::new(BIN));
        assert_eq!(render(&s), once);
        let v: Value = serde_json::from_str(&once).unwrap();
        assert_eq!(v["model"], "sonnet");
        assert_eq!(v["env"]["A"], "1");
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "/opt/other");
        assert_eq!(
            v["hooks"]["Stop"][1]["hooks"][0]["command"],
            format!("{BIN}/egress-audit")
        );
        assert_eq!(v["hooks"]["SubagentStop"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn uninstall_restores_the_original() {
        let text = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/opt/other"}]}]}}"#;
        let original = parse(text).unwrap();
        let mut s = original.clone();
        install(&mut s, REGISTRATIONS, Path::new(BIN));
        remove_ours(&mut s, Path::new(BIN));
        assert_eq!(s, original);
        let mut empty = Map::new();
        install(&mut empty, REGISTRATIONS, Path::new(BIN));
        remove_ours(&mut empty, Path::new(BIN));
        assert!(empty.is_empty());
    }

    #[test]
    fn a_hand_edited_entry_of_ours_is_replaced_in_place() {
        let text = format!(
            r#"{{"hooks":{{"Stop":[{{"hooks":[{{"type":"command","command":"{BIN}/egress-audit","args":["old"]}},{{"type":"command","command":"/x"}}]}}]}}}}"#
        );
        let mut s = parse(&text).unwrap();
        install(&mut s, REGISTRATIONS, Path::new(BIN));
        let v = Value::Object(s);
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
    }
}
