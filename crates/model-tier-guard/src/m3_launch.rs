//! M3: other ways to reach the tier — a Bash command that starts another agent on it.
//!
//! Every command bash would run is visited (`shell-syntax`: substitutions, `bash -c`, `eval`,
//! wrappers), and command-effects resolves the program bash runs (runners, functions, aliases,
//! `npx`/`bunx`/`npm exec @anthropic-ai/claude-code`, a literal `.../claude` path). For each
//! `claude` launch the models
//! it names are collected: `--model`, `--fallback-model`, `--agent` (the definition's model),
//! `--settings` (inline JSON or a file), `--agents` JSON, and the model variables in its
//! environment (prefix assignments, `env`, earlier `export`s). A value decided at run time is
//! unknown, which counts as the maintainer-only tier.

use crate::agents::{self, AgentDirs};
use crate::host::read_prefix;
use crate::model_aliases::{self, AliasEnv};
use command_effects::dirs::DirCx;
use command_effects::scripts::Reading;
use serde_json::Value;
use shell_syntax::view::{Arg, EnvSource, Invocation};
use std::path::{Path, PathBuf};

/// Environment variables that choose a model for a launched CLI or its subagents.
pub const MODEL_VARS: &[&str] = &[
    "ANTHROPIC_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_DEFAULT_FABLE_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "CLAUDE_CODE_SUBAGENT_MODEL",
];

const SETTINGS_FILE_MAX: u64 = 1024 * 1024;

/// A model a command asks for. `model: None` when it is decided at run time or unreadable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requested {
    pub model: Option<String>,
    pub source: String,
}

fn req(model: Option<&str>, source: impl Into<String>) -> Requested {
    Requested {
        model: model.map(str::to_string),
        source: source.into(),
    }
}

/// Models set by a settings object: `model`, and the model variables of its `env`. An empty
/// string sets nothing (`""` unsets a variable); any other value that is not a string is
/// unreadable.
pub fn settings_models(v: &Value, origin: &str) -> Vec<Requested> {
    let mut out = Vec::new();
    let mut push = |m: &Value, source: String| {
        if m.as_str().is_none_or(|s| !s.trim().is_empty()) {
            out.push(req(m.as_str(), source));
        }
    };
    for key in ["model", "fallbackModel"] {
        if let Some(m) = v.get(key) {
            push(m, format!("{origin} {key}"));
        }
    }
    if let Some(env) = v.get("env").and_then(Value::as_object) {
        for var in MODEL_VARS {
            if let Some(m) = env.get(*var) {
                push(m, format!("{origin} env {var}"));
            }
        }
    }
    out
}

/// Each request with the targets of its aliases in `aliases` (the name as written stays: a
/// variable never makes a request look lower than it says).
pub fn through_aliases(requests: Vec<Requested>, aliases: &AliasEnv) -> Vec<Requested> {
    let mut out = Vec::with_capacity(requests.len());
    for r in requests {
        let Some(name) = r.model.clone() else {
            out.push(r);
            continue;
        };
        for meaning in model_aliases::possible(&name, aliases) {
            let source = match meaning.note(&name) {
                Some(note) => format!("{}, {note}", r.source),
                None => r.source.clone(),
            };
            out.push(req(Some(&meaning.model), source));
        }
    }
    out
}

/// The alias variables a settings object's `env` sets (settings `env` overrides the shell's).
fn overlay_settings_env(v: &Value, aliases: &mut AliasEnv) {
    if let Some(env) = v.get("env").and_then(Value::as_object) {
        for (var, value) in env {
            aliases.set(var, value.as_str());
        }
    }
}

/// Models of an `--agents` JSON object (`{name: {model, ...}}`).
fn agents_json_models(text: &str) -> Vec<Requested> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => map
            .iter()
            .filter_map(|(name, def)| {
                let m = def.get("model")?;
                let model = m.as_str().filter(|m| !m.eq_ignore_ascii_case("inherit"));
                if m.as_str().is_some() && model.is_none() {
                    return None;
                }
                Some(req(model, format!("--agents definition {name:?}")))
            })
            .collect(),
        _ => vec![req(None, "--agents JSON that could not be read")],
    }
}

/// Whether a run (the program bash runs, from command-effects: wrappers, runners, functions,
/// aliases, `npx`/`npm exec`/`bunx` of `@anthropic-ai/claude-code`, `node .../cli.js`) launches
/// the Claude Code CLI.
fn launches_claude(run: &command_effects::Run<'_>, copies: &[String]) -> bool {
    matches!(run.name(), Some("claude" | "claude-code"))
        || run.name().is_some_and(|n| copies.iter().any(|c| c == n))
        || (matches!(run.program, command_effects::Resolved::Unknown)
            && run.args.iter().any(asks_for_a_model))
}

/// The names the command gives the CLI by linking or copying it (`ln -s "$(command -v claude)"
/// /tmp/c`, `cp "$(which claude)" ./cl`, `install ... claude ...`): a later `/tmp/c --model x`
/// is a launch. The source counts when its text names `claude`.
fn cli_copies(view: &shell_syntax::CommandView<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for inv in &view.invocations {
        if !matches!(inv.name(), Some("ln" | "cp" | "install" | "rsync" | "mv")) {
            continue;
        }
        let words: Vec<&Arg> = inv
            .args
            .iter()
            .filter(|a| a.value.as_deref().is_none_or(|v| !v.starts_with('-')))
            .collect();
        let [sources @ .., dest] = words.as_slice() else {
            continue;
        };
        // In a word, or in a substitution inside the command (`"$(command -v claude)"`).
        let names_cli = sources
            .iter()
            .any(|a| shell_syntax::printer::word(&a.word).contains("claude"))
            || view.invocations[..inv.index].iter().any(|look| {
                look.context.command_subst > 0
                    && look.origin == inv.origin
                    && look.span.start >= inv.span.start
                    && look.span.end <= inv.span.end
                    && look
                        .args
                        .iter()
                        .any(|a| a.value.as_deref().is_some_and(|v| v.contains("claude")))
            });
        if !names_cli {
            continue;
        }
        if let Some(d) = dest.value.as_deref() {
            let base = shell_syntax::view::normalise_program(d.trim_end_matches('/'));
            if !base.is_empty() {
                out.push(base.to_string());
            }
        }
    }
    out
}

/// A word bash may split into several (an unquoted expansion or substitution): on a launch,
/// any option may come out of it (`claude $(<args.txt)`).
fn splits(a: &Arg<'_>) -> bool {
    use shell_syntax::ast::WordPart;
    a.value.is_none()
        && a.word
            .parts
            .iter()
            .any(|p| matches!(p, WordPart::Param(_) | WordPart::CommandSubst(_)))
}

/// The literal start of a run-time word (`--settings=` of `--settings=<(...)`).
fn literal_prefix(a: &Arg<'_>) -> String {
    use shell_syntax::ast::WordPart;
    let mut out = String::new();
    for p in a.word.parts {
        match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) => out.push_str(s),
            WordPart::DoubleQuoted(inner) => match inner.first() {
                Some(WordPart::Literal(s)) if inner.len() > 1 => {
                    out.push_str(s);
                    break;
                }
                _ => break,
            },
            _ => break,
        }
    }
    out
}

/// A program decided at run time (`"$(command -v claude)" --model x`) given `--model`: judged
/// as a launch, since the tier it asks for is what M3 protects, whatever the program is.
fn asks_for_a_model(a: &Arg<'_>) -> bool {
    a.value
        .as_deref()
        .is_some_and(|v| v == "--model" || v.starts_with("--model="))
}

/// Every model the command's nested launches ask for, aliases resolved through `aliases` (the
/// session's alias variables, which a launch inherits) as overlaid by each launch's own
/// environment and `--settings` `env`.
pub fn requested_models(
    command: &str,
    cwd: Option<&Path>,
    dirs: &AgentDirs,
    aliases: &AliasEnv,
) -> Vec<Requested> {
    requested_models_at(command, cwd, dirs, aliases, 0)
}

/// Most levels of shell text git is handed followed inside one another.
const MAX_HANDED_DEPTH: usize = 3;

fn requested_models_at(
    command: &str,
    cwd: Option<&Path>,
    dirs: &AgentDirs,
    aliases: &AliasEnv,
    depth: usize,
) -> Vec<Requested> {
    let parsed = shell_syntax::parse(command);
    let view = shell_syntax::commands(&parsed);
    let arena = bumpalo::Bump::new();
    let mut out = Vec::new();
    let copies = cli_copies(&view);
    for run in command_effects::program::runs(&view, &arena) {
        let Some(inv) = view.invocations.get(run.invocation) else {
            continue;
        };
        // Shell text git runs (`rebase -x`, an editor, `core.fsmonitor`: the shared layer's
        // `git_runs`; a `!` alias given with the call; a pager) launches what a command line
        // would.
        if run.name() == Some("git") && depth < MAX_HANDED_DEPTH {
            let call = command_effects::git::parse_git_args(&run.args, &|n| run.env_value(inv, n));
            let mut texts: Vec<String> = command_effects::git_runs::handed(&call)
                .into_iter()
                .filter_map(|h| h.text)
                .collect();
            let expanded = command_effects::git_alias::expand(&arena, &call, &Default::default());
            texts.extend(expanded.shell);
            texts.extend(pager_texts(&call, inv, &run));
            for text in texts {
                out.extend(requested_models_at(&text, cwd, dirs, aliases, depth + 1));
            }
        }
        if !launches_claude(&run, &copies) {
            continue;
        }
        launch_models(inv, &run, cwd, dirs, aliases, &mut out);
    }
    let unparsed = parsed
        .error
        .as_ref()
        .and_then(|e| command.get(e.unparsed_from..))
        .unwrap_or("");
    if unparsed.contains("claude") || (view.error.is_some() && command.contains("claude")) {
        out.push(req(
            None,
            "a claude launch in text that could not be parsed",
        ));
    }
    out
}

/// The pagers a git call names (`-c core.pager=`, `-c pager.<cmd>=`, `GIT_PAGER`, `PAGER`):
/// git starts one only on a terminal, but text that launches the CLI there is refused anyway
/// (M3 protects the tier wherever a launch could come from).
fn pager_texts(
    call: &command_effects::git::GitCall<'_>,
    inv: &Invocation,
    run: &command_effects::Run<'_>,
) -> Vec<String> {
    let mut out: Vec<String> = call
        .config
        .iter()
        .filter(|c| c.key == "core.pager" || c.key.starts_with("pager."))
        .filter_map(|c| c.value.clone())
        .collect();
    for var in ["GIT_PAGER", "PAGER"] {
        if let Some(Some(v)) = run.env_value(inv, var) {
            out.push(v);
        }
    }
    out
}

/// Where a command runs, for the scripts it runs by path.
#[derive(Debug, Clone, Copy)]
pub struct ScriptPlaces<'a> {
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
    /// `CDPATH` of the hook's environment (bash searches it for a relative `cd`).
    pub cdpath: Option<&'a str>,
    /// What the callers of a script wrote before running it (empty for the agent's command).
    pub written: &'a [(PathBuf, Option<String>)],
}

impl<'a> ScriptPlaces<'a> {
    fn dirs(&self) -> DirCx<'a> {
        DirCx {
            home: self.home,
            cdpath: self.cdpath,
            is_dir: &Path::is_dir,
        }
    }

    fn reading<'x>(&self, dirs: &'x DirCx<'x>) -> Reading<'x>
    where
        'a: 'x,
    {
        Reading {
            base: self.cwd,
            dirs,
            read: &read_script,
            written: self.written,
        }
    }
}

/// A script's text, whole: `None` past [`MAX_SCRIPT_BYTES`] (never read in part: the rest would
/// be unseen; [`past_the_read_bound`] says so).
fn read_script(path: &Path) -> Option<String> {
    read_prefix(path, MAX_SCRIPT_BYTES + 1).filter(|t| t.len() as u64 <= MAX_SCRIPT_BYTES)
}

/// Whether the script at `path` is larger than [`MAX_SCRIPT_BYTES`] (what it launches is
/// unknown: M3.past-bound).
fn past_the_read_bound(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > MAX_SCRIPT_BYTES)
}

/// `command` with the files it `source`s in place (command-effects: what the command wrote
/// into them first, else their text on disk), so their exports reach the launches after them
/// (`source ./env.sh && claude -p x` with `export ANTHROPIC_MODEL=...` in env.sh).
pub fn with_sourced(command: &str, at: ScriptPlaces) -> String {
    let cx = at.dirs();
    let reading = at.reading(&cx);
    command_effects::scripts::sourced_in_place(command, &reading)
        .unwrap_or_else(|| command.to_string())
}

/// How deep scripts run by path are followed, and the largest script read (one `Limits` for
/// every guard: command-effects' `scripts`).
use command_effects::scripts::{MAX_SCRIPT_BYTES, MAX_SCRIPT_DEPTH};

/// The launches inside the scripts a command runs by path (`bash s.sh`, `./run.sh`, `source
/// x.sh`), read through command-effects: a script the command wrote first holds what it
/// wrote (`printf 'claude --model x' > s.sh; bash s.sh`), in the directory its `cd`s reach.
/// Scripts past [`MAX_SCRIPT_DEPTH`] that exist are returned by path, not read: what they launch
/// is unknown (M3.past-bound).
pub fn requested_in_scripts(
    command: &str,
    at: ScriptPlaces,
    dirs: &AgentDirs,
    aliases: &AliasEnv,
) -> (Vec<Requested>, Vec<String>) {
    let mut out = Vec::new();
    let mut past_bound = Vec::new();
    scripts_at_depth(command, at, dirs, aliases, 1, &mut out, &mut past_bound);
    (out, past_bound)
}

fn scripts_at_depth(
    command: &str,
    at: ScriptPlaces,
    dirs: &AgentDirs,
    aliases: &AliasEnv,
    depth: usize,
    out: &mut Vec<Requested>,
    past_bound: &mut Vec<String>,
) {
    let cx = at.dirs();
    for s in command_effects::scripts::scripts_run(command, &at.reading(&cx)) {
        let Some((full, dir)) = &s.at else {
            continue;
        };
        let Some(text) = &s.text else {
            if past_the_read_bound(full) {
                past_bound.push(full.display().to_string());
            }
            continue;
        };
        if depth > MAX_SCRIPT_DEPTH {
            past_bound.push(full.display().to_string());
            continue;
        }
        let inner = ScriptPlaces {
            cwd: dir,
            written: s.written(),
            ..at
        };
        let text = with_sourced(text, inner);
        for mut r in requested_models(&text, Some(dir), dirs, aliases) {
            r.source = format!("{} in script {}", r.source, full.display());
            out.push(r);
        }
        scripts_at_depth(&text, inner, dirs, aliases, depth + 1, out, past_bound);
    }
}

fn launch_models(
    inv: &Invocation,
    run: &command_effects::Run<'_>,
    cwd: Option<&Path>,
    dirs: &AgentDirs,
    session_aliases: &AliasEnv,
    all: &mut Vec<Requested>,
) {
    let mut aliases = session_aliases.clone();
    let mut out = Vec::new();
    let args: &[Arg] = &run.args;
    for var in MODEL_VARS {
        // Set by a runner word (`sudo ANTHROPIC_MODEL=x claude`) or the call of a function
        // whose body launches (`ANTHROPIC_MODEL=x f`).
        if let Some((_, v)) = run.env.iter().rev().find(|(k, _)| k == var) {
            let value = v.as_deref();
            aliases.set(var, value);
            if !value.is_some_and(|v| v.trim().is_empty()) {
                out.push(req(value, format!("{var} in the launch environment")));
            }
            continue;
        }
        if let Some(e) = inv.env_value(var) {
            let value = e.value.as_ref().and_then(|a| a.value.as_deref());
            if e.source == EnvSource::Unset {
                aliases.set(var, None);
                continue;
            }
            // A value decided at run time is refused below as it is; the overlay keeps literals.
            aliases.set(var, value);
            // An empty value unsets the variable for the CLI: no model asked.
            if value.is_some_and(|v| v.trim().is_empty()) {
                continue;
            }
            out.push(req(value, format!("{var} in the launch environment")));
        }
    }
    // Arguments bash or a wrapper adds at run time (`xargs -a args.txt claude`,
    // `claude $(<args.txt)`): any option may come out of them.
    if run.args_incomplete || inv.args_incomplete {
        out.push(req(None, "launch arguments added at run time"));
    }
    let mut i = 0;
    while i < args.len() {
        let Some(word) = args[i].value.as_deref() else {
            if splits(&args[i]) {
                out.push(req(None, "a launch argument bash splits at run time"));
            } else {
                // `--settings=<(...)`, `--model="$M"`: a flag with a run-time value.
                let prefix = literal_prefix(&args[i]);
                if let Some((flag, _)) = prefix.split_once('=') {
                    if matches!(
                        flag,
                        "--model" | "--fallback-model" | "--settings" | "--agents" | "--agent"
                    ) {
                        out.push(req(None, format!("{flag} decided at run time")));
                    }
                }
            }
            i += 1;
            continue;
        };
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ => (word, None),
        };
        let takes_value = matches!(
            flag,
            "--model" | "--fallback-model" | "--settings" | "--agents" | "--agent"
        );
        if !takes_value {
            i += 1;
            continue;
        }
        let value: Option<&str> = match inline {
            Some(v) => Some(v),
            None => {
                i += 1;
                args.get(i).and_then(|a| a.value.as_deref())
            }
        };
        match flag {
            "--model" | "--fallback-model" => out.push(req(value, flag)),
            "--agents" => match value {
                Some(v) => out.extend(agents_json_models(v)),
                None => out.push(req(None, "--agents decided at run time")),
            },
            "--agent" => {
                if let Some(def) = value.and_then(|v| agents::find(v, dirs)) {
                    if let Some(m) = def
                        .model
                        .as_deref()
                        .filter(|m| !m.eq_ignore_ascii_case("inherit"))
                    {
                        out.push(req(
                            Some(m),
                            format!("--agent {} ({})", def.name, def.path.display()),
                        ));
                    }
                } else if value.is_none() {
                    out.push(req(None, "--agent decided at run time"));
                }
            }
            _ => {
                let (models, json) = settings_arg(value, cwd);
                out.extend(models);
                if let Some(json) = json {
                    overlay_settings_env(&json, &mut aliases);
                }
            }
        }
        i += 1;
    }
    all.extend(through_aliases(out, &aliases));
}

/// `--settings` takes inline JSON or a file path: the models it sets, and the object.
fn settings_arg(value: Option<&str>, cwd: Option<&Path>) -> (Vec<Requested>, Option<Value>) {
    let Some(v) = value else {
        return (vec![req(None, "--settings decided at run time")], None);
    };
    let text = if v.trim_start().starts_with('{') {
        Some(v.to_string())
    } else {
        let p = Path::new(v);
        let p = match cwd {
            Some(c) if p.is_relative() => c.join(p),
            _ => p.to_path_buf(),
        };
        read_prefix(&p, SETTINGS_FILE_MAX)
    };
    match text.and_then(|t| serde_json::from_str::<Value>(&t).ok()) {
        Some(json) => (settings_models(&json, "--settings"), Some(json)),
        None => (
            vec![req(
                None,
                format!("--settings {v:?} that could not be read"),
            )],
            None,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_files::models_of;

    fn models(cmd: &str) -> Vec<Option<String>> {
        models_with(cmd, &AliasEnv::default())
    }

    fn models_with(cmd: &str, aliases: &AliasEnv) -> Vec<Option<String>> {
        models_of(requested_models(cmd, None, &AgentDirs::default(), aliases))
    }

    #[test]
    fn flags_env_and_json() {
        let fable = || Some("fable".to_string());
        for (cmd, want) in [
            ("claude -p hi --model fable", vec![fable()]),
            ("claude --model=opus -p x", vec![Some("opus".into())]),
            (
                "ANTHROPIC_MODEL=claude-fable-5 claude -p x",
                vec![Some("claude-fable-5".into())],
            ),
            ("export ANTHROPIC_MODEL=fable; claude -p x", vec![fable()]),
            (
                "env CLAUDE_CODE_SUBAGENT_MODEL=fable claude -p x",
                vec![fable()],
            ),
            (
                r#"claude --settings '{"model":"fable","env":{"ANTHROPIC_DEFAULT_OPUS_MODEL":"claude-fable-5"}}' -p x"#,
                vec![fable(), Some("claude-fable-5".into())],
            ),
            (
                r#"claude --agents '{"r":{"description":"d","prompt":"p","model":"fable"},"s":{"model":"inherit"}}' -p x"#,
                vec![fable()],
            ),
            ("claude --model \"$M\" -p x", vec![None]),
            ("claude --agents '{bad' -p x", vec![None]),
            ("claude --settings /nonexistent/s.json -p x", vec![None]),
        ] {
            assert_eq!(models(cmd), want, "{cmd}");
        }
    }

    #[test]
    fn nested_and_wrapped_launches() {
        for cmd in [
            "bash -c 'claude -p x --model fable'",
            "out=$(timeout 60 claude --model fable -p x)",
            "npx @anthropic-ai/claude-code@latest --model fable",
            "/usr/local/bin/claude --fallback-model fable -p x",
        ] {
            assert_eq!(models(cmd), [Some("fable".to_string())], "{cmd}");
        }
    }

    #[test]
    fn a_launched_alias_runs_where_its_environment_points_it() {
        let session = AliasEnv::from_lookup(|k| {
            (k == "ANTHROPIC_DEFAULT_OPUS_MODEL").then(|| "claude-fable-5".to_string())
        });
        let models = models_with;
        let fable = Some("claude-fable-5".to_string());
        let opus = Some("opus".to_string());
        // The session's variable reaches the launch.
        let got = requested_models(
            "claude --model opus -p x",
            None,
            &AgentDirs::default(),
            &session,
        );
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].model, fable);
        assert!(
            got[1].source.contains("ANTHROPIC_DEFAULT_OPUS_MODEL"),
            "{got:?}"
        );
        assert_eq!(
            models("claude --fallback-model opus -p x", &session),
            [opus.clone(), fable.clone()]
        );
        assert_eq!(
            models(r#"claude --agents '{"r":{"model":"opus"}}' -p x"#, &session),
            [opus.clone(), fable.clone()]
        );
        // Unset for the launch: `opus` is opus again.
        assert_eq!(
            models(
                "env -u ANTHROPIC_DEFAULT_OPUS_MODEL claude --model opus -p x",
                &session
            ),
            vec![opus.clone()]
        );
        // Set by the launch itself (prefix, export, --settings env): the variable's value is a
        // request of its own, and the alias follows it.
        let none = AliasEnv::default();
        for (cmd, aliases, alias, target) in [
            (
                "ANTHROPIC_DEFAULT_OPUS_MODEL=claude-sonnet-5 claude --model opus",
                &session,
                "opus",
                "claude-sonnet-5",
            ),
            (
                "export ANTHROPIC_DEFAULT_SONNET_MODEL=claude-opus-5; claude --model sonnet",
                &none,
                "sonnet",
                "claude-opus-5",
            ),
            (
                r#"claude --settings '{"env":{"ANTHROPIC_DEFAULT_HAIKU_MODEL":"claude-opus-5"}}' --model haiku"#,
                &none,
                "haiku",
                "claude-opus-5",
            ),
        ] {
            let (alias, target) = (Some(alias.to_string()), Some(target.to_string()));
            assert_eq!(
                models(cmd, aliases),
                [target.clone(), alias, target],
                "{cmd}"
            );
        }
        // `--settings` env overrides the launch's shell variable.
        assert_eq!(
            models(
                r#"ANTHROPIC_DEFAULT_OPUS_MODEL=claude-opus-5 claude --settings '{"env":{"ANTHROPIC_DEFAULT_OPUS_MODEL":""}}' --model opus"#,
                &session
            ),
            [Some("claude-opus-5".into()), opus]
        );
    }

    #[test]
    fn scripts_run_and_files_sourced_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let proj = dir.path().canonicalize().unwrap();
        let at = ScriptPlaces {
            cwd: &proj,
            home: None,
            cdpath: None,
            written: &[],
        };
        let none = AgentDirs::default();
        let env = AliasEnv::default();
        let in_scripts = |cmd: &str| models_of(requested_in_scripts(cmd, at, &none, &env).0);
        let fable = || Some("fable".to_string());
        let cmd = "printf 'claude --model fable -p hi\\n' > s.sh; bash s.sh";
        assert_eq!(in_scripts(cmd), vec![fable()]);
        // A script run by a script the command wrote: both texts are the command's.
        let cmd = "echo 'claude --model fable' > a.sh; echo 'bash a.sh' > b.sh; bash b.sh";
        assert_eq!(in_scripts(cmd), vec![fable()]);
        let cmd = "cat > g.sh <<'EOF'\nclaude --model fable -p hi\nEOF\nsh g.sh";
        assert_eq!(in_scripts(cmd), vec![fable()]);
        assert!(in_scripts("printf 'echo hi\\n' > s.sh; bash s.sh").is_empty());
        // On disk, two levels deep.
        std::fs::write(proj.join("a.sh"), "bash ./b.sh\n").unwrap();
        std::fs::write(proj.join("b.sh"), "claude --model fable -p x\n").unwrap();
        assert_eq!(in_scripts("./a.sh"), vec![fable()]);
        // A sourced file's export reaches the launch after it.
        std::fs::write(proj.join("env.sh"), "export ANTHROPIC_MODEL=fable\n").unwrap();
        let text = with_sourced("source ./env.sh && claude -p x", at);
        let got = models_of(requested_models(&text, Some(&proj), &none, &env));
        assert_eq!(got, vec![fable()]);
        // A script larger than the read bound is past it, never read in part (issue 44: a
        // 256 KiB limit here read the start of a larger one and dropped the launch at its end).
        let mut big = "# padding\n".repeat((MAX_SCRIPT_BYTES / 10) as usize + 1);
        big.push_str("claude --model fable -p x\n");
        std::fs::write(proj.join("big.sh"), &big).unwrap();
        let (found, past) = requested_in_scripts("bash big.sh", at, &none, &env);
        assert!(found.is_empty());
        assert_eq!(past, [proj.join("big.sh").display().to_string()]);
        // One just under the bound is read whole.
        let small = &big[big.len() - MAX_SCRIPT_BYTES as usize..];
        std::fs::write(proj.join("small.sh"), small).unwrap();
        let (found, past) = requested_in_scripts("bash small.sh", at, &none, &env);
        assert_eq!((models_of(found), past.len()), (vec![fable()], 0));
    }

    #[test]
    fn mentions_and_plain_launches_ask_for_nothing() {
        assert!(models("echo claude --model fable").is_empty());
        assert!(models("claude -p 'summarise'").is_empty());
        assert!(models("grep -r 'claude --model' docs").is_empty());
        assert!(models("env -u ANTHROPIC_MODEL claude -p x").is_empty());
    }

    #[test]
    fn settings_file_and_agent_definitions() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("s.json"), r#"{"model":"haiku"}"#).unwrap();
        let dirs = AgentDirs::new(&[t.path().to_path_buf()], &[]);
        std::fs::create_dir_all(t.path().join(".claude/agents")).unwrap();
        std::fs::write(
            t.path().join(".claude/agents/deep.md"),
            "---\nname: deep\nmodel: fable\n---\n",
        )
        .unwrap();
        let got = models_of(requested_models(
            "claude --settings s.json --agent deep -p x",
            Some(t.path()),
            &dirs,
            &AliasEnv::default(),
        ));
        assert_eq!(got, vec![Some("haiku".into()), Some("fable".into())]);
    }
}
