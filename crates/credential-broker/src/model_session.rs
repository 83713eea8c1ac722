//! One request on a terminated connection to a model API host (issue 39: M3 on the wire).
//! A model request (its path names a model endpoint: Messages, token counting, completions,
//! batches, Bedrock's and Vertex's model paths; model-tier-guard's face knows which) has its
//! body read whole, bounded by `Config::max_model_body`, and judged by the face's
//! `judge_wire_request` with the session's tier policy, alias variables and grant: a
//! maintainer-only tier, an unknown family or a model that cannot be read is refused in the
//! API's own error shape before a byte goes upstream. Every other request (the models list,
//! telemetry, file uploads) passes through unchanged, its body streamed with its own framing.
//!
//! The credential: on the model host the maintainer's credentials belong to
//! (`ModelConfig::credential_endpoint`), an `x-api-key` or `Authorization: Bearer` that
//! presents our placeholder gets the real one; anything else goes out as it came (the broker
//! adds nothing; Bedrock's and Vertex's signatures pass untouched). The answer is relayed as it
//! arrives (server-sent events included) through the redactor of every real credential.
//! Every request ends in one `audit::Decision`, its models included.

use crate::answer;
use crate::audit::CredentialUse;
use crate::codes;
use crate::decide::Refusal;
use crate::http1::{self, Framing, Head, ReadError};
use crate::proxy::{PeerLookup, Shared};
use crate::session::{self, is_hop_by_hop, ClientTls, Failure, Next, Req, Up};
use model_tier_guard::face;
use std::io::{self, BufReader, Write};

/// One request and its answer on a connection CONNECTed to the model API `endpoint`.
pub(crate) fn one_request(
    shared: &Shared,
    client: &mut BufReader<ClientTls>,
    up: &mut Up,
    endpoint: (&str, u16),
    peer: &PeerLookup,
) -> io::Result<Next> {
    let host = endpoint.0;
    let head = match http1::read_head(client, shared.config.limits.max_head) {
        Ok(h) => h,
        Err(ReadError::Closed) | Err(ReadError::Io(_)) => return Ok(Next::Close),
        Err(e) => return unreadable(shared, client, host, &e, ("?", "?"), peer),
    };
    let method = head.first[0].to_ascii_uppercase();
    let target = head.first[1].clone();
    let what = (method.as_str(), target.as_str());
    let framing = session::same_destination(&head, host, endpoint.1)
        .map_err(ReadError::Malformed)
        .and_then(|_| head.framing());
    let framing = match framing {
        Ok(f) => f,
        Err(e) => return unreadable(shared, client, host, &e, what, peer),
    };
    if framing != Framing::None && head.has_token("expect", "100-continue") {
        client
            .get_mut()
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        client.get_mut().flush()?;
    }
    let next = match head.has_token("connection", "close") {
        true => Next::Close,
        false => Next::KeepAlive,
    };
    let (mut headers, cred) = outgoing_headers(shared, &head, endpoint);
    let mut req = Req {
        host,
        method: &method,
        target: &target,
        refs: &[],
        models: &[],
        peer,
    };
    if !face::is_model_request(&method, &target) {
        let sent = pass_through(shared, client, up, endpoint, &head, headers, framing);
        return finish(shared, client, &req, sent, cred, next);
    }
    let max = shared.config.max_model_body;
    let body = match http1::read_body(client, framing, max) {
        Ok(b) => Some(b),
        // Over the bound: a model that cannot be read, which M3 counts as the tier.
        Err(ReadError::BodyTooLarge(_)) => None,
        Err(e) => return unreadable(shared, client, host, &e, what, peer),
    };
    let models: Vec<Option<String>> = face::wire_models(&method, &target, body.as_deref())
        .into_iter()
        .map(|m| m.model)
        .collect();
    req.models = &models;
    let m3 = face::Session {
        launch_env: &shared.model_env,
        maintainer_only_tiers: shared.config.guard.maintainer_only_tiers.as_deref(),
    };
    if let Some(r) = face::judge_wire_request(&method, &target, body.as_deref(), &m3) {
        let bytes =
            answer::model_answer(face::API_REFUSAL_STATUS, &r.code, &face::api_error_body(&r));
        // Who sent it, found while it still waits for this answer (the evidence of a refusal).
        req.peer.get();
        client.get_mut().write_all(&bytes)?;
        client.get_mut().flush()?;
        let refusal = Refusal {
            code: r.code,
            reason: r.reason,
        };
        session::record(
            shared,
            &req,
            Some(&refusal),
            CredentialUse::NotSent,
            None,
            r.evidence,
        );
        // The rest of a body over the bound is still on the connection.
        return Ok(if body.is_some() { next } else { Next::Close });
    }
    let Some(body) = body else {
        // Granted, but not held whole: it cannot be forwarded.
        return unreadable(
            shared,
            client,
            host,
            &ReadError::BodyTooLarge(max),
            what,
            peer,
        );
    };
    headers.push(("Content-Length".into(), body.len().to_string()));
    let mut request = head.encode_with(&headers);
    request.extend_from_slice(&body);
    let sent = session::send(shared, up, endpoint, &request)
        .map_err(Failure::BeforeAnswer)
        .and_then(|answer| relay(shared, client, up, &method, &answer));
    finish(shared, client, &req, sent, cred, next)
}

/// The request's headers to send upstream (hop-by-hop ones dropped, lengths set by the
/// caller) with our placeholder replaced by the real credential where it belongs, and what
/// happened to the credential.
fn outgoing_headers(
    shared: &Shared,
    head: &Head,
    (host, port): (&str, u16),
) -> (Vec<(String, String)>, CredentialUse) {
    let ours = shared
        .config
        .model
        .credential_endpoint()
        .is_some_and(|(h, p)| h == host && p == port);
    let mut added = false;
    let headers = head
        .headers
        .iter()
        .filter(|(n, _)| !is_hop_by_hop(n))
        .map(
            |(n, v)| match ours.then(|| shared.model_creds.with_real(n, v)).flatten() {
                Some(real) => {
                    added = true;
                    (n.clone(), real)
                }
                None => (n.clone(), v.clone()),
            },
        )
        .collect();
    let cred = match added {
        true => CredentialUse::Added,
        false => CredentialUse::Unchanged,
    };
    (headers, cred)
}

/// A request that is no model request: sent with its body streamed in its own framing. A
/// streamed body cannot be sent again, so it goes on a new upstream connection (a kept one may
/// have been closed by the server while idle).
fn pass_through(
    shared: &Shared,
    client: &mut BufReader<ClientTls>,
    up: &mut Up,
    endpoint: (&str, u16),
    head: &Head,
    mut headers: Vec<(String, String)>,
    framing: Framing,
) -> Result<(u16, bool), Failure> {
    match framing {
        Framing::Length(n) => headers.push(("Content-Length".into(), n.to_string())),
        Framing::Chunked => headers.push(("Transfer-Encoding".into(), "chunked".into())),
        Framing::None | Framing::Close => {}
    }
    let request = head.encode_with(&headers);
    let method = head.first[0].to_ascii_uppercase();
    if framing == Framing::None {
        let answer =
            session::send(shared, up, endpoint, &request).map_err(Failure::BeforeAnswer)?;
        return relay(shared, client, up, &method, &answer);
    }
    *up = None;
    let before = |e: io::Error| Failure::BeforeAnswer(e);
    let mut conn = BufReader::new(
        shared
            .upstream
            .connect_tls(endpoint.0, endpoint.1)
            .map_err(before)?,
    );
    conn.get_mut().write_all(&request).map_err(before)?;
    http1::relay_body(client, conn.get_mut(), framing)
        .map_err(|e| before(io::Error::other(e.to_string())))?;
    conn.get_mut().flush().map_err(before)?;
    let answer = session::read_answer_head(&mut conn, shared.config.limits.max_head)
        .map_err(|e| before(io::Error::other(e.to_string())))?;
    *up = Some(conn);
    relay(shared, client, up, &method, &answer)
}

/// The answer relayed as it arrives, every real credential replaced by its placeholder.
fn relay(
    shared: &Shared,
    client: &mut BufReader<ClientTls>,
    up: &mut Up,
    method: &str,
    answer: &Head,
) -> Result<(u16, bool), Failure> {
    let mut out = shared.redactor(client.get_mut());
    session::relay_answer(&mut out, up, method, answer)
}

/// The decision on a forwarded request, and the client told when the model API never answered.
fn finish(
    shared: &Shared,
    client: &mut BufReader<ClientTls>,
    req: &Req<'_>,
    sent: Result<(u16, bool), Failure>,
    cred: CredentialUse,
    next: Next,
) -> io::Result<Next> {
    let null = serde_json::Value::Null;
    match sent {
        Ok((status, more)) => {
            session::record(shared, req, None, cred, Some(status), null);
            Ok(if more { next } else { Next::Close })
        }
        Err(Failure::BeforeAnswer(e)) => {
            let refusal = Refusal::broker(
                codes::UPSTREAM,
                format!("the model API did not answer ({e}); try the request again later"),
            );
            let status = if session::is_timeout(&e) { 504 } else { 502 };
            client.get_mut().write_all(&answer::model_refusal(
                status,
                codes::UPSTREAM,
                &refusal.reason,
            ))?;
            session::record(shared, req, Some(&refusal), cred, None, null);
            Ok(Next::Close)
        }
        Err(Failure::Midway(status)) => {
            session::record(shared, req, None, cred, Some(status), null);
            Ok(Next::Close)
        }
    }
}

/// A request that could not be read: refused in the API's shape, then the connection ends.
fn unreadable(
    shared: &Shared,
    client: &mut BufReader<ClientTls>,
    host: &str,
    e: &ReadError,
    (method, target): (&str, &str),
    peer: &PeerLookup,
) -> io::Result<Next> {
    let (code, status, remedy) = match e {
        ReadError::HeadTooLarge(_) | ReadError::BodyTooLarge(_) => {
            (codes::PAST_BOUND, 413, "send a smaller request")
        }
        _ => (
            codes::MALFORMED,
            400,
            "send HTTP/1.1 to the host the connection was opened to",
        ),
    };
    let refusal = Refusal::broker(
        code,
        format!("the request could not be read ({e}); nothing was sent to the model API. Remedy: {remedy}"),
    );
    peer.get();
    let _ = client
        .get_mut()
        .write_all(&answer::model_refusal(status, code, &refusal.reason));
    let req = Req {
        host,
        method,
        target,
        refs: &[],
        models: &[],
        peer,
    };
    session::record(
        shared,
        &req,
        Some(&refusal),
        CredentialUse::NotSent,
        None,
        serde_json::Value::Null,
    );
    Ok(Next::Close)
}
