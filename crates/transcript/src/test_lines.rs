//! Test support (feature `test-support`): transcript lines as the CLI writes them, for the tests
//! of this crate and of the crates that read transcripts.

use serde_json::json;

/// An assistant line with one Bash `tool_use` (id `id`, message id `m<id>`).
pub fn bash_call(id: &str, cmd: &str) -> String {
    json!({"type":"assistant","message":{"id":format!("m{id}"),"content":[
        {"type":"tool_use","id":id,"name":"Bash","input":{"command":cmd}}]}})
    .to_string()
}

/// A user line with the `tool_result` of call `id`.
pub fn tool_result(id: &str, text: &str, err: bool) -> String {
    json!({"type":"user","timestamp":"2026-12-01T00:00:00Z","message":{"role":"user","content":[
        {"type":"tool_result","tool_use_id":id,"content":text,"is_error":err}]}})
    .to_string()
}
