//! Issue 40 through the real Claude Code CLI: a system install (the real installer, the real
//! paths) whose hooks the CLI reads from managed settings only (the session's home registers
//! none), and whose exec gate is the exec-gate service. The CLI runs in a private mount
//! namespace (`unshare -m`) over a copy of `/etc` and empty `/run`, `/var/lib` and `/opt`, set up
//! by a launcher script around it, so the host's files are never touched.
#![cfg(target_os = "linux")]

mod common;
use e2e_harness::{text, tool, Scenario};
use serde_json::json;

/// Sets up the namespace, installs, starts the service, runs the CLI (`"$@"`), keeps the
/// service's records in `$WORK/service-state`, stops the service. Only the CLI writes stdout.
const LAUNCHER: &str = r#"
ADMIN=$1 FROM=$2 WORK=$3
shift 3
source "$WORK/system_install.sh"
"$@"
rc=$?
cp -r /var/lib/agent-guards "$WORK/service-state" 2>/dev/null
kill $SERVICE
exit $rc
"#;

/// A launch of the maintainer-only tier the command text does not show (the first line cannot
/// decode it): only the exec gate sees the real argv.
const HIDDEN_LAUNCH: &str = "python3 -c \"import os,base64; os.execvp('claude', ['claude', '--model', base64.b64decode('ZmFibGU=').decode(), '-p', 'hi'])\"";

#[test]
fn a_system_installs_hooks_and_service_act_in_a_real_session() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        hook_replay::skip::cannot_run(
            "e2e_system_install",
            "needs root (install --system, a private /etc, /run, /var/lib and /opt)",
        );
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let launcher = work.path().join("launch.sh");
    std::fs::write(&launcher, LAUNCHER).unwrap();
    std::fs::write(
        work.path().join("system_install.sh"),
        include_str!("common/system_install.sh"),
    )
    .unwrap();
    let scenario = Scenario::new()
        .allowed_tools(&["Bash"])
        .turn(tool(
            "Bash",
            json!({"command": "git push origin main", "description": "push"}),
        ))
        .turn(tool(
            "Bash",
            json!({"command": HIDDEN_LAUNCH, "description": "review"}),
        ))
        .turn(text("Done."));
    let bin = scenario.home_dir().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let claude = bin.join("claude");
    std::fs::write(&claude, "#!/bin/sh\necho \"stand-in claude $*\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let project = scenario.project_dir();
    hook_replay::git::git(&project, &["init", "-q", "-b", "main"]);
    hook_replay::git::git(
        &project,
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/acme/widget.git",
        ],
    );
    let from = common::built_bins();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let scenario = scenario.cli_env("PATH", &path).launched_by(&[
        "unshare",
        "-m",
        "bash",
        launcher.to_str().unwrap(),
        env!("CARGO_BIN_EXE_agent-guards"),
        from.to_str().unwrap(),
        work.path().to_str().unwrap(),
    ]);
    let home_settings = scenario.home_dir().join(".claude/settings.json");
    let Some(out) = scenario.run() else { return };
    let read = |f: &str| std::fs::read_to_string(work.path().join(f)).unwrap_or_default();
    let shown = format!(
        "--- install\n{}\n--- service\n{}\n--- CLI stderr\n{}",
        read("install.log"),
        read("service.err"),
        out.stderr
    );
    // No registration of the user's: every hook came from managed settings.
    let user = std::fs::read_to_string(&home_settings).unwrap_or_default();
    assert!(!user.contains("gh-write-guard"), "{user}");
    let main = out.main_requests();
    let push = &main[1].tool_results()[0];
    assert!(
        push.is_error && push.text.contains("G4"),
        "gh-write-guard from managed settings denied the push: {}\n{shown}",
        push.text
    );
    let launch = &main[2].tool_results()[0];
    assert!(
        !launch.text.contains("stand-in claude --model fable"),
        "the hidden launch did not run: {}\n{shown}",
        launch.text
    );
    // The refusal is the service's supervisor's, on its trail.
    let trail = std::process::Command::new("grep")
        .args(["-rl", "M3.launch"])
        .arg(work.path().join("service-state/users/0/sessions"))
        .output()
        .unwrap();
    assert!(
        !trail.stdout.is_empty(),
        "the exec gate's refusal is in the service's records: {}\n{shown}",
        launch.text
    );
}
