//! Network destinations a run contacts, once for every guard (I1's network signal, K5's
//! fetchers): the programs that open connections (kept as data in [`PROGRAMS`]), the host and
//! port each names (URLs, `[user@]host:path`, `ssh host`, `nc host port`, `socat TCP:h:p`),
//! the remote a git operation contacts (its repository operand, never a refspec; `git remote
//! add` contacts nothing unless `-f`), and `gh` (GitHub, or its `--hostname`).
//!
//! A destination whose host is decided at run time has `host: None`. A remote given by name
//! (`git push origin`) names no host: its URL is in the repository's config.

use crate::git::GitCall;

/// What kind of network program a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Fetches URLs (`curl`, `wget`, HTTPie, text browsers).
    Url,
    /// Runs a shell on another host (`ssh`, `mosh`).
    RemoteShell,
    /// Copies files from or to another host (`scp`, `sftp`, `rsync`).
    Copy,
    /// Opens a raw connection (`nc`, `socat`, `telnet`, `ftp`).
    Socket,
}

/// Programs that contact the network, by kind.
pub const PROGRAMS: &[(&str, Kind)] = &[
    ("curl", Kind::Url),
    ("wget", Kind::Url),
    ("wget2", Kind::Url),
    ("aria2c", Kind::Url),
    ("http", Kind::Url),
    ("https", Kind::Url),
    ("httpie", Kind::Url),
    ("xh", Kind::Url),
    ("xhs", Kind::Url),
    ("lynx", Kind::Url),
    ("w3m", Kind::Url),
    ("links", Kind::Url),
    ("elinks", Kind::Url),
    ("ssh", Kind::RemoteShell),
    ("mosh", Kind::RemoteShell),
    ("scp", Kind::Copy),
    ("sftp", Kind::Copy),
    ("rsync", Kind::Copy),
    ("nc", Kind::Socket),
    ("ncat", Kind::Socket),
    ("netcat", Kind::Socket),
    ("socat", Kind::Socket),
    ("telnet", Kind::Socket),
    ("ftp", Kind::Socket),
    ("tftp", Kind::Socket),
];

/// The kind of network program `name` is, if it is one.
pub fn kind(name: &str) -> Option<Kind> {
    if !PROGRAM_NAMES.may_contain(name) {
        return None;
    }
    PROGRAMS
        .iter()
        .find(|(n, _)| crate::same_name(n, name))
        .map(|(_, k)| *k)
}

/// The names of [`PROGRAMS`].
const PROGRAM_NAMES: shell_syntax::NameSet = crate::names_of!(PROGRAMS, p => p.0);

/// A host a run contacts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    /// The program (or `redirection` for `/dev/tcp`).
    pub via: String,
    /// Lower-cased host; `None` when decided at run time.
    pub host: Option<String>,
    pub port: Option<u16>,
    /// The word it was read from (`None`: a run-time word).
    pub raw: Option<String>,
}

impl Destination {
    fn named(via: &str, raw: &str, host: String, port: Option<u16>) -> Destination {
        Destination {
            via: via.to_string(),
            host: Some(host),
            port,
            raw: Some(raw.to_string()),
        }
    }

    fn run_time(via: &str) -> Destination {
        Destination {
            via: via.to_string(),
            host: None,
            port: None,
            raw: None,
        }
    }
}

fn push(out: &mut Vec<Destination>, d: Destination) {
    if !out.contains(&d) {
        out.push(d);
    }
}

/// ssh's options that take a value (OpenSSH `ssh.c`).
const SSH_VALUED: &[&str] = &[
    "-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-e", "-I", "-m", "-O",
    "-Q", "-S", "-W", "-w", "-P", "-B",
];

/// Whether the network program `program` only prints (help, version, `ssh -G`) and contacts
/// nothing.
pub fn prints_only(program: &str, args: &[Option<&str>]) -> bool {
    let help = |v: &str| matches!(v, "--help" | "--version" | "-h" | "-V");
    match kind(program) {
        None => false,
        // `ssh -G` prints the configuration, `ssh -V` the version.
        Some(Kind::RemoteShell) => args.iter().any(|a| matches!(a, Some("-G" | "-V"))),
        _ => !args.is_empty() && args.iter().all(|a| a.is_some_and(help)),
    }
}

/// Parses `scheme://[user@]host[:port]/...` into host and port (`file://` names no host).
pub fn parse_url(text: &str) -> Option<(String, Option<u16>)> {
    let (scheme, rest) = text.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        || scheme == "file"
    {
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
pub fn scp_like(text: &str) -> Option<String> {
    if text.contains("://") || text.starts_with('/') || text.starts_with('.') {
        return None;
    }
    let (left, _) = text.split_once(':')?;
    let host = left.rsplit('@').next().unwrap_or(left);
    let ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c));
    ok.then(|| host.to_ascii_lowercase())
}

/// The host of a git URL: `https://host/...`, `ssh://user@host:port/...`, `git://host/...`,
/// `user@host:path` (scp form). Local paths and `file://` have none.
pub fn host_of_git_url(url: &str) -> Option<String> {
    let url = url.trim();
    parse_url(url).map(|(h, _)| h).or_else(|| scp_like(url))
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
    let ip = labels.len() == 4 && labels.iter().all(|p| p.parse::<u8>().is_ok());
    let labels_ok = labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    ((labels_ok && tld_ok) || ip || host == "localhost").then_some((host, port))
}

/// A URL or scp-like address as a destination (`None`: a local path or a remote's name).
fn remote_address(via: &str, w: &str) -> Option<Destination> {
    if let Some((h, port)) = parse_url(w) {
        return Some(Destination::named(via, w, h, port));
    }
    scp_like(w).map(|h| Destination::named(via, w, h, Some(22)))
}

/// First operand after options, skipping the values of `valued` options.
fn first_operand<'v>(ws: &[Option<&'v str>], valued: &[&str]) -> Option<Option<&'v str>> {
    let mut i = 0;
    while i < ws.len() {
        match ws[i] {
            Some(w) if w.starts_with('-') && w.len() > 1 => {
                if valued.contains(&w) {
                    i += 1;
                }
            }
            Some("") => {}
            other => return Some(other),
        }
        i += 1;
    }
    None
}

/// The hosts the URL operands of an HTTP client name (read by [`crate::http`]).
pub fn url_destinations(via: &str, urls: &[Option<String>]) -> Vec<Destination> {
    let mut out = Vec::new();
    for u in urls {
        let d = match u.as_deref() {
            None => Some(Destination::run_time(via)),
            Some(w) => parse_url(w)
                .or_else(|| bare_host(w))
                .map(|(h, port)| Destination::named(via, w, h, port)),
        };
        if let Some(d) = d {
            push(&mut out, d);
        }
    }
    out
}

/// The destinations of a network program other than git, gh and the HTTP clients [`crate::http`]
/// reads (`args`: static values, `None` for run-time words).
pub fn program_destinations(program: &str, args: &[Option<&str>]) -> Vec<Destination> {
    let mut out = Vec::new();
    let Some(kind) = kind(program) else {
        return out;
    };
    if prints_only(program, args) {
        return out;
    }
    match kind {
        Kind::Url => {
            // Text browsers and aria2c: any URL or host word.
            for w in args {
                match w {
                    None => push(&mut out, Destination::run_time(program)),
                    Some(w) if w.starts_with('-') => {}
                    Some(w) => {
                        if let Some((h, port)) = parse_url(w).or_else(|| bare_host(w)) {
                            push(&mut out, Destination::named(program, w, h, port));
                        }
                    }
                }
            }
        }
        Kind::RemoteShell => match first_operand(args, SSH_VALUED) {
            Some(Some(w)) => {
                let host = w.rsplit('@').next().unwrap_or(w).to_ascii_lowercase();
                let port = value_after(args, "-p")
                    .and_then(|p| p.parse().ok())
                    .or(Some(22));
                push(&mut out, Destination::named(program, w, host, port));
            }
            Some(None) => push(&mut out, Destination::run_time(program)),
            None => {}
        },
        Kind::Copy => copy_destinations(program, args, &mut out),
        Kind::Socket => socket_destinations(program, args, &mut out),
    }
    out
}

fn copy_destinations(program: &str, args: &[Option<&str>], out: &mut Vec<Destination>) {
    for w in args {
        match w {
            None => push(out, Destination::run_time(program)),
            Some(w) => {
                if let Some(d) = remote_address(program, w) {
                    push(out, d);
                }
            }
        }
    }
    if program == "sftp" {
        if let Some(Some(w)) = first_operand(args, SSH_VALUED) {
            if remote_address(program, w).is_none() {
                let host = w.rsplit('@').next().unwrap_or(w).to_ascii_lowercase();
                push(out, Destination::named(program, w, host, Some(22)));
            }
        }
    }
}

fn socket_destinations(program: &str, args: &[Option<&str>], out: &mut Vec<Destination>) {
    let ops: Vec<Option<&str>> = args
        .iter()
        .copied()
        .filter(|w| w.is_none_or(|w| !w.starts_with('-') && !w.is_empty()))
        .collect();
    if program == "socat" {
        for w in ops.iter().flatten() {
            // TCP:host:port, OPENSSL:host:port
            let parts: Vec<&str> = w.split(':').collect();
            if parts.len() >= 3
                && ["tcp", "tcp4", "tcp6", "openssl", "udp"]
                    .contains(&parts[0].to_ascii_lowercase().as_str())
            {
                let port = parts[2].split(',').next().and_then(|p| p.parse().ok());
                push(
                    out,
                    Destination::named(program, w, parts[1].to_ascii_lowercase(), port),
                );
            }
        }
        return;
    }
    // `nc -l 8080` listens; a lone number is a port, not a host.
    if args.contains(&Some("-l")) {
        return;
    }
    match ops.first() {
        Some(Some(host)) if !host.chars().all(|c| c.is_ascii_digit()) => {
            let port = ops.get(1).copied().flatten().and_then(|p| p.parse().ok());
            push(
                out,
                Destination::named(program, host, host.to_ascii_lowercase(), port),
            );
        }
        Some(None) => push(out, Destination::run_time(program)),
        _ => {}
    }
}

fn value_after<'v>(ws: &[Option<&'v str>], flag: &str) -> Option<&'v str> {
    let i = ws.iter().position(|w| *w == Some(flag))?;
    ws.get(i + 1).copied().flatten()
}

/// Options of clone/fetch/pull/push/ls-remote that take a separate value (so the value is not
/// the repository operand).
const GIT_REMOTE_VALUED: &[&str] = &[
    "-o",
    "--origin",
    "-b",
    "--branch",
    "-u",
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--reference",
    "--reference-if-able",
    "--separate-git-dir",
    "--depth",
    "--deepen",
    "--shallow-since",
    "--shallow-exclude",
    "-c",
    "--config",
    "--filter",
    "--template",
    "-j",
    "--jobs",
    "--server-option",
    "--bundle-uri",
    "--refmap",
    "--negotiation-tip",
    "-s",
    "--strategy",
    "-X",
    "--strategy-option",
    "--recurse-submodules-default",
    "--sort",
    "--format",
];

/// The remote a git operation contacts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitRemote {
    /// The operation contacts no remote (`git status`, `git remote add NAME URL`).
    None,
    /// The branch's or the default remote, from the repository's config (`git fetch`).
    Default,
    /// Every configured remote (`git fetch --all`, `git remote update`).
    All,
    /// The repository operand: a remote name, a URL, a path (`None`: run time).
    Named(Option<String>),
    /// The subcommand is decided at run time.
    Unknown,
}

/// The remote the git operation `call` contacts: the repository operand of clone, fetch, pull,
/// push, ls-remote (refspecs after it are not hosts), `archive --remote`, `submodule add`,
/// `remote add -f`, `remote show|update|prune`, `subtree add|pull|push`.
pub fn git_remote(call: &GitCall<'_>) -> GitRemote {
    let sub = match &call.subcommand {
        None => return GitRemote::None,
        Some(None) => return GitRemote::Unknown,
        Some(Some(s)) => s.as_str(),
    };
    let args: Vec<Option<&str>> = call.args.iter().map(|a| a.value.as_deref()).collect();
    if args.iter().any(|a| matches!(a, Some("--help" | "-h"))) {
        return GitRemote::None;
    }
    match sub {
        // push's options as git reads them (`--repo`, unique prefixes).
        "push" => match crate::git_push::parse_push(call).remote {
            Some(remote) => GitRemote::Named(remote),
            None => GitRemote::Default,
        },
        "clone" | "fetch" | "pull" | "ls-remote" => {
            let (operands, all) = git_operands(&args);
            if all && matches!(sub, "fetch" | "pull") {
                return GitRemote::All;
            }
            match operands.first() {
                Some(op) => named(*op),
                None => GitRemote::Default,
            }
        }
        "archive" => match git_option_value(&args, "--remote") {
            Some(r) => named(r),
            None => GitRemote::None,
        },
        "submodule" => {
            let (operands, _) = git_operands(&args);
            match operands.as_slice() {
                [Some("add"), repo, ..] => named(*repo),
                [Some("update" | "sync"), ..] | [None, ..] => GitRemote::All,
                _ => GitRemote::None,
            }
        }
        "remote" => git_remote_subcommand(&args),
        "subtree" => match crate::git_subtree::repository(call) {
            Some(repo) => named(repo),
            None => GitRemote::None,
        },
        _ => GitRemote::None,
    }
}

/// `git remote ...`: `add` contacts its URL only with `-f`/`--fetch`; `show` (without `-n`),
/// `prune` and `update` contact configured remotes.
fn git_remote_subcommand(args: &[Option<&str>]) -> GitRemote {
    let (operands, _) = git_operands(args);
    let flag = |f: &str| args.contains(&Some(f));
    match operands.as_slice() {
        [Some("add"), _name, url, ..] if flag("-f") || flag("--fetch") => named(*url),
        [Some("show" | "prune"), ..] if !flag("-n") => GitRemote::All,
        [Some("update"), ..] => GitRemote::All,
        [None, ..] => GitRemote::Unknown,
        _ => GitRemote::None,
    }
}

fn named(operand: Option<&str>) -> GitRemote {
    GitRemote::Named(operand.map(String::from))
}

/// `git remote add [-f] [-t BRANCH] [-m HEAD] [--mirror=...] NAME URL`: the remote's name and
/// URL (`None` inside: decided at run time). Later git commands of the same command line see it.
pub fn remote_added(call: &GitCall<'_>) -> Option<(Option<String>, Option<String>)> {
    if call.sub() != Some("remote") {
        return None;
    }
    let args: Vec<Option<&str>> = call.args.iter().map(|a| a.value.as_deref()).collect();
    if args.first() != Some(&Some("add")) {
        return None;
    }
    let mut operands = Vec::new();
    let mut i = 1;
    while i < args.len() {
        match args[i] {
            Some("-t" | "--track" | "-m" | "--master") => i += 1,
            Some("--") => {
                operands.extend(args[i + 1..].iter().copied());
                break;
            }
            Some(v) if v.starts_with('-') && v.len() > 1 => {}
            other => operands.push(other),
        }
        i += 1;
    }
    match operands.as_slice() {
        [name, url, ..] => Some((name.map(String::from), url.map(String::from))),
        _ => None,
    }
}

/// `--name VALUE` or `--name=VALUE` (`Some(None)`: a run-time value).
fn git_option_value<'v>(args: &[Option<&'v str>], name: &str) -> Option<Option<&'v str>> {
    let mut found = None;
    for (i, a) in args.iter().enumerate() {
        match a {
            Some(v) if *v == name => found = Some(args.get(i + 1).copied().flatten()),
            Some(v) => {
                if let Some(r) = v.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                    found = Some(Some(r));
                }
            }
            None => {}
        }
    }
    found
}

/// The operands of a git subcommand (option values skipped) and whether `--all`/`--multiple`
/// was given.
fn git_operands<'v>(args: &[Option<&'v str>]) -> (Vec<Option<&'v str>>, bool) {
    let mut operands = Vec::new();
    let mut all = false;
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            Some("--") => {
                operands.extend(args[i + 1..].iter().copied());
                break;
            }
            Some("--all" | "--multiple") => all = true,
            Some(v) if GIT_REMOTE_VALUED.contains(&v) => i += 1,
            Some(v) if v.starts_with('-') && v.len() > 1 => {}
            other => operands.push(other),
        }
        i += 1;
    }
    (operands, all)
}

/// The host a git operation names: a URL or scp-like repository operand (a remote's name or a
/// local path names none).
pub fn git_destinations(call: &GitCall<'_>) -> Vec<Destination> {
    match git_remote(call) {
        GitRemote::Named(Some(w)) => remote_address("git", &w).into_iter().collect(),
        GitRemote::Named(None) => vec![Destination::run_time("git")],
        _ => Vec::new(),
    }
}

/// The host a `gh` call contacts: GitHub, or its `--hostname` (local subcommands, `--help`
/// and `--version` contact nothing).
pub fn gh_destinations(args: &[Option<&str>]) -> Vec<Destination> {
    let sub = args
        .iter()
        .find(|w| w.is_none_or(|w| !w.starts_with('-')))
        .copied();
    let local = matches!(
        sub,
        None | Some(Some("help" | "version" | "completion" | "config" | "alias"))
    ) || args.contains(&Some("--help"))
        || args.contains(&Some("--version"));
    if local {
        return Vec::new();
    }
    let host = value_after(args, "--hostname").unwrap_or("github.com");
    let raw: Vec<&str> = args.iter().map(|a| a.unwrap_or("<dynamic>")).collect();
    vec![Destination::named(
        "gh",
        &raw.join(" "),
        host.to_ascii_lowercase(),
        Some(443),
    )]
}

/// `/dev/tcp/HOST/PORT` or `/dev/udp/HOST/PORT` as a redirection target.
pub fn dev_tcp(path: &str) -> Option<Destination> {
    let rest = path
        .strip_prefix("/dev/tcp/")
        .or_else(|| path.strip_prefix("/dev/udp/"))?;
    let (host, port) = rest.split_once('/').unwrap_or((rest, ""));
    Some(Destination::named(
        "redirection",
        path,
        host.to_ascii_lowercase(),
        port.parse().ok(),
    ))
}

/// URLs inside free text (interpreter one-liners such as `python3 -c`).
pub fn urls_in_text(program: &str, text: &str) -> Vec<Destination> {
    let mut out = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || "'\"`()[]{},;<>".contains(c)) {
        if let Some((h, port)) = parse_url(token) {
            push(&mut out, Destination::named(program, token, h, port));
        }
    }
    out
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
