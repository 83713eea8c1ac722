//! Who owns a repository a command reads from, in any of git's URL spellings (`Local`, an
//! owner, or remote with no readable owner) and in `gh` repository specs (K5 reads it to tell
//! the maintainer's own content from others').

/// The owner a git remote URL points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteOwner {
    /// A path on this machine (`/x`, `./x`, `file://...`): the maintainer's own files.
    Local,
    /// A host with an owner path segment (`https://github.com/<owner>/...`, `git@h:<owner>/...`).
    Owner(String),
    /// Remote, but no owner can be read from it.
    Unknown,
}

/// Reads the owner of a git URL in any of git's spellings ([`crate::git_url::parse_url`]).
pub fn owner_of_git_url(url: &str) -> RemoteOwner {
    if url.trim().is_empty() {
        return RemoteOwner::Unknown;
    }
    match crate::git_url::parse_url(url) {
        crate::git_url::UrlLocation::Local => RemoteOwner::Local,
        crate::git_url::UrlLocation::Host { path, .. } => first_segment(&path),
    }
}

fn first_segment(path: &str) -> RemoteOwner {
    let path = path.trim_start_matches('/').trim_start_matches('~');
    match path.split('/').next() {
        Some(seg) if is_owner_name(seg) => RemoteOwner::Owner(seg.to_string()),
        _ => RemoteOwner::Unknown,
    }
}

fn is_owner_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 100
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The owner named by a `gh` repository spec: `owner/repo`, `host/owner/repo`, or a URL.
/// `None` when the spec names no owner we can read (a bare `repo` is the current owner's).
pub fn owner_of_repo_spec(spec: &str) -> Option<String> {
    let spec = spec.trim();
    if spec.contains("://") {
        return match owner_of_git_url(spec) {
            RemoteOwner::Owner(o) => Some(o),
            _ => None,
        };
    }
    let parts: Vec<&str> = spec.split('/').filter(|p| !p.is_empty()).collect();
    let owner = match parts.as_slice() {
        [owner, _repo] => owner,
        [_host, owner, _repo] => owner,
        _ => return None,
    };
    is_owner_name(owner).then(|| owner.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_url_spellings() {
        let o = |s: &str| RemoteOwner::Owner(s.to_string());
        assert_eq!(
            owner_of_git_url("https://github.com/rust-lang/rust.git"),
            o("rust-lang")
        );
        assert_eq!(
            owner_of_git_url("http://user@gh.corp:8443/Team/x"),
            o("Team")
        );
        assert_eq!(
            owner_of_git_url("ssh://git@github.com:22/acme/tools"),
            o("acme")
        );
        assert_eq!(owner_of_git_url("git@github.com:acme/tools.git"), o("acme"));
        assert_eq!(owner_of_git_url("github.com:acme/tools"), o("acme"));
        assert_eq!(owner_of_git_url("git://host/~alice/x"), o("alice"));
        assert_eq!(owner_of_git_url("/srv/git/x.git"), RemoteOwner::Local);
        assert_eq!(owner_of_git_url("../x"), RemoteOwner::Local);
        assert_eq!(owner_of_git_url("file:///srv/x"), RemoteOwner::Local);
        assert_eq!(owner_of_git_url("repo-dir"), RemoteOwner::Local);
        assert_eq!(owner_of_git_url("https://host/"), RemoteOwner::Unknown);
        assert_eq!(owner_of_git_url(""), RemoteOwner::Unknown);
    }

    #[test]
    fn repo_specs() {
        let specs = [
            ("cli/cli", Some("cli")),
            ("ghe.corp/team/x", Some("team")),
            ("https://github.com/o/r/pull/3", Some("o")),
            ("repo", None),
            ("a/b/c/d", None),
        ];
        for (spec, want) in specs {
            assert_eq!(owner_of_repo_spec(spec).as_deref(), want, "{spec}");
        }
    }
}
