//! The tests' loopback "model API" (issue 39): a TLS server with its own test CA (trusted by
//! the broker through its config, never by the clients) answering for `api.anthropic.com`, a
//! gateway host (`ANTHROPIC_BASE_URL`) and a Bedrock runtime host. It records every request it
//! sees (host, path, the model its body names, what credential it presented) and checks the
//! real key: `POST .../v1/messages` without it is 401 `authentication_error`, as the API does.
//! A Messages answer echoes the `x-api-key` it got (so a test sees that the real key is
//! replaced on the way back); `"stream": true` is answered with server-sent events, the first
//! event at once and the rest after [`HOLD`], the moment of the first event's send kept on the
//! monotonic clock (a client on the same machine compares its own).

use super::test_tls;
use credential_broker::http1::{self, Head};
use credential_broker::{Broker, Config, Handle, MemorySink, Sinks};
use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The maintainer's real `ANTHROPIC_API_KEY`.
pub const MODEL_KEY: &str = "sk-ant-api03-REALmodelKEYREALmodelKEYREALmodelKEYREALmodelKEY-AA";
/// The maintainer's real `ANTHROPIC_AUTH_TOKEN`.
pub const MODEL_TOKEN: &str = "sk-ant-oat01-REALauthTOKENREALauthTOKENREALauthTOKEN-BB";
/// A base URL host (a gateway the maintainer launched with).
pub const GATEWAY: &str = "gateway.example";
/// A Bedrock runtime host.
pub const BEDROCK: &str = "bedrock-runtime.us-east-1.amazonaws.com";
/// How long a streamed answer waits after its first event.
pub const HOLD: Duration = Duration::from_millis(800);

/// What the loopback model API saw of one request.
#[derive(Debug, Clone)]
pub struct Seen {
    pub host: String,
    pub method: String,
    pub path: String,
    /// The body's `model`.
    pub model: Option<String>,
    /// `real`, `none`, or `other`.
    pub auth: &'static str,
}

/// The loopback model API.
pub struct LoopbackModelApi {
    pub addr: SocketAddr,
    pub ca_pem: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    /// When each streamed answer's first event was sent (seconds on CLOCK_MONOTONIC).
    pub first_sent: Arc<Mutex<Vec<f64>>>,
}

/// Seconds on CLOCK_MONOTONIC (what Python's `time.monotonic()` reads).
pub fn monotonic() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid pointer to a timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

fn auth_kind(h: &Head) -> &'static str {
    let key = h.header("x-api-key").map(str::trim);
    let bearer = h
        .header("authorization")
        .and_then(|v| v.trim().strip_prefix("Bearer "))
        .map(str::trim);
    match (key, bearer) {
        (Some(MODEL_KEY), _) | (_, Some(MODEL_TOKEN)) => "real",
        (None, None) => "none",
        _ => "other",
    }
}

impl LoopbackModelApi {
    pub fn start() -> LoopbackModelApi {
        let (config, ca_pem) = test_tls(
            "loopback model API test CA",
            &["api.anthropic.com", GATEWAY, BEDROCK],
        );
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let first_sent = Arc::new(Mutex::new(Vec::new()));
        let (kept, firsts) = (seen.clone(), first_sent.clone());
        std::thread::spawn(move || {
            for s in listener.incoming().flatten() {
                let (config, kept, firsts) = (config.clone(), kept.clone(), firsts.clone());
                std::thread::spawn(move || serve(s, config, &kept, &firsts));
            }
        });
        LoopbackModelApi {
            addr,
            ca_pem,
            seen,
            first_sent,
        }
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// The models of the Messages requests it saw.
    pub fn models(&self) -> Vec<Option<String>> {
        self.seen()
            .into_iter()
            .filter(|s| s.path.contains("/v1/messages") || s.path.starts_with("/model/"))
            .map(|s| s.model)
            .collect()
    }
}

fn serve(
    s: TcpStream,
    config: Arc<rustls::ServerConfig>,
    kept: &Mutex<Vec<Seen>>,
    firsts: &Mutex<Vec<f64>>,
) {
    let _ = s.set_read_timeout(Some(Duration::from_secs(20)));
    let _ = s.set_nodelay(true);
    let Ok(conn) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = BufReader::new(rustls::StreamOwned::new(conn, s));
    loop {
        let Ok(head) = http1::read_head(&mut tls, 64 * 1024) else {
            return;
        };
        let Ok(body) = head
            .framing()
            .and_then(|f| http1::read_body(&mut tls, f, 64 << 20))
        else {
            return;
        };
        let host = head.header("host").unwrap_or("").to_string();
        let host = host.split(':').next().unwrap_or("").to_string();
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let model = json.get("model").and_then(|m| m.as_str()).map(String::from);
        let auth = auth_kind(&head);
        let path = head.first[1].clone();
        kept.lock().unwrap().push(Seen {
            host: host.clone(),
            method: head.first[0].clone(),
            path: path.clone(),
            model: model.clone(),
            auth,
        });
        let w = tls.get_mut();
        let sent = match (head.first[0].as_str(), path.split('?').next().unwrap_or("")) {
            (_, p) if p.starts_with("/model/") => {
                answer(w, "200 OK", &serde_json::json!({"ok": true}))
            }
            _ if auth != "real" => answer(
                w,
                "401 Unauthorized",
                &serde_json::json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
            ),
            ("POST", p) if p.ends_with("/v1/messages") && json["stream"] == true => {
                stream(w, model.as_deref().unwrap_or(""), firsts)
            }
            ("POST", p) if p.ends_with("/v1/messages") => answer(
                w,
                "200 OK",
                &serde_json::json!({
                    "type": "message", "role": "assistant", "model": model,
                    "content": [{"type": "text", "text": format!("the key I got: {}", head.header("x-api-key").unwrap_or(""))}],
                }),
            ),
            ("GET", p) if p.ends_with("/v1/models") => answer(
                w,
                "200 OK",
                &serde_json::json!({"data": [{"id": "claude-haiku-4-5"}]}),
            ),
            ("POST", p) if p.ends_with("/api/event_logging/batch") => {
                answer(w, "200 OK", &serde_json::json!({"received": body.len()}))
            }
            _ => answer(
                w,
                "404 Not Found",
                &serde_json::json!({"type": "error", "error": {"type": "not_found_error", "message": "no"}}),
            ),
        };
        if sent.is_err() {
            return;
        }
    }
}

fn answer(w: &mut impl Write, status: &str, v: &serde_json::Value) -> std::io::Result<()> {
    let body = v.to_string();
    write!(
        w,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    w.flush()
}

/// Server-sent events in chunks: the first at once, the rest after [`HOLD`].
fn stream(w: &mut impl Write, model: &str, firsts: &Mutex<Vec<f64>>) -> std::io::Result<()> {
    let chunk = |w: &mut dyn Write, data: &str| -> std::io::Result<()> {
        write!(w, "{:x}\r\n{data}\r\n", data.len())?;
        w.flush()
    };
    write!(
        w,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    )?;
    let start = format!(
        "event: message_start\ndata: {}\n\n",
        serde_json::json!({"type": "message_start", "message": {"model": model}})
    );
    chunk(w, &start)?;
    firsts.lock().unwrap().push(monotonic());
    std::thread::sleep(HOLD);
    chunk(
        w,
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n",
    )?;
    chunk(
        w,
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    )?;
    write!(w, "0\r\n\r\n")?;
    w.flush()
}

/// A broker whose model API is the loopback one (the GitHub side unused).
pub struct ModelScene {
    pub dir: tempfile::TempDir,
    pub api: LoopbackModelApi,
    pub sink: Arc<MemorySink>,
    pub broker: Handle,
}

impl ModelScene {
    /// The maintainer launched with `ANTHROPIC_API_KEY` and uses Bedrock too; `tune` changes
    /// the config further.
    pub fn with(tune: impl FnOnce(&mut Config)) -> ModelScene {
        let dir = tempfile::tempdir().unwrap();
        let api = LoopbackModelApi::start();
        let sink = Arc::new(MemorySink::default());
        let mut config = Config::new(super::REAL, None, dir.path().join("ca"));
        config.system_roots = false;
        config.upstream_roots_pem = vec![api.ca_pem.clone()];
        for h in ["api.anthropic.com", GATEWAY, BEDROCK] {
            config.upstream_addrs.insert(h.into(), api.addr);
        }
        config.model.api_key = Some(MODEL_KEY.into());
        config.model.cloud_hosts = vec![BEDROCK.into()];
        tune(&mut config);
        let broker = Broker::start(config, Sinks::memory(sink.clone())).expect("the broker starts");
        ModelScene {
            dir,
            api,
            sink,
            broker,
        }
    }

    pub fn new() -> ModelScene {
        ModelScene::with(|_| {})
    }

    /// `sh -c <script>` with only the broker's client environment (and `extra`): what an agent
    /// command holds. Its stdout and stderr, checked to hold no real credential.
    pub fn run(&self, script: &str, extra: &[(&str, &str)]) -> String {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(script)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(self.broker.client_env())
            .envs(extra.iter().copied())
            .output()
            .expect("sh runs");
        let text = super::received(&out);
        for real in [MODEL_KEY, MODEL_TOKEN, super::REAL] {
            assert!(
                !text.contains(real),
                "a real credential reached the client: {text}"
            );
        }
        text
    }
}
