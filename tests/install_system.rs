//! The system install (issue 40 item 1) in a temporary root: `--prefix` for the binaries and
//! `AGENT_GUARDS_SYSTEM_ETC` for `/etc`, so no test touches the real `/etc`. These tests run as
//! root (the install refuses otherwise); the last ones check, as uid 65534, that the installed
//! files cannot be written, renamed or removed by another user.

mod common;
use common::{assert_succeeded, built_bins};
use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ADMIN: &str = env!("CARGO_BIN_EXE_agent-guards");

/// A temporary root others can traverse (as `/` is), with `etc/` in it.
struct Root {
    dir: tempfile::TempDir,
}

impl Root {
    fn new() -> Root {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::create_dir(dir.path().join("etc")).unwrap();
        std::fs::set_permissions(
            dir.path().join("etc"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        Root { dir }
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
    fn prefix(&self) -> PathBuf {
        self.path().join("usr/local/lib/agent-guards")
    }
    fn managed(&self) -> PathBuf {
        self.path().join("etc/claude-code/managed-settings.json")
    }
    fn config(&self) -> PathBuf {
        self.path().join("etc/agent-guards/config.toml")
    }
    fn admin(&self, args: &[&str]) -> Output {
        let home = self.path().join("home");
        Command::new(ADMIN)
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("AGENT_GUARDS_SYSTEM_ETC", self.path().join("etc"))
            .output()
            .unwrap()
    }
    fn install(&self, extra: &[&str]) -> Output {
        self.install_into(&self.prefix(), extra)
    }
    /// `install --system` of the built binaries into `prefix`.
    fn install_into(&self, prefix: &Path, extra: &[&str]) -> Output {
        let from = built_bins();
        let mut args = vec![
            "install",
            "--system",
            "--from",
            from.to_str().unwrap(),
            "--prefix",
            prefix.to_str().unwrap(),
        ];
        args.extend(extra);
        self.admin(&args)
    }
    fn uninstall(&self) -> Output {
        let prefix = self.prefix();
        self.admin(&[
            "uninstall",
            "--system",
            "--prefix",
            prefix.to_str().unwrap(),
        ])
    }
}

/// Every path under `root` with its type, mode, owner and content (or link target).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let m = std::fs::symlink_metadata(&p).unwrap();
        let what = if m.is_dir() {
            for e in std::fs::read_dir(&p).unwrap() {
                stack.push(e.unwrap().path());
            }
            "dir".to_string()
        } else if m.file_type().is_symlink() {
            format!("link {:?}", std::fs::read_link(&p).unwrap())
        } else {
            let bytes = std::fs::read(&p).unwrap();
            format!("file {} {:x?}", bytes.len(), &sha(&bytes))
        };
        out.insert(
            p.clone(),
            format!("{what} mode {:o} {}:{}", m.mode(), m.uid(), m.gid()),
        );
    }
    out
}

fn sha(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
}

/// A managed settings file an administrator wrote: other keys, a comment key, an order no
/// serialiser would choose, tabs, a number beyond 64 bits.
const MANAGED_BEFORE: &str = "{\n\t\"// managed by\": \"IT, ticket 4711: do not reorder\",\n\t\"permissions\": {\"deny\": [\"Read(./.env)\"], \"allow\": []},\n\t\"model\": \"sonnet\",\n\t\"cleanupPeriodDays\": 123456789012345678901234567890,\n\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/opt/it/audit-stop\"}]}]\n\t},\n\t\"env\": {\"HTTPS_PROXY\": \"http://proxy:3128\"}\n}\n";

fn write_managed(root: &Root) {
    let dir = root.managed().parent().unwrap().to_path_buf();
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(root.managed(), MANAGED_BEFORE).unwrap();
    std::fs::set_permissions(root.managed(), std::fs::Permissions::from_mode(0o644)).unwrap();
}

/// A password database with ids 999 and 998 taken (the service gets 997), a group file without
/// a final newline, a shadow file of group 42 (`shadow`), mode 0640.
const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\nsvc:x:999:999::/:/usr/sbin/nologin\n";
const GROUP: &str = "root:x:0:\nshadow:x:42:\nother:x:998:";

fn write_password_database(root: &Root) {
    let etc = root.path().join("etc");
    std::fs::write(etc.join("passwd"), PASSWD).unwrap();
    std::fs::write(etc.join("group"), GROUP).unwrap();
    std::fs::write(
        etc.join("shadow"),
        "root:*:19000:0:99999:7:::\nsvc:!:19000::::::\n",
    )
    .unwrap();
    std::os::unix::fs::chown(etc.join("shadow"), Some(0), Some(42)).unwrap();
    std::fs::set_permissions(etc.join("shadow"), std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::write(etc.join("login.defs"), "# defaults\nSYS_UID_MAX 999\n").unwrap();
}

fn mode_of(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().mode() & 0o7777
}

/// `uninstall --system`, then every path under the root as it was before the install.
fn uninstall_gives_everything_back(root: &Root, before: &BTreeMap<PathBuf, String>) {
    let out = root.uninstall();
    assert_succeeded(&out);
    assert_eq!(&snapshot(root.path()), before, "{}", text(&out));
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn system_install_then_uninstall_gives_every_file_back_byte_for_byte() {
    let root = Root::new();
    write_managed(&root);
    std::fs::write(root.path().join("etc/hostname"), "box\n").unwrap();
    write_password_database(&root);
    let before = snapshot(root.path());

    let out = root.install(&["--allow-managed-hooks-only"]);
    assert_succeeded(&out);
    let said = text(&out);
    // The exec-gate service's account: one line appended to each database file, the highest
    // free system id, the files' owners and modes kept; no systemd here, so how to start it.
    assert!(
        said.contains("added the system account `agent-guards` (uid and gid 997"),
        "{said}"
    );
    let etc = root.path().join("etc");
    assert_eq!(
        std::fs::read_to_string(etc.join("passwd")).unwrap(),
        format!("{PASSWD}agent-guards:x:997:997:agent-guards exec-gate service:/nonexistent:/usr/sbin/nologin\n")
    );
    assert_eq!(
        std::fs::read_to_string(etc.join("group")).unwrap(),
        format!("{GROUP}\nagent-guards:x:997:\n"),
        "a file without a final newline gets one before our line"
    );
    let shadow = std::fs::metadata(etc.join("shadow")).unwrap();
    assert_eq!((shadow.gid(), shadow.mode() & 0o7777), (42, 0o640));
    assert!(std::fs::read_to_string(etc.join("shadow"))
        .unwrap()
        .ends_with("\nagent-guards:!:::::::\n"));
    assert!(said.contains("--exec-gate-service &"), "{said}");
    assert!(said.contains("allowManagedHooksOnly: set"), "{said}");
    assert!(
        said.contains("what it gives:") && said.contains("what it costs:"),
        "{said}"
    );
    // Root's, 0755, in folders only root writes.
    let bin = root.prefix().join("bin");
    for name in common::installed_binaries()
        .iter()
        .map(String::as_str)
        .chain(["agent-guards"])
    {
        let m = std::fs::metadata(bin.join(name)).unwrap();
        assert_eq!(
            (m.uid(), m.gid(), m.mode() & 0o7777),
            (0, 0, 0o755),
            "{name}"
        );
    }
    for d in [
        root.prefix(),
        bin.clone(),
        root.config().parent().unwrap().to_path_buf(),
    ] {
        let m = std::fs::metadata(&d).unwrap();
        assert_eq!((m.uid(), m.mode() & 0o7777), (0, 0o755), "{}", d.display());
    }
    let m = std::fs::metadata(root.config()).unwrap();
    assert_eq!((m.uid(), m.mode() & 0o7777), (0, 0o644));
    // The registrations are in the managed settings; every byte of the administrator's stays.
    let managed = std::fs::read_to_string(root.managed()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&managed).unwrap();
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        bin.join("gh-write-guard").to_str().unwrap()
    );
    assert_eq!(v["allowManagedHooksOnly"], true);
    assert!(
        managed.starts_with("{\n\t\"// managed by\": \"IT, ticket 4711: do not reorder\",\n\t\"permissions\": {\"deny\": [\"Read(./.env)\"], \"allow\": []},\n\t\"model\": \"sonnet\",\n\t\"cleanupPeriodDays\": 123456789012345678901234567890,"),
        "{managed}"
    );
    assert!(
        managed.contains("\"command\": \"/opt/it/audit-stop\""),
        "{managed}"
    );
    assert_eq!(
        std::fs::metadata(root.managed()).unwrap().mode() & 0o7777,
        0o644,
        "readable by the CLI running as the user"
    );

    // A per-user config that would loosen the system config is named by the report (exit 1).
    let user_config = root.path().join("home/.config/agent-guards/config.toml");
    std::fs::create_dir_all(user_config.parent().unwrap()).unwrap();
    std::fs::write(
        &user_config,
        "egress_mode = \"report\"\nprotected_branches = [\"rel\"]\n",
    )
    .unwrap();
    let out = root.admin(&["report"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("install kind: system\n"), "{said}");
    assert!(
        said.contains(&format!(
            "egress_mode: the system config {} sets it",
            root.config().display()
        )),
        "{said}"
    );
    std::fs::remove_dir_all(root.path().join("home")).unwrap();

    // A second install changes nothing.
    assert_succeeded(&root.install(&["--allow-managed-hooks-only"]));
    assert_eq!(std::fs::read_to_string(root.managed()).unwrap(), managed);

    // The report names the kind and what it guarantees.
    let prefix = root.prefix();
    let out = root.admin(&["report", "--system", "--prefix", prefix.to_str().unwrap()]);
    let said = text(&out);
    assert!(said.contains("install kind: system\n"), "{said}");
    assert!(
        said.contains("cannot rename, replace or remove them"),
        "{said}"
    );
    assert!(said.contains("allowManagedHooksOnly true"), "{said}");

    uninstall_gives_everything_back(&root, &before);
}

#[test]
fn a_system_install_into_an_empty_etc_leaves_nothing_behind() {
    let root = Root::new();
    let before = snapshot(root.path());
    let out = root.install(&[]);
    assert_succeeded(&out);
    let said = text(&out);
    assert!(said.contains("allowManagedHooksOnly: not set"), "{said}");
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.managed()).unwrap()).unwrap();
    assert!(v.get("allowManagedHooksOnly").is_none());
    assert_eq!(mode_of(&root.managed()), 0o644);
    uninstall_gives_everything_back(&root, &before);
}

#[test]
fn an_edited_system_config_is_left_and_named() {
    let root = Root::new();
    assert_succeeded(&root.install(&[]));
    std::fs::write(root.config(), "egress_mode = \"enforce\"\n").unwrap();
    let out = root.uninstall();
    assert_succeeded(&out);
    let said = text(&out);
    assert!(said.contains("it was edited since the install"), "{said}");
    assert!(root.config().exists());
    assert!(!root.managed().exists());
    assert!(!root.prefix().exists());
}

#[test]
fn a_prefix_another_user_could_rename_is_refused_and_nothing_is_installed() {
    let root = Root::new();
    let shared = root.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let owned = root.path().join("nobody");
    std::fs::create_dir(&owned).unwrap();
    std::os::unix::fs::chown(&owned, Some(65534), Some(65534)).unwrap();
    let before = snapshot(root.path());
    for (prefix, why) in [
        (shared.join("ag"), "writable by group or others"),
        (owned.join("ag"), "owned by uid 65534"),
    ] {
        let out = root.install_into(&prefix, &[]);
        assert!(!out.status.success());
        let said = text(&out);
        assert!(
            said.contains(why) && said.contains("nothing was installed"),
            "{said}"
        );
        assert_eq!(snapshot(root.path()), before);
    }
}

#[test]
fn a_fifo_managed_settings_file_is_refused_at_once() {
    let root = Root::new();
    let dir = root.managed().parent().unwrap().to_path_buf();
    std::fs::create_dir(&dir).unwrap();
    assert!(Command::new("mkfifo")
        .arg(root.managed())
        .status()
        .unwrap()
        .success());
    built_bins(); // built before the clock starts
    let start = std::time::Instant::now();
    let out = root.install(&[]);
    assert!(!out.status.success());
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    let said = text(&out);
    assert!(said.contains("left untouched"), "{said}");
    assert!(!root.prefix().exists(), "nothing installed");
}

/// Runs `script` with bash as uid/gid 65534 and no groups.
fn as_nobody(script: &str) -> Output {
    Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "bash",
            "-c",
            script,
        ])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap()
}

#[test]
fn uid_65534_cannot_write_rename_or_remove_the_installed_files() {
    let root = Root::new();
    write_managed(&root);
    assert_succeeded(&root.install(&[]));
    let bin = root.prefix().join("bin");
    let q = |p: &Path| format!("'{}'", p.display());
    let targets = [
        bin.join("gh-write-guard"),
        bin.join("agent-guards"),
        bin.clone(),
        root.prefix(),
        root.config(),
        root.config().parent().unwrap().to_path_buf(),
        root.managed(),
        root.managed().parent().unwrap().to_path_buf(),
    ];
    let snap = snapshot(root.path());
    // Each attempt must fail; the script prints the ones that did not.
    let mut script = String::from("ok=0\n");
    for t in &targets {
        let t = q(t);
        for attempt in [
            format!("mv {t} {t}.moved"),
            format!("rm -rf {t}"),
            format!("ln -sfn /tmp {t}"),
            format!("touch {t}/planted"),
            format!("sh -c 'echo x >> {t}'"),
            format!("chmod 777 {t}"),
        ] {
            script.push_str(&format!(
                "if {attempt} 2>/dev/null; then echo \"SUCCEEDED: {}\"; ok=1; fi\n",
                attempt.replace('"', "\\\"")
            ));
        }
    }
    // What the user needs does work: run the binaries, read the config and the settings.
    script.push_str(&format!(
        "{} --version >/dev/null || echo 'cannot run the admin binary'\n",
        q(&bin.join("agent-guards"))
    ));
    script.push_str(&format!(
        "cat {} >/dev/null || echo 'cannot read the config'\n",
        q(&root.config())
    ));
    script.push_str(&format!(
        "cat {} >/dev/null || echo 'cannot read the managed settings'\n",
        q(&root.managed())
    ));
    let out = as_nobody(&script);
    let said = text(&out);
    assert!(said.trim().is_empty(), "as uid 65534:\n{said}");
    assert_eq!(snapshot(root.path()), snap, "nothing changed");
    // And a system install needs root.
    let from = built_bins();
    let (_copy, admin) = runnable_by_nobody(Path::new(ADMIN));
    let out = as_nobody(&format!(
        "AGENT_GUARDS_SYSTEM_ETC={} {} install --system --from {} --prefix {}",
        q(&root.path().join("etc")),
        q(&admin),
        q(&from),
        q(&root.path().join("p2"))
    ));
    assert!(!out.status.success());
    assert!(text(&out).contains("needs root"), "{}", text(&out));
    assert_succeeded(&root.uninstall());
}

#[test]
fn the_report_of_a_per_user_install_says_what_it_does_not_stop() {
    let root = Root::new();
    let home = root.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let from = built_bins();
    assert_succeeded(&root.admin(&["install", "--from", from.to_str().unwrap()]));
    let said = text(&root.admin(&["report"]));
    assert!(said.contains("install kind: per-user\n"), "{said}");
    assert!(
        said.contains("an agent command can rename or replace the settings file"),
        "{said}"
    );
    assert!(
        said.contains("a system install (sudo ./install.sh --system) would make"),
        "{said}"
    );
}

#[test]
fn install_sh_system_installs_as_root_refuses_others_and_uninstalls_to_the_byte() {
    let root = Root::new();
    write_managed(&root);
    let before = snapshot(root.path());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("install.sh");
    let from = built_bins();
    let prefix = root.prefix();
    let run = |args: &[&str]| {
        Command::new(&script)
            .args(args)
            .env("AGENT_GUARDS_SYSTEM_ETC", root.path().join("etc"))
            .output()
            .unwrap()
    };
    let out = run(&[
        "--system",
        "--from",
        from.to_str().unwrap(),
        "--prefix",
        prefix.to_str().unwrap(),
    ]);
    assert_succeeded(&out);
    assert!(prefix.join("bin/agent-guards").exists());
    let (_copy, script_copy) = runnable_by_nobody(&script);
    let out = as_nobody(&format!(
        "{} --system --from {}",
        script_copy.display(),
        from.display()
    ));
    assert!(!out.status.success());
    assert!(text(&out).contains("run it with sudo"), "{}", text(&out));
    // uninstall from the clone uses the installed admin binary and builds nothing.
    let out = run(&[
        "uninstall",
        "--system",
        "--prefix",
        prefix.to_str().unwrap(),
    ]);
    assert_succeeded(&out);
    assert_eq!(snapshot(root.path()), before, "{}", text(&out));
}

/// Runs gh-write-guard on `git commit -am wip` in a primary checkout, with `user.toml` as the
/// per-user config and, when given, `system` as `/etc/agent-guards/config.toml` — in a private
/// mount namespace over a copy of `/etc`, so the real `/etc` is never touched.
fn primary_checkout_answer(dir: &Path, system: Option<&str>) -> String {
    let repo = dir.join("repo");
    if !repo.exists() {
        std::fs::create_dir(&repo).unwrap();
        assert!(Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()
            .unwrap()
            .success());
    }
    let user = dir.join("user.toml");
    std::fs::write(&user, "primary_checkout = \"allow\"\n").unwrap();
    let payload = serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
        "session_id": "system-config-binds", "cwd": repo,
        "tool_input": {"command": "git commit -am wip"}});
    std::fs::write(dir.join("payload.json"), payload.to_string()).unwrap();
    let guard = e2e_harness::bin("gh-write-guard");
    let etc_setup = match system {
        Some(text) => {
            std::fs::write(dir.join("system.toml"), text).unwrap();
            format!(
                "rm -rf {d}/etc && cp -a /etc {d}/etc && mkdir -p {d}/etc/agent-guards && \
                 cp {d}/system.toml {d}/etc/agent-guards/config.toml && mount --bind {d}/etc /etc && ",
                d = dir.display()
            )
        }
        None => String::new(),
    };
    let script = format!(
        "set -e; {etc_setup}exec {} < {}/payload.json",
        guard.display(),
        dir.display()
    );
    let out = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .env("AGENT_GUARDS_CONFIG", &user)
        .env("XDG_STATE_HOME", dir.join("state"))
        .env_remove("GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT")
        .output()
        .unwrap();
    text(&out)
}

#[test]
fn a_system_config_binds_the_hooks_over_a_looser_user_config() {
    assert!(
        !Path::new("/etc/agent-guards").exists(),
        "this test needs a host without a system install"
    );
    let dir = tempfile::tempdir().unwrap();
    // The user's file alone: the primary checkout is allowed.
    let alone = primary_checkout_answer(dir.path(), None);
    assert_eq!(alone.trim(), "{}", "allowed, nothing to say");
    // The system file sets deny: the user's "allow" does not loosen it, and the hook says so.
    let bound = primary_checkout_answer(
        dir.path(),
        Some(&guard_config::layered::system_default_config()),
    );
    assert!(bound.contains("\"permissionDecision\":\"deny\""), "{bound}");
    assert!(bound.contains("G6.primary-checkout"), "{bound}");
    assert!(
        bound.contains("primary_checkout: the system config /etc/agent-guards/config.toml sets it"),
        "{bound}"
    );
    assert!(
        !Path::new("/etc/agent-guards").exists(),
        "the real /etc was not touched"
    );
}

/// A copy of `file` that uid 65534 can run: a user's clone under `mktemp -d` is 0700, so
/// nothing in it (the built binaries, `install.sh`) is reachable by another user.
fn runnable_by_nobody(file: &Path) -> (tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let copy = dir.path().join(file.file_name().unwrap());
    std::fs::copy(file, &copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    (dir, copy)
}
