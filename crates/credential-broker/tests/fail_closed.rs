//! C11.5 from the requirement: no GitHub answer, a malformed request, a body over its bound,
//! rules that cannot be read: the write is refused with a reason, promptly; never a hang.
//! And the shapes that must keep working: a large push (chunked by git) to a feature branch.

mod support;

use std::io::{Read, Write};
use std::time::{Duration, Instant};
use support::{call, received, Scene};

#[test]
fn a_github_that_does_not_answer_refuses_the_write_within_the_timeout() {
    // An "upstream" that accepts and never says a word.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap();
    std::thread::spawn(move || {
        let held: Vec<_> = silent.incoming().take(4).collect();
        std::thread::sleep(Duration::from_secs(30));
        drop(held);
    });
    let s = Scene::with(|c| {
        c.upstream_addrs.insert("api.github.com".into(), addr);
        c.timeouts.upstream_io = Duration::from_secs(1);
    });
    let auth = format!("token {}", s.broker.placeholder);
    let started = Instant::now();
    let url = "https://api.github.com/repos/maintainer/app/issues/1/comments";
    let text = call(&s, "POST", Some(&auth), r#"{"body":"x"}"#, url);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        text.starts_with("HTTP/1.1 504") && text.contains("agent-guards: C11.upstream"),
        "{text}"
    );
}

#[test]
fn a_body_over_its_bound_and_a_malformed_request_are_refused() {
    let s = Scene::with(|c| c.limits.max_body = 1024);
    let auth = format!("token {}", s.broker.placeholder);
    let url = "https://api.github.com/repos/maintainer/app/issues/1/comments";
    let big = format!(r#"{{"body":"{}"}}"#, "x".repeat(4096));
    let text = call(&s, "POST", Some(&auth), &big, url);
    assert!(
        text.starts_with("HTTP/1.1 413") && text.contains("C11.past-bound"),
        "{text}"
    );
    assert!(!s.github.seen().iter().any(|r| r.method == "POST"));
    // Content-Length beside Transfer-Encoding (a smuggling shape), by hand through TLS.
    let py = r#"
import os, socket, ssl
p = os.environ["HTTPS_PROXY"].rsplit(":", 1)
s = socket.create_connection((p[0].split("//")[1], int(p[1])))
s.sendall(b"CONNECT api.github.com:443 HTTP/1.1\r\n\r\n")
s.recv(4096)
t = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"]).wrap_socket(s, server_hostname="api.github.com")
t.sendall(b"POST /repos/maintainer/app/issues/1/comments HTTP/1.1\r\nHost: api.github.com\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
print(t.recv(65536).decode())
"#;
    let text = support::python(&s, py, &[]);
    assert!(
        text.contains("HTTP/1.1 400") && text.contains("C11.malformed"),
        "{text}"
    );
    // A request for another host than the one CONNECTed to, an absolute URL, HTTP/1.0.
    for (host, line) in [
        (
            "api.github.com",
            "POST /maintainer/app.git/git-receive-pack HTTP/1.1\\r\\nHost: github.com",
        ),
        (
            "api.github.com",
            "GET https://github.com/x HTTP/1.1\\r\\nHost: api.github.com",
        ),
        (
            "api.github.com",
            "GET /repos/o/r HTTP/1.0\\r\\nHost: api.github.com",
        ),
    ] {
        let py = py.replace("api.github.com:443", &format!("{host}:443")).replace(
            "POST /repos/maintainer/app/issues/1/comments HTTP/1.1\\r\\nHost: api.github.com\\r\\nContent-Length: 4\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\n",
            &format!("{line}\\r\\nContent-Length: 0\\r\\n\\r\\n"),
        );
        let text = support::python(&s, &py, &[]);
        assert!(
            text.contains("HTTP/1.1 400") && text.contains("C11.malformed"),
            "{line}: {text}"
        );
    }
    assert!(s.github.seen().is_empty(), "{:?}", s.github.seen());
}

#[test]
fn rules_that_cannot_be_read_fail_closed_for_main_and_not_for_a_feature_branch() {
    let s = Scene::with(|c| c.rules_api = Some("http://127.0.0.1:9".into()));
    let out = s.push("maintainer", "HEAD:main", &[]);
    assert!(
        received(&out).contains("(agent-guards: G4.fail-closed"),
        "{}",
        received(&out)
    );
    let out = s.push("maintainer", "HEAD:refs/heads/feature", &[]);
    assert!(out.status.success(), "{}", received(&out));
}

#[test]
fn a_large_push_sent_chunked_lands() {
    let s = Scene::new();
    let work = s.work("maintainer");
    let mut data = vec![0u8; 3 << 20];
    std::fs::File::open("/dev/urandom")
        .unwrap()
        .read_exact(&mut data)
        .unwrap();
    std::fs::File::create(work.join("big.bin"))
        .unwrap()
        .write_all(&data)
        .unwrap();
    let ident: Vec<(String, String)> = [
        ("GIT_AUTHOR_NAME", "t"),
        ("GIT_AUTHOR_EMAIL", "t@x"),
        ("GIT_COMMITTER_NAME", "t"),
        ("GIT_COMMITTER_EMAIL", "t@x"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert!(support::git_in(&work, &["add", "big.bin"], &ident)
        .status
        .success());
    assert!(
        support::git_in(&work, &["commit", "-q", "-m", "big"], &ident)
            .status
            .success()
    );
    let out = s.push("maintainer", "HEAD:refs/heads/feature", &[]);
    assert!(out.status.success(), "{}", received(&out));
    assert!(s.rev("maintainer", "refs/heads/feature").is_some());
    // Over git's `http.postBuffer` (1 MiB) git sends a probe, then the pack chunked: both
    // reached GitHub with the real token.
    let posts = s.github.auths("POST");
    assert_eq!(posts, ["real", "real"]);
}

#[test]
fn a_graphql_mutation_on_a_literal_node_id_is_refused_and_a_query_passes() {
    let s = Scene::new();
    let auth = format!("bearer {}", s.broker.placeholder);
    let m = serde_json::json!({"query": "mutation { resolveReviewThread(input:{threadId:\"PRRT_kwDOabc123def\"}) { clientMutationId } }"}).to_string();
    let text = call(
        &s,
        "POST",
        Some(&auth),
        &m,
        "https://api.github.com/graphql",
    );
    assert!(
        text.starts_with("HTTP/1.1 403") && text.contains("agent-guards: G2.node-id"),
        "{text}"
    );
    let q = serde_json::json!({"query": "query { viewer { login } }"}).to_string();
    let text = call(
        &s,
        "POST",
        Some(&auth),
        &q,
        "https://api.github.com/graphql",
    );
    assert!(text.starts_with("HTTP/1.1 200"), "forwarded: {text}");
}

#[test]
fn stopping_the_broker_ends_open_connections_at_once() {
    let s = Scene::new();
    let mut idle = std::net::TcpStream::connect(("127.0.0.1", s.broker.port)).unwrap();
    idle.write_all(b"CONNECT github.com:443 HTTP/1.1\r\n\r\n")
        .unwrap();
    let mut head = [0u8; 39];
    idle.read_exact(&mut head).unwrap();
    let Scene { broker, .. } = s;
    let started = Instant::now();
    broker.stop();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    idle.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut rest = Vec::new();
    assert!(
        idle.read_to_end(&mut rest).is_ok(),
        "the connection was closed, not left hanging"
    );
}
