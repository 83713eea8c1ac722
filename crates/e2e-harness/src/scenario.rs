//! The scenario builder: hooks, project files and a script of model turns in, one real
//! `claude -p` run out, with everything the CLI printed and sent collected in an [`Outcome`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::cli_locator::{claude_cli, cli_required, skip_notice, ClaudeCli};
use crate::model_server::{truncate, ModelServer, Script};
use crate::project::{HookSpec, Project, DEFAULT_HOOK_TIMEOUT_SECS};
use crate::script::{ModelRequest, RequestKind, Turn};
use hook_replay::bounded::run_bounded;

/// The CLI, or `None` after printing a loud skip notice; panics when the CLI is required
/// (`CI=true` or `AGENT_GUARDS_E2E_REQUIRED=1`) but cannot be had.
pub fn cli_or_skip() -> Option<ClaudeCli> {
    match claude_cli() {
        Ok(cli) => Some(cli),
        Err(reason) if cli_required() => panic!(
            "e2e-harness: the Claude Code CLI is required (CI=true or \
             AGENT_GUARDS_E2E_REQUIRED=1) but unavailable: {reason}"
        ),
        Err(reason) => {
            eprintln!("{}", skip_notice(&reason));
            None
        }
    }
}

/// Default hard bound for one CLI run.
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(180);

/// A scenario under construction. See the crate docs for examples.
pub struct Scenario {
    project: Project,
    hooks: Vec<HookSpec>,
    settings_env: BTreeMap<String, String>,
    settings_extra: Map<String, Value>,
    script: Script,
    prompt: String,
    allowed_tools: Vec<String>,
    extra_args: Vec<String>,
    process_env: Vec<(String, String)>,
    /// A program (and its arguments) the CLI is run through: it gets the CLI's path and
    /// arguments last (a system install's private mount namespace, `tests/e2e_system_install.rs`).
    launcher: Vec<String>,
    timeout: Duration,
    strict: bool,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario::new()
    }
}

impl Scenario {
    /// A fresh temp HOME and project, prompt "Do the task.", `--allowedTools Bash`.
    pub fn new() -> Scenario {
        let project = Project::new()
            .unwrap_or_else(|e| panic!("e2e-harness: cannot create temp project: {e}"));
        Scenario {
            project,
            hooks: Vec::new(),
            settings_env: BTreeMap::new(),
            settings_extra: Map::new(),
            script: Script {
                side_text: "E2E scenario".into(),
                ..Script::default()
            },
            prompt: "Do the task.".into(),
            allowed_tools: vec!["Bash".into()],
            extra_args: Vec::new(),
            process_env: Vec::new(),
            launcher: Vec::new(),
            timeout: DEFAULT_RUN_TIMEOUT,
            strict: true,
        }
    }

    /// The temp project folder (the CLI's working directory).
    pub fn project_dir(&self) -> PathBuf {
        self.project.dir()
    }

    /// The temp HOME of the run.
    pub fn home_dir(&self) -> PathBuf {
        self.project.home()
    }

    /// Registers `command` (an absolute path) with `args` for `event`, in exec form, with the
    /// default timeout. `matcher: None` matches everything.
    pub fn hook(
        self,
        event: &str,
        matcher: Option<&str>,
        command: impl AsRef<Path>,
        args: &[&str],
    ) -> Scenario {
        self.hook_with_timeout(event, matcher, command, args, DEFAULT_HOOK_TIMEOUT_SECS)
    }

    /// Like [`Scenario::hook`] with an explicit timeout in seconds.
    pub fn hook_with_timeout(
        mut self,
        event: &str,
        matcher: Option<&str>,
        command: impl AsRef<Path>,
        args: &[&str],
        timeout_secs: u64,
    ) -> Scenario {
        self.hooks.push(HookSpec {
            event: event.into(),
            matcher: matcher.map(Into::into),
            command: command.as_ref().to_path_buf(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            timeout_secs,
        });
        self
    }

    /// Writes `body` as an executable script named `name` and registers it for `event`
    /// (exec form, no args). For hooks written as tiny test programs.
    pub fn hook_script(
        self,
        event: &str,
        matcher: Option<&str>,
        name: &str,
        body: &str,
    ) -> Scenario {
        let path = self.script_file(name, body);
        self.hook(event, matcher, path, &[])
    }

    /// Registers a hook that records every payload the CLI sends for `event` (and answers
    /// nothing, so it changes no decision); read them with [`Outcome::hook_payloads`].
    pub fn record_hook(self, event: &str, matcher: Option<&str>) -> Scenario {
        let log = self.project.payload_log(event);
        let name = format!("record-{event}.sh");
        // `cat >>` then a newline: one JSON value per payload, whatever its own formatting.
        let path = self.script_file(&name, "#!/bin/sh\ncat >> \"$1\"\necho >> \"$1\"\n");
        let log = log.to_string_lossy().into_owned();
        self.hook(event, matcher, path, &[&log])
    }

    /// Writes an executable script outside the project and returns its absolute path.
    pub fn script_file(&self, name: &str, body: &str) -> PathBuf {
        self.project
            .write_script(name, body)
            .unwrap_or_else(|e| panic!("e2e-harness: cannot write script {name}: {e}"))
    }

    /// Adds a key to the settings' `env` block (applied to the session, its hooks and tools).
    pub fn settings_env(mut self, key: &str, value: &str) -> Scenario {
        self.settings_env.insert(key.into(), value.into());
        self
    }

    /// Adds a top-level key to `.claude/settings.json` (e.g. `skipWebFetchPreflight`).
    pub fn setting(mut self, key: &str, value: Value) -> Scenario {
        self.settings_extra.insert(key.into(), value);
        self
    }

    /// Writes a file inside the project folder (e.g. `.claude/agents/x.md`, a `Makefile`).
    pub fn file(self, relative: &str, contents: &str) -> Scenario {
        self.project
            .write_file(relative, contents)
            .unwrap_or_else(|e| panic!("e2e-harness: cannot write {relative}: {e}"));
        self
    }

    /// Appends a main-session turn (a [`crate::Reply`] or a [`crate::decide`] closure).
    pub fn turn(mut self, turn: impl Into<Turn>) -> Scenario {
        self.script.main.push_back(turn.into());
        self
    }

    /// Appends a turn of the subagent script (requests whose system prompt says
    /// `cc_is_subagent=true`).
    pub fn subagent_turn(mut self, turn: impl Into<Turn>) -> Scenario {
        self.script.subagent.push_back(turn.into());
        self
    }

    /// Text answered to side requests (requests that offer no tools). Default "E2E scenario".
    pub fn side_text(mut self, text: &str) -> Scenario {
        self.script.side_text = text.into();
        self
    }

    /// The `-p` prompt. Default "Do the task.".
    pub fn prompt(mut self, prompt: &str) -> Scenario {
        self.prompt = prompt.into();
        self
    }

    /// Replaces the `--allowedTools` list. Default `["Bash"]`.
    pub fn allowed_tools(mut self, tools: &[&str]) -> Scenario {
        self.allowed_tools = tools.iter().map(|t| (*t).to_owned()).collect();
        self
    }

    /// Extra CLI arguments, e.g. `["--model", "haiku"]`.
    pub fn cli_args(mut self, args: &[&str]) -> Scenario {
        self.extra_args.extend(args.iter().map(|a| (*a).to_owned()));
        self
    }

    /// Sets a variable in the CLI process's environment (it inherits to hooks and tools).
    pub fn cli_env(mut self, key: &str, value: &str) -> Scenario {
        self.process_env.push((key.into(), value.into()));
        self
    }

    /// Runs the CLI through `argv` (the CLI's path and arguments are appended); its stdout must
    /// be the CLI's.
    pub fn launched_by(mut self, argv: &[&str]) -> Scenario {
        self.launcher = argv.iter().map(|a| a.to_string()).collect();
        self
    }

    /// Hard bound for the CLI run; the CLI's process group is killed after it.
    pub fn timeout(mut self, timeout: Duration) -> Scenario {
        self.timeout = timeout;
        self
    }

    /// By default a run fails when the CLI asked for more turns than scripted or left scripted
    /// turns unused (a hook that should have blocked but did not shows up this way). `lenient`
    /// turns that check off.
    pub fn lenient(mut self) -> Scenario {
        self.strict = false;
        self
    }

    /// Runs the scenario. `None` when the CLI is not available and not required (a loud notice
    /// is printed); panics (fails the test) when it is required, or when the run itself fails:
    /// timeout, unparsable JSON result, script overrun or unused turns (unless `lenient`).
    pub fn run(self) -> Option<Outcome> {
        let cli = cli_or_skip()?;
        Some(self.run_with(&cli))
    }

    /// Runs against a given CLI (no locating, no skipping).
    pub fn run_with(mut self, cli: &ClaudeCli) -> Outcome {
        self.project
            .write_settings(&self.hooks, &self.settings_env, &self.settings_extra)
            .unwrap_or_else(|e| panic!("e2e-harness: cannot write settings.json: {e}"));
        let script = std::mem::take(&mut self.script);
        let server = ModelServer::start(script)
            .unwrap_or_else(|e| panic!("e2e-harness: cannot start the model server: {e}"));

        let mut cmd = match self.launcher.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(&cli.path);
                c
            }
            None => Command::new(&cli.path),
        };
        cmd.current_dir(self.project.dir())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(self.project.cli_env(&server.base_url()))
            .envs(self.process_env.iter().map(|(k, v)| (k, v)))
            .args(["-p", &self.prompt, "--output-format", "json"]);
        if !self.allowed_tools.is_empty() {
            cmd.arg("--allowedTools").arg(self.allowed_tools.join(","));
        }
        cmd.args(&self.extra_args);
        let out = run_bounded(&mut cmd, self.timeout)
            .unwrap_or_else(|e| panic!("e2e-harness: cannot start {}: {e}", cli.path.display()));

        let requests = server.requests();
        let failures = server.failures();
        let unused = server.unused_turns();
        drop(server);
        eprintln!(
            "e2e-harness: claude -p finished ({}) in {:.2?} with {} model requests",
            out.status_text(),
            out.elapsed,
            requests.len()
        );
        let context = || {
            format!(
                "\n--- CLI {} after {:?}\n--- stderr:\n{}\n--- stdout:\n{}\n--- requests: {}",
                out.status_text(),
                out.elapsed,
                out.stderr,
                truncate(&out.stdout, 4000),
                summarize(&requests)
            )
        };
        if out.timed_out {
            panic!(
                "e2e-harness: the CLI did not finish within {:?}{}",
                self.timeout,
                context()
            );
        }
        let result = CliResult::parse(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "e2e-harness: cannot read the CLI's JSON result: {e}{}",
                context()
            )
        });
        if !failures.is_empty() {
            panic!(
                "e2e-harness: the model server saw problems:\n  {}{}",
                failures.join("\n  "),
                context()
            );
        }
        if self.strict && unused != (0, 0) {
            panic!(
                "e2e-harness: the session ended with scripted turns unused (main: {}, \
                 subagent: {}); use .lenient() if that is intended{}",
                unused.0,
                unused.1,
                context()
            );
        }
        Outcome {
            result,
            stdout: out.stdout,
            stderr: out.stderr,
            exit_code: out.status.and_then(|s| s.code()),
            elapsed: out.elapsed,
            requests,
            project: self.project,
        }
    }
}

fn summarize(requests: &[ModelRequest]) -> String {
    requests
        .iter()
        .map(|r| format!("{} {} ({:?})", r.method, r.path, r.kind))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One entry of `permission_denials`.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionDenial {
    pub tool_name: String,
    pub tool_input: Value,
}

/// The CLI's `--output-format json` result object.
#[derive(Debug, Clone)]
pub struct CliResult {
    /// The final assistant text.
    pub result: String,
    pub is_error: bool,
    pub num_turns: u64,
    pub session_id: String,
    pub permission_denials: Vec<PermissionDenial>,
    /// The whole object, for fields not modelled here.
    pub raw: Value,
}

impl CliResult {
    /// Parses the last JSON object line of stdout.
    pub fn parse(stdout: &str) -> Result<CliResult, String> {
        let raw: Value = stdout
            .lines()
            .rev()
            .find_map(|l| {
                serde_json::from_str::<Value>(l.trim())
                    .ok()
                    .filter(Value::is_object)
            })
            .ok_or_else(|| "no JSON object on stdout".to_string())?;
        let str_field = |k: &str| raw.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let permission_denials = raw
            .get("permission_denials")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .map(|d| PermissionDenial {
                        tool_name: d
                            .get("tool_name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                        tool_input: d.get("tool_input").cloned().unwrap_or(Value::Null),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(CliResult {
            result: str_field("result"),
            is_error: raw
                .get("is_error")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            num_turns: raw.get("num_turns").and_then(Value::as_u64).unwrap_or(0),
            session_id: str_field("session_id"),
            permission_denials,
            raw,
        })
    }
}

/// Everything one run produced. Keeps the temp HOME and project alive until dropped, so a test
/// can read transcripts, audit logs or files a hook wrote.
#[derive(Debug)]
pub struct Outcome {
    pub result: CliResult,
    pub stdout: String,
    /// The CLI's stderr (SessionEnd hook reports appear here in `-p` mode).
    pub stderr: String,
    pub exit_code: Option<i32>,
    pub elapsed: Duration,
    /// Every request the model server received, in order.
    pub requests: Vec<ModelRequest>,
    project: Project,
}

impl Outcome {
    /// The main-session requests, one per scripted turn, in order: `main_requests()[n]` is the
    /// request answered by turn `n`, so `[n + 1]` shows what the CLI sent back after turn `n`.
    pub fn main_requests(&self) -> Vec<&ModelRequest> {
        self.of_kind(RequestKind::Main)
    }

    pub fn subagent_requests(&self) -> Vec<&ModelRequest> {
        self.of_kind(RequestKind::Subagent)
    }

    pub fn side_requests(&self) -> Vec<&ModelRequest> {
        self.of_kind(RequestKind::Side)
    }

    fn of_kind(&self, kind: RequestKind) -> Vec<&ModelRequest> {
        self.requests.iter().filter(|r| r.kind == kind).collect()
    }

    pub fn project_dir(&self) -> PathBuf {
        self.project.dir()
    }

    pub fn home_dir(&self) -> PathBuf {
        self.project.home()
    }

    /// Checks that a Stop hook blocked the first stop once and the session then ended: two main
    /// requests, two Stop payloads (the scenario must [`Scenario::record_hook`] `Stop`), the
    /// second with `stop_hook_active`. Returns what the CLI fed back to the model after the block
    /// (where the hook's reason arrives).
    pub fn stop_blocked_once(&self) -> String {
        let main = self.main_requests();
        assert_eq!(main.len(), 2, "one block, one continuation");
        let stops = self.hook_payloads("Stop");
        assert_eq!(stops.len(), 2, "{stops:?}");
        assert_eq!(stops[0]["stop_hook_active"], false);
        assert_eq!(stops[1]["stop_hook_active"], true);
        main[1].text_since_last_answer()
    }

    /// [`Outcome::stop_blocked_once`], checking that the feedback holds `reason` (the hook's
    /// reason reached the model).
    pub fn stop_blocked_once_with(&self, reason: &str) -> String {
        let feedback = self.stop_blocked_once();
        assert!(
            feedback.contains(reason),
            "the model was not told {reason:?}: {feedback}"
        );
        feedback
    }

    /// The one tool call the CLI refused; panics with the CLI's result when there were none or
    /// several.
    pub fn only_denial(&self) -> &PermissionDenial {
        let denials = &self.result.permission_denials;
        assert_eq!(
            denials.len(),
            1,
            "one refusal expected: {:?}",
            self.result.raw
        );
        &denials[0]
    }

    /// The session's state folder under the temp HOME, where the guards write their audit log,
    /// ledger and reports.
    pub fn session_dir(&self) -> PathBuf {
        self.home_dir()
            .join(".local/state/agent-guards/sessions")
            .join(&self.result.session_id)
    }

    /// The session's file `name` (in [`Outcome::session_dir`]) parsed as one JSON value; panics
    /// naming the file when it is missing or not JSON.
    pub fn session_json(&self, name: &str) -> Value {
        let p = self.session_dir().join(name);
        let text = std::fs::read_to_string(&p)
            .unwrap_or_else(|e| panic!("{}: {e}; CLI stderr {}", p.display(), self.stderr));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    /// The session's first audit record whose `key` is `value`; panics listing the records when
    /// there is none.
    pub fn audit_record(&self, key: &str, value: &str) -> Value {
        let records = self.audit_records();
        records
            .iter()
            .find(|r| r[key] == value)
            .cloned()
            .unwrap_or_else(|| panic!("no audit record with {key} = {value:?}: {records:?}"))
    }

    /// The session's audit log, one value a record; panics naming the file when it is missing or
    /// a line is not an [`session_store::AuditRecord`] (so every scenario that reads its log
    /// checks the whole log's records against their type, issue 44).
    pub fn audit_records(&self) -> Vec<Value> {
        let p = self.session_dir().join("audit.jsonl");
        std::fs::read_to_string(&p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .lines()
            .map(|l| {
                if let Err(e) = session_store::AuditRecord::parse(l) {
                    panic!("{}: {e}", p.display());
                }
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", p.display()))
            })
            .collect()
    }

    /// Payloads recorded by [`Scenario::record_hook`] for `event`, in arrival order.
    pub fn hook_payloads(&self, event: &str) -> Vec<Value> {
        let text = std::fs::read_to_string(self.project.payload_log(event)).unwrap_or_default();
        serde_json::Deserializer::from_str(&text)
            .into_iter::<Value>()
            .map_while(Result::ok)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_cli_result_object() {
        let out = "noise\n{\"type\":\"result\",\"result\":\"Done\",\"is_error\":false,\
                   \"num_turns\":3,\"session_id\":\"s1\",\"permission_denials\":\
                   [{\"tool_name\":\"Bash\",\"tool_use_id\":\"t\",\"tool_input\":{\"command\":\"ls\"}}]}\n";
        let r = CliResult::parse(out).unwrap();
        assert_eq!(r.result, "Done");
        assert_eq!(r.num_turns, 3);
        assert_eq!(r.session_id, "s1");
        assert_eq!(
            r.permission_denials,
            vec![PermissionDenial {
                tool_name: "Bash".into(),
                tool_input: serde_json::json!({"command": "ls"})
            }]
        );
        assert!(CliResult::parse("not json").is_err());
        assert!(CliResult::parse("[1,2]").is_err());
    }
}
