//! K10: what a guard's face answers about one operation, whichever reader produced it (the
//! command text, an exec's argv, a request on the wire). One shape, so the exec gate and the
//! broker turn any guard's refusal into their own answer (a failed call, a `403`, a rejected
//! ref) without knowing that guard's finding types.

use serde_json::Value;

/// A refusal: the stable sub-code (`G4.rule`, `M3.launch`), the one-line reason the agent sees
/// (K4's shape: the code, what was refused, the remedy) and the evidence for the audit log.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The requirement's sub-code the reason starts with.
    pub code: String,
    /// The coarse reason the agent sees.
    pub reason: String,
    /// Everything the audit log keeps about the decision.
    pub evidence: Value,
}
