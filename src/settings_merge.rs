//! Merging our hook registrations into a Claude Code settings file without touching anything else.
//!
//! Pure functions from settings text to settings text ([`crate::json_text`] splices): ours are
//! recognised by their command, an absolute path in our bin dir whose file name is one of our
//! binaries. Everything else — other tools' hooks, matcher groups, permissions, env, unknown keys,
//! the key order, the indentation, numbers of any size — keeps its bytes.

use crate::json_text::{self, Node, Style};
use crate::registry::{Registration, BINARIES};
use serde_json::{json, Map, Value};
use std::path::Path;

/// Why a settings file is refused (the file is left untouched).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    NotJson(String),
    NotObject,
    WrongType(&'static str, &'static str),
    /// A key twice in one object: JSON readers disagree on which value counts.
    DuplicateKey(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::NotJson(e) => write!(f, "not valid JSON ({e})"),
            Refusal::NotObject => write!(f, "the top level is not a JSON object"),
            Refusal::WrongType(key, want) => write!(f, "`{key}` is not {want}"),
            Refusal::DuplicateKey(key) => write!(f, "the key {key:?} appears twice in one object"),
        }
    }
}

/// Parses settings text, refusing anything we could not merge into safely. Empty text is `{}`.
/// The most of a settings file that is read: a larger one is refused, untouched.
pub const MAX_SETTINGS_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a settings file's text without waiting on anything in its place: a FIFO or a device
/// (`/dev/zero`) is refused at once, a file over [`MAX_SETTINGS_BYTES`] is refused (issue 47:
/// `report`, `install` and `uninstall` hung on a FIFO and read `/dev/zero` without end).
/// `Ok(None)` when there is no file.
pub fn read_file(path: &Path) -> std::io::Result<Option<String>> {
    use std::io::Read;
    let file = match primitives::no_wait::open_regular(path, std::fs::OpenOptions::new().read(true))
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.take(MAX_SETTINGS_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SETTINGS_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {MAX_SETTINGS_BYTES} bytes"
        )));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| std::io::Error::other("not UTF-8 text"))
}

pub fn parse(text: &str) -> Result<Map<String, Value>, Refusal> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    let v: Value = serde_json::from_str(text).map_err(|e| Refusal::NotJson(e.to_string()))?;
    let Value::Object(map) = v else {
        return Err(Refusal::NotObject);
    };
    let root = json_text::scan(text).map_err(Refusal::NotJson)?;
    if let Some(key) = json_text::duplicate_key(&root) {
        return Err(Refusal::DuplicateKey(key.to_string()));
    }
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

/// Settings text and its scanned layout, for the edits below.
fn scanned(text: &str) -> (Node, Style) {
    // The text was validated by `parse`; an unscannable text (never expected) is treated as `{}`.
    let root = json_text::scan(text).unwrap_or(Node::Object {
        start: 0,
        end: 0,
        members: Vec::new(),
    });
    let style = Style::of(text, &root);
    (root, style)
}

/// The text to start from: the file's, or `{}` for an absent or blank file.
pub fn base_text(before: Option<&str>) -> String {
    match before {
        Some(t) if !t.trim().is_empty() => t.to_string(),
        _ => "{}\n".to_string(),
    }
}

/// Removes our handlers everywhere; a matcher group, event list or `hooks` object that only held
/// ours goes with them. Everything else keeps its bytes.
pub fn remove_ours(text: &str, bin_dir: &Path) -> String {
    let mut text = text.to_string();
    // One removal per pass, then scan again: offsets change with every edit.
    loop {
        let (root, _) = scanned(&text);
        let Some(next) = first_removal(&text, &root, bin_dir) else {
            return text;
        };
        text = next;
    }
}

fn first_removal(text: &str, root: &Node, bin_dir: &Path) -> Option<String> {
    let hooks = root.get("hooks")?;
    let ours =
        |n: &Node| serde_json::from_str::<Value>(n.text(text)).is_ok_and(|h| is_ours(&h, bin_dir));
    for event in hooks.members() {
        for (gi, group) in event.value.items().iter().enumerate() {
            let Some(handlers) = group.get("hooks") else {
                continue;
            };
            let Some(hi) = handlers.items().iter().position(ours) else {
                continue;
            };
            // The outermost container our removal empties goes instead of the handler.
            if handlers.items().len() > 1 {
                return Some(json_text::remove(text, handlers, hi));
            }
            if event.value.items().len() > 1 {
                return Some(json_text::remove(text, &event.value, gi));
            }
            let ei = hooks.members().iter().position(|m| m.key == event.key)?;
            if hooks.members().len() > 1 {
                return Some(json_text::remove(text, hooks, ei));
            }
            let ri = root.members().iter().position(|m| m.key == "hooks")?;
            return Some(json_text::remove(text, root, ri));
        }
    }
    None
}

/// Installs our registrations: ours are replaced where they stand (same event and matcher group),
/// new ones are appended as their own groups. Running it twice gives the same text.
pub fn install(text: &str, regs: &[Registration], bin_dir: &Path) -> String {
    let mut text = text.to_string();
    for reg in regs {
        text = install_one(&text, reg, bin_dir);
    }
    text
}

fn install_one(text: &str, reg: &Registration, bin_dir: &Path) -> String {
    let (root, style) = scanned(text);
    let Some(hooks) = root.get("hooks") else {
        let text = json_text::append(text, &root, Some("hooks"), &json!({}), &style);
        return install_one(&text, reg, bin_dir);
    };
    let Some(groups) = hooks.get(reg.event) else {
        let text = json_text::append(text, hooks, Some(reg.event), &json!([]), &style);
        return install_one(&text, reg, bin_dir);
    };
    let wanted = handler(reg, bin_dir);
    for group in groups.items() {
        let matcher = serde_json::from_str::<Value>(group.text(text)).ok();
        let matcher = matcher.as_ref().and_then(|g| g.get("matcher"));
        if matcher.and_then(Value::as_str) != reg.matcher {
            continue;
        }
        let Some(handlers) = group.get("hooks") else {
            continue;
        };
        for h in handlers.items() {
            let current: Value = serde_json::from_str(h.text(text)).unwrap_or_default();
            let same_binary =
                is_ours(&current, bin_dir) && current.get("command") == wanted.get("command");
            if same_binary {
                // Replaced in place, and only when it differs: a second run changes nothing.
                return if current == wanted {
                    text.to_string()
                } else {
                    json_text::replace(text, h, &wanted, &style)
                };
            }
        }
    }
    let mut group = Map::new();
    if let Some(m) = reg.matcher {
        group.insert("matcher".into(), json!(m));
    }
    group.insert("hooks".into(), json!([wanted]));
    json_text::append(text, groups, None, &Value::Object(group), &style)
}

/// Sets `env.CLAUDE_CODE_SHELL_PREFIX` to `prefix` (`Some`) or removes ours (`None`). A prefix
/// the user set to something else is never touched; the returned note says so.
pub fn set_shell_prefix(
    text: &str,
    bin_dir: &Path,
    prefix: Option<&Path>,
) -> (String, Option<String>) {
    const KEY: &str = "CLAUDE_CODE_SHELL_PREFIX";
    let (root, style) = scanned(text);
    let env = root.get("env");
    let node = env.and_then(|e| e.get(KEY));
    let current = node
        .and_then(|n| serde_json::from_str::<Value>(n.text(text)).ok())
        .and_then(|v| v.as_str().map(str::to_string));
    let ours = |v: &str| is_ours(&json!({"command": v}), bin_dir);
    match (current.as_deref(), prefix, env, node) {
        (Some(v), _, _, _) if !ours(v) => (
            text.to_string(),
            Some(format!(
                "env.{KEY} is set to {v:?} by someone else; left as it is (containment not registered)"
            )),
        ),
        (_, Some(p), _, _) => {
            let wanted = json!(p.to_string_lossy());
            let edited = match (env, node) {
                (None, _) => json_text::append(text, &root, Some("env"), &json!({KEY: wanted}), &style),
                (Some(e), None) => json_text::append(text, e, Some(KEY), &wanted, &style),
                (Some(_), Some(_)) if current.as_deref() == wanted.as_str() => text.to_string(),
                (Some(_), Some(n)) => json_text::replace(text, n, &wanted, &style),
            };
            (edited, None)
        }
        (Some(_), None, Some(e), Some(_)) => {
            let ki = e.members().iter().position(|m| m.key == KEY);
            let edited = match ki {
                Some(_) if e.members().len() == 1 => {
                    let ri = root.members().iter().position(|m| m.key == "env");
                    ri.map_or(text.to_string(), |ri| json_text::remove(text, &root, ri))
                }
                Some(ki) => json_text::remove(text, e, ki),
                None => text.to_string(),
            };
            (edited, None)
        }
        _ => (text.to_string(), None),
    }
}

#[cfg(test)]
#[path = "settings_merge_tests.rs"]
mod tests;
