//! Connections the broker opens: TLS to a GitHub host (the system's roots plus any the
//! caller adds; in tests, the loopback "GitHub"'s own CA), to the address configured for that
//! host or else the host's own, and plain TCP for tunnels. Every socket gets a connect
//! timeout and read/write timeouts, so no wait on an upstream is unbounded.

use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

/// A TLS connection to an upstream.
pub type TlsConn = StreamOwned<ClientConnection, TcpStream>;

/// How the broker reaches upstreams.
pub struct Upstream {
    tls: Arc<ClientConfig>,
    overrides: HashMap<String, SocketAddr>,
    connect_timeout: Duration,
    io_timeout: Duration,
}

/// Why the upstream TLS configuration could not be made.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    #[error("no trusted roots: {0}")]
    Roots(String),
    #[error("TLS: {0}")]
    Tls(#[from] rustls::Error),
}

impl Upstream {
    /// Trusting the system roots (when `system_roots`) and `extra_roots`; `overrides` send a
    /// host's connections to another address (the host name still checked in its certificate).
    pub fn new(
        system_roots: bool,
        extra_roots: &[CertificateDer<'static>],
        overrides: HashMap<String, SocketAddr>,
        connect_timeout: Duration,
        io_timeout: Duration,
    ) -> Result<Upstream, UpstreamError> {
        let mut roots = RootCertStore::empty();
        if system_roots {
            let found = rustls_native_certs::load_native_certs();
            for c in found.certs {
                let _ = roots.add(c);
            }
        }
        for c in extra_roots {
            roots
                .add(c.clone())
                .map_err(|e| UpstreamError::Roots(e.to_string()))?;
        }
        if roots.is_empty() {
            return Err(UpstreamError::Roots("the store is empty".into()));
        }
        let tls =
            ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()?
                .with_root_certificates(roots)
                .with_no_client_auth();
        Ok(Upstream {
            tls: Arc::new(tls),
            overrides: overrides
                .into_iter()
                .map(|(h, a)| (h.to_ascii_lowercase(), a))
                .collect(),
            connect_timeout,
            io_timeout,
        })
    }

    /// A TLS connection to `host:port`, handshake done.
    pub fn connect_tls(&self, host: &str, port: u16) -> io::Result<TlsConn> {
        let addr = self.overrides.get(&host.to_ascii_lowercase()).copied();
        let tcp = match addr {
            Some(a) => connect_addr(a, self.connect_timeout)?,
            None => connect_tcp(host, port, self.connect_timeout)?,
        };
        tcp.set_read_timeout(Some(self.io_timeout))?;
        tcp.set_write_timeout(Some(self.io_timeout))?;
        tcp.set_nodelay(true)?;
        let name = ServerName::try_from(host.to_string())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let conn = ClientConnection::new(self.tls.clone(), name).map_err(io::Error::other)?;
        let mut stream = StreamOwned::new(conn, tcp);
        while stream.conn.is_handshaking() {
            stream.conn.complete_io(&mut stream.sock)?;
        }
        Ok(stream)
    }

    /// The io timeout of upstream sockets.
    pub fn io_timeout(&self) -> Duration {
        self.io_timeout
    }

    /// The connect timeout.
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }
}

fn connect_addr(a: SocketAddr, timeout: Duration) -> io::Result<TcpStream> {
    TcpStream::connect_timeout(&a, timeout)
}

/// A TCP connection to `host:port` (each address the name resolves to, in turn).
pub fn connect_tcp(host: &str, port: u16, timeout: Duration) -> io::Result<TcpStream> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let mut last = io::Error::new(io::ErrorKind::NotFound, "the name resolves to no address");
    for a in (host, port).to_socket_addrs()? {
        match connect_addr(a, timeout) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}
