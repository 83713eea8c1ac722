//! The supervisor: answers every notification of one agent command's process tree for as long
//! as any process of that tree lives (background ones included), then exits. Execs of programs
//! a judge reads are judged on their real argv, cwd and environment; writes to the suite's own
//! files are refused with `EROFS` and reported (I3); everything else continues at once.
//!
//! Every path out of a handler answers: a process that went away needs no answer, anything we
//! could not read about an exec fails that exec closed (`EPERM`) with a line saying why.

use crate::identity;
use crate::judge::{all_allow_from_argv, any_wants, fold, ExecFacts, ExecJudge};
use crate::network::Policy;
use crate::notify::{self, base_dir, lossy, program_of, tell, Answer, Memory};
use crate::protected::ProtectedSet;
use crate::rules_adapter::LaunchContext;
use crate::syscalls::{self, Kind, PathArg, Sys};
use crate::watchdog::{unanswered_reason, InFlight, C10_UNANSWERED};
use serde_json::{json, Value};
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, OnceLock};

use crate::codes::C10_NAMESPACE;
/// The sub-code of an exec the gate could not judge (`spec/second-line.md`).
pub use crate::codes::C10_UNJUDGED;

/// Where a call sends: `connect`, `sendto`, `sendmsg`, `sendmmsg` (K5, I1).
#[path = "destinations.rs"]
mod destinations;

/// A change of mode, owner, times or extended attributes of a protected path (issue 41 item 2).
pub use crate::codes::I3_METADATA;

/// What a refused durable-memory write reached, in the record's words.
const DURABLE_MEMORY: &str = "durable memory in a session whose taint cannot be ruled out";

/// Everything one command's supervisor needs.
pub struct Supervisor<'a> {
    pub judges: Vec<Box<dyn ExecJudge>>,
    pub protected: ProtectedSet,
    /// Whether the command runs with the read-only mounts (otherwise the notifier alone keeps
    /// protected writes out).
    pub mount_layer: bool,
    /// Audit records and taint go to a writer thread so a held lock never delays an answer.
    pub audit: Option<mpsc::Sender<Work>>,
    /// The network policy (`network_allow`, `mode`), read on the first non-local connect.
    pub network: OnceLock<Policy>,
    pub launch: LaunchContext,
    /// The watchdog serving after the supervisor died: every exec fails closed
    /// ([`crate::watchdog`]).
    pub stand_in: bool,
    /// The notification being handled, shared with the watchdog.
    pub in_flight: Option<&'a InFlight>,
    /// The judged programs on the session's `PATH`, by content ([`crate::identity`]).
    pub known: identity::OnceKnown,
    /// The command's own process (its shell, whose stderr the CLI reads).
    pub command: u32,
    /// The lines already written to the command's stderr (each once).
    pub told_command: std::sync::Mutex<std::collections::HashSet<String>>,
    /// The system's name servers (port 53 there is a name lookup), read on first use.
    pub resolvers: OnceLock<Vec<std::net::IpAddr>>,
    /// What this command did that taints the session (a non-local destination recorded), so a
    /// later write to durable memory in the same command is refused before any hook has seen
    /// the taint (K5 with I3; issue 41 item 7).
    pub tainted_here: std::sync::Mutex<Option<String>>,
}

/// What an exec runs, when it is not judged by its own name (see [`crate::identity`]).
enum WhatRuns {
    /// Its name is one a judge reads.
    Named,
    /// A copy (or hard link) of this judged program.
    SameAs(PathBuf),
    /// A script whose `#!` line names a judged program directly.
    Script {
        interp: PathBuf,
        arg: Option<String>,
    },
    /// The dynamic loader: the program it runs comes from the arguments.
    Loader,
    /// A script interpreter (`node`): the script it runs, from the arguments, may be a judged
    /// program's file.
    Interpreter,
}

/// What the writer thread does with the session's store.
pub enum Work {
    Audit(Value),
    Taint(taint::TaintSource, String),
}

/// The writer thread: appends each record to the session's audit log and each taint to its
/// ledger, in order, so a held lock or a slow disk never holds an answer.
pub fn write_records(
    session: session_store::Session,
    rx: mpsc::Receiver<Work>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let log = session.audit();
        let _ = session.ensure();
        for w in rx {
            match w {
                Work::Audit(v) => {
                    let _ = log.append(&v);
                }
                Work::Taint(source, time) => {
                    let _ = taint::record(&session, &source, None, &time);
                }
            }
        }
    })
}

/// What happened to one notification (for tests and counters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handled {
    Continued,
    Refused(String),
    /// The process went away or the call was interrupted before we answered.
    Gone,
}

fn now() -> String {
    session_store::time::now_rfc3339()
}

impl Supervisor<'_> {
    fn record(&self, v: Value) {
        if let Some(tx) = &self.audit {
            let _ = tx.send(Work::Audit(v));
        }
    }

    fn policy(&self) -> &Policy {
        self.network.get_or_init(|| {
            let c = self.launch.config();
            Policy::new(
                c.network_allow.clone(),
                c.integrity_mode.map(guard_config::IntegrityMode::as_str),
            )
        })
    }

    /// Answers one notification.
    pub fn handle(&self, listener: RawFd, n: &libc::seccomp_notif) -> Handled {
        let nr = n.data.nr as i64;
        let Some(sys) = syscalls::lookup(n.data.arch, nr) else {
            return self.answer(listener, n.id, Answer::Continue, Handled::Continued);
        };
        match sys.kind {
            Kind::Exec { .. } => self.on_exec(listener, n, &sys),
            Kind::Write { .. } => self.on_write(listener, n, &sys),
            Kind::Connect { addr, len } => self.on_connect(listener, n, addr, len),
            Kind::Message { msg, count } => self.on_message(listener, n, msg, count),
            Kind::Metadata { .. } => self.on_metadata(listener, n, &sys),
        }
    }

    fn answer(&self, listener: RawFd, id: u64, a: Answer, h: Handled) -> Handled {
        match notify::respond(listener, id, a) {
            Ok(()) => h,
            Err(_) => Handled::Gone,
        }
    }

    /// What a judge reads about an exec; `Ok(None)`: no judge needs more (not a judged program,
    /// a path that does not exist, or a read the arguments already settle).
    fn exec_facts(&self, n: &libc::seccomp_notif, sys: &Sys) -> Result<Option<ExecFacts>, String> {
        let Kind::Exec {
            target,
            argv,
            envp,
            flags,
        } = sys.kind
        else {
            return Ok(None);
        };
        let (pid, args) = (n.pid, n.data.args);
        let size = syscalls::pointer_size(n.data.arch, n.data.nr as i64);
        let mem = Memory::open(pid, size).map_err(|e| format!("its memory: {e}"))?;
        let raw = mem
            .string(args[target.path], notify::MAX_STRING)
            .map_err(|e| format!("the program path: {e}"))?;
        let empty_path = flags.is_some_and(|f| args[f] as i32 & libc::AT_EMPTY_PATH != 0);
        // The cwd is read once: a relative program path and the facts both need it.
        let cwd_read = std::cell::OnceCell::new();
        let cwd = || -> std::io::Result<PathBuf> {
            if let Some(c) = cwd_read.get() {
                return Ok(PathBuf::clone(c));
            }
            let c = base_dir(pid, None)?;
            let _ = cwd_read.set(c.clone());
            Ok(c)
        };
        let start_dir = |dirfd: Option<i32>| match dirfd {
            None | Some(libc::AT_FDCWD) => cwd(),
            Some(_) => base_dir(pid, dirfd),
        };
        let program = resolve(pid, target, &args, &raw, empty_path, &start_dir)
            .map_err(|e| format!("the program's folder: {e}"))?;
        // A program with no name to judge it by: an anonymous file (memfd) or a deleted one,
        // run through a descriptor (issue 41). Refused as unjudged.
        if let Some(what) = anonymous(&program) {
            return Err(format!("the program is {what}, which has no path to judge"));
        }
        // A path that does not exist fails in the kernel (PATH lookups try several). Only
        // the last component names the program: one lstat, and the link followed only
        // when it is one (folders that are links do not change the name).
        let Ok(meta) = std::fs::symlink_metadata(&program) else {
            return Ok(None);
        };
        self.say_setuid_gains_nothing(pid, &program, &meta);
        let by_name = any_wants(&self.judges, base(&program));
        let real = match meta.file_type().is_symlink() && !by_name {
            true => match std::fs::canonicalize(&program) {
                Ok(real) => real,
                Err(_) => return Ok(None),
            },
            false => program.clone(),
        };
        // Not judged by its name: what runs may still be a judged program (issue 41).
        let what_runs = match by_name || any_wants(&self.judges, base(&real)) {
            true => WhatRuns::Named,
            false => match self.what_runs(&real, &meta) {
                Some(w) => w,
                None if identity::runs_scripts(base(&real)) => WhatRuns::Interpreter,
                None => return Ok(None),
            },
        };
        // The two pointer arrays in one read (a judged exec reads both unless its argv
        // settles it). Read with the path's page instead, every exec no rule reads paid
        // more than a judged one saved (supervisor CPU: `/bin/true` 41.6 -> 45.7 µs, a
        // push 139.9 -> 130.6 µs).
        mem.prefetch(&[args[argv], args[envp]]);
        // And the strings of both in one more (the environment's are read unless the
        // arguments settle it: a page or two more in the same call).
        mem.prefetch_strings(&[args[argv], args[envp]]);
        let mut words = Vec::new();
        mem.each_string(args[argv], |s| words.push(lossy(s)))
            .map_err(|e| format!("its arguments: {e}"))?;
        let (real, argv) = match what_runs {
            WhatRuns::Named => (real, words),
            WhatRuns::SameAs(known) => (known, words),
            WhatRuns::Script { interp, arg } => {
                // As the kernel runs it: the interpreter, the line's argument, the path.
                let mut v = vec![interp.to_string_lossy().into_owned()];
                v.extend(arg);
                v.push(lossy(&raw));
                v.extend(words.into_iter().skip(1));
                (interp, v)
            }
            WhatRuns::Interpreter => {
                // `node <script> args`: judged when the script is a judged program's file.
                let Some((script, rest)) = identity::script_operand(base(&real), &words) else {
                    return Ok(None);
                };
                let script =
                    identity::absolute(&script, &cwd().map_err(|e| format!("its cwd: {e}"))?);
                let Some(size) = std::fs::metadata(&script).ok().map(|m| m.len()) else {
                    return Ok(None);
                };
                let Some(known) = self.known().same_as(&script, size) else {
                    return Ok(None);
                };
                let known = known.to_path_buf();
                let mut v = vec![known.to_string_lossy().into_owned()];
                v.extend(rest);
                (known, v)
            }
            WhatRuns::Loader => {
                let Some((loaded, v)) = identity::through_loader(&words) else {
                    return Ok(None);
                };
                let loaded =
                    identity::absolute(&loaded, &cwd().map_err(|e| format!("its cwd: {e}"))?);
                match self.named_or_same(&loaded) {
                    Some(p) => (p, v),
                    None => return Ok(None),
                }
            }
        };
        let by_name = by_name && matches!(real.as_path(), p if p == program);
        let name = if by_name { base(&program) } else { base(&real) };
        // git runs `git-<sub>` as `git <sub>` whatever its file is called (`exec -a git-push
        // git o`, `ld.so --argv0 git-push`): judged as git reads it (issue 41).
        let argv = match name == "git" {
            true => command_effects::argv0::git_argv(argv),
            false => argv,
        };
        // A read (`git status`): no environment, no cwd, no rules.
        if all_allow_from_argv(&self.judges, name, &argv) {
            return Ok(None);
        }
        let mut env = Vec::new();
        mem.each_string(args[envp], |kv| {
            let Some(eq) = kv.iter().position(|b| *b == b'=') else {
                return;
            };
            // Borrowed unless the name is not UTF-8: most names are only looked at
            // (`from_utf8` first: the lossy scan is slower on the common, valid name).
            let name = match std::str::from_utf8(&kv[..eq]) {
                Ok(n) => std::borrow::Cow::Borrowed(n),
                Err(_) => String::from_utf8_lossy(&kv[..eq]),
            };
            if self.judges.iter().any(|j| j.reads_var(&name)) {
                env.push((name.into_owned(), lossy(&kv[eq + 1..])));
            }
        })
        .map_err(|e| format!("its environment: {e}"))?;
        let cwd = cwd().map_err(|e| format!("its cwd: {e}"))?;
        let caller = self
            .judges
            .iter()
            .any(|j| j.wants(name) && j.reads_caller(name, &argv))
            .then(|| caller_program(pid))
            .flatten();
        let program = if by_name { program } else { real };
        Ok(Some(ExecFacts {
            program: program.to_string_lossy().into_owned(),
            argv,
            cwd,
            env,
            caller,
        }))
    }

    /// A set-uid or set-gid program (`sudo`, `su`, `pkexec`) run by a command that is in a user
    /// namespace of its own (a non-root user's, C10.namespace) runs without its privileges:
    /// the kernel maps no root there. The program fails in its own words; this line, once per
    /// program, says why and what keeps it (issue 41). The exec itself is not refused.
    fn say_setuid_gains_nothing(&self, pid: u32, program: &Path, meta: &std::fs::Metadata) {
        use std::os::unix::fs::PermissionsExt;
        let mode = match meta.file_type().is_symlink() {
            true => match std::fs::metadata(program) {
                Ok(m) => m.permissions().mode(),
                Err(_) => return,
            },
            false => meta.permissions().mode(),
        };
        if mode & 0o6000 == 0 {
            return;
        }
        let ns = |p: &str| std::fs::read_link(format!("{p}/ns/user")).ok();
        if ns(&format!("/proc/{pid}")) == ns("/proc/self") {
            return;
        }
        self.tell(
            pid,
            &format!(
                "agent-guards: {} is set-uid or set-gid and runs without its privileges inside \
                 this agent command's user namespace ({C10_NAMESPACE}); the maintainer keeps it \
                 with AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE=off, which also drops the \
                 read-only protected files for a user who is not root",
                base(program)
            ),
        );
    }

    /// Writes a refusal line to the refused process's stderr and, once per line, to the
    /// command's own (issue 41: a process whose stderr is thrown away, `2>/dev/null`, hid why
    /// its exec failed from the agent, who reads the command's output).
    fn tell(&self, pid: u32, line: &str) {
        tell(pid, line);
        if pid == self.command || self.command == 0 {
            return;
        }
        // The same stderr (a pipe both write to): the line is there already.
        let stderr_of = |p: u32| std::fs::read_link(format!("/proc/{p}/fd/2")).ok();
        let theirs = stderr_of(pid);
        if theirs.is_some() && theirs == stderr_of(self.command) {
            return;
        }
        let first = self
            .told_command
            .lock()
            .map(|mut t| t.len() < 64 && t.insert(line.to_string()))
            .unwrap_or(false);
        if first {
            tell(self.command, line);
        }
    }

    /// What runs when `real` (not judged by its name) is exec'd: the dynamic loader, a script
    /// whose `#!` line names a judged program, or a copy of one (issue 41); `None`: nothing any
    /// judge reads.
    fn what_runs(&self, real: &Path, meta: &std::fs::Metadata) -> Option<WhatRuns> {
        if identity::is_loader(base(real)) {
            return Some(WhatRuns::Loader);
        }
        let file_meta = match meta.file_type().is_symlink() {
            true => std::fs::metadata(real).ok()?,
            false => meta.clone(),
        };
        // The same file run again (a build runs the same few programs thousands of times) is
        // not read again while it is unchanged.
        let version = identity::FileVersion::of(&file_meta);
        if self.known.is_plain(&version) {
            return None;
        }
        let found = (|| {
            if let Some(known) = self.known().same_as(real, file_meta.len()) {
                return Some(WhatRuns::SameAs(known.to_path_buf()));
            }
            let (interp, arg) = identity::shebang(&identity::script_head(real)?)?;
            let interp = self.named_or_same(Path::new(&interp))?;
            Some(WhatRuns::Script { interp, arg })
        })();
        if found.is_none() {
            self.known.remember_plain(version);
        }
        found
    }

    /// `path` when a judge reads it by its name, or the judged program its content is.
    fn named_or_same(&self, path: &Path) -> Option<PathBuf> {
        if any_wants(&self.judges, base(path)) {
            return Some(path.to_path_buf());
        }
        let real = std::fs::canonicalize(path).ok()?;
        if any_wants(&self.judges, base(&real)) {
            return Some(real);
        }
        let size = std::fs::metadata(&real).ok()?.len();
        self.known().same_as(&real, size).map(Path::to_path_buf)
    }

    /// The judged programs on the session's `PATH`, found on first use.
    /// Finds the judged programs on the session's `PATH` now (before the first exec needs them).
    pub fn warm(&self) {
        let _ = self.known();
    }

    fn known(&self) -> &identity::Known {
        let path = self.launch.env.get("PATH").map_or("", String::as_str);
        self.known.get(path)
    }

    fn on_exec(&self, listener: RawFd, n: &libc::seccomp_notif, sys: &Sys) -> Handled {
        let pid = n.pid;
        if self.stand_in {
            return self.refuse_unanswered(listener, n, sys);
        }
        let facts = self.exec_facts(n, sys);
        // What was read belongs to this call only while it is pending. An exec let through
        // needs no check first: the answer itself fails for a call that went away (a pending
        // call's thread is alive, so its pid cannot have been reused for what was read). A
        // refusal is checked first: its line and record must be about a call that exists.
        let facts = match facts {
            Ok(None) => return self.answer(listener, n.id, Answer::Continue, Handled::Continued),
            Ok(Some(f)) => f,
            Err(_) if !notify::still_valid(listener, n.id) => return Handled::Gone,
            Err(why) => {
                let reason = format!("{C10_UNJUDGED}: the exec could not be judged: {why}; run it again, or ask the maintainer if it keeps failing");
                self.tell(pid, &format!("agent-guards: refused an exec ({reason})"));
                self.record(json!({"binary": "second-line", "time": now(), "decision": "deny_unjudged", "requirement": "C10", "code": C10_UNJUDGED, "syscall": sys.name, "pid": pid, "program": program_of(pid), "reason": reason}));
                return self.answer(
                    listener,
                    n.id,
                    Answer::Fail(libc::EPERM),
                    Handled::Refused("C10".into()),
                );
            }
        };
        let folded = fold(&self.judges, &facts);
        let Some((code, reason, evidence)) = folded.deny.clone().filter(|_| folded.is_refused())
        else {
            return self.answer(listener, n.id, Answer::Continue, Handled::Continued);
        };
        if !notify::still_valid(listener, n.id) {
            return Handled::Gone;
        }
        let shown = clip(&facts.as_command(|_| false), 120);
        self.tell(pid, &format!("agent-guards: refused {shown} ({reason})"));
        let out = self.answer(
            listener,
            n.id,
            Answer::Fail(libc::EPERM),
            Handled::Refused(code.clone()),
        );
        self.record(json!({
            "binary": "second-line", "layer": "exec_gate", "time": now(), "decision": "deny",
            "requirement": code.split('.').next(), "code": code, "reason": reason, "syscall": sys.name, "pid": pid,
            "program": facts.program, "argv": facts.argv, "cwd": facts.cwd,
            "disposition": folded.disposition, "evidence": evidence,
        }));
        out
    }

    /// The watchdog's answer to every exec once the supervisor died: refused, with the line.
    fn refuse_unanswered(&self, listener: RawFd, n: &libc::seccomp_notif, sys: &Sys) -> Handled {
        if !notify::still_valid(listener, n.id) {
            return Handled::Gone;
        }
        let reason = unanswered_reason();
        self.tell(n.pid, &format!("agent-guards: refused an exec ({reason})"));
        let out = self.answer(
            listener,
            n.id,
            Answer::Fail(libc::EPERM),
            Handled::Refused("C10".into()),
        );
        self.record(json!({"binary": "second-line", "layer": "exec_gate", "time": now(), "decision": "deny_unanswered", "requirement": "C10", "code": C10_UNANSWERED, "syscall": sys.name, "pid": n.pid, "program": program_of(n.pid), "reason": reason}));
        out
    }

    fn on_write(&self, listener: RawFd, n: &libc::seccomp_notif, sys: &Sys) -> Handled {
        let Kind::Write { paths, how, .. } = sys.kind else {
            return Handled::Gone;
        };
        let memory = std::cell::RefCell::new(None);
        let (pid, args) = (n.pid, n.data.args);
        let size = syscalls::pointer_size(n.data.arch, n.data.nr as i64);
        let hit = (|| -> Option<(PathBuf, String, (&'static str, &'static str))> {
            let mem = Memory::open(pid, size).ok()?;
            if let Some(h) = how {
                let flags = mem.u64_at(args[h]).ok()?;
                if flags & syscalls::WRITE_FLAGS as u64 == 0 {
                    return None;
                }
            }
            paths.iter().find_map(|p| {
                let raw = mem.string(args[p.path], notify::MAX_STRING).ok()?;
                let abs = resolve(pid, *p, &args, &raw, false, &|d| base_dir(pid, d)).ok()?;
                let what = match self.protected.guards(&abs) {
                    Some(what) => what,
                    None => {
                        let refusal = self.memory_refusal(&abs)?;
                        *memory.borrow_mut() = Some(refusal);
                        (DURABLE_MEMORY, integrity_signals::face::I3_DURABLE_MEMORY)
                    }
                };
                Some((abs, lossy(&raw), what))
            })
        })();
        self.refuse_protected(listener, n, sys, hit, |path, what, code| {
            let reason = match memory.take() {
                Some(r) => r.reason,
                None => format!(
                    "{code}: {what} is read-only inside agent commands; ask the maintainer to change it"
                ),
            };
            (code, reason, format!("refused writing {}", path.display()))
        })
    }

    /// I3 over a write to durable memory (`CLAUDE.md`, `.claude/agents`, ...): refused while
    /// taint cannot be ruled out, by what this command did or by the session's record (the
    /// ledger read as every guard reads it; an agent command has no transcript path).
    fn memory_refusal(&self, path: &Path) -> Option<integrity_signals::face::Refusal> {
        if !integrity_signals::face::is_durable_memory(path) {
            return None;
        }
        let here = self
            .tainted_here
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let why = here.or_else(|| {
            let session = self.launch.session()?;
            let policy = taint::TaintPolicy::new(Vec::new(), None);
            taint::cannot_rule_out(&session, None, &policy)
        });
        integrity_signals::face::judge_memory_write(path, why.as_deref())
    }

    /// A change of mode, owner, times or extended attributes (I3.metadata, issue 41): refused
    /// like a write when the path it changes (given, or its descriptor's) is one
    /// `ProtectedSet::guards` holds. Unreadable: the kernel runs it and the mounts still hold.
    fn on_metadata(&self, listener: RawFd, n: &libc::seccomp_notif, sys: &Sys) -> Handled {
        let Kind::Metadata { path, fd, at_flags } = sys.kind else {
            return Handled::Gone;
        };
        let (pid, args) = (n.pid, n.data.args);
        let size = syscalls::pointer_size(n.data.arch, n.data.nr as i64);
        let hit = (|| -> Option<(PathBuf, String, (&'static str, &'static str))> {
            let (abs, raw) = match (path, fd) {
                (_, Some(f)) => (base_dir(pid, Some(args[f] as i32)).ok()?, String::new()),
                (Some(p), None) => {
                    let raw = match args[p.path] {
                        // utimensat/futimesat: NULL means the descriptor itself.
                        0 => Vec::new(),
                        ptr => Memory::open(pid, size)
                            .ok()?
                            .string(ptr, notify::MAX_STRING)
                            .ok()?,
                    };
                    let empty = args[p.path] == 0
                        || at_flags.is_some_and(|f| args[f] as i32 & libc::AT_EMPTY_PATH != 0);
                    let abs = resolve(pid, p, &args, &raw, empty, &|d| base_dir(pid, d)).ok()?;
                    (abs, lossy(&raw))
                }
                (None, None) => return None,
            };
            let what = self.protected.guards(&abs)?;
            Some((abs, raw, what))
        })();
        self.refuse_protected(listener, n, sys, hit, |path, what, protected_as| {
            let reason = format!(
                "{I3_METADATA}: {what} ({protected_as}) keeps its mode, owner, times and \
                 attributes inside agent commands ({}); ask the maintainer to change it",
                sys.name
            );
            (
                I3_METADATA,
                reason,
                format!("refused changing {}", path.display()),
            )
        })
    }

    /// Fails a call on a protected path (`hit`: the path, as given, and what protects it) with
    /// `EROFS`: the line on the process's stderr and the I3 record (checked still valid first: a
    /// process that went away gets neither). `describe` gives the code, reason and the line's
    /// words before the reason. No hit (unreadable or not protected): the kernel runs the call
    /// and the read-only mounts still hold.
    fn refuse_protected(
        &self,
        listener: RawFd,
        n: &libc::seccomp_notif,
        sys: &Sys,
        hit: Option<(PathBuf, String, (&'static str, &'static str))>,
        describe: impl FnOnce(&Path, &'static str, &'static str) -> (&'static str, String, String),
    ) -> Handled {
        let Some((path, raw, (what, protected_as))) = hit else {
            return self.answer(listener, n.id, Answer::Continue, Handled::Continued);
        };
        if !notify::still_valid(listener, n.id) {
            return Handled::Gone;
        }
        let (code, reason, line) = describe(&path, what, protected_as);
        let pid = n.pid;
        self.tell(pid, &format!("agent-guards: {line} ({reason})"));
        let out = self.answer(
            listener,
            n.id,
            Answer::Fail(libc::EROFS),
            Handled::Refused("I3".into()),
        );
        self.record(json!({
            "binary": "second-line", "layer": "protected_files", "time": now(),
            "decision": "deny", "requirement": "I3", "code": code, "signal": "guard_tamper",
            "path": path, "path_as_given": raw, "what": what, "syscall": sys.name, "pid": pid,
            "program": program_of(pid), "mount_layer": self.mount_layer, "reason": reason,
        }));
        out
    }
}

fn base(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// The program `pid` runs until its exec replaces it: `/proc/<pid>/exe` (a binary replaced on
/// disk since it started reads `<path> (deleted)`; the path is what names it).
fn caller_program(pid: u32) -> Option<String> {
    let link = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    let text = link.to_string_lossy();
    Some(text.strip_suffix(" (deleted)").unwrap_or(&text).to_string())
}

/// A path argument made absolute the way the kernel starts its lookup, in the caller's view:
/// `/proc/self`, `/proc/thread-self`, `/dev/fd` and `/dev/std*` name the calling process (`pid`),
/// not the supervisor, and the magic links `/proc/<n>/cwd`, `/root` and `/fd/<k>` are followed
/// to what they point at (issue 41: `/proc/self/cwd/...`, `/dev/fd/../cwd/...` reached protected
/// files, and `/proc/self/fd/N` was looked up in the supervisor's own table). Otherwise
/// lexically normalised; other symbolic links are the mount layer's to follow.
fn resolve(
    pid: u32,
    p: PathArg,
    args: &[u64; 6],
    raw: &[u8],
    empty_path: bool,
    base_dir: &dyn Fn(Option<i32>) -> std::io::Result<PathBuf>,
) -> std::io::Result<PathBuf> {
    let dirfd = p.dirfd.map(|i| args[i] as i32);
    let text = Path::new(std::ffi::OsStr::from_bytes(raw));
    if text.is_absolute() {
        return Ok(through_magic_links(&command_effects::dirs::normalise(
            &in_callers_view(pid, text),
        )));
    }
    let base = base_dir(dirfd)?;
    if empty_path && raw.is_empty() {
        return Ok(base);
    }
    Ok(through_magic_links(&command_effects::dirs::normalise(
        &base.join(text),
    )))
}

/// `path` with the names that mean "the calling process" made its `/proc/<pid>` (before any
/// `..` is taken, as the kernel follows `/dev/fd` and `/proc/self` first).
fn in_callers_view(pid: u32, path: &Path) -> PathBuf {
    let own = PathBuf::from(format!("/proc/{pid}"));
    let mut parts = path.components().skip(1); // the root
    let first: Vec<_> = parts.by_ref().take(2).collect();
    let names: Vec<&std::ffi::OsStr> = first.iter().map(|c| c.as_os_str()).collect();
    let rest: PathBuf = parts.collect();
    let mapped = match names.as_slice() {
        [a, b] if *a == "proc" && (*b == "self" || *b == "thread-self") => own,
        [a, b] if *a == "dev" && *b == "fd" => own.join("fd"),
        [a, b] if *a == "dev" && *b == "stdin" => own.join("fd/0"),
        [a, b] if *a == "dev" && *b == "stdout" => own.join("fd/1"),
        [a, b] if *a == "dev" && *b == "stderr" => own.join("fd/2"),
        _ => return path.to_path_buf(),
    };
    match rest.as_os_str().is_empty() {
        true => mapped,
        false => mapped.join(rest),
    }
}

/// `path` with a leading `/proc/<n>/cwd`, `/proc/<n>/root` or `/proc/<n>/fd/<k>` replaced by
/// where that link points (unchanged when it cannot be read).
fn through_magic_links(path: &Path) -> PathBuf {
    let mut parts = path.components();
    let head: Vec<String> = parts
        .by_ref()
        .skip(1)
        .take(3)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let is_pid = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (link, rest): (PathBuf, PathBuf) = match head.as_slice() {
        [p, n, l] if p == "proc" && is_pid(n) && (l == "cwd" || l == "root") => {
            (Path::new("/proc").join(n).join(l), parts.collect())
        }
        [p, n, l] if p == "proc" && is_pid(n) && l == "fd" => {
            let Some(k) = parts.next() else {
                return path.to_path_buf();
            };
            (
                Path::new("/proc").join(n).join("fd").join(k),
                parts.collect(),
            )
        }
        _ => return path.to_path_buf(),
    };
    match std::fs::read_link(&link) {
        Ok(target) if target.is_absolute() => command_effects::dirs::normalise(&target.join(rest)),
        // An anonymous target (`anon_inode:...`, `pipe:[..]`): kept as its text, for
        // [`anonymous`] to see.
        Ok(target) => target,
        Err(_) => path.to_path_buf(),
    }
}

/// What an exec's program is when it has no path to judge it by: a memfd, a deleted file, an
/// anonymous inode (`None`: an ordinary path).
fn anonymous(program: &Path) -> Option<String> {
    let text = program.to_string_lossy();
    let anon =
        text.starts_with("/memfd:") || text.ends_with(" (deleted)") || !text.starts_with('/');
    anon.then(|| format!("an anonymous or deleted file ({})", clip(&text, 80)))
}

/// How long a supervisor waits for a notification before it lets go of what it keeps for
/// later execs (repositories, their inotify instance): a command whose background processes
/// outlive it may keep its supervisor for hours.
const IDLE_RELEASE: u16 = 60_000;

/// Serves the listener until every process that carries the filter is gone (`true`), or the
/// listener fails (`false`: the watchdog, if any, takes over).
pub fn serve(listener: RawFd, sup: &Supervisor) -> bool {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use std::os::fd::BorrowedFd;
    loop {
        // SAFETY: the listener stays open for the whole loop.
        let fd = unsafe { BorrowedFd::borrow_raw(listener) };
        // The repository cache's change events are not polled here: they would wake the
        // loop for every file a command writes in a watched folder (tried: 300 files written
        // and removed beside a push, 2,870 -> 4,500 context switches and supervisor CPU
        // 114 -> 141-192 ms), to spare one read per judged exec.
        let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::from(IDLE_RELEASE)) {
            Ok(0) => {
                sup.launch.release_idle();
                continue;
            }
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return false,
        }
        let ev = fds[0].revents().unwrap_or(PollFlags::empty());
        if ev.contains(PollFlags::POLLIN) {
            match notify::receive(listener) {
                Ok(n) => {
                    if let Some(f) = sup.in_flight {
                        f.set(n.id, n.pid);
                    }
                    sup.handle(listener, &n);
                    if let Some(f) = sup.in_flight {
                        f.clear();
                    }
                }
                // The caller went away between poll and receive.
                Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::EINTR)) => {}
                Err(_) => return false,
            }
        } else if ev.intersects(PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL) {
            return true;
        }
    }
}
