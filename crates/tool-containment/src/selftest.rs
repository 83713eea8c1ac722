//! `--selftest`: replays the fixtures embedded from `fixtures/tool-containment/` against the pure
//! decisions (C1 invocation and shell, C2 classification, C4 mount mapping and order, C5 ceilings)
//! and prints one metadata-only JSON record (counts and failing case names, never case contents).

use crate::c1_invocation::{choose_shell, parse_args, Mode};
use crate::c2_agent_commands::{classify, Kind};
use crate::c4_backends::{
    choose, dir_in_mount, parse_mountinfo, parse_proc_cgroup, HostFacts, V1Dirs,
};
use crate::c5_ceilings::{resolve, Memory, Tasks};
use serde_json::{json, Value};

include!(concat!(env!("OUT_DIR"), "/embedded_fixtures.rs"));
use EMBEDDED as FIXTURES;

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn check_c1(case: &Value) -> Result<(), String> {
    let args: Vec<std::ffi::OsString> = case["args"]
        .as_array()
        .ok_or("no args")?
        .iter()
        .filter_map(Value::as_str)
        .map(Into::into)
        .collect();
    let mode = match parse_args(&args) {
        Mode::Prefix(script) => {
            let shell = choose_shell(&script.to_string_lossy(), s(case, "SHELL"));
            if let Some(want) = s(&case["expect"], "shell") {
                if shell != want {
                    return Err(format!("shell {shell}, expected {want}"));
                }
            }
            "prefix"
        }
        Mode::SessionEnd => "session_end",
        Mode::Report => "report",
        Mode::Selftest => "selftest",
        Mode::Help => "help",
        Mode::Version => "version",
        Mode::RunFromEnv => "run_from_env",
        Mode::ExecGateService => "exec_gate_service",
        Mode::Usage(_) => "usage",
    };
    let want = s(&case["expect"], "mode").ok_or("no expect.mode")?;
    (mode == want)
        .then_some(())
        .ok_or(format!("mode {mode}, expected {want}"))
}

fn check_c2(case: &Value) -> Result<(), String> {
    let got = match classify(s(case, "script").ok_or("no script")?, s(case, "AI_AGENT")) {
        Kind::Agent => "agent",
        Kind::PassThrough(_) => "pass-through",
    };
    let want = s(case, "expect").ok_or("no expect")?;
    (got == want)
        .then_some(())
        .ok_or(format!("{got}, expected {want}"))
}

fn check_c4(case: &Value) -> Result<(), String> {
    if let Some(mi) = s(case, "mountinfo") {
        let mounts = parse_mountinfo(mi);
        let lines = parse_proc_cgroup(s(case, "proc_cgroup").unwrap_or(""));
        let controller = s(case, "controller").ok_or("no controller")?;
        let mount = mounts.iter().find(|m| {
            if controller.is_empty() {
                m.fstype == "cgroup2"
            } else {
                m.super_opts.iter().any(|o| o == controller)
            }
        });
        let path = lines
            .iter()
            .find(|(c, _)| {
                if controller.is_empty() {
                    c.is_empty()
                } else {
                    c.split(',').any(|x| x == controller)
                }
            })
            .map(|(_, p)| p.as_str());
        let got = match (mount, path) {
            (Some(m), Some(p)) => dir_in_mount(m, p).map(|d| d.display().to_string()),
            _ => None,
        };
        let want = case["expect_dir"].as_str().map(str::to_string);
        return (got == want)
            .then_some(())
            .ok_or(format!("{got:?}, expected {want:?}"));
    }
    let ok = |k: &str| case[k].as_bool().unwrap_or(false);
    let dirs = V1Dirs {
        pids_mount: "/p".into(),
        pids: "/p".into(),
        memory_mount: "/m".into(),
        memory: "/m".into(),
    };
    let facts = HostFacts {
        v2: if ok("v2") {
            Ok(("/c".into(), "/c".into()))
        } else {
            Err("no".into())
        },
        v1: if ok("v1") { Ok(dirs) } else { Err("no".into()) },
        systemd: if ok("systemd") {
            Ok("/usr/bin/systemd-run".into())
        } else {
            Err("no".into())
        },
    };
    let got = choose(&facts).name();
    let want = s(case, "expect").ok_or("no expect")?;
    (got == want)
        .then_some(())
        .ok_or(format!("{got}, expected {want}"))
}

fn check_c5(case: &Value) -> Result<(), String> {
    let loaded = guard_config::parse(s(case, "config").unwrap_or(""));
    if let Some(e) = loaded.error {
        return Err(format!("config: {e}"));
    }
    let ram = case["ram_bytes"].as_u64().ok_or("no ram_bytes")?;
    let c = resolve(
        s(case, "env_tasks"),
        s(case, "env_memory"),
        loaded.config.tasks_max.as_ref(),
        loaded.config.memory_max.as_ref(),
        ram,
    );
    let tasks = match c.tasks {
        Tasks::Max => json!("max"),
        Tasks::Limit(n) => json!(n),
    };
    let memory = match c.memory {
        Memory::Max => json!("max"),
        Memory::Bytes(b) => json!(b),
    };
    let mut got = json!({"tasks": tasks, "memory": memory, "notices": c.notices.len()});
    // Optional: the codes the notices start with ([`crate::codes`]).
    if case["expect"].get("notice_codes").is_some() {
        let codes: Vec<&str> = c
            .notices
            .iter()
            .filter_map(|n| n.split_once(": ").map(|(code, _)| code))
            .collect();
        got["notice_codes"] = json!(codes);
    }
    hook_replay::expect_equals(&got, case)
}

/// Replays every fixture; returns the record and whether all passed.
pub fn run() -> (Value, bool) {
    hook_replay::replay(
        "tool-containment",
        env!("CARGO_PKG_VERSION"),
        FIXTURES,
        |name, case| match name.split('/').next() {
            Some("C1") => check_c1(case),
            Some("C2") => check_c2(case),
            Some("C4") => check_c4(case),
            Some("C5") => check_c5(case),
            _ => Err("no checker for this folder".into()),
        },
    )
}
