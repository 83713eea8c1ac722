//! The Claude Code plugin layout: `.claude-plugin/plugin.json` and `hooks/hooks.json`, generated
//! from the same registration table as the installer, with `${CLAUDE_PLUGIN_ROOT}/bin/<binary>`
//! commands in exec form. The repository carries a generated copy (kept in sync by a test);
//! `agent-guards plugin --out DIR` writes a complete plugin folder with the built binaries.

use crate::registry::{BINARIES, REGISTRATIONS};
use serde_json::{json, Map, Value};
use std::path::Path;

const ROOT: &str = "${CLAUDE_PLUGIN_ROOT}/bin";

/// `hooks/hooks.json`.
pub fn hooks_json() -> Value {
    let text = crate::settings_merge::install("{}", REGISTRATIONS, Path::new(ROOT));
    let mut settings: Map<String, Value> = serde_json::from_str(&text).unwrap_or_default();
    let mut out = Map::new();
    out.insert(
        "description".into(),
        json!("agent-guards hooks (exec form). The plugin cannot set CLAUDE_CODE_SHELL_PREFIX: use ./install.sh for tool-containment's prefix."),
    );
    out.insert(
        "hooks".into(),
        settings.remove("hooks").unwrap_or(json!({})),
    );
    Value::Object(out)
}

/// `.claude-plugin/plugin.json`.
pub fn plugin_json() -> Value {
    json!({
        "name": "agent-guards",
        "version": env!("CARGO_PKG_VERSION"),
        "description": "Hooks that keep an unattended coding agent from harming its maintainer: GitHub writes, primary-checkout git mutations, unbounded waits, runaway processes, the maintainer-only model tier, and final messages that push work back onto the operator.",
        "hooks": "./hooks/hooks.json"
    })
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// The two files, as (relative path, contents).
pub fn files() -> Vec<(&'static str, String)> {
    vec![
        (".claude-plugin/plugin.json", pretty(&plugin_json())),
        ("hooks/hooks.json", pretty(&hooks_json())),
    ]
}

/// Writes a plugin folder: the two files and `bin/` with the built binaries from `from`.
pub fn write(out: &Path, from: &Path) -> Result<Vec<String>, String> {
    let mut log = Vec::new();
    for (rel, text) in files() {
        let p = out.join(rel);
        crate::install::write_file(&p, text.as_bytes(), None)?;
        log.push(format!("wrote {}", p.display()));
    }
    let bin = out.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    for name in BINARIES {
        let src = from.join(name);
        let dst = bin.join(name);
        std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        log.push(format!("copied {}", dst.display()));
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_copy_is_in_sync_with_the_registry() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for (rel, text) in files() {
            let committed = std::fs::read_to_string(root.join(rel)).unwrap_or_default();
            assert_eq!(
                committed, text,
                "{rel} is out of date: run `cargo run -- plugin --out .` (without bin/) or copy the generated text"
            );
        }
    }

    #[test]
    fn every_command_points_into_the_plugin_root() {
        let v = hooks_json();
        for groups in v["hooks"].as_object().unwrap().values() {
            for g in groups.as_array().unwrap() {
                for h in g["hooks"].as_array().unwrap() {
                    let cmd = h["command"].as_str().unwrap();
                    assert!(cmd.starts_with("${CLAUDE_PLUGIN_ROOT}/bin/"), "{cmd}");
                    assert!(h.get("args").is_some(), "exec form");
                }
            }
        }
    }
}
