//! Where real git sends a request for a URL with dot segments: a listener on 127.0.0.1 reads
//! the request line of `git ls-remote http://127.0.0.1:<port>/<path>`, and `git_url::parse_url`
//! must name the same path (curl resolves `.` and `..` before the request, so
//! `https://github.com/acme/../stranger/x` is `stranger/x`; an escaped `%2e%2e` is sent as
//! written and read as `..` all the same: a server may resolve it).

use command_effects::git_url::{parse_url, UrlLocation};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;

/// The path of the first request git makes for `path` (before its `/info/refs`).
fn requested(path: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}{path}");
    let mut git = std::process::Command::new("git")
        .args(["ls-remote", &url])
        .env("GIT_TERMINAL_PROMPT", "0")
        // Straight to the listener, whatever proxy the environment names.
        .env("NO_PROXY", "*")
        .env("no_proxy", "*")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("git runs");
    // Bounded: a git that never connects fails the test instead of hanging it.
    listener.set_nonblocking(true).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let stream = loop {
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(_) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5))
            }
            Err(e) => panic!("git did not connect for {path}: {e}"),
        }
    };
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line).unwrap();
    drop(stream);
    let _ = git.kill();
    let _ = git.wait();
    // `GET /stranger/x/info/refs?service=git-upload-pack HTTP/1.1`
    let target = line.split_whitespace().nth(1).unwrap_or_default();
    target
        .split("/info/refs")
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_url_names_the_path_git_requests() {
    for (path, sent) in [
        ("/acme/../stranger/x", "/stranger/x"),
        ("/stranger/./x", "/stranger/x"),
        ("/acme/widget/../../stranger/x", "/stranger/x"),
        ("/acme/widget", "/acme/widget"),
    ] {
        assert_eq!(requested(path), sent, "real git: {path}");
        let read = match parse_url(&format!("https://github.com{path}")) {
            UrlLocation::Host { path, .. } => path,
            UrlLocation::Local => String::new(),
        };
        assert_eq!(read, sent, "parse_url: {path}");
    }
    // Sent escaped; read resolved (a server that decodes first would go there).
    assert_eq!(
        requested("/acme/%2e%2e/stranger/x"),
        "/acme/%2e%2e/stranger/x"
    );
    let read = parse_url("https://github.com/acme/%2e%2e/stranger/x");
    assert!(matches!(read, UrlLocation::Host { path, .. } if path == "/stranger/x"));
}
