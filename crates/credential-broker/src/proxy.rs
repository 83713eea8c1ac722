//! The proxy's front: accepting on 127.0.0.1, one thread per connection (std threads: see the
//! crate README for why not tokio), at most `max_connections` at once. A `CONNECT` to a GitHub
//! host on 443 or to a model API endpoint (`Config::is_model_endpoint`) is terminated with the
//! session CA and handed to [`crate::session`]; any other `CONNECT` is a plain tunnel, reported
//! to the [`ConnectSink`] (with the program that asked); a plain `http://` request to a GitHub
//! or model API host is refused (they are HTTPS), to any other host it is relayed once (and
//! reported like a tunnel). Every open socket is registered so
//! [`crate::Handle::stop`] can close them all.

use crate::audit::Connect;
use crate::ca::SessionCa;
use crate::config::Config;
use crate::credentials::{Credentials, ModelCredentials};
use crate::http1::{self, ReadError};
use crate::upstream::{connect_tcp, Upstream};
use crate::world::BrokerWorld;
use crate::{answer, codes, Sinks, StartError};
use gh_write_guard::face::Context;
use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What every connection thread shares.
pub struct Shared {
    pub config: Config,
    pub creds: Credentials,
    /// The model API's pairs (issue 39).
    pub model_creds: ModelCredentials,
    /// The launch environment M3 reads on the wire: the model variables and the grant.
    pub model_env: std::collections::BTreeMap<String, String>,
    pub ca: SessionCa,
    pub upstream: Upstream,
    pub world: BrokerWorld,
    pub cx: Context,
    pub sinks: Sinks,
    /// The node ids GitHub returned in the session (G2 on the wire).
    pub live_ids: crate::live_ids::LiveIds,
    pub stop: AtomicBool,
    open: Mutex<HashMap<u64, TcpStream>>,
    next_id: AtomicU64,
    active: AtomicUsize,
}

impl Shared {
    pub(crate) fn new(config: Config, sinks: Sinks) -> Result<Shared, StartError> {
        let seed = match config.placeholder_seed.is_empty() {
            true => random_seed()?,
            false => config.placeholder_seed.clone(),
        };
        let creds = Credentials::new(config.token.clone(), &seed);
        let model_creds = ModelCredentials::new(
            config.model.api_key.as_deref(),
            config.model.auth_token.as_deref(),
            &seed,
        );
        let mut placeholders: Vec<&str> = std::iter::once(&creds)
            .chain(model_creds.pairs())
            .map(Credentials::placeholder)
            .collect();
        let held = placeholders.len();
        placeholders.sort();
        placeholders.dedup();
        if placeholders.len() != held {
            // Fail closed: a placeholder that stood for two credentials could be swapped for
            // the wrong one.
            return Err(io::Error::other("two credentials were given one placeholder").into());
        }
        let mut model_env = config.model.alias_env.clone();
        if let Some(g) = &config.model.grant {
            model_env.insert(model_tier_guard::face::GRANT_VAR.into(), g.clone());
        }
        let mut roots = Vec::new();
        for pem in &config.upstream_roots_pem {
            roots.extend(pem_certs(pem));
        }
        let upstream = Upstream::new(
            config.system_roots,
            &roots,
            config.upstream_addrs.clone(),
            config.timeouts.connect,
            config.timeouts.upstream_io,
        )?;
        let hosts = branch_rules::GitHubHosts::new(config.enterprise_hosts.iter());
        let world = BrokerWorld::live(
            config.session_repo.clone(),
            hosts,
            config.rules_api.clone(),
            &config.token,
            config.timeouts.lookup,
        );
        let mut cx = Context::new("/");
        cx.config = config.guard.clone();
        if let Some(g) = &config.owner_grant {
            cx.env.insert("GH_WRITE_GUARD_ALLOW".into(), g.clone());
        }
        Ok(Shared {
            ca: SessionCa::generate(&config.terminated_names())?,
            creds,
            model_creds,
            model_env,
            upstream,
            world,
            cx,
            sinks,
            config,
            live_ids: Default::default(),
            stop: AtomicBool::new(false),
            open: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(0),
            active: AtomicUsize::new(0),
        })
    }

    /// Writes `ca.pem` (the session CA) and `bundle.pem` (system roots + session CA), mode
    /// 0644: certificates only, the key is never written.
    pub(crate) fn write_ca_files(&self) -> io::Result<(PathBuf, PathBuf)> {
        std::fs::create_dir_all(&self.config.ca_dir)?;
        let ca = self.config.ca_dir.join("ca.pem");
        let bundle = self.config.ca_dir.join("bundle.pem");
        let pem = self.ca.cert_pem();
        std::fs::write(&ca, &pem)?;
        let mut all = String::new();
        if self.config.system_roots {
            for c in rustls_native_certs::load_native_certs().certs {
                all.push_str(&der_to_pem(&c));
            }
        }
        all.push_str(&pem);
        std::fs::write(&bundle, all)?;
        Ok((ca, bundle))
    }

    /// A writer for what goes back to an agent command: every real credential the broker
    /// holds (GitHub's, the model API's) replaced by its placeholder.
    pub(crate) fn redactor<W: Write>(&self, w: W) -> crate::redact::Redactor<W> {
        let pairs = std::iter::once(&self.creds)
            .chain(self.model_creds.pairs())
            .map(|c| (c.real(), c.placeholder()));
        crate::redact::Redactor::pairs(w, pairs)
    }

    fn register(&self, s: &TcpStream) -> Option<u64> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let clone = s.try_clone().ok()?;
        self.open.lock().ok()?.insert(id, clone);
        Some(id)
    }

    fn unregister(&self, id: Option<u64>) {
        if let (Some(id), Ok(mut m)) = (id, self.open.lock()) {
            m.remove(&id);
        }
    }

    /// Shuts every open connection down (their threads then end on the error).
    pub(crate) fn close_all(&self) {
        if let Ok(mut m) = self.open.lock() {
            for (_, s) in m.drain() {
                let _ = s.shutdown(Shutdown::Both);
            }
        }
    }
}

fn random_seed() -> io::Result<Vec<u8>> {
    let mut seed = vec![0u8; 48];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut seed)?;
    Ok(seed)
}

fn der_to_pem(der: &[u8]) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = String::from("-----BEGIN CERTIFICATE-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out.push_str("-----END CERTIFICATE-----\n");
    out
}

/// The certificates of a PEM text.
fn pem_certs(pem: &str) -> Vec<rustls::pki_types::CertificateDer<'static>> {
    use rustls::pki_types::pem::PemObject;
    rustls::pki_types::CertificateDer::pem_slice_iter(pem.as_bytes())
        .filter_map(Result::ok)
        .collect()
}

/// Accepts until the broker stops.
pub(crate) fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(mut stream) = stream else { continue };
        if shared.active.load(Ordering::SeqCst) >= shared.config.max_connections {
            let _ = stream.write_all(&answer::plain(
                503,
                "Service Unavailable",
                "C11: too many connections to the broker at once",
            ));
            continue;
        }
        shared.active.fetch_add(1, Ordering::SeqCst);
        let conn = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("broker-conn".into())
            .spawn(move || {
                let id = conn.register(&stream);
                let _ = handle_client(&conn, stream);
                conn.unregister(id);
                conn.active.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            // The count was taken for a thread that never ran.
            shared.active.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// The first request on a client connection: CONNECT, or a plain proxy request.
fn handle_client(shared: &Shared, stream: TcpStream) -> io::Result<()> {
    stream.set_read_timeout(Some(shared.config.timeouts.client_idle))?;
    stream.set_write_timeout(Some(shared.config.timeouts.client_idle))?;
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let head = match http1::read_head(&mut reader, shared.config.limits.max_head) {
        Ok(h) => h,
        Err(ReadError::Closed) => return Ok(()),
        Err(e) => {
            let mut s = stream;
            return s.write_all(&answer::plain(
                400,
                "Bad Request",
                &format!("{}: {e}", codes::MALFORMED),
            ));
        }
    };
    let [method, target, _] = &head.first;
    if method.eq_ignore_ascii_case("CONNECT") {
        let Some((host, port)) = split_authority(target) else {
            let mut s = stream;
            return s.write_all(&answer::plain(
                400,
                "Bad Request",
                &format!(
                    "{}: CONNECT {target:?} names no host:port",
                    codes::MALFORMED
                ),
            ));
        };
        // Bytes the client sent after its CONNECT head (a TLS hello sent early) belong to
        // what follows.
        let early = reader.buffer().to_vec();
        drop(reader);
        let mut s = stream;
        // Which program asked, looked up beside the handshake (crate::peer).
        let peer = PeerLookup::start(&s);
        let terminated = (shared.config.is_github(&host) && port == 443)
            || shared.config.is_model_endpoint(&host, port);
        if terminated {
            s.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")?;
            return crate::session::serve_tls(shared, Prefixed::new(early, s), &host, port, peer);
        }
        return tunnel(shared, s, early, &host, port, peer);
    }
    plain_request(shared, stream, reader, head)
}

/// `host:port` (`[v6]:port`) of a CONNECT target.
fn split_authority(target: &str) -> Option<(String, u16)> {
    let (host, port) = target.rsplit_once(':')?;
    let port = port.parse().ok()?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    (!host.is_empty()).then(|| (host.to_ascii_lowercase(), port))
}

/// A plain tunnel to `host:port`, reported first; bytes copied both ways until either side
/// closes or stays idle past the tunnel timeout.
fn tunnel(
    shared: &Shared,
    mut client: TcpStream,
    early: Vec<u8>,
    host: &str,
    port: u16,
    peer: PeerLookup,
) -> io::Result<()> {
    let Some(mut up) = reported_connect(shared, &mut client, host, port, peer)? else {
        return Ok(());
    };
    client.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")?;
    up.set_nodelay(true)?;
    let idle = Some(shared.config.timeouts.tunnel_idle);
    up.set_read_timeout(idle)?;
    client.set_read_timeout(idle)?;
    up.write_all(&early)?;
    let id = shared.register(&up);
    let (mut up_r, mut client_w) = (up.try_clone()?, client.try_clone()?);
    let back = std::thread::spawn(move || {
        let _ = io::copy(&mut up_r, &mut client_w);
        let _ = client_w.shutdown(Shutdown::Write);
    });
    let _ = io::copy(&mut client, &mut up);
    let _ = up.shutdown(Shutdown::Write);
    let _ = back.join();
    shared.unregister(id);
    Ok(())
}

/// A connection to `host:port`, reported to the connect sink (with the program, once the
/// lookup ends); when it cannot be made the client is told (502) and `None` returned.
fn reported_connect(
    shared: &Shared,
    client: &mut TcpStream,
    host: &str,
    port: u16,
    peer: PeerLookup,
) -> io::Result<Option<TcpStream>> {
    let upstream = connect_tcp(host, port, shared.config.timeouts.connect);
    // Reported once the program is known, beside the tunnel (no wait added to it).
    let sink = shared.sinks.connects.clone();
    let mut record = Connect {
        host: host.to_string(),
        port,
        opened: upstream.is_ok(),
        peer: None,
    };
    let _ = std::thread::Builder::new()
        .name("broker-report".into())
        .spawn(move || {
            record.peer = peer.get();
            sink.connect(&record);
        });
    match upstream {
        Ok(u) => Ok(Some(u)),
        Err(e) => {
            let why = format!(
                "{}: {host}:{port} could not be reached: {e}",
                codes::UPSTREAM
            );
            client.write_all(&answer::plain(502, "Bad Gateway", &why))?;
            Ok(None)
        }
    }
}

/// A plain `http://` proxy request (absolute-form): refused for a GitHub host, relayed once
/// for any other (reported like a tunnel).
fn plain_request(
    shared: &Shared,
    mut client: TcpStream,
    mut reader: BufReader<TcpStream>,
    head: http1::Head,
) -> io::Result<()> {
    let target = head.first[1].clone();
    let Some(rest) = target.strip_prefix("http://") else {
        return client.write_all(&answer::plain(
            400,
            "Bad Request",
            &format!(
                "{}: a proxy request names an http:// URL or CONNECTs",
                codes::MALFORMED
            ),
        ));
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = split_authority(authority).unwrap_or((authority.to_ascii_lowercase(), 80));
    if shared.config.is_model_host(&host) {
        return client.write_all(&answer::model_refusal(
            403,
            codes::UNKNOWN_WRITE,
            &format!(
                "{}: the model API is reached over https:// only through the broker. Use an https:// base URL",
                codes::UNKNOWN_WRITE
            ),
        ));
    }
    if shared.config.is_github(&host) {
        return client.write_all(&answer::api_refusal(
            403,
            codes::UNKNOWN_WRITE,
            &format!(
                "{}: GitHub is reached over https:// only",
                codes::UNKNOWN_WRITE
            ),
        ));
    }
    let body = match head
        .framing()
        .and_then(|f| http1::read_body(&mut reader, f, shared.config.limits.max_body))
    {
        Ok(b) => b,
        Err(e) => {
            return client.write_all(&answer::plain(
                400,
                "Bad Request",
                &format!("{}: {e}", codes::MALFORMED),
            ))
        }
    };
    let peer = PeerLookup::start(&client);
    let Some(mut up) = reported_connect(shared, &mut client, &host, port, peer)? else {
        return Ok(());
    };
    up.set_read_timeout(Some(shared.config.timeouts.upstream_io))?;
    let mut headers: Vec<(String, String)> = head
        .headers
        .iter()
        .filter(|(n, _)| !crate::session::is_hop_by_hop(n))
        .cloned()
        .collect();
    headers.push(("Content-Length".into(), body.len().to_string()));
    headers.push(("Connection".into(), "close".into()));
    let mut line = head.clone();
    line.first[1] = path.to_string();
    up.write_all(&line.encode_with(&headers))?;
    up.write_all(&body)?;
    io::copy(&mut up, &mut client)?;
    Ok(())
}

/// The lookup of the program at the other end of a client connection, started on a thread of
/// its own when the connection is accepted and joined when a record needs it.
pub struct PeerLookup {
    pending: Mutex<Option<std::thread::JoinHandle<Option<crate::peer::Peer>>>>,
    found: std::sync::OnceLock<Option<crate::peer::Peer>>,
}

impl PeerLookup {
    pub(crate) fn start(client: &TcpStream) -> PeerLookup {
        let ports = client.peer_addr().ok().zip(client.local_addr().ok());
        let pending = ports.and_then(|(p, l)| {
            std::thread::Builder::new()
                .name("broker-peer".into())
                .spawn(move || crate::peer::find(p.port(), l.port()))
                .ok()
        });
        PeerLookup {
            pending: Mutex::new(pending),
            found: std::sync::OnceLock::new(),
        }
    }

    /// The program, once known (waits for the lookup the first time). A refusal asks before it
    /// answers, while the client still waits and so still runs; other records ask after.
    pub fn get(&self) -> Option<crate::peer::Peer> {
        self.found
            .get_or_init(|| {
                let pending = self.pending.lock().ok().and_then(|mut p| p.take());
                pending.and_then(|h| h.join().ok().flatten())
            })
            .clone()
    }
}

/// A stream that first yields bytes already read from it.
pub struct Prefixed<S> {
    early: Vec<u8>,
    at: usize,
    inner: S,
}

impl<S> Prefixed<S> {
    pub fn new(early: Vec<u8>, inner: S) -> Prefixed<S> {
        Prefixed {
            early,
            at: 0,
            inner,
        }
    }
}

impl<S: Read> Read for Prefixed<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at < self.early.len() {
            let n = (self.early.len() - self.at).min(buf.len());
            buf[..n].copy_from_slice(&self.early[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

impl<S: Write> Write for Prefixed<S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
