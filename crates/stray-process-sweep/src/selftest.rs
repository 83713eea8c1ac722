//! `--selftest`: replays the fixtures embedded from `fixtures/stray-process-sweep/` (synthetic
//! process tables with the expected agent, survivors, roots and kill command) through the pure
//! discovery and report, and prints one metadata-only JSON record.

use crate::s1_discovery::{find_agent, survivors, Index, Query};
use crate::s2_report::{kill_command, roots};
use proc_table::ProcEntry;
use serde_json::{json, Value};

include!(concat!(env!("OUT_DIR"), "/embedded_fixtures.rs"));
use EMBEDDED as FIXTURES;

/// Replays one case; `Err` says how it differed.
pub fn check(case: &Value) -> Result<(), String> {
    let table: Vec<ProcEntry> =
        serde_json::from_value(case["table"].clone()).map_err(|e| format!("table: {e}"))?;
    let q = &case["query"];
    let query = Query {
        session_id: q["session_id"].as_str().ok_or("no session_id")?.to_string(),
        reason: q["reason"].as_str().map(str::to_string),
        self_pid: q["self_pid"].as_i64().ok_or("no self_pid")? as i32,
        uid: q["uid"].as_u64().unwrap_or(1000) as u32,
    };
    let claude_pid = q["claude_pid"].as_i64().map(|p| p as i32);
    let index = Index::new(&table);
    let agent = find_agent(&index, claude_pid, query.self_pid).ok();
    let found = survivors(&index, &query, agent.as_ref());
    let contained: Vec<i64> = case["contained"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default();
    let r = roots(&index, &found, &|p| {
        contained
            .contains(&i64::from(p))
            .then(|| "/agent-guards/session-x/cmd-1".to_string())
    });
    let got = json!({
        "agent": agent.map(|a| a.pid),
        "survivors": found,
        "roots": r.iter().map(|x| json!({"pid": x.pid, "processes": x.processes, "contained": x.containment_group.is_some()})).collect::<Vec<_>>(),
        "kill": (!r.is_empty()).then(|| kill_command(&index, &r)),
    });
    hook_replay::expect_equals(&got, case)
}

/// Replays every fixture; returns the record and whether all passed.
pub fn run() -> (Value, bool) {
    hook_replay::replay(
        "stray-process-sweep",
        env!("CARGO_PKG_VERSION"),
        FIXTURES,
        |_, case| check(case),
    )
}
