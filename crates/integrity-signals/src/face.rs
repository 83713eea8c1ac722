//! integrity-signals' face (K10): what the other readers of an act use of this guard. The
//! second line protects the same files I3 protects at PreToolUse (read-only mounts, a write
//! judged where the kernel resolved its path) and records network destinations as I1 does;
//! it takes the protected set, the predicate for hook registrations and the codes from here,
//! never from the hook's modules.

pub use crate::codes::{tamper as tamper_code, I1_NETWORK, I3_SETTINGS};
pub use crate::i3_tamper::{is_hook_registration, Protected, Protects};
