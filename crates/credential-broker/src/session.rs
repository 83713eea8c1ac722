//! One terminated connection to a GitHub host: read a request (bounded), read it into its
//! operation, judge it (rules, then the credential rule), then either answer the refusal in
//! the protocol's shape or forward it with the real token in place of the placeholder and
//! relay the answer through the [`Redactor`]. Keep-alive on both sides (one upstream
//! connection per client connection, made again once if a reused one was closed before
//! answering). Every request ends in exactly one [`Decision`] to the audit sink.

use crate::answer;
use crate::audit::{CredentialUse, Decision, Outcome};
use crate::codes;
use crate::decide::{self, Refusal};
use crate::http1::{self, Framing, Head, ReadError};
use crate::live_ids::Tap;
use crate::operation::{self, Operation};
use crate::proxy::{PeerLookup, Prefixed, Shared};
use crate::redact::Redactor;
use crate::upstream::TlsConn;
use gh_write_guard::face::{MergeState, PullRef, WireApi, WireFacts};
use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpStream;

pub(crate) type ClientTls = rustls::StreamOwned<rustls::ServerConnection, Prefixed<TcpStream>>;
pub(crate) type Up = Option<BufReader<TlsConn>>;

/// Whether the connection carries another request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    KeepAlive,
    Close,
}

/// Headers that belong to one hop (never forwarded as they came; lengths are recomputed).
pub fn is_hop_by_hop(name: &str) -> bool {
    const HOP: [&str; 11] = [
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authorization",
        "proxy-authenticate",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "expect",
        "content-length",
    ];
    HOP.iter().any(|h| h.eq_ignore_ascii_case(name))
}

/// Serves a client connection CONNECTed to `host:port`, TLS terminated with the session CA:
/// a GitHub host's requests here, a model API's in [`crate::model_session`].
pub(crate) fn serve_tls(
    shared: &Shared,
    stream: Prefixed<TcpStream>,
    host: &str,
    port: u16,
    peer: PeerLookup,
) -> io::Result<()> {
    let config = shared.ca.server_config(host).map_err(io::Error::other)?;
    let conn = rustls::ServerConnection::new(config).map_err(io::Error::other)?;
    let mut client = BufReader::new(rustls::StreamOwned::new(conn, stream));
    let mut up: Up = None;
    let github = shared.config.is_github(host);
    loop {
        let next = match github {
            true => one_request(shared, &mut client, &mut up, host, &peer)?,
            false => crate::model_session::one_request(
                shared,
                &mut client,
                &mut up,
                (host, port),
                &peer,
            )?,
        };
        if next == Next::Close {
            break;
        }
    }
    let tls = client.get_mut();
    tls.conn.send_close_notify();
    let _ = tls.flush();
    Ok(())
}

/// The request must be for the host it was CONNECTed to, in origin form (`/path`), over
/// HTTP/1.1: what is judged is what GitHub will route (a `Host` naming another GitHub host, an
/// absolute URL, `*` or an HTTP/2 preface would be judged as one thing and served as another).
/// `host:port` in `Host` is that host when the port is the CONNECTed one.
pub(crate) fn same_destination(head: &Head, host: &str, port: u16) -> Result<(), String> {
    let [_, target, version] = &head.first;
    if !target.starts_with('/') {
        return Err(format!("the target {target:?} is not a path"));
    }
    if version != "HTTP/1.1" {
        return Err(format!("{version:?} is not HTTP/1.1"));
    }
    let hosts: Vec<&str> = head.all("host").collect();
    let named = match hosts[..] {
        [one] => one.trim().to_ascii_lowercase(),
        _ => return Err("not exactly one Host header".into()),
    };
    let named = named.strip_suffix(&format!(":{port}")).unwrap_or(&named);
    match named == host.to_ascii_lowercase() {
        true => Ok(()),
        false => Err(format!("Host {named:?} is not the CONNECTed {host:?}")),
    }
}

/// A request that could not be read: refused (a write's refusal), then the connection ends.
fn unreadable(
    shared: &Shared,
    client: &mut BufReader<ClientTls>,
    host: &str,
    e: &ReadError,
    push: Option<(&str, &str)>,
    peer: &PeerLookup,
) -> io::Result<Next> {
    let code = match e {
        ReadError::HeadTooLarge(_) | ReadError::BodyTooLarge(_) => codes::PAST_BOUND,
        _ => codes::MALFORMED,
    };
    let refusal = Refusal::broker(
        code,
        format!("the request could not be read ({e}); nothing was sent to GitHub"),
    );
    let (method, path) = push.unwrap_or(("?", "?"));
    let bytes = match push.is_some() && operation::is_push(method, path) {
        true => answer::push_refusal(&[], &refusal.reason, true),
        false => answer::api_refusal(
            if code == codes::PAST_BOUND { 413 } else { 400 },
            code,
            &refusal.reason,
        ),
    };
    peer.get();
    let _ = client.get_mut().write_all(&bytes);
    record(
        shared,
        &Req {
            host,
            method,
            target: path,
            refs: &[],
            models: &[],
            peer,
        },
        Some(&refusal),
        CredentialUse::NotSent,
        None,
        serde_json::Value::Null,
    );
    Ok(Next::Close)
}

/// One request and its answer.
fn one_request(
    shared: &Shared,
    client: &mut BufReader<ClientTls>,
    up: &mut Up,
    host: &str,
    peer: &PeerLookup,
) -> io::Result<Next> {
    let limits = shared.config.limits;
    let head = match http1::read_head(client, limits.max_head) {
        Ok(h) => h,
        Err(ReadError::Closed) | Err(ReadError::Io(_)) => return Ok(Next::Close),
        Err(e) => return unreadable(shared, client, host, &e, None, peer),
    };
    let method = head.first[0].to_ascii_uppercase();
    let target = head.first[1].clone();
    if let Err(why) = same_destination(&head, host, 443) {
        let e = ReadError::Malformed(why);
        return unreadable(shared, client, host, &e, None, peer);
    }
    let push = operation::is_push(&method, &target);
    let bound = if push {
        limits.max_push_body
    } else {
        limits.max_body
    };
    let body = head.framing().and_then(|f| {
        if f != Framing::None && head.has_token("expect", "100-continue") {
            client
                .get_mut()
                .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
            client.get_mut().flush()?;
        }
        http1::read_body(client, f, bound)
    });
    let body = match body {
        Ok(b) => b,
        Err(e) => return unreadable(shared, client, host, &e, Some((&method, &target)), peer),
    };
    let close_after = head.has_token("connection", "close");
    let op = match operation::classify(host, &method, &target, &body) {
        Ok(op) => op,
        Err(e) => {
            let refusal =
                Refusal::broker(codes::UNREAD_PUSH, format!("{e}; the push was not sent"));
            client
                .get_mut()
                .write_all(&answer::push_refusal(&[], &refusal.reason, true))?;
            record(
                shared,
                &Req {
                    host,
                    method: &method,
                    target: &target,
                    refs: &[],
                    models: &[],
                    peer,
                },
                Some(&refusal),
                CredentialUse::NotSent,
                None,
                serde_json::Value::Null,
            );
            return Ok(Next::Close);
        }
    };
    let presented = shared.creds.presented(head.header("authorization"));
    let credential = decide::credential(op.is_write(), presented);
    // The merge state is asked only for a merge that could go out.
    let merge = match (&op, &credential) {
        (Operation::Api(api), Ok(_)) => match (api.pull_merge(), api.graphql_merge()) {
            (Some(p), _) => Some(merge_state(shared, host, &target, &MergeAsk::Rest(&p))),
            // `gh pr merge`: the pull request by the node id the mutation names.
            (None, Some(Some(id))) => {
                Some(merge_state(shared, host, &target, &MergeAsk::Node(&id)))
            }
            (None, Some(None)) => Some(MergeState::Unknown(
                "the mutation names no pull request".into(),
            )),
            (None, None) => None,
        },
        _ => None,
    };
    let live_id = |id: &str| shared.live_ids.contains(id);
    let repo_of = |id: &str| shared.live_ids.repo_of(id);
    let facts = WireFacts {
        merge: merge.as_ref(),
        live_id: &live_id,
        repo_of: &repo_of,
    };
    let judged = decide::judge(&op, &facts, &shared.cx, &shared.world);
    let findings = judged.evidence.clone();
    let refs = op.ref_updates();
    let req = Req {
        host,
        method: &method,
        target: &target,
        refs: &refs,
        models: &[],
        peer,
    };
    let verdict = match judged.refusal {
        Some(r) => Err(r),
        None => credential,
    };
    let next = if close_after {
        Next::Close
    } else {
        Next::KeepAlive
    };
    match verdict {
        Err(refusal) => {
            // Who sent it, found while it still waits for this answer (the evidence of a refusal).
            req.peer.get();
            client.get_mut().write_all(&refusal_bytes(&op, &refusal))?;
            client.get_mut().flush()?;
            record(
                shared,
                &req,
                Some(&refusal),
                CredentialUse::NotSent,
                None,
                findings,
            );
            Ok(next)
        }
        Ok(cred) => {
            let sent = forward(shared, client, up, host, &head, &body, cred);
            match sent {
                Ok((status, more)) => {
                    record(shared, &req, None, cred, Some(status), findings);
                    Ok(if more { next } else { Next::Close })
                }
                Err(Failure::BeforeAnswer(e)) => {
                    let refusal = Refusal::broker(codes::UPSTREAM, format!("GitHub did not answer ({e}); nothing was changed by this request through the broker"));
                    let bytes = match &op {
                        Operation::Push { .. } => refusal_bytes(&op, &refusal),
                        _ => answer::api_refusal(
                            if is_timeout(&e) { 504 } else { 502 },
                            codes::UPSTREAM,
                            &refusal.reason,
                        ),
                    };
                    client.get_mut().write_all(&bytes)?;
                    record(shared, &req, Some(&refusal), cred, None, findings);
                    Ok(Next::Close)
                }
                Err(Failure::Midway(status)) => {
                    // Forwarded and answered; only the relay back broke off.
                    record(shared, &req, None, cred, Some(status), findings);
                    Ok(Next::Close)
                }
            }
        }
    }
}

pub(crate) fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// The refusal in the operation's shape: a push report for a push, GitHub's 403 otherwise.
fn refusal_bytes(op: &Operation, refusal: &Refusal) -> Vec<u8> {
    match op {
        Operation::Push { request, .. } => {
            let refs: Vec<String> = request.commands.iter().map(|c| c.refname.clone()).collect();
            let sideband = request
                .capabilities
                .iter()
                .any(|c| c == "side-band-64k" || c == "side-band");
            answer::push_refusal(&refs, &refusal.reason, sideband)
        }
        _ => answer::api_refusal(403, &refusal.code, &refusal.reason),
    }
}

/// Why a forward failed: before any byte of an answer (the client can be told), or midway.
pub(crate) enum Failure {
    BeforeAnswer(io::Error),
    Midway(u16),
}

/// Sends the request upstream with `cred` applied and relays the answer; the status and
/// whether the client connection can carry another request.
fn forward(
    shared: &Shared,
    client: &mut BufReader<ClientTls>,
    up: &mut Up,
    host: &str,
    head: &Head,
    body: &[u8],
    cred: CredentialUse,
) -> Result<(u16, bool), Failure> {
    // API answers come uncompressed so the ids in them can be learned (crate::live_ids).
    let api = operation::is_api(host, &head.first[1]);
    let mut headers: Vec<(String, String)> = head
        .headers
        .iter()
        .filter(|(n, _)| !is_hop_by_hop(n) && !n.eq_ignore_ascii_case("authorization"))
        .filter(|(n, _)| !(api && n.eq_ignore_ascii_case("accept-encoding")))
        .cloned()
        .collect();
    if cred == CredentialUse::Added {
        if let Some(v) = head
            .header("authorization")
            .and_then(|a| shared.creds.with_real(a))
        {
            headers.push(("Authorization".into(), v));
        }
    }
    let method = head.first[0].to_ascii_uppercase();
    if !body.is_empty() || matches!(method.as_str(), "POST" | "PUT" | "PATCH") {
        headers.push(("Content-Length".into(), body.len().to_string()));
    }
    let mut request = head.encode_with(&headers);
    request.extend_from_slice(body);
    let answer = send(shared, up, (host, 443), &request).map_err(Failure::BeforeAnswer)?;
    let mut out = shared.redactor(Tap::new(client.get_mut()));
    let (status, more) = relay_answer(&mut out, up, &method, &answer)?;
    let identity = answer
        .header("content-encoding")
        .is_none_or(|e| e.trim().eq_ignore_ascii_case("identity"));
    if api && identity {
        // The repository a read is about: its ids are that repository's (G3 on the wire).
        let about = WireApi::from_request(host, &method, &head.first[1], body).repository();
        shared.live_ids.learn(out.get_mut().kept(), about);
    }
    Ok((status, more))
}

/// Relays an upstream's answer (its head already read) to the client through `out` with its
/// own framing, as it arrives (nothing is held but what could begin a secret); the status and
/// whether the client connection can carry another request. The upstream connection is
/// dropped when it cannot carry another.
pub(crate) fn relay_answer<W: Write>(
    out: &mut Redactor<W>,
    up: &mut Up,
    method: &str,
    answer: &Head,
) -> Result<(u16, bool), Failure> {
    let Some(conn) = up.as_mut() else {
        return Err(Failure::BeforeAnswer(io::Error::other("no upstream")));
    };
    let status: u16 = answer.first[1].parse().unwrap_or(0);
    let framing = match method == "HEAD" || status == 204 || status == 304 {
        true => Ok(Framing::None),
        false => answer.framing().map(|f| match f {
            Framing::None => Framing::Close,
            f => f,
        }),
    };
    let framing = framing.map_err(|e| Failure::BeforeAnswer(io::Error::other(e.to_string())))?;
    let relayed = out
        .write_all(&answer.encode_with(&answer.headers))
        .and_then(|_| out.flush())
        .map_err(ReadError::Io)
        .and_then(|_| http1::relay_body(conn, out, framing))
        .and_then(|more| out.finish().map(|_| more).map_err(ReadError::Io));
    let more = relayed.map_err(|_| Failure::Midway(status))?;
    let keep = more && !answer.has_token("connection", "close");
    if !keep {
        *up = None;
    }
    Ok((status, more))
}

/// Writes `request` and reads the answer's head (1xx skipped); a reused connection that
/// closed before answering is made again once.
pub(crate) fn send(
    shared: &Shared,
    up: &mut Up,
    (host, port): (&str, u16),
    request: &[u8],
) -> io::Result<Head> {
    let mut reused = up.is_some();
    loop {
        if up.is_none() {
            *up = Some(BufReader::new(shared.upstream.connect_tls(host, port)?));
        }
        let Some(conn) = up.as_mut() else { continue };
        let written = conn
            .get_mut()
            .write_all(request)
            .and_then(|_| conn.get_mut().flush());
        let head = match written {
            Ok(()) => read_answer_head(conn, shared.config.limits.max_head),
            Err(e) => Err(ReadError::Io(e)),
        };
        match head {
            Ok(h) => return Ok(h),
            Err(e) if reused && !e.is_timeout() => {
                *up = None;
                reused = false;
            }
            Err(e) => {
                *up = None;
                return Err(match e {
                    ReadError::Io(e) => e,
                    other => io::Error::other(other.to_string()),
                });
            }
        }
    }
}

pub(crate) fn read_answer_head<R: BufRead>(r: &mut R, max: usize) -> Result<Head, ReadError> {
    loop {
        let h = http1::read_head(r, max)?;
        match h.first[1].parse::<u16>() {
            Ok(s) if (100..200).contains(&s) && s != 101 => continue,
            _ => return Ok(h),
        }
    }
}

/// Which pull request's merge state to ask: by repository and number (REST), or by the node id a
/// GraphQL `mergePullRequest` names.
enum MergeAsk<'a> {
    Rest(&'a PullRef),
    Node(&'a str),
}

/// The GraphQL query for a pull request's merge state by node id (`mergeStateStatus`: `CLEAN`,
/// `BLOCKED`, ...; the rules compare states without case).
const MERGE_STATE_QUERY: &str =
    "query($id: ID!) { node(id: $id) { ... on PullRequest { mergeStateStatus } } }";

/// Asks GitHub (with the real token, the broker's own read) for a pull request's merge state.
fn merge_state(shared: &Shared, host: &str, target: &str, ask: &MergeAsk) -> MergeState {
    let prefix = if target.starts_with("/api/v3/") {
        "/api/v3"
    } else {
        ""
    };
    let (method, path, body) = match ask {
        MergeAsk::Rest(pull) => (
            "GET",
            format!(
                "{prefix}/repos/{}/{}/pulls/{}",
                pull.owner, pull.repo, pull.number
            ),
            String::new(),
        ),
        // The GraphQL endpoint the mutation itself was sent to.
        MergeAsk::Node(id) => (
            "POST",
            target.split('?').next().unwrap_or(target).to_string(),
            serde_json::json!({"query": MERGE_STATE_QUERY, "variables": {"id": id}}).to_string(),
        ),
    };
    let read = || -> Result<String, String> {
        let mut conn = shared
            .upstream
            .connect_tls(host, 443)
            .map_err(|e| e.to_string())?;
        let t = Some(shared.config.timeouts.lookup);
        conn.sock.set_read_timeout(t).map_err(|e| e.to_string())?;
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: token {}\r\nAccept: application/vnd.github+json\r\nUser-Agent: agent-guards-broker\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            shared.creds.real(),
            body.len()
        );
        conn.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
        let mut r = BufReader::new(conn);
        let head = read_answer_head(&mut r, 64 * 1024).map_err(|e| e.to_string())?;
        let framing = head.framing().map_err(|e| e.to_string())?;
        let framing = if framing == Framing::None {
            Framing::Close
        } else {
            framing
        };
        let body = http1::read_body(&mut r, framing, 1024 * 1024).map_err(|e| e.to_string())?;
        if head.first[1] != "200" {
            return Err(format!("GitHub answered {}", head.first[1]));
        }
        let v: serde_json::Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        let state = match ask {
            MergeAsk::Rest(_) => v.get("mergeable_state"),
            MergeAsk::Node(_) => v.pointer("/data/node/mergeStateStatus"),
        };
        state
            .and_then(|s| s.as_str())
            .map(str::to_string)
            .ok_or_else(|| "no merge state in the answer".to_string())
    };
    match read() {
        Ok(s) => MergeState::Reported(s),
        Err(why) => MergeState::Unknown(why),
    }
}

/// The request a decision is about.
pub(crate) struct Req<'a> {
    pub host: &'a str,
    pub method: &'a str,
    pub target: &'a str,
    pub refs: &'a [String],
    /// The models a model API request names.
    pub models: &'a [Option<String>],
    /// Asked only when the record is written, after the client has its answer.
    pub peer: &'a PeerLookup,
}

/// One decision to the audit sink.
pub(crate) fn record(
    shared: &Shared,
    req: &Req<'_>,
    refusal: Option<&Refusal>,
    credential: CredentialUse,
    upstream_status: Option<u16>,
    findings: serde_json::Value,
) {
    shared.sinks.audit.decision(&Decision {
        method: req.method.to_string(),
        host: req.host.to_string(),
        path: req.target.to_string(),
        ref_updates: req.refs.to_vec(),
        models: req.models.to_vec(),
        outcome: match refusal {
            Some(_) => Outcome::Refused,
            None => Outcome::Allowed,
        },
        code: refusal.map(|r| r.code.clone()),
        reason: refusal.map(|r| r.reason.clone()),
        credential,
        upstream_status,
        findings,
        peer: req.peer.get(),
    });
}
