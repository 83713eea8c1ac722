//! HTTP/1.1 message framing, bounded: the broker reads what a client or an upstream sends
//! without trusting its sizes. A request head is at most [`Limits::max_head`] bytes, a body at
//! most the bound the caller gives (chunked bodies are decoded and counted as they come);
//! `Content-Length` beside `Transfer-Encoding`, two different lengths, or a length that is not
//! a number are malformed (the shapes of request smuggling), never guessed at. Responses are
//! relayed with their own framing ([`relay_body`]) so a large download is never held whole.
//! Every read is on a socket with a read timeout set by the caller: nothing here waits
//! unbounded.

use std::io::{self, BufRead, Read, Write};

/// Bounds of what is read from a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Request line and headers together.
    pub max_head: usize,
    /// A REST or GraphQL body.
    pub max_body: usize,
    /// A `git-receive-pack` body (commands and pack).
    pub max_push_body: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_head: 64 * 1024,
            max_body: 8 * 1024 * 1024,
            max_push_body: 256 * 1024 * 1024,
        }
    }
}

/// Why a message could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("the connection closed before a request")]
    Closed,
    #[error("reading failed: {0}")]
    Io(#[from] io::Error),
    #[error("malformed: {0}")]
    Malformed(String),
    #[error("the head is over {0} bytes")]
    HeadTooLarge(usize),
    #[error("the body is over {0} bytes")]
    BodyTooLarge(usize),
}

impl ReadError {
    /// A read timeout (the socket's), as opposed to a bad message.
    pub fn is_timeout(&self) -> bool {
        matches!(self, ReadError::Io(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut))
    }
}

/// A request or status line with its headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The first line's three parts: method, target, version (a request) or version, status,
    /// reason (a response).
    pub first: [String; 3],
    /// Headers in arrival order, names as sent.
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// The first value of a header (name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a header.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether a header's comma-separated values include `token` (case-insensitively).
    pub fn has_token(&self, name: &str, token: &str) -> bool {
        self.all(name)
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    }

    /// The message's body framing.
    pub fn framing(&self) -> Result<Framing, ReadError> {
        let chunked = self.all("transfer-encoding").next().is_some();
        let lengths: Vec<&str> = self.all("content-length").collect();
        if chunked {
            if !lengths.is_empty() {
                return Err(ReadError::Malformed(
                    "both Transfer-Encoding and Content-Length".into(),
                ));
            }
            // Only `chunked` alone is read (no gzip transfer codings).
            let te: Vec<String> = self
                .all("transfer-encoding")
                .flat_map(|v| v.split(','))
                .map(|t| t.trim().to_ascii_lowercase())
                .collect();
            if te != ["chunked"] {
                return Err(ReadError::Malformed(format!(
                    "transfer coding {te:?} is not read"
                )));
            }
            return Ok(Framing::Chunked);
        }
        let mut n = None;
        for l in lengths.iter().flat_map(|v| v.split(',')) {
            let v: u64 = l
                .trim()
                .parse()
                .map_err(|_| ReadError::Malformed(format!("Content-Length {l:?}")))?;
            if n.is_some_and(|m| m != v) {
                return Err(ReadError::Malformed("two different Content-Lengths".into()));
            }
            n = Some(v);
        }
        Ok(n.map_or(Framing::None, Framing::Length))
    }

    /// The head as bytes, with `headers` in place of its own.
    pub fn encode_with(&self, headers: &[(String, String)]) -> Vec<u8> {
        let mut out = format!("{} {} {}\r\n", self.first[0], self.first[1], self.first[2]);
        for (n, v) in headers {
            out.push_str(n);
            out.push_str(": ");
            out.push_str(v);
            out.push_str("\r\n");
        }
        out.push_str("\r\n");
        out.into_bytes()
    }
}

/// How a body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// No body (a request without length; a response to HEAD, 1xx, 204, 304).
    None,
    Length(u64),
    Chunked,
    /// Until the connection closes (a response without length).
    Close,
}

/// One line ending in LF, at most `max` bytes, CR LF stripped.
fn read_line<R: BufRead>(r: &mut R, max: usize) -> Result<Option<String>, ReadError> {
    let mut buf = Vec::new();
    let n = r
        .by_ref()
        .take(max as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if !buf.ends_with(b"\n") {
        return Err(match buf.len() > max {
            true => ReadError::HeadTooLarge(max),
            false => ReadError::Malformed("the line ends before its LF".into()),
        });
    }
    buf.pop();
    if buf.ends_with(b"\r") {
        buf.pop();
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| ReadError::Malformed("a line is not UTF-8".into()))
}

/// Reads a head of at most `max` bytes. `Err(Closed)`: the peer closed before any byte.
pub fn read_head<R: BufRead>(r: &mut R, max: usize) -> Result<Head, ReadError> {
    let mut left = max;
    let mut first = loop {
        let Some(line) = read_line(r, left)? else {
            return Err(ReadError::Closed);
        };
        left = left.saturating_sub(line.len() + 2);
        // RFC 9112 2.2: empty lines before a request line are ignored.
        if !line.is_empty() {
            break line;
        }
    };
    let mut parts = first.splitn(3, ' ');
    let a = parts.next().unwrap_or_default().to_string();
    let b = parts.next().unwrap_or_default().to_string();
    let c = parts.next().unwrap_or_default().to_string();
    if a.is_empty() || b.is_empty() {
        return Err(ReadError::Malformed(format!(
            "first line {:?}",
            first.chars().take(100).collect::<String>()
        )));
    }
    first.clear();
    let mut headers = Vec::new();
    loop {
        let line = read_line(r, left)?
            .ok_or_else(|| ReadError::Malformed("the head ends before its blank line".into()))?;
        left = left.saturating_sub(line.len() + 2);
        if line.is_empty() {
            break;
        }
        if left == 0 {
            return Err(ReadError::HeadTooLarge(max));
        }
        let Some((n, v)) = line.split_once(':') else {
            return Err(ReadError::Malformed("a header without a colon".into()));
        };
        if n.is_empty() || n.ends_with(' ') || n.ends_with('\t') {
            return Err(ReadError::Malformed("a header name with space".into()));
        }
        headers.push((n.to_string(), v.trim().to_string()));
    }
    Ok(Head {
        first: [a, b, c],
        headers,
    })
}

/// Reads a whole body of at most `max` bytes.
pub fn read_body<R: BufRead>(
    r: &mut R,
    framing: Framing,
    max: usize,
) -> Result<Vec<u8>, ReadError> {
    match framing {
        Framing::None => Ok(Vec::new()),
        Framing::Length(n) => {
            if n > max as u64 {
                return Err(ReadError::BodyTooLarge(max));
            }
            let mut body = vec![0; n as usize];
            r.read_exact(&mut body)?;
            Ok(body)
        }
        Framing::Chunked => {
            let mut body = Vec::new();
            loop {
                let size = chunk_size(r)?;
                if size == 0 {
                    skip_trailers(r)?;
                    return Ok(body);
                }
                if body.len() as u64 + size > max as u64 {
                    return Err(ReadError::BodyTooLarge(max));
                }
                let at = body.len();
                body.resize(at + size as usize, 0);
                r.read_exact(&mut body[at..])?;
                crlf(r)?;
            }
        }
        Framing::Close => {
            let mut body = Vec::new();
            r.take(max as u64 + 1).read_to_end(&mut body)?;
            match body.len() > max {
                true => Err(ReadError::BodyTooLarge(max)),
                false => Ok(body),
            }
        }
    }
}

/// A chunk's size line (extensions ignored).
fn chunk_size<R: BufRead>(r: &mut R) -> Result<u64, ReadError> {
    let line =
        read_line(r, 1024)?.ok_or_else(|| ReadError::Malformed("cut before a chunk".into()))?;
    let hex = line.split(';').next().unwrap_or_default().trim();
    if hex.is_empty() || hex.len() > 15 {
        return Err(ReadError::Malformed(format!("chunk size {hex:?}")));
    }
    u64::from_str_radix(hex, 16).map_err(|_| ReadError::Malformed(format!("chunk size {hex:?}")))
}

fn crlf<R: BufRead>(r: &mut R) -> Result<(), ReadError> {
    match read_line(r, 2)? {
        Some(l) if l.is_empty() => Ok(()),
        _ => Err(ReadError::Malformed("a chunk not followed by CRLF".into())),
    }
}

fn skip_trailers<R: BufRead>(r: &mut R) -> Result<(), ReadError> {
    for _ in 0..64 {
        match read_line(r, 8192)? {
            Some(l) if l.is_empty() => return Ok(()),
            Some(_) => continue,
            None => return Err(ReadError::Malformed("cut in the trailers".into())),
        }
    }
    Err(ReadError::Malformed("too many trailers".into()))
}

/// Copies a response body from `r` to `w` with its own framing (chunk lines kept as sent), so
/// the client reads the same message; returns whether the connection may carry another one.
pub fn relay_body<R: BufRead, W: Write>(
    r: &mut R,
    w: &mut W,
    framing: Framing,
) -> Result<bool, ReadError> {
    match framing {
        Framing::None => Ok(true),
        Framing::Length(n) => {
            let copied = io::copy(&mut r.take(n), w)?;
            match copied == n {
                true => Ok(true),
                false => Err(ReadError::Malformed("the body ended early".into())),
            }
        }
        Framing::Chunked => {
            loop {
                let size = chunk_size(r)?;
                write!(w, "{size:x}\r\n")?;
                if size == 0 {
                    // Trailers are dropped; the message ends.
                    skip_trailers(r)?;
                    w.write_all(b"\r\n")?;
                    return Ok(true);
                }
                let copied = io::copy(&mut r.take(size), w)?;
                if copied != size {
                    return Err(ReadError::Malformed("a chunk ended early".into()));
                }
                crlf(r)?;
                w.write_all(b"\r\n")?;
            }
        }
        Framing::Close => {
            io::copy(r, w)?;
            Ok(false)
        }
    }
}

#[cfg(test)]
#[path = "http1_tests.rs"]
mod tests;
