//! Network use observed at the source: a `connect` to a non-local address is the evidence for
//! I1's network signal and taints the session (K5: taint from what the action did). With
//! `network_allow` set and integrity `mode = "enforce"`, a destination that is none of the
//! allowed hosts' addresses is refused. Loopback and unspecified addresses, non-IP sockets and
//! name lookups (port 53 of a resolver `/etc/resolv.conf` names) are local work and pass
//! unrecorded; port 53 of any other address is an ordinary destination (issue 41: every
//! destination on port 53 was exempt). A datagram sent to an address (`sendto` with one) is
//! judged like a `connect`.

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::sync::{Mutex, OnceLock};

/// A parsed `sockaddr`: `None` for families that are not IP.
pub fn parse_sockaddr(b: &[u8]) -> Option<SocketAddr> {
    let family = u16::from_ne_bytes([*b.first()?, *b.get(1)?]) as i32;
    let port = u16::from_be_bytes([*b.get(2)?, *b.get(3)?]);
    match family {
        libc::AF_INET => {
            let a: [u8; 4] = b.get(4..8)?.try_into().ok()?;
            Some(SocketAddr::new(IpAddr::V4(Ipv4Addr::from(a)), port))
        }
        libc::AF_INET6 => {
            let a: [u8; 16] = b.get(8..24)?.try_into().ok()?;
            Some(SocketAddr::new(IpAddr::V6(Ipv6Addr::from(a)), port))
        }
        _ => None,
    }
}

/// Whether a destination is this machine, or a name lookup at one of `resolvers`, so not
/// network use.
pub fn is_local(d: &SocketAddr, resolvers: &[IpAddr]) -> bool {
    let ip = match d.ip() {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    };
    ip.is_loopback() || ip.is_unspecified() || (d.port() == 53 && resolvers.contains(&ip))
}

/// The name servers `/etc/resolv.conf` names (bounded read; none when it cannot be read).
pub fn system_resolvers() -> Vec<IpAddr> {
    let text = primitives::read::prefix(std::path::Path::new("/etc/resolv.conf"), 64 * 1024)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    resolvers_in(&text)
}

/// The `nameserver` addresses of a resolv.conf text.
pub fn resolvers_in(text: &str) -> Vec<IpAddr> {
    text.lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            (words.next()? == "nameserver")
                .then(|| words.next()?.split('%').next()?.parse().ok())
                .flatten()
        })
        .collect()
}

/// What the policy says about one destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    Allowed,
    Blocked,
}

impl Decision {
    /// What the audit record says (session-store's one `Decision`): a connect let through is
    /// evidence recorded (I1, taint), a blocked one a refusal.
    pub fn audit(self) -> session_store::Decision {
        match self {
            Decision::Allowed => session_store::Decision::Recorded,
            Decision::Blocked => session_store::Decision::Deny,
        }
    }
}

/// The session's network policy: `network_allow` hosts, and whether to enforce.
pub struct Policy {
    pub allow: Vec<String>,
    pub enforce: bool,
    /// The allowed hosts' addresses, resolved once on the first refusal candidate.
    resolved: OnceLock<HashSet<IpAddr>>,
    /// Destinations already recorded (one record per destination, program and decision).
    seen: Mutex<HashSet<(SocketAddr, String, Decision)>>,
}

impl Policy {
    pub fn new(allow: Vec<String>, mode: Option<&str>) -> Policy {
        let enforce = mode.is_some_and(|m| m.trim().eq_ignore_ascii_case("enforce"));
        Policy {
            allow,
            enforce,
            resolved: OnceLock::new(),
            seen: Mutex::new(HashSet::new()),
        }
    }

    /// Whether `d` may be connected to.
    pub fn decide(&self, d: &SocketAddr) -> Decision {
        if !self.enforce || self.allow.is_empty() {
            return Decision::Allowed;
        }
        let ips = self.resolved.get_or_init(|| {
            self.allow
                .iter()
                .filter_map(|h| {
                    let h = h.trim().trim_start_matches("*.");
                    (h, 0u16).to_socket_addrs().ok()
                })
                .flatten()
                .map(|a| a.ip())
                .collect()
        });
        if ips.contains(&d.ip()) {
            Decision::Allowed
        } else {
            Decision::Blocked
        }
    }

    /// True the first time this (destination, program, decision) is seen.
    pub fn first_time(&self, d: SocketAddr, program: &str, decision: Decision) -> bool {
        self.seen
            .lock()
            .map(|mut s| s.insert((d, program.to_string(), decision)))
            .unwrap_or(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(a: [u8; 4], port: u16) -> Vec<u8> {
        let mut b = (libc::AF_INET as u16).to_ne_bytes().to_vec();
        b.extend(port.to_be_bytes());
        b.extend(a);
        b.extend([0u8; 8]);
        b
    }

    #[test]
    fn addresses_parse_and_local_ones_are_not_network_use() {
        let d = parse_sockaddr(&v4([93, 184, 216, 34], 443)).unwrap();
        assert_eq!(d.to_string(), "93.184.216.34:443");
        assert!(!is_local(&d, &[]));
        assert!(is_local(
            &parse_sockaddr(&v4([127, 0, 0, 1], 8080)).unwrap(),
            &[]
        ));
        assert!(is_local(
            &parse_sockaddr(&v4([0, 0, 0, 0], 80)).unwrap(),
            &[]
        ));
        // Port 53 is a name lookup only at the system's resolvers (issue 41).
        let resolvers =
            resolvers_in("# x\nnameserver 10.0.0.2\nnameserver fe80::1%eth0\nsearch a\n");
        assert_eq!(resolvers.len(), 2);
        assert!(is_local(
            &parse_sockaddr(&v4([10, 0, 0, 2], 53)).unwrap(),
            &resolvers
        ));
        assert!(!is_local(
            &parse_sockaddr(&v4([10, 0, 0, 3], 53)).unwrap(),
            &resolvers
        ));
        assert!(!is_local(
            &parse_sockaddr(&v4([10, 0, 0, 2], 80)).unwrap(),
            &resolvers
        ));
        let mut unix = (libc::AF_UNIX as u16).to_ne_bytes().to_vec();
        unix.extend(b"/run/x.sock\0");
        assert_eq!(parse_sockaddr(&unix), None);
        assert_eq!(parse_sockaddr(&[2]), None);
        let mapped: SocketAddr = "[::ffff:127.0.0.1]:80".parse().unwrap();
        assert!(is_local(&mapped, &[]));
    }

    #[test]
    fn only_enforce_with_an_allow_list_blocks_and_allowed_addresses_pass() {
        let d: SocketAddr = "192.0.2.7:443".parse().unwrap();
        assert_eq!(
            Policy::new(vec![], Some("enforce")).decide(&d),
            Decision::Allowed
        );
        assert_eq!(
            Policy::new(vec!["localhost".into()], Some("observe")).decide(&d),
            Decision::Allowed
        );
        let p = Policy::new(vec!["localhost".into()], Some("ENFORCE"));
        assert_eq!(p.decide(&d), Decision::Blocked);
        assert_eq!(
            p.decide(&"127.0.0.1:80".parse().unwrap()),
            Decision::Allowed
        );
        assert!(p.first_time(d, "curl", Decision::Blocked));
        assert!(!p.first_time(d, "curl", Decision::Blocked));
    }
}
