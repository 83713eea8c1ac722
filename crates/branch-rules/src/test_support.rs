//! Test support (feature `test-support`), for this crate's tests and gh-write-guard's.
//!
//! [`TestServer`] is a real HTTP/1.1 server on 127.0.0.1: it serves GitHub's rules endpoint
//! shapes from routes the test sets, records every request (raw target and headers), and can
//! delay, fail with any status, send a bad body, close without answering, or hang (accept and
//! never answer). Each connection gets its own thread, so a hanging answer does not block the
//! next request. No mock library: reqwest talks to a real socket. [`ManualClock`] moves TTL
//! time by hand.

use hook_replay::loopback::Acceptor;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub method: String,
    /// The request target as sent (path and query, still percent-encoded).
    pub target: String,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
}

impl Recorded {
    /// The target without its query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or(&self.target)
    }

    /// The first value of a header (name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How to answer a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A status, extra headers and a body.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Wait, then answer.
    Delay(Duration, Box<Reply>),
    /// Accept and never answer (until the server is dropped).
    Hang,
    /// Close the connection without a word.
    Close,
}

impl Reply {
    /// A JSON answer with a status.
    pub fn json(status: u16, body: impl Into<String>) -> Reply {
        Reply::Full {
            status,
            headers: vec![(
                "Content-Type".into(),
                "application/json; charset=utf-8".into(),
            )],
            body: body.into(),
        }
    }

    /// GitHub's error body for a status (`{"message": ..., "status": "..."}`).
    pub fn error(status: u16, message: &str) -> Reply {
        Reply::json(
            status,
            serde_json::json!({
                "message": message,
                "documentation_url": "https://docs.github.com/rest",
                "status": status.to_string(),
            })
            .to_string(),
        )
    }

    /// 200 with the given rule types in the shape of `rules/branches`.
    pub fn rules(types: &[&str]) -> Reply {
        Reply::json(200, rules_body(types))
    }

    /// Adds a header.
    pub fn with_header(self, name: &str, value: &str) -> Reply {
        match self {
            Reply::Full {
                status,
                mut headers,
                body,
            } => {
                headers.push((name.into(), value.into()));
                Reply::Full {
                    status,
                    headers,
                    body,
                }
            }
            Reply::Delay(d, inner) => Reply::Delay(d, Box::new(inner.with_header(name, value))),
            other => other,
        }
    }
}

/// A body like GitHub's for these rule types: each element has `type`, `ruleset_source_type`,
/// `ruleset_source`, `ruleset_id` and, for the types that have them, `parameters`.
pub fn rules_body(types: &[&str]) -> String {
    let items: Vec<serde_json::Value> = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut item = serde_json::json!({
                "type": t,
                "ruleset_source_type": if i % 2 == 0 { "Repository" } else { "Organization" },
                "ruleset_source": if i % 2 == 0 { "octo-org/hello" } else { "octo-org" },
                "ruleset_id": 4100 + i,
            });
            let parameters = match *t {
                "update" => Some(serde_json::json!({"update_allows_fetch_and_merge": false})),
                "required_status_checks" => Some(serde_json::json!({
                    "strict_required_status_checks_policy": true,
                    "do_not_enforce_on_create": false,
                    "required_status_checks": [{"context": "ci/test", "integration_id": 15368}],
                })),
                "pull_request" => Some(serde_json::json!({
                    "required_approving_review_count": 1,
                    "dismiss_stale_reviews_on_push": true,
                    "require_code_owner_review": false,
                    "require_last_push_approval": false,
                    "required_review_thread_resolution": true,
                    "allowed_merge_methods": ["merge", "squash", "rebase"],
                })),
                _ => None,
            };
            if let (Some(p), Some(obj)) = (parameters, item.as_object_mut()) {
                obj.insert("parameters".into(), p);
            }
            item
        })
        .collect();
    serde_json::Value::Array(items).to_string()
}

type Responder = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

struct State {
    routes: HashMap<String, Responder>,
    requests: Vec<Recorded>,
}

/// The rules path [`TestServer::protecting_main`] protects.
pub const PROTECTED_MAIN: &str = "/repos/acme/widget/rules/branches/main";

/// The server; stops (and releases hanging connections) when dropped.
pub struct TestServer {
    addr: SocketAddr,
    tls: bool,
    state: Arc<Mutex<State>>,
    // Dropping it stops the accept loop and ends hanging answers.
    _acceptor: Acceptor,
}

impl TestServer {
    /// Binds 127.0.0.1 on a free port and starts serving plain HTTP. Unrouted paths answer 404.
    pub fn start() -> std::io::Result<TestServer> {
        Self::start_with(None)
    }

    /// The rules API of the push tests' `acme/widget`: `main` needs a pull request, `feature`
    /// has no rules.
    pub fn protecting_main() -> std::io::Result<TestServer> {
        let server = Self::with_rules(PROTECTED_MAIN, &["pull_request"])?;
        server.route(
            "/repos/acme/widget/rules/branches/feature",
            Reply::rules(&[]),
        );
        Ok(server)
    }

    /// A plain HTTP server answering the rules endpoint `path` with rules of these `types`.
    pub fn with_rules(path: &str, types: &[&str]) -> std::io::Result<TestServer> {
        let server = Self::start()?;
        server.route(path, Reply::rules(types));
        Ok(server)
    }

    /// The same over TLS (rustls, ring) with this PEM certificate chain and PEM private key.
    pub fn start_tls(cert_chain_pem: &[u8], key_pem: &[u8]) -> std::io::Result<TestServer> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let invalid = |e: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, e);
        let certs = CertificateDer::pem_slice_iter(cert_chain_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid(format!("certificate: {e:?}")))?;
        let key =
            PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| invalid(format!("key: {e:?}")))?;
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| invalid(e.to_string()))?;
        Self::start_with(Some(Arc::new(config)))
    }

    fn start_with(tls: Option<Arc<rustls::ServerConfig>>) -> std::io::Result<TestServer> {
        let is_tls = tls.is_some();
        let state = Arc::new(Mutex::new(State {
            routes: HashMap::new(),
            requests: Vec::new(),
        }));
        let acceptor = {
            let state = Arc::clone(&state);
            Acceptor::start("rules-api", move |stream, stop| {
                serve(stream, tls.clone(), &state, stop)
            })?
        };
        Ok(TestServer {
            addr: acceptor.addr(),
            tls: is_tls,
            state,
            _acceptor: acceptor,
        })
    }

    /// `http://127.0.0.1:PORT` (or `https://`; use as the API base override).
    pub fn base(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Answers requests for `path` (exact, without query, as sent: `%2F` stays encoded).
    pub fn route(&self, path: &str, reply: Reply) {
        self.route_with(path, move |_| reply.clone());
    }

    /// Answers requests for `path` with a function of the request.
    pub fn route_with(&self, path: &str, f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) {
        if let Ok(mut s) = self.state.lock() {
            s.routes.insert(path.to_string(), Arc::new(f));
        }
    }

    /// Serves `types` at `path` with an ETag, answering 304 to a matching `If-None-Match`.
    pub fn route_rules_with_etag(&self, path: &str, types: &[&str], etag: &str) {
        let body = rules_body(types);
        let etag = etag.to_string();
        self.route_with(path, move |req| {
            if req.header("if-none-match") == Some(etag.as_str()) {
                Reply::Full {
                    status: 304,
                    headers: vec![("ETag".into(), etag.clone())],
                    body: String::new(),
                }
            } else {
                Reply::json(200, body.clone()).with_header("ETag", &etag)
            }
        });
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state
            .lock()
            .map(|s| s.requests.clone())
            .unwrap_or_default()
    }

    /// How many requests were made for `path` (without query).
    pub fn count(&self, path: &str) -> usize {
        self.requests().iter().filter(|r| r.path() == path).count()
    }
}

fn serve(
    stream: TcpStream,
    tls: Option<Arc<rustls::ServerConfig>>,
    state: &Mutex<State>,
    stop: &AtomicBool,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    match tls {
        None => serve_on(stream, state, stop),
        Some(config) => {
            let Ok(conn) = rustls::ServerConnection::new(config) else {
                return;
            };
            let mut tls_stream = rustls::StreamOwned::new(conn, stream);
            serve_on(&mut tls_stream, state, stop);
            tls_stream.conn.send_close_notify();
            let _ = tls_stream.flush();
        }
    }
}

fn serve_on<S: Read + Write>(mut stream: S, state: &Mutex<State>, stop: &AtomicBool) {
    let Some(request) = read_request(&mut stream) else {
        return;
    };
    let responder = state.lock().ok().and_then(|mut s| {
        s.requests.push(request.clone());
        s.routes.get(request.path()).cloned()
    });
    let reply = match responder {
        Some(f) => f(&request),
        None => Reply::error(404, "Not Found"),
    };
    answer(&mut stream, reply, stop);
}

fn answer<S: Write>(stream: &mut S, reply: Reply, stop: &AtomicBool) {
    match reply {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} {}\r\nContent-Length: {}\r\nConnection: close\r\n",
                reason(status),
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
            let _ = stream.flush();
        }
        Reply::Delay(wait, inner) => {
            sleep_unless_stopped(wait, stop);
            answer(stream, *inner, stop);
        }
        Reply::Hang => sleep_unless_stopped(Duration::from_secs(600), stop),
        Reply::Close => {}
    }
}

fn sleep_unless_stopped(total: Duration, stop: &AtomicBool) {
    let step = Duration::from_millis(10);
    let mut waited = Duration::ZERO;
    while waited < total && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(step);
        waited += step;
    }
}

/// Reads the request line and headers (bounded to 64 KiB); GET requests have no body.
fn read_request<S: Read>(stream: &mut S) -> Option<Recorded> {
    let mut reader = BufReader::new(stream.take(64 * 1024));
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            break;
        }
        let h = h.trim_end_matches(['\r', '\n']);
        if h.is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    Some(Recorded {
        method,
        target,
        headers,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        304 => "Not Modified",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// A clock the test sets by hand, for TTL behaviour without sleeping.
#[derive(Debug, Default)]
pub struct ManualClock {
    now_ms: std::sync::atomic::AtomicU64,
}

impl ManualClock {
    pub fn at(now_ms: u64) -> Self {
        ManualClock {
            now_ms: std::sync::atomic::AtomicU64::new(now_ms),
        }
    }

    pub fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.now_ms.fetch_add(ms, Ordering::SeqCst);
    }
}

impl crate::cache::Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now_ms.load(Ordering::SeqCst)
    }
}

impl crate::cache::Clock for &ManualClock {
    fn now_ms(&self) -> u64 {
        self.now_ms.load(Ordering::SeqCst)
    }
}
