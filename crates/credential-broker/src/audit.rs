//! What the broker tells its caller, through two small traits so the caller decides where it
//! goes (the session's audit log, the taint ledger): [`AuditSink`] gets one [`Decision`] per
//! request to a GitHub or model API host, [`ConnectSink`] one [`Connect`] per plain tunnel (I1 network
//! evidence, K5 taint, as the second line's connect observer records them). No record ever
//! holds a credential: the `Authorization` value is reduced to what it presented.

use serde::Serialize;

/// Allowed (forwarded) or refused (answered by the broker).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Allowed,
    Refused,
}

/// What happened to the request's credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CredentialUse {
    /// The placeholder was replaced by the real token.
    Added,
    /// Forwarded without any credential (a read that presented none, or another one).
    Stripped,
    /// Not forwarded.
    NotSent,
    /// Forwarded with the credential it presented (a model API request that did not present
    /// our placeholder: the broker adds nothing and takes nothing; M3 judged it all the same).
    Unchanged,
}

/// One request to a GitHub host and what the broker decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub method: String,
    pub host: String,
    /// Path and query as sent.
    pub path: String,
    /// The ref updates of a push (`refs/heads/main update`), empty otherwise.
    pub ref_updates: Vec<String>,
    /// The models a model API request names (`null` where one could not be read), empty
    /// otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<Option<String>>,
    pub outcome: Outcome,
    /// The sub-code of a refusal (`G4.rule`, `C11.no-placeholder`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The reason of a refusal, as the client was told it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub credential: CredentialUse,
    /// The upstream's status, when forwarded and answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream_status: Option<u16>,
    /// The evidence of the rule that refused (the face's `Refusal::evidence`), else null.
    pub findings: serde_json::Value,
    /// The program that sent it (Linux; `None`: not found).
    pub peer: Option<crate::peer::Peer>,
}

/// A plain tunnel the broker opened (not judged: not a GitHub host).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Connect {
    pub host: String,
    pub port: u16,
    /// Whether the tunnel was opened (false: the destination could not be reached).
    pub opened: bool,
    /// The program that asked for it (Linux; `None`: not found).
    pub peer: Option<crate::peer::Peer>,
}

/// Receives every decision.
pub trait AuditSink: Send + Sync {
    fn decision(&self, d: &Decision);
}

/// Receives every plain tunnel.
pub trait ConnectSink: Send + Sync {
    fn connect(&self, c: &Connect);
}

/// A sink that keeps everything in memory (tests, and callers that write at the end).
#[derive(Debug, Default)]
pub struct MemorySink {
    pub decisions: std::sync::Mutex<Vec<Decision>>,
    pub connects: std::sync::Mutex<Vec<Connect>>,
}

impl MemorySink {
    /// The decisions so far.
    pub fn decisions(&self) -> Vec<Decision> {
        self.decisions.lock().map(|d| d.clone()).unwrap_or_default()
    }

    /// The decisions once `ready` holds of them, or as they are after `within`: a decision is
    /// recorded after its answer is written, so a client can have its answer first.
    pub fn decisions_once(
        &self,
        ready: impl Fn(&[Decision]) -> bool,
        within: std::time::Duration,
    ) -> Vec<Decision> {
        let until = std::time::Instant::now() + within;
        loop {
            let d = self.decisions();
            if ready(&d) || std::time::Instant::now() >= until {
                return d;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// At least `n` decisions (within 5 s; fewer if they never come).
    pub fn decisions_at_least(&self, n: usize) -> Vec<Decision> {
        self.decisions_once(|d| d.len() >= n, std::time::Duration::from_secs(5))
    }

    /// The tunnels so far.
    pub fn connects(&self) -> Vec<Connect> {
        self.connects.lock().map(|d| d.clone()).unwrap_or_default()
    }
}

impl AuditSink for MemorySink {
    fn decision(&self, d: &Decision) {
        if let Ok(mut v) = self.decisions.lock() {
            v.push(d.clone());
        }
    }
}

impl ConnectSink for MemorySink {
    fn connect(&self, c: &Connect) {
        if let Ok(mut v) = self.connects.lock() {
            v.push(c.clone());
        }
    }
}
