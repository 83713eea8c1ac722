//! The journal copy's only I/O: one datagram to a Unix socket, never waiting, and journald's
//! memfd form for a record too long for a datagram.

use std::io;
use std::os::unix::net::UnixDatagram;
use std::path::Path;

/// Sends `bytes` as one datagram to the socket at `path` without waiting: a full queue
/// (`EAGAIN`), a path that is no socket (a FIFO, a file: `ECONNREFUSED`) and a missing path are
/// errors at once.
pub fn send_datagram(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let socket = UnixDatagram::unbound()?;
    socket.set_nonblocking(true)?;
    let sent = socket.send_to(bytes, path)?;
    if sent != bytes.len() {
        return Err(io::Error::other(format!(
            "sent {sent} of {} bytes",
            bytes.len()
        )));
    }
    Ok(())
}

/// Sends journald's native `bytes` to `path`: one datagram, or, when the datagram is too long
/// for the socket (`EMSGSIZE`, `ENOBUFS`), a sealed memfd holding them passed with
/// `SCM_RIGHTS` (what `sd_journal_send` does).
pub fn send_native(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match send_datagram(path, bytes) {
        Err(e) if matches!(e.raw_os_error(), Some(libc::EMSGSIZE) | Some(libc::ENOBUFS)) => {
            send_memfd(path, bytes)
        }
        other => other,
    }
}

#[cfg(target_os = "linux")]
fn send_memfd(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;

    // SAFETY: memfd_create with a NUL-terminated name; the result is checked.
    let fd = unsafe {
        libc::memfd_create(
            c"agent-guards-journal".as_ptr(),
            libc::MFD_ALLOW_SEALING | libc::MFD_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh descriptor we own.
    let memfd = unsafe { OwnedFd::from_raw_fd(fd) };
    std::fs::File::from(memfd.try_clone()?).write_all(bytes)?;
    // journald takes a memfd only sealed: nobody can change what it reads.
    let seals = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE | libc::F_SEAL_SEAL;
    // SAFETY: fcntl on a descriptor we own.
    if unsafe { libc::fcntl(memfd.as_raw_fd(), libc::F_ADD_SEALS, seals) } < 0 {
        return Err(io::Error::last_os_error());
    }

    let socket = UnixDatagram::unbound()?;
    socket.set_nonblocking(true)?;
    // SAFETY: all-zero is a valid sockaddr_un.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let name = path.as_os_str().as_bytes();
    if name.len() >= addr.sun_path.len() {
        return Err(io::Error::other("socket path too long"));
    }
    for (d, s) in addr.sun_path.iter_mut().zip(name) {
        *d = *s as libc::c_char;
    }
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) } as usize;
    let mut control = vec![0u8; space];
    // SAFETY: msghdr is plain data; every pointer set below outlives the sendmsg call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_name = std::ptr::addr_of_mut!(addr).cast();
    msg.msg_namelen = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: the control buffer has room for one header with one descriptor (CMSG_SPACE).
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
        std::ptr::write_unaligned(
            libc::CMSG_DATA(cmsg).cast::<libc::c_int>(),
            memfd.as_raw_fd(),
        );
    }
    // SAFETY: msg points at live buffers; the result is checked.
    let sent = unsafe { libc::sendmsg(socket.as_raw_fd(), &msg, libc::MSG_DONTWAIT) };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn send_memfd(_: &Path, _: &[u8]) -> io::Result<()> {
    Err(io::Error::other(
        "the record is too long for one datagram, and this system has no memfd to send it in",
    ))
}
