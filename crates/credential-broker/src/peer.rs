//! Which program sent a request (C11.4: "the program's pid and executable" in every audit
//! record). A client reaches the broker over loopback TCP; on Linux the kernel's socket table
//! (`/proc/net/tcp`, `/proc/net/tcp6`) names the inode of the client's end of the connection,
//! and the process holding that inode among its descriptors (`/proc/<pid>/fd`) is the sender;
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

/// The process whose socket is bound to `client_port` and connected to `server_port`, both on
/// loopback.
#[cfg(target_os = "linux")]
pub fn find(client_port: u16, server_port: u16) -> Option<Peer> {
    let inode = ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .find_map(|table| socket_inode(&table, client_port, server_port))?;
    let needle = format!("socket:[{inode}]");
    let me = std::process::id();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        let holds = fds.flatten().any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|t| t.as_os_str() == needle.as_str())
        });
        if holds {
            let exe = std::fs::read_link(entry.path().join("exe"))
                .ok()
                .map(|p| p.display().to_string());
            return Some(Peer { pid, exe });
        }
    }
    None
}

#[cfg(not(target_os = "linux"))]
pub fn find(_client_port: u16, _server_port: u16) -> Option<Peer> {
    None
}

/// The inode of the socket in `table` (the text of `/proc/net/tcp` or `tcp6`) whose local
/// port is `local` and remote port `remote`.
pub fn socket_inode(table: &str, local: u16, remote: u16) -> Option<u64> {
    table.lines().skip(1).find_map(|line| {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let port = |addr: &str| {
            addr.rsplit_once(':')
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
        };
        let (l, r, inode) = (cols.get(1)?, cols.get(2)?, cols.get(9)?);
        (port(l) == Some(local) && port(r) == Some(remote))
            .then(|| inode.parse().ok())
            .flatten()
            .filter(|i| *i != 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inode_of_one_connection() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:A917 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 144963 1\n   1: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 5551 1\n";
        assert_eq!(socket_inode(table, 0xC350, 0x1F90), Some(5551));
        assert_eq!(socket_inode(table, 0x1F90, 0xC350), None);
    }

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
