//! Git remote URLs as git reads them: where a URL points (a host and a path, or the local file
//! system; remote helpers, `scheme://`, scp-like `[user@]host:path`, percent escapes) and the
//! `owner/repo` a path names. One reader for every crate: `owner` (who owns a URL) and
//! branch-rules' remote resolution both use it. Pure string work, no I/O.

/// Where a URL points, by git's rules for telling URLs, scp-like addresses and paths apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlLocation {
    /// A network address: host (normalised, no user or port) and the path on it.
    Host { host: String, path: String },
    /// A path on this machine (plain path, `file://` URL, or anything git would treat as one).
    Local,
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
            path: without_dot_segments(&percent_decode(path)),
        };
    }
    if let Some((host, path)) = split_scp_like(url) {
        return UrlLocation::Host {
            host: normalise_host(host),
            path: without_dot_segments(path),
        };
    }
    UrlLocation::Local
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
pub fn is_ssh_transport(url: &str) -> bool {
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

/// `path` with its `.` and `..` segments (also spelled `%2e`) resolved as curl resolves them
/// before a request (RFC 3986 `remove_dot_segments`): git pushed `https://github.com/acme/../stranger/x` to
/// `stranger/x`. An scp-like path is resolved the same way (the host's shell may be given it
/// as written; reading it as the normalised path errs towards another owner).
pub fn without_dot_segments(path: &str) -> String {
    let dot = |s: &str| {
        let s = s.replace("%2e", ".").replace("%2E", ".");
        s == "." || s == ".."
    };
    if !path.split('/').any(dot) {
        return path.to_string();
    }
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len() - 1;
    // An absolute path keeps its root (the empty first segment).
    let root = usize::from(path.starts_with('/'));
    for (i, raw) in segments.iter().enumerate() {
        let seg = raw.replace("%2e", ".").replace("%2E", ".");
        match seg.as_str() {
            "." | ".." => {
                if seg == ".." && out.len() > root {
                    out.pop();
                }
                // A dot segment at the end leaves the folder: `a/b/..` is `a/`.
                if i == last {
                    out.push("");
                }
            }
            _ => out.push(raw),
        }
    }
    out.join("/")
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

/// Lower-case, without port, brackets or trailing dot.
pub fn normalise_host(host: &str) -> String {
    let host = host.trim();
    let host = if let Some(rest) = host.strip_prefix('[') {
        // Bracketed IPv6 literal, possibly followed by a port.
        rest.split(']').next().unwrap_or(rest)
    } else {
        match host.rsplit_once(':') {
            Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) && !h.contains(':') => h,
            _ => host,
        }
    };
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// A URL word whose only run-time parts are its credentials
/// (`https://x-access-token:$T@github.com/o/r`, `"https://$USER:${TOKEN}@host/o/r"`,
/// `"https://oauth2:$(gh auth token)@host/o/r"`), without them (`https://github.com/o/r`): the
/// host and path are literal, and git goes there whatever the token is. `None` for any other
/// word. The run-time parts are those of [`crate::program::run_time_parts`] (one reader).
pub fn past_credentials(w: &shell_syntax::Word<'_>) -> Option<String> {
    const RUN_TIME: &str = crate::program::RUN_TIME;
    let text = crate::program::run_time_parts(w)?;
    let (scheme, rest) = text.split_once("://")?;
    if scheme.contains(RUN_TIME) || scheme.is_empty() {
        return None;
    }
    let end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..end];
    let at = authority.rfind('@')?;
    let (host_and_path, path) = (&authority[at + 1..], &rest[end..]);
    if host_and_path.contains(RUN_TIME) || path.contains(RUN_TIME) || host_and_path.is_empty() {
        return None;
    }
    Some(format!("{scheme}://{host_and_path}{path}"))
}

#[cfg(test)]
mod tests {

    #[test]
    fn credentials_decided_at_run_time_leave_host_and_path() {
        let of = |cmd: &str| {
            let p = shell_syntax::parse(cmd);
            let v = shell_syntax::commands(&p);
            let x = v.invocations.iter().find(|i| i.name() == Some("x"));
            past_credentials(&x.expect("the x invocation").args[0].word)
        };
        assert_eq!(
            of("x https://x-access-token:$T@github.com/o/r.git").as_deref(),
            Some("https://github.com/o/r.git")
        );
        assert_eq!(
            of("x \"https://$U:${P}@github.com/o/r\"").as_deref(),
            Some("https://github.com/o/r")
        );
        assert_eq!(
            of("x \"https://oauth2:$(gh auth token)@github.com/o/r\"").as_deref(),
            Some("https://github.com/o/r")
        );
        assert_eq!(of("x https://github.com/$O/r"), None);
        assert_eq!(of("x https://github.com/$(cat o)/r"), None);
        assert_eq!(of("x https://t@$HOST/o/r"), None);
        assert_eq!(of("x $URL"), None);
    }
    use super::*;

    /// Where each spelling points (branch-rules' `url_shapes` covers the rest); invalid
    /// percent escapes stay as written.
    #[test]
    fn escapes_helpers_schemes_and_scp() {
        let escapes = [("a%41", "aA"), ("a%4", "a%4"), ("%zz%", "%zz%"), ("%", "%")];
        for (raw, want) in escapes {
            assert_eq!(percent_decode(raw), want, "{raw}");
        }
        let host = |u: &str| match parse_url(u) {
            UrlLocation::Host { host, path } => Some((host, path)),
            UrlLocation::Local => None,
        };
        assert_eq!(
            host("persistent-https::https://GitHub.com/o/r"),
            Some(("github.com".into(), "/o/r".into()))
        );
        assert_eq!(
            host("git@gh:o/r.git"),
            Some(("gh".into(), "o/r.git".into()))
        );
        assert_eq!(host("C:\\x"), None);
        // Dot segments as curl resolves them (`%2e%2e` too, once decoded).
        for (url, path) in [
            ("https://github.com/acme/../stranger/x", "/stranger/x"),
            ("https://github.com/stranger/./x.git", "/stranger/x.git"),
            ("https://github.com/acme/%2e%2e/stranger/x", "/stranger/x"),
            ("https://github.com/../../stranger/x", "/stranger/x"),
            ("https://github.com/acme/widget/..", "/acme/"),
            ("git@github.com:acme/../stranger/x", "stranger/x"),
            ("https://github.com/acme/widget..git", "/acme/widget..git"),
        ] {
            assert_eq!(host(url), Some(("github.com".into(), path.into())), "{url}");
        }
        assert_eq!(host("./a:b"), None);
        assert!(is_ssh_transport("git+ssh://h/o/r"));
        let slug = |p: &str| owner_repo(p).map(|(o, r)| format!("{o} {r}"));
        let slugs = [
            ("/o/r.git/", Some("o r")),
            ("Own-er/re.po_x", Some("Own-er re.po_x")),
            ("o/r/extra", None),
            ("o", None),
            ("o/..", None),
            ("o/r%x", None),
            ("~o/r", None),
        ];
        for (path, want) in slugs {
            assert_eq!(slug(path).as_deref(), want, "{path}");
        }
    }
}
