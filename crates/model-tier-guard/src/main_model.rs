//! The main session's model (M1, M3): learned from PostModelSwitch and SessionStart (recorded in
//! the ledger), the transcript (its last `message.model`, or the `model` attachment), and —
//! before the transcript has anything, as on the very first prompt or tool call — from the
//! harness's own configuration ([`crate::launch_config`]: `--model`, `ANTHROPIC_MODEL`, settings
//! `model`, else the CLI's default).

use crate::host::{ConfigFiles, Host};
use crate::m1_tiers::Family;
use crate::model_aliases::{self, AliasEnv};
use serde_json::{json, Map, Value};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Ledger key of the recorded main model.
pub const LEDGER_KEY: &str = "main_model";
/// How much of the transcript's end is read.
const TRANSCRIPT_TAIL_BYTES: u64 = 2 * 1024 * 1024;

/// A main model and where it was learned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MainModel {
    pub model: String,
    pub source: String,
    /// One of the CLI's default's possibilities that a launcher's variable put there
    /// (`ANTHROPIC_DEFAULT_MODEL`, or an alias variable retargeting the account's default
    /// alias), rather than an account default itself.
    pub set_by_variable: bool,
}

impl MainModel {
    pub fn new(model: &str, source: &str) -> MainModel {
        MainModel {
            model: model.to_string(),
            source: source.to_string(),
            set_by_variable: false,
        }
    }

    /// A possibility of the CLI's default that a launcher's variable put there.
    pub fn by_variable(model: &str, source: &str) -> MainModel {
        MainModel {
            set_by_variable: true,
            ..MainModel::new(model, source)
        }
    }

    /// Rank for escalation (M5): an unknown family ranks lowest, so that a tainted session with
    /// a main model of no known family may only inherit it.
    fn escalation_rank(&self) -> u8 {
        let f = Family::of(&self.model);
        if f.is_known() {
            f.rank()
        } else {
            0
        }
    }
}

/// What the hook knows about the session's main model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MainKnowledge {
    /// A source names it.
    Known(MainModel),
    /// Nothing names it, so the session runs on the CLI's default, which depends on the
    /// account: every model it may be (never empty).
    CliDefault(Vec<MainModel>),
    /// It could not be learned: why.
    Unknown(String),
}

impl MainKnowledge {
    /// The model when a source names it.
    pub fn known(&self) -> Option<&MainModel> {
        match self {
            MainKnowledge::Known(m) => Some(m),
            _ => None,
        }
    }

    /// Every model the session may be running on (empty: unknown).
    pub fn possible(&self) -> &[MainModel] {
        match self {
            MainKnowledge::Known(m) => std::slice::from_ref(m),
            MainKnowledge::CliDefault(list) => list,
            MainKnowledge::Unknown(_) => &[],
        }
    }

    /// M5: the rank a dispatch may not exceed — the lowest the main model may be; `None` when
    /// it is unknown.
    pub fn escalation_floor(&self) -> Option<u8> {
        self.possible().iter().map(MainModel::escalation_rank).min()
    }

    /// For reasons: `"claude-opus-5-5"`, `the CLI's default ("opus" or "sonnet")`, `unknown`.
    pub fn label(&self) -> String {
        match self {
            MainKnowledge::Known(m) => format!("{:?}", m.model),
            MainKnowledge::CliDefault(list) => {
                let names: Vec<String> = list.iter().map(|m| format!("{:?}", m.model)).collect();
                format!("the CLI's default ({})", names.join(" or "))
            }
            MainKnowledge::Unknown(_) => "unknown".into(),
        }
    }

    /// The main model as the CLI runs it: an alias the environment retargets becomes its target
    /// ([`model_aliases::main_runs_on`]); every model the CLI's default may be keeps its alias
    /// and gains its targets ([`model_aliases::possible`]).
    pub fn through_aliases(self, env: &AliasEnv) -> MainKnowledge {
        if env.is_empty() {
            return self;
        }
        match self {
            MainKnowledge::Known(m) => {
                let meaning = model_aliases::main_runs_on(&m.model, env);
                MainKnowledge::Known(match meaning.note(&m.model) {
                    Some(note) => MainModel::new(&meaning.model, &format!("{}, {note}", m.source)),
                    None => m,
                })
            }
            MainKnowledge::CliDefault(list) => {
                let mut out: Vec<MainModel> = Vec::new();
                for m in &list {
                    for meaning in model_aliases::possible(&m.model, env) {
                        if out.iter().any(|o| o.model == meaning.model) {
                            continue;
                        }
                        // The variable alone says enough (reasons are bounded).
                        out.push(match meaning.note(&m.model) {
                            Some(note) => MainModel::by_variable(&meaning.model, &note),
                            None => m.clone(),
                        });
                    }
                }
                MainKnowledge::CliDefault(out)
            }
            unknown => unknown,
        }
    }

    /// For audit records.
    pub fn evidence(&self) -> Value {
        match self {
            MainKnowledge::Known(m) => json!({"model": m.model, "source": m.source}),
            MainKnowledge::CliDefault(list) => json!({"cli_default": list
                .iter()
                .map(|m| json!({"model": m.model, "source": m.source}))
                .collect::<Vec<_>>()}),
            MainKnowledge::Unknown(why) => json!({"unknown": why}),
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

/// What the session runs on now, best source first; the harness's configuration last.
pub fn learn(
    ledger: &Map<String, Value>,
    transcript_path: Option<&str>,
    host: &Host,
    project_dir: Option<&Path>,
    files: &dyn ConfigFiles,
) -> MainKnowledge {
    let aliases = host.aliases();
    let recorded = from_ledger(ledger);
    // A switch is the freshest fact: the transcript still shows the old model until the next turn.
    if let Some(m) = recorded.as_ref().filter(|m| m.source == "PostModelSwitch") {
        return MainKnowledge::Known(m.clone()).through_aliases(&aliases);
    }
    if let Some(m) = transcript_path
        .filter(|p| !p.is_empty())
        .and_then(|p| from_transcript(Path::new(p)))
    {
        // The transcript names the model the API was asked for: already resolved.
        return MainKnowledge::Known(MainModel::new(&m, "transcript"));
    }
    match recorded {
        Some(m) => MainKnowledge::Known(m).through_aliases(&aliases),
        None => {
            crate::launch_config::resolve(&crate::launch_config::gather(host, project_dir, files))
        }
    }
}

/// The last model the transcript names for the main thread: an assistant line's
/// `message.model`, or a `model` attachment's `identity.modelId`, whichever comes last.
///
/// The file is read backwards in chunks (the answer is usually in the last few lines), at most
/// `TRANSCRIPT_TAIL_BYTES` in total.
pub fn from_transcript(path: &Path) -> Option<String> {
    const CHUNK: u64 = 128 * 1024;
    // Regular files only, opened without waiting (a FIFO as the transcript: issue 47).
    let mut f =
        primitives::no_wait::open_regular(path, std::fs::OpenOptions::new().read(true)).ok()?;
    let len = f.metadata().ok()?.len();
    let floor = len.saturating_sub(TRANSCRIPT_TAIL_BYTES);
    let mut pos = len;
    // Bytes after `pos` that start a line not yet complete (its head is in an earlier chunk).
    let mut carry: Vec<u8> = Vec::new();
    while pos > floor {
        let start = pos.saturating_sub(CHUNK).max(floor);
        let mut chunk = vec![0u8; usize::try_from(pos - start).ok()?];
        f.seek(SeekFrom::Start(start)).ok()?;
        f.read_exact(&mut chunk).ok()?;
        chunk.extend_from_slice(&carry);
        pos = start;
        // Unless this chunk starts the file (or the bound), its first line may be cut.
        let (head, complete) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) if pos > 0 => (chunk[..i].to_vec(), &chunk[i + 1..]),
            _ => (Vec::new(), &chunk[..]),
        };
        for line in complete.rsplit(|b| *b == b'\n') {
            if let Some(m) = model_of_line(line) {
                return Some(m);
            }
        }
        carry = head;
    }
    None
}

fn model_of_line(line: &[u8]) -> Option<String> {
    let line = std::str::from_utf8(line).ok()?;
    // Cheap filter before parsing: most lines are neither.
    if !(line.contains("\"assistant\"") || line.contains("\"modelId\"")) {
        return None;
    }
    let v = serde_json::from_str::<Value>(line).ok()?;
    if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let model = match v.get("type").and_then(Value::as_str) {
        Some("assistant") => v.pointer("/message/model").and_then(Value::as_str),
        Some("attachment") if v.pointer("/attachment/type") == Some(&json!("model")) => v
            .pointer("/attachment/identity/modelId")
            .and_then(Value::as_str),
        _ => None,
    };
    // `<synthetic>` marks messages the CLI made up itself (errors, interruptions).
    model
        .filter(|m| !m.is_empty() && !m.starts_with('<'))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Fs;
    use std::path::PathBuf;

    /// A transcript of `lines` (one JSON value a line) in a temp folder.
    fn transcript(lines: &[Value]) -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let text: Vec<String> = lines.iter().map(Value::to_string).collect();
        std::fs::write(&p, text.join("\n")).unwrap();
        (t, p)
    }

    /// A main-thread answer of `model`.
    fn answer(model: &str) -> Value {
        json!({"type": "assistant", "message": {"model": model}})
    }

    #[test]
    fn transcript_last_model_wins_and_sidechains_are_skipped() {
        let lines = [
            json!({"type": "attachment", "attachment": {"type": "model", "identity": {"modelId": "claude-fable-5-2"}}}),
            json!({"type": "assistant", "message": {"model": "claude-opus-5-5", "content": []}}),
            json!({"type": "assistant", "isSidechain": true, "message": {"model": "claude-haiku-5-5"}}),
            json!({"type": "assistant", "message": {"model": "<synthetic>"}}),
            json!({"type": "user", "message": {"content": "assistant modelId"}}),
        ];
        let (t, p) = transcript(&lines);
        assert_eq!(from_transcript(&p).as_deref(), Some("claude-opus-5-5"));
        std::fs::write(&p, lines[0].to_string()).unwrap();
        assert_eq!(from_transcript(&p).as_deref(), Some("claude-fable-5-2"));
        assert_eq!(from_transcript(&t.path().join("none")), None);
        // The answer behind more than one chunk of later lines, and a line longer than a chunk.
        let filler = json!({"type": "attachment", "attachment": {"content": "x".repeat(300_000)}});
        let mut text = lines[1].to_string();
        for _ in 0..3 {
            text.push('\n');
            text.push_str(&filler.to_string());
        }
        text.push('\n');
        std::fs::write(&p, &text).unwrap();
        assert_eq!(from_transcript(&p).as_deref(), Some("claude-opus-5-5"));
        // Beyond the bound it is not found (and not read).
        let mut far = lines[1].to_string();
        for _ in 0..8 {
            far.push('\n');
            far.push_str(&filler.to_string());
        }
        std::fs::write(&p, &far).unwrap();
        assert_eq!(from_transcript(&p), None);
    }

    #[test]
    fn a_recorded_switch_beats_the_transcript() {
        let (_t, p) = transcript(&[answer("claude-opus-5")]);
        let mut ledger = Map::new();
        ledger.insert(
            LEDGER_KEY.into(),
            ledger_value("claude-sonnet-5", "SessionStart", "t"),
        );
        let host = Host::default();
        let path = p.to_str();
        let learn = |ledger: &Map<String, Value>, path| learn(ledger, path, &host, None, &Fs);
        let model = |k: MainKnowledge| k.known().map(|m| m.model.clone()).unwrap_or_default();
        assert_eq!(model(learn(&ledger, path)), "claude-opus-5");
        ledger.insert(
            LEDGER_KEY.into(),
            ledger_value("claude-haiku-5", "PostModelSwitch", "t"),
        );
        assert_eq!(model(learn(&ledger, path)), "claude-haiku-5");
        ledger.insert(
            LEDGER_KEY.into(),
            ledger_value("claude-sonnet-5", "SessionStart", "t"),
        );
        assert_eq!(model(learn(&ledger, None)), "claude-sonnet-5");
        // Nothing recorded and no command line: the configuration cannot rule out `--model`.
        assert!(matches!(
            learn(&Map::new(), None),
            MainKnowledge::Unknown(_)
        ));
    }

    #[test]
    fn a_recorded_alias_runs_where_the_environment_points_it() {
        let mut host = Host::default();
        host.env.insert(
            "ANTHROPIC_DEFAULT_OPUS_MODEL".into(),
            "claude-fable-5".into(),
        );
        let mut ledger = Map::new();
        for source in ["PostModelSwitch", "SessionStart"] {
            ledger.insert(LEDGER_KEY.into(), ledger_value("opus", source, "t"));
            let k = learn(&ledger, None, &host, None, &Fs);
            let m = k.known().unwrap();
            assert_eq!(m.model, "claude-fable-5", "{source}");
            assert!(
                m.source.starts_with(source) && m.source.contains("ANTHROPIC_DEFAULT_OPUS_MODEL")
            );
        }
        // The transcript names the model the API was asked for: kept as written.
        let (_t, p) = transcript(&[answer("claude-opus-5")]);
        let k = learn(&Map::new(), p.to_str(), &host, None, &Fs);
        assert_eq!(k.known().unwrap().model, "claude-opus-5");
    }

    #[test]
    fn the_configuration_is_consulted_last() {
        let t = tempfile::tempdir().unwrap();
        let mut host = Host::default();
        host.env
            .insert("HOME".into(), t.path().display().to_string());
        host.launch_args = Some(Vec::new());
        std::fs::create_dir_all(t.path().join(".claude")).unwrap();
        std::fs::write(
            t.path().join(".claude/settings.json"),
            r#"{"model":"sonnet"}"#,
        )
        .unwrap();
        let k = learn(&Map::new(), None, &host, None, &Fs);
        assert_eq!(k.known().unwrap().model, "sonnet");
        std::fs::remove_file(t.path().join(".claude/settings.json")).unwrap();
        let k = learn(&Map::new(), None, &host, None, &Fs);
        assert_eq!(k.escalation_floor(), Some(Family::Sonnet.rank()));
        assert!(
            k.label().contains("\"opus\" or \"sonnet\""),
            "{}",
            k.label()
        );
        let custom = MainKnowledge::Known(MainModel::new("custom-x", "t"));
        assert_eq!(custom.escalation_floor(), Some(0));
        assert_eq!(MainKnowledge::Unknown("x".into()).escalation_floor(), None);
    }
}
