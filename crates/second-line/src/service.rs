//! The exec-gate service of a system install (issue 40 item 2): the supervisors that answer an
//! agent command's execs and protected writes run as the suite's own user, so the agent's user
//! can neither signal, trace nor read them, nor take their listener with `pidfd_getfd`.
//!
//! Per-user installs fork the supervisor from the prefix ([`crate::enter`]): it is a process of
//! the agent's own user, and an agent command can stop it (SIGSTOP) or copy its descriptor and
//! answer "continue" itself. Here the prefix connects to [`SOCKET`] instead and sends what the
//! supervisor needs ([`Setup`]); the service forks one supervisor per connection, which then
//! speaks the same hand-over as a forked one (readiness byte, the listener with SCM_RIGHTS).
//!
//! The service starts as root (or from systemd as [`USER`] with the capabilities below), makes
//! its socket and state folder, and drops to [`USER`] keeping only what judging another user's
//! processes needs: `CAP_SYS_PTRACE` (their memory, cwd and descriptors in `/proc`),
//! `CAP_DAC_READ_SEARCH` (their repositories and config, in folders only they may read) and
//! `CAP_SYS_NICE` (ahead of the command in the run queue). Its records go to
//! [`session_store::service::state_dir`] for the connecting user (the kernel says who,
//! `SO_PEERCRED`), which the agent's user can read but not change.
//!
//! A host with a system install ([`session_store::service::installed`]) never falls back to a supervisor of the agent's
//! own user: when the service cannot be reached the command is refused ([`C10_SERVICE`]).

use nix::sys::socket::{
    accept4, bind, getsockopt, listen, socket, sockopt, AddressFamily, Backlog, MsgFlags, SockFlag,
    SockType, UnixAddr,
};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::codes::C10_SERVICE;

pub use session_store::service::{KEPT_CAPABILITIES, SOCKET, USER};

/// The most a [`Setup`] message may hold (an environment is a few KiB; more is refused).
const MAX_SETUP: usize = 192 * 1024;

/// How long a new connection may take to send its request.
const SETUP_BOUND: Duration = Duration::from_secs(2);

/// What the prefix sends the service for one agent command: the launch environment (the judges
/// read the rules with it), the prefix's binary and cwd (the protected set is made from them as
/// the prefix would make it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    pub env: BTreeMap<String, String>,
    pub exe: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
}

impl Setup {
    /// What the exec-gate service needs for this command: the launch environment (with the
    /// recorded project folder and the home folder as the prefix finds them: the service's own
    /// would be its user's), the prefix's binary and cwd.
    pub fn of_prefix(
        env: &dyn Fn(&str) -> Option<String>,
        exe: Option<PathBuf>,
        cwd: Option<PathBuf>,
    ) -> Setup {
        let mut vars: std::collections::BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        for k in ["CLAUDE_PROJECT_DIR", "HOME"] {
            let found = match k {
                "HOME" => primitives::home::home(env).and_then(|h| h.to_str().map(String::from)),
                _ => env(k),
            };
            if let Some(v) = found {
                vars.entry(k.to_string()).or_insert(v);
            }
        }
        crate::service::Setup {
            env: vars,
            exe,
            cwd,
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        json!({
            "env": self.env,
            "exe": self.exe.as_ref().and_then(|p| p.to_str()),
            "cwd": self.cwd.as_ref().and_then(|p| p.to_str()),
        })
        .to_string()
        .into_bytes()
    }

    fn from_bytes(bytes: &[u8]) -> Result<Setup, String> {
        let v: Value =
            serde_json::from_slice(bytes).map_err(|e| format!("a malformed set-up: {e}"))?;
        let env = match v.get("env") {
            Some(Value::Object(m)) => strings(m),
            _ => return Err("a set-up without an environment".into()),
        };
        let path = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        Ok(Setup {
            env,
            exe: path("exe"),
            cwd: path("cwd"),
        })
    }
}

fn strings(m: &Map<String, Value>) -> BTreeMap<String, String> {
    m.iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect()
}

/// The prefix's side: connects to the service and sends `setup`; the socket then carries the
/// same hand-over as a forked supervisor's ([`crate::enter`]). Never waits: a full backlog or a
/// missing service is an error at once.
pub fn connect_at(socket_path: &Path, setup: &Setup) -> Result<OwnedFd, String> {
    let sock = socket(
        AddressFamily::Unix,
        SockType::SeqPacket,
        SockFlag::SOCK_CLOEXEC | SockFlag::SOCK_NONBLOCK,
        None,
    )
    .map_err(|e| format!("socket: {e}"))?;
    let addr = UnixAddr::new(socket_path).map_err(|e| format!("{}: {e}", socket_path.display()))?;
    nix::sys::socket::connect(sock.as_raw_fd(), &addr).map_err(|e| {
        format!(
            "the exec-gate service at {} does not answer ({e})",
            socket_path.display()
        )
    })?;
    let body = setup.to_bytes();
    if body.len() > MAX_SETUP {
        return Err(format!(
            "the command's environment is too large to hand to the exec-gate service ({} bytes, at most {MAX_SETUP})",
            body.len()
        ));
    }
    nix::sys::socket::send(sock.as_raw_fd(), &body, MsgFlags::MSG_DONTWAIT)
        .map_err(|e| format!("sending the set-up to the exec-gate service: {e}"))?;
    set_blocking(sock.as_raw_fd());
    Ok(sock)
}

/// [`connect_at`] the service's [`SOCKET`].
pub fn connect(setup: &Setup) -> Result<OwnedFd, String> {
    connect_at(Path::new(SOCKET), setup)
}

fn set_blocking(fd: RawFd) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
}

/// A binary's `--exec-gate-service`: [`run`] at [`SOCKET`]; the reason it stopped on stderr,
/// named by `program`; the exit code.
pub fn serve_until_failure(program: &str) -> i32 {
    let why = run(Path::new(SOCKET));
    eprintln!("{program} --exec-gate-service: {why}");
    1
}

/// Runs the service: `socket_path` bound (or the socket systemd passed), the service user taken,
/// one supervisor forked per connection. Returns only on a set-up failure, with its reason.
pub fn run(socket_path: &Path) -> String {
    // SAFETY: umask on our own process: the records are readable by the user they are about.
    unsafe { libc::umask(0o022) };
    let Some(account) = primitives::users::account(USER) else {
        return format!(
            "there is no `{USER}` account: create it with `useradd --system --no-create-home --shell /usr/sbin/nologin {USER}` (`agent-guards install --system` does)"
        );
    };
    let euid = primitives::users::effective_uid();
    if euid != 0 && euid != account.uid {
        return format!("the exec-gate service runs as root (it drops to `{USER}`) or as `{USER}`");
    }
    let listener = match passed_socket() {
        Some(fd) => fd,
        None => match bind_socket(socket_path) {
            Ok(fd) => fd,
            Err(e) => return e,
        },
    };
    if let Err(e) = make_state_dir(account, euid == 0) {
        return e;
    }
    if euid == 0 {
        if let Err(e) = drop_to(account) {
            return e;
        }
    }
    // Children are reaped by the kernel: the service never waits on a supervisor.
    // SAFETY: plain signal disposition.
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
    loop {
        let conn = match accept4(&listener, SockFlag::SOCK_CLOEXEC) {
            Ok(fd) => fd,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return format!("accept: {e}"),
        };
        // SAFETY: the service is single-threaded; the child serves one connection and exits.
        match unsafe { libc::fork() } {
            0 => {
                drop(listener);
                serve_connection(conn)
            }
            _ => drop(conn),
        }
    }
}

/// The listening socket systemd passed (socket activation: `LISTEN_FDS=1` for this pid, fd 3).
fn passed_socket() -> Option<OwnedFd> {
    let pid = std::env::var("LISTEN_PID").ok()?.parse::<u32>().ok()?;
    let count = std::env::var("LISTEN_FDS").ok()?.parse::<u32>().ok()?;
    (pid == std::process::id() && count == 1).then(|| {
        // SAFETY: systemd hands the listening socket over as descriptor 3.
        unsafe { OwnedFd::from_raw_fd(3) }
    })
}

/// Binds `path` (its folder made root's, 0755; the socket open to every local user, who may
/// only ask to be supervised).
fn bind_socket(path: &Path) -> Result<OwnedFd, String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
    }
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("{}: {e}", path.display())),
    }
    let sock = socket(
        AddressFamily::Unix,
        SockType::SeqPacket,
        SockFlag::SOCK_CLOEXEC,
        None,
    )
    .map_err(|e| format!("socket: {e}"))?;
    let addr = UnixAddr::new(path).map_err(|e| format!("{}: {e}", path.display()))?;
    bind(sock.as_raw_fd(), &addr).map_err(|e| format!("bind {}: {e}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    listen(&sock, Backlog::new(128).unwrap_or(Backlog::MAXCONN))
        .map_err(|e| format!("listen: {e}"))?;
    Ok(sock)
}

/// The service's state folder, the service user's (`users/` lists no one's sessions to others);
/// `as_root`: made and given to the account (systemd's `StateDirectory` made it otherwise).
fn make_state_dir(account: primitives::users::Account, as_root: bool) -> Result<(), String> {
    let root = Path::new(session_store::service::STATE_DIR);
    let users = root.join("users");
    for (dir, mode) in [(root, 0o755), (users.as_path(), 0o711)] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        if as_root {
            std::os::unix::fs::chown(dir, Some(account.uid), Some(account.gid))
                .map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Ok(())
}

/// From root to `account`, keeping [`KEPT_CAPABILITIES`] (permitted and effective) and nothing
/// else, the bounding set included.
fn drop_to(account: primitives::users::Account) -> Result<(), String> {
    let err = |what: &str| format!("{what}: {}", std::io::Error::last_os_error());
    let kept: u32 = KEPT_CAPABILITIES.iter().map(|(c, _)| 1u32 << c).sum();
    // SAFETY: credential system calls with integer arguments on our own process, and capset
    // with live, correctly sized structs.
    unsafe {
        if libc::setgroups(0, std::ptr::null()) != 0 {
            return Err(err("setgroups"));
        }
        if libc::setresgid(account.gid, account.gid, account.gid) != 0 {
            return Err(err("setresgid"));
        }
        if libc::prctl(libc::PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 {
            return Err(err("keepcaps"));
        }
        if libc::setresuid(account.uid, account.uid, account.uid) != 0 {
            return Err(err("setresuid"));
        }
        let mut cap = 0;
        while libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) >= 0 {
            if cap >= 32 || kept & (1 << cap) == 0 {
                libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
            }
            cap += 1;
        }
        crate::user_namespace::set_capabilities(kept).map_err(|e| format!("capset: {e}"))?;
    }
    Ok(())
}

/// One connection, in its own process: who connected (the kernel's word), the set-up read
/// within [`SETUP_BOUND`], then the supervisor's life. Never returns.
fn serve_connection(conn: OwnedFd) -> ! {
    // SAFETY: the supervisor reaps its own watchdog.
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_DFL) };
    let Ok(peer) = getsockopt(&conn, sockopt::PeerCredentials) else {
        // SAFETY: leaving the connection's process.
        unsafe { libc::_exit(1) }
    };
    let request = read_request(conn.as_raw_fd());
    let state_dir = session_store::service::state_dir(peer.uid());
    if std::fs::create_dir_all(&state_dir).is_ok() {
        let _ = std::fs::set_permissions(&state_dir, std::fs::Permissions::from_mode(0o711));
    }
    match request {
        Ok(Request::Supervise(setup)) => supervise(conn, setup, state_dir, peer.pid() as u32),
        Ok(Request::Broker(b)) => run_broker(conn, b, state_dir, peer.pid() as u32),
        Ok(Request::Taint(t)) => {
            // Only ever adds taint, and only to the connecting user's own sessions.
            if taint::record_relayed(&state_dir, &t).is_ok() {
                let ack = [session_store::service::ACK];
                let _ = nix::sys::socket::send(conn.as_raw_fd(), &ack, MsgFlags::MSG_DONTWAIT);
            }
            // SAFETY: leaving the connection's process.
            unsafe { libc::_exit(0) }
        }
        // SAFETY: as above; the prefix sees the connection close and fails the command closed.
        Err(_) => unsafe { libc::_exit(1) },
    }
}

/// One connection's supervisor: made from the prefix's [`Setup`] as the prefix would make it,
/// its records in the service's `state_dir` for the connecting user (read with the user's own,
/// for taint).
fn supervise(sock: OwnedFd, setup: Setup, state_dir: PathBuf, command: u32) -> ! {
    let lookup = |k: &str| setup.env.get(k).cloned();
    let protected = crate::protected::ProtectedSet::from_env(
        &lookup,
        setup.exe.as_deref(),
        setup.cwd.as_deref(),
    );
    let session_id = lookup("CLAUDE_CODE_SESSION_ID").filter(|s| !s.is_empty());
    let launch = crate::enter::Launch {
        env: Some(setup.env.clone()),
        user_state: session_store::state_dir(&lookup).ok(),
    };
    crate::enter::supervisor_main(
        sock,
        protected,
        Some(state_dir),
        session_id,
        command,
        launch,
    )
}

/// What a connection asks for.
enum Request {
    /// Supervise an agent command (the prefix).
    Supervise(Setup),
    /// Keep a taint a hook recorded (`taint::record`'s relay).
    Taint(Value),
    /// Run the session's credential broker ([`start_broker`]).
    Broker(Value),
}

/// The prefix's side of the session's broker under a system install: asks the service to run
/// it (as the service's user, in its records of this session) and waits, at most `bound`, for
/// it to be ready. A token gh keeps in the keyring is asked here, as the user (the keyring's
/// bus answers its own user only), and handed over with the request.
pub fn start_broker(
    env: &dyn Fn(&str) -> Option<String>,
    found: &crate::broker::Found,
    project: Option<&Path>,
    bound: Duration,
) -> Result<(), String> {
    let keyring = (found.keyring && found.token.is_empty())
        .then(|| crate::broker_process::keyring_token(env))
        .flatten();
    let request = json!({"broker": {
        "env": Setup::of_prefix(env, None, None).env,
        "project": project.and_then(Path::to_str),
        "keyring_token": keyring,
    }});
    let answer =
        session_store::service::ask(Path::new(SOCKET), request.to_string().as_bytes(), bound)?;
    match answer.split_first() {
        Some((b'R', _)) => Ok(()),
        Some((b'E', why)) => Err(String::from_utf8_lossy(why).into_owned()),
        _ => Err("the exec-gate service's broker did not start".into()),
    }
}

/// The service's side of [`start_broker`]: the broker for the connecting user's session (its
/// folder the service's, its files readable by the user), unless one runs; says `R` when ready.
fn run_broker(conn: OwnedFd, request: Value, state_dir: PathBuf, peer: u32) -> ! {
    let say = |b: &[u8]| {
        let _ = nix::sys::socket::send(conn.as_raw_fd(), b, MsgFlags::MSG_DONTWAIT);
    };
    let env = match request.get("env") {
        Some(Value::Object(m)) => strings(m),
        _ => BTreeMap::new(),
    };
    let lookup = |k: &str| env.get(k).cloned();
    let session =
        session_store::Session::new(&state_dir, lookup("CLAUDE_CODE_SESSION_ID").as_deref());
    let dir = session.dir().join(crate::broker::DIR);
    let made = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)));
    let found = crate::broker::discover(&lookup);
    match (made, found, crate::broker::running(&dir)) {
        (_, _, Some(_)) => say(b"R"),
        (Err(e), _, _) => say(format!("E{}: {e}", dir.display()).as_bytes()),
        (_, None, _) => say(b"Eno credential to hold"),
        (Ok(()), Some(mut found), None) => {
            if let Some(t) = request.get("keyring_token").and_then(Value::as_str) {
                if found.token.is_empty() {
                    found.token = t.to_string();
                }
            }
            found.keyring = false;
            // The CLI: `CLAUDE_PID`, else the prefix's parent.
            let cli = lookup("CLAUDE_PID")
                .and_then(|p| p.trim().parse().ok())
                .or_else(|| parent_of(peer))
                .filter(|p| *p > 1)
                .and_then(|p| crate::start_time(p).map(|s| (p, s)));
            let project = request
                .get("project")
                .and_then(Value::as_str)
                .map(PathBuf::from);
            let launch = crate::broker_process::Launch { env, shared: true };
            crate::broker_process::broker_main(conn, &session, &dir, found, project, cli, launch)
        }
    }
    // SAFETY: leaving the connection's process.
    unsafe { libc::_exit(0) }
}

/// The parent of `pid` (field 4 of `/proc/<pid>/stat`).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn read_request(fd: RawFd) -> Result<Request, String> {
    let bytes = read_message(fd)?;
    if let Ok(Value::Object(mut m)) = serde_json::from_slice::<Value>(&bytes) {
        if let Some(t) = m.remove("taint") {
            return Ok(Request::Taint(t));
        }
        if let Some(b) = m.remove("broker") {
            return Ok(Request::Broker(b));
        }
    }
    Setup::from_bytes(&bytes).map(Request::Supervise)
}

fn read_message(fd: RawFd) -> Result<Vec<u8>, String> {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    if unsafe { libc::poll(&mut p, 1, SETUP_BOUND.as_millis() as i32) } <= 0 {
        return Err("no set-up".into());
    }
    let mut buf = vec![0u8; MAX_SETUP + 1];
    let n =
        nix::sys::socket::recv(fd, &mut buf, MsgFlags::MSG_DONTWAIT).map_err(|e| e.to_string())?;
    if n > MAX_SETUP {
        return Err("a request over the bound".into());
    }
    buf.truncate(n);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setup_survives_the_wire_and_garbage_does_not_parse() {
        let s = Setup {
            env: [("HOME".to_string(), "/home/m".to_string())].into(),
            exe: Some("/usr/local/lib/agent-guards/bin/tool-containment".into()),
            cwd: Some("/work/app".into()),
        };
        assert_eq!(Setup::from_bytes(&s.to_bytes()).unwrap(), s);
        assert!(Setup::from_bytes(b"{\"exe\":\"/x\"}").is_err());
        assert!(Setup::from_bytes(b"\xff").is_err());
        let relative = Setup::from_bytes(br#"{"env":{},"exe":"x","cwd":7}"#).unwrap();
        assert_eq!((relative.exe, relative.cwd), (None, None));
    }

    #[test]
    fn no_service_is_an_error_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let e = connect_at(
            &dir.path().join("none.sock"),
            &Setup {
                env: BTreeMap::new(),
                exe: None,
                cwd: None,
            },
        )
        .unwrap_err();
        assert!(e.contains("does not answer"), "{e}");
    }
}
