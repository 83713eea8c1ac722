//! The broker end to end with real parts (issue 38's checks, the slice built here): the real
//! `git`, `curl` and a push written by hand in Python, through the broker as their HTTPS
//! proxy, to a loopback GitHub that serves real bare repositories and checks the real token.
//! Written from the requirement first: each refused write beside a look-alike that must land.

mod support;

use std::io::{Read, Write};
use support::{received, Scene, REAL};

fn no_real_token(what: &str, text: &str) {
    assert!(
        !text.contains(REAL),
        "the real token reached the client ({what}): {text}"
    );
}

#[test]
fn a_push_to_a_feature_branch_lands_with_the_real_token() {
    let s = Scene::new();
    let out = s.push("maintainer", "HEAD:refs/heads/feature", &[]);
    no_real_token("git push", &received(&out));
    assert!(out.status.success(), "{}", received(&out));
    let head = support::git_in(&s.work("maintainer"), &["rev-parse", "HEAD"], &[]);
    assert_eq!(
        s.rev("maintainer", "refs/heads/feature").as_deref(),
        Some(String::from_utf8_lossy(&head.stdout).trim())
    );
    let pushes: Vec<_> = s
        .github
        .seen()
        .into_iter()
        .filter(|r| r.path.ends_with("/git-receive-pack"))
        .collect();
    assert_eq!(pushes.len(), 1, "{pushes:?}");
    assert_eq!(
        pushes[0].auth, "real",
        "the broker swapped the placeholder for the token"
    );
    let d = s.sink.decisions_once(
        |d| d.iter().any(|d| d.path.ends_with("/git-receive-pack")),
        std::time::Duration::from_secs(5),
    );
    let push = d
        .iter()
        .find(|d| d.path.ends_with("/git-receive-pack"))
        .expect("a decision");
    assert_eq!(push.ref_updates, ["refs/heads/feature create"]);
    assert_eq!(push.outcome, credential_broker::audit::Outcome::Allowed);
    // The record names the program that sent it (git's HTTPS helper).
    let exe = push
        .peer
        .as_ref()
        .and_then(|p| p.exe.clone())
        .unwrap_or_default();
    assert!(exe.contains("git"), "{:?}", push.peer);
}

#[test]
fn a_push_to_protected_main_is_rejected_as_git_reports_it_and_main_is_unchanged() {
    let s = Scene::new();
    let before = s.rev("maintainer", "refs/heads/main");
    let out = s.push("maintainer", "HEAD:main", &[]);
    let text = received(&out);
    no_real_token("git push", &text);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("! [remote rejected] HEAD -> main (agent-guards: G4.rule"),
        "{text}"
    );
    assert_eq!(
        s.rev("maintainer", "refs/heads/main"),
        before,
        "the bare repository is unchanged"
    );
    assert!(
        !s.github
            .seen()
            .iter()
            .any(|r| r.method == "POST" && r.path.ends_with("/git-receive-pack")),
        "the push never reached GitHub"
    );
    let d = s.sink.decisions_once(
        |d| d.iter().any(|d| d.code.as_deref() == Some("G4.rule")),
        std::time::Duration::from_secs(5),
    );
    assert!(
        d.iter()
            .any(|d| d.code.as_deref() == Some("G4.rule")
                && d.ref_updates == ["refs/heads/main update"]),
        "{d:?}"
    );
    // A force push is refused the same way.
    let out = s.push("maintainer", "+HEAD:main", &["--force"]);
    assert!(
        received(&out).contains("[remote rejected]"),
        "{}",
        received(&out)
    );
    assert_eq!(s.rev("maintainer", "refs/heads/main"), before);
}

#[test]
fn a_push_to_another_owners_repository_is_refused() {
    let s = Scene::new();
    let out = s.push("stranger", "HEAD:refs/heads/feature", &[]);
    let text = received(&out);
    no_real_token("git push", &text);
    assert!(!out.status.success());
    assert!(text.contains("(agent-guards: G3.other-owner"), "{text}");
    assert_eq!(s.rev("stranger", "refs/heads/feature"), None);
}

#[test]
fn a_pull_request_merge_past_its_requirements_is_refused_with_githubs_error_shape() {
    let s = Scene::new();
    let auth = format!("token {}", s.broker.placeholder);
    let merge = |n: u32| {
        let url = format!("https://api.github.com/repos/maintainer/app/pulls/{n}/merge");
        support::call(&s, "PUT", Some(&auth), "{}", &url)
    };
    let text = merge(1);
    assert!(text.starts_with("HTTP/1.1 403"), "{text}");
    let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(body).expect("GitHub's JSON error");
    let message = v["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("agent-guards: G4.admin-merge"), "{v}");
    assert!(v["documentation_url"].is_string());
    let puts = || {
        s.github
            .seen()
            .into_iter()
            .filter(|r| r.method == "PUT")
            .collect::<Vec<_>>()
    };
    assert!(puts().is_empty(), "the merge never reached GitHub");
    // The look-alike: a pull request whose requirements are met merges, with the real token.
    let text = merge(2);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert_eq!(puts()[0].auth, "real");
}

/// `gh pr merge` sends GraphQL's `mergePullRequest` (with `--admin` or without: the flag only
/// skips gh's own check): the broker asks the pull request's merge state by its node id, as it
/// does for the REST merge.
#[test]
fn a_graphql_merge_is_judged_by_the_merge_state_github_reports() {
    let s = Scene::new();
    let auth = format!("bearer {}", s.broker.placeholder);
    let merge = |id: &str| {
        let body = serde_json::json!({
            "query": "mutation($pullRequestId: ID!) { mergePullRequest(input: {pullRequestId: $pullRequestId}) { pullRequest { merged } } }",
            "variables": {"pullRequestId": id},
        });
        support::call(
            &s,
            "POST",
            Some(&auth),
            &body.to_string(),
            "https://api.github.com/graphql",
        )
    };
    let merges = || {
        s.github
            .seen()
            .into_iter()
            .filter(|r| r.method == "POST" && r.path == "/graphql")
            .count()
    };
    let text = merge(support::PR_BLOCKED);
    assert!(text.starts_with("HTTP/1.1 403"), "{text}");
    assert!(text.contains("agent-guards: G4.admin-merge"), "{text}");
    assert_eq!(merges(), 1, "only the broker's own question reached GitHub");
    let text = merge(support::PR_CLEAN);
    assert!(
        text.starts_with("HTTP/1.1 200"),
        "a merge whose requirements are met lands: {text}"
    );
    assert_eq!(merges(), 3);
}

/// What `gh issue create -R <owner>/app` sends: a read of the repository by owner and name,
/// then a mutation naming it only by the id GitHub answered with. The broker keeps whose that id
/// is: another owner's repository is refused (G3) on the wire too.
#[test]
fn a_mutation_naming_another_owners_repository_by_id_is_refused() {
    let run = |owner: &str| {
        let s = Scene::new();
        let auth = format!("bearer {}", s.broker.placeholder);
        let read = serde_json::json!({
            "query": "query RepositoryInfo($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { id } }",
            "variables": {"owner": owner, "name": "app"},
        });
        let url = "https://api.github.com/graphql";
        let text = support::call(&s, "POST", Some(&auth), &read.to_string(), url);
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        let create = serde_json::json!({
            "query": "mutation IssueCreate($input: CreateIssueInput!) { createIssue(input: $input) { issue { id } } }",
            "variables": {"input": {"repositoryId": support::REPO_ID, "title": "t"}},
        });
        support::call(&s, "POST", Some(&auth), &create.to_string(), url)
    };
    let refused = run("stranger");
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    assert!(
        refused.contains("agent-guards: G3.other-owner"),
        "{refused}"
    );
    let own = run("maintainer");
    assert!(
        own.starts_with("HTTP/1.1 200"),
        "the session's own repository: {own}"
    );
}

#[test]
fn reads_pass_and_writes_need_the_placeholder() {
    let s = Scene::new();
    // A read with no credential passes, without one.
    let out = s.curl(&["https://api.github.com/repos/maintainer/app"]);
    assert!(
        received(&out).starts_with("HTTP/1.1 200"),
        "{}",
        received(&out)
    );
    // A read with the real token itself goes out without it.
    let real = format!("Authorization: token {REAL}");
    let out = s.curl(&["-H", &real, "https://api.github.com/repos/stranger/app"]);
    assert!(received(&out).starts_with("HTTP/1.1 200"));
    let gets: Vec<_> = s
        .github
        .seen()
        .into_iter()
        .filter(|r| r.method == "GET")
        .map(|r| r.auth)
        .collect();
    assert_eq!(gets, ["none", "none"]);
    // A write on the session's own repository with the real token or none: refused.
    let url = "https://api.github.com/repos/maintainer/app/issues/1/comments";
    for h in [real.as_str(), "X-Nothing: 1"] {
        let out = s.curl(&["-X", "POST", "-H", h, "-d", r#"{"body":"hi"}"#, url]);
        let text = received(&out);
        no_real_token("curl", &text);
        assert!(
            text.starts_with("HTTP/1.1 403") && text.contains("C11.no-placeholder"),
            "{text}"
        );
    }
    assert!(!s.github.seen().iter().any(|r| r.method == "POST"));
    // With the placeholder: it lands, with the real token.
    let auth = format!("Authorization: Bearer {}", s.broker.placeholder);
    let out = s.curl(&["-X", "POST", "-H", &auth, "-d", r#"{"body":"hi"}"#, url]);
    assert!(
        received(&out).starts_with("HTTP/1.1 201"),
        "{}",
        received(&out)
    );
    // On another owner's repository even the placeholder does not help (G3).
    let out = s.curl(&[
        "-X",
        "POST",
        "-H",
        &auth,
        "-d",
        r#"{"body":"hi"}"#,
        "https://api.github.com/repos/stranger/app/issues/1/comments",
    ]);
    assert!(
        received(&out).contains("agent-guards: G3.other-owner"),
        "{}",
        received(&out)
    );
}

#[test]
fn the_real_token_never_comes_back_even_when_github_echoes_it() {
    let s = Scene::new();
    let auth = format!("Authorization: token {}", s.broker.placeholder);
    let out = s.curl(&["-H", &auth, "https://api.github.com/echo-auth"]);
    let text = received(&out);
    assert_eq!(s.github.seen()[0].auth, "real");
    no_real_token("an echoed token", &text);
    assert!(
        text.contains(&s.broker.placeholder),
        "the echo shows the placeholder in its place: {text}"
    );
    // Nor in any audit record.
    let audit = serde_json::to_string(&s.sink.decisions()).unwrap();
    no_real_token("the audit records", &audit);
}

/// A push written by hand over git's HTTP protocol (no git on the client side): judged the
/// same as git's.
const HAND_PUSH: &str = r#"
import base64, os, socket, ssl, sys
proxy = os.environ["HTTPS_PROXY"].rsplit(":", 1)
s = socket.create_connection((proxy[0].split("//")[1], int(proxy[1])))
s.sendall(b"CONNECT github.com:443 HTTP/1.1\r\nHost: github.com:443\r\n\r\n")
assert s.recv(4096).startswith(b"HTTP/1.1 200")
ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
t = ctx.wrap_socket(s, server_hostname="github.com")
old, new, ref = sys.argv[1], sys.argv[2], sys.argv[3]
line = f"{old} {new} {ref}\0report-status side-band-64k\n".encode()
body = b"%04x" % (len(line) + 4) + line + b"0000"
cred = base64.b64encode(f"x-access-token:{os.environ['GH_TOKEN']}".encode()).decode()
t.sendall(f"POST /maintainer/app.git/git-receive-pack HTTP/1.1\r\nHost: github.com\r\nAuthorization: Basic {cred}\r\nContent-Type: application/x-git-receive-pack-request\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
out = b""
while True:
    d = t.recv(65536)
    if not d:
        break
    out += d
sys.stdout.write(out.decode("utf-8", "replace"))
"#;

#[test]
fn a_push_written_by_hand_is_judged_the_same() {
    let s = Scene::new();
    assert!(s
        .push("maintainer", "HEAD:refs/heads/feature", &[])
        .status
        .success());
    let main = s.rev("maintainer", "refs/heads/main").unwrap();
    let feature = s.rev("maintainer", "refs/heads/feature").unwrap();
    let zero = "0".repeat(40);
    let py = |old: &str, new: &str, r: &str| support::python(&s, HAND_PUSH, &[old, new, r]);
    // Moving main (its rules ask for a pull request): refused with the rule's code in the
    // report, before any pack is read.
    let text = py(&main, &feature, "refs/heads/main");
    no_real_token("python", &text);
    assert!(
        text.contains("ng refs/heads/main agent-guards: G4.rule"),
        "{text}"
    );
    assert_eq!(
        s.rev("maintainer", "refs/heads/main").as_deref(),
        Some(main.as_str())
    );
    // Deleting the feature branch: no rule refuses it, it lands with the real token.
    let text = py(&feature, &zero, "refs/heads/feature");
    no_real_token("python", &text);
    assert!(text.contains("ok refs/heads/feature"), "{text}");
    assert_eq!(s.rev("maintainer", "refs/heads/feature"), None);
}

#[test]
fn other_hosts_are_plain_tunnels_recorded_as_evidence() {
    let s = Scene::new();
    let echo = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = echo.local_addr().unwrap().port();
    std::thread::spawn(move || {
        if let Ok((mut c, _)) = echo.accept() {
            let mut b = [0u8; 5];
            if c.read_exact(&mut b).is_ok() {
                let _ = c.write_all(&b);
            }
        }
    });
    let mut c = std::net::TcpStream::connect(("127.0.0.1", s.broker.port)).unwrap();
    write!(
        c,
        "CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .unwrap();
    let mut head = [0u8; 39];
    c.read_exact(&mut head).unwrap();
    assert!(head.starts_with(b"HTTP/1.1 200"));
    c.write_all(b"hello").unwrap();
    let mut back = [0u8; 5];
    c.read_exact(&mut back).unwrap();
    assert_eq!(&back, b"hello");
    let started = std::time::Instant::now();
    while s.sink.connects().is_empty() && started.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let connects = s.sink.connects();
    assert_eq!(
        (
            connects[0].host.as_str(),
            connects[0].port,
            connects[0].opened
        ),
        ("127.0.0.1", port, true)
    );
}

#[test]
fn a_mutation_may_name_ids_github_returned_in_the_session_and_no_others() {
    let s = Scene::new();
    let auth = format!("bearer {}", s.broker.placeholder);
    let create = |repo_id: &str| {
        serde_json::json!({
            "query": "mutation($r:ID!) { createPullRequest(input:{repositoryId:$r, baseRefName:\"main\", headRefName:\"feature\", title:\"t\"}) { pullRequest { url } } }",
            "variables": {"r": repo_id},
        })
        .to_string()
    };
    let url = "https://api.github.com/graphql";
    // Before GitHub named the repository's id, it can only have been pasted.
    let text = support::call(&s, "POST", Some(&auth), &create(support::REPO_ID), url);
    assert!(text.contains("agent-guards: G2.node-id"), "{text}");
    // gh's way: ask for the id, then use it.
    let q = r#"{"query":"query { repository(owner:\"maintainer\", name:\"app\") { id } }"}"#;
    let text = support::call(&s, "POST", Some(&auth), q, url);
    assert!(text.contains(support::REPO_ID), "{text}");
    let text = support::call(&s, "POST", Some(&auth), &create(support::REPO_ID), url);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    // An id GitHub never gave is still refused.
    let text = support::call(&s, "POST", Some(&auth), &create("R_kgDOpasted1234"), url);
    assert!(text.contains("agent-guards: G2.node-id"), "{text}");
    let posts = s.github.auths("POST");
    assert_eq!(
        posts,
        ["real", "real"],
        "the query and the allowed mutation, with the real token"
    );
}
