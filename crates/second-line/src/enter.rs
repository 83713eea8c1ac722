//! The prefix's side: what `tool-containment` calls for an agent command just before it places
//! the command in its group and execs the shell. It starts the command's supervisor (forked,
//! so it runs outside the mount namespace, the filter and the command's group), enters the
//! mount namespace, installs the filter and hands the listener to the supervisor with
//! SCM_RIGHTS. Each layer the host cannot offer is skipped and named; none fails the command.

use crate::layers::{self, Layer, LayerState};
use crate::protected::ProtectedSet;
use crate::rules_adapter::{GitHubWrites, LaunchContext, ModelLaunches};
use crate::supervisor::{serve, Supervisor, Work};
use crate::watchdog::InFlight;
use crate::{mounts, notify, syscalls};
use nix::sys::socket::{
    recvmsg, sendmsg, socketpair, AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags,
    SockFlag, SockType, UnixAddr,
};
use std::io::{IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::PathBuf;
use std::time::Duration;

/// How long the prefix waits for its supervisor's readiness and acknowledgement.
const HANDSHAKE: Duration = Duration::from_secs(2);

/// What the prefix set up for one command.
#[derive(Debug, Clone)]
pub struct Entered {
    pub layers: Vec<Layer>,
    /// Lines for the command's stderr (a layer that should have worked and did not).
    pub notices: Vec<String>,
    /// Why the command must not run at all (`C10.service`: a system install whose exec-gate
    /// service could not take the command); the prefix says it and exits without the exec.
    pub refused: Option<String>,
}

/// Sets up the second line for the agent command this process is about to exec: both phases
/// at once (for callers that place nothing in between).
pub fn enter_agent_command(env: &dyn Fn(&str) -> Option<String>) -> Entered {
    finish(prepare(env))
}

/// The first phase, done: the supervisor started and (root) the mount namespace entered; the
/// filter is not installed yet.
pub struct Prepared {
    plan: layers::Plan,
    supervisor: Option<OwnedFd>,
    gate: LayerState,
    mount: LayerState,
    notices: Vec<String>,
    /// A non-root user's paths to mount read-only, in the user namespace [`finish`] enters.
    deferred_mounts: Vec<PathBuf>,
    /// The credential files to show with the placeholder (C11), mounted with the others.
    deferred_masks: Vec<(PathBuf, PathBuf)>,
    /// The CLI's `/proc` entries to hide ([`crate::cli_process`]), with the others.
    deferred_hidden: Vec<PathBuf>,
    /// The gate must be the exec-gate service's ([`session_store::service::installed`]): a gate that
    /// fails refuses the command instead of letting it run ungated.
    service_required: bool,
}

/// Phase one, before the prefix places itself in the command's group: the supervisor (forked, so
/// it stays outside the group) and, for root, the mount namespace. The prefix's own set-up
/// (cgroup writes) must come before [`finish`]: once the filter is installed, a supervisor that
/// SessionEnd stopped fails every write-open with ENOSYS, and the ceilings could not be set. A
/// non-root user's user namespace also waits for [`finish`]: the group is entered with the
/// user's credentials as the host sees them, not from inside a namespace.
pub fn prepare(env: &dyn Fn(&str) -> Option<String>) -> Prepared {
    let plan = layers::plan(env);
    let mut notices = Vec::new();
    let cwd = std::env::current_dir().ok();
    let exe = std::env::current_exe().ok();
    let state_dir = session_store::state_dir(env).ok();
    let session_id = env("CLAUDE_CODE_SESSION_ID").filter(|s| !s.is_empty());
    let env =
        crate::protected::with_recorded_project(env, state_dir.as_deref(), session_id.as_deref());
    let protected = ProtectedSet::from_env(&env, exe.as_deref(), cwd.as_deref());

    let mut gate = plan.exec_gate.clone();
    let mut supervisor = None;
    let service_required = gate.active && session_store::service::installed();
    if gate.active {
        let started = if service_required {
            crate::service::connect(&crate::service::Setup::of_prefix(&env, exe, cwd))
        } else {
            spawn_supervisor(&protected, state_dir.clone(), session_id.clone())
        };
        match started {
            Ok(sock) => supervisor = Some(sock),
            Err(e) => {
                gate = LayerState::off(format!("the supervisor did not start: {e}"));
                notices.push(notice("exec gate", &e));
            }
        }
    }

    // C11 after the supervisor: it judges with the launch environment, the command gets the
    // broker's.
    let session = state_dir
        .as_deref()
        .zip(session_id.as_deref())
        .map(|(d, id)| session_store::Session::new(d, Some(id)));
    let broker = crate::broker::for_command(&env, session.as_ref());
    let masks = crate::broker::masks(&broker, &env);
    for (k, v) in crate::broker::command_env(&broker, &env) {
        // SAFETY: the prefix is single-threaded; it execs the command's shell next.
        match v {
            Some(v) => unsafe { std::env::set_var(k, v) },
            None => unsafe { std::env::remove_var(k) },
        }
    }
    if let crate::broker::ForCommand::Unavailable(why) = &broker {
        notices.push(crate::broker::unavailable_notice(why));
    }

    let mut mount = plan.mount.clone();
    let mut deferred_mounts = Vec::new();
    let mut deferred_masks = Vec::new();
    // Hidden in phase two for every user: the prefix still reads the CLI's `/proc` entries
    // while it places itself in the command's group (its group is named by the CLI).
    let deferred_hidden = crate::cli_process::pid(&env)
        .map(crate::cli_process::proc_entries)
        .unwrap_or_default();
    if mount.active && plan.user_namespace {
        deferred_mounts = protected.existing_mount_points();
        deferred_masks = masks;
    } else if mount.active {
        let entered = mounts::enter_read_only(
            &protected.existing_mount_points(),
            &masks,
            &[],
            mounts::Owner::Root,
        );
        mount = mounted(entered, mount, &mut notices);
    }

    Prepared {
        plan,
        supervisor,
        gate,
        mount,
        notices,
        deferred_mounts,
        deferred_masks,
        deferred_hidden,
        service_required,
    }
}

/// The mount layer's state after an attempt; each path that failed and a failed namespace named.
fn mounted(
    entered: Result<mounts::Mounted, String>,
    planned: LayerState,
    notices: &mut Vec<String>,
) -> LayerState {
    match entered {
        Ok(m) => {
            for (p, e) in &m.failed {
                notices.push(notice(
                    "read-only protected files",
                    &format!("{}: {e}", p.display()),
                ));
            }
            planned
        }
        Err(e) => {
            notices.push(notice("read-only protected files", &e));
            LayerState::off(e)
        }
    }
}

/// A non-root user's namespace, entered after the prefix's group writes: the user namespace
/// with its mounts; when the kernel refuses it, the plan without it (the gate only under the
/// `no_new_privs` opt-in) and one line naming the switch and the fix.
fn enter_user_namespace(prepared: &mut Prepared) {
    // SAFETY: getuid/getgid cannot fail.
    let owner = unsafe {
        mounts::Owner::User {
            uid: libc::getuid(),
            gid: libc::getgid(),
        }
    };
    match mounts::enter_read_only(
        &prepared.deferred_mounts,
        &prepared.deferred_masks,
        &prepared.deferred_hidden,
        owner,
    ) {
        Ok(m) => {
            let planned = prepared.mount.clone();
            prepared.mount = mounted(Ok(m), planned, &mut prepared.notices);
        }
        Err(e) => {
            let why = crate::user_namespace::why_refused(&crate::user_namespace::Switches::read());
            let plan = layers::without_user_namespace(&prepared.plan, &format!("{e}: {why}"));
            prepared
                .notices
                .push(notice("read-only protected files", &plan.mount.why));
            if prepared.gate.active && !plan.exec_gate.active {
                prepared
                    .notices
                    .push(notice("exec gate", &plan.exec_gate.why));
                prepared.gate = plan.exec_gate.clone();
                // Dropped: the supervisor gets no listener and exits.
                prepared.supervisor = None;
            }
            prepared.mount = plan.mount.clone();
            prepared.plan = plan;
        }
    }
}

/// Phase two, the last step before the exec: the filter installed and its listener handed to
/// the supervisor.
pub fn finish(mut prepared: Prepared) -> Entered {
    // Dumpable again before the user namespace (its maps are written through /proc/self, which
    // a process that is not dumpable does not own) and the filter (the supervisor reads the
    // exec's arguments in this process's memory); the launch credentials are scrubbed by now.
    // SAFETY: plain prctl on this process.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0) };
    let in_user_namespace = prepared.plan.user_namespace && prepared.mount.active;
    if in_user_namespace {
        enter_user_namespace(&mut prepared);
    } else if prepared.mount.active {
        // Root's namespace was entered in phase one.
        let mut hid = mounts::Mounted::default();
        mounts::hide_all(&prepared.deferred_hidden, &mut hid);
        for (p, e) in hid.failed {
            prepared.notices.push(notice(
                "read-only protected files",
                &format!("{}: {e}", p.display()),
            ));
        }
    }
    let Prepared {
        plan,
        supervisor,
        mut gate,
        mount,
        mut notices,
        service_required,
        ..
    } = prepared;
    if let Some(sock) = supervisor {
        // Readiness is awaited after the mounts, which ran while the supervisor started.
        let handed = expect(sock.as_raw_fd(), b'R')
            .map_err(|e| format!("the supervisor did not start: {e}"))
            .and_then(|()| hand_over(&sock, mount.active, plan.needs_no_new_privs));
        if let Err(e) = handed {
            notices.push(notice("exec gate", &e));
            gate = LayerState::off(e);
        }
    }
    let refused = (service_required && !gate.active).then(|| {
        format!(
            "tool-containment: refused ({}): this host has a system install, whose exec-gate service must supervise every agent command, and it could not ({}). Nothing ran; the maintainer starts the service (`agent-guards report` says how).",
            crate::service::C10_SERVICE,
            gate.why
        )
    });
    if plan.user_namespace {
        // After the filter (installing it needs CAP_SYS_ADMIN in the namespace): from here on
        // nothing in the command can remount, unmount or install another namespace's mounts.
        if let Err(e) = crate::user_namespace::drop_capabilities() {
            notices.push(notice("read-only protected files", &e));
        }
    }
    Entered {
        layers: vec![
            Layer {
                name: layers::MOUNT,
                state: mount,
            },
            Layer {
                name: layers::EXEC_GATE,
                state: gate,
            },
        ],
        notices,
        refused,
    }
}

fn notice(layer: &str, why: &str) -> String {
    format!("tool-containment: this command runs without the {layer} layer (C10): {why}")
}

/// Installs the filter and passes its listener to the supervisor.
fn hand_over(sock: &OwnedFd, mount_layer: bool, no_new_privs: bool) -> Result<(), String> {
    if no_new_privs {
        // SAFETY: plain prctl with integer arguments.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(format!("no_new_privs: {}", std::io::Error::last_os_error()));
        }
    }
    // The listener goes out with sendmsg, which the filter notifies (issue 41 item 4): sent
    // from this thread, it would wait for the supervisor that has not got the listener yet.
    // A thread started before the filter (installed on this thread only) sends it instead.
    let (tx, rx) = std::sync::mpsc::channel::<RawFd>();
    let raw_sock = sock.as_raw_fd();
    let sender = std::thread::Builder::new()
        .spawn(move || match rx.recv() {
            Ok(fd) => send_fd(raw_sock, fd, mount_layer),
            Err(_) => Err("no listener to pass".into()),
        })
        .map_err(|e| format!("a thread to pass the listener: {e}"))?;
    let listener = notify::install(&syscalls::filter()).map_err(|e| format!("seccomp filter: {e}"));
    let _ = tx.send(listener.as_ref().map_or(-1, |l| l.as_raw_fd()));
    drop(tx);
    let sent = sender.join();
    let listener = listener?;
    sent.map_err(|_| "the thread passing the listener failed".to_string())?
        .map_err(|e| format!("passing the listener (execs now fail closed): {e}"))?;
    drop(listener);
    // No acknowledgement is awaited: the listener in flight keeps the filter answered once the
    // supervisor reads it, and if the supervisor died first the kernel fails execs (ENOSYS).
    Ok(())
}

/// Waits (bounded) for one byte from the other end.
fn expect(fd: RawFd, want: u8) -> Result<(), String> {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    let r = unsafe { libc::poll(&mut p, 1, HANDSHAKE.as_millis() as i32) };
    if r <= 0 {
        return Err("no answer".into());
    }
    let mut b = [0u8; 1];
    // SAFETY: reading into a 1-byte buffer.
    let n = unsafe { libc::read(fd, b.as_mut_ptr().cast(), 1) };
    match (n, b[0]) {
        (1, x) if x == want => Ok(()),
        _ => Err("the supervisor exited".into()),
    }
}

fn spawn_supervisor(
    protected: &ProtectedSet,
    state_dir: Option<PathBuf>,
    session_id: Option<String>,
) -> Result<OwnedFd, String> {
    let (ours, theirs) = socketpair(
        AddressFamily::Unix,
        SockType::SeqPacket,
        None,
        SockFlag::SOCK_CLOEXEC,
    )
    .map_err(|e| format!("socketpair: {e}"))?;
    // The prefix execs the command's shell: its pid is the command's.
    let prefix = std::process::id();
    // SAFETY: the prefix is single-threaded; the child only forks again or exits.
    match unsafe { libc::fork() } {
        -1 => Err(format!("fork: {}", std::io::Error::last_os_error())),
        0 => {
            drop(ours);
            // SAFETY: as above; the grandchild becomes the supervisor, nobody's child in the
            // command's tree (it is reparented away).
            if unsafe { libc::fork() } == 0 {
                supervisor_main(
                    theirs,
                    protected.clone(),
                    state_dir,
                    session_id,
                    prefix,
                    Launch::default(),
                );
            }
            // SAFETY: leaving the intermediate child without running destructors.
            unsafe { libc::_exit(0) }
        }
        child => {
            drop(theirs);
            let mut status = 0;
            // SAFETY: reaping our own child.
            unsafe { libc::waitpid(child, &mut status, 0) };
            Ok(ours)
        }
    }
}

/// Sends the listener (and whether the mount layer is on) over `sock`.
fn send_fd(sock: RawFd, fd: RawFd, mount_layer: bool) -> Result<(), String> {
    sendmsg::<UnixAddr>(
        sock,
        &[IoSlice::new(&[b'F', mount_layer as u8])],
        &[ControlMessage::ScmRights(&[fd])],
        MsgFlags::empty(),
        None,
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// Where a supervisor's judges read the launch environment and the user's own state.
#[derive(Default, Clone)]
pub(crate) struct Launch {
    /// The launch environment (`None`: this process's, inherited from the prefix).
    pub(crate) env: Option<std::collections::BTreeMap<String, String>>,
    /// The user's state dir when the supervisor keeps its records elsewhere (the service).
    pub(crate) user_state: Option<PathBuf>,
}

/// Detaches from the command (own session, no inherited descriptors, so the CLI never waits on
/// us for the command's output), starts the watchdog and serves the listener it is handed.
pub(crate) fn supervisor_main(
    sock: OwnedFd,
    protected: ProtectedSet,
    state_dir: Option<PathBuf>,
    session_id: Option<String>,
    command: u32,
    launch: Launch,
) -> ! {
    detach(sock.as_raw_fd());
    // Every exec of the command waits on us: ahead of the command in the run queue (root only;
    // best effort). −20 rather than −10: a judged exec added ~20–40 µs less (BENCHMARKS.md,
    // second-line, session 8); the supervisor sleeps between notifications.
    // SAFETY: plain setpriority on this process.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, -20) };
    let session = state_dir
        .as_deref()
        .map(|s| session_store::Session::new(s, session_id.as_deref()));
    let pid = std::process::id();
    let mut record = crate::pid_files::Record {
        pid,
        start: crate::start_time(pid).unwrap_or_default(),
        watchdog: None,
    };
    let cx = Serving {
        protected,
        state_dir,
        session_id,
        command,
        launch,
        pid_file: session
            .as_ref()
            .map(|s| s.dir().join(crate::PID_DIR).join(pid.to_string())),
    };
    // Forked before the readiness byte: the prefix is busy with the mounts meanwhile.
    let in_flight = InFlight::new().ok();
    let link = in_flight
        .as_ref()
        .and_then(|f| start_watchdog(&sock, &cx, f));
    if let Some((_, wpid)) = &link {
        record.watchdog = crate::start_time(*wpid).map(|t| (*wpid, t));
    }
    let send = |b: u8| {
        // SAFETY: writing one byte from a live buffer.
        unsafe { libc::write(sock.as_raw_fd(), [b].as_ptr().cast(), 1) }
    };
    send(b'R');
    if let Some(s) = &session {
        crate::pid_files::write(s.dir(), &record);
    }
    let watchdog = link.as_ref().map(|(_, w)| *w);
    // Made while the prefix installs the filter: the listener arrives to a warm supervisor.
    let ready = cx.ready(false, in_flight.as_ref());
    let Ok((listener, mount_layer)) = receive_fd(sock.as_raw_fd(), Some(HANDSHAKE)) else {
        drop(ready);
        stop_watchdog(watchdog);
        exit_supervisor(cx.pid_file)
    };
    drop(sock);
    if let Some((link, _)) = &link {
        let _ = send_fd(link.as_raw_fd(), listener.as_raw_fd(), mount_layer);
    }
    if cx.serve_ready(ready, &listener, mount_layer) {
        // The tree is gone: the watchdog has nothing to stand in for. Reaped before the record
        // goes, so SessionEnd never finds it running without one.
        stop_watchdog(watchdog);
    }
    exit_supervisor(cx.pid_file)
}

/// What a supervisor (or the watchdog standing in for it) serves with.
struct Serving {
    protected: ProtectedSet,
    state_dir: Option<PathBuf>,
    session_id: Option<String>,
    /// The command's own process (its shell), whose stderr the CLI reads.
    command: u32,
    launch: Launch,
    /// The supervisor's record in the session (removed when serving ends).
    pid_file: Option<PathBuf>,
}

/// A supervisor built and warmed before its listener arrives (the audit writer running, the
/// judges and the launch context made, the judged programs on `PATH` found): the command's first
/// exec is answered without that work on its path (C8).
struct Ready<'f> {
    sup: Supervisor<'f>,
    tx: std::sync::mpsc::Sender<Work>,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl Serving {
    /// Serves the listener until the tree is gone (`true`) or the listener fails, with the audit
    /// writer thread alongside.
    /// `stand_in`: the watchdog serving after the supervisor died (every exec fails closed).
    fn serve(
        &self,
        listener: &OwnedFd,
        mount_layer: bool,
        stand_in: bool,
        in_flight: Option<&InFlight>,
    ) -> bool {
        self.serve_ready(self.ready(stand_in, in_flight), listener, mount_layer)
    }

    /// Everything serving needs that does not wait for the listener.
    fn ready<'f>(&self, stand_in: bool, in_flight: Option<&'f InFlight>) -> Ready<'f> {
        let session = self
            .state_dir
            .as_deref()
            .map(|s| session_store::Session::new(s, self.session_id.as_deref()));
        let (tx, rx) = std::sync::mpsc::channel::<Work>();
        let writer = session.map(|s| crate::supervisor::write_records(s, rx));
        let env = self.launch.env.clone().unwrap_or_else(|| {
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect()
        });
        let launch = LaunchContext::new(env, self.state_dir.clone(), self.session_id.clone())
            .with_user_state(self.launch.user_state.clone());
        let sup = Supervisor {
            judges: vec![
                Box::new(GitHubWrites::new(launch.clone())),
                Box::new(ModelLaunches {
                    launch: launch.clone(),
                }),
            ],
            protected: self.protected.clone(),
            mount_layer: false,
            audit: writer.as_ref().map(|_| tx.clone()),
            network: std::sync::OnceLock::new(),
            launch,
            stand_in,
            known: Default::default(),
            command: self.command,
            told_command: Default::default(),
            resolvers: Default::default(),
            tainted_here: Default::default(),
            in_flight,
        };
        sup.warm();
        Ready { sup, tx, writer }
    }

    /// Serves `listener` with a supervisor made [`Serving::ready`].
    fn serve_ready(&self, ready: Ready<'_>, listener: &OwnedFd, mount_layer: bool) -> bool {
        let Ready {
            mut sup,
            tx,
            writer,
        } = ready;
        sup.mount_layer = mount_layer;
        crate::notify::sync_wake_up(listener.as_raw_fd());
        let hung_up = serve(listener.as_raw_fd(), &sup);
        drop(sup);
        drop(tx);
        if let Some(w) = writer {
            let _ = w.join();
        }
        hung_up
    }
}

/// Forks the watchdog; returns the supervisor's end of the link and the watchdog's pid.
fn start_watchdog(sock: &OwnedFd, cx: &Serving, in_flight: &InFlight) -> Option<(OwnedFd, u32)> {
    let (ours, theirs) = socketpair(
        AddressFamily::Unix,
        SockType::SeqPacket,
        None,
        SockFlag::SOCK_CLOEXEC,
    )
    .ok()?;
    // SAFETY: the supervisor is single-threaded here (the writer thread starts later).
    match unsafe { libc::fork() } {
        -1 => None,
        0 => {
            // The prefix's socket and our end of the link belong to the supervisor: holding
            // them would hide its death from the prefix and from us.
            // SAFETY: closing descriptors this process does not use.
            unsafe {
                libc::close(sock.as_raw_fd());
                libc::close(ours.as_raw_fd());
            }
            std::mem::forget(ours);
            // SAFETY: getppid has no preconditions; our parent is the supervisor that forked us.
            let supervisor = unsafe { libc::getppid() } as u32;
            if let Some((listener, mount_layer)) =
                crate::watchdog::wait_for_takeover(&theirs, in_flight, supervisor)
            {
                crate::watchdog::answer_orphans(listener.as_raw_fd(), in_flight);
                let _ = cx.serve(&listener, mount_layer, true, Some(in_flight));
                // It stood in for a supervisor that is gone: the record is ours to remove.
                exit_supervisor(cx.pid_file.clone())
            }
            // Nothing to stand in for (the tree is gone, the supervisor may still be finishing
            // its last records): the supervisor's record is its own to remove. Removing it here
            // hid a live supervisor from SessionEnd's stop.
            exit_supervisor(None)
        }
        child => Some((ours, child as u32)),
    }
}

/// Ends the supervisor's watchdog (its child) and reaps it.
fn stop_watchdog(watchdog: Option<u32>) {
    if let Some(w) = watchdog {
        // SAFETY: signalling and reaping our own child.
        unsafe {
            libc::kill(w as i32, libc::SIGKILL);
            libc::waitpid(w as i32, std::ptr::null_mut(), 0);
        }
    }
}

fn exit_supervisor(pid_file: Option<PathBuf>) -> ! {
    if let Some(f) = pid_file {
        let _ = std::fs::remove_file(f);
    }
    // SAFETY: the supervisor process ends here.
    unsafe { libc::_exit(0) }
}

/// Overwrites the token variables' values where `/proc/<pid>/environ` shows them (the original
/// strings, inherited from the prefix): the values are read first (into the config), and a
/// reader with root's rights gets `x`s there instead (the process is not dumpable, so other
/// users, the agent's included, cannot read that file at all). The supervisors and the broker
/// keep the launch environment (their judges read the rules with the real token).
fn scrub_environment() {
    extern "C" {
        static mut environ: *mut *mut libc::c_char;
    }
    let secrets: Vec<(String, String)> = crate::credential_files::TOKEN_VARS
        .iter()
        .chain(crate::credential_files::MODEL_VARS.iter())
        .filter_map(|v| Some((v.to_string(), std::env::var(v).ok()?)))
        .collect();
    // SAFETY: single-threaded here; walking the NULL-terminated array libc keeps and writing
    // only within each string's own bytes (up to its NUL).
    unsafe {
        let mut p = environ;
        while !p.is_null() && !(*p).is_null() {
            let entry = std::ffi::CStr::from_ptr(*p).to_bytes();
            if let Some(eq) = entry.iter().position(|b| *b == b'=') {
                let name = &entry[..eq];
                if secrets.iter().any(|(k, _)| k.as_bytes() == name) {
                    let len = entry.len();
                    std::ptr::write_bytes((*p).add(eq + 1), b'x', len - eq - 1);
                }
            }
            p = p.add(1);
        }
    }
    // The config is made from these (read again below through `std::env`).
    for (k, v) in secrets {
        // SAFETY: single-threaded here.
        unsafe { std::env::set_var(k, v) };
    }
}

/// The prefix's first step for an agent command: not dumpable (a process of the same user can no
/// longer read its environment or memory in `/proc` while it still holds the launch
/// credentials) and the token variables scrubbed where `/proc` shows them. [`finish`] makes it
/// dumpable again, once the command's environment holds placeholders.
pub fn hide_launch_credentials() {
    // SAFETY: plain prctl on this process.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
    scrub_environment();
}

/// New session, default signal dispositions (SIGPIPE ignored), every inherited descriptor but
/// `keep` closed, stdio on /dev/null, the token variables scrubbed where `/proc` shows them.
pub(crate) fn detach(keep: RawFd) {
    scrub_environment();
    // SAFETY: plain libc calls on our own process.
    unsafe {
        // Not dumpable: a process of the same (non-root) user can no longer ptrace us, read our
        // memory or take our listener with pidfd_getfd and answer "continue" for us (issue 41).
        // The watchdog, forked later, inherits it.
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        libc::setsid();
        for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
            libc::signal(s, libc::SIG_DFL);
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
    let open: Vec<RawFd> = std::fs::read_dir("/proc/self/fd")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    for fd in open {
        if fd > 2 && fd != keep {
            // SAFETY: closing descriptors this process inherited and does not use.
            unsafe { libc::close(fd) };
        }
    }
    // SAFETY: /dev/null onto 0, 1, 2.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            for t in 0..3 {
                libc::dup2(null, t);
            }
            if null > 2 {
                libc::close(null);
            }
        }
        let _ = libc::chdir(c"/".as_ptr());
    }
}

/// Receives a listener (and the mount flag) sent with [`send_fd`]; waits up to `timeout` (no
/// bound: `None`).
pub(crate) fn receive_fd(
    sock: RawFd,
    timeout: Option<Duration>,
) -> Result<(OwnedFd, bool), String> {
    let mut p = libc::pollfd {
        fd: sock,
        events: libc::POLLIN,
        revents: 0,
    };
    let wait = timeout.map_or(-1, |t| t.as_millis() as i32);
    // SAFETY: one valid pollfd. The prefix sends right after our readiness byte.
    if unsafe { libc::poll(&mut p, 1, wait) } <= 0 {
        return Err("no listener".into());
    }
    let mut buf = [0u8; 2];
    let mut iov = [IoSliceMut::new(&mut buf)];
    let mut space = nix::cmsg_space!([RawFd; 1]);
    let msg = recvmsg::<UnixAddr>(sock, &mut iov, Some(&mut space), MsgFlags::MSG_CMSG_CLOEXEC)
        .map_err(|e| e.to_string())?;
    let mut fd = None;
    for c in msg.cmsgs().map_err(|e| e.to_string())? {
        if let ControlMessageOwned::ScmRights(fds) = c {
            // SAFETY: the kernel installed these descriptors for us.
            fd = fds.first().map(|f| unsafe { OwnedFd::from_raw_fd(*f) });
        }
    }
    let mount = buf[1] == 1;
    match (buf[0], fd) {
        (b'F', Some(fd)) => Ok((fd, mount)),
        _ => Err("malformed hand-over".into()),
    }
}
