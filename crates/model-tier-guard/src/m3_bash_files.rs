//! M3: a Bash command that writes an agent definition, a skill, a slash command or a settings
//! file — the same files Write/Edit are judged on ([`crate::m3_files`]), reached by the shell:
//! redirections (`>`, `>>`, heredocs), `tee`, `sed -i`/`perl -i`, `cp`/`mv`/`install`/`ln`/
//! `rsync` destinations, `dd of=`, and interpreter one-liners that name such a file.
//!
//! What the file would hold is read where it can be: a copied or linked source file is judged as
//! the destination's kind; otherwise the command's own text (echoed text, heredoc bodies, `sed`
//! replacements, scripts) is searched for model names. A copy whose source cannot be read is a
//! model that cannot be known: the tier (fail closed). The command view comes from
//! `shell-syntax` (substitutions, `bash -c`, `eval` and wrappers included).

use crate::m1_tiers::Family;
use crate::m3_files::{kind_of, requested_models as file_models, FileKind};
use crate::m3_launch::Requested;
use shell_syntax::view::{Arg, Invocation};
use shell_syntax::RedirOp;
use std::path::{Path, PathBuf};

const MAX_SOURCE_BYTES: u64 = 1024 * 1024;

/// Where the command runs and whose home `~` is.
#[derive(Debug, Clone, Copy)]
pub struct Places<'a> {
    pub cwd: Option<&'a Path>,
    pub home: Option<&'a Path>,
    /// `$CLAUDE_CONFIG_DIR` when it moves the user folder.
    pub config_dir: Option<&'a Path>,
}

/// Models the files a Bash command writes would set.
pub fn requested_models(command: &str, places: Places) -> Vec<Requested> {
    let parsed = shell_syntax::parse(command);
    let view = shell_syntax::commands(&parsed);
    let mut out = Vec::new();
    for inv in &view.invocations {
        for (target, sources) in writes(inv, places) {
            let Some(kind) = kind_of(&target.display().to_string(), places.config_dir) else {
                continue;
            };
            judge_write(command, &target, kind, &sources, &mut out);
        }
    }
    out
}

/// What one write is judged on: copied sources, else the command's text.
fn judge_write(
    command: &str,
    target: &Path,
    kind: FileKind,
    sources: &[Option<PathBuf>],
    out: &mut Vec<Requested>,
) {
    let at = target.display();
    if !sources.is_empty() {
        for s in sources {
            let text = s.as_deref().and_then(read_source);
            match (s, text) {
                (Some(p), Some(t)) => {
                    for mut r in file_models(kind, &t) {
                        r.source = format!("{} copied into {at}", p.display());
                        out.push(r);
                    }
                }
                (s, _) => out.push(Requested {
                    model: None,
                    source: format!(
                        "{at} would be replaced by {}, which cannot be read",
                        s.as_ref().map_or("a file named at run time".into(), |p| p
                            .display()
                            .to_string())
                    ),
                }),
            }
        }
        return;
    }
    let words = model_words(command);
    if words.is_empty() && command.contains(['$', '`']) {
        // Text decided at run time may name any model (K9: a run-time word is unknown).
        out.push(Requested {
            model: None,
            source: format!("a Bash command that writes {at} with text decided at run time"),
        });
    }
    for word in words {
        out.push(Requested {
            model: Some(word),
            source: format!("a Bash command that writes {at}"),
        });
    }
}

/// Names of models in a text: tokens of a known family (`fable`, `claude-opus-5`, ...).
fn model_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for tok in text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))) {
        if tok.is_empty() || !Family::of(tok).is_known() {
            continue;
        }
        if !out.iter().any(|o| o == tok) {
            out.push(tok.to_string());
        }
    }
    out
}

/// A regular file's text, bounded.
fn read_source(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    crate::host::read_prefix(path, MAX_SOURCE_BYTES)
}

/// A word's value, with `~` and `$HOME` resolved (`None`: decided at run time).
fn value_of(arg: &Arg, places: Places) -> Option<String> {
    if let Some(v) = arg.value.as_deref() {
        return Some(v.to_string());
    }
    let home = places.home?.display().to_string();
    arg.word.resolve(&|k| (k == "HOME").then(|| home.clone()))
}

/// A static path word as an absolute path (`~` and the cwd applied).
fn absolute(word: &str, places: Places) -> Option<PathBuf> {
    let p = if let Some(rest) = word.strip_prefix("~/") {
        places.home?.join(rest)
    } else if let Some(rest) = word
        .strip_prefix("$HOME/")
        .or_else(|| word.strip_prefix("${HOME}/"))
    {
        places.home?.join(rest)
    } else if word.starts_with('/') {
        PathBuf::from(word)
    } else {
        places.cwd?.join(word)
    };
    Some(p)
}

/// The files an invocation writes, each with the files copied into it (empty: its content is in
/// the command's text; `None`: a source named at run time).
fn writes(inv: &Invocation, places: Places) -> Vec<(PathBuf, Vec<Option<PathBuf>>)> {
    let mut out: Vec<(PathBuf, Vec<Option<PathBuf>>)> = Vec::new();
    for r in &inv.redirects {
        let output = matches!(
            r.op,
            RedirOp::Out
                | RedirOp::Append
                | RedirOp::Clobber
                | RedirOp::ReadWrite
                | RedirOp::OutErr
                | RedirOp::AppendOutErr
        );
        if let (true, Some(t)) = (output, value_of(&r.target, places)) {
            if let Some(p) = absolute(&t, places) {
                out.push((p, Vec::new()));
            }
        }
    }
    let name = inv.name().unwrap_or_default().to_string();
    let args: Vec<Option<String>> = inv.args.iter().map(|a| value_of(a, places)).collect();
    let operands: Vec<&str> = args
        .iter()
        .flatten()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let path_of = |w: &str| absolute(w, places);
    match name.as_str() {
        "tee" => out.extend(
            operands
                .iter()
                .filter_map(|w| path_of(w))
                .map(|p| (p, vec![])),
        ),
        "sed" | "perl" if args.iter().flatten().any(|a| a.starts_with("-i")) => out.extend(
            operands
                .iter()
                .filter_map(|w| path_of(w))
                .map(|p| (p, vec![])),
        ),
        "cp" | "mv" | "install" | "ln" | "rsync" if operands.len() >= 2 => {
            let (dest, srcs) = operands.split_last().expect("two operands");
            let sources: Vec<Option<PathBuf>> = srcs.iter().map(|s| path_of(s)).collect();
            let dynamic = args.iter().any(Option::is_none);
            let mut sources = sources;
            if dynamic {
                sources.push(None);
            }
            if let Some(d) = path_of(dest) {
                // A folder destination receives each source under its own name.
                if d.is_dir() || dest.ends_with('/') {
                    for s in srcs {
                        if let Some(base) = Path::new(s).file_name() {
                            out.push((d.join(base), sources.clone()));
                        }
                    }
                } else {
                    out.push((d, sources));
                }
            }
        }
        "dd" => out.extend(
            args.iter()
                .flatten()
                .filter_map(|a| a.strip_prefix("of="))
                .filter_map(path_of)
                .map(|p| (p, vec![])),
        ),
        p if shell_syntax::view::is_interpreter(p) => {
            // A script that names a model file may write it; its text is what it writes.
            for a in args.iter().flatten() {
                for piece in a.split(['\'', '"', '(', ')', ',', ' ']) {
                    if piece.contains(".claude/") || piece.contains("settings") {
                        if let Some(p) = path_of(piece) {
                            out.push((p, vec![]));
                        }
                    }
                }
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models(cmd: &str, cwd: &Path, home: &Path) -> Vec<Option<String>> {
        let places = Places {
            cwd: Some(cwd),
            home: Some(home),
            config_dir: None,
        };
        crate::test_files::models_of(requested_models(cmd, places))
    }

    #[test]
    fn shell_writes_of_model_files() {
        let t = tempfile::tempdir().unwrap();
        let (p, h) = (t.path().join("p"), t.path().join("h"));
        std::fs::create_dir_all(p.join(".claude/agents")).unwrap();
        let fable = Some("fable".to_string());
        for cmd in [
            "echo 'model: fable' >> .claude/agents/rev.md",
            "cat > .claude/agents/deep.md <<'EOF'\n---\nname: deep\nmodel: fable\n---\nEOF",
            "printf '{\"model\":\"fable\"}' | tee .claude/settings.local.json",
            "sed -i 's/haiku/fable/' .claude/agents/rev.md",
            "python3 -c \"open('.claude/settings.json','w').write('{\\\"model\\\": \\\"fable\\\"}')\"",
            "bash -c 'echo model: fable > ~/.claude/agents/x.md'",
        ] {
            assert!(models(cmd, &p, &h).contains(&fable), "{cmd}");
        }
        // A copy is judged on its source; one that cannot be read is unknown.
        std::fs::write(
            t.path().join("src.md"),
            "---\nname: s\nmodel:\n  fable\n---\n",
        )
        .unwrap();
        let cp = format!("cp {} .claude/agents/", t.path().join("src.md").display());
        assert_eq!(models(&cp, &p, &h), std::slice::from_ref(&fable));
        assert_eq!(
            models("ln -sf /nonexistent/deep.md .claude/agents/deep.md", &p, &h),
            [None]
        );
        assert_eq!(
            models("echo \"$DEF\" > .claude/agents/deep.md", &p, &h),
            [None],
            "run-time text"
        );
        // Look-alikes.
        for cmd in [
            "echo 'model: fable' >> notes/models.md",
            "cat .claude/agents/rev.md",
            "grep -rn 'model: fable' .claude/agents",
            "jq .model .claude/settings.json",
        ] {
            assert!(models(cmd, &p, &h).is_empty(), "{cmd}");
        }
        assert_eq!(
            models("sed -i 's/sonnet/haiku/' .claude/agents/rev.md", &p, &h),
            [Some("sonnet".into()), Some("haiku".into())]
        );
    }
}
