//! The facts of a system install's exec-gate service (issue 40 item 2) that the prefix, the
//! service, the hooks reading its records and the installer share: where it listens, which
//! account it runs as with which capabilities, and where it keeps its records.

use std::path::{Path, PathBuf};

/// Where the service listens (a `SOCK_SEQPACKET` socket every local user may connect to).
pub const SOCKET: &str = "/run/agent-guards/exec-gate.sock";

/// The system account the service runs as (the installer creates it).
pub const USER: &str = "agent-guards";

/// The capabilities the service keeps after dropping to [`USER`], by number and name:
/// another user's processes' memory, cwd and descriptors in `/proc` (`CAP_SYS_PTRACE`), their
/// repositories and config in folders only they may read (`CAP_DAC_READ_SEARCH`), and a place
/// ahead of the command in the run queue (`CAP_SYS_NICE`).
pub const KEPT_CAPABILITIES: &[(u32, &str)] = &[
    (2, "CAP_DAC_READ_SEARCH"),
    (19, "CAP_SYS_PTRACE"),
    (23, "CAP_SYS_NICE"),
];

/// The service's state: [`USER`]'s, so an agent command can neither edit nor remove what the
/// service records there.
pub const STATE_DIR: &str = "/var/lib/agent-guards";

/// The service's records about the agent commands of user `uid`: a state dir of the same shape
/// as a user's (`sessions/<id>/...`).
pub fn state_dir(uid: u32) -> PathBuf {
    Path::new(STATE_DIR).join("users").join(uid.to_string())
}

/// Whether this host has a system install (its config, which only root can create, is there):
/// the exec gate then runs in the service, and taint is also recorded there.
pub fn installed() -> bool {
    std::fs::symlink_metadata(guard_config::layered::SYSTEM_CONFIG_PATH).is_ok()
}

/// Sends one request to the service at `socket` and waits (at most `bound`) for its one-byte
/// acknowledgement: `Ok` only when the service said it recorded the request.
pub fn relay(socket: &Path, request: &[u8], bound: std::time::Duration) -> Result<(), String> {
    match ask(socket, request, bound)?.first() {
        Some(&ACK) => Ok(()),
        _ => Err("the exec-gate service did not acknowledge the record".into()),
    }
}

/// Sends one request to the service at `socket` and returns its first answer (at most 512
/// bytes), waiting at most `bound`.
pub fn ask(socket: &Path, request: &[u8], bound: std::time::Duration) -> Result<Vec<u8>, String> {
    #[cfg(unix)]
    {
        let fd = connect(socket)?;
        // SAFETY: `fd` is ours and closed below; send, poll and read on live buffers.
        unsafe {
            let mut answer = [0u8; 512];
            let sent = libc::send(
                fd,
                request.as_ptr().cast(),
                request.len(),
                libc::MSG_DONTWAIT,
            );
            let mut p = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            let n = if sent >= 0 && libc::poll(&mut p, 1, bound.as_millis() as i32) > 0 {
                libc::read(fd, answer.as_mut_ptr().cast(), answer.len())
            } else {
                -1
            };
            libc::close(fd);
            if n > 0 {
                Ok(answer[..n as usize].to_vec())
            } else {
                Err("the exec-gate service did not answer".into())
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (socket, request, bound);
        Err("no exec-gate service off Unix".into())
    }
}

/// Whether something accepts a connection at `socket`, at once (the connection is closed
/// unused: the service drops it, its request missing).
pub fn answers(socket: &Path) -> bool {
    #[cfg(unix)]
    {
        // SAFETY: closing the descriptor we were given.
        connect(socket).map(|fd| unsafe { libc::close(fd) }).is_ok()
    }
    #[cfg(not(unix))]
    {
        let _ = socket;
        false
    }
}

/// A non-blocking `SOCK_SEQPACKET` connection to `socket` (the caller closes it).
#[cfg(unix)]
fn connect(socket: &Path) -> Result<libc::c_int, String> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = socket.as_os_str().as_bytes();
    // SAFETY: a zeroed sockaddr_un filled within its bounds; the descriptor is closed on failure.
    unsafe {
        let mut addr: libc::sockaddr_un = std::mem::zeroed();
        if bytes.len() >= addr.sun_path.len() {
            return Err("the socket path is too long".into());
        }
        addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
        for (d, b) in addr.sun_path.iter_mut().zip(bytes) {
            *d = *b as libc::c_char;
        }
        let fd = libc::socket(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            0,
        );
        if fd < 0 {
            return Err(std::io::Error::last_os_error().to_string());
        }
        let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
        if libc::connect(fd, (&addr as *const libc::sockaddr_un).cast(), len) != 0 {
            let e = std::io::Error::last_os_error();
            libc::close(fd);
            return Err(format!("the exec-gate service does not answer ({e})"));
        }
        Ok(fd)
    }
}

/// The service's acknowledgement of a recorded request.
pub const ACK: u8 = b'K';
