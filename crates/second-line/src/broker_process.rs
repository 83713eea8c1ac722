//! The broker's own process (C11, issue 38): forked by the prefix that starts it, detached (own
//! session, not dumpable, so a process of the same user can neither read its memory, where the
//! real token and the CA key live, nor trace it), outside the command's group and namespaces.
//! It writes the masked credential files and its record, says it is ready, and serves until the
//! CLI that started the session is gone (SessionEnd stops it earlier, through the record it
//! leaves beside the supervisors'). Its decisions go to the session's audit log, its tunnels to
//! I1 evidence and K5 taint, through one writer thread, as the supervisors' do.

use crate::broker::{Found, Running, RECORD};
use crate::supervisor::Work;
use credential_broker::audit::{Connect, Decision, Outcome};
use credential_broker::{AuditSink, Broker, Config, ConnectSink, Sinks};
use serde_json::{json, Value};
use session_store::record::Decision as Logged;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Launch-environment variables that send the broker's GitHub connections elsewhere, for a
/// maintainer's test GitHub (and this suite's tests): `host=ip:port,...` and a PEM file of the
/// roots that upstream is trusted with. Read from the CLI's environment only: an agent command
/// that starts a prefix of its own has no real token to give such a broker.
pub const UPSTREAM_ENV: &str = "AGENT_GUARDS_BROKER_UPSTREAM";
pub const UPSTREAM_CA_ENV: &str = "AGENT_GUARDS_BROKER_UPSTREAM_CA";

/// How often the broker looks whether the session's CLI still runs.
const LIFE_CHECK: Duration = Duration::from_millis(500);

/// Forks the broker (a grandchild, reparented away from the command's tree) and waits until it
/// is ready or `until`.
pub fn spawn(
    session: &session_store::Session,
    dir: &Path,
    found: Found,
    project: Option<PathBuf>,
    until: Instant,
) -> Result<(), String> {
    let mut fds = [0; 2];
    // SAFETY: a pipe into a live array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("pipe: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: fresh descriptors owned from here on.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // The CLI (`CLAUDE_PID`, else the prefix's parent, which is the CLI): the broker ends with it.
    let cli = crate::cli_process::pid(&|k| std::env::var(k).ok())
        .and_then(|cli| crate::start_time(cli).map(|s| (cli, s)));
    // SAFETY: the prefix is single-threaded here; the child only forks again or exits.
    match unsafe { libc::fork() } {
        -1 => Err(format!("fork: {}", std::io::Error::last_os_error())),
        0 => {
            drop(read);
            // SAFETY: as above.
            if unsafe { libc::fork() } == 0 {
                let launch = Launch {
                    env: std::env::vars().collect(),
                    shared: false,
                };
                broker_main(write, session, dir, found, project, cli, launch);
            }
            // SAFETY: leaving the intermediate child without running destructors.
            unsafe { libc::_exit(0) }
        }
        child => {
            drop(write);
            let mut status = 0;
            // SAFETY: reaping our own child.
            unsafe { libc::waitpid(child, &mut status, 0) };
            wait_ready(&read, until)
        }
    }
}

/// Reads the broker's first answer: `R` (ready) or `E` and why it could not start.
fn wait_ready(read: &OwnedFd, until: Instant) -> Result<(), String> {
    let left = until.saturating_duration_since(Instant::now());
    let mut p = libc::pollfd {
        fd: read.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: polling one live descriptor.
    let n = unsafe { libc::poll(&mut p, 1, left.as_millis().min(i32::MAX as u128) as i32) };
    if n <= 0 {
        return Err(format!("it did not start within {} ms", left.as_millis()));
    }
    let mut buf = [0u8; 512];
    // SAFETY: reading into a live buffer.
    let got = unsafe { libc::read(read.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    let got = &buf[..got.max(0) as usize];
    match got.first() {
        Some(b'R') => Ok(()),
        Some(b'E') => Err(String::from_utf8_lossy(&got[1..]).into_owned()),
        _ => Err("it exited before it was ready".into()),
    }
}

/// What the broker runs with besides the credentials: the launch environment, and whether its
/// files are the exec-gate service's, to be read by the agent's user (0644; else 0600).
pub(crate) struct Launch {
    pub(crate) env: std::collections::BTreeMap<String, String>,
    pub(crate) shared: bool,
}

/// The broker process: never returns.
pub(crate) fn broker_main(
    ready: OwnedFd,
    session: &session_store::Session,
    dir: &Path,
    found: Found,
    project: Option<PathBuf>,
    cli: Option<(u32, String)>,
    launch: Launch,
) -> ! {
    crate::enter::detach(ready.as_raw_fd());
    let say = |b: &[u8]| {
        // SAFETY: writing from a live buffer.
        unsafe { libc::write(ready.as_raw_fd(), b.as_ptr().cast(), b.len()) };
    };
    let env = |k: &str| launch.env.get(k).cloned();
    let mode = if launch.shared { 0o644 } else { 0o600 };
    let writer = Writer::start(session.clone());
    let sinks = Sinks {
        audit: writer.clone(),
        connects: writer,
    };
    let handle = match config(&env, dir, &found, project)
        .and_then(|c| Broker::start(c, sinks).map_err(|e| primitives::error_text::chain(&e)))
    {
        Ok(h) => h,
        Err(e) => {
            say(format!("E{e}").as_bytes());
            // SAFETY: the process ends here.
            unsafe { libc::_exit(1) }
        }
    };
    write_masks(
        dir,
        &found,
        &handle.placeholder,
        handle.model_token_placeholder.as_deref(),
        mode,
    );
    let pid = std::process::id();
    let me = Running {
        pid,
        start: crate::start_time(pid).unwrap_or_default(),
        port: handle.port,
        placeholder: handle.placeholder.clone(),
        model_key: handle.model_key_placeholder.clone(),
        model_token: handle.model_token_placeholder.clone(),
        dir: dir.to_path_buf(),
    };
    let pid_file = crate::pid_files::write(
        session.dir(),
        &crate::pid_files::Record {
            pid,
            start: me.start.clone(),
            watchdog: None,
        },
    );
    let record = dir.join(RECORD);
    if primitives::atomic::write_atomically(&record, me.record_text().as_bytes(), Some(mode))
        .is_err()
    {
        say(b"Ecannot write its record");
        // SAFETY: the process ends here.
        unsafe { libc::_exit(1) }
    }
    say(b"R");
    drop(ready);
    drop(found);
    while cli
        .as_ref()
        .is_none_or(|(p, s)| crate::pid_files::running(*p, s))
    {
        std::thread::sleep(LIFE_CHECK);
    }
    if crate::broker::running(dir).is_some_and(|r| r.pid == pid) {
        let _ = std::fs::remove_file(&record);
    }
    if let Some(f) = pid_file {
        let _ = std::fs::remove_file(f);
    }
    handle.stop();
    // SAFETY: the process ends here.
    unsafe { libc::_exit(0) }
}

/// The broker's settings from the launch environment and the maintainer's config.
fn config(
    env: &dyn Fn(&str) -> Option<String>,
    dir: &Path,
    found: &Found,
    project: Option<PathBuf>,
) -> Result<Config, String> {
    let session_repo = project
        .and_then(|p| git2::Repository::discover(p).ok())
        .and_then(|r| branch_rules::remote::origin_slug(&r).ok().flatten());
    let mut token = found.token.clone();
    if token.is_empty() && found.keyring {
        token = keyring_token(env).unwrap_or_default();
    }
    let mut c = Config::new(token, session_repo, dir);
    c.placeholder_seed = seed()?;
    c.owner_grant = env("GH_WRITE_GUARD_ALLOW");
    // gh's enterprise host, judged like github.com (with the one token the broker holds: a
    // maintainer with tokens for both has the enterprise one refused upstream; not covered).
    c.enterprise_hosts = env("GH_HOST")
        .map(|h| h.trim().trim_end_matches('.').to_ascii_lowercase())
        .filter(|h| enterprise_host(h))
        .into_iter()
        .collect();
    if let Some(model) = crate::broker::model_credential(env) {
        c.model = model;
    } else if let Some((access, _)) = &found.claude_login {
        // The CLI's own login, when the launch environment names no model credential.
        let mut m = credential_broker::ModelConfig::from_launch_env(env);
        m.auth_token = Some(access.clone());
        if m.credential_endpoint().is_some() {
            c.model = m;
        }
    }
    let loaded = guard_config::load_with(env);
    // The same API base the hooks read the rules from (the override first).
    c.rules_api = env(branch_rules::hosts::API_OVERRIDE_ENV)
        .filter(|v| !v.trim().is_empty())
        .or_else(|| loaded.config.github_api.clone());
    c.guard = loaded.config;
    if let Some(pins) = env(UPSTREAM_ENV) {
        for pin in pins.split(',').filter(|p| !p.trim().is_empty()) {
            let (host, addr) = pin
                .split_once('=')
                .ok_or_else(|| format!("{UPSTREAM_ENV}: `{pin}` is not host=ip:port"))?;
            let addr = addr
                .trim()
                .parse()
                .map_err(|e| format!("{UPSTREAM_ENV}: `{addr}`: {e}"))?;
            c.upstream_addrs.insert(host.trim().to_string(), addr);
        }
    }
    if let Some(ca) = env(UPSTREAM_CA_ENV) {
        let pem = primitives::read::prefix(Path::new(&ca), 1 << 20)
            .ok_or_else(|| format!("{UPSTREAM_CA_ENV}: cannot read {ca}"))?;
        c.upstream_roots_pem
            .push(String::from_utf8_lossy(&pem).into_owned());
    }
    Ok(c)
}

/// How long the broker waits for `gh auth token` (the keyring may ask its daemon).
const KEYRING_BOUND: Duration = Duration::from_secs(3);

/// github.com's token from gh's keyring (`gh auth token`, bounded, its process group killed past
/// the bound), read once when the broker starts, outside the command's namespaces.
pub(crate) fn keyring_token(env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let gh = branch_rules::token::find_program("gh", env("PATH").as_deref())?;
    branch_rules::token::gh_auth_token(&gh, "github.com", KEYRING_BOUND)
        .ok()
        .flatten()
}

/// Whether gh's `GH_HOST` names an enterprise host the session CA can certify: a DNS name that
/// is not github.com's, not an address, not this machine.
fn enterprise_host(h: &str) -> bool {
    !h.is_empty()
        && !crate::credential_files::is_github_host(h)
        && h != "localhost"
        && h.parse::<std::net::IpAddr>().is_err()
        && h.contains('.')
        && h.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
}

/// Random bytes for the placeholder.
fn seed() -> Result<Vec<u8>, String> {
    let mut b = vec![0u8; 32];
    // SAFETY: filling a live buffer.
    let n = unsafe { libc::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
    if n != b.len() as isize {
        return Err(format!("getrandom: {}", std::io::Error::last_os_error()));
    }
    Ok(b)
}

/// The credential files with the placeholder in place of every secret, for the mount namespace:
/// GitHub's secrets by the GitHub placeholder; the CLI's login by the model token's placeholder
/// when the broker holds that login (the command's nested `claude` then works through it), else
/// by one that is no credential anywhere.
fn write_masks(dir: &Path, found: &Found, placeholder: &str, model_token: Option<&str>, mode: u32) {
    for (kind, _, text) in &found.files {
        let masked = match (kind, &found.claude_login) {
            (crate::credential_files::Kind::ClaudeCredentials, Some((access, others))) => {
                let secrets: Vec<String> = std::iter::once(access.clone())
                    .chain(others.iter().cloned())
                    .collect();
                let p = model_token.unwrap_or(crate::broker::FAIL_CLOSED_PLACEHOLDER);
                crate::credential_files::masked(text, &secrets, p)
            }
            _ => crate::credential_files::masked(text, &found.secrets, placeholder),
        };
        let _ = primitives::atomic::write_atomically(
            &dir.join(kind.mask_name()),
            masked.as_bytes(),
            Some(mode),
        );
    }
}

/// The broker's records, written by the supervisors' writer thread
/// ([`crate::supervisor::write_records`]) so a held lock on the audit log never holds a request.
struct Writer {
    tx: Mutex<Sender<Work>>,
}

impl Writer {
    fn start(session: session_store::Session) -> Arc<Writer> {
        let (tx, rx) = std::sync::mpsc::channel::<Work>();
        crate::supervisor::write_records(session, rx);
        Arc::new(Writer { tx: Mutex::new(tx) })
    }

    fn send(&self, w: Work) {
        if let Ok(tx) = self.tx.lock() {
            let _ = tx.send(w);
        }
    }
}

impl AuditSink for Writer {
    fn decision(&self, d: &Decision) {
        let mut v = json!({
            "binary": "credential-broker", "time": primitives::time::now_rfc3339(),
            "requirement": "C11",
            "decision": match d.outcome {
                Outcome::Allowed => Logged::Allow,
                Outcome::Refused => Logged::Deny,
            }
            .as_str(),
        });
        if let (Some(o), Ok(Value::Object(fields))) = (v.as_object_mut(), serde_json::to_value(d)) {
            for (k, val) in fields {
                o.entry(k).or_insert(val);
            }
        }
        self.send(Work::Audit(v));
    }
}

impl ConnectSink for Writer {
    fn connect(&self, c: &Connect) {
        let time = primitives::time::now_rfc3339();
        let program = match &c.peer {
            Some(p) => format!(
                "{} (pid {})",
                p.exe.as_deref().unwrap_or("a program"),
                p.pid
            ),
            None => "a program".into(),
        };
        self.send(Work::Audit(json!({
            "binary": "credential-broker", "layer": "network", "time": time,
            "requirement": "I1", "code": integrity_signals::face::I1_NETWORK,
            "signal": "network_escape", "taint": "K5", "host": c.host, "port": c.port,
            "opened": c.opened, "peer": c.peer, "decision": Logged::Recorded.as_str(),
        })));
        self.send(Work::Taint(
            taint::TaintSource {
                kind: taint::TaintKind::NetworkCommand,
                tool: "Bash".into(),
                detail: format!(
                    "{program} opened a tunnel to {}:{} through the credential broker",
                    c.host, c.port
                ),
            },
            time,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_enterprise_host_is_a_name_the_session_ca_can_certify() {
        assert!(enterprise_host("ghe.corp.example"));
        for not in [
            "github.com",
            "api.github.com",
            "127.0.0.1",
            "localhost",
            "ghe:8443",
            "",
            "[::1]",
        ] {
            assert!(!enterprise_host(not), "{not}");
        }
    }
}
