//! Where a call sends (K5, I1): `connect` and `sendto` name one destination, `sendmsg` one in
//! its `msghdr` (`msg_name`), `sendmmsg` one per message (issue 41 item 4: UDP to a non-local
//! address past the judged `connect`). Each non-local destination is network evidence (a record
//! once per destination and program, the session tainted); in enforce mode one outside
//! `network_allow` fails the whole call with `EPERM`. A message header the supervisor cannot
//! read fails closed (`EPERM`, C10.unjudged): the kernel would read it again, maybe changed.

use super::{now, Handled, Supervisor, Work, C10_UNJUDGED};
use crate::network::{is_local, parse_sockaddr, Decision};
use crate::notify::{self, program_of, Answer, Memory};
use crate::syscalls;
use serde_json::json;
use std::net::SocketAddr;
use std::os::fd::RawFd;

const I1_NETWORK: &str = integrity_signals::face::I1_NETWORK;

/// `struct msghdr` (64-bit): `msg_name` at 0, `msg_namelen` at 8; 56 bytes. `struct mmsghdr`:
/// a `msghdr` and its `msg_len`, 64 bytes.
const MSGHDR_SIZE: usize = 56;
const MMSGHDR_SIZE: u64 = 64;
/// The kernel sends at most this many messages per `sendmmsg` (`UIO_MAXIOV`).
const MAX_MESSAGES: u64 = 1024;

/// Pure: the destination pointer and length a `msghdr` names (`None`: none, a send on a
/// connected socket).
pub fn message_name(hdr: &[u8]) -> Option<(u64, usize)> {
    let ptr = u64::from_ne_bytes(hdr.get(0..8)?.try_into().ok()?);
    let len = u32::from_ne_bytes(hdr.get(8..12)?.try_into().ok()?) as usize;
    (ptr != 0 && len != 0).then_some((ptr, len.min(128)))
}

impl Supervisor<'_> {
    pub(super) fn on_connect(
        &self,
        listener: RawFd,
        n: &libc::seccomp_notif,
        addr: usize,
        len: usize,
    ) -> Handled {
        let (pid, args) = (n.pid, n.data.args);
        let size = syscalls::pointer_size(n.data.arch, n.data.nr as i64);
        let len = (args[len] as usize).min(128);
        let dest = Memory::open(pid, size)
            .and_then(|m| m.bytes(args[addr], len))
            .ok()
            .and_then(|b| parse_sockaddr(&b));
        // Not IP or unreadable (the kernel reads it again): not network use.
        self.judge_destinations(listener, n, dest.into_iter().collect())
    }

    /// Judges the destinations of one call (any this machine's own are not network use): each
    /// non-local one recorded once per program and tainting the session, the call refused when
    /// one is outside `network_allow` in enforce mode.
    fn judge_destinations(
        &self,
        listener: RawFd,
        n: &libc::seccomp_notif,
        dests: Vec<SocketAddr>,
    ) -> Handled {
        let pid = n.pid;
        let resolvers = self.resolvers.get_or_init(crate::network::system_resolvers);
        let dests: Vec<SocketAddr> = dests
            .into_iter()
            .filter(|d| !is_local(d, resolvers))
            .collect();
        if dests.is_empty() {
            return self.answer(listener, n.id, Answer::Continue, Handled::Continued);
        }
        if !notify::still_valid(listener, n.id) {
            return Handled::Gone;
        }
        let program = program_of(pid);
        let blocked = dests
            .iter()
            .find(|d| self.policy().decide(d) == Decision::Blocked);
        let out = match blocked {
            None => self.answer(listener, n.id, Answer::Continue, Handled::Continued),
            Some(dest) => {
                let reason = format!("{I1_NETWORK}: {dest} is not in network_allow and integrity mode is enforce; ask the maintainer to allow the host");
                self.tell(
                    pid,
                    &format!("agent-guards: refused connecting to {dest} ({reason})"),
                );
                self.answer(
                    listener,
                    n.id,
                    Answer::Fail(libc::EPERM),
                    Handled::Refused("I1".into()),
                )
            }
        };
        for dest in dests {
            self.evidence(dest, &program, pid);
        }
        out
    }

    /// The record and the taint of one non-local destination, once per destination and program.
    fn evidence(&self, dest: SocketAddr, program: &str, pid: u32) {
        let decision = self.policy().decide(&dest);
        if self.policy().first_time(dest, program, decision) {
            let time = now();
            self.record(json!({
                "binary": "second-line", "layer": "network", "time": time,
                "requirement": "I1", "code": I1_NETWORK, "signal": "network_escape", "taint": "K5",
                "destination": dest.to_string(), "host": dest.ip().to_string(),
                "port": dest.port(), "program": program, "pid": pid,
                "decision": decision.audit().as_str(),
            }));
            let seen = format!("{program} connected to {dest} in this command");
            *self.tainted_here.lock().unwrap_or_else(|p| p.into_inner()) = Some(seen);
            if let Some(tx) = &self.audit {
                let source = taint::TaintSource {
                    kind: taint::TaintKind::NetworkCommand,
                    tool: "Bash".into(),
                    detail: format!(
                        "{program} connected to {dest} (seen at connect by the second line)"
                    ),
                };
                let _ = tx.send(Work::Taint(source, time));
            }
        }
    }
}

impl Supervisor<'_> {
    /// `sendmsg(fd, msg, flags)` (`count: None`) or `sendmmsg(fd, msgvec, vlen, flags)`.
    pub(super) fn on_message(
        &self,
        listener: RawFd,
        n: &libc::seccomp_notif,
        msg: usize,
        count: Option<usize>,
    ) -> Handled {
        let (pid, args) = (n.pid, n.data.args);
        let size = syscalls::pointer_size(n.data.arch, n.data.nr as i64);
        let messages = count.map_or(1, |c| args[c].min(MAX_MESSAGES));
        let read = || -> std::io::Result<Vec<SocketAddr>> {
            let mem = Memory::open(pid, size)?;
            let mut dests = Vec::new();
            for i in 0..messages {
                let hdr = mem.bytes(args[msg] + i * MMSGHDR_SIZE, MSGHDR_SIZE)?;
                if let Some((ptr, len)) = message_name(&hdr) {
                    dests.extend(parse_sockaddr(&mem.bytes(ptr, len)?));
                }
            }
            Ok(dests)
        };
        match read() {
            Ok(dests) => self.judge_destinations(listener, n, dests),
            Err(e) => self.unreadable_message(listener, n, &e),
        }
    }

    fn unreadable_message(
        &self,
        listener: RawFd,
        n: &libc::seccomp_notif,
        e: &std::io::Error,
    ) -> Handled {
        if !notify::still_valid(listener, n.id) {
            return Handled::Gone;
        }
        let reason = format!(
            "{C10_UNJUDGED}: the message's destination could not be read ({e}); send from a plain \
             buffer or connect the socket first"
        );
        self.tell(
            n.pid,
            &format!("agent-guards: refused sending a message ({reason})"),
        );
        let out = self.answer(
            listener,
            n.id,
            Answer::Fail(libc::EPERM),
            Handled::Refused("C10".into()),
        );
        self.record(json!({"binary": "second-line", "layer": "network", "time": now(), "decision": "deny_unjudged", "requirement": "C10", "code": C10_UNJUDGED, "pid": n.pid, "program": program_of(n.pid), "reason": reason}));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_names_a_destination_only_with_a_pointer_and_a_length() {
        let mut hdr = [0u8; MSGHDR_SIZE];
        assert_eq!(message_name(&hdr), None);
        hdr[0..8].copy_from_slice(&0x7000u64.to_ne_bytes());
        assert_eq!(message_name(&hdr), None, "no length: no destination");
        hdr[8..12].copy_from_slice(&16u32.to_ne_bytes());
        assert_eq!(message_name(&hdr), Some((0x7000, 16)));
        hdr[8..12].copy_from_slice(&4096u32.to_ne_bytes());
        assert_eq!(
            message_name(&hdr),
            Some((0x7000, 128)),
            "clipped to a sockaddr_storage"
        );
        assert_eq!(message_name(&hdr[..6]), None);
    }
}
