//! `owner/repo` named by a URL, an scp-like address or `[HOST/]OWNER/REPO`, once for every
//! guard.

/// `{owner}`, `<repo>`, `:owner` and similar: not a real target.
pub fn is_placeholder(s: &str) -> bool {
    s.starts_with('{') || s.starts_with('<') || s.starts_with(':') || s.contains(['{', '<'])
}

/// `[HOST/]OWNER/REPO`, `https://host/owner/repo(.git)`, `git@host:owner/repo.git` →
/// `(owner, repo)`; placeholders are not targets.
pub fn parse_repo(value: &str) -> Option<(String, String)> {
    let v = value.trim();
    let v = match v.split_once("://") {
        Some((_, r)) => r.to_string(),
        // scp-like `git@host:owner/repo`: the host ends at the first colon.
        None => match v.split_once(':') {
            Some((host, path)) if !host.contains('/') && !path.starts_with('/') => {
                format!("{host}/{path}")
            }
            _ => v.to_string(),
        },
    };
    let v = v.trim_end_matches('/');
    let v = v.strip_suffix(".git").unwrap_or(v);
    let parts: Vec<&str> = v.split('/').filter(|p| !p.is_empty()).collect();
    let (owner, repo) = match parts.len() {
        2 => (parts[0], parts[1]),
        3 => (parts[1], parts[2]),
        _ => return None,
    };
    if is_placeholder(owner) || is_placeholder(repo) {
        return None;
    }
    Some((owner.to_string(), repo.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling() {
        let want = Some(("o".to_string(), "r".to_string()));
        assert_eq!(parse_repo("o/r"), want);
        assert_eq!(parse_repo("github.com/o/r"), want);
        assert_eq!(parse_repo("https://github.com/o/r.git"), want);
        assert_eq!(parse_repo("git@github.com:o/r.git"), want);
        assert_eq!(parse_repo("{owner}/{repo}"), None);
    }
}
