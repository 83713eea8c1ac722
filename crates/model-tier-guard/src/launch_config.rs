//! The main model as the harness's own configuration decides it (M1), for when neither the
//! ledger nor the transcript names it yet — the first tool call of a session launched without
//! `--model`, before the transcript says which model runs.
//!
//! Claude Code's order (shared protocol notes §6.2 and §3.1): `--model` > `ANTHROPIC_MODEL` >
//! settings `model` (managed > `--settings` > local > project > user, where the user file is
//! `$CLAUDE_CONFIG_DIR/settings.json` when that is set) > `ANTHROPIC_DEFAULT_MODEL` > the
//! account's default. The value `default` clears the override and falls to the default. The
//! documented account defaults are Opus 5 (API, Max, Team Premium, Bedrock, Vertex; the CLI
//! 2.1.332 asked for `claude-opus-5-5` with an API key) and Sonnet 5 / Sonnet 4.5 (Pro, Team
//! Standard, Foundry), so the default is judged as *every* model it may be.
//!
//! [`gather`] reads the sources at the edge (through [`Host`] and [`ConfigFiles`]); [`resolve`]
//! decides over the typed [`LaunchFacts`]. Whatever cannot be read where it would decide makes
//! the main model unknown (fail closed), never a guess.

use crate::host::{option_value, ConfigFiles, Host, SettingsFile};
use crate::main_model::{MainKnowledge, MainModel};
use crate::model_aliases::AliasEnv;
use serde_json::{Map, Value};
use std::path::Path;

/// What one settings layer says about the main model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayerModel {
    /// The layer does not set `model` (or has no file).
    Unset,
    Model(String),
    /// The layer could not be read, so whether it sets `model` is not known: the cause.
    Unreadable(String),
}

/// One settings layer, e.g. `user settings /home/u/.claude/settings.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub origin: String,
    pub model: LayerModel,
    /// Its `agent` key: the main thread runs as that agent.
    pub agent: Option<String>,
}

/// Everything the launch tells about the main model, highest precedence first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchFacts {
    /// Whether the CLI's command line could be read; without it a `--model` cannot be ruled
    /// out, so the default is never concluded.
    pub command_line: bool,
    /// `--model`.
    pub cli_model: Option<String>,
    /// `--agent`.
    pub cli_agent: Option<String>,
    /// `--resume` / `--continue`: the session keeps its transcript's model unless `--model` or
    /// `ANTHROPIC_MODEL` says otherwise.
    pub resumed: bool,
    /// `ANTHROPIC_MODEL`.
    pub env_model: Option<String>,
    /// Settings layers, highest precedence first.
    pub settings: Vec<Layer>,
    /// `ANTHROPIC_DEFAULT_MODEL`.
    pub env_default_model: Option<String>,
    /// The alias variables (`ANTHROPIC_DEFAULT_*_MODEL`): where a family alias — named by any
    /// source above, or the default's own `opus` / `sonnet` — really points.
    pub aliases: AliasEnv,
    /// The main agent's definition (`--agent`, settings `agent`), when one is set: `Some(model)`
    /// as its front matter says (`None` inside: it names none), `None`: not found.
    pub agent_definition: Option<Option<String>>,
}

/// Values of `ANTHROPIC_DEFAULT_MODEL` the CLI ignores (shared notes §6.2).
const IGNORED_DEFAULT_VALUES: [&str; 4] = ["default", "inherit", "opusplan", "haiku"];

fn clears_override(model: &str) -> bool {
    model.trim().eq_ignore_ascii_case("default")
}

/// The account defaults the documentation names.
fn account_defaults() -> Vec<MainModel> {
    vec![
        MainModel::new(
            "opus",
            "account default: API/Max/Team Premium/Bedrock/Vertex",
        ),
        MainModel::new("sonnet", "account default: Pro/Team Standard/Foundry"),
    ]
}

/// Decides the main model from the launch facts, aliases resolved as the CLI resolves them.
pub fn resolve(f: &LaunchFacts) -> MainKnowledge {
    resolve_named(f).through_aliases(&f.aliases)
}

/// The main model as the sources name it (aliases as written).
fn resolve_named(f: &LaunchFacts) -> MainKnowledge {
    let explicit = [
        (f.cli_model.as_deref(), "--model"),
        (f.env_model.as_deref(), "ANTHROPIC_MODEL"),
    ];
    let mut cleared = false;
    for (value, source) in explicit {
        match value.map(str::trim).filter(|m| !m.is_empty()) {
            Some(m) if clears_override(m) => {
                cleared = true;
                break;
            }
            Some(m) => return MainKnowledge::Known(MainModel::new(m, source)),
            None => {}
        }
    }
    if !cleared {
        if f.resumed {
            return MainKnowledge::Unknown(
                "a resumed session runs on its transcript's model, which the transcript does not show yet".into(),
            );
        }
        for layer in &f.settings {
            match &layer.model {
                LayerModel::Unset => {}
                LayerModel::Unreadable(cause) => {
                    return MainKnowledge::Unknown(format!(
                        "{} could not be read: {cause}",
                        layer.origin
                    ))
                }
                LayerModel::Model(m) if clears_override(m) => break,
                LayerModel::Model(m) => {
                    return MainKnowledge::Known(MainModel::new(m, &layer.origin))
                }
            }
        }
    }
    // Nothing names it: the CLI's default, but only if nothing unseen could have named it.
    if !f.command_line {
        return MainKnowledge::Unknown(
            "the CLI's command line could not be read (CLAUDE_PID), so a --model given at launch cannot be ruled out".into(),
        );
    }
    let agent = f
        .cli_agent
        .as_deref()
        .or_else(|| f.settings.iter().find_map(|l| l.agent.as_deref()));
    if let Some(a) = agent.filter(|a| !a.is_empty()) {
        match &f.agent_definition {
            // The definition names the model the main thread runs on.
            Some(Some(m)) if !m.trim().is_empty() && !m.trim().eq_ignore_ascii_case("inherit") => {
                return MainKnowledge::Known(MainModel::new(
                    m.trim(),
                    &format!("the main agent {a:?}'s definition"),
                ))
            }
            // It names none (or inherits): the CLI's default, as below.
            Some(_) => {}
            None => {
                return MainKnowledge::Unknown(format!(
                    "the session runs as the agent {a:?}, whose definition could not be found"
                ))
            }
        }
    }
    let mut possible = account_defaults();
    if let Some(m) = f.env_default_model.as_deref().map(str::trim).filter(|m| {
        !m.is_empty()
            && !IGNORED_DEFAULT_VALUES
                .iter()
                .any(|i| m.eq_ignore_ascii_case(i))
    }) {
        possible.push(MainModel::by_variable(m, "ANTHROPIC_DEFAULT_MODEL"));
    }
    MainKnowledge::CliDefault(possible)
}

/// Reads the launch facts: the CLI's command line (from [`Host`]), its environment (the hook's
/// own), and the settings files in the CLI's precedence order.
pub fn gather(host: &Host, project_dir: Option<&Path>, files: &dyn ConfigFiles) -> LaunchFacts {
    let args = host.launch_args.as_deref();
    let opt = |name: &str| args.and_then(|a| option_value(a, name));
    let var = |name: &str| host.var(name).map(str::to_string);
    let mut settings = Vec::new();
    if let Some(dir) = &host.managed_dir {
        settings.push(managed_layer(dir, files));
    }
    if let Some(v) = opt("--settings") {
        settings.push(cli_settings_layer(&v, project_dir, files));
    }
    if let Some(p) = project_dir {
        let local = p.join(".claude/settings.local.json");
        settings.push(file_layer("local settings", &local, files));
        let project = p.join(".claude/settings.json");
        settings.push(file_layer("project settings", &project, files));
    }
    if let Some(dir) = host.user_config_dir() {
        settings.push(file_layer(
            "user settings",
            &dir.join("settings.json"),
            files,
        ));
    }
    let cli_agent = opt("--agent");
    let agent = cli_agent
        .clone()
        .or_else(|| settings.iter().find_map(|l| l.agent.clone()))
        .filter(|a| !a.trim().is_empty());
    let agent_definition = agent.and_then(|a| {
        let projects: Vec<std::path::PathBuf> =
            project_dir.map(Path::to_path_buf).into_iter().collect();
        let dirs = crate::agents::AgentDirs::new(&projects, &host.user_dirs());
        crate::agents::find(&a, &dirs).map(|d| d.model)
    });
    LaunchFacts {
        command_line: args.is_some(),
        cli_model: opt("--model"),
        cli_agent,
        resumed: args.is_some_and(|a| {
            a.iter().any(|x| {
                matches!(x.as_str(), "--resume" | "-r" | "--continue" | "-c")
                    || x.starts_with("--resume=")
            })
        }),
        env_model: var("ANTHROPIC_MODEL"),
        settings,
        env_default_model: var("ANTHROPIC_DEFAULT_MODEL"),
        aliases: host.aliases(),
        agent_definition,
    }
}

/// What a settings object says: `model` (a non-string value cannot be read as a model) and
/// `agent`.
fn layer_of(origin: String, map: &Map<String, Value>) -> Layer {
    let model = match map.get("model") {
        None | Some(Value::Null) => LayerModel::Unset,
        Some(Value::String(m)) if m.trim().is_empty() => LayerModel::Unset,
        Some(Value::String(m)) => LayerModel::Model(m.trim().to_string()),
        Some(_) => LayerModel::Unreadable("its `model` is not a string".into()),
    };
    let agent = map
        .get("agent")
        .and_then(Value::as_str)
        .filter(|a| !a.trim().is_empty())
        .map(str::to_string);
    Layer {
        origin,
        model,
        agent,
    }
}

fn file_layer(kind: &str, path: &Path, files: &dyn ConfigFiles) -> Layer {
    layer_from(format!("{kind} {}", path.display()), files.settings(path))
}

fn layer_from(origin: String, read: SettingsFile) -> Layer {
    match read {
        SettingsFile::Absent => Layer {
            origin,
            model: LayerModel::Unset,
            agent: None,
        },
        SettingsFile::Json(map) => layer_of(origin, &map),
        SettingsFile::Unreadable(cause) => Layer {
            origin,
            model: LayerModel::Unreadable(cause),
            agent: None,
        },
    }
}

/// `managed-settings.json` and `managed-settings.d/*.json` as one layer. The order among them
/// is not documented, so files that name different models make the layer unreadable.
fn managed_layer(dir: &Path, files: &dyn ConfigFiles) -> Layer {
    let mut paths = vec![dir.join("managed-settings.json")];
    let drop_in_dir = dir.join("managed-settings.d");
    match files.drop_ins(&drop_in_dir) {
        Ok(more) => paths.extend(more),
        Err(cause) => {
            return Layer {
                origin: format!("managed settings {}", drop_in_dir.display()),
                model: LayerModel::Unreadable(cause),
                agent: None,
            }
        }
    }
    let mut found: Option<Layer> = None;
    let mut agent = None;
    for p in &paths {
        let layer = file_layer("managed settings", p, files);
        agent = agent.or(layer.agent.clone());
        match &layer.model {
            LayerModel::Unset => {}
            LayerModel::Unreadable(_) => return layer,
            LayerModel::Model(m) => match &found {
                Some(Layer {
                    model: LayerModel::Model(first),
                    origin,
                    ..
                }) if first != m => {
                    return Layer {
                        origin: format!("managed settings {}", dir.display()),
                        model: LayerModel::Unreadable(format!(
                            "{origin} and {} name different models",
                            p.display()
                        )),
                        agent: None,
                    }
                }
                Some(_) => {}
                None => found = Some(layer.clone()),
            },
        }
    }
    let mut layer = found.unwrap_or(Layer {
        origin: format!("managed settings {}", dir.display()),
        model: LayerModel::Unset,
        agent: None,
    });
    layer.agent = agent;
    layer
}

/// `--settings` on the CLI's command line: inline JSON, or a file (relative to the project
/// folder, where the CLI was started). The CLI was told to read it, so a missing file is
/// unreadable, not absent.
fn cli_settings_layer(value: &str, project_dir: Option<&Path>, files: &dyn ConfigFiles) -> Layer {
    let unreadable = |origin: String, cause: &str| Layer {
        origin,
        model: LayerModel::Unreadable(cause.to_string()),
        agent: None,
    };
    if value.trim_start().starts_with('{') {
        let origin = "--settings (inline JSON)".to_string();
        return match serde_json::from_str::<Value>(value) {
            Ok(Value::Object(map)) => layer_of(origin, &map),
            _ => unreadable(origin, "not a JSON object"),
        };
    }
    let path = Path::new(value);
    let path = match (path.is_absolute(), project_dir) {
        (true, _) => path.to_path_buf(),
        (false, Some(p)) => p.join(path),
        (false, None) => {
            return unreadable(
                format!("--settings {value}"),
                "a relative path and no project folder",
            )
        }
    };
    let origin = format!("--settings {}", path.display());
    match files.settings(&path) {
        SettingsFile::Absent => unreadable(origin, "no such file"),
        read => layer_from(origin, read),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Fs;
    use crate::test_files::write;

    fn layer(origin: &str, model: LayerModel) -> Layer {
        Layer {
            origin: origin.into(),
            model,
            agent: None,
        }
    }

    /// A layer that names `model`.
    fn naming(origin: &str, model: &str) -> Layer {
        layer(origin, LayerModel::Model(model.into()))
    }

    fn known(k: &MainKnowledge) -> Option<(&str, &str)> {
        match k {
            MainKnowledge::Known(m) => Some((m.model.as_str(), m.source.as_str())),
            _ => None,
        }
    }

    /// Every model the CLI's default may be; panics on any other answer.
    fn cli_default(f: &LaunchFacts) -> Vec<MainModel> {
        match resolve(f) {
            MainKnowledge::CliDefault(p) => p,
            k => panic!("not the CLI's default: {k:?}"),
        }
    }

    fn model_names(p: &[MainModel]) -> Vec<&str> {
        p.iter().map(|m| m.model.as_str()).collect()
    }

    /// Checks that the main model is unknown for a reason that says `cause` (`""`: any reason).
    fn assert_unknown(k: &MainKnowledge, cause: &str) {
        assert!(
            matches!(k, MainKnowledge::Unknown(c) if c.contains(cause)),
            "{k:?}"
        );
    }

    /// The main model as the host's files make it.
    fn gathered(host: &Host, project: Option<&Path>) -> MainKnowledge {
        resolve(&gather(host, project, &Fs))
    }

    /// The model the host's files name; panics when they name none.
    fn gathered_model(host: &Host, project: Option<&Path>) -> String {
        let k = gathered(host, project);
        known(&k)
            .map(|(m, _)| m.to_string())
            .expect("a named model")
    }

    fn base() -> LaunchFacts {
        LaunchFacts {
            command_line: true,
            ..LaunchFacts::default()
        }
    }

    #[test]
    fn precedence_follows_the_cli() {
        let mut f = base();
        f.settings = vec![
            layer("managed", LayerModel::Unset),
            naming("local", "haiku"),
            naming("user", "fable"),
        ];
        assert_eq!(known(&resolve(&f)), Some(("haiku", "local")));
        f.env_model = Some("sonnet".into());
        assert_eq!(known(&resolve(&f)), Some(("sonnet", "ANTHROPIC_MODEL")));
        f.cli_model = Some("fable".into());
        assert_eq!(known(&resolve(&f)), Some(("fable", "--model")));
        // The maintainer-only tier is learned like any other model (the rules then refuse it).
        let mut f = base();
        f.env_model = Some("claude-fable-5-2".into());
        assert_eq!(
            known(&resolve(&f)),
            Some(("claude-fable-5-2", "ANTHROPIC_MODEL"))
        );
    }

    #[test]
    fn default_clears_lower_layers_and_falls_to_the_cli_default() {
        let mut f = base();
        f.settings = vec![naming("project", "default"), naming("user", "fable")];
        assert_eq!(model_names(&cli_default(&f)), ["opus", "sonnet"]);
        f.cli_model = Some("Default".into());
        f.settings = vec![naming("user", "fable")];
        assert!(!cli_default(&f).is_empty());
    }

    #[test]
    fn an_unreadable_layer_that_would_decide_makes_it_unknown() {
        let mut f = base();
        f.settings = vec![
            layer("local", LayerModel::Unreadable("not valid JSON".into())),
            naming("user", "sonnet"),
        ];
        assert_unknown(&resolve(&f), "local could not be read: not valid JSON");
        // Below a layer that decides, it does not matter.
        f.settings.insert(0, naming("managed", "opus"));
        assert_eq!(known(&resolve(&f)), Some(("opus", "managed")));
        f.settings.remove(0);
        f.env_model = Some("haiku".into());
        assert_eq!(known(&resolve(&f)), Some(("haiku", "ANTHROPIC_MODEL")));
    }

    #[test]
    fn the_default_is_concluded_only_when_nothing_unseen_could_name_the_model() {
        let mut f = base();
        f.command_line = false;
        assert_unknown(&resolve(&f), "--model");
        let mut f = base();
        f.resumed = true;
        assert_unknown(&resolve(&f), "resumed");
        f.env_model = Some("sonnet".into());
        assert_eq!(known(&resolve(&f)), Some(("sonnet", "ANTHROPIC_MODEL")));
        let mut f = base();
        f.cli_agent = Some("deep".into());
        assert_unknown(&resolve(&f), "\"deep\"");
        let mut f = base();
        f.settings = vec![Layer {
            origin: "user".into(),
            model: LayerModel::Unset,
            agent: Some("deep".into()),
        }];
        assert_unknown(&resolve(&f), "");
        // A definition that was found: its model runs the main thread; none = the default.
        f.agent_definition = Some(Some("fable".into()));
        assert_eq!(
            known(&resolve(&f)),
            Some(("fable", "the main agent \"deep\"'s definition"))
        );
        f.agent_definition = Some(Some("inherit".into()));
        assert!(!cli_default(&f).is_empty());
        f.agent_definition = Some(None);
        assert!(!cli_default(&f).is_empty());
    }

    #[test]
    fn the_default_includes_what_the_environment_points_it_at() {
        let mut f = base();
        f.env_default_model = Some("claude-fable-5".into());
        f.aliases
            .set("ANTHROPIC_DEFAULT_OPUS_MODEL", Some("gw-big"));
        let p = cli_default(&f);
        assert_eq!(
            model_names(&p),
            ["opus", "gw-big", "sonnet", "claude-fable-5"]
        );
        assert!(
            p[1].source.contains("ANTHROPIC_DEFAULT_OPUS_MODEL"),
            "{p:?}"
        );
        f.env_default_model = Some("inherit".into());
        f.aliases = AliasEnv::default();
        assert_eq!(cli_default(&f).len(), 2);
    }

    #[test]
    fn a_named_alias_runs_on_its_target() {
        // Every source that names the main model is resolved through the alias variables.
        let setters: [fn(&mut LaunchFacts); 3] = [
            |f: &mut LaunchFacts| f.cli_model = Some("opus".into()),
            |f: &mut LaunchFacts| f.env_model = Some("opus".into()),
            |f: &mut LaunchFacts| f.settings = vec![naming("user", "opus")],
        ];
        for set in setters {
            let mut f = base();
            set(&mut f);
            assert!(matches!(known(&resolve(&f)), Some(("opus", _))));
            f.aliases
                .set("ANTHROPIC_DEFAULT_OPUS_MODEL", Some("claude-fable-5"));
            let k = resolve(&f);
            let (m, src) = known(&k).unwrap();
            assert_eq!(m, "claude-fable-5");
            assert!(
                src.contains("\"opus\" → ANTHROPIC_DEFAULT_OPUS_MODEL"),
                "{src}"
            );
        }
        // A default model named by ANTHROPIC_DEFAULT_MODEL is an alias too.
        let mut f = base();
        f.env_default_model = Some("sonnet".into());
        f.aliases
            .set("ANTHROPIC_DEFAULT_SONNET_MODEL", Some("claude-fable-5"));
        let p = cli_default(&f);
        assert!(model_names(&p).contains(&"claude-fable-5"), "{p:?}");
    }

    fn host_in(t: &Path) -> Host {
        let mut host = Host::default();
        host.env
            .insert("HOME".into(), t.join("home").display().to_string());
        host.managed_dir = Some(t.join("managed"));
        host.launch_args = Some(vec!["-p".into(), "x".into()]);
        host
    }

    #[test]
    fn gathers_files_in_precedence_order() {
        let t = tempfile::tempdir().unwrap();
        let host = host_in(t.path());
        let project = t.path().join("project");
        let f = gather(&host, Some(&project), &Fs);
        let origins: Vec<&str> = f.settings.iter().map(|l| l.origin.as_str()).collect();
        assert_eq!(origins.len(), 4, "{origins:?}");
        assert!(origins[0].starts_with("managed settings"));
        assert!(origins[1].starts_with("local settings"));
        assert!(origins[2].starts_with("project settings"));
        assert!(origins[3].starts_with("user settings"));
        assert!(!cli_default(&f).is_empty());

        write(
            &t.path().join("home/.claude/settings.json"),
            r#"{"model":"sonnet"}"#,
        );
        assert_eq!(gathered_model(&host, Some(&project)), "sonnet");
        write(
            &project.join(".claude/settings.json"),
            r#"{"model":"haiku"}"#,
        );
        assert_eq!(gathered_model(&host, Some(&project)), "haiku");
        write(
            &t.path().join("managed/managed-settings.d/10-model.json"),
            r#"{"model":"claude-fable-5"}"#,
        );
        let k = gathered(&host, Some(&project));
        let (m, src) = known(&k).unwrap();
        assert_eq!(m, "claude-fable-5");
        assert!(src.ends_with("10-model.json"), "{src}");
        // Managed files that disagree: the order among them is not documented.
        write(
            &t.path().join("managed/managed-settings.json"),
            r#"{"model":"opus"}"#,
        );
        assert_unknown(&gathered(&host, Some(&project)), "different models");
    }

    #[test]
    fn claude_config_dir_moves_the_user_file() {
        let t = tempfile::tempdir().unwrap();
        let mut host = host_in(t.path());
        write(
            &t.path().join("home/.claude/settings.json"),
            r#"{"model":"haiku"}"#,
        );
        write(&t.path().join("cfg/settings.json"), r#"{"model":"opus"}"#);
        host.env.insert(
            "CLAUDE_CONFIG_DIR".into(),
            t.path().join("cfg").display().to_string(),
        );
        let k = gathered(&host, None);
        let (m, src) = known(&k).unwrap();
        assert_eq!(m, "opus");
        assert!(
            src.starts_with("user settings") && src.contains("cfg"),
            "{src}"
        );
    }

    #[test]
    fn settings_on_the_command_line() {
        let t = tempfile::tempdir().unwrap();
        let mut host = host_in(t.path());
        let project = t.path().join("project");
        write(
            &t.path().join("home/.claude/settings.json"),
            r#"{"model":"haiku"}"#,
        );
        write(&project.join("s.json"), r#"{"model":"opus"}"#);
        let mut launch = |args: [&str; 2]| {
            host.launch_args = Some(args.map(String::from).to_vec());
            gathered(&host, Some(&project))
        };
        assert_eq!(
            known(&launch(["--settings", r#"{"model":"fable"}"#]))
                .unwrap()
                .0,
            "fable"
        );
        assert_eq!(known(&launch(["--settings", "s.json"])).unwrap().0, "opus");
        assert_unknown(&launch(["--settings", "missing.json"]), "no such file");
        assert_unknown(&launch(["--settings", "{nope"]), "");
        host.launch_args = Some(vec!["--resume".into(), "abc".into()]);
        assert!(gather(&host, None, &Fs).resumed);
    }

    #[test]
    fn broken_files_fail_closed_and_never_block() {
        let t = tempfile::tempdir().unwrap();
        let host = host_in(t.path());
        let user = t.path().join("home/.claude/settings.json");
        let big = format!("{{\"x\": \"{}\"}}", "a".repeat(1024 * 1024));
        for (text, cause) in [
            ("{\"model\": ", "not valid JSON"),
            ("[1]", "not a JSON object"),
            ("{\"model\": 5}", "not a string"),
            (big.as_str(), "larger than"),
        ] {
            write(&user, text);
            assert_unknown(&gathered(&host, None), cause);
        }
        // A FIFO where the file should be: not opened for a blocking read.
        std::fs::remove_file(&user).unwrap();
        let c = std::ffi::CString::new(user.display().to_string()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_unknown(&gathered(&host, None), "not a regular file");
        std::fs::remove_file(&user).unwrap();
        std::fs::create_dir_all(&user).unwrap();
        assert_unknown(&gathered(&host, None), "");
    }
}
