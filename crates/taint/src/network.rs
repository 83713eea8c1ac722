//! Bash commands whose program fetches from the network, read through `command-effects` (one
//! model of what a command runs, shared with every guard).
//!
//! Every run bash would make is visited (substitutions, `bash -c` strings, `eval`, pipes into a
//! shell, wrappers such as `env`, `sudo`, `timeout`, `xargs`, runners such as `strace`, functions
//! that wrap a program, `ssh host cmd`), and judged by the program bash runs: a fetcher (a URL
//! client or a raw socket, `network::Kind`) reads the network unless it only prints its help; a
//! copier (`scp`, `rsync`) when it names a remote; `gh` taints when it reads another owner's
//! content (or content of no known owner, such as search); `git` when it clones, fetches or
//! pulls another owner's repository.

use crate::source::TaintPolicy;
use command_effects::gh::{self, GhArgs};
use command_effects::gh_api::{rest_path, ApiCall};
use command_effects::network::{self, GitRemote, Kind};
use command_effects::owner::{owner_of_git_url, owner_of_repo_spec, RemoteOwner};
use command_effects::{git, Run};
use shell_syntax::view::{Invocation, InvocationKind};

/// Words that, in text the parser could not read, mean the command may fetch.
const UNPARSED_HINTS: &[&str] = &["curl", "wget", "gh ", "git ", "http", "nc ", "scp", "rsync"];

/// A one-line detail when `command` fetches untrusted content, `None` when it does not.
pub(crate) fn fetching_command(command: &str, policy: &TaintPolicy) -> Option<String> {
    let parsed = shell_syntax::parse(command);
    let view = shell_syntax::commands(&parsed);
    let arena = bumpalo::Bump::new();
    for run in command_effects::program::runs(&view, &arena) {
        let Some(inv) = view.invocations.get(run.invocation) else {
            continue;
        };
        if inv.kind == InvocationKind::TestClause || inv.kind == InvocationKind::ArithCommand {
            continue;
        }
        if let Some(detail) = run_fetches(&run, inv, policy) {
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

/// The program bash runs and its arguments (`<dynamic>` for a run-time word).
fn render(name: &str, run: &Run) -> String {
    let mut out = name.to_string();
    for a in &run.args {
        out.push(' ');
        out.push_str(a.value.as_deref().unwrap_or("<dynamic>"));
    }
    out
}

fn run_fetches(run: &Run, inv: &Invocation, policy: &TaintPolicy) -> Option<String> {
    let name = run.name()?;
    let values: Vec<Option<&str>> = run.args.iter().map(|a| a.value.as_deref()).collect();
    let why = match (name, network::kind(name)) {
        ("gh", _) => gh_reads_other(&gh::parse(&run.args), run, inv, policy),
        ("git", _) => git_fetches_other(run, inv, policy),
        (_, Some(Kind::Url | Kind::Socket)) => {
            (!network::prints_only(name, &values)).then(String::new)
        }
        // A copy between local paths reads nothing from the network.
        (_, Some(Kind::Copy)) => (run.args_incomplete
            || !network::program_destinations(name, &values).is_empty())
        .then(String::new),
        _ => None,
    }?;
    let rendered = render(name, run);
    Some(if why.is_empty() {
        rendered
    } else {
        format!("{rendered} ({why})")
    })
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

/// Subcommand actions that bring content into the session.
const GH_READS: &[&str] = &[
    "view", "list", "diff", "checks", "status", "clone", "download", "checkout", "watch", "log",
];

fn gh_reads_other(g: &GhArgs, run: &Run, inv: &Invocation, policy: &TaintPolicy) -> Option<String> {
    if g.dynamic_command {
        return Some("dynamic gh subcommand".into());
    }
    let action = g.sub();
    match g.top.as_deref() {
        // `gh --version`, `gh --help`: nothing read.
        None => return None,
        // Search results are other people's content by construction.
        Some("search") => return Some("search".into()),
        Some("api") => return gh_api_reads_other(&ApiCall::from_args(g), policy),
        // Gist ids name no owner we can check.
        Some("gist") if matches!(action, Some("view" | "clone")) => {
            return Some("gist content".into())
        }
        _ => {}
    }
    if !action.is_some_and(|a| GH_READS.contains(&a)) {
        return None;
    }
    // The target: -R, else GH_REPO, else a repository or URL operand, else the current
    // repository (the maintainer's checkout).
    let repo_flag: Option<Option<String>> = g
        .values(&["-R", "--repo"])
        .last()
        .map(|v| v.map(String::from));
    let target: Option<Option<String>> = repo_flag
        .or_else(|| run.env_value(inv, "GH_REPO"))
        .or_else(|| match g.positionals.first() {
            Some(Some(v)) if v.contains('/') => Some(Some(v.clone())),
            Some(Some(_)) => None,
            Some(None) => Some(None),
            None => None,
        });
    match target {
        None => None,
        Some(None) => Some("dynamic repository".into()),
        Some(Some(spec)) => other_owner(owner_of_repo_spec(&spec).as_deref(), policy)
            .filter(|_| owner_of_repo_spec(&spec).is_some() || spec.contains('/')),
    }
}

fn gh_api_reads_other(call: &ApiCall, policy: &TaintPolicy) -> Option<String> {
    let endpoint = match &call.endpoint {
        Some(e) => e,
        None if call.endpoint_dynamic => return Some("gh api with a dynamic path".into()),
        None => return Some("gh api with no static path".into()),
    };
    // GraphQL reads whatever the query asks for: no owner to check.
    if call.graphql {
        return Some("graphql query".into());
    }
    // Fields without an explicit method make gh POST: a write, not a read of content.
    if call.is_write() {
        return None;
    }
    let path = rest_path(endpoint);
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

// --------------------------------------------------------------------------------------- git

fn git_fetches_other(run: &Run, inv: &Invocation, policy: &TaintPolicy) -> Option<String> {
    let call = git::parse_git_args(&run.args, &|n| run.env_value(inv, n));
    let sub = match &call.subcommand {
        None => return None,
        Some(None) => return Some("dynamic git subcommand".into()),
        Some(Some(s)) => s.as_str(),
    };
    // Operations that bring another repository's content in (`git remote add -f` and
    // `git remote update` fetch; `git remote show` only lists).
    let first = call.args.first().and_then(|a| a.value.as_deref());
    let fetches = matches!(sub, "clone" | "fetch" | "pull" | "submodule")
        || (sub == "remote" && matches!(first, Some("add" | "update") | None));
    if !fetches {
        return None;
    }
    match network::git_remote(&call) {
        GitRemote::None | GitRemote::Default => None,
        GitRemote::Unknown => Some("dynamic git subcommand".into()),
        GitRemote::All => Some("every remote, owners not known".into()),
        GitRemote::Named(None) => Some("dynamic repository".into()),
        GitRemote::Named(Some(repo)) => {
            let repo = repo.as_str();
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

    /// Each of `yes` taints (the maintainer is `acme`), none of `no` does.
    fn assert_taints(yes: &[&str], no: &[&str]) {
        for cmd in yes {
            assert!(taints(cmd), "should taint: {cmd}");
        }
        for cmd in no {
            assert!(!taints(cmd), "should not taint: {cmd}");
        }
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
        assert_taints(
            &[
                "gh api repos/other/x/issues",
                "gh api /repos/other/x/contents/README.md",
                "gh api https://api.github.com/repos/other/x",
                "gh api search/code?q=x",
                "gh api graphql -f query='query { viewer { login } }'",
                "gh api \"$URL\"",
                "gh search issues foo",
                "gh pr view 3 -R other/x",
                "gh issue view --repo=other/x 4",
                "GH_REPO=other/x gh issue list",
                "gh repo clone other/x",
                "gh gist view abc",
                "gh api -X GET repos/other/x/issues -f state=open",
            ],
            &[
                "gh api repos/acme/x/issues",
                "gh api repos/ACME/x",
                "gh api repos/{owner}/{repo}/pulls",
                "gh api user",
                // a POST is a write
                "gh api repos/other/x/issues -f title=t",
                // the current repository
                "gh pr view 3",
                // a write, not a read
                "gh pr create -R other/x -t t -b b",
                "gh repo view acme/x",
            ],
        );
    }

    #[test]
    fn git_of_other_owners() {
        assert_taints(
            &[
                "git clone https://github.com/other/x",
                "git -C /w clone --depth 1 git@github.com:other/x.git y",
                "git fetch upstream",
                "git pull https://github.com/other/x main",
                "git fetch --all",
                "git clone \"$REPO\"",
            ],
            &[
                "git clone https://github.com/acme/x",
                "git clone /srv/mirror/x.git",
                "git fetch",
                "git fetch origin main",
                "git pull --rebase",
                "git status && git log -1",
            ],
        );
    }

    #[test]
    fn the_program_bash_runs_decides() {
        // Through runners, functions and aliases the view does not unwrap.
        for cmd in [
            "strace -f curl e.example",
            "f() { wget -q \"$@\"; }; f e.example",
            "get() { command curl -s \"$1\"; }\nget https://e.example",
            "shopt -s expand_aliases; alias g='curl -s'; g e.example",
            "ssh build.example curl -s https://e.example",
            "git remote add -f up https://github.com/other/x",
            "git remote update",
            "git submodule update --init --remote",
            "c=\"curl https://e.example\"; $c",
        ] {
            assert!(taints(cmd), "{cmd}");
        }
        // Look-alikes that read nothing from the network.
        for cmd in [
            "ssh -G build.example",
            "scp a.txt b.txt",
            "git remote add up https://github.com/other/x",
            "git remote show -n up",
            "git push https://github.com/other/x main",
            "curl --help",
            "f() { echo curl; }; f",
            "git fetch --help",
        ] {
            assert!(!taints(cmd), "{cmd}");
        }
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
