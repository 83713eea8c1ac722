//! M3: Write/Edit of an agent definition or a settings file that sets the tier.
//!
//! The file as it would be after the call is judged: Write's `content`, or the current file with
//! Edit's replacement applied (bounded read; when the file cannot be read, the new text alone).

use crate::agents::{front_matter, is_definition_path};
use crate::host::read_prefix;
use crate::m3_launch::{settings_models, Requested, MODEL_VARS};
use serde_json::Value;
use std::path::Path;

const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// What kind of file a path is, for this rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    AgentDefinition,
    Settings,
}

/// The kind of `path`; `config_dir` is the CLI's config folder when `CLAUDE_CONFIG_DIR` moves it
/// away from `~/.claude` (its `agents/`, `plugins/` and `settings*.json` count as well).
pub fn kind_of(path: &str, config_dir: Option<&Path>) -> Option<FileKind> {
    let p = path.replace('\\', "/");
    let base = p.rsplit('/').next().unwrap_or(&p);
    let in_config = config_dir
        .map(|d| d.display().to_string())
        .and_then(|d| p.strip_prefix(d.trim_end_matches('/')).map(str::to_string))
        .and_then(|rest| rest.strip_prefix('/').map(str::to_string));
    if is_definition_path(&p) || crate::skills::is_skill_or_command_path(&p) {
        return Some(FileKind::AgentDefinition);
    }
    if let Some(rest) = &in_config {
        let agents = ["agents/", "skills/", "commands/"]
            .iter()
            .any(|d| rest.starts_with(d))
            || (rest.starts_with("plugins/")
                && ["/agents/", "/skills/", "/commands/"]
                    .iter()
                    .any(|d| rest.contains(d)));
        if agents && rest.ends_with(".md") {
            return Some(FileKind::AgentDefinition);
        }
    }
    let settings_name = base.starts_with("settings") && base.ends_with(".json");
    let in_claude_dir = p.contains("/.claude/") || in_config.is_some_and(|r| !r.contains('/'));
    if (settings_name && in_claude_dir) || base == "managed-settings.json" {
        return Some(FileKind::Settings);
    }
    None
}

/// The file's text after the call, for Write and Edit.
pub fn text_after(tool_name: &str, input: &Value) -> Option<String> {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    match tool_name {
        "Write" => s("content").map(str::to_string),
        "Edit" => {
            let new = s("new_string")?;
            let old = s("old_string").unwrap_or("");
            let all = input
                .get("replace_all")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let current = s("file_path").and_then(|p| read_prefix(Path::new(p), MAX_FILE_BYTES));
            Some(match current {
                Some(cur) if !old.is_empty() && cur.contains(old) => {
                    if all {
                        cur.replace(old, new)
                    } else {
                        cur.replacen(old, new, 1)
                    }
                }
                _ => new.to_string(),
            })
        }
        _ => None,
    }
}

/// Models the file would set.
pub fn requested_models(kind: FileKind, text: &str) -> Vec<Requested> {
    match kind {
        FileKind::AgentDefinition => {
            let model = front_matter(text).and_then(|fm| fm.model).or_else(|| {
                // An Edit whose new text is only a fragment of the front matter.
                text.lines().find_map(|l| {
                    let v = l
                        .trim()
                        .strip_prefix("model:")?
                        .trim()
                        .trim_matches(['"', '\'']);
                    (!v.is_empty()).then(|| v.to_string())
                })
            });
            model
                .filter(|m| !m.eq_ignore_ascii_case("inherit"))
                .map(|m| Requested {
                    model: Some(m),
                    source: "the definition's model".into(),
                })
                .into_iter()
                .collect()
        }
        FileKind::Settings => match serde_json::from_str::<Value>(text) {
            Ok(v) => settings_models(&v, "settings"),
            Err(_) => scan_settings_text(text),
        },
    }
}

/// A settings text that is not (yet) valid JSON: find `"key": "value"` pairs for the model keys.
fn scan_settings_text(text: &str) -> Vec<Requested> {
    let mut out = Vec::new();
    let keys = ["model", "fallbackModel"].iter().chain(MODEL_VARS.iter());
    for key in keys {
        let needle = format!("\"{key}\"");
        let mut rest = text;
        while let Some(i) = rest.find(&needle) {
            rest = &rest[i + needle.len()..];
            let after = rest.trim_start();
            let Some(after) = after.strip_prefix(':') else {
                continue;
            };
            let after = after.trim_start();
            let model = after
                .strip_prefix('"')
                .and_then(|v| v.split('"').next())
                .map(str::to_string);
            out.push(Requested {
                model,
                source: format!("settings {key}"),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds() {
        assert_eq!(
            kind_of("/w/.claude/agents/a.md", None),
            Some(FileKind::AgentDefinition)
        );
        assert_eq!(
            kind_of("/w/.claude/settings.local.json", None),
            Some(FileKind::Settings)
        );
        assert_eq!(
            kind_of("/h/.claude/settings.json", None),
            Some(FileKind::Settings)
        );
        assert_eq!(
            kind_of("/etc/claude-code/managed-settings.json", None),
            Some(FileKind::Settings)
        );
        assert_eq!(kind_of("/w/src/settings.json", None), None);
        assert_eq!(kind_of("/w/README.md", None), None);
        // The CLI's config folder moved by CLAUDE_CONFIG_DIR.
        let cfg = Some(Path::new("/cfg/claude/"));
        for (path, kind) in [
            (
                "/cfg/claude/agents/deep.md",
                Some(FileKind::AgentDefinition),
            ),
            (
                "/cfg/claude/agents/x/deep.md",
                Some(FileKind::AgentDefinition),
            ),
            (
                "/cfg/claude/plugins/c/m/p/agents/a.md",
                Some(FileKind::AgentDefinition),
            ),
            ("/cfg/claude/settings.json", Some(FileKind::Settings)),
            ("/cfg/claude/settings.local.json", Some(FileKind::Settings)),
            ("/cfg/claude/notes/settings.json", None),
            ("/cfg/claude/README.md", None),
            ("/cfg/claudette/agents/a.md", None),
        ] {
            assert_eq!(kind_of(path, cfg), kind, "{path}");
        }
        assert_eq!(kind_of("/cfg/claude/agents/deep.md", None), None);
    }

    #[test]
    fn edit_applies_to_the_current_file() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join(".claude/agents/a.md");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "---\nname: a\nmodel: haiku\n---\nbody\n").unwrap();
        let input = json!({"file_path": p, "old_string": "haiku", "new_string": "fable"});
        let text = text_after("Edit", &input).unwrap();
        let got = requested_models(FileKind::AgentDefinition, &text);
        assert_eq!(got[0].model.as_deref(), Some("fable"));
        let input = json!({"file_path": "/nonexistent/x.md", "old_string": "a", "new_string": "model: fable"});
        let text = text_after("Edit", &input).unwrap();
        assert_eq!(
            requested_models(FileKind::AgentDefinition, &text)[0]
                .model
                .as_deref(),
            Some("fable")
        );
    }

    #[test]
    fn settings_json_and_fragments() {
        let got = requested_models(
            FileKind::Settings,
            r#"{"model":"fable","env":{"CLAUDE_CODE_SUBAGENT_MODEL":"opus"}}"#,
        );
        assert_eq!(
            crate::test_files::models_of(got),
            vec![Some("fable".into()), Some("opus".into())]
        );
        let got = requested_models(FileKind::Settings, r#"  "model": "fable","#);
        assert_eq!(got[0].model.as_deref(), Some("fable"));
        assert!(requested_models(FileKind::Settings, r#"{"hooks":{}}"#).is_empty());
        assert!(
            requested_models(FileKind::AgentDefinition, "---\nmodel: inherit\n---\n").is_empty()
        );
    }
}
