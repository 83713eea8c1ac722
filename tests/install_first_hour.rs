//! A new user's first hour (issue 20), against temp HOMEs: a hand-written settings file comes back
//! byte for byte through a symlink with its mode; the installed admin binary reports config
//! problems, explains and uninstalls from outside the clone; `install.sh` answers help, report and
//! uninstall without building.

mod common;
use common::built_bins;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ADMIN: &str = env!("CARGO_BIN_EXE_agent-guards");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/install.sh");

fn run(program: &Path, args: &[&str], home: &Path, cwd: &Path, path: &str) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .output()
        .unwrap()
}

fn system_path() -> String {
    std::env::var("PATH").unwrap_or_default()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The output of a run that exited 1 (`report` with problems in the config says them, and fails).
fn with_problems(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(1),
        "report with config problems exits 1\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Creates `dir/rel` (and its parents); returns it.
fn made(dir: &Path, rel: &str) -> PathBuf {
    let p = dir.join(rel);
    std::fs::create_dir_all(&p).unwrap();
    p
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn backups(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("agent-guards-backup"))
        .collect()
}

/// Installs the test build into `home`; returns the installer's output.
fn install_from_build(home: &Path) -> String {
    let from = built_bins();
    ok(&run(
        Path::new(ADMIN),
        &["install", "--from", from.to_str().unwrap()],
        home,
        home,
        &system_path(),
    ))
}

fn installed_admin(home: &Path) -> PathBuf {
    home.join(".local/share/agent-guards/bin/agent-guards")
}

/// Written by hand: keys out of order, four-space and one-line parts, a 20-digit integer, a float
/// with a trailing zero, an escape, someone else's hook and env.
const HAND_WRITTEN: &str = r#"{
    "zz_last_alphabetically": true,
    "apiKeyHelper": "/opt/keys/get",
    "big": 12345678901234567890,
    "ratio": 1.50,
    "hooks": {
        "Stop": [ {"hooks": [{"type": "command", "command": "/opt/other/stop-hook"}]} ]
    },
    "env": {"FOO": "b\u00e4r"},
    "aa_first_alphabetically": [1,2,3]
}
"#;

#[test]
fn install_then_uninstall_gives_a_hand_written_file_back_through_a_symlink_with_its_mode() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let dotfiles = made(h, "dotfiles");
    made(h, ".claude");
    let real = dotfiles.join("claude-settings.json");
    std::fs::write(&real, HAND_WRITTEN).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = h.join(".claude/settings.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();

    let said = install_from_build(h);
    assert!(
        said.contains(
            "self-test passed: each of the 6 hook binaries replayed its embedded fixtures"
        ),
        "the install says its self-tests ran:\n{said}"
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "still a link"
    );
    let installed = std::fs::read_to_string(&real).unwrap();
    assert!(installed.contains("egress-audit"), "the target was edited");
    assert!(installed.starts_with("{\n    \"zz_last_alphabetically\": true,\n    \"apiKeyHelper\""));
    assert!(installed.contains("\"big\": 12345678901234567890,"));
    assert!(installed.contains("\"ratio\": 1.50,"));
    assert_eq!(mode(&real), 0o600);
    let b = backups(&h.join(".claude"));
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(mode(&b[0]), 0o600, "the backup keeps the original's mode");
    assert_eq!(std::fs::read_to_string(&b[0]).unwrap(), HAND_WRITTEN);
    assert!(
        backups(&dotfiles).is_empty(),
        "no backup in the dotfile repository"
    );

    // A second install changes nothing.
    install_from_build(h);
    assert_eq!(std::fs::read_to_string(&real).unwrap(), installed);

    let out = ok(&run(
        &installed_admin(h),
        &["uninstall"],
        h,
        h,
        &system_path(),
    ));
    assert!(
        out.contains("removed the hooks of agent-guards from"),
        "{out}"
    );
    // Each backup by name (the install's and the uninstall's own), the newest kept, the older
    // ones with the command that removes them; and the PATH line the install asked for.
    let made = backups(&h.join(".claude"));
    assert_eq!(made.len(), 2, "{made:?}");
    assert!(out.contains("(2): the newest is"), "{out}");
    assert!(
        out.contains("the 1 older backup(s), to remove them: rm "),
        "{out}"
    );
    assert!(
        out.contains("the PATH line, if you added it to ~/.bashrc or ~/.zshrc: export PATH="),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        HAND_WRITTEN,
        "byte for byte"
    );
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(mode(&real), 0o600);
    for b in backups(&h.join(".claude")) {
        assert_eq!(mode(&b), 0o600, "{}", b.display());
    }
}

#[test]
fn uninstall_says_what_it_removed_and_what_it_left_and_how_to_remove_it() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    install_from_build(h);
    std::fs::create_dir_all(h.join(".local/state/agent-guards/sessions")).unwrap();
    let out = ok(&run(
        &installed_admin(h),
        &["uninstall"],
        h,
        h,
        &system_path(),
    ));
    let bin = h.join(".local/share/agent-guards");
    for want in [
        "removed the hooks of agent-guards from".to_string(),
        "left in place".to_string(),
        format!("binaries: rm -r {}", bin.display()),
        format!(
            "config:   rm {}",
            h.join(".config/agent-guards/config.toml").display()
        ),
        format!("rm -r {}", h.join(".local/state/agent-guards").display()),
    ] {
        assert!(out.contains(&want), "{want:?} not in\n{out}");
    }
    assert!(installed_admin(h).exists(), "binaries stay");
}

#[test]
fn the_installed_admin_binary_reports_every_config_problem_from_outside_the_clone() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let out = install_from_build(h);
    assert!(
        out.contains("config.toml: ok"),
        "the default config has no problem:\n{out}"
    );
    assert!(out.contains("put its folder on PATH"), "{out}");
    let config = h.join(".config/agent-guards/config.toml");
    let default = std::fs::read_to_string(&config).unwrap();
    assert!(
        default.contains("# primary_checkout = \"allow\""),
        "{default}"
    );

    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(
        &config,
        "egres_mode = \"report\"\nprimary_checkout = \"alow\"\ntasks_max = 3\n",
    )
    .unwrap();
    let report = with_problems(&run(
        &installed_admin(h),
        &["report"],
        h,
        elsewhere.path(),
        "/usr/bin:/bin",
    ));
    for want in [
        "3 problem(s)",
        "line 1: unknown key `egres_mode` (ignored); did you mean `egress_mode`?",
        "line 2: `primary_checkout` = \"alow\": not a recognised word; allowed: \"deny\", \"allow\"",
        "line 3: `tasks_max` = 3: outside 64..2^31",
    ] {
        assert!(report.contains(want), "{want:?} not in\n{report}");
    }
    std::fs::write(&config, "mode = \"observe\"\nmemory_max = [\n").unwrap();
    let report = with_problems(&run(
        &installed_admin(h),
        &["report"],
        h,
        elsewhere.path(),
        "/usr/bin:/bin",
    ));
    assert!(report.contains("line 2: invalid TOML"), "{report}");
    let json: serde_json::Value = serde_json::from_str(&with_problems(&run(
        &installed_admin(h),
        &["report", "--json"],
        h,
        elsewhere.path(),
        "/usr/bin:/bin",
    )))
    .unwrap();
    assert_eq!(
        json["config"]["problems"].as_array().unwrap().len(),
        1,
        "{json}"
    );
}

#[test]
fn the_installed_admin_binary_explains_a_command() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let from = built_bins();
    install_from_build(h);
    let elsewhere = tempfile::tempdir().unwrap();
    let out = run(
        &installed_admin(h),
        &["explain", "gh pr merge 5 --admin"],
        h,
        elsewhere.path(),
        &system_path(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("gh pr merge"), "{text}");
    let direct = run(
        &from.join("gh-write-guard"),
        &["explain", "gh pr merge 5 --admin"],
        h,
        elsewhere.path(),
        &system_path(),
    );
    assert_eq!(out.status.code(), direct.status.code());
    assert_eq!(
        out.stdout, direct.stdout,
        "the same explanation as gh-write-guard's own"
    );
}

/// A PATH whose `cargo` records that it ran and fails: proof that nothing was built.
fn path_with_tripwire_cargo(dir: &Path) -> (String, PathBuf) {
    let bin = dir.join("tripwire-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let marker = dir.join("cargo-ran");
    let cargo = bin.join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexit 99\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    (format!("{}:{}", bin.display(), system_path()), marker)
}

/// A copy of `install.sh` alone in a folder (no target/): only an installed admin can answer.
fn lone_script(dir: &Path) -> PathBuf {
    let script = dir.join("clone/install.sh");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::copy(SCRIPT, &script).unwrap();
    script
}

#[test]
fn install_sh_help_report_and_uninstall_do_not_build() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (path, marker) = path_with_tripwire_cargo(h);
    let script = lone_script(h);
    let bash = |args: &[&str]| {
        let mut all = vec![script.to_str().unwrap()];
        all.extend_from_slice(args);
        run(Path::new("/bin/bash"), &all, h, h, &path)
    };
    for help in ["--help", "-h"] {
        let out = ok(&bash(&[help]));
        assert!(out.contains("usage: ./install.sh"), "{out}");
        assert!(out.contains("Prerequisites: rustup"), "{out}");
    }
    assert!(!marker.exists(), "help ran cargo");
    // Installed (from the test build), report and uninstall use the installed admin binary.
    install_from_build(h);
    let out = ok(&bash(&["report"]));
    assert!(out.contains("every hook registered"), "{out}");
    let out = ok(&bash(&["--uninstall"]));
    assert!(out.contains("removed the hooks of agent-guards"), "{out}");
    assert!(
        !marker.exists(),
        "report or uninstall ran cargo: {:?}",
        std::fs::read_to_string(&marker)
    );
    // Nothing installed and nothing built: install does build, with cargo's progress shown.
    let fresh = tempfile::tempdir().unwrap();
    let (path, marker) = path_with_tripwire_cargo(fresh.path());
    let script = lone_script(fresh.path());
    let out = run(
        Path::new("/bin/bash"),
        &[script.to_str().unwrap()],
        fresh.path(),
        fresh.path(),
        &path,
    );
    assert_eq!(out.status.code(), Some(99));
    let args = std::fs::read_to_string(&marker).unwrap();
    assert!(
        args.contains("build --release --locked") && !args.contains("--quiet"),
        "{args}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("takes several minutes"));
}

/// Relative paths in the options are relative to where the user runs the script, not the clone.
#[test]
fn install_sh_reads_relative_paths_from_the_users_folder() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let work = made(h, "work");
    let from = built_bins();
    let out = run(
        Path::new("/bin/bash"),
        &[
            SCRIPT,
            "--settings",
            "my-settings.json",
            "--prefix",
            "tools",
            "--from",
            from.to_str().unwrap(),
        ],
        h,
        &work,
        &system_path(),
    );
    ok(&out);
    assert!(work.join("my-settings.json").exists());
    assert!(work.join("tools/bin/agent-guards").exists());
    let clone = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(!clone.join("my-settings.json").exists() && !clone.join("tools").exists());
}
