//! HTTP/1.1 framing for the loopback model server, and the Messages API encodings of a
//! [`Reply`]: the server-sent-events stream the CLI asks for, and the plain JSON message for
//! non-streaming calls. Every read is bounded so a misbehaving client cannot stall or bloat a test.

use std::io::{self, BufRead, Read, Write};

use serde_json::{json, Value};

use crate::script::{Block, Reply};

/// Largest request head (request line + headers) accepted.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Largest request body accepted; the CLI's requests carry the whole conversation and tool list.
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// One parsed HTTP request.
#[derive(Debug)]
pub struct HttpRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the client wants the connection closed after this exchange.
    pub fn wants_close(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
    }
}

fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

/// Reads one request; `Ok(None)` on a clean end of stream before any byte of a new request.
pub fn read_request(reader: &mut impl BufRead) -> io::Result<Option<HttpRequest>> {
    let mut head_bytes = 0usize;
    let mut request_line = String::new();
    // Tolerate stray blank lines between keep-alive requests (RFC 9112 §2.2).
    loop {
        request_line.clear();
        let n = read_line_bounded(reader, &mut request_line, &mut head_bytes)?;
        if n == 0 {
            return Ok(None);
        }
        if !request_line.trim().is_empty() {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(invalid(format!("bad request line {request_line:?}")));
    };
    let (method, path) = (method.to_owned(), path.to_owned());

    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if read_line_bounded(reader, &mut line, &mut head_bytes)? == 0 {
            return Err(invalid("connection closed inside request head"));
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(invalid(format!("bad header line {line:?}")));
        };
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let mut request = HttpRequest {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        request.body = read_chunked(reader)?;
    } else if let Some(len) = request.header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| invalid(format!("bad content-length {len:?}")))?;
        if len > MAX_BODY_BYTES {
            return Err(invalid(format!("body of {len} bytes is over the limit")));
        }
        let mut body = vec![0; len];
        reader.read_exact(&mut body)?;
        request.body = body;
    }
    Ok(Some(request))
}

fn read_line_bounded(
    reader: &mut impl BufRead,
    line: &mut String,
    used: &mut usize,
) -> io::Result<usize> {
    let budget = MAX_HEAD_BYTES.saturating_sub(*used);
    let mut raw = Vec::new();
    let n = reader.take(budget as u64 + 1).read_until(b'\n', &mut raw)?;
    *used += n;
    if *used > MAX_HEAD_BYTES {
        return Err(invalid("request head over the limit"));
    }
    line.push_str(&String::from_utf8_lossy(&raw));
    Ok(n)
}

fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut head_bytes = 0usize;
    loop {
        let mut size_line = String::new();
        if read_line_bounded(reader, &mut size_line, &mut head_bytes)? == 0 {
            return Err(invalid("connection closed inside chunked body"));
        }
        let size_text = size_line.trim().split(';').next().unwrap_or("");
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| invalid(format!("bad chunk size {size_text:?}")))?;
        if size == 0 {
            // Trailers, then the blank line.
            loop {
                let mut trailer = String::new();
                let n = read_line_bounded(reader, &mut trailer, &mut head_bytes)?;
                if n == 0 || trailer.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        if size > MAX_BODY_BYTES.saturating_sub(body.len()) {
            return Err(invalid("chunked body over the limit"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
        // Chunk sizes are per chunk; the head budget is only for size lines.
        head_bytes = 0;
    }
}

/// Writes one complete response with a `Content-Length` (keeps keep-alive framing simple).
pub fn write_response(
    out: &mut impl Write,
    status: &str,
    content_type: &str,
    body: &[u8],
    head_only: bool,
) -> io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nrequest-id: req_e2e_harness\r\n\r\n",
        body.len()
    )?;
    if !head_only {
        out.write_all(body)?;
    }
    out.flush()
}

fn sse_event(out: &mut String, data: &Value) {
    let name = data
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    out.push_str("event: ");
    out.push_str(name);
    out.push_str("\ndata: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

/// Splits `s` into pieces of at most `max` bytes on char boundaries, so deltas look like a real
/// stream (several `input_json_delta`s per tool input) instead of one blob.
fn pieces(s: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let mut cut = rest.len().min(max);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (head, tail) = rest.split_at(cut);
        out.push(head);
        rest = tail;
    }
    out
}

/// The Messages API streaming encoding of `reply`; `ids` gives each tool call its id.
pub fn sse_stream(reply: &Reply, model: &str, message_id: &str, tool_ids: &[String]) -> String {
    let mut out = String::new();
    sse_event(
        &mut out,
        &json!({"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}),
    );
    let mut tool_ids = tool_ids.iter();
    for (index, block) in reply.blocks.iter().enumerate() {
        match block {
            Block::Text(text) => {
                sse_event(
                    &mut out,
                    &json!({"type": "content_block_start", "index": index,
                            "content_block": {"type": "text", "text": ""}}),
                );
                for piece in pieces(text, 64) {
                    sse_event(
                        &mut out,
                        &json!({"type": "content_block_delta", "index": index,
                                "delta": {"type": "text_delta", "text": piece}}),
                    );
                }
            }
            Block::ToolUse { name, input } => {
                let id = tool_ids.next().map(String::as_str).unwrap_or("toolu_e2e");
                sse_event(
                    &mut out,
                    &json!({"type": "content_block_start", "index": index,
                            "content_block": {"type": "tool_use", "id": id, "name": name,
                                              "input": {}}}),
                );
                for piece in pieces(&input.to_string(), 32) {
                    sse_event(
                        &mut out,
                        &json!({"type": "content_block_delta", "index": index,
                                "delta": {"type": "input_json_delta", "partial_json": piece}}),
                    );
                }
            }
        }
        sse_event(
            &mut out,
            &json!({"type": "content_block_stop", "index": index}),
        );
    }
    sse_event(
        &mut out,
        &json!({"type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason(), "stop_sequence": null},
                "usage": {"output_tokens": 5}}),
    );
    sse_event(&mut out, &json!({"type": "message_stop"}));
    out
}

/// The non-streaming encoding of `reply` (a whole `message` object).
pub fn message_json(reply: &Reply, model: &str, message_id: &str, tool_ids: &[String]) -> Value {
    let mut tool_ids = tool_ids.iter();
    let content: Vec<Value> = reply
        .blocks
        .iter()
        .map(|block| match block {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { name, input } => json!({
                "type": "tool_use",
                "id": tool_ids.next().map(String::as_str).unwrap_or("toolu_e2e"),
                "name": name, "input": input}),
        })
        .collect();
    json!({"id": message_id, "type": "message", "role": "assistant", "model": model,
           "content": content, "stop_reason": reply.stop_reason(), "stop_sequence": null,
           "usage": {"input_tokens": 10, "output_tokens": 5}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::{text, tool};
    use std::io::BufReader;

    fn parse(raw: &[u8]) -> io::Result<Option<HttpRequest>> {
        read_request(&mut BufReader::new(raw))
    }

    #[test]
    fn parses_content_length_and_chunked_bodies() {
        let r = parse(b"POST /v1/messages?beta=true HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}")
            .unwrap()
            .unwrap();
        assert_eq!(
            (r.method.as_str(), r.path.as_str(), r.body.as_slice()),
            ("POST", "/v1/messages?beta=true", &b"{}"[..])
        );
        let r = parse(
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(r.body, b"abcde");
    }

    #[test]
    fn clean_eof_is_none_and_garbage_is_an_error() {
        assert!(parse(b"").unwrap().is_none());
        assert!(parse(b"GARBAGE\r\n\r\n").is_err());
        assert!(parse(b"GET / HTTP/1.1\r\nContent-Length: nope\r\n\r\n").is_err());
        assert!(parse(b"GET / HTTP/1.1\r\nno colon\r\n\r\n").is_err());
        let huge = format!(
            "GET / HTTP/1.1\r\nX: {}\r\n\r\n",
            "a".repeat(MAX_HEAD_BYTES)
        );
        assert!(parse(huge.as_bytes()).is_err());
        let over = format!(
            "POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            MAX_BODY_BYTES + 1
        );
        assert!(parse(over.as_bytes()).is_err());
        let huge_chunk =
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n";
        assert!(parse(huge_chunk).is_err());
        let truncated = b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc";
        assert!(parse(truncated).is_err());
    }

    /// Parses an SSE stream back into its data objects, checking each event name matches.
    fn events(stream: &str) -> Vec<Value> {
        stream
            .split("\n\n")
            .filter(|e| !e.is_empty())
            .map(|e| {
                let (event, data) = e.split_once('\n').unwrap();
                let data: Value =
                    serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
                assert_eq!(event.strip_prefix("event: "), data["type"].as_str());
                data
            })
            .collect()
    }

    #[test]
    fn tool_call_stream_reassembles_to_the_input() {
        let input = json!({"command": "echo hi ünïcode", "description": "x".repeat(100)});
        let reply = tool("Bash", input.clone()).with_preamble("Let me run it.");
        let evs = events(&sse_stream(&reply, "m", "msg_1", &["toolu_1".into()]));
        let types: Vec<&str> = evs.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(types.first(), Some(&"message_start"));
        assert_eq!(&types[types.len() - 2..], ["message_delta", "message_stop"]);
        assert_eq!(evs[evs.len() - 2]["delta"]["stop_reason"], "tool_use");
        let json_text: String = evs
            .iter()
            .filter(|e| e["delta"]["type"] == "input_json_delta")
            .map(|e| e["delta"]["partial_json"].as_str().unwrap())
            .collect();
        assert_eq!(serde_json::from_str::<Value>(&json_text).unwrap(), input);
        let start = evs
            .iter()
            .find(|e| e["content_block"]["type"] == "tool_use")
            .unwrap();
        assert_eq!(start["content_block"]["id"], "toolu_1");
        assert_eq!(start["index"], 1);
    }

    #[test]
    fn text_stream_ends_the_turn() {
        let evs = events(&sse_stream(&text("Done."), "m", "msg_2", &[]));
        let joined: String = evs
            .iter()
            .filter(|e| e["delta"]["type"] == "text_delta")
            .map(|e| e["delta"]["text"].as_str().unwrap())
            .collect();
        assert_eq!(joined, "Done.");
        assert_eq!(evs[evs.len() - 2]["delta"]["stop_reason"], "end_turn");
        let m = message_json(&text("Done."), "m", "msg_2", &[]);
        assert_eq!(m["content"][0]["text"], "Done.");
        assert_eq!(m["stop_reason"], "end_turn");
    }
}
