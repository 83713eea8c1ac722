//! One POST of one batch to the collector, within the time left: OTLP/HTTP with a protobuf body.
//!
//! Only a 2xx answer is a success: it is the one thing that moves a cursor. Anything else (no
//! connection, a timeout, a 4xx or 5xx) is an error said in one line, and the batch stays in the
//! log for a later run. A 2xx with a partial success (records the collector read and rejected)
//! is still a success (resending would be rejected again), and its message is kept for the report.

use crate::proto::ExportLogsServiceResponse;
use prost::Message;
use std::time::Duration;

/// The HTTP client of one sender run.
pub struct Sender {
    client: reqwest::blocking::Client,
    url: String,
    headers: Vec<(String, String)>,
}

/// What a collector said to a 2xx'd batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// Records the collector says it rejected (a partial success), with its message.
    pub rejected: Option<(i64, String)>,
}

fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?']).next().unwrap_or_default();
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

impl Sender {
    /// A client for `url` with `headers`. A loopback collector is reached directly, not through
    /// a proxy the environment names.
    pub fn new(url: &str, headers: &[(String, String)]) -> Result<Sender, String> {
        // reqwest is built without a TLS provider (see crates/branch-rules/README.md): ring is
        // installed as the process default unless the program chose one.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::blocking::Client::builder().user_agent(concat!(
            "agent-guards-audit-export/",
            env!("CARGO_PKG_VERSION")
        ));
        if is_loopback(url) {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|e| primitives::error_text::chain(&e))?;
        Ok(Sender {
            client,
            url: url.to_string(),
            headers: headers.to_vec(),
        })
    }

    /// POSTs `body`, waiting at most `timeout` for the whole exchange.
    pub fn post(&self, body: Vec<u8>, timeout: Duration) -> Result<Accepted, String> {
        let mut req = self
            .client
            .post(&self.url)
            .header("Content-Type", "application/x-protobuf")
            .timeout(timeout)
            .body(body);
        for (k, v) in &self.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let resp = req.send().map_err(|e| {
            if e.is_timeout() {
                format!(
                    "no answer from {} within {} ms",
                    self.url,
                    timeout.as_millis()
                )
            } else {
                primitives::error_text::chain(&e)
            }
        })?;
        let status = resp.status();
        let body = resp.bytes().unwrap_or_default();
        if !status.is_success() {
            let text = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            return Err(format!("{} answered {status}: {text}", self.url));
        }
        let rejected = ExportLogsServiceResponse::decode(body.as_ref())
            .ok()
            .and_then(|r| r.partial_success)
            .filter(|p| p.rejected_log_records > 0 || !p.error_message.is_empty())
            .map(|p| (p.rejected_log_records, p.error_message));
        Ok(Accepted { rejected })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_bypass_proxies() {
        assert!(is_loopback("http://127.0.0.1:4318/v1/logs"));
        assert!(is_loopback("http://localhost:4318/v1/logs"));
        assert!(is_loopback("http://[::1]:4318/v1/logs"));
        assert!(!is_loopback("https://collector.example/v1/logs"));
        assert!(!is_loopback("https://127.0.0.1.example/v1/logs"));
    }
}
