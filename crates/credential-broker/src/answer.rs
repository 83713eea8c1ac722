//! Refusals in the protocol's own shape, so the program that sent the request prints them
//! (C11.4): a REST or GraphQL call gets GitHub's error body (`403`, `{"message":
//! "agent-guards: <code>: ...", "documentation_url": ...}`), which gh and the API libraries
//! print as they print any GitHub error; a push gets a valid `git-receive-pack` result, a
//! `report-status` with `ng <ref> agent-guards: <code>: ...` per ref (inside side band 1 when
//! the client asked for `side-band-64k`, with the reason also on band 2 so git shows it as
//! `remote:` lines), so git prints `! [remote rejected] main -> main (agent-guards: ...)`.

/// Where the codes and the broker are documented.
pub const DOCUMENTATION_URL: &str =
    "https://docs.github.com/rest (agent-guards: spec/tool-containment.md, C11)";

/// The text every refusal carries: `agent-guards: <reason>` (the reason starts with its code).
pub fn message(reason: &str) -> String {
    format!("agent-guards: {}", one_line(reason))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A whole HTTP/1.1 response with GitHub's error body.
pub fn api_refusal(status: u16, code: &str, reason: &str) -> Vec<u8> {
    let body = serde_json::json!({
        "message": message(reason),
        "documentation_url": DOCUMENTATION_URL,
        "status": status.to_string(),
    })
    .to_string();
    format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nX-Agent-Guards-Code: {code}\r\n\r\n{body}",
        phrase(status),
        body.len()
    )
    .into_bytes()
}

/// A whole HTTP/1.1 response in the model API's error shape (issue 39): `status`, the body of
/// model-tier-guard's face (`{"type":"error","error":{"type":..,"message":"agent-guards: .."}}`),
/// the code in `X-Agent-Guards-Code`, and `x-should-retry: false` so the SDKs do not retry a
/// refusal. The error type follows the status as the API's does.
pub fn model_refusal(status: u16, code: &str, reason: &str) -> Vec<u8> {
    let error_type = match status {
        400 => "invalid_request_error",
        403 => "permission_error",
        413 => "request_too_large",
        _ => "api_error",
    };
    model_answer(
        status,
        code,
        &model_tier_guard::face::api_error(error_type, &one_line(reason)),
    )
}

/// `status` with a model API error `body` already made (M3's, `face::api_error_body`).
pub fn model_answer(status: u16, code: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nX-Agent-Guards-Code: {code}\r\nx-should-retry: false\r\n\r\n{body}",
        phrase(status),
        body.len()
    )
    .into_bytes()
}

fn phrase(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        403 => "Forbidden",
        413 => "Content Too Large",
        502 => "Bad Gateway",
        504 => "Gateway Timeout",
        _ => "Refused",
    }
}

/// One pkt-line.
fn pkt(payload: &[u8]) -> Vec<u8> {
    let mut out = format!("{:04x}", payload.len() + 4).into_bytes();
    out.extend_from_slice(payload);
    out
}

/// Payloads of at most this many bytes per side-band packet (`LARGE_PACKET_MAX` less the
/// length and the band byte).
const BAND_MAX: usize = 65515;

/// `data` on side band `band`, cut into packets.
fn band(n: u8, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in data.chunks(BAND_MAX) {
        let mut p = vec![n];
        p.extend_from_slice(part);
        out.extend(pkt(&p));
    }
    out
}

/// The body of a refused push: `unpack ok`, then `ng <ref> <message>` for each ref.
pub fn push_report(refs: &[String], reason: &str, sideband: bool) -> Vec<u8> {
    let text = message(reason);
    // A ref line is one pkt-line: the reason is cut to fit.
    let short: String = text.chars().take(1000).collect();
    let mut report = pkt(b"unpack ok\n");
    for r in refs {
        report.extend(pkt(format!("ng {r} {short}\n").as_bytes()));
    }
    report.extend(b"0000");
    if !sideband {
        return report;
    }
    let mut out = band(2, format!("{text}\n").as_bytes());
    out.extend(band(1, &report));
    out.extend(b"0000");
    out
}

/// A whole HTTP/1.1 response carrying [`push_report`].
pub fn push_refusal(refs: &[String], reason: &str, sideband: bool) -> Vec<u8> {
    let body = push_report(refs, reason, sideband);
    let mut out = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/x-git-receive-pack-result\r\nCache-Control: no-cache\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend(body);
    out
}

/// A plain-text answer to a proxy request (CONNECT refused, upstream unreachable).
pub fn plain(status: u16, phrase: &str, text: &str) -> Vec<u8> {
    let text = format!("{}\n", message(text));
    format!(
        "HTTP/1.1 {status} {phrase}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_body_is_githubs_error_shape() {
        let raw = api_refusal(
            403,
            "G4.rule",
            "G4.rule: push to main would bypass its `pull_request` rule.\nOpen a pull request",
        );
        let text = String::from_utf8(raw).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 403 Forbidden"));
        assert!(head.contains(&format!("Content-Length: {}", body.len())));
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        let m = v["message"].as_str().unwrap();
        assert!(m.starts_with("agent-guards: G4.rule: push to main"), "{m}");
        assert!(!m.contains('\n'));
        assert!(v["documentation_url"].is_string());
    }

    #[test]
    fn the_push_report_is_pkt_lines_in_band_one() {
        let refs = vec!["refs/heads/main".to_string()];
        let plain = push_report(&refs, "G4.rule: no", false);
        assert_eq!(
            plain,
            b"000eunpack ok\n0031ng refs/heads/main agent-guards: G4.rule: no\n0000".to_vec()
        );
        let banded = push_report(&refs, "G4.rule: no", true);
        // Band 2 (the message), band 1 (the report), then the closing flush.
        assert_eq!(&banded[4..5], &[2]);
        let band1 = usize::from_str_radix(std::str::from_utf8(&banded[..4]).unwrap(), 16).unwrap();
        assert_eq!(banded[band1 + 4], 1);
        assert_eq!(&banded[band1 + 5..banded.len() - 4], &plain[..]);
        assert!(banded.ends_with(b"0000"));
    }
}
