//! Network destinations named by a command: URLs, `user@host:path`, `ssh host`, `nc host port`,
//! `git` remotes given as URLs and `gh` (GitHub, or its `--hostname`).
//!
//! A destination is only reported when the command names it; `git push` to a configured remote
//! names none (its host is in the repository's config, not in the call).

use crate::bash_facts::Destination;

const URL_PROGRAMS: &[&str] = &[
    "curl", "wget", "http", "https", "xh", "httpie", "aria2c", "lynx", "links", "w3m",
];
const SSH_VALUED: &[&str] = &[
    "-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-e", "-I", "-m", "-O",
    "-Q", "-S", "-W", "-w", "-P",
];
const CURL_VALUED: &[&str] = &[
    "-o",
    "--output",
    "-d",
    "--data",
    "--data-raw",
    "--data-binary",
    "-H",
    "--header",
    "-X",
    "--request",
    "-u",
    "--user",
    "-A",
    "--user-agent",
    "-e",
    "--referer",
    "-T",
    "--upload-file",
    "-F",
    "--form",
    "-x",
    "--proxy",
    "-w",
    "--write-out",
    "-K",
    "--config",
    "-b",
    "--cookie",
    "-c",
    "--cookie-jar",
    "-m",
    "--max-time",
    "--connect-timeout",
    "-O",
    "--output-dir",
    "-P",
    "--directory-prefix",
    "--header",
    "-U",
    "--post-data",
    "--body-data",
];

/// Parses `scheme://[user@]host[:port]/...` into host and port.
pub fn parse_url(text: &str) -> Option<(String, Option<u16>)> {
    let (scheme, rest) = text.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    {
        return None;
    }
    if scheme == "file" {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let hostport = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = split_host_port(hostport);
    if host.is_empty() {
        return None;
    }
    let default = match scheme.as_str() {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ssh" | "git+ssh" | "sftp" | "scp" => Some(22),
        "git" => Some(9418),
        "ftp" => Some(21),
        _ => None,
    };
    Some((host, port.or(default)))
}

fn split_host_port(hostport: &str) -> (String, Option<u16>) {
    if let Some(rest) = hostport.strip_prefix('[') {
        // [v6]:port
        let (h, after) = rest.split_once(']').unwrap_or((rest, ""));
        let port = after.strip_prefix(':').and_then(|p| p.parse().ok());
        return (h.to_ascii_lowercase(), port);
    }
    match hostport.rsplit_once(':') {
        Some((h, p))
            if !h.contains(':') && p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty() =>
        {
            (h.to_ascii_lowercase(), p.parse().ok())
        }
        _ => (hostport.to_ascii_lowercase(), None),
    }
}

/// `[user@]host:path` (scp, rsync, git's scp-like syntax); not a URL, not a local path.
fn scp_like(text: &str) -> Option<String> {
    if text.contains("://") || text.starts_with('/') || text.starts_with('.') {
        return None;
    }
    let (left, _) = text.split_once(':')?;
    let host = left.rsplit('@').next().unwrap_or(left);
    let ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c))
        && !host.contains('/');
    ok.then(|| host.to_ascii_lowercase())
}

/// A bare `host.tld[/path]` (curl and wget accept URLs without a scheme).
fn bare_host(text: &str) -> Option<(String, Option<u16>)> {
    if text.starts_with('/') || text.starts_with('.') || text.contains(' ') {
        return None;
    }
    let authority = text.split('/').next().unwrap_or("");
    let (host, port) = split_host_port(authority);
    let labels: Vec<&str> = host.split('.').collect();
    let tld_ok = labels
        .last()
        .is_some_and(|t| t.len() >= 2 && t.chars().all(|c| c.is_ascii_alphabetic()));
    let ip = host.split('.').count() == 4 && host.split('.').all(|p| p.parse::<u8>().is_ok());
    let labels_ok = labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    ((labels_ok && tld_ok) || ip || host == "localhost").then_some((host, port))
}

fn push(out: &mut Vec<Destination>, program: &str, raw: &str, host: String, port: Option<u16>) {
    let d = Destination {
        host,
        port,
        program: program.to_string(),
        raw: raw.to_string(),
    };
    if !out.contains(&d) {
        out.push(d);
    }
}

fn texts(words: &[Option<(String, bool)>]) -> Vec<&str> {
    words
        .iter()
        .map(|w| w.as_ref().map(|(t, _)| t.as_str()).unwrap_or(""))
        .collect()
}

/// First operand after options, skipping the values of `valued` options.
fn first_operand<'a>(ws: &[&'a str], valued: &[&str]) -> Option<(usize, &'a str)> {
    let mut i = 0;
    while i < ws.len() {
        let w = ws[i];
        if w.starts_with('-') && w.len() > 1 {
            if valued.contains(&w) {
                i += 1;
            }
        } else if !w.is_empty() {
            return Some((i, w));
        }
        i += 1;
    }
    None
}

/// Appends the destinations `program` with these words contacts.
pub fn destinations(program: &str, words: &[Option<(String, bool)>], out: &mut Vec<Destination>) {
    let ws = texts(words);
    // Any URL anywhere in a network program's words, and in interpreters' one-liners (below).
    match program {
        p if URL_PROGRAMS.contains(&p) => {
            let mut skip_next = false;
            for w in &ws {
                if skip_next {
                    skip_next = false;
                    continue;
                }
                if CURL_VALUED.contains(w) {
                    skip_next = true;
                    continue;
                }
                if let Some((h, port)) = parse_url(w) {
                    push(out, program, w, h, port);
                } else if !w.starts_with('-') {
                    if let Some((h, port)) = bare_host(w) {
                        push(out, program, w, h, port);
                    }
                }
            }
        }
        "ssh" | "mosh" => {
            if let Some((i, w)) = first_operand(&ws, SSH_VALUED) {
                let host = w.rsplit('@').next().unwrap_or(w).to_ascii_lowercase();
                let port = value_after(&ws, "-p")
                    .and_then(|p| p.parse().ok())
                    .or(Some(22));
                let _ = i;
                push(out, program, w, host, port);
            }
        }
        "scp" | "sftp" | "rsync" => {
            for w in &ws {
                if let Some((h, port)) = parse_url(w) {
                    push(out, program, w, h, port);
                } else if let Some(h) = scp_like(w) {
                    push(out, program, w, h, Some(22));
                }
            }
            if program == "sftp" {
                if let Some((_, w)) = first_operand(&ws, SSH_VALUED) {
                    if scp_like(w).is_none() && parse_url(w).is_none() {
                        push(
                            out,
                            program,
                            w,
                            w.rsplit('@').next().unwrap_or(w).to_ascii_lowercase(),
                            Some(22),
                        );
                    }
                }
            }
        }
        "nc" | "ncat" | "netcat" | "telnet" | "socat" => {
            let ops: Vec<&str> = ws
                .iter()
                .copied()
                .filter(|w| !w.starts_with('-') && !w.is_empty())
                .collect();
            if program == "socat" {
                for w in ops {
                    // TCP:host:port, OPENSSL:host:port
                    let parts: Vec<&str> = w.split(':').collect();
                    if parts.len() >= 3
                        && ["tcp", "tcp4", "tcp6", "openssl", "udp"]
                            .contains(&parts[0].to_ascii_lowercase().as_str())
                    {
                        push(
                            out,
                            program,
                            w,
                            parts[1].to_ascii_lowercase(),
                            parts[2].split(',').next().and_then(|p| p.parse().ok()),
                        );
                    }
                }
            } else if let Some(host) = ops.first() {
                // `nc -l 8080` listens; a lone number is a port, not a host.
                if !ws.contains(&"-l") && !host.chars().all(|c| c.is_ascii_digit()) {
                    push(
                        out,
                        program,
                        host,
                        host.to_ascii_lowercase(),
                        ops.get(1).and_then(|p| p.parse().ok()),
                    );
                }
            }
        }
        "git" => {
            let sub = ws
                .iter()
                .find(|w| !w.starts_with('-'))
                .copied()
                .unwrap_or("");
            if matches!(
                sub,
                "clone"
                    | "fetch"
                    | "pull"
                    | "push"
                    | "ls-remote"
                    | "remote"
                    | "submodule"
                    | "archive"
            ) {
                for w in &ws {
                    if let Some((h, port)) = parse_url(w) {
                        push(out, program, w, h, port);
                    } else if let Some(h) = scp_like(w) {
                        push(out, program, w, h, Some(22));
                    }
                }
            }
        }
        "gh" => {
            let sub = ws
                .iter()
                .find(|w| !w.starts_with('-'))
                .copied()
                .unwrap_or("");
            let local = matches!(
                sub,
                "" | "help" | "version" | "completion" | "config" | "alias"
            ) || ws.contains(&"--help")
                || ws.contains(&"--version");
            if !local {
                let host = value_after(&ws, "--hostname").unwrap_or("github.com");
                push(
                    out,
                    program,
                    &ws.join(" "),
                    host.to_ascii_lowercase(),
                    Some(443),
                );
            }
        }
        _ => {}
    }
}

fn value_after<'a>(ws: &[&'a str], flag: &str) -> Option<&'a str> {
    let i = ws.iter().position(|w| *w == flag)?;
    ws.get(i + 1).copied()
}

/// URLs inside free text (interpreter one-liners).
pub fn urls_in_text(program: &str, text: &str, out: &mut Vec<Destination>) {
    for token in text.split(|c: char| c.is_whitespace() || "'\"`()[]{},;<>".contains(c)) {
        if let Some((h, port)) = parse_url(token) {
            push(out, program, token, h, port);
        }
    }
}

/// True when `host` is allowed: loopback always, else exactly an allow-list entry or a subdomain
/// of one (`github.com` allows `api.github.com`; `*.x.org` and `.x.org` are read as `x.org`).
pub fn allowed(host: &str, allow: &[String]) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host == "localhost" || host == "::1" || host.starts_with("127.") || host == "0.0.0.0" {
        return true;
    }
    allow.iter().any(|a| {
        let a = a
            .trim()
            .trim_start_matches("*.")
            .trim_start_matches('.')
            .to_ascii_lowercase();
        !a.is_empty() && (host == a || host.ends_with(&format!(".{a}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dests(program: &str, words: &[&str]) -> Vec<String> {
        let ws: Vec<Option<(String, bool)>> =
            words.iter().map(|w| Some((w.to_string(), false))).collect();
        let mut out = Vec::new();
        destinations(program, &ws, &mut out);
        out.iter().map(Destination::display).collect()
    }

    #[test]
    fn urls_and_hosts() {
        assert_eq!(
            parse_url("https://User@Example.com:8443/x?y"),
            Some(("example.com".into(), Some(8443)))
        );
        assert_eq!(parse_url("http://[::1]/"), Some(("::1".into(), Some(80))));
        assert_eq!(parse_url("file:///etc/passwd"), None);
        assert_eq!(
            dests("curl", &["-o", "out.json", "-sS", "https://evil.example/a"]),
            vec!["evil.example:443"]
        );
        assert_eq!(dests("curl", &["evil.example/a"]), vec!["evil.example"]);
        assert_eq!(
            dests("wget", &["-O", "x.tar.gz", "http://10.0.0.1:8080/x"]),
            vec!["10.0.0.1:8080"]
        );
        assert_eq!(
            dests("ssh", &["-p", "2222", "me@box.example", "ls"]),
            vec!["box.example:2222"]
        );
        assert_eq!(
            dests("scp", &["a.txt", "me@box.example:/tmp/"]),
            vec!["box.example:22"]
        );
        assert_eq!(
            dests("nc", &["evil.example", "4444"]),
            vec!["evil.example:4444"]
        );
        assert!(dests("nc", &["-l", "4444"]).is_empty());
        assert_eq!(
            dests("git", &["clone", "git@gitlab.example:o/r.git"]),
            vec!["gitlab.example:22"]
        );
        assert!(dests("git", &["push", "origin", "main"]).is_empty());
        assert_eq!(dests("gh", &["pr", "list"]), vec!["github.com:443"]);
        assert!(dests("gh", &["--version"]).is_empty());
        assert!(dests("curl", &["-o", "out.json"]).is_empty());
    }

    #[test]
    fn allow_list() {
        let allow = vec!["github.com".to_string(), "*.pypi.org".to_string()];
        assert!(allowed("api.github.com", &allow));
        assert!(allowed("files.pypi.org", &allow));
        assert!(allowed("127.0.0.1", &[]));
        assert!(!allowed("evilgithub.com", &allow));
        assert!(!allowed("example.com", &allow));
    }
}
