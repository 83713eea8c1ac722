//! integrity-signals' face (K10): what the other readers of an act use of this guard. The
//! second line protects the same files I3 protects at PreToolUse (read-only mounts, a write
//! judged where the kernel resolved its path) and records network destinations as I1 does;
//! it takes the protected set, the predicate for hook registrations, the durable-memory
//! judgement and the codes from here, never from the hook's modules.

pub use crate::codes::{tamper as tamper_code, I1_NETWORK, I3_DURABLE_MEMORY, I3_SETTINGS};
pub use crate::i3_tamper::{
    is_durable_memory, is_hook_registration, is_outside_registration, Protected, Protects,
};
pub use safety_kernel::Refusal;
use std::path::Path;

/// I3 over a write another reader saw (the second line's notifier): a write to durable memory
/// ([`is_durable_memory`]) is refused while taint cannot be ruled out (`taint`: why, from
/// `taint::cannot_rule_out` or what the reader itself saw), with the hook's own reason.
pub fn judge_memory_write(path: &Path, taint: Option<&str>) -> Option<Refusal> {
    let why = taint?;
    if !is_durable_memory(path) {
        return None;
    }
    let shown = path.display().to_string();
    let refused = crate::hook::memory_refused(&shown);
    Some(Refusal {
        code: I3_DURABLE_MEMORY.to_string(),
        reason: safety_kernel::feedback::reason(
            I3_DURABLE_MEMORY,
            &refused,
            crate::hook::MEMORY_REMEDY,
        ),
        evidence: serde_json::json!({"path": shown, "taint": why}),
    })
}
