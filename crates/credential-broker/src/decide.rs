//! The broker's decision on one request, pure over typed inputs: the rules' findings on the
//! operation (gh-write-guard's wire faces: the same G2–G4 code as the command text), then the
//! credential rule of C11 — a write goes out only with the placeholder replaced, a read
//! without the placeholder goes out with no credential at all.

use crate::audit::CredentialUse;
use crate::codes;
use crate::credentials::Presented;
use crate::operation::Operation;
use gh_write_guard::face::{Context, GitHubOp, WireFacts, WirePush, World};

/// A refusal: its sub-code and the reason the client is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: String,
    pub reason: String,
}

impl Refusal {
    /// A refusal of the broker's own (`C11.*`): the reason starts with the code.
    pub fn broker(code: &str, what: impl std::fmt::Display) -> Refusal {
        Refusal {
            code: code.to_string(),
            reason: format!("{code}: {what}"),
        }
    }
}

/// The refusal the rules make, if any, and its evidence for the audit log.
#[derive(Debug, Clone)]
pub struct Judged {
    pub refusal: Option<Refusal>,
    pub evidence: serde_json::Value,
}

/// The rules on `op` through gh-write-guard's face (K10), with what the wire knows besides it
/// (a merge's state, the ids GitHub returned in the session).
pub fn judge(op: &Operation, facts: &WireFacts<'_>, cx: &Context, world: &dyn World) -> Judged {
    let verdict = match op {
        Operation::Read => None,
        Operation::Push { repo, request } => {
            let push = WirePush {
                repo: repo.clone(),
                updates: request.commands.iter().map(|c| c.branch_update()).collect(),
            };
            gh_write_guard::face::judge(&GitHubOp::WirePush(&push), cx, world)
        }
        Operation::Api(api) => gh_write_guard::face::judge(&GitHubOp::WireApi(api, facts), cx, world),
        Operation::UnknownWrite => {
            return Judged {
                refusal: Some(Refusal::broker(
                    codes::UNKNOWN_WRITE,
                    "a write to a GitHub web host that no rule reads is not sent with credentials. Use git or the API (gh), whose writes the rules judge",
                )),
                evidence: serde_json::Value::Null,
            }
        }
    };
    match verdict {
        Some(r) => Judged {
            refusal: Some(Refusal {
                code: r.code,
                reason: r.reason,
            }),
            evidence: r.evidence,
        },
        None => Judged {
            refusal: None,
            evidence: serde_json::Value::Null,
        },
    }
}

/// C11's credential rule for a request the rules allowed: a write needs the placeholder (it
/// is replaced by the real token); a read with the placeholder gets the token, any other read
/// goes out without credentials.
pub fn credential(is_write: bool, presented: Presented) -> Result<CredentialUse, Refusal> {
    match (presented, is_write) {
        (Presented::Placeholder, _) => Ok(CredentialUse::Added),
        (_, false) => Ok(CredentialUse::Stripped),
        (Presented::Real, true) => Err(Refusal::broker(
            codes::NO_PLACEHOLDER,
            "a write that carries the real token itself instead of the session's placeholder is not sent. Use the credential the session gave you",
        )),
        (_, true) => Err(Refusal::broker(
            codes::NO_PLACEHOLDER,
            "a write without the session's placeholder credential is not sent. Use the credential the session gave you (GH_TOKEN)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_need_the_placeholder_reads_never_carry_another() {
        assert_eq!(
            credential(true, Presented::Placeholder),
            Ok(CredentialUse::Added)
        );
        assert_eq!(
            credential(false, Presented::Placeholder),
            Ok(CredentialUse::Added)
        );
        for p in [Presented::Real, Presented::Other, Presented::Absent] {
            assert_eq!(credential(false, p), Ok(CredentialUse::Stripped), "{p:?}");
            let r = credential(true, p).unwrap_err();
            assert_eq!(r.code, codes::NO_PLACEHOLDER);
            assert!(r.reason.starts_with("C11.no-placeholder: "));
        }
    }
}
