//! The installer against temp HOMEs: fresh install, idempotent re-install, merging into settings
//! that hold other tools' entries, refusal of unparseable files, uninstall, failing self-tests.

mod common;
use common::{assert_succeeded, built_bins};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ADMIN: &str = env!("CARGO_BIN_EXE_agent-guards");

fn admin(home: &Path, args: &[&str]) -> Output {
    Command::new(ADMIN)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .output()
        .unwrap()
}

fn install(home: &Path, from: &Path) -> Output {
    admin(home, &["install", "--from", from.to_str().unwrap()])
}

fn settings(home: &Path) -> PathBuf {
    home.join(".claude/settings.json")
}

const OTHERS: &str = r#"{
  "permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(./.env)"]},
  "env": {"FOO": "bar"},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "/opt/other/stop-hook"}]}],
    "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "/opt/lint"}]}]
  },
  "statusLine": {"type": "command", "command": "echo hi"}
}
"#;

#[test]
fn fresh_install_then_reinstall_is_a_no_op() {
    let home = tempfile::tempdir().unwrap();
    let out = install(home.path(), &built_bins());
    assert_succeeded(&out);
    let bin = home
        .path()
        .join(".local/share/agent-guards/bin/egress-audit");
    assert!(bin.exists());
    let first = std::fs::read(settings(home.path())).unwrap();
    let v: Value = serde_json::from_slice(&first).unwrap();
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        bin.to_str().unwrap()
    );
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["args"],
        serde_json::json!([])
    );
    assert!(home
        .path()
        .join(".config/agent-guards/config.toml")
        .exists());
    let out = install(home.path(), &built_bins());
    assert!(out.status.success());
    assert_eq!(
        std::fs::read(settings(home.path())).unwrap(),
        first,
        "byte-identical"
    );
}

#[test]
fn install_keeps_other_tools_entries_and_uninstall_restores() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(settings(home.path()), OTHERS).unwrap();
    std::fs::set_permissions(
        settings(home.path()),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let out = install(home.path(), &built_bins());
    assert_succeeded(&out);
    let v: Value = serde_json::from_slice(&std::fs::read(settings(home.path())).unwrap()).unwrap();
    let original: Value = serde_json::from_str(OTHERS).unwrap();
    assert_eq!(v["permissions"], original["permissions"]);
    assert_eq!(v["env"]["FOO"], original["env"]["FOO"]);
    // This host (root, cgroup v1) has a containment backend, so the prefix is ours.
    let bin_dir = home.path().join(".local/share/agent-guards/bin");
    assert_eq!(
        v["env"]["CLAUDE_CODE_SHELL_PREFIX"],
        bin_dir.join("tool-containment").to_str().unwrap()
    );
    assert_eq!(v["statusLine"], original["statusLine"]);
    assert_eq!(
        v["hooks"]["PreToolUse"][0],
        original["hooks"]["PreToolUse"][0]
    );
    assert_eq!(v["hooks"]["Stop"][0], original["hooks"]["Stop"][0]);
    let mode = std::fs::metadata(settings(home.path()))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600, "permissions kept");
    let backups = std::fs::read_dir(home.path().join(".claude"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("agent-guards-backup")
        })
        .count();
    assert_eq!(backups, 1);
    let out = admin(home.path(), &["uninstall"]);
    assert!(out.status.success());
    let after: Value =
        serde_json::from_slice(&std::fs::read(settings(home.path())).unwrap()).unwrap();
    assert_eq!(after, original, "uninstall removes exactly what we added");
    assert_eq!(
        std::fs::read_to_string(settings(home.path())).unwrap(),
        OTHERS,
        "byte for byte"
    );
}

#[test]
fn unparseable_or_misshapen_settings_are_refused_untouched() {
    for bad in [
        "{\"hooks\": ",
        "[1, 2]",
        "{\"hooks\": []}",
        "{\"env\": 3}",
        "{\"hooks\": {}, \"hooks\": {}}",
    ] {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(settings(home.path()), bad).unwrap();
        let out = install(home.path(), &built_bins());
        assert_eq!(out.status.code(), Some(1), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("left untouched"), "{err}");
        assert_eq!(std::fs::read_to_string(settings(home.path())).unwrap(), bad);
        assert!(!home
            .path()
            .join(".local/share/agent-guards/bin/egress-audit")
            .exists());
    }
}

#[test]
fn a_failing_selftest_installs_nothing() {
    let home = tempfile::tempdir().unwrap();
    let from = home.path().join("broken-build");
    std::fs::create_dir_all(&from).unwrap();
    let fake = from.join("egress-audit");
    std::fs::write(&fake, "#!/bin/sh\necho '{\"status\":\"fail\"}'\nexit 1\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = install(home.path(), &from);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing was installed"));
    assert!(!settings(home.path()).exists());
    assert!(!home
        .path()
        .join(".local/share/agent-guards/bin/egress-audit")
        .exists());
}

#[test]
fn dry_run_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let out = admin(
        home.path(),
        &[
            "install",
            "--dry-run",
            "--from",
            built_bins().to_str().unwrap(),
        ],
    );
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("would register the hooks"), "{text}");
    assert!(!text.contains("registered the hooks"), "{text}");
    assert!(!settings(home.path()).exists());
    assert!(
        !home.path().join(".local").exists(),
        "a dry run creates nothing"
    );
}

#[test]
fn report_names_drift() {
    let home = tempfile::tempdir().unwrap();
    assert!(install(home.path(), &built_bins()).status.success());
    let report = |home: &Path| -> Value {
        let out = admin(home, &["report", "--json"]);
        assert_succeeded(&out);
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let state_of = |r: &Value, event: &str| -> String {
        r["settings"]["registrations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["event"] == event)
            .unwrap()["state"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let r = report(home.path());
    assert_eq!(state_of(&r, "Stop"), "ok");
    assert_eq!(r["settings"]["status"], "every hook registered");
    for b in r["binaries"].as_array().unwrap() {
        assert_eq!(b["installed"], true, "{b}");
        let name = b["name"].as_str().unwrap();
        assert!(
            b["version"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{name} ")),
            "{b}"
        );
    }
    // Edit one entry, duplicate another, and look again.
    let path = settings(home.path());
    let mut v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["hooks"]["Stop"][0]["hooks"][0]["args"] = serde_json::json!(["--changed"]);
    let dup = v["hooks"]["SubagentStop"][0].clone();
    v["hooks"]["SubagentStop"].as_array_mut().unwrap().push(dup);
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    let r = report(home.path());
    assert_eq!(state_of(&r, "Stop"), "edited");
    assert_eq!(state_of(&r, "SubagentStop"), "duplicated");
    v["hooks"].as_object_mut().unwrap().remove("Stop");
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    assert_eq!(state_of(&report(home.path()), "Stop"), "missing");
    // Every hook missing is not "ok".
    std::fs::write(&path, "{\"model\": \"x\"}").unwrap();
    let r = report(home.path());
    assert!(
        r["settings"]["status"]
            .as_str()
            .unwrap()
            .starts_with("NO hook"),
        "{r}"
    );
    // The report is read-only.
    let before = std::fs::read(&path).unwrap();
    report(home.path());
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_shell_prefix_set_by_someone_else_is_left_alone() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    let theirs = r#"{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/opt/their-wrapper"}}"#;
    std::fs::write(settings(home.path()), theirs).unwrap();
    let out = install(home.path(), &built_bins());
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("left as it is"));
    let v: Value = serde_json::from_slice(&std::fs::read(settings(home.path())).unwrap()).unwrap();
    assert_eq!(v["env"]["CLAUDE_CODE_SHELL_PREFIX"], "/opt/their-wrapper");
    assert!(admin(home.path(), &["uninstall"]).status.success());
    let v: Value = serde_json::from_slice(&std::fs::read(settings(home.path())).unwrap()).unwrap();
    assert_eq!(v, serde_json::from_str::<Value>(theirs).unwrap());
}

/// `./install.sh` itself (with `--from`, so no release build), then `./install.sh --report`.
#[test]
fn install_sh_installs_and_its_report_names_the_containment_backend() {
    let home = tempfile::tempdir().unwrap();
    let from = built_bins();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/install.sh");
    let run = |args: &[&str]| {
        Command::new("bash")
            .arg(script)
            .args(args)
            .arg("--from")
            .arg(&from)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert_succeeded(&out);
    assert!(settings(home.path()).exists());
    let out = run(&["--report"]);
    assert_succeeded(&out);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("containment: tool-containment backend: cgroup"),
        "{report}"
    );
    let out = run(&["--uninstall"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&std::fs::read(settings(home.path())).unwrap()).unwrap();
    assert!(v.get("hooks").is_none() && v.get("env").is_none(), "{v}");
}

#[test]
fn a_fifo_or_a_device_as_settings_is_refused_at_once() {
    // Issue 47: report, install and uninstall hung on a FIFO settings.json and read /dev/zero
    // without end. Each must answer, in time, that it cannot read the file.
    for kind in ["fifo", "dev-zero"] {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        let path = settings(home.path());
        match kind {
            "fifo" => assert!(Command::new("mkfifo")
                .arg(&path)
                .status()
                .unwrap()
                .success()),
            _ => std::os::unix::fs::symlink("/dev/zero", &path).unwrap(),
        }
        let from = built_bins();
        for args in [
            vec!["report"],
            vec!["install", "--from", from.to_str().unwrap()],
            vec!["uninstall"],
        ] {
            let mut c = Command::new(ADMIN);
            c.args(&args)
                .env_clear()
                .env("PATH", std::env::var("PATH").unwrap_or_default())
                .env("HOME", home.path());
            let out = hook_replay::bounded::run_bounded(&mut c, std::time::Duration::from_secs(60))
                .unwrap();
            assert!(!out.timed_out, "{kind} {args:?}: hung");
            let said = format!("{}{}", out.stdout, out.stderr);
            assert!(
                said.contains("not a regular file"),
                "{kind} {args:?}: {said}"
            );
            if args[0] != "report" {
                assert_eq!(
                    out.status.and_then(|s| s.code()),
                    Some(1),
                    "{kind} {args:?}"
                );
            }
        }
    }
}

/// `report` says the OTLP exporter's state (issue 45 item 3): off by default with the setting
/// that turns it on; on, with the endpoint, where it was named and what waits to be sent.
#[test]
fn report_says_the_exporters_state() {
    let home = tempfile::tempdir().unwrap();
    assert!(install(home.path(), &built_bins()).status.success());
    let off = admin(home.path(), &["report"]);
    let text = String::from_utf8_lossy(&off.stdout).to_string();
    assert!(
        text.contains("OTLP export: off (set otlp_endpoint"),
        "{text}"
    );
    let session = home.path().join(".local/state/agent-guards/sessions/s1");
    std::fs::create_dir_all(&session).unwrap();
    let record = |d: &str| {
        format!(
            r#"{{"binary":"gh-write-guard","decision":"{d}","requirement":"G4","code":"G4.rule","time":"2026-12-07T00:00:00Z"}}"#
        )
    };
    std::fs::write(
        session.join("audit.jsonl"),
        format!("{}\n{}\n", record("deny"), record("allow")),
    )
    .unwrap();
    let on = Command::new(ADMIN)
        .arg("report")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&on.stdout).to_string();
    assert!(
        text.contains("OTLP export: on, to http://127.0.0.1:9/v1/logs"),
        "{text}"
    );
    assert!(text.contains("queued: 2 records"), "{text}");
}
