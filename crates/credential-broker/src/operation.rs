//! A request to a GitHub host read into the operation the rules judge (issue 44's typed
//! operation, from the third reader): a read, a push (the ref commands of a
//! `git-receive-pack` body, command-effects' `git_receive_pack`), an API call (gh-write-guard's
//! `WireApi`: REST or GraphQL), or a write no rule reads. Pure: method, host, target and body
//! in, operation out.

use branch_rules::RepoSlug;
use command_effects::git_receive_pack::{read_push, PushRequest, WireError};
use gh_write_guard::face::WireApi;

/// What a request is, for the rules.
#[derive(Debug, Clone)]
pub enum Operation {
    /// GET/HEAD, a fetch (`git-upload-pack`), a ref advertisement.
    Read,
    /// `POST /<owner>/<repo>.git/git-receive-pack`.
    Push {
        repo: RepoSlug,
        request: PushRequest,
    },
    /// A REST or GraphQL request to the API.
    Api(WireApi),
    /// Another write to a web host (forms, LFS batch): no rule reads it.
    UnknownWrite,
}

impl Operation {
    /// Whether it needs the real credential only when the rules allow it: every write.
    pub fn is_write(&self) -> bool {
        match self {
            Operation::Read => false,
            Operation::Push { .. } | Operation::UnknownWrite => true,
            Operation::Api(api) => api.is_write(),
        }
    }

    /// `refs/heads/main update`, one per ref command of a push.
    pub fn ref_updates(&self) -> Vec<String> {
        match self {
            Operation::Push { request, .. } => request
                .commands
                .iter()
                .map(|c| format!("{} {:?}", c.refname, c.kind()).to_lowercase())
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The API hosts of github.com (on an enterprise host the API is under `/api/`).
const API_HOSTS: [&str; 2] = ["api.github.com", "uploads.github.com"];

/// The host the branch rules and G3 know a request's repository by: `github.com` for
/// github.com's API hosts, else the host itself.
pub fn rules_host(host: &str) -> String {
    let host = host.to_ascii_lowercase();
    match API_HOSTS.contains(&host.as_str()) {
        true => "github.com".into(),
        false => host,
    }
}

/// Whether `target` on `host` is the API (REST, GraphQL, uploads).
pub fn is_api(host: &str, target: &str) -> bool {
    API_HOSTS.contains(&host.to_ascii_lowercase().as_str())
        || target.starts_with("/api/")
        || target == "/api"
}

/// Whether the request is a push (its body is read under the push bound).
pub fn is_push(method: &str, target: &str) -> bool {
    method.eq_ignore_ascii_case("POST") && path_of(target).ends_with("/git-receive-pack")
}

fn path_of(target: &str) -> &str {
    target.split(['?', '#']).next().unwrap_or(target)
}

/// Why a push body was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unread {
    #[error("the push URL names no owner/repo: {0}")]
    Url(String),
    #[error("the push's ref commands cannot be read: {0}")]
    Body(#[from] WireError),
}

/// Reads the request `method target` to `host` with `body`.
pub fn classify(host: &str, method: &str, target: &str, body: &[u8]) -> Result<Operation, Unread> {
    let method = method.to_ascii_uppercase();
    if is_api(host, target) {
        return Ok(Operation::Api(WireApi::from_request(
            &rules_host(host),
            &method,
            target,
            body,
        )));
    }
    if matches!(method.as_str(), "GET" | "HEAD") {
        return Ok(Operation::Read);
    }
    let path = path_of(target);
    if method == "POST" && path.ends_with("/git-upload-pack") {
        return Ok(Operation::Read);
    }
    if is_push(&method, target) {
        let repo = push_repo(host, path).ok_or_else(|| Unread::Url(path.to_string()))?;
        return Ok(Operation::Push {
            repo,
            request: read_push(body)?,
        });
    }
    Ok(Operation::UnknownWrite)
}

/// `/<owner>/<repo>[.git]/git-receive-pack` → the repository, read by git's own URL reader
/// (command-effects' `git_url`: percent escapes and dot segments as git resolves them).
fn push_repo(host: &str, path: &str) -> Option<RepoSlug> {
    use command_effects::git_url::{owner_repo, parse_url, UrlLocation};
    let UrlLocation::Host { path, .. } = parse_url(&format!("https://{host}{path}")) else {
        return None;
    };
    let (owner, repo) = owner_repo(path.strip_suffix("/git-receive-pack")?)?;
    Some(RepoSlug {
        host: rules_host(host),
        owner,
        repo,
    })
}

#[cfg(test)]
#[path = "operation_tests.rs"]
mod tests;
