//! The kernel side of the exec gate: installing the filter with a listener, receiving and
//! answering notifications, reading the blocked process's memory with `process_vm_readv`
//! (bounded, page by page; the access check is `/proc/<pid>/mem`'s), and writing one line to
//! its stderr.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

/// Longest path or argument read (bytes).
pub const MAX_STRING: usize = 128 * 1024;
/// Most argv or envp entries read.
pub const MAX_ENTRIES: usize = 8192;
/// Most bytes read for all of argv, or all of envp.
pub const MAX_TOTAL: usize = 1024 * 1024;

/// Installs the filter on the calling thread (inherited by everything it execs and forks) and
/// returns the listener. Without `CAP_SYS_ADMIN` the kernel wants `no_new_privs` first (the
/// caller decides whether to set it).
pub fn install(prog: &[libc::sock_filter]) -> io::Result<OwnedFd> {
    let fprog = libc::sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: fprog points at a live program for the duration of the call.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &fprog as *const libc::sock_fprog,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel returned a new descriptor that we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Asks the kernel to hand the CPU straight from a notifying process to the supervisor and
/// back (`SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP`, Linux 6.6): one exec's round trip without two
/// trips through the run queue. Best effort: an older kernel refuses and nothing changes.
pub fn sync_wake_up(listener: RawFd) -> bool {
    /// `SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP` (include/uapi/linux/seccomp.h).
    const SYNC_WAKE_UP: u64 = 1;
    // SAFETY: the ioctl reads a u64 flag word (here passed by value, as the kernel takes it).
    unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_SET_FLAGS, SYNC_WAKE_UP) == 0 }
}

/// One received notification.
pub fn receive(listener: RawFd) -> io::Result<libc::seccomp_notif> {
    // SAFETY: zeroed is a valid seccomp_notif (plain integers); the kernel wants it zeroed.
    let mut n: libc::seccomp_notif = unsafe { std::mem::zeroed() };
    // SAFETY: n is a properly sized, writable seccomp_notif.
    let r = unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut n) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(n)
}

/// Whether the notification is still pending (its process has not gone away or been
/// interrupted): checked after reading its memory, so what was read belongs to it.
pub fn still_valid(listener: RawFd, id: u64) -> bool {
    let mut id = id;
    // SAFETY: id is a readable u64.
    unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &mut id) == 0 }
}

/// The answer to one notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Let the kernel run the call as if there were no filter.
    Continue,
    /// Fail the call with this errno.
    Fail(i32),
}

/// Sends the answer. `Err(ENOENT)` when the process went away meanwhile (nothing to do).
pub fn respond(listener: RawFd, id: u64, answer: Answer) -> io::Result<()> {
    let mut resp = libc::seccomp_notif_resp {
        id,
        val: 0,
        error: 0,
        flags: 0,
    };
    match answer {
        Answer::Continue => resp.flags = libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32,
        Answer::Fail(errno) => resp.error = -errno,
    }
    // SAFETY: resp is a properly sized seccomp_notif_resp.
    let r = unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut resp) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The memory of a process blocked in a notified call. The last [`KEPT_PAGES`] pages read are
/// kept: reading argv or the environment alternates between the pointer array and the strings
/// (often on other pages), so one kept page would be read again for every entry. Pages are read
/// with `process_vm_readv` (no descriptor to open and close per notification); the pages a
/// chunk of pointers points into are read together, in one call.
pub struct Memory {
    pid: libc::pid_t,
    pointer_size: usize,
    /// (page start, bytes readable, contents), most recently used last.
    pages: std::cell::RefCell<Vec<Page>>,
    /// `process_vm_readv` calls made (the tests count them).
    reads: std::cell::Cell<u32>,
}

/// A kept page: its start, the bytes readable, the contents.
type Page = (u64, usize, Box<[u8; 4096]>);

/// Pages kept per notification (an exec's pointer arrays and strings span a few; a shell's
/// exported environment lies on a handful of heap pages).
pub const KEPT_PAGES: usize = 16;

thread_local! {
    /// Page buffers of finished notifications, reused by the next (a supervisor serves on one
    /// thread; allocating and zeroing eight pages per exec showed in its profile).
    static SPARE_PAGES: std::cell::RefCell<Vec<Box<[u8; 4096]>>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn spare_page() -> Box<[u8; 4096]> {
    SPARE_PAGES
        .with(|s| s.borrow_mut().pop())
        .unwrap_or_else(|| Box::new([0u8; 4096]))
}

fn give_spare(buf: Box<[u8; 4096]>) {
    SPARE_PAGES.with(|s| {
        let mut spare = s.borrow_mut();
        if spare.len() < KEPT_PAGES {
            spare.push(buf);
        }
    });
}

impl Drop for Memory {
    fn drop(&mut self) {
        let pages = std::mem::take(self.pages.get_mut());
        for (_, _, buf) in pages {
            give_spare(buf);
        }
    }
}

impl Memory {
    pub fn open(pid: u32, pointer_size: usize) -> io::Result<Memory> {
        let pid = libc::pid_t::try_from(pid)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "pid out of range"))?;
        Ok(Memory {
            pid,
            pointer_size,
            pages: std::cell::RefCell::new(Vec::new()),
            reads: std::cell::Cell::new(0),
        })
    }

    /// Reads the pages the addresses in `pointers` (up to the first 0) start on that are not
    /// kept yet, together in one `process_vm_readv` (the kernel stops at the first unmapped
    /// page: those after it are left to be read one by one, which reports the error). An
    /// environment's hundred strings lie on a handful of pages: one call instead of one each.
    pub fn prefetch(&self, pointers: &[u64]) {
        let mut starts: Vec<u64> = Vec::new();
        for p in pointers.iter().take_while(|p| **p != 0) {
            let start = p & !4095;
            if !starts.contains(&start) {
                starts.push(start);
            }
        }
        let mut pages = self.pages.borrow_mut();
        starts.retain(|s| !pages.iter().any(|p| p.0 == *s));
        starts.truncate(KEPT_PAGES);
        if starts.len() < 2 {
            return;
        }
        let mut bufs: Vec<Box<[u8; 4096]>> = starts.iter().map(|_| spare_page()).collect();
        let local: Vec<libc::iovec> = bufs
            .iter_mut()
            .map(|b| libc::iovec {
                iov_base: b.as_mut_ptr().cast(),
                iov_len: 4096,
            })
            .collect();
        let remote: Vec<libc::iovec> = starts
            .iter()
            .map(|s| libc::iovec {
                iov_base: *s as usize as *mut libc::c_void,
                iov_len: 4096,
            })
            .collect();
        self.reads.set(self.reads.get() + 1);
        // SAFETY: `local` describes our own writable buffers; the kernel checks `remote`.
        let n = unsafe {
            libc::process_vm_readv(
                self.pid,
                local.as_ptr(),
                local.len() as libc::c_ulong,
                remote.as_ptr(),
                remote.len() as libc::c_ulong,
                0,
            )
        };
        let whole = usize::try_from(n).unwrap_or(0) / 4096;
        let mut bufs = bufs.into_iter();
        for (start, buf) in starts.into_iter().zip(bufs.by_ref()).take(whole) {
            if pages.len() >= KEPT_PAGES {
                let (_, _, old) = pages.remove(0);
                give_spare(old);
            }
            pages.push((start, 4096, buf));
        }
        bufs.for_each(give_spare);
    }

    /// Reads the pages the strings of several pointer arrays start on (the entries on each
    /// array's first page), together in one `process_vm_readv`: an exec's arguments and
    /// environment usually lie on two pages, one call instead of one per array.
    pub fn prefetch_strings(&self, arrays: &[u64]) {
        let mut all = Vec::new();
        let mut some = Vec::new();
        for a in arrays.iter().filter(|a| **a != 0) {
            if self.pointers_into(&mut some, *a).is_ok() {
                all.extend(some.iter().take_while(|p| **p != 0));
            }
        }
        self.prefetch(&all);
    }

    /// Reads from `addr` up to the end of its page (0 bytes: unreadable there).
    fn read_at(&self, buf: &mut [u8], addr: u64) -> io::Result<usize> {
        self.with_page(addr, |bytes| {
            let n = bytes.len().min(buf.len());
            buf[..n].copy_from_slice(&bytes[..n]);
            n
        })
    }

    /// `f` over the readable bytes from `addr` to the end of its page (empty: unreadable
    /// there), read into a kept page first if needed; nothing is copied.
    fn with_page<T>(&self, addr: u64, f: impl FnOnce(&[u8]) -> T) -> io::Result<T> {
        let start = addr & !4095;
        let mut pages = self.pages.borrow_mut();
        let at = match pages.iter().position(|p| p.0 == start) {
            Some(i) => i,
            None => {
                // A page that is mapped only in part reads short; an unmapped one fails.
                let mut page = if pages.len() >= KEPT_PAGES {
                    pages.remove(0)
                } else {
                    (u64::MAX, 0, spare_page())
                };
                page.1 = self.read_page(&mut page.2[..], start)?;
                page.0 = start;
                pages.push(page);
                pages.len() - 1
            }
        };
        let page = &pages[at];
        let off = ((addr - start) as usize).min(page.1);
        Ok(f(&page.2[off..page.1]))
    }

    /// One page of the process at `start` (page-aligned): all of it, or an error when unmapped.
    fn read_page(&self, buf: &mut [u8], start: u64) -> io::Result<usize> {
        let local = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        let remote = libc::iovec {
            iov_base: start as usize as *mut libc::c_void,
            iov_len: buf.len(),
        };
        self.reads.set(self.reads.get() + 1);
        // SAFETY: `local` describes our own writable buffer; the kernel checks `remote`.
        let n = unsafe { libc::process_vm_readv(self.pid, &local, 1, &remote, 1, 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(n as usize)
    }

    /// A NUL-terminated string at `addr`, at most `max` bytes (longer: an error).
    pub fn string(&self, addr: u64, max: usize) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        self.string_into(&mut out, addr, max)?;
        Ok(out)
    }

    /// [`Memory::string`] into `out` (cleared first), so a caller reading many reuses one buffer.
    fn string_into(&self, out: &mut Vec<u8>, addr: u64, max: usize) -> io::Result<()> {
        out.clear();
        if addr == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "null pointer"));
        }
        let mut at = addr;
        loop {
            // Never read across a page in one go: the next page may be unmapped.
            let (n, ended) = self.with_page(at, |bytes| match nul_at(bytes) {
                Some(end) => {
                    out.extend_from_slice(&bytes[..end]);
                    (bytes.len(), true)
                }
                None => {
                    out.extend_from_slice(bytes);
                    (bytes.len(), false)
                }
            })?;
            if n == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "unreadable"));
            }
            if out.len() > max {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "too long"));
            }
            if ended {
                return Ok(());
            }
            at += n as u64;
        }
    }

    /// The whole pointers from `addr` to the end of its page, or to the first null one (kept:
    /// it ends the array), into `out` (at least one: a pointer across the page boundary is
    /// read whole). Not past the null: an argv of ten words would otherwise convert the rest
    /// of its page, hundreds of words, twice per exec.
    fn pointers_into(&self, out: &mut Vec<u64>, addr: u64) -> io::Result<()> {
        out.clear();
        let size = self.pointer_size;
        self.with_page(addr, |bytes| {
            for c in bytes.chunks_exact(size) {
                let p = match size {
                    4 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64,
                    _ => u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
                };
                out.push(p);
                if p == 0 {
                    break;
                }
            }
        })?;
        if out.is_empty() {
            out.push(self.pointer(addr)?);
        }
        Ok(())
    }

    fn pointer(&self, addr: u64) -> io::Result<u64> {
        let mut b = [0u8; 8];
        self.read_exact(&mut b[..self.pointer_size], addr)?;
        Ok(match self.pointer_size {
            4 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64,
            _ => u64::from_le_bytes(b),
        })
    }

    /// A NULL-terminated array of strings (argv, envp), bounded in entries and total bytes.
    pub fn strings(&self, addr: u64) -> io::Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        self.each_string(addr, |s| out.push(s.to_vec()))?;
        Ok(out)
    }

    /// Each string of a NULL-terminated array in turn, where it lies in the kept page (or
    /// copied into one reused buffer when it goes on into the next page), with the bounds of
    /// [`Memory::strings`].
    pub fn each_string(&self, addr: u64, mut f: impl FnMut(&[u8])) -> io::Result<()> {
        if addr == 0 {
            return Ok(());
        }
        let mut buf = Vec::new();
        let mut total = 0usize;
        // The pointers are taken a page's worth at a time (one page lookup for many entries).
        let mut pointers: Vec<u64> = Vec::new();
        let mut next = 0;
        for i in 0..=MAX_ENTRIES {
            if i == MAX_ENTRIES {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "too many entries",
                ));
            }
            if next == pointers.len() {
                self.pointers_into(&mut pointers, addr + (i * self.pointer_size) as u64)?;
                self.prefetch(&pointers);
                next = 0;
            }
            let p = pointers[next];
            next += 1;
            if p == 0 {
                break;
            }
            // Most strings end on the page they start on: handed over where they lie, not
            // copied (an environment has a hundred entries and a judge keeps a few).
            let len = self.with_page(p, |bytes| {
                let end = nul_at(bytes)?;
                if total + end < MAX_TOTAL {
                    f(&bytes[..end]);
                }
                Some(end)
            })?;
            let len = match len {
                Some(len) => len,
                None => {
                    self.string_into(&mut buf, p, MAX_STRING)?;
                    if total + buf.len() < MAX_TOTAL {
                        f(&buf);
                    }
                    buf.len()
                }
            };
            total += len + 1;
            if total > MAX_TOTAL {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "too large"));
            }
        }
        Ok(())
    }

    fn read_exact(&self, buf: &mut [u8], addr: u64) -> io::Result<()> {
        let mut done = 0;
        while done < buf.len() {
            let n = self.read_at(&mut buf[done..], addr + done as u64)?;
            if n == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "unreadable"));
            }
            done += n;
        }
        Ok(())
    }

    /// `len` bytes at `addr` (a `sockaddr`).
    pub fn bytes(&self, addr: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut b = vec![0u8; len];
        self.read_exact(&mut b, addr)?;
        Ok(b)
    }

    /// 8 bytes at `addr` (openat2's `open_how.flags`).
    pub fn u64_at(&self, addr: u64) -> io::Result<u64> {
        let mut b = [0u8; 8];
        self.read_exact(&mut b, addr)?;
        Ok(u64::from_le_bytes(b))
    }
}

/// The index of the first NUL (a word at a time, not byte by byte: an environment is kilobytes).
fn nul_at(bytes: &[u8]) -> Option<usize> {
    std::ffi::CStr::from_bytes_until_nul(bytes)
        .ok()
        .map(|c| c.to_bytes().len())
}

/// Where a relative path of a process starts: its cwd (`AT_FDCWD`) or an open directory.
pub fn base_dir(pid: u32, dirfd: Option<i32>) -> io::Result<PathBuf> {
    match dirfd {
        None | Some(libc::AT_FDCWD) => std::fs::read_link(format!("/proc/{pid}/cwd")),
        Some(fd) => std::fs::read_link(format!("/proc/{pid}/fd/{fd}")),
    }
}

/// The short name of a process (`comm`), for the evidence.
pub fn program_of(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|s| s.trim_end().to_string())
        .unwrap_or_default()
}

/// Writes one line to the process's stderr without ever blocking. A regular file is written
/// through the process's own descriptor (`pidfd_getfd`: same offset, so the line lands between
/// the command's own output, not over it); a pipe or terminal through a new non-blocking open
/// of the same object (a full pipe loses the line; the audit record stays).
pub fn tell(pid: u32, line: &str) {
    let mut text = line.as_bytes().to_vec();
    text.push(b'\n');
    if let Some(f) = shared_stderr(pid) {
        if f.metadata().is_ok_and(|m| m.is_file()) {
            let _ = std::io::Write::write(&mut &f, &text);
            return;
        }
    }
    let f = std::fs::OpenOptions::new()
        .append(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(format!("/proc/{pid}/fd/2"));
    if let Ok(f) = f {
        let _ = std::io::Write::write(&mut &f, &text);
    }
}

/// A duplicate of the process's descriptor 2.
fn shared_stderr(pid: u32) -> Option<File> {
    // SAFETY: plain system calls; each returned descriptor is owned below.
    unsafe {
        let pidfd = libc::syscall(libc::SYS_pidfd_open, pid as libc::c_int, 0);
        if pidfd < 0 {
            return None;
        }
        let pidfd = OwnedFd::from_raw_fd(pidfd as RawFd);
        let fd = libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), 2, 0);
        (fd >= 0).then(|| File::from_raw_fd(fd as RawFd))
    }
}

/// Lossy text of raw bytes (paths and arguments are bytes).
pub fn lossy(b: &[u8]) -> String {
    OsStr::from_bytes(b).to_string_lossy().into_owned()
}

/// The raw descriptor of a listener.
pub fn raw(fd: &OwnedFd) -> RawFd {
    fd.as_raw_fd()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This process's own memory, read the way the supervisor reads a notified one.
    fn own() -> Memory {
        Memory::open(std::process::id(), std::mem::size_of::<usize>()).unwrap()
    }

    fn strings_of(mem: &Memory, pointers: &[usize]) -> (Vec<Vec<u8>>, io::Result<()>) {
        let mut seen = Vec::new();
        let r = mem.each_string(pointers.as_ptr() as u64, |s| seen.push(s.to_vec()));
        (seen, r)
    }

    #[test]
    fn a_string_that_goes_on_into_the_next_page_is_read_whole() {
        let mut area = vec![b'x'; 4 * 4096];
        let base = area.as_ptr() as usize;
        // A page boundary at least 64 bytes into the area (one closer to `base` made the start
        // below fall before the area when the allocator placed it just under a boundary).
        let page_end = (base + 64 + 4095) & !4095;
        // 10 bytes before a page boundary to 20 bytes after it.
        let start = page_end - 10 - base;
        area[start + 30] = 0;
        let short = start + 100;
        area[short..short + 3].copy_from_slice(b"ab\0");
        let pointers = [base + start, base + short, 0];
        let (seen, r) = strings_of(&own(), &pointers);
        r.unwrap();
        assert_eq!(seen, vec![vec![b'x'; 30], b"ab".to_vec()]);
    }

    #[test]
    fn an_array_over_the_total_bound_fails_and_what_is_over_is_not_handed_on() {
        // Eight strings of the longest length fill the total bound exactly; a ninth is over.
        let strings: Vec<Vec<u8>> = (0..9u8)
            .map(|i| {
                let mut v = vec![b'a' + i; MAX_STRING - 1];
                v.push(0);
                v
            })
            .collect();
        assert_eq!(8 * MAX_STRING, MAX_TOTAL);
        let mut pointers: Vec<usize> = strings.iter().map(|s| s.as_ptr() as usize).collect();
        pointers.push(0);
        let (seen, r) = strings_of(&own(), &pointers);
        assert_eq!(r.unwrap_err().to_string(), "too large");
        assert_eq!(seen.len(), 8);
        assert!(seen.iter().all(|s| s.len() == MAX_STRING - 1));
        // Without the ninth, all eight are read.
        pointers.remove(8);
        let (seen, r) = strings_of(&own(), &pointers);
        r.unwrap();
        assert_eq!(seen.len(), 8);
        // Short strings read where they lie (none crosses a page): the same bound.
        let mut area = vec![b's'; (4200 + 16) * 256];
        let skip = (4096 - area.as_ptr() as usize % 4096) % 4096;
        for i in 0..4200 {
            area[skip + i * 256 + 255] = 0;
        }
        let first = area.as_ptr() as usize + skip;
        let mut pointers: Vec<usize> = (0..4200).map(|i| first + i * 256).collect();
        pointers.push(0);
        let (seen, r) = strings_of(&own(), &pointers);
        assert_eq!(r.unwrap_err().to_string(), "too large");
        assert_eq!(seen.len(), MAX_TOTAL / 256);
    }

    #[test]
    fn a_pointer_array_across_a_page_boundary_is_read_whole_aligned_or_not() {
        let strings: Vec<Vec<u8>> = (1..=40u8).map(|i| vec![b'a' + i % 26, i, 0]).collect();
        let want: Vec<Vec<u8>> = strings.iter().map(|s| s[..2].to_vec()).collect();
        let mut area = vec![0u8; 3 * 4096];
        let base = area.as_ptr() as usize;
        // A page boundary at least 64 bytes into the area (one closer to `base` made the start
        // below fall before the area when the allocator placed it just under a boundary).
        let page_end = (base + 64 + 4095) & !4095;
        let size = std::mem::size_of::<usize>();
        // The array starts 5 pointers before a page boundary, on a pointer boundary or 3
        // bytes off it (a pointer then lies across the boundary).
        for skew in [0, 3] {
            let start = page_end - 5 * size - skew - base;
            for (i, s) in strings
                .iter()
                .chain(std::iter::once(&Vec::new()))
                .enumerate()
            {
                let p = if s.is_empty() { 0 } else { s.as_ptr() as usize };
                area[start + i * size..start + (i + 1) * size].copy_from_slice(&p.to_le_bytes());
            }
            let mut seen = Vec::new();
            own()
                .each_string((base + start) as u64, |s| seen.push(s.to_vec()))
                .unwrap();
            assert_eq!(seen, want, "skew {skew}");
        }
    }

    #[test]
    fn strings_on_several_pages_are_read_in_one_call_and_an_unmapped_page_still_fails() {
        // Six strings, each on a page of its own, the pointers on another (inside the same
        // page-aligned area: a pointer array of its own could straddle two pages, and the read
        // count below depended on where the allocator put it).
        let area = vec![0u8; 8 * 4096];
        let first = (area.as_ptr() as usize + 4095) & !4095;
        let mut pointers: Vec<usize> = Vec::new();
        for i in 0..6 {
            let at = first + i * 4096 + 100;
            // SAFETY: inside `area`, which lives to the end of the test.
            unsafe {
                std::ptr::copy_nonoverlapping(c"page".as_ptr().cast::<u8>(), at as *mut u8, 5)
            };
            pointers.push(at);
        }
        pointers.push(0);
        let table = first + 6 * 4096 + 64;
        // SAFETY: seven aligned words inside `area`'s seventh page, written once and read only
        // through the slice below while `area` lives.
        let pointers: &[usize] = unsafe {
            std::ptr::copy_nonoverlapping(pointers.as_ptr(), table as *mut usize, pointers.len());
            std::slice::from_raw_parts(table as *const usize, pointers.len())
        };
        let mem = own();
        let (seen, r) = strings_of(&mem, pointers);
        r.unwrap();
        assert_eq!(seen, vec![b"page".to_vec(); 6]);
        // The pointer page, then the six string pages together.
        assert_eq!(mem.reads.get(), 2);
        // The pages after an unmapped one are read one by one and the unmapped one fails.
        let len = 3 * 4096;
        // SAFETY: a fresh private mapping; its middle page is unmapped again at once.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        } as usize;
        assert_ne!(map, libc::MAP_FAILED as usize);
        unsafe {
            std::ptr::copy_nonoverlapping(c"a".as_ptr().cast::<u8>(), map as *mut u8, 2);
            std::ptr::copy_nonoverlapping(
                c"c".as_ptr().cast::<u8>(),
                (map + 2 * 4096) as *mut u8,
                2,
            );
            libc::munmap((map + 4096) as *mut libc::c_void, 4096);
        }
        let pointers = [map, map + 2 * 4096, map + 4096, 0];
        let (seen, r) = strings_of(&own(), &pointers);
        assert!(r.is_err());
        assert_eq!(seen, vec![b"a".to_vec(), b"c".to_vec()]);
        unsafe {
            libc::munmap(map as *mut libc::c_void, 4096);
            libc::munmap((map + 2 * 4096) as *mut libc::c_void, 4096);
        }
    }

    #[test]
    fn an_execs_two_arrays_and_their_strings_are_read_in_two_calls() {
        // argv's pointers on page 0, envp's on page 1, their strings on pages 2 and 3.
        let area = vec![0u8; 5 * 4096];
        let first = (area.as_ptr() as usize + 4095) & !4095;
        let put = |at: usize, bytes: &[u8]| {
            // SAFETY: inside `area`, which lives to the end of the test.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), at as *mut u8, bytes.len()) }
        };
        let (argv, envp) = (first, first + 4096);
        for (array, strings, words) in [
            (argv, first + 2 * 4096, [&b"git\0"[..], b"push\0"]),
            (envp, first + 3 * 4096, [&b"A=1\0"[..], b"B=2\0"]),
        ] {
            let mut at = strings;
            for (i, w) in words.iter().enumerate() {
                put(at, w);
                put(array + i * 8, &at.to_le_bytes());
                at += w.len();
            }
        }
        let read = |mem: &Memory| {
            let mut seen = Vec::new();
            mem.each_string(argv as u64, |s| seen.push(s.to_vec()))
                .unwrap();
            mem.each_string(envp as u64, |s| seen.push(s.to_vec()))
                .unwrap();
            seen
        };
        let want: Vec<Vec<u8>> = ["git", "push", "A=1", "B=2"]
            .map(|w| w.as_bytes().to_vec())
            .into();
        let mem = own();
        mem.prefetch(&[argv as u64, envp as u64]);
        mem.prefetch_strings(&[argv as u64, envp as u64]);
        assert_eq!(read(&mem), want);
        assert_eq!(
            mem.reads.get(),
            2,
            "the pointer pages, then both string pages"
        );
        // Without the strings prefetched, each array's one string page is a read of its own.
        let mem = own();
        mem.prefetch(&[argv as u64, envp as u64]);
        assert_eq!(read(&mem), want);
        assert_eq!(mem.reads.get(), 3);
    }

    #[test]
    fn an_unreadable_string_fails_the_array() {
        let ok = b"fine\0";
        let pointers = [ok.as_ptr() as usize, 0x10, 0];
        let (seen, r) = strings_of(&own(), &pointers);
        assert!(r.is_err());
        assert_eq!(seen, vec![b"fine".to_vec()]);
    }
}
