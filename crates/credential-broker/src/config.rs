//! What a broker is started with. The caller (the containment prefix, a test) fills it from
//! the maintainer's launch environment and config: the real token, the session's own
//! repository (G3's origin), the grants, which hosts are GitHub, and the bounds and timeouts.
//! Nothing here comes from an agent command. The model API side (issue 39) is
//! [`ModelConfig`]: the real model credentials, the base URL given at launch, the cloud hosts,
//! the grant and the alias variables M3 reads.

use crate::http1::Limits;
use branch_rules::RepoSlug;
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// github.com's hosts the broker terminates TLS for (enterprise hosts are added by config).
pub const GITHUB_HOSTS: [&str; 3] = ["github.com", "api.github.com", "uploads.github.com"];

/// The model API's own host, always terminated and judged (M3 on the wire).
pub const MODEL_API_HOST: &str = "api.anthropic.com";

/// The model API side of a broker (issue 39), filled from the maintainer's launch environment
/// ([`ModelConfig::from_launch_env`]). Every field defaults to empty: `api.anthropic.com` is
/// still terminated and judged, and no credential is added.
#[derive(Clone, Default)]
pub struct ModelConfig {
    /// The real `ANTHROPIC_API_KEY` (sent as `x-api-key`).
    pub api_key: Option<String>,
    /// The real `ANTHROPIC_AUTH_TOKEN` (sent as `Authorization: Bearer`).
    pub auth_token: Option<String>,
    /// `ANTHROPIC_BASE_URL` as given at launch: its host (https only) is terminated and judged,
    /// and it, not `api.anthropic.com`, is where the real credentials go.
    pub base_url: Option<String>,
    /// Bedrock or Vertex hosts the maintainer uses (`bedrock-runtime.us-east-1.amazonaws.com`,
    /// `us-east5-aiplatform.googleapis.com`): terminated and judged on 443; their own signed
    /// credentials pass unchanged (a SigV4 signature covers the request, nothing is swapped).
    pub cloud_hosts: Vec<String>,
    /// `MODEL_TIER_GUARD_ALLOW` of the maintainer's launch environment: the grant that lets
    /// the maintainer-only tier through.
    pub grant: Option<String>,
    /// The launch environment's model variables (`ANTHROPIC_DEFAULT_SONNET_MODEL`, ...):
    /// aliases on the wire resolve through them, as M1 resolves them.
    pub alias_env: BTreeMap<String, String>,
}

impl std::fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelConfig")
            .field("api_key", &self.api_key.as_ref().map(|_| "<withheld>"))
            .field(
                "auth_token",
                &self.auth_token.as_ref().map(|_| "<withheld>"),
            )
            .field("base_url", &self.base_url)
            .field("cloud_hosts", &self.cloud_hosts)
            .field("grant", &self.grant)
            .finish_non_exhaustive()
    }
}

impl ModelConfig {
    /// From the maintainer's launch environment (`lookup` of a variable; empty counts as
    /// unset): the two credentials, the base URL, the grant and the model variables.
    pub fn from_launch_env(lookup: impl Fn(&str) -> Option<String>) -> ModelConfig {
        let get = |k: &str| lookup(k).filter(|v| !v.is_empty());
        ModelConfig {
            api_key: get("ANTHROPIC_API_KEY"),
            auth_token: get("ANTHROPIC_AUTH_TOKEN"),
            base_url: get("ANTHROPIC_BASE_URL"),
            cloud_hosts: Vec::new(),
            grant: get(model_tier_guard::face::GRANT_VAR),
            alias_env: model_tier_guard::face::MODEL_VARS
                .iter()
                .filter_map(|k| get(k).map(|v| (k.to_string(), v)))
                .collect(),
        }
    }

    /// Where the real model credentials go: the base URL's host when one was given (none when
    /// it is not an https URL), else `api.anthropic.com:443`.
    pub fn credential_endpoint(&self) -> Option<(String, u16)> {
        match &self.base_url {
            Some(url) => https_endpoint(url),
            None => Some((MODEL_API_HOST.to_string(), 443)),
        }
    }

    /// Every (host, port) the broker terminates as a model API.
    pub fn endpoints(&self) -> Vec<(String, u16)> {
        let mut out = vec![(MODEL_API_HOST.to_string(), 443)];
        out.extend(self.base_url.as_deref().and_then(https_endpoint));
        out.extend(
            self.cloud_hosts
                .iter()
                .map(|h| (h.trim_end_matches('.').to_ascii_lowercase(), 443)),
        );
        out.sort();
        out.dedup();
        out
    }
}

/// The host and port of an `https://` URL whose host is a DNS name (an IP address or another
/// scheme: `None`, not terminated: the session CA certifies names only).
pub fn https_endpoint(url: &str) -> Option<(String, u16)> {
    let rest = url.trim().strip_prefix("https://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (h, p.parse().ok()?),
        _ => (authority, 443),
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let dns = !host.is_empty()
        && host.parse::<std::net::IpAddr>().is_err()
        && !host.starts_with('[')
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    dns.then_some((host, port))
}

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
    /// The model API side (issue 39; default: `api.anthropic.com` judged, no credential).
    pub model: ModelConfig,
    /// A model request body (Messages, batches) is read whole to be judged, at most this many
    /// bytes (the Messages API's own limit is 32 MB); a larger one counts as unreadable.
    pub max_model_body: usize,
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
            .field("model", &self.model)
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
            model: ModelConfig::default(),
            max_model_body: 32 * 1024 * 1024,
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

    /// Whether the broker terminates `host:port` as a model API (and judges M3 on it).
    pub fn is_model_endpoint(&self, host: &str, port: u16) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.model
            .endpoints()
            .iter()
            .any(|(h, p)| *h == host && *p == port)
    }

    /// Whether `host` is a model API host on any port (plain `http://` to it is refused).
    pub fn is_model_host(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.model.endpoints().iter().any(|(h, _)| *h == host)
    }

    /// The names the session CA may certify: github.com (and its subdomains), the enterprise
    /// hosts, and each model API host — exactly the hosts the broker terminates.
    pub fn terminated_names(&self) -> Vec<String> {
        let mut hosts = vec!["github.com".to_string()];
        hosts.extend(
            self.enterprise_hosts
                .iter()
                .map(|h| h.trim_end_matches('.').to_ascii_lowercase()),
        );
        hosts.extend(self.model.endpoints().into_iter().map(|(h, _)| h));
        hosts.sort();
        hosts.dedup();
        hosts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_url_host_is_terminated_only_for_https_names() {
        assert_eq!(
            https_endpoint("https://Gateway.Example/anthropic"),
            Some(("gateway.example".into(), 443))
        );
        assert_eq!(
            https_endpoint("https://gw.example:8443"),
            Some(("gw.example".into(), 8443))
        );
        for not in [
            "http://gw.example",
            "https://10.0.0.2/x",
            "https://[::1]:443",
            "https://",
            "gw.example",
        ] {
            assert_eq!(https_endpoint(not), None, "{not}");
        }
        let mut m = ModelConfig::from_launch_env(|k| match k {
            "ANTHROPIC_BASE_URL" => Some("https://gw.example/a".into()),
            "ANTHROPIC_API_KEY" => Some("sk-real".into()),
            "ANTHROPIC_AUTH_TOKEN" => Some(String::new()),
            "ANTHROPIC_DEFAULT_SONNET_MODEL" => Some("claude-fable-5".into()),
            _ => None,
        });
        assert_eq!(m.auth_token, None, "empty is unset");
        assert_eq!(m.alias_env.len(), 1);
        assert!(!format!("{m:?}").contains("sk-real"));
        m.cloud_hosts
            .push("bedrock-runtime.us-east-1.amazonaws.com".into());
        assert_eq!(m.credential_endpoint(), Some(("gw.example".into(), 443)));
        let mut c = Config::new("t", None, "/tmp/x");
        c.model = m;
        assert_eq!(
            c.terminated_names(),
            [
                "api.anthropic.com",
                "bedrock-runtime.us-east-1.amazonaws.com",
                "github.com",
                "gw.example"
            ]
        );
        assert!(c.is_model_endpoint("API.anthropic.com.", 443));
        assert!(!c.is_model_endpoint("api.anthropic.com", 8443));
        assert!(!c.is_model_endpoint("console.anthropic.com", 443));
    }
}
