//! The scripted "model": an HTTP/1.1 server on 127.0.0.1 (std threads, no mock libraries) that
//! answers `POST /v1/messages` from a script of turns, records every request, and answers the
//! CLI's other calls (count_tokens, HEAD probes, unknown paths) without failing the run.

use std::collections::VecDeque;
use std::io::BufReader;
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use hook_replay::loopback::Acceptor;
use serde_json::{json, Value};

use crate::script::{ModelRequest, Reply, RequestKind, Turn};
use crate::wire::{self, HttpRequest};

/// Marker the CLI puts in a subagent's system prompt.
const SUBAGENT_MARKER: &str = "cc_is_subagent=true";
/// How long an idle keep-alive connection may wait for its next request.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The scripts a server answers from.
#[derive(Default)]
pub struct Script {
    pub main: VecDeque<Turn>,
    pub subagent: VecDeque<Turn>,
    /// Text answered to side requests (messages requests that carry no tools).
    pub side_text: String,
}

#[derive(Default)]
struct State {
    script: Script,
    log: Vec<ModelRequest>,
    /// Problems found while serving (script overrun, deciding closure panicked); the run fails
    /// with these after the CLI exits.
    failures: Vec<String>,
    next_id: u64,
}

/// Locks ignoring poison: a panicking deciding closure is caught and reported, so the state is
/// still consistent.
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

/// A running model server; stops when dropped.
pub struct ModelServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    // Dropping it stops the accept loop.
    _acceptor: Acceptor,
}

impl ModelServer {
    /// Binds 127.0.0.1 on a free port and serves `script`.
    pub fn start(script: Script) -> std::io::Result<ModelServer> {
        let state = Arc::new(Mutex::new(State {
            script,
            ..State::default()
        }));
        let acceptor = {
            let state = state.clone();
            Acceptor::start("e2e-model", move |stream, stopping| {
                serve_connection(stream, &state, stopping)
            })?
        };
        Ok(ModelServer {
            addr: acceptor.addr(),
            state,
            _acceptor: acceptor,
        })
    }

    /// `http://127.0.0.1:<port>`, for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<ModelRequest> {
        lock(&self.state).log.clone()
    }

    /// Problems met while serving (empty when the script fit the run).
    pub fn failures(&self) -> Vec<String> {
        lock(&self.state).failures.clone()
    }

    /// Turns of the main and subagent scripts that were never asked for.
    pub fn unused_turns(&self) -> (usize, usize) {
        let s = lock(&self.state);
        (s.script.main.len(), s.script.subagent.len())
    }
}

fn serve_connection(stream: TcpStream, state: &Mutex<State>, stopping: &AtomicBool) {
    let _ = stream.set_read_timeout(Some(IDLE_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let request = match wire::read_request(&mut reader) {
            Ok(Some(request)) => request,
            Ok(None) => return,
            Err(e) => {
                if e.kind() == std::io::ErrorKind::InvalidData {
                    let _ = wire::write_response(
                        &mut writer,
                        "400 Bad Request",
                        "application/json",
                        error_body(&e.to_string()).as_bytes(),
                        false,
                    );
                }
                return;
            }
        };
        if stopping.load(Ordering::SeqCst) {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        }
        let close = request.wants_close();
        let response = respond(&request, state);
        let head_only = request.method.eq_ignore_ascii_case("HEAD");
        if wire::write_response(
            &mut writer,
            response.status,
            response.content_type,
            response.body.as_bytes(),
            head_only,
        )
        .is_err()
            || close
        {
            return;
        }
    }
}

struct Response {
    status: &'static str,
    content_type: &'static str,
    body: String,
}

fn error_body(message: &str) -> String {
    json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
        .to_string()
}

fn classify(method: &str, path: &str, body: &Value) -> RequestKind {
    let route = path.split('?').next().unwrap_or("");
    if !method.eq_ignore_ascii_case("POST") || route != "/v1/messages" {
        return RequestKind::Other;
    }
    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    if !has_tools {
        return RequestKind::Side;
    }
    let probe = ModelRequest {
        method: method.into(),
        path: path.into(),
        body: body.clone(),
        kind: RequestKind::Other,
    };
    if probe.system_text().contains(SUBAGENT_MARKER) {
        RequestKind::Subagent
    } else {
        RequestKind::Main
    }
}

fn respond(http: &HttpRequest, state: &Mutex<State>) -> Response {
    let body: Value = serde_json::from_slice(&http.body).unwrap_or(Value::Null);
    let kind = classify(&http.method, &http.path, &body);
    let request = ModelRequest {
        method: http.method.clone(),
        path: http.path.clone(),
        body,
        kind,
    };
    let mut st = lock(state);
    st.log.push(request.clone());
    if kind == RequestKind::Other {
        return answer_other(&request);
    }
    let reply = match scripted_reply(&request, &mut st) {
        Ok(reply) => reply,
        Err(response) => return response,
    };
    st.next_id += 1;
    let message_id = format!("msg_e2e_{}", st.next_id);
    let tool_ids: Vec<String> = reply
        .blocks
        .iter()
        .filter(|b| matches!(b, crate::script::Block::ToolUse { .. }))
        .map(|_| {
            st.next_id += 1;
            format!("toolu_e2e_{}", st.next_id)
        })
        .collect();
    drop(st);
    let model = request.model().unwrap_or("claude-e2e").to_owned();
    let stream = request
        .body
        .get("stream")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if stream {
        Response {
            status: "200 OK",
            content_type: "text/event-stream",
            body: wire::sse_stream(&reply, &model, &message_id, &tool_ids),
        }
    } else {
        Response {
            status: "200 OK",
            content_type: "application/json",
            body: wire::message_json(&reply, &model, &message_id, &tool_ids).to_string(),
        }
    }
}

/// A request that is not a model turn: token counting, probes, anything else (404).
fn answer_other(request: &ModelRequest) -> Response {
    let route = request.path.split('?').next().unwrap_or("");
    match route {
        "/v1/messages/count_tokens" => Response {
            status: "200 OK",
            content_type: "application/json",
            body: json!({"input_tokens": 100}).to_string(),
        },
        _ if request.method.eq_ignore_ascii_case("HEAD")
            || request.method.eq_ignore_ascii_case("GET") =>
        {
            Response {
                status: "200 OK",
                content_type: "application/json",
                body: "{}".into(),
            }
        }
        _ => Response {
            status: "404 Not Found",
            content_type: "application/json",
            body: json!({"type": "error",
                         "error": {"type": "not_found_error", "message": "e2e-harness"}})
            .to_string(),
        },
    }
}

/// The scripted reply to a model turn (side, main or subagent). A deciding closure that panics
/// is recorded as a failure and answered with a 400 (`Err`), which the CLI does not retry.
fn scripted_reply(request: &ModelRequest, st: &mut State) -> Result<Reply, Response> {
    let kind = request.kind;
    if kind == RequestKind::Side {
        return Ok(Reply::text(st.script.side_text.clone()));
    }
    let (which, next) = if kind == RequestKind::Main {
        ("main", st.script.main.pop_front())
    } else {
        ("subagent", st.script.subagent.pop_front())
    };
    let Some(mut turn) = next else {
        st.failures.push(format!(
            "the {which} script ran out: the CLI asked for one more turn \
             (last user text: {:?})",
            truncate(&request.text_since_last_answer(), 400)
        ));
        return Ok(Reply::text("e2e-harness: script exhausted"));
    };
    // The closure runs under the lock: requests of one session come one at a time, and a
    // deciding closure must see a consistent script.
    catch_unwind(AssertUnwindSafe(|| turn.answer(request))).map_err(|panic| {
        let msg = panic_text(&panic);
        st.failures.push(format!(
            "a deciding closure of the {which} script panicked: {msg}"
        ));
        Response {
            status: "400 Bad Request",
            content_type: "application/json",
            body: error_body("e2e-harness: deciding closure panicked"),
        }
    })
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "<non-string panic>".into())
}

pub(crate) fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

#[cfg(test)]
mod tests {
    //! Drives the server over real loopback sockets with a hand-written HTTP client.
    use super::*;
    use crate::script::{decide, text, tool};
    use std::io::{Read, Write};

    fn post(addr: &str, path: &str, body: &Value) -> (String, String) {
        let mut s = TcpStream::connect(addr).unwrap();
        let body = body.to_string();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).unwrap();
        let (head, body) = resp.split_once("\r\n\r\n").unwrap();
        (head.to_owned(), body.to_owned())
    }

    fn main_req(extra: Value) -> Value {
        let mut v = json!({"model": "m", "stream": true, "system": "sys",
                           "tools": [{"name": "Bash"}], "messages": []});
        if let (Some(obj), Value::Object(extra)) = (v.as_object_mut(), extra) {
            obj.extend(extra);
        }
        v
    }

    #[test]
    fn serves_turns_in_order_and_records_requests() {
        let mut script = Script {
            side_text: "Title".into(),
            ..Script::default()
        };
        script
            .main
            .push_back(tool("Bash", json!({"command": "ls"})).into());
        script
            .main
            .push_back(decide(|r| text(format!("saw {}", r.system_text()))));
        script.subagent.push_back(text("sub report").into());
        let server = ModelServer::start(script).unwrap();
        let addr = server.base_url().trim_start_matches("http://").to_owned();

        let (head, body) = post(&addr, "/v1/messages?beta=true", &main_req(json!({})));
        assert!(head.contains("text/event-stream"), "{head}");
        assert!(body.contains("\"name\":\"Bash\""), "{body}");
        assert!(body.contains("\"stop_reason\":\"tool_use\""));

        // A side request is not a turn.
        let (_, side) = post(
            &addr,
            "/v1/messages",
            &json!({"stream": false, "messages": []}),
        );
        assert!(side.contains("Title"), "{side}");

        let (_, sub) = post(
            &addr,
            "/v1/messages",
            &main_req(json!({"system": [{"type": "text", "text": "x cc_is_subagent=true"}]})),
        );
        assert!(sub.contains("sub report"), "{sub}");

        let (_, body) = post(&addr, "/v1/messages", &main_req(json!({"system": "S2"})));
        assert!(body.contains("saw S2"), "{body}");

        let (_, tokens) = post(&addr, "/v1/messages/count_tokens", &json!({}));
        assert!(tokens.contains("input_tokens"));

        let kinds: Vec<RequestKind> = server.requests().iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            [
                RequestKind::Main,
                RequestKind::Side,
                RequestKind::Subagent,
                RequestKind::Main,
                RequestKind::Other
            ]
        );
        assert!(server.failures().is_empty());
        assert_eq!(server.unused_turns(), (0, 0));

        // One request too many is answered but reported.
        let (_, over) = post(&addr, "/v1/messages", &main_req(json!({})));
        assert!(over.contains("script exhausted"));
        assert_eq!(server.failures().len(), 1);
    }

    #[test]
    fn keep_alive_serves_several_requests_and_head_has_no_body() {
        let server = ModelServer::start(Script::default()).unwrap();
        let addr = server.base_url().trim_start_matches("http://").to_owned();
        let mut s = TcpStream::connect(&addr).unwrap();
        write!(s, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        write!(
            s,
            "GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).unwrap();
        assert_eq!(resp.matches("HTTP/1.1 200 OK").count(), 2, "{resp}");
        assert!(resp.ends_with("{}"), "{resp}");
    }

    #[test]
    fn a_panicking_closure_is_reported_not_fatal() {
        let mut script = Script::default();
        script.main.push_back(decide(|_| panic!("closure bug")));
        let server = ModelServer::start(script).unwrap();
        let addr = server.base_url().trim_start_matches("http://").to_owned();
        let (head, _) = post(&addr, "/v1/messages", &main_req(json!({})));
        assert!(head.starts_with("HTTP/1.1 400"), "{head}");
        assert!(server.failures()[0].contains("closure bug"));
    }

    #[test]
    fn garbage_gets_400() {
        let server = ModelServer::start(Script::default()).unwrap();
        let addr = server.base_url().trim_start_matches("http://").to_owned();
        let mut s = TcpStream::connect(&addr).unwrap();
        s.write_all(b"NOT-HTTP\r\n\r\n").unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).unwrap();
        assert!(resp.starts_with("HTTP/1.1 400"), "{resp}");
    }
}
