//! The main session's model (M3): learned from PostModelSwitch and SessionStart (recorded in the
//! ledger), the transcript (its last `message.model`, or the `model` attachment), and — before
//! the transcript has anything, as on the very first prompt — from how the CLI was launched
//! (`--model`, `ANTHROPIC_MODEL`, settings `model`).

use crate::host::{read_prefix, Host};
use serde_json::{json, Map, Value};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Ledger key of the recorded main model.
pub const LEDGER_KEY: &str = "main_model";
/// How much of the transcript's end is read.
const TRANSCRIPT_TAIL_BYTES: u64 = 2 * 1024 * 1024;
const SETTINGS_MAX_BYTES: u64 = 1024 * 1024;

/// A main model and where it was learned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MainModel {
    pub model: String,
    pub source: String,
}

impl MainModel {
    fn new(model: &str, source: &str) -> MainModel {
        MainModel {
            model: model.to_string(),
            source: source.to_string(),
        }
    }
}

/// The ledger entry for a main model.
pub fn ledger_value(model: &str, source: &str, time: &str) -> Value {
    json!({"model": model, "source": source, "time": time})
}

fn from_ledger(map: &Map<String, Value>) -> Option<MainModel> {
    let e = map.get(LEDGER_KEY)?;
    Some(MainModel::new(
        e.get("model")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())?,
        e.get("source").and_then(Value::as_str).unwrap_or("ledger"),
    ))
}

/// What the session runs on now, best source first.
pub fn learn(
    ledger: &Map<String, Value>,
    transcript_path: Option<&str>,
    host: &Host,
    project_dir: Option<&Path>,
) -> Option<MainModel> {
    let recorded = from_ledger(ledger);
    // A switch is the freshest fact: the transcript still shows the old model until the next turn.
    if let Some(m) = recorded.as_ref().filter(|m| m.source == "PostModelSwitch") {
        return Some(m.clone());
    }
    if let Some(m) = transcript_path
        .filter(|p| !p.is_empty())
        .and_then(|p| from_transcript(Path::new(p)))
    {
        return Some(MainModel::new(&m, "transcript"));
    }
    recorded.or_else(|| from_launch(host, project_dir))
}

/// The last model the transcript names for the main thread: an assistant line's
/// `message.model`, or a `model` attachment's `identity.modelId`, whichever comes last.
pub fn from_transcript(path: &Path) -> Option<String> {
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let start = len.saturating_sub(TRANSCRIPT_TAIL_BYTES);
    f.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::new();
    f.take(TRANSCRIPT_TAIL_BYTES).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    // A cut first line is skipped by failing to parse.
    for line in text.lines().rev() {
        // Cheap filter before parsing: most lines are neither.
        if !(line.contains("\"assistant\"") || line.contains("\"modelId\"")) {
            continue;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let model = match v.get("type").and_then(Value::as_str) {
            Some("assistant") => v.pointer("/message/model").and_then(Value::as_str),
            Some("attachment") if v.pointer("/attachment/type") == Some(&json!("model")) => v
                .pointer("/attachment/identity/modelId")
                .and_then(Value::as_str),
            _ => None,
        };
        // `<synthetic>` marks messages the CLI made up itself (errors, interruptions).
        if let Some(m) = model.filter(|m| !m.is_empty() && !m.starts_with('<')) {
            return Some(m.to_string());
        }
    }
    None
}

/// How the CLI was launched: `--model`, else `ANTHROPIC_MODEL`, else settings `model`
/// (local project, project, user).
pub fn from_launch(host: &Host, project_dir: Option<&Path>) -> Option<MainModel> {
    if let Some(m) = host.launch_option("--model").filter(|m| !m.is_empty()) {
        return Some(MainModel::new(&m, "--model"));
    }
    if let Some(m) = host.var("ANTHROPIC_MODEL") {
        return Some(MainModel::new(m, "ANTHROPIC_MODEL"));
    }
    let mut files = Vec::new();
    if let Some(p) = project_dir {
        files.push(p.join(".claude/settings.local.json"));
        files.push(p.join(".claude/settings.json"));
    }
    if let Some(h) = host.home() {
        files.push(h.join(".claude/settings.json"));
    }
    files.iter().find_map(|f| {
        let text = read_prefix(f, SETTINGS_MAX_BYTES)?;
        let v: Value = serde_json::from_str(&text).ok()?;
        let m = v.get("model")?.as_str().filter(|m| !m.is_empty())?;
        Some(MainModel::new(m, &format!("settings {}", f.display())))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_last_model_wins_and_sidechains_are_skipped() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let lines = [
            json!({"type": "attachment", "attachment": {"type": "model", "identity": {"modelId": "claude-fable-5-2"}}}),
            json!({"type": "assistant", "message": {"model": "claude-opus-5-5", "content": []}}),
            json!({"type": "assistant", "isSidechain": true, "message": {"model": "claude-haiku-5-5"}}),
            json!({"type": "assistant", "message": {"model": "<synthetic>"}}),
            json!({"type": "user", "message": {"content": "assistant modelId"}}),
        ];
        let text: Vec<String> = lines.iter().map(Value::to_string).collect();
        std::fs::write(&p, text.join("\n")).unwrap();
        assert_eq!(from_transcript(&p).as_deref(), Some("claude-opus-5-5"));
        std::fs::write(&p, lines[0].to_string()).unwrap();
        assert_eq!(from_transcript(&p).as_deref(), Some("claude-fable-5-2"));
        assert_eq!(from_transcript(&t.path().join("none")), None);
    }

    #[test]
    fn launch_order() {
        let t = tempfile::tempdir().unwrap();
        let mut host = Host::default();
        host.env
            .insert("HOME".into(), t.path().display().to_string());
        std::fs::create_dir_all(t.path().join(".claude")).unwrap();
        std::fs::write(
            t.path().join(".claude/settings.json"),
            r#"{"model":"sonnet"}"#,
        )
        .unwrap();
        assert_eq!(from_launch(&host, None).unwrap().model, "sonnet");
        host.env.insert("ANTHROPIC_MODEL".into(), "opus".into());
        assert_eq!(from_launch(&host, None).unwrap().model, "opus");
        host.launch_args = Some(vec![
            "-p".into(),
            "x".into(),
            "--model".into(),
            "fable".into(),
        ]);
        assert_eq!(
            from_launch(&host, None).unwrap(),
            MainModel::new("fable", "--model")
        );
    }

    #[test]
    fn a_recorded_switch_beats_the_transcript() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        std::fs::write(
            &p,
            json!({"type": "assistant", "message": {"model": "claude-opus-5"}}).to_string(),
        )
        .unwrap();
        let mut ledger = Map::new();
        ledger.insert(
            LEDGER_KEY.into(),
            ledger_value("claude-sonnet-5", "SessionStart", "t"),
        );
        let host = Host::default();
        let path = p.to_str();
        assert_eq!(
            learn(&ledger, path, &host, None).unwrap().model,
            "claude-opus-5"
        );
        ledger.insert(
            LEDGER_KEY.into(),
            ledger_value("claude-haiku-5", "PostModelSwitch", "t"),
        );
        assert_eq!(
            learn(&ledger, path, &host, None).unwrap().model,
            "claude-haiku-5"
        );
        ledger.insert(
            LEDGER_KEY.into(),
            ledger_value("claude-sonnet-5", "SessionStart", "t"),
        );
        assert_eq!(
            learn(&ledger, None, &host, None).unwrap().model,
            "claude-sonnet-5"
        );
        assert_eq!(learn(&Map::new(), None, &host, None), None);
    }
}
