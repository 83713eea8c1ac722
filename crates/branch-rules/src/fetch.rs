//! One lookup of `GET {api}/repos/{owner}/{repo}/rules/branches/{branch}` with reqwest (blocking,
//! rustls with the ring provider) under a total deadline, mapped to what G4 needs: the rule
//! types (200), "not modified" (304 to an `If-None-Match`), "no rules" (404 for a repository
//! the caller can read, checked with `GET /repos/{owner}/{repo}`), or undeterminable with the
//! cause (401/403/429/5xx, timeout, DNS, refused connection, malformed body). When no ruleset
//! rule applies, the branch's classic protection flag is asked too (github-api.md 3.2).

use crate::token::Token;
use crate::verdict::RuleType;
use reqwest::blocking::{Client, Response};
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, ETAG, IF_NONE_MATCH, LINK};
use std::io::Read;
use std::time::{Duration, Instant};

/// The REST API version this crate speaks.
pub const API_VERSION: &str = "2022-11-28";
/// The default total deadline for one lookup (G4).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(3);
/// Bodies larger than this are refused (a rules list is a few KiB).
const BODY_LIMIT: u64 = 1 << 20;
/// At most this many pages of rules are followed (100 rules each).
const PAGE_LIMIT: usize = 10;

/// Why a branch's rules could not be determined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Cause {
    #[error("the rules lookup ran past its deadline")]
    Timeout,
    #[error("could not connect: {0}")]
    Connect(String),
    #[error("the API answered {status}: {detail}")]
    Status { status: u16, detail: String },
    #[error("rate limited ({status}, retry after {retry_after:?})")]
    RateLimited {
        status: u16,
        retry_after: Option<String>,
    },
    #[error("rules not found and the repository is not readable ({status})")]
    RepositoryUnreadable { status: u16 },
    #[error("malformed answer: {0}")]
    Malformed(String),
    #[error("request failed: {0}")]
    Transport(String),
    #[error("{0} is not a GitHub host")]
    NotGitHub(String),
}

/// What one lookup found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchOutcome {
    /// 200: the rule types (in the order returned, unknown types kept) and the ETag.
    Rules {
        rules: Vec<RuleType>,
        etag: Option<String>,
    },
    /// 304 to our `If-None-Match`: the cached rules still hold.
    NotModified {
        etag: Option<String>,
    },
    /// 404 for the rules of a repository the caller can read: no rules apply.
    NoRules,
    Undeterminable(Cause),
}

/// What to look up.
#[derive(Debug, Clone, Copy)]
pub struct FetchRequest<'a> {
    /// API base without trailing slash (`https://api.github.com`, `https://HOST/api/v3`, or the
    /// maintainer's override).
    pub api_base: &'a str,
    pub owner: &'a str,
    pub repo: &'a str,
    pub branch: &'a str,
    pub token: Option<&'a Token>,
    /// The cached ETag, sent as `If-None-Match`.
    pub etag: Option<&'a str>,
    /// When no ruleset rule applies, also ask whether classic branch protection is on
    /// (`GET /repos/{o}/{r}/branches/{b}` → `protected`), reported as
    /// [`RuleType::ClassicProtection`].
    pub classic_fallback: bool,
}

/// The HTTP client for rules lookups. Building one is the expensive part (TLS roots); build it
/// only when a lookup is needed and reuse it.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: Client,
}

impl Fetcher {
    /// A client for `api_base`. Environment proxies are honoured, except for a loopback base
    /// (a local test server or proxy is reached directly).
    pub fn new(api_base: &str) -> Result<Self, Cause> {
        // reqwest is built without its aws-lc provider; ring is installed as the process
        // default unless the host program already chose one.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut headers = HeaderMap::new();
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/vnd.github+json"),
        );
        headers.insert(
            "X-GitHub-Api-Version",
            HeaderValue::from_static(API_VERSION),
        );
        let mut builder = Client::builder()
            .user_agent(concat!(
                "agent-guards-branch-rules/",
                env!("CARGO_PKG_VERSION")
            ))
            .default_headers(headers)
            .timeout(DEFAULT_DEADLINE);
        if is_loopback_base(api_base) {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|e| Cause::Transport(primitives::error_text::chain(&e)))?;
        Ok(Fetcher { client })
    }

    /// Looks up the rules of one branch; every request together ends by `deadline`.
    pub fn fetch(&self, req: &FetchRequest<'_>, deadline: Instant) -> FetchOutcome {
        let url = rules_url(req.api_base, req.owner, req.repo, req.branch);
        let first = match self.get(&url, req.token, req.etag, deadline) {
            Ok(resp) => resp,
            Err(cause) => return FetchOutcome::Undeterminable(cause),
        };
        let status = first.status().as_u16();
        let outcome = match status {
            200 => self.collect_pages(first, req, deadline),
            304 if req.etag.is_some() => FetchOutcome::NotModified {
                etag: header(&first, ETAG),
            },
            404 => self.readable_or_unknown(req, deadline),
            _ => FetchOutcome::Undeterminable(status_cause(first, deadline)),
        };
        if !req.classic_fallback {
            return outcome;
        }
        // Rulesets say nothing: classic branch protection (not part of the rules endpoint, and
        // the only kind on older GHES) may still guard the branch.
        let etag = match &outcome {
            FetchOutcome::Rules { rules, etag } if rules.is_empty() => etag.clone(),
            FetchOutcome::NoRules => None,
            _ => return outcome,
        };
        match self.classic_protection(req, deadline) {
            Ok(true) => FetchOutcome::Rules {
                rules: vec![RuleType::ClassicProtection],
                etag,
            },
            Ok(false) => outcome,
            Err(cause) => FetchOutcome::Undeterminable(cause),
        }
    }

    /// `GET /repos/{o}/{r}/branches/{b}`'s `protected` flag (readable without admin rights). A
    /// 404 is a branch that does not exist yet, so nothing protects it classically.
    fn classic_protection(&self, req: &FetchRequest<'_>, deadline: Instant) -> Result<bool, Cause> {
        let url = format!(
            "{}/repos/{}/{}/branches/{}",
            req.api_base.trim_end_matches('/'),
            encode_segment(req.owner),
            encode_segment(req.repo),
            encode_segment(req.branch)
        );
        let resp = self.get(&url, req.token, None, deadline)?;
        match resp.status().as_u16() {
            200 => {
                let body = read_body(resp, deadline)?;
                let value: serde_json::Value = serde_json::from_slice(&body)
                    .map_err(|e| Cause::Malformed(format!("branch: not JSON: {e}")))?;
                value
                    .get("protected")
                    .and_then(serde_json::Value::as_bool)
                    .ok_or_else(|| {
                        Cause::Malformed("branch without a boolean \"protected\"".into())
                    })
            }
            404 => Ok(false),
            _ => Err(status_cause(resp, deadline)),
        }
    }

    /// 200: the first page's rules and ETag, plus any further pages (same API origin only).
    fn collect_pages(
        &self,
        first: Response,
        req: &FetchRequest<'_>,
        deadline: Instant,
    ) -> FetchOutcome {
        let etag = header(&first, ETAG);
        let mut next = next_link(&first, req.api_base);
        let mut rules = match read_rules(first, deadline) {
            Ok(r) => r,
            Err(cause) => return FetchOutcome::Undeterminable(cause),
        };
        let mut pages = 1;
        while let Some(url) = next.take() {
            if pages >= PAGE_LIMIT {
                return FetchOutcome::Undeterminable(Cause::Malformed(format!(
                    "more than {PAGE_LIMIT} pages of rules"
                )));
            }
            let resp = match self.get(&url, req.token, None, deadline) {
                Ok(r) if r.status().as_u16() == 200 => r,
                Ok(r) => return FetchOutcome::Undeterminable(status_cause(r, deadline)),
                Err(cause) => return FetchOutcome::Undeterminable(cause),
            };
            next = next_link(&resp, req.api_base);
            match read_rules(resp, deadline) {
                Ok(more) => rules.extend(more),
                Err(cause) => return FetchOutcome::Undeterminable(cause),
            }
            pages += 1;
        }
        FetchOutcome::Rules { rules, etag }
    }

    /// A 404 means "no rules" only when the repository itself is readable.
    fn readable_or_unknown(&self, req: &FetchRequest<'_>, deadline: Instant) -> FetchOutcome {
        let url = format!(
            "{}/repos/{}/{}",
            req.api_base,
            encode_segment(req.owner),
            encode_segment(req.repo)
        );
        match self.get(&url, req.token, None, deadline) {
            Ok(resp) if resp.status().as_u16() == 200 => FetchOutcome::NoRules,
            Ok(resp) => {
                let status = resp.status().as_u16();
                match status_cause(resp, deadline) {
                    cause @ Cause::RateLimited { .. } => FetchOutcome::Undeterminable(cause),
                    _ => FetchOutcome::Undeterminable(Cause::RepositoryUnreadable { status }),
                }
            }
            Err(cause) => FetchOutcome::Undeterminable(cause),
        }
    }

    fn get(
        &self,
        url: &str,
        token: Option<&Token>,
        etag: Option<&str>,
        deadline: Instant,
    ) -> Result<Response, Cause> {
        let remaining = remaining(deadline)?;
        let mut request = self.client.get(url).timeout(remaining);
        if let Some(token) = token {
            let value = HeaderValue::from_str(&format!("Bearer {}", token.secret()))
                .map_err(|_| Cause::Transport("token is not a valid header value".into()))?;
            request = request.header(AUTHORIZATION, value);
        }
        if let Some(etag) = etag {
            if let Ok(value) = HeaderValue::from_str(etag) {
                request = request.header(IF_NONE_MATCH, value);
            }
        }
        request.send().map_err(|e| transport_cause(&e))
    }
}

/// `{base}/repos/{owner}/{repo}/rules/branches/{branch}` with each part percent-encoded as one
/// path segment (a `/` in the branch becomes `%2F`), 100 rules per page.
pub fn rules_url(api_base: &str, owner: &str, repo: &str, branch: &str) -> String {
    format!(
        "{}/repos/{}/{}/rules/branches/{}?per_page=100",
        api_base.trim_end_matches('/'),
        encode_segment(owner),
        encode_segment(repo),
        encode_segment(branch)
    )
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
pub fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn remaining(deadline: Instant) -> Result<Duration, Cause> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        Err(Cause::Timeout)
    } else {
        Ok(left)
    }
}

fn header<K: reqwest::header::AsHeaderName>(resp: &Response, name: K) -> Option<String> {
    resp.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The `rel="next"` URL of a `Link` header, if it stays under the API base.
fn next_link(resp: &Response, api_base: &str) -> Option<String> {
    let link = header(resp, LINK)?;
    link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let url = url.trim().strip_prefix('<')?.strip_suffix('>')?;
        let is_next = params
            .split(';')
            .any(|p| p.trim().replace(' ', "") == "rel=\"next\"");
        (is_next && url.starts_with(&format!("{}/", api_base.trim_end_matches('/'))))
            .then(|| url.to_string())
    })
}

/// Reads a body of at most [`BODY_LIMIT`] bytes (the request's total timeout still applies).
fn read_body(resp: Response, deadline: Instant) -> Result<Vec<u8>, Cause> {
    let mut body = Vec::new();
    let read = resp.take(BODY_LIMIT + 1).read_to_end(&mut body);
    if let Err(e) = read {
        return Err(
            if Instant::now() >= deadline || e.kind() == std::io::ErrorKind::TimedOut {
                Cause::Timeout
            } else {
                Cause::Transport(format!("reading the body: {e}"))
            },
        );
    }
    if body.len() as u64 > BODY_LIMIT {
        return Err(Cause::Malformed("body larger than 1 MiB".into()));
    }
    Ok(body)
}

/// A 200 body: a JSON array of objects, each with a string `type`.
fn read_rules(resp: Response, deadline: Instant) -> Result<Vec<RuleType>, Cause> {
    let body = read_body(resp, deadline)?;
    parse_rules(&body)
}

/// Parses the rules endpoint's body into rule types.
pub fn parse_rules(body: &[u8]) -> Result<Vec<RuleType>, Cause> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| Cause::Malformed(format!("not JSON: {e}")))?;
    let items = value
        .as_array()
        .ok_or_else(|| Cause::Malformed("not a JSON array".into()))?;
    items
        .iter()
        .map(|item| {
            item.get("type")
                .and_then(serde_json::Value::as_str)
                .map(RuleType::from)
                .ok_or_else(|| Cause::Malformed("a rule without a string \"type\"".into()))
        })
        .collect()
}

/// The cause for a non-success status, with GitHub's `message` when it sent one.
fn status_cause(resp: Response, deadline: Instant) -> Cause {
    let status = resp.status().as_u16();
    let retry_after = header(&resp, reqwest::header::RETRY_AFTER);
    let exhausted = header(&resp, "x-ratelimit-remaining").is_some_and(|v| v == "0");
    if status == 429 || (status == 403 && (retry_after.is_some() || exhausted)) {
        return Cause::RateLimited {
            status,
            retry_after,
        };
    }
    let detail = read_body(resp, deadline)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| {
            v.get("message")
                .and_then(|m| m.as_str())
                .map(str::to_string)
        })
        .map(|m| m.chars().take(200).collect())
        .unwrap_or_default();
    Cause::Status { status, detail }
}

fn transport_cause(e: &reqwest::Error) -> Cause {
    if e.is_timeout() {
        Cause::Timeout
    } else if e.is_connect() {
        Cause::Connect(primitives::error_text::chain(e))
    } else {
        Cause::Transport(primitives::error_text::chain(e))
    }
}

fn is_loopback_base(base: &str) -> bool {
    match crate::remote::parse_url(base) {
        crate::remote::UrlLocation::Host { host, .. } => {
            host == "localhost"
                || host
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
        crate::remote::UrlLocation::Local => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_encoding() {
        assert_eq!(
            rules_url("https://api.github.com/", "o", "r", "feature/x y#1"),
            "https://api.github.com/repos/o/r/rules/branches/feature%2Fx%20y%231?per_page=100"
        );
        assert_eq!(encode_segment("a.b-c_d~e"), "a.b-c_d~e");
        assert_eq!(encode_segment("é%"), "%C3%A9%25");
    }

    #[test]
    fn rule_parsing() {
        let body = br#"[{"type":"pull_request","ruleset_source_type":"Repository","ruleset_source":"o/r","ruleset_id":1,"parameters":{}},{"type":"brand_new"}]"#;
        assert_eq!(
            parse_rules(body),
            Ok(vec![
                RuleType::PullRequest,
                RuleType::Other("brand_new".into())
            ])
        );
        assert_eq!(parse_rules(b"[]"), Ok(vec![]));
        for body in [&b"{}"[..], b"[{\"x\":1}]", b"[{\"type\":5}]", b"<html>"] {
            assert!(
                matches!(parse_rules(body), Err(Cause::Malformed(_))),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn loopback_detection() {
        let loopback = [
            "http://127.0.0.1:8080",
            "http://localhost:1",
            "http://[::1]:1",
        ];
        for base in loopback {
            assert!(is_loopback_base(base), "{base}");
        }
        assert!(!is_loopback_base("https://api.github.com"));
    }
}
