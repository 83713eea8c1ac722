//! A real OTLP/HTTP receiver on 127.0.0.1 for the tests (std `TcpListener`, HTTP/1.1 parsed by
//! hand, keep-alive), answering from a script, and the session logs written the way hooks write
//! them (`session_store`'s audit log).

#![allow(dead_code)]

use audit_export::proto::{
    any_value, ExportLogsPartialSuccess, ExportLogsServiceRequest, ExportLogsServiceResponse,
    LogRecord,
};
use prost::Message;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One answer of the receiver.
#[derive(Debug, Clone, Copy)]
pub struct Reply {
    pub status: u16,
    pub delay: Duration,
    /// A partial success: this many records rejected (the answer's body).
    pub rejected: i64,
}

pub const OK: Reply = Reply {
    status: 200,
    delay: Duration::ZERO,
    rejected: 0,
};

/// A request the receiver read, and what it answered.
#[derive(Debug, Clone)]
pub struct Captured {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub status: u16,
}

impl Captured {
    pub fn decoded(&self) -> ExportLogsServiceRequest {
        ExportLogsServiceRequest::decode(self.body.as_slice()).expect("a valid request")
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct Receiver {
    pub addr: SocketAddr,
    pub captured: Arc<Mutex<Vec<Captured>>>,
    stop: Arc<AtomicBool>,
    /// While set, a request is read and captured but not answered ([`Receiver::hold`]).
    held: Arc<AtomicBool>,
}

impl Receiver {
    /// Listens on `addr` (`127.0.0.1:0` for any port); answers `script` in order, then 200.
    pub fn start(addr: &str, script: Vec<Reply>) -> Receiver {
        let listener = TcpListener::bind(addr).expect("bind the receiver");
        let addr = listener.local_addr().unwrap();
        let captured = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(script.into_iter()));
        let stop = Arc::new(AtomicBool::new(false));
        let held = Arc::new(AtomicBool::new(false));
        {
            let (captured, stop, hold) =
                (Arc::clone(&captured), Arc::clone(&stop), Arc::clone(&held));
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let Ok(stream) = stream else { continue };
                    let (captured, script, hold) = (
                        Arc::clone(&captured),
                        Arc::clone(&script),
                        Arc::clone(&hold),
                    );
                    std::thread::spawn(move || serve(stream, &captured, &script, &hold));
                }
            });
        }
        Receiver {
            addr,
            captured,
            stop,
            held,
        }
    }

    /// From now on requests are captured but their answers wait for [`Receiver::release`] (at
    /// most a minute): a sender that waits on the collector is seen waiting.
    pub fn hold(&self) {
        self.held.store(true, Ordering::SeqCst);
    }

    /// Answers the held requests, and the next ones at once.
    pub fn release(&self) {
        self.held.store(false, Ordering::SeqCst);
    }

    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn captured(&self) -> Vec<Captured> {
        self.captured.lock().unwrap().clone()
    }

    /// The bodies of the records the receiver answered 2xx to, in order.
    pub fn accepted_bodies(&self) -> Vec<String> {
        self.captured()
            .iter()
            .filter(|c| (200..300).contains(&c.status))
            .flat_map(|c| records(&c.decoded()))
            .map(|r| body(&r))
            .collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

fn serve(
    stream: TcpStream,
    captured: &Mutex<Vec<Captured>>,
    script: &Mutex<std::vec::IntoIter<Reply>>,
    held: &AtomicBool,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        let len: usize = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let reply = script.lock().unwrap().next().unwrap_or(OK);
        captured.lock().unwrap().push(Captured {
            path,
            headers,
            body,
            status: reply.status,
        });
        std::thread::sleep(reply.delay);
        let until = std::time::Instant::now() + Duration::from_secs(60);
        while held.load(Ordering::SeqCst) && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        let body = match reply.rejected {
            0 => Vec::new(),
            n => ExportLogsServiceResponse {
                partial_success: Some(ExportLogsPartialSuccess {
                    rejected_log_records: n,
                    error_message: "too old".into(),
                }),
            }
            .encode_to_vec(),
        };
        let mut answer = format!(
            "HTTP/1.1 {} X\r\ncontent-type: application/x-protobuf\r\ncontent-length: {}\r\n\r\n",
            reply.status,
            body.len()
        )
        .into_bytes();
        answer.extend(body);
        if writer.write_all(&answer).is_err() {
            return;
        }
    }
}

pub fn records(req: &ExportLogsServiceRequest) -> Vec<LogRecord> {
    req.resource_logs
        .iter()
        .flat_map(|r| &r.scope_logs)
        .flat_map(|s| s.log_records.clone())
        .collect()
}

pub fn body(r: &LogRecord) -> String {
    match r.body.as_ref().and_then(|b| b.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        other => panic!("body is not a string: {other:?}"),
    }
}

pub fn attr(r: &LogRecord, key: &str) -> Option<any_value::Value> {
    r.attributes
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| a.value.as_ref()?.value.clone())
}

/// Appends `n` records to `session`'s log under `state`, numbered from `from` (`"seq"`).
pub fn write_records(state: &Path, session: &str, from: u64, n: u64) {
    let log = session_store::Session::new(state, Some(session)).audit();
    for i in from..from + n {
        log.append(&serde_json::json!({
            "binary": "gh-write-guard",
            "decision": "deny",
            "requirement": "G4",
            "code": "G4.rule",
            "session_id": session,
            "time": "2026-12-07T18:00:00.250Z",
            "seq": i,
            "command": "git push origin main",
        }))
        .unwrap();
    }
}

/// The `seq` of each body.
pub fn seqs(bodies: &[String]) -> Vec<u64> {
    bodies
        .iter()
        .map(|b| {
            serde_json::from_str::<serde_json::Value>(b).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

/// A free port nobody listens on (bound, then released).
pub fn closed_port() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}
