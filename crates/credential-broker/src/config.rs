//! What a broker is started with. The caller (the containment prefix, a test) fills it from
//! the maintainer's launch environment and config: the real token, the session's own
//! repository (G3's origin), the grants, which hosts are GitHub, and the bounds and timeouts.
//! Nothing here comes from an agent command.

use crate::http1::Limits;
use branch_rules::RepoSlug;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// github.com's hosts the broker terminates TLS for (enterprise hosts are added by config).
pub const GITHUB_HOSTS: [&str; 3] = ["github.com", "api.github.com", "uploads.github.com"];

/// Timeouts: no socket waits longer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// A client connection with no request (keep-alive idle, a slow head or body).
    pub client_idle: Duration,
    /// Connecting to an upstream.
    pub connect: Duration,
    /// Each read or write on an upstream (GitHub answering a push may take a while).
    pub upstream_io: Duration,
    /// An idle plain tunnel.
    pub tunnel_idle: Duration,
    /// The live branch-rules lookup and the merge-state lookup.
    pub lookup: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            client_idle: Duration::from_secs(60),
            connect: Duration::from_secs(10),
            upstream_io: Duration::from_secs(120),
            tunnel_idle: Duration::from_secs(600),
            lookup: Duration::from_secs(3),
        }
    }
}

/// A broker's settings.
#[derive(Clone)]
pub struct Config {
    /// The real GitHub token (never written anywhere by the broker).
    pub token: String,
    /// Random bytes the placeholder is made from.
    pub placeholder_seed: Vec<u8>,
    /// The session's own repository: G3 refuses writes to other owners' (`None`: G3 skips,
    /// as the hook does with no origin).
    pub session_repo: Option<RepoSlug>,
    /// `GH_WRITE_GUARD_ALLOW` of the maintainer's launch environment (G3 grants).
    pub owner_grant: Option<String>,
    /// The maintainer's config (protected branches for G4's fail-closed policy).
    pub guard: guard_config::Config,
    /// Enterprise hosts (gh's hosts), terminated and judged like github.com.
    pub enterprise_hosts: Vec<String>,
    /// The API base the branch rules are read from (`None`: each host's own API).
    pub rules_api: Option<String>,
    /// Sends a GitHub host's connections to another address (tests: the loopback GitHub).
    pub upstream_addrs: HashMap<String, SocketAddr>,
    /// Extra roots trusted for upstreams, PEM (tests: the loopback GitHub's CA).
    pub upstream_roots_pem: Vec<String>,
    /// Whether the system's roots are trusted for upstreams.
    pub system_roots: bool,
    /// Where the session CA's certificate (and the bundle with the system roots) is written.
    pub ca_dir: PathBuf,
    pub limits: Limits,
    pub timeouts: Timeouts,
    /// Most client connections served at once (more are answered 503).
    pub max_connections: usize,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("token", &"<withheld>")
            .field("session_repo", &self.session_repo)
            .field("enterprise_hosts", &self.enterprise_hosts)
            .field("rules_api", &self.rules_api)
            .field("upstream_addrs", &self.upstream_addrs)
            .field("ca_dir", &self.ca_dir)
            .finish_non_exhaustive()
    }
}

impl Config {
    /// Defaults around the token, the repository and the CA folder.
    pub fn new(
        token: impl Into<String>,
        session_repo: Option<RepoSlug>,
        ca_dir: impl Into<PathBuf>,
    ) -> Config {
        Config {
            token: token.into(),
            placeholder_seed: Vec::new(),
            session_repo,
            owner_grant: None,
            guard: guard_config::Config::default(),
            enterprise_hosts: Vec::new(),
            rules_api: None,
            upstream_addrs: HashMap::new(),
            upstream_roots_pem: Vec::new(),
            system_roots: true,
            ca_dir: ca_dir.into(),
            limits: Limits::default(),
            timeouts: Timeouts::default(),
            max_connections: 512,
        }
    }

    /// Whether the broker terminates TLS for `host` (and judges what goes to it).
    pub fn is_github(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        GITHUB_HOSTS.contains(&host.as_str())
            || self
                .enterprise_hosts
                .iter()
                .any(|h| h.eq_ignore_ascii_case(&host))
    }
}
