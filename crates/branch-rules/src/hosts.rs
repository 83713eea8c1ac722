//! Which hosts are GitHub, and where their REST API lives.
//!
//! GitHub is `github.com` (also reached as `ssh.github.com` for ssh over port 443) plus the
//! enterprise hosts the maintainer configured. A configured host under `.ghe.com` is a GitHub
//! Enterprise Cloud tenancy: it takes github.com's tokens and its API lives at `api.TENANT.ghe.com`;
//! any other configured host is GitHub Enterprise Server with its API under `/api/v3`.

use crate::remote::SshAliases;
pub(crate) use command_effects::git_url::normalise_host;

/// The kind of GitHub a host is; decides the token variables and the default API base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostKind {
    /// `github.com` itself.
    GitHubCom,
    /// A `*.ghe.com` tenancy (GitHub Enterprise Cloud with data residency).
    Tenancy,
    /// A GitHub Enterprise Server host.
    Server,
}

/// The set of hosts that count as GitHub for the guard, and the ssh aliases that lead to them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitHubHosts {
    enterprise: Vec<String>,
    ssh: SshAliases,
}

/// The canonical name of github.com.
pub const GITHUB_COM: &str = "github.com";

impl GitHubHosts {
    /// github.com plus the given enterprise hosts (case-insensitive; a port or trailing dot is
    /// ignored; empty entries are dropped).
    pub fn new<I, S>(enterprise: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut hosts: Vec<String> = enterprise
            .into_iter()
            .map(|h| normalise_host(h.as_ref()))
            .filter(|h| !h.is_empty() && h != GITHUB_COM)
            .collect();
        hosts.sort();
        hosts.dedup();
        GitHubHosts {
            enterprise: hosts,
            ssh: SshAliases::none(),
        }
    }

    /// The same hosts, with ssh aliases (`Host`/`HostName` from ssh config) applied to ssh URLs.
    pub fn with_ssh_aliases(mut self, aliases: SshAliases) -> Self {
        self.ssh = aliases;
        self
    }

    /// The host ssh really connects to for `host`, if an ssh config alias renames it.
    pub fn ssh_hostname(&self, host: &str) -> Option<String> {
        self.ssh.hostname_for(host)
    }

    /// Only github.com.
    pub fn github_com_only() -> Self {
        GitHubHosts::default()
    }

    /// The configured enterprise hosts, normalised.
    pub fn enterprise(&self) -> &[String] {
        &self.enterprise
    }

    /// What kind of GitHub `host` is, or `None` when it is not GitHub.
    pub fn kind(&self, host: &str) -> Option<HostKind> {
        let host = canonical_host(host);
        if host == GITHUB_COM {
            return Some(HostKind::GitHubCom);
        }
        if self.enterprise.contains(&host) {
            return Some(if host.ends_with(".ghe.com") {
                HostKind::Tenancy
            } else {
                HostKind::Server
            });
        }
        None
    }

    /// Whether `host` is a GitHub host.
    pub fn is_github(&self, host: &str) -> bool {
        self.kind(host).is_some()
    }
}

/// The normalised host, with GitHub's documented aliases folded into `github.com`.
pub fn canonical_host(host: &str) -> String {
    let host = normalise_host(host);
    match host.as_str() {
        "ssh.github.com" | "www.github.com" => GITHUB_COM.to_string(),
        _ => host,
    }
}

/// The environment variable that overrides the API base (maintainers, proxies, tests).
pub const API_OVERRIDE_ENV: &str = "AGENT_GUARDS_GITHUB_API";

/// The API base override: `AGENT_GUARDS_GITHUB_API` from the hook's environment when set and
/// non-empty, else the config key `github_api` when set and non-empty.
pub fn api_base_override(
    env: &dyn crate::token::Environment,
    config_github_api: Option<&str>,
) -> Option<String> {
    env.var(API_OVERRIDE_ENV)
        .filter(|v| !v.trim().is_empty())
        .or_else(|| config_github_api.map(str::to_string))
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The REST API base (no trailing slash) for a GitHub host of the given kind, unless the
/// maintainer overrode it (`AGENT_GUARDS_GITHUB_API` or config `github_api`, read by the caller).
pub fn api_base(host: &str, kind: HostKind, override_base: Option<&str>) -> String {
    if let Some(base) = override_base.map(str::trim).filter(|b| !b.is_empty()) {
        return base.trim_end_matches('/').to_string();
    }
    let host = canonical_host(host);
    match kind {
        HostKind::GitHubCom => "https://api.github.com".to_string(),
        HostKind::Tenancy => format!("https://api.{host}"),
        HostKind::Server => format!("https://{host}/api/v3"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let hosts = GitHubHosts::new(["GHE.Example.com", "acme.ghe.com", "", "github.com"]);
        assert_eq!(hosts.enterprise(), ["acme.ghe.com", "ghe.example.com"]);
        assert_eq!(hosts.kind("github.com"), Some(HostKind::GitHubCom));
        assert_eq!(hosts.kind("GitHub.com."), Some(HostKind::GitHubCom));
        assert_eq!(hosts.kind("ssh.github.com:443"), Some(HostKind::GitHubCom));
        assert_eq!(hosts.kind("ghe.example.com"), Some(HostKind::Server));
        assert_eq!(hosts.kind("acme.ghe.com"), Some(HostKind::Tenancy));
        assert_eq!(hosts.kind("other.ghe.com"), None);
        assert_eq!(hosts.kind("gitlab.com"), None);
        assert_eq!(hosts.kind("github.com.evil.example"), None);
        assert!(!GitHubHosts::github_com_only().is_github("ghe.example.com"));
    }

    #[test]
    fn api_bases() {
        assert_eq!(
            api_base("github.com", HostKind::GitHubCom, None),
            "https://api.github.com"
        );
        assert_eq!(
            api_base("ghe.example.com", HostKind::Server, None),
            "https://ghe.example.com/api/v3"
        );
        assert_eq!(
            api_base("acme.ghe.com", HostKind::Tenancy, None),
            "https://api.acme.ghe.com"
        );
        assert_eq!(
            api_base(
                "github.com",
                HostKind::GitHubCom,
                Some("http://127.0.0.1:9/ ")
            ),
            "http://127.0.0.1:9"
        );
        assert_eq!(
            api_base("github.com", HostKind::GitHubCom, Some("  ")),
            "https://api.github.com"
        );
    }

    #[test]
    fn override_precedence() {
        use std::collections::HashMap;
        let none: HashMap<String, String> = HashMap::new();
        assert_eq!(api_base_override(&none, None), None);
        assert_eq!(api_base_override(&none, Some(" ")), None);
        assert_eq!(
            api_base_override(&none, Some("https://proxy.example/api")),
            Some("https://proxy.example/api".into())
        );
        let env = HashMap::from([(
            API_OVERRIDE_ENV.to_string(),
            "http://127.0.0.1:1".to_string(),
        )]);
        assert_eq!(
            api_base_override(&env, Some("https://proxy.example/api")),
            Some("http://127.0.0.1:1".into())
        );
        let blank = HashMap::from([(API_OVERRIDE_ENV.to_string(), "".to_string())]);
        assert_eq!(
            api_base_override(&blank, Some("https://p.example")),
            Some("https://p.example".into())
        );
    }

    #[test]
    fn host_normalisation() {
        assert_eq!(normalise_host("[::1]:22"), "::1");
        assert_eq!(normalise_host("Host:2222"), "host");
        assert_eq!(normalise_host("host."), "host");
    }
}
