//! Bash commands whose program fetches from the network.
//!
//! Every command bash would run is visited through `shell-syntax` (substitutions, `bash -c`
//! strings, `eval`, pipes into a shell, wrappers such as `env`, `sudo`, `timeout`, `xargs`), and
//! judged by its program: a fetcher (`curl`, `wget`, ...) always reads the network; `gh` taints
//! when it reads another owner's content (or content of no known owner, such as search); `git`
//! taints when it clones, fetches or pulls another owner's repository.

use crate::owner::{owner_of_git_url, owner_of_repo_spec, RemoteOwner};
use crate::source::TaintPolicy;
use shell_syntax::view::{Arg, Invocation, InvocationKind};

/// Programs whose purpose is to fetch from the network.
const FETCHERS: &[&str] = &[
    "curl", "wget", "wget2", "aria2c", "http", "https", "httpie", "xh", "xhs", "lynx", "w3m",
    "links", "elinks", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "tftp", "sftp", "scp",
];

/// Words that, in text the parser could not read, mean the command may fetch.
const UNPARSED_HINTS: &[&str] = &["curl", "wget", "gh ", "git ", "http", "nc ", "scp", "rsync"];

/// A one-line detail when `command` fetches untrusted content, `None` when it does not.
pub(crate) fn fetching_command(command: &str, policy: &TaintPolicy) -> Option<String> {
    let parsed = shell_syntax::parse(command);
    let view = shell_syntax::commands(&parsed);
    for inv in &view.invocations {
        if inv.kind == InvocationKind::TestClause || inv.kind == InvocationKind::ArithCommand {
            continue;
        }
        if let Some(detail) = invocation_fetches(inv, policy) {
            return Some(detail);
        }
    }
    // Text the parser could not read, or a walk cut short by a limit: fail closed when it
    // mentions anything that may fetch.
    let unread = match (&parsed.error, &view.error) {
        (Some(e), _) => command.get(e.unparsed_from..).unwrap_or(command),
        (None, Some(_)) => command,
        (None, None) => "",
    };
    let nested_unread = view
        .nested_errors
        .iter()
        .filter_map(|n| view.origins.get(n.origin))
        .any(|o| mentions_fetcher(&o.text));
    if mentions_fetcher(unread) || nested_unread {
        return Some(format!(
            "command not fully parsed and it mentions a network program: {command}"
        ));
    }
    None
}

fn mentions_fetcher(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    UNPARSED_HINTS.iter().any(|h| lower.contains(h))
}

fn render(inv: &Invocation) -> String {
    let mut out = inv.program.to_string();
    for a in &inv.args {
        out.push(' ');
        match &a.value {
            Some(v) => out.push_str(v),
            None => out.push_str("<dynamic>"),
        }
    }
    out
}

fn invocation_fetches(inv: &Invocation, policy: &TaintPolicy) -> Option<String> {
    let name = inv.name()?;
    let args = &inv.args;
    let why = match name {
        n if FETCHERS.contains(&n) => (!only_help(args)).then(String::new),
        "rsync" => args
            .iter()
            .any(|a| a.value.as_deref().is_none_or(looks_remote))
            .then(String::new),
        "gh" => gh_reads_other(inv, policy),
        "git" => git_fetches_other(args, policy),
        _ => None,
    }?;
    let rendered = render(inv);
    Some(if why.is_empty() {
        rendered
    } else {
        format!("{rendered} ({why})")
    })
}

fn only_help(args: &[Arg]) -> bool {
    !args.is_empty()
        && args.iter().all(|a| {
            matches!(
                a.value.as_deref(),
                Some("--version" | "-V" | "--help" | "-h")
            )
        })
}

/// `host:path` or `rsync://...` (not a local path).
fn looks_remote(v: &str) -> bool {
    if v.starts_with('-') {
        return false;
    }
    if v.contains("://") {
        return true;
    }
    matches!(
        owner_of_git_url(v),
        RemoteOwner::Owner(_) | RemoteOwner::Unknown
    ) && v.contains(':')
}

/// Why an owner counts as another's, or `None` when it is the maintainer's own.
fn other_owner(owner: Option<&str>, policy: &TaintPolicy) -> Option<String> {
    match owner {
        Some(o) if policy.is_own(o) => None,
        Some(o) => Some(format!("owner {o}")),
        None => Some("owner unknown".into()),
    }
}

// ---------------------------------------------------------------------------------------- gh

/// Options of `gh` subcommands that take a separate value (so their value is not a positional).
const GH_VALUED: &[&str] = &[
    "-R",
    "--repo",
    "-X",
    "--method",
    "-H",
    "--header",
    "-f",
    "-F",
    "--field",
    "--raw-field",
    "--input",
    "-q",
    "--jq",
    "-t",
    "--template",
    "--hostname",
    "--cache",
    "-p",
    "--preview",
    "-L",
    "--limit",
    "-s",
    "--state",
    "-a",
    "--assignee",
    "-A",
    "--author",
    "-l",
    "--label",
    "-B",
    "--base",
    "-H",
    "--head",
    "-S",
    "--search",
    "--json",
    "-b",
    "--branch",
    "-w",
    "--workflow",
    "-c",
    "--commit",
    "-u",
    "--user",
    "-D",
    "--dir",
    "-O",
    "--output",
    "-e",
    "--event",
    "-j",
    "--job",
    "-m",
    "--milestone",
    "-g",
    "--pattern",
];

/// The positional words of a `gh` argv (options and their values removed), and the `-R`
/// repository if one is given in any spelling.
fn gh_split<'s>(args: &'s [Arg<'_>]) -> (Vec<Option<&'s str>>, Option<Option<&'s str>>) {
    let mut positional = Vec::new();
    let mut repo = None;
    let mut i = 0;
    while i < args.len() {
        let v = args[i].value.as_deref();
        match v {
            Some("--") => {
                positional.extend(args[i + 1..].iter().map(|a| a.value.as_deref()));
                break;
            }
            Some(o) if o == "-R" || o == "--repo" => {
                repo = Some(args.get(i + 1).and_then(|a| a.value.as_deref()));
                i += 2;
                continue;
            }
            Some(o) if o.starts_with("--repo=") => repo = Some(Some(&o[7..])),
            Some(o) if o.starts_with("-R") && o.len() > 2 => {
                repo = Some(Some(o[2..].trim_start_matches('=')))
            }
            Some(o) if GH_VALUED.contains(&o) => {
                i += 2;
                continue;
            }
            Some(o) if o.starts_with('-') && o.len() > 1 => {}
            other => positional.push(other),
        }
        i += 1;
    }
    (positional, repo)
}

/// Subcommand actions that bring content into the session.
const GH_READS: &[&str] = &[
    "view", "list", "diff", "checks", "status", "clone", "download", "checkout", "watch", "log",
];

fn gh_reads_other(inv: &Invocation, policy: &TaintPolicy) -> Option<String> {
    let (positional, repo_flag) = gh_split(&inv.args);
    let group = positional.first().copied().flatten();
    let action = positional.get(1).copied().flatten();
    match group {
        // Search results are other people's content by construction.
        Some("search") => return Some("search".into()),
        Some("api") => return gh_api_reads_other(&inv.args, &positional, policy),
        // Gist ids name no owner we can check.
        Some("gist") if matches!(action, Some("view" | "clone")) => {
            return Some("gist content".into())
        }
        None => return Some("dynamic gh subcommand".into()),
        _ => {}
    }
    if !action.is_some_and(|a| GH_READS.contains(&a)) {
        return None;
    }
    // The target: -R, else GH_REPO, else a repository or URL operand, else the current
    // repository (the maintainer's checkout).
    let env_repo = inv
        .env_value("GH_REPO")
        .map(|e| e.value.as_ref().and_then(|a| a.value.as_deref()));
    let target: Option<Option<&str>> = repo_flag.or(env_repo).or_else(|| {
        positional.get(2).copied().and_then(|p| match p {
            Some(v) if v.contains('/') => Some(Some(v)),
            Some(_) => None,
            None => Some(None),
        })
    });
    match target {
        None => None,
        Some(None) => Some("dynamic repository".into()),
        Some(Some(spec)) => other_owner(owner_of_repo_spec(spec).as_deref(), policy)
            .filter(|_| owner_of_repo_spec(spec).is_some() || spec.contains('/')),
    }
}

fn gh_api_reads_other(
    args: &[Arg],
    positional: &[Option<&str>],
    policy: &TaintPolicy,
) -> Option<String> {
    let mut method_get = true;
    let mut has_fields = false;
    let mut i = 0;
    while i < args.len() {
        let v = args[i].value.as_deref().unwrap_or("");
        let next = args.get(i + 1).and_then(|a| a.value.as_deref());
        if v == "-X" || v == "--method" {
            method_get = next.is_some_and(|m| m.eq_ignore_ascii_case("GET"));
        } else if let Some(m) = v
            .strip_prefix("--method=")
            .or(v.strip_prefix("-X").filter(|m| !m.is_empty()))
        {
            method_get = m.eq_ignore_ascii_case("GET");
        } else if matches!(v, "-f" | "-F" | "--field" | "--raw-field" | "--input")
            || v.starts_with("-f")
            || v.starts_with("-F")
            || v.starts_with("--field=")
            || v.starts_with("--raw-field=")
        {
            has_fields = true;
        }
        i += 1;
    }
    let explicit_method = args
        .iter()
        .any(|a| matches!(a.value.as_deref(), Some(v) if v == "-X" || v == "--method" || v.starts_with("--method=") || (v.starts_with("-X") && v.len() > 2)));
    let path = positional.get(1).copied();
    let path = match path {
        None => return Some("gh api with no static path".into()),
        Some(None) => return Some("gh api with a dynamic path".into()),
        Some(Some(p)) => p,
    };
    // GraphQL reads whatever the query asks for: no owner to check.
    if path == "graphql" {
        return Some("graphql query".into());
    }
    // Fields without an explicit method make gh POST: a write, not a read of content.
    if !method_get || (has_fields && !explicit_method) {
        return None;
    }
    let path = api_path(path);
    let mut segs = path.split('/').filter(|s| !s.is_empty());
    let first = segs.next().unwrap_or("");
    let second = segs.next();
    match first {
        "user" | "rate_limit" | "meta" => None,
        "repos" | "orgs" | "users" => match second {
            // `{owner}` is filled in by gh from the current repository.
            Some("{owner}") | Some(":owner") => None,
            Some(o) => other_owner(Some(o), policy),
            None => Some(format!("api path {path}")),
        },
        _ => Some(format!("api path {path}")),
    }
}

/// An API path without scheme, host, enterprise prefix, query and fragment.
fn api_path(raw: &str) -> &str {
    let mut p = raw;
    if let Some((_, rest)) = p.split_once("://") {
        p = rest.split_once('/').map_or("", |(_, r)| r);
    }
    p = p.trim_start_matches('/');
    p = p.strip_prefix("api/v3/").unwrap_or(p);
    p.split(['?', '#']).next().unwrap_or(p)
}

// --------------------------------------------------------------------------------------- git

/// git's global options that take a separate value.
const GIT_GLOBAL_VALUED: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--config-env",
    "--exec-path",
    "--list-cmds",
];

/// Options of clone/fetch/pull that take a separate value.
const GIT_SUB_VALUED: &[&str] = &[
    "-o",
    "--origin",
    "-b",
    "--branch",
    "-u",
    "--upload-pack",
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
];

fn git_fetches_other(args: &[Arg], policy: &TaintPolicy) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        match args[i].value.as_deref() {
            Some(v) if GIT_GLOBAL_VALUED.contains(&v) => i += 2,
            Some(v) if v.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let sub = args.get(i)?;
    let sub = match sub.value.as_deref() {
        Some(s) => s,
        None => return Some("dynamic git subcommand".into()),
    };
    if !matches!(sub, "clone" | "fetch" | "pull") {
        return None;
    }
    let rest = &args[i + 1..];
    let mut positional = Vec::new();
    let mut all = false;
    let mut j = 0;
    while j < rest.len() {
        match rest[j].value.as_deref() {
            Some("--") => {
                positional.extend(rest[j + 1..].iter().map(|a| a.value.as_deref()));
                break;
            }
            Some("--all" | "--multiple") => all = true,
            Some(v) if GIT_SUB_VALUED.contains(&v) => j += 1,
            Some(v) if v.starts_with('-') => {}
            other => positional.push(other),
        }
        j += 1;
    }
    if all {
        return Some("every remote, owners not known".into());
    }
    match positional.first().copied() {
        // No repository: clone needs one; fetch/pull use the branch's own remote.
        None => None,
        Some(None) => Some("dynamic repository".into()),
        Some(Some(repo)) => {
            let is_url = repo.contains("://") || repo.contains(':') || repo.contains('/');
            if sub != "clone" && !is_url {
                // A remote name: origin is the maintainer's checkout, others are not known.
                return (repo != "origin").then(|| format!("remote {repo}, owner not known"));
            }
            match owner_of_git_url(repo) {
                RemoteOwner::Local => None,
                RemoteOwner::Owner(o) => other_owner(Some(&o), policy),
                RemoteOwner::Unknown => other_owner(None, policy),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taints(cmd: &str) -> bool {
        let p = TaintPolicy::new(vec![], Some("acme".into()));
        fetching_command(cmd, &p).is_some()
    }

    #[test]
    fn fetchers_anywhere_bash_runs_them() {
        for cmd in [
            "curl https://e.example",
            "x=$(curl -s https://e.example/a)",
            "echo `wget -qO- e.example`",
            "bash -c 'curl e.example | head'",
            "sudo -u bob env A=1 timeout 5 /usr/bin/curl e.example",
            "cat urls | xargs -n1 wget",
            "diff <(curl -s a.example) b.txt",
            "if true; then aria2c u; fi",
            "eval \"curl e.example\"",
            "rsync -a host:/srv/x ./x",
            "scp host:f .",
            "nc example.org 80",
        ] {
            assert!(taints(cmd), "{cmd}");
        }
    }

    #[test]
    fn mentions_are_not_invocations() {
        for cmd in [
            "echo curl https://e.example",
            "grep -r 'wget' src/",
            "curl --version",
            "rsync -a ./a ./b",
            "cargo test && ls",
            "man curl",
        ] {
            assert!(!taints(cmd), "{cmd}");
        }
    }

    #[test]
    fn gh_reads_of_other_owners() {
        assert!(taints("gh api repos/other/x/issues"));
        assert!(taints("gh api /repos/other/x/contents/README.md"));
        assert!(taints("gh api https://api.github.com/repos/other/x"));
        assert!(taints("gh api search/code?q=x"));
        assert!(taints(
            "gh api graphql -f query='query { viewer { login } }'"
        ));
        assert!(taints("gh api \"$URL\""));
        assert!(taints("gh search issues foo"));
        assert!(taints("gh pr view 3 -R other/x"));
        assert!(taints("gh issue view --repo=other/x 4"));
        assert!(taints("GH_REPO=other/x gh issue list"));
        assert!(taints("gh repo clone other/x"));
        assert!(taints("gh gist view abc"));
        assert!(!taints("gh api repos/acme/x/issues"));
        assert!(!taints("gh api repos/ACME/x"));
        assert!(!taints("gh api repos/{owner}/{repo}/pulls"));
        assert!(!taints("gh api user"));
        assert!(
            !taints("gh api repos/other/x/issues -f title=t"),
            "a POST is a write"
        );
        assert!(taints("gh api -X GET repos/other/x/issues -f state=open"));
        assert!(!taints("gh pr view 3"), "the current repository");
        assert!(
            !taints("gh pr create -R other/x -t t -b b"),
            "a write, not a read"
        );
        assert!(!taints("gh repo view acme/x"));
    }

    #[test]
    fn git_of_other_owners() {
        assert!(taints("git clone https://github.com/other/x"));
        assert!(taints(
            "git -C /w clone --depth 1 git@github.com:other/x.git y"
        ));
        assert!(taints("git fetch upstream"));
        assert!(taints("git pull https://github.com/other/x main"));
        assert!(taints("git fetch --all"));
        assert!(taints("git clone \"$REPO\""));
        assert!(!taints("git clone https://github.com/acme/x"));
        assert!(!taints("git clone /srv/mirror/x.git"));
        assert!(!taints("git fetch"));
        assert!(!taints("git fetch origin main"));
        assert!(!taints("git pull --rebase"));
        assert!(!taints("git status && git log -1"));
    }

    #[test]
    fn unknown_owner_policy_taints_every_named_owner() {
        let p = TaintPolicy::default();
        assert!(fetching_command("git clone https://github.com/acme/x", &p).is_some());
        assert!(fetching_command("gh api repos/acme/x", &p).is_some());
    }

    #[test]
    fn unparsed_text_fails_closed_when_it_mentions_a_fetcher() {
        assert!(taints("ls; ( curl e.example"));
        assert!(!taints("ls; ( echo hi"));
    }

    #[test]
    fn details_name_the_command() {
        let p = TaintPolicy::default();
        let d = fetching_command("A=1 curl -s \"$U\"", &p).unwrap();
        assert_eq!(d, "curl -s <dynamic>");
    }
}
