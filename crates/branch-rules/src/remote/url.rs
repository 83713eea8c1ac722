//! Remote URLs as git reads them: where a URL points (a host and a path, or the local file
//! system) and, for a GitHub host, which repository it names. Pure string work, no I/O.

use crate::hosts::{canonical_host, normalise_host, GitHubHosts};

/// Where a URL points, by git's rules for telling URLs, scp-like addresses and paths apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlLocation {
    /// A network address: host (normalised, no user or port) and the path on it.
    Host { host: String, path: String },
    /// A path on this machine (plain path, `file://` URL, or anything git would treat as one).
    Local,
}

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

/// Reads where `url` points, following git's rules: `<transport>::<address>` names a remote
/// helper and its address; `scheme://` is a URL (`file://` is local); `[user@]host:path` is
/// scp-like unless a `/` comes before the first `:`; anything else is a local path.
pub fn parse_url(url: &str) -> UrlLocation {
    let url = url.trim();
    let url = strip_remote_helper(url);
    if let Some((scheme, rest)) = split_scheme(url) {
        if scheme.eq_ignore_ascii_case("file") {
            return UrlLocation::Local;
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        // userinfo may itself contain '@' in a password; the host follows the last one.
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = normalise_host(host_port);
        if host.is_empty() {
            return UrlLocation::Local;
        }
        return UrlLocation::Host {
            host,
            path: percent_decode(path),
        };
    }
    if let Some((host, path)) = split_scp_like(url) {
        return UrlLocation::Host {
            host: normalise_host(host),
            path: path.to_string(),
        };
    }
    UrlLocation::Local
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

/// The `owner` and `repo` of a path such as `/owner/repo.git/` or `owner/repo`.
pub fn owner_repo(path: &str) -> Option<(String, String)> {
    let path = path.trim_start_matches('/').trim_end_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let (owner, repo) = path.split_once('/')?;
    if !valid_owner(owner) || !valid_repo(repo) {
        return None;
    }
    Some((owner.to_string(), repo.to_string()))
}

fn valid_owner(owner: &str) -> bool {
    // GitHub logins are alphanumerics and '-'; enterprise-managed users add '_'.
    !owner.is_empty()
        && owner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn valid_repo(repo: &str) -> bool {
    !repo.is_empty()
        && repo != "."
        && repo != ".."
        && repo
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Whether git reaches this URL through ssh (scp-like, `ssh://`, `git+ssh://`, `ssh+git://`).
fn is_ssh_transport(url: &str) -> bool {
    let url = strip_remote_helper(url.trim());
    match split_scheme(url) {
        Some((scheme, _)) => ["ssh", "git+ssh", "ssh+git"]
            .iter()
            .any(|s| scheme.eq_ignore_ascii_case(s)),
        None => split_scp_like(url).is_some(),
    }
}

/// `helper::address` → `address` (git runs `git-remote-helper` on the address).
fn strip_remote_helper(url: &str) -> &str {
    if let Some(i) = url.find("::") {
        let helper = &url[..i];
        if !helper.is_empty()
            && helper
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        {
            return &url[i + 2..];
        }
    }
    url
}

/// `scheme://rest` → (scheme, rest) when the scheme is well-formed.
fn split_scheme(url: &str) -> Option<(&str, &str)> {
    let i = url.find("://")?;
    let scheme = &url[..i];
    let mut bytes = scheme.bytes();
    let first_ok = bytes.next().is_some_and(|b| b.is_ascii_alphabetic());
    if first_ok && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')) {
        Some((scheme, &url[i + 3..]))
    } else {
        None
    }
}

/// `[user@]host:path` or `[user@][host]:path` → (host, path), or `None` for a local path.
fn split_scp_like(url: &str) -> Option<(&str, &str)> {
    let (host_part, path) = if let Some(open) = url.find('[') {
        // A bracketed host; git only treats it as such at the start or after `user@`.
        let before = &url[..open];
        if !(before.is_empty() || (before.ends_with('@') && !before.contains('/'))) {
            return None;
        }
        let close = url[open..].find(']')? + open;
        let rest = &url[close + 1..];
        let path = rest.strip_prefix(':')?;
        (&url[open + 1..close], path)
    } else {
        let colon = url.find(':')?;
        if url[..colon].contains('/') {
            return None;
        }
        (&url[..colon], &url[colon + 1..])
    };
    let host = host_part.rsplit_once('@').map_or(host_part, |(_, h)| h);
    // A one-letter "host" is a DOS drive (`C:\x`), which git treats as a path.
    if host.is_empty() || (host.len() == 1 && host.as_bytes()[0].is_ascii_alphabetic()) {
        return None;
    }
    Some((host, path))
}

/// Decodes `%XX` escapes (invalid escapes stay as written; invalid UTF-8 is replaced).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
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
    fn slugs() {
        assert_eq!(owner_repo("/o/r.git/"), Some(("o".into(), "r".into())));
        assert_eq!(
            owner_repo("Own-er/re.po_x"),
            Some(("Own-er".into(), "re.po_x".into()))
        );
        assert_eq!(owner_repo("o/r/extra"), None);
        assert_eq!(owner_repo("o"), None);
        assert_eq!(owner_repo("o/.."), None);
        assert_eq!(owner_repo("o/r%x"), None);
        assert_eq!(owner_repo("~o/r"), None);
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

    #[test]
    fn percent_decoding_edges() {
        assert_eq!(percent_decode("a%41"), "aA");
        assert_eq!(percent_decode("a%4"), "a%4");
        assert_eq!(percent_decode("%zz%"), "%zz%");
        assert_eq!(percent_decode("%"), "%");
    }
}
