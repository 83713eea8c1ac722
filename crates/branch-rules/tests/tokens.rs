//! Token lookup with real processes: no `gh` on PATH, a fake `gh` script that prints a token
//! (and records its arguments), one that fails, and one that hangs (killed at the deadline,
//! with its child process group).

use branch_rules::token::{find_token, GhOutcome, TokenSearch, TokenSource};
use branch_rules::HostKind;
use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A PATH directory holding a `gh` with this shell body.
fn fake_gh(dir: &Path, body: &str) {
    let path = dir.join("gh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write gh");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A temp PATH directory whose `gh` runs `body` with `FILE` replaced by the quoted path of
/// `file` in that directory (where the fake leaves its evidence); returns both.
fn fake_gh_leaving(file: &str, body: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tmp");
    let evidence = dir.path().join(file);
    fake_gh(
        dir.path(),
        &body.replace("FILE", &format!("'{}'", evidence.display())),
    );
    (dir, evidence)
}

fn env_with_path(dir: &Path, extra: &[(&str, &str)]) -> HashMap<String, String> {
    let mut env: HashMap<String, String> = extra
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    // The fake gh's directory first, then the system's for `sleep` and friends.
    env.insert("PATH".into(), format!("{}:/usr/bin:/bin", dir.display()));
    env
}

const DEADLINE: Duration = Duration::from_millis(1500);

/// Looks up a github.com token with a fake gh in `dir` and a 300 ms deadline; also returns how
/// long it took.
fn lookup_with_short_deadline(dir: &Path) -> (TokenSearch, Duration) {
    let env = env_with_path(dir, &[]);
    let started = Instant::now();
    let search = find_token(
        &env,
        "github.com",
        HostKind::GitHubCom,
        Duration::from_millis(300),
    );
    (search, started.elapsed())
}

#[test]
fn no_gh_on_path_means_no_token() {
    let empty = tempfile::tempdir().expect("tmp");
    let env = HashMap::from([("PATH".to_string(), empty.path().display().to_string())]);
    let search = find_token(&env, "github.com", HostKind::GitHubCom, DEADLINE);
    assert_eq!(search.token, None);
    assert_eq!(search.gh, Some(GhOutcome::Absent));
    // No PATH at all behaves the same.
    let search = find_token(&HashMap::new(), "github.com", HostKind::GitHubCom, DEADLINE);
    assert_eq!(search.gh, Some(GhOutcome::Absent));
    // A non-executable file named gh is not a program.
    std::fs::write(empty.path().join("gh"), "#!/bin/sh\necho x\n").expect("write");
    let search = find_token(&env, "github.com", HostKind::GitHubCom, DEADLINE);
    assert_eq!(search.gh, Some(GhOutcome::Absent));
}

#[test]
fn gh_auth_token_is_asked_for_the_host() {
    let (dir, args) = fake_gh_leaving("args", "echo \"$@\" > FILE\necho gho_fromcli123");
    let env = env_with_path(dir.path(), &[]);
    let search = find_token(&env, "GitHub.com", HostKind::GitHubCom, DEADLINE);
    let token = search.token.expect("a token");
    assert_eq!(token.secret(), "gho_fromcli123");
    assert_eq!(token.source, TokenSource::GhCli);
    assert_eq!(search.gh, Some(GhOutcome::Token));
    assert_eq!(
        std::fs::read_to_string(&args).expect("args").trim(),
        "auth token --hostname github.com"
    );

    let search = find_token(&env, "ghe.example.com", HostKind::Server, DEADLINE);
    assert!(search.token.is_some());
    assert_eq!(
        std::fs::read_to_string(&args).expect("args").trim(),
        "auth token --hostname ghe.example.com"
    );
}

#[test]
fn environment_tokens_win_and_gh_is_not_run() {
    let (dir, marker) = fake_gh_leaving("ran", "touch FILE\necho gho_cli");
    let env = env_with_path(
        dir.path(),
        &[
            ("GITHUB_TOKEN", "ghp_env"),
            ("GH_ENTERPRISE_TOKEN", "ghe_env"),
        ],
    );
    let search = find_token(&env, "github.com", HostKind::GitHubCom, DEADLINE);
    assert_eq!(search.token.expect("token").secret(), "ghp_env");
    let search = find_token(&env, "ghe.example.com", HostKind::Server, DEADLINE);
    assert_eq!(search.token.expect("token").secret(), "ghe_env");
    assert!(
        !marker.exists(),
        "gh must not run when the environment answers"
    );
    // A tenancy host takes github.com's variables, not the enterprise ones.
    let search = find_token(&env, "acme.ghe.com", HostKind::Tenancy, DEADLINE);
    assert_eq!(search.token.expect("token").secret(), "ghp_env");
}

#[test]
fn gh_that_fails_or_prints_garbage_gives_no_token() {
    let dir = tempfile::tempdir().expect("tmp");
    fake_gh(dir.path(), "echo 'not logged in' >&2\nexit 1");
    let env = env_with_path(dir.path(), &[]);
    let search = find_token(&env, "github.com", HostKind::GitHubCom, DEADLINE);
    assert_eq!(search.token, None);
    assert_eq!(search.gh, Some(GhOutcome::NoToken { status: Some(1) }));

    fake_gh(dir.path(), "printf 'two words\\n'");
    let search = find_token(&env, "github.com", HostKind::GitHubCom, DEADLINE);
    assert_eq!(search.token, None);
}

#[test]
fn gh_whose_file_is_still_open_for_writing_is_started_once_it_is_closed() {
    // The kernel refuses to run a file open for writing (ETXTBSY): a gh being installed, or
    // the fake gh written by a test while another thread forks. Held for 100 ms here.
    let dir = tempfile::tempdir().expect("tmp");
    fake_gh(dir.path(), "echo 'not logged in' >&2\nexit 1");
    let writer = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("gh"))
        .expect("open gh for writing");
    let env = env_with_path(dir.path(), &[]);
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        drop(writer);
    });
    let search = find_token(&env, "github.com", HostKind::GitHubCom, DEADLINE);
    release.join().unwrap();
    assert_eq!(search.gh, Some(GhOutcome::NoToken { status: Some(1) }));
}

#[test]
fn gh_that_hangs_is_killed_at_the_deadline_with_its_children() {
    // gh starts a long sleep, records its pid, and waits for it.
    let (dir, pidfile) = fake_gh_leaving("child.pid", "sleep 30 &\necho $! > FILE\nwait");
    let (search, took) = lookup_with_short_deadline(dir.path());
    assert_eq!(search.token, None);
    assert_eq!(search.gh, Some(GhOutcome::TimedOut));
    // Generous bound: the point is that we did not wait for the 30 s sleep.
    assert!(took < Duration::from_secs(10), "took {took:?}");

    // The sleeping grandchild was killed with gh's process group.
    let pid = std::fs::read_to_string(&pidfile).expect("pid file");
    let proc_dir = format!("/proc/{}", pid.trim());
    let gone = (0..100).any(|_| {
        let dead = match std::fs::read_to_string(format!("{proc_dir}/stat")) {
            Err(_) => true,
            // A zombie awaiting its reaper is dead too.
            Ok(stat) => stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z')),
        };
        if !dead {
            std::thread::sleep(Duration::from_millis(20));
        }
        dead
    });
    assert!(gone, "the gh child {pid} is still running");
}

#[test]
fn gh_that_exits_but_leaves_stdout_open_is_bounded_too() {
    let dir = tempfile::tempdir().expect("tmp");
    // Prints a token, then leaves a background process holding stdout open.
    fake_gh(dir.path(), "echo gho_x\nsleep 30 &\nexit 0");
    let (search, took) = lookup_with_short_deadline(dir.path());
    assert!(took < Duration::from_secs(10), "took {took:?}");
    // The token is the first line: read as soon as gh has exited, not at end of file.
    assert_eq!(
        search.token.map(|t| t.secret().to_string()),
        Some("gho_x".into())
    );
}
