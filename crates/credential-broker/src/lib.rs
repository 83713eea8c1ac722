//! The per-session credential broker of requirement C11 (issues 38, 39): agent commands reach
//! GitHub and the model API through it as their HTTPS proxy and hold only placeholders; the
//! broker judges each model API request's `model` with model-tier-guard's face (M3 on the
//! wire: [`model_session`]). For GitHub the broker
//! terminates TLS for GitHub hosts with a CA made for the session, reads each request into the
//! operation the rules judge (a push's ref updates, a REST or GraphQL call), judges it with
//! gh-write-guard's own G2–G4 code, and adds the real token only to what the rules allow.
//! Refusals are answered in the protocol's own shape (GitHub's 403 JSON, git's
//! `report-status`); every decision goes to an [`audit::AuditSink`], every plain tunnel to a
//! [`audit::ConnectSink`].
//!
//! The face for the wiring (the containment prefix): [`Broker::start`] with a [`Config`] and
//! the sinks gives a [`Handle`] (port, CA files, placeholder, [`Handle::client_env`]);
//! [`Handle::stop`] ends it. Modules: [`proxy`] (accepting, CONNECT, tunnels), [`session`]
//! (one terminated connection: read, judge, forward), [`operation`] and [`decide`] (pure),
//! [`model_session`] (one terminated model API connection), [`http1`] (bounded framing), [`live_ids`] (G2's ids from live queries), [`ca`], [`credentials`], [`redact`], [`answer`], [`upstream`],
//! [`world`], [`audit`], [`peer`] (which program sent it), [`codes`].

pub mod answer;
pub mod audit;
pub mod ca;
pub mod codes;
pub mod config;
pub mod credentials;
pub mod decide;
pub mod http1;
pub mod live_ids;
pub mod model_session;
pub mod operation;
pub mod peer;
pub mod proxy;
pub mod redact;
pub mod session;
pub mod upstream;
pub mod world;

pub use audit::{AuditSink, ConnectSink, MemorySink};
pub use config::{Config, ModelConfig, Timeouts};

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

/// Why a broker could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("the session CA: {0}")]
    Ca(#[from] ca::CaError),
    #[error("upstream TLS: {0}")]
    Upstream(#[from] upstream::UpstreamError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Where decisions and tunnels are reported.
#[derive(Clone)]
pub struct Sinks {
    pub audit: Arc<dyn AuditSink>,
    pub connects: Arc<dyn ConnectSink>,
}

impl Sinks {
    /// Both into one [`MemorySink`].
    pub fn memory(sink: Arc<MemorySink>) -> Sinks {
        Sinks {
            audit: sink.clone(),
            connects: sink,
        }
    }
}

/// The broker.
pub struct Broker;

/// A running broker; stopped by [`Handle::stop`] or when dropped.
pub struct Handle {
    /// The proxy's port on 127.0.0.1.
    pub port: u16,
    /// The session CA's certificate (PEM, public; mode 0644).
    pub ca_pem_path: PathBuf,
    /// The system roots and the session CA in one file, for clients whose CA variable
    /// replaces their roots (`SSL_CERT_FILE`, `GIT_SSL_CAINFO`, `CURL_CA_BUNDLE`).
    pub bundle_path: PathBuf,
    /// What agent commands hold instead of the token.
    pub placeholder: String,
    /// What agent commands hold instead of `ANTHROPIC_API_KEY` (when the broker holds one).
    pub model_key_placeholder: Option<String>,
    /// What agent commands hold instead of `ANTHROPIC_AUTH_TOKEN` (when the broker holds one).
    pub model_token_placeholder: Option<String>,
    shared: Arc<proxy::Shared>,
    accept: Option<JoinHandle<()>>,
}

impl Broker {
    /// Starts a broker on a free 127.0.0.1 port: makes the session CA (its key stays in this
    /// process's memory), writes its certificate and the bundle to `config.ca_dir`, and
    /// accepts connections on a thread of its own (one thread per connection).
    pub fn start(config: Config, sinks: Sinks) -> Result<Handle, StartError> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let shared = Arc::new(proxy::Shared::new(config, sinks)?);
        let (ca_pem_path, bundle_path) = shared.write_ca_files()?;
        let placeholder = shared.creds.placeholder().to_string();
        let model = &shared.model_creds;
        let model_key_placeholder = model.key.as_ref().map(|c| c.placeholder().to_string());
        let model_token_placeholder = model.token.as_ref().map(|c| c.placeholder().to_string());
        let accept = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("broker-accept".into())
                .spawn(move || proxy::accept_loop(listener, shared))?
        };
        Ok(Handle {
            port,
            ca_pem_path,
            bundle_path,
            placeholder,
            model_key_placeholder,
            model_token_placeholder,
            shared,
            accept: Some(accept),
        })
    }
}

impl Handle {
    /// `http://127.0.0.1:<port>`.
    pub fn proxy_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The environment an agent command gets ([`client_env`] for this broker, and the model
    /// API's placeholders, [`model_env`], when the broker holds that real credential).
    pub fn client_env(&self) -> Vec<(String, String)> {
        let mut env = client_env(
            self.port,
            &self.ca_pem_path,
            &self.bundle_path,
            &self.placeholder,
        );
        env.extend(model_env(
            self.model_key_placeholder.as_deref(),
            self.model_token_placeholder.as_deref(),
        ));
        env
    }

    /// Stops accepting, closes every open connection and waits for the accept thread.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
        self.shared.close_all();
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.halt();
    }
}

/// The variables that hold a GitHub token for gh and git (gh's order of preference).
pub const TOKEN_VARS: [&str; 4] = [
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
];

/// The environment an agent command gets from a broker on `port`: the proxy in every spelling
/// clients read, loopback exempt, the CA files, and the placeholder in every token variable gh
/// and git read. A free function so the prefix, which finds a running broker by its record,
/// builds the same list as the broker's own [`Handle::client_env`].
pub fn client_env(
    port: u16,
    ca_pem: &std::path::Path,
    bundle: &std::path::Path,
    placeholder: &str,
) -> Vec<(String, String)> {
    let proxy = format!("http://127.0.0.1:{port}");
    let bundle = bundle.display().to_string();
    let mut env = Vec::new();
    for v in ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"] {
        env.push((v.to_string(), proxy.clone()));
        env.push((v.to_ascii_lowercase(), proxy.clone()));
    }
    env.push(("NO_PROXY".into(), "localhost,127.0.0.1,::1".into()));
    env.push(("no_proxy".into(), "localhost,127.0.0.1,::1".into()));
    // Node's own `fetch` reads the proxy variables only when told to (Node 22.21 / 24.5 on);
    // an older Node goes direct and, holding only the placeholder, cannot write.
    env.push(("NODE_USE_ENV_PROXY".into(), "1".into()));
    for v in [
        "SSL_CERT_FILE",
        "GIT_SSL_CAINFO",
        "CURL_CA_BUNDLE",
        "REQUESTS_CA_BUNDLE",
    ] {
        env.push((v.into(), bundle.clone()));
    }
    env.push(("NODE_EXTRA_CA_CERTS".into(), ca_pem.display().to_string()));
    for v in TOKEN_VARS {
        env.push((v.into(), placeholder.to_string()));
    }
    env
}

/// The model API's credential variables (issue 39): the key, then the token.
pub const MODEL_VARS: [&str; 2] = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"];

/// The model API's placeholders (issue 39) in [`MODEL_VARS`], each only when the broker holds
/// that real credential.
pub fn model_env(key: Option<&str>, token: Option<&str>) -> Vec<(String, String)> {
    [(MODEL_VARS[0], key), (MODEL_VARS[1], token)]
        .into_iter()
        .filter_map(|(v, p)| Some((v.to_string(), p?.to_string())))
        .collect()
}
