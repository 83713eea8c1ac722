//! Remote URLs as git reads them: where a URL points (a host and a path, or the local file
//! system) and, for a GitHub host, which repository it names. Pure string work, no I/O. The URL
//! reading itself is command-effects' `git_url` (one reader for every crate).

use crate::hosts::{canonical_host, GitHubHosts};
use command_effects::git_url::is_ssh_transport;
pub use command_effects::git_url::{owner_repo, parse_url, UrlLocation};

/// A repository on a host: `owner/repo` as named by a URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RepoSlug {
    /// Canonical host (`github.com` for all of github.com's spellings).
    pub host: String,
    pub owner: String,
    pub repo: String,
}

impl std::fmt::Display for RepoSlug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.host, self.owner, self.repo)
    }
}

/// Where a push (or a URL) really goes, as far as the guard is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// A repository on a GitHub host.
    GitHub(RepoSlug),
    /// A GitHub host, but the path does not name `owner/repo`: rules cannot be looked up.
    GitHubUnrecognised { host: String, url: String },
    /// Some other host (not github.com nor a configured enterprise host).
    OtherHost { host: String, url: String },
    /// A path on this machine.
    Local { url: String },
}

impl Destination {
    /// Whether this destination is on a GitHub host (recognised path or not).
    pub fn is_github(&self) -> bool {
        matches!(
            self,
            Destination::GitHub(_) | Destination::GitHubUnrecognised { .. }
        )
    }
}

/// Classifies a URL against the set of GitHub hosts; for ssh URLs the host is first looked up
/// in the ssh aliases the hosts carry (`Host work-gh` / `HostName github.com`).
pub fn classify_url(url: &str, hosts: &GitHubHosts) -> Destination {
    match parse_url(url) {
        UrlLocation::Local => Destination::Local {
            url: url.to_string(),
        },
        UrlLocation::Host { host, path } => {
            let host = if is_ssh_transport(url) {
                hosts.ssh_hostname(&host).unwrap_or(host)
            } else {
                host
            };
            if !hosts.is_github(&host) {
                return Destination::OtherHost {
                    host,
                    url: url.to_string(),
                };
            }
            let host = canonical_host(&host);
            match owner_repo(&path) {
                Some((owner, repo)) => Destination::GitHub(RepoSlug { host, owner, repo }),
                None => Destination::GitHubUnrecognised {
                    host,
                    url: url.to_string(),
                },
            }
        }
    }
}

/// `owner/repo` of any host's URL whose path has exactly those two parts (for G3, which
/// compares owners whatever the host).
pub fn repo_slug(url: &str) -> Option<RepoSlug> {
    match parse_url(url) {
        UrlLocation::Host { host, path } => owner_repo(&path).map(|(owner, repo)| RepoSlug {
            host: canonical_host(&host),
            owner,
            repo,
        }),
        UrlLocation::Local => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(h: &str, p: &str) -> UrlLocation {
        UrlLocation::Host {
            host: h.into(),
            path: p.into(),
        }
    }

    #[test]
    fn url_shapes() {
        assert_eq!(
            parse_url("https://github.com/o/r.git"),
            host("github.com", "/o/r.git")
        );
        assert_eq!(
            parse_url("https://user:p@ss@GitHub.com:443/o/r"),
            host("github.com", "/o/r")
        );
        assert_eq!(
            parse_url("git@github.com:o/r.git"),
            host("github.com", "o/r.git")
        );
        assert_eq!(parse_url("github.com:o/r"), host("github.com", "o/r"));
        assert_eq!(
            parse_url("ssh://git@ssh.github.com:443/o/r.git"),
            host("ssh.github.com", "/o/r.git")
        );
        assert_eq!(
            parse_url("git+ssh://git@ghe.example.com/o/r"),
            host("ghe.example.com", "/o/r")
        );
        assert_eq!(parse_url("git@[::1]:o/r"), host("::1", "o/r"));
        assert_eq!(
            parse_url("persistent-https::https://github.com/o/r"),
            host("github.com", "/o/r")
        );
        assert_eq!(
            parse_url("https://github.com/o%2Dx/r"),
            host("github.com", "/o-x/r")
        );
        assert_eq!(parse_url("https://github.com"), host("github.com", ""));
        for local in [
            "/srv/git/r.git",
            "./r",
            "../x:y/r",
            "r.git",
            "file:///srv/r.git",
            "FILE://x/r",
            "C:\\repo",
            "c:/repo",
            "",
            "https:///nohost",
        ] {
            assert_eq!(parse_url(local), UrlLocation::Local, "{local}");
        }
    }

    #[test]
    fn classification() {
        let hosts = GitHubHosts::new(["ghe.example.com"]);
        let gh = |h: &str, o: &str, r: &str| {
            Destination::GitHub(RepoSlug {
                host: h.into(),
                owner: o.into(),
                repo: r.into(),
            })
        };
        assert_eq!(
            classify_url("git@github.com:o/r.git", &hosts),
            gh("github.com", "o", "r")
        );
        assert_eq!(
            classify_url("ssh://git@ssh.github.com:443/o/r.git", &hosts),
            gh("github.com", "o", "r")
        );
        assert_eq!(
            classify_url("https://GHE.example.com/team/svc", &hosts),
            gh("ghe.example.com", "team", "svc")
        );
        assert!(matches!(
            classify_url("https://github.com/o/r/pulls", &hosts),
            Destination::GitHubUnrecognised { .. }
        ));
        assert!(matches!(
            classify_url("https://gitlab.com/o/r", &hosts),
            Destination::OtherHost { .. }
        ));
        assert!(matches!(
            classify_url("/tmp/bare.git", &hosts),
            Destination::Local { .. }
        ));
        assert!(classify_url("https://github.com/o/r/x", &hosts).is_github());
        assert_eq!(
            repo_slug("git@gitlab.com:o/r"),
            Some(RepoSlug {
                host: "gitlab.com".into(),
                owner: "o".into(),
                repo: "r".into()
            })
        );
    }

    #[test]
    fn ssh_aliases_lead_to_github() {
        let aliases = crate::remote::SshAliases::parse(
            "Host work-gh\n HostName github.com\nHost ent\n HostName GHE.example.com\n",
            None,
        );
        let hosts = GitHubHosts::new(["ghe.example.com"]).with_ssh_aliases(aliases);
        let gh = |h: &str| {
            Destination::GitHub(RepoSlug {
                host: h.into(),
                owner: "o".into(),
                repo: "r".into(),
            })
        };
        assert_eq!(
            classify_url("git@work-gh:o/r.git", &hosts),
            gh("github.com")
        );
        assert_eq!(
            classify_url("ssh://git@work-gh:22/o/r", &hosts),
            gh("github.com")
        );
        assert_eq!(classify_url("ent:o/r", &hosts), gh("ghe.example.com"));
        // https does not go through ssh: the alias does not apply.
        assert!(matches!(
            classify_url("https://work-gh/o/r", &hosts),
            Destination::OtherHost { .. }
        ));
    }
}
