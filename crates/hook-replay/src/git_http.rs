//! git's smart HTTP protocol on 127.0.0.1: `git http-backend` (git's own CGI program) behind a
//! minimal HTTP/1.1 server, one request per connection, so pushes and fetches in tests go
//! through git's remote helpers (`git-remote-http`) the way they do against a real host.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Serves the repositories under `base` at `http://127.0.0.1:<port>/<path>`, pushes included
/// (`REMOTE_USER` is set, which enables `receive-pack`); stopped on drop.
pub struct HttpBackend {
    /// The port it listens on.
    pub port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HttpBackend {
    /// Starts serving at once (the socket listens before this returns).
    pub fn start(base: &Path) -> HttpBackend {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("its address").port();
        let stop = Arc::new(AtomicBool::new(false));
        let (base, flag) = (base.to_path_buf(), stop.clone());
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = conn {
                    let _ = serve_one(&base, stream);
                }
            }
        });
        HttpBackend {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for HttpBackend {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A TCP relay in front of a server on 127.0.0.1 that keeps every request's bytes (one thread
/// per connection), so a test can read what a real client sent: the bodies of git's
/// `POST .../git-receive-pack` requests ([`Recorder::push_bodies`]).
pub struct Recorder {
    /// The port clients connect to.
    pub port: u16,
    sent: Arc<std::sync::Mutex<Vec<Vec<u8>>>>,
    /// Connections accepted and not yet recorded: a request is kept when its client closes,
    /// which can be after the client's process has returned to the test.
    open: Arc<std::sync::atomic::AtomicUsize>,
}

impl Recorder {
    /// Relays every connection to `127.0.0.1:<to>`.
    pub fn start(to: u16) -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("its address").port();
        let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
        let open = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (kept, counted) = (sent.clone(), open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (kept, counted) = (kept.clone(), counted.clone());
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                std::thread::spawn(move || {
                    relay(client, to, &kept);
                    counted.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                });
            }
        });
        Recorder { port, sent, open }
    }

    /// The bodies of the receive-pack POSTs seen since the last call, once every connection
    /// a client made has ended and been recorded (waited for at most 10 s: a client that has
    /// returned has closed its connections).
    pub fn push_bodies(&self) -> Vec<Vec<u8>> {
        let until = std::time::Instant::now() + Duration::from_secs(10);
        while self.open.load(std::sync::atomic::Ordering::SeqCst) > 0
            && std::time::Instant::now() < until
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        let taken = std::mem::take(&mut *self.sent.lock().expect("not poisoned"));
        taken.iter().filter_map(|r| receive_pack_body(r)).collect()
    }
}

fn relay(mut client: TcpStream, to: u16, kept: &std::sync::Mutex<Vec<Vec<u8>>>) {
    let Ok(mut server) = TcpStream::connect(("127.0.0.1", to)) else {
        return;
    };
    let (Ok(mut back), Ok(mut to_client)) = (server.try_clone(), client.try_clone()) else {
        return;
    };
    let answer = std::thread::spawn(move || {
        let _ = std::io::copy(&mut back, &mut to_client);
    });
    let mut request = Vec::new();
    let mut buf = [0u8; 65536];
    while let Ok(n) = client.read(&mut buf) {
        if n == 0 || server.write_all(&buf[..n]).is_err() {
            break;
        }
        request.extend_from_slice(&buf[..n]);
    }
    let _ = server.shutdown(std::net::Shutdown::Write);
    let _ = answer.join();
    if let Ok(mut k) = kept.lock() {
        k.push(request);
    }
}

/// The body of one recorded request when it is a receive-pack POST with a Content-Length (git
/// sends small pushes that way; a chunked one is not read here).
fn receive_pack_body(request: &[u8]) -> Option<Vec<u8>> {
    let end = request.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&request[..end]).to_ascii_lowercase();
    if !head.starts_with("post ") || !head.lines().next()?.contains("git-receive-pack") {
        return None;
    }
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))?
        .trim()
        .parse()
        .ok()?;
    request.get(end + 4..end + 4 + len).map(<[u8]>::to_vec)
}

/// One request: read, handed to `git http-backend`, its answer written back.
fn serve_one(base: &Path, stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = match (parts.next(), parts.next()) {
        (Some(m), Some(t)) => (m.to_string(), t.to_string()),
        _ => return Ok(()),
    };
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim_end().is_empty() {
            break;
        }
        if let Some((k, v)) = h.trim_end().split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let body = match (header("content-length"), header("transfer-encoding")) {
        (Some(n), _) => {
            let mut b = vec![0; n.parse().unwrap_or(0)];
            reader.read_exact(&mut b)?;
            b
        }
        (None, Some(te)) if te.eq_ignore_ascii_case("chunked") => chunked(&mut reader)?,
        _ => Vec::new(),
    };
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mut cgi = Command::new("git");
    cgi.arg("http-backend")
        .env("GIT_PROJECT_ROOT", base)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", &method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_TYPE", header("content-type").unwrap_or_default())
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("REMOTE_USER", "test")
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(e) = header("content-encoding") {
        cgi.env("HTTP_CONTENT_ENCODING", e);
    }
    if let Some(p) = header("git-protocol") {
        cgi.env("GIT_PROTOCOL", p);
    }
    let mut child = cgi.spawn()?;
    let mut input = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || input.write_all(&body));
    let out = child.wait_with_output()?.stdout;
    let _ = writer.join();
    respond(stream, &out)
}

/// A chunked request body, decoded.
fn chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let n =
            usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
        let mut chunk = vec![0; n + 2];
        if n == 0 {
            let mut end = String::new();
            reader.read_line(&mut end)?;
            return Ok(body);
        }
        reader.read_exact(&mut chunk)?;
        body.extend_from_slice(&chunk[..n]);
    }
}

/// The CGI output (headers, a blank line, the body) as an HTTP/1.1 response.
fn respond(mut stream: TcpStream, cgi: &[u8]) -> std::io::Result<()> {
    let split = cgi
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, i + 4))
        .or_else(|| {
            cgi.windows(2)
                .position(|w| w == b"\n\n")
                .map(|i| (i, i + 2))
        });
    let (head, body) = match split {
        Some((h, b)) => (String::from_utf8_lossy(&cgi[..h]).into_owned(), &cgi[b..]),
        None => (String::new(), cgi),
    };
    let mut status = "200 OK".to_string();
    let mut out = Vec::new();
    for l in head.lines() {
        match l.split_once(':') {
            Some((k, v)) if k.eq_ignore_ascii_case("status") => status = v.trim().to_string(),
            Some(_) => out.extend_from_slice(format!("{l}\r\n").as_bytes()),
            None => {}
        }
    }
    let mut response = format!("HTTP/1.1 {status}\r\n").into_bytes();
    response.extend_from_slice(&out);
    response.extend_from_slice(
        format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    response.extend_from_slice(body);
    stream.write_all(&response)
}
