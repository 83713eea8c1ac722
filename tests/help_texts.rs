//! Each hook binary's `--help` names every event (and tool matcher) the installer registers it
//! for (issue 46: model-tier-guard's omitted its Skill|SlashCommand registration). The
//! registrations are read from `hooks/hooks.json`, which the plugin test keeps equal to the
//! installer's table; matchers are compared as their `|`-separated tool names.

use serde_json::Value;
use std::collections::BTreeSet;

/// (binary, event, tool names of the matcher) for every registration.
fn registrations() -> Vec<(String, String, Vec<String>)> {
    let text = include_str!("../hooks/hooks.json");
    let v: Value = serde_json::from_str(text).unwrap();
    let mut out = Vec::new();
    for (event, groups) in v["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            let tools: Vec<String> = g["matcher"]
                .as_str()
                .map(|m| m.split('|').map(str::to_string).collect())
                .unwrap_or_default();
            for h in g["hooks"].as_array().unwrap() {
                let command = h["command"].as_str().unwrap();
                let binary = command.rsplit('/').next().unwrap().to_string();
                out.push((binary, event.clone(), tools.clone()));
            }
        }
    }
    out
}

#[test]
fn every_registration_is_named_in_its_binarys_help() {
    let binaries: BTreeSet<String> = registrations().into_iter().map(|r| r.0).collect();
    assert!(binaries.len() >= 6, "{binaries:?}");
    let mut missing = Vec::new();
    for binary in &binaries {
        let out = std::process::Command::new(e2e_harness::bin(binary))
            .arg("--help")
            .output()
            .unwrap();
        assert!(out.status.success(), "{binary} --help");
        let help = String::from_utf8_lossy(&out.stdout);
        for (_, event, tools) in registrations().iter().filter(|r| &r.0 == binary) {
            if !help.contains(event.as_str()) {
                missing.push(format!("{binary}: event {event}"));
            }
            for t in tools.iter().filter(|t| !help.contains(t.as_str())) {
                missing.push(format!("{binary}: {event} matcher tool {t}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "--help texts omit registrations:\n{}",
        missing.join("\n")
    );
}
