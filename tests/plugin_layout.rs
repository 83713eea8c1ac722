//! The plugin layout written by `agent-guards plugin` passes the real CLI's `claude plugin
//! validate`, and its hooks point at binaries that exist in the plugin folder.

mod common;
use common::{assert_succeeded, built_bins};
use std::process::Command;

#[test]
fn the_written_plugin_validates_with_the_real_cli() {
    let Some(cli) = e2e_harness::cli_or_skip() else {
        return;
    };
    let from = built_bins();
    let tmp = tempfile::tempdir().unwrap();
    let plugin = tmp.path().join("agent-guards-plugin");
    let out = Command::new(env!("CARGO_BIN_EXE_agent-guards"))
        .args(["plugin", "--out"])
        .arg(&plugin)
        .arg("--from")
        .arg(&from)
        .output()
        .unwrap();
    assert_succeeded(&out);
    let hooks: serde_json::Value =
        serde_json::from_slice(&std::fs::read(plugin.join("hooks/hooks.json")).unwrap()).unwrap();
    for groups in hooks["hooks"].as_object().unwrap().values() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                let cmd = h["command"]
                    .as_str()
                    .unwrap()
                    .replace("${CLAUDE_PLUGIN_ROOT}", plugin.to_str().unwrap());
                assert!(
                    std::path::Path::new(&cmd).exists(),
                    "{cmd} is in the plugin folder"
                );
            }
        }
    }
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let v = Command::new(&cli.path)
        .args(["plugin", "validate"])
        .arg(&plugin)
        .env("HOME", &home)
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&v.stdout),
        String::from_utf8_lossy(&v.stderr)
    );
    assert!(v.status.success(), "claude plugin validate: {text}");
    assert!(text.contains("Validation passed"), "{text}");
}
