//! Which program sent a request (C11.4: "the program's pid and executable" in every audit
//! record). A client reaches the broker over loopback TCP; on Linux the kernel's socket table
//! (asked with one exact `sock_diag` netlink query) names the inode of the client's end of the
//! connection, and the process holding that inode among its descriptors (`/proc/<pid>/fd`,
//! newest processes first) is the sender;
//! its executable is `/proc/<pid>/exe`. Looked up once per client connection, bounded by the
//! process table; a process the broker may not read (another user) or a connection that is
//! gone is `None`, never a wait. Other systems: `None`.

use serde::Serialize;

/// The process at the other end of a connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Peer {
    pub pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exe: Option<String>,
}

/// The process whose socket is bound to `127.0.0.1:client_port` and connected to
/// `127.0.0.1:server_port`.
#[cfg(target_os = "linux")]
pub fn find(client_port: u16, server_port: u16) -> Option<Peer> {
    let inode = diag::socket_inode(client_port, server_port)?;
    let needle = format!("socket:[{inode}]");
    let holds = |dir: &std::path::Path| {
        std::fs::read_dir(dir.join("fd")).is_ok_and(|fds| {
            fds.flatten().any(|fd| {
                std::fs::read_link(fd.path()).is_ok_and(|t| t.as_os_str() == needle.as_str())
            })
        })
    };
    // A client in the broker's own process (tests, benchmarks) is no agent command.
    if holds(std::path::Path::new("/proc/self")) {
        return None;
    }
    let me = std::process::id();
    // Newest first: the sender is an agent command, most often a process just started.
    let mut pids: Vec<u32> = std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
        .filter(|p| *p != me)
        .collect();
    pids.sort_unstable_by(|a, b| b.cmp(a));
    for pid in pids {
        let dir = std::path::PathBuf::from(format!("/proc/{pid}"));
        if holds(&dir) {
            let exe = std::fs::read_link(dir.join("exe"))
                .ok()
                .map(|p| p.display().to_string());
            return Some(Peer { pid, exe });
        }
    }
    None
}

/// One exact `sock_diag` question to the kernel (netlink, `SOCK_DIAG_BY_FAMILY` without
/// `NLM_F_DUMP`): the inode of the TCP socket with this 4-tuple. Reading `/proc/net/tcp`
/// instead costs time in proportion to every socket on the machine (tens of milliseconds on
/// a busy one); this is one round trip.
#[cfg(target_os = "linux")]
mod diag {
    const NETLINK_SOCK_DIAG: libc::c_int = 4;
    const SOCK_DIAG_BY_FAMILY: u16 = 20;
    const NLM_F_REQUEST: u16 = 1;
    const NLMSG_ERROR: u16 = 2;
    /// nlmsghdr (16) + inet_diag_req_v2 (8 + the 48-byte socket id).
    const REQ_LEN: usize = 16 + 8 + 48;
    /// Where `idiag_inode` sits in the answer: nlmsghdr, 4 bytes, the socket id, expires,
    /// rqueue, wqueue, uid.
    const INODE_AT: usize = 16 + 4 + 48 + 16;

    /// The request bytes for `127.0.0.1:sport` → `127.0.0.1:dport`.
    pub(super) fn request(sport: u16, dport: u16) -> [u8; REQ_LEN] {
        let mut b = [0u8; REQ_LEN];
        b[0..4].copy_from_slice(&(REQ_LEN as u32).to_ne_bytes());
        b[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        b[6..8].copy_from_slice(&NLM_F_REQUEST.to_ne_bytes());
        b[8..12].copy_from_slice(&1u32.to_ne_bytes());
        b[16] = libc::AF_INET as u8;
        b[17] = libc::IPPROTO_TCP as u8;
        b[20..24].copy_from_slice(&u32::MAX.to_ne_bytes()); // every state
        let id = 24;
        b[id..id + 2].copy_from_slice(&sport.to_be_bytes());
        b[id + 2..id + 4].copy_from_slice(&dport.to_be_bytes());
        b[id + 4..id + 8].copy_from_slice(&[127, 0, 0, 1]);
        b[id + 20..id + 24].copy_from_slice(&[127, 0, 0, 1]);
        b[id + 40..id + 48].copy_from_slice(&[0xff; 8]); // INET_DIAG_NOCOOKIE
        b
    }

    pub(super) fn socket_inode(sport: u16, dport: u16) -> Option<u64> {
        // SAFETY: plain socket calls on a descriptor this function owns and closes; the
        // buffers are local arrays of the lengths passed.
        unsafe {
            let fd = libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                NETLINK_SOCK_DIAG,
            );
            if fd < 0 {
                return None;
            }
            let timeout = libc::timeval {
                tv_sec: 1,
                tv_usec: 0,
            };
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                (&timeout as *const libc::timeval).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            );
            let req = request(sport, dport);
            let mut addr: libc::sockaddr_nl = std::mem::zeroed();
            addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
            let sent = libc::sendto(
                fd,
                req.as_ptr().cast(),
                req.len(),
                0,
                (&addr as *const libc::sockaddr_nl).cast(),
                std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
            );
            let mut buf = [0u8; 512];
            let got = match sent == req.len() as isize {
                true => libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0),
                false => -1,
            };
            libc::close(fd);
            let got = usize::try_from(got).ok()?;
            parse(&buf[..got])
        }
    }

    /// The inode in an answer (`None`: an error answer, or too short).
    pub(super) fn parse(answer: &[u8]) -> Option<u64> {
        let kind = u16::from_ne_bytes(answer.get(4..6)?.try_into().ok()?);
        if kind == NLMSG_ERROR || kind != SOCK_DIAG_BY_FAMILY {
            return None;
        }
        let inode = u32::from_ne_bytes(answer.get(INODE_AT..INODE_AT + 4)?.try_into().ok()?);
        (inode != 0).then_some(u64::from(inode))
    }
}

#[cfg(not(target_os = "linux"))]
pub fn find(_client_port: u16, _server_port: u16) -> Option<Peer> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_real_connection_is_traced_to_its_process() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let server = l.local_addr().unwrap().port();
        let mut child = std::process::Command::new("python3")
            .args(["-c", &format!("import socket,time; s=socket.create_connection(('127.0.0.1',{server})); time.sleep(5)")])
            .spawn()
            .unwrap();
        let (conn, peer) = l.accept().unwrap();
        let found = find(peer.port(), server);
        let _ = child.kill();
        let _ = child.wait();
        drop(conn);
        let found = found.expect("the client is found");
        assert_eq!(found.pid, child.id());
        assert!(found.exe.unwrap_or_default().contains("python"));
    }
}
