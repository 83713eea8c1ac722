//! The tests' loopback "GitHub": a TLS server with its own test CA (made here with rcgen,
//! trusted by the broker through its config, never by the clients) serving git's smart HTTP
//! from real bare repositories (`git http-backend` run as CGI, pushes included) and a few REST
//! endpoints, and checking the real token on every request (it records what each presented).
//! Plus the scene every test starts from: two bare repositories, the rules server
//! (branch-rules' test-support `TestServer`), a broker pointed at both.

#![allow(dead_code)]

pub mod model_api;

use branch_rules::test_support::{Reply, TestServer};
use branch_rules::RepoSlug;
use credential_broker::http1::{self, Head};
use credential_broker::{Broker, Config, Handle, MemorySink, Sinks};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use std::io::{BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The maintainer's real token (what the loopback GitHub accepts).
pub const REAL: &str = "ghp_REALtokenREALtokenREALtokenREAL12345";

/// A pull request's node id whose merge state the loopback GitHub reports as `BLOCKED`.
pub const PR_BLOCKED: &str = "PR_kwDOblocked1";

/// A pull request's node id reported `CLEAN`.
pub const PR_CLEAN: &str = "PR_kwDOclean01";

fn text_of(body: &[u8]) -> String {
    String::from_utf8_lossy(body).into_owned()
}

/// The node id the loopback GitHub's GraphQL gives the repository.
pub const REPO_ID: &str = "R_kgDOloopback1";

/// What the loopback GitHub saw of one request.
#[derive(Debug, Clone)]
pub struct Seen {
    pub host: String,
    pub method: String,
    pub path: String,
    /// `real`, `none`, or `other`.
    pub auth: &'static str,
}

/// The loopback GitHub.
pub struct LoopbackGitHub {
    pub addr: SocketAddr,
    pub ca_pem: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

fn auth_kind(h: &Head) -> &'static str {
    use base64::Engine;
    let Some(v) = h.header("authorization") else {
        return "none";
    };
    let (scheme, rest) = v.split_once(' ').unwrap_or(("", v));
    let real = match scheme.to_ascii_lowercase().as_str() {
        "basic" => base64::engine::general_purpose::STANDARD
            .decode(rest.trim())
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .is_some_and(|p| p.split(':').any(|part| part == REAL)),
        _ => rest.trim() == REAL,
    };
    if real {
        "real"
    } else {
        "other"
    }
}

impl LoopbackGitHub {
    /// Serves the bare repositories under `base` (`<owner>/<repo>.git`).
    pub fn start(base: &Path) -> LoopbackGitHub {
        let (config, ca_pem) = test_tls(
            "loopback GitHub test CA",
            &["github.com", "api.github.com", "uploads.github.com"],
        );
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (kept, base) = (seen.clone(), base.to_path_buf());
        std::thread::spawn(move || {
            for s in listener.incoming().flatten() {
                let (config, kept, base) = (config.clone(), kept.clone(), base.clone());
                std::thread::spawn(move || serve(s, config, &kept, &base));
            }
        });
        LoopbackGitHub { addr, ca_pem, seen }
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// What each request with `method` presented, in order.
    pub fn auths(&self, method: &str) -> Vec<&'static str> {
        self.seen()
            .into_iter()
            .filter(|r| r.method == method)
            .map(|r| r.auth)
            .collect()
    }
}

/// A test CA of its own (`name`) and a server configuration with one leaf for `hosts`: the
/// loopback servers' TLS, trusted by the broker through its config, never by the clients.
pub fn test_tls(name: &str, hosts: &[&str]) -> (Arc<rustls::ServerConfig>, String) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    // A name of its own (rcgen's default is the leaf's too: OpenSSL would read the leaf as
    // self-signed).
    params.distinguished_name = rcgen::DistinguishedName::new();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(hosts.iter().map(|h| h.to_string()).collect::<Vec<_>>())
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![leaf.der().clone(), ca.der().clone()],
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
    )
    .unwrap();
    (Arc::new(config), ca.pem())
}

fn serve(s: TcpStream, config: Arc<rustls::ServerConfig>, kept: &Mutex<Vec<Seen>>, base: &Path) {
    let _ = s.set_read_timeout(Some(Duration::from_secs(20)));
    let _ = s.set_nodelay(true);
    let Ok(conn) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = BufReader::new(rustls::StreamOwned::new(conn, s));
    loop {
        let Ok(head) = http1::read_head(&mut tls, 64 * 1024) else {
            return;
        };
        let Ok(body) = head
            .framing()
            .and_then(|f| http1::read_body(&mut tls, f, 512 << 20))
        else {
            return;
        };
        let host = head
            .header("host")
            .unwrap_or("")
            .split(':')
            .next()
            .unwrap_or("")
            .to_string();
        let auth = auth_kind(&head);
        kept.lock().unwrap().push(Seen {
            host: host.clone(),
            method: head.first[0].clone(),
            path: head.first[1].clone(),
            auth,
        });
        let (status, ctype, extra, out) = match host.as_str() {
            "github.com" => git(&head, &body, auth, base),
            _ => rest(&head, &body, auth),
        };
        let mut msg = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n",
            out.len()
        )
        .into_bytes();
        msg.extend(extra.into_bytes());
        msg.extend(b"\r\n");
        msg.extend(out);
        if tls
            .get_mut()
            .write_all(&msg)
            .and_then(|_| tls.get_mut().flush())
            .is_err()
        {
            return;
        }
    }
}

type Answer = (String, String, String, Vec<u8>);

fn json(status: &str, v: serde_json::Value) -> Answer {
    (
        status.into(),
        "application/json; charset=utf-8".into(),
        String::new(),
        v.to_string().into_bytes(),
    )
}

/// A few REST endpoints; writes need the real token (401, GitHub's "Bad credentials").
fn rest(head: &Head, body: &[u8], auth: &str) -> Answer {
    let (method, target) = (head.first[0].as_str(), head.first[1].as_str());
    let path = target.split('?').next().unwrap_or(target);
    if method != "GET" && auth != "real" {
        return json(
            "401 Unauthorized",
            serde_json::json!({"message": "Bad credentials"}),
        );
    }
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match (method, parts.as_slice()) {
        ("GET", ["echo-auth"]) => json(
            "200 OK",
            serde_json::json!({"authorization": head.header("authorization")}),
        ),
        ("GET", ["repos", o, r]) => json(
            "200 OK",
            serde_json::json!({"full_name": format!("{o}/{r}"), "private": false}),
        ),
        ("GET", ["repos", _, _, "pulls", n]) => {
            let state = if *n == "1" { "blocked" } else { "clean" };
            json(
                "200 OK",
                serde_json::json!({"number": n.parse::<u64>().unwrap_or(0), "mergeable_state": state}),
            )
        }
        ("PUT", ["repos", _, _, "pulls", _, "merge"]) => json(
            "200 OK",
            serde_json::json!({"merged": true, "message": "Pull Request successfully merged"}),
        ),
        // The broker's own question before a `mergePullRequest`: pull request PR_BLOCKED is
        // blocked, any other is clean.
        ("POST", ["graphql"]) if text_of(body).contains("mergeStateStatus") => {
            let state = if text_of(body).contains(PR_BLOCKED) {
                "BLOCKED"
            } else {
                "CLEAN"
            };
            json(
                "200 OK",
                serde_json::json!({"data": {"node": {"mergeStateStatus": state}}}),
            )
        }
        ("POST", ["graphql"]) if text_of(body).contains("mergePullRequest") => json(
            "200 OK",
            serde_json::json!({"data": {"mergePullRequest": {"pullRequest": {"merged": true}}}}),
        ),
        ("POST", ["graphql"]) => json(
            "200 OK",
            serde_json::json!({"data": {"repository": {"id": REPO_ID, "name": "app"}}}),
        ),
        ("POST", ["repos", _, _, "issues", _, "comments"]) => {
            json("201 Created", serde_json::json!({"id": 1}))
        }
        _ => json("404 Not Found", serde_json::json!({"message": "Not Found"})),
    }
}

/// git's smart HTTP through `git http-backend`; pushes (and their advertisement) need the real
/// token, as on GitHub.
fn git(head: &Head, body: &[u8], auth: &str, base: &Path) -> Answer {
    let target = &head.first[1];
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let pushing = path.ends_with("/git-receive-pack") || query.contains("service=git-receive-pack");
    if pushing && auth != "real" {
        return (
            "401 Unauthorized".into(),
            "text/plain".into(),
            "WWW-Authenticate: Basic realm=\"GitHub\"\r\n".into(),
            b"auth needed\n".to_vec(),
        );
    }
    let mut cmd = Command::new("git");
    cmd.arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GIT_PROJECT_ROOT", base)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", &head.first[0])
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if auth == "real" {
        cmd.env("REMOTE_USER", "maintainer");
    }
    for (h, var) in [
        ("content-type", "CONTENT_TYPE"),
        ("content-encoding", "HTTP_CONTENT_ENCODING"),
        ("git-protocol", "GIT_PROTOCOL"),
    ] {
        if let Some(v) = head.header(h) {
            cmd.env(var, v);
        }
    }
    let mut child = cmd.spawn().expect("git http-backend");
    let mut stdin = child.stdin.take().unwrap();
    let body = body.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&body);
    });
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    let _ = child.wait();
    let _ = feeder.join();
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| out.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
    let Some((end, skip)) = split else {
        return (
            "500 Internal Server Error".into(),
            "text/plain".into(),
            String::new(),
            out,
        );
    };
    let cgi_head = String::from_utf8_lossy(&out[..end]).to_string();
    let mut status = "200 OK".to_string();
    let mut ctype = "text/plain".to_string();
    let mut extra = String::new();
    for line in cgi_head.lines() {
        if let Some((k, v)) = line.split_once(':') {
            match k.trim().to_ascii_lowercase().as_str() {
                "status" => status = v.trim().to_string(),
                "content-type" => ctype = v.trim().to_string(),
                "content-length" => {}
                _ => extra.push_str(&format!("{}: {}\r\n", k.trim(), v.trim())),
            }
        }
    }
    (status, ctype, extra, out[end + skip..].to_vec())
}

/// Runs `git` with `args` in `dir` (no system or global config).
pub fn git_in(dir: &Path, args: &[&str], env: &[(String, String)]) -> Output {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("HOME", dir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .expect("git runs");
    out
}

/// Two bare repositories with one commit on main each, a work clone of each, the rules server,
/// the loopback GitHub and a broker pointed at them.
pub struct Scene {
    pub dir: tempfile::TempDir,
    pub github: LoopbackGitHub,
    pub rules: TestServer,
    pub sink: Arc<MemorySink>,
    pub broker: Handle,
}

impl Scene {
    pub fn new() -> Scene {
        Scene::with(|_| {})
    }

    /// With a change to the broker's config.
    pub fn with(tune: impl FnOnce(&mut Config)) -> Scene {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("srv");
        for owner in ["maintainer", "stranger"] {
            let bare = base.join(owner).join("app.git");
            std::fs::create_dir_all(&bare).unwrap();
            assert!(git_in(&bare, &["init", "-q", "--bare", "-b", "main"], &[])
                .status
                .success());
            let work = dir.path().join(format!("work-{owner}"));
            std::fs::create_dir_all(&work).unwrap();
            let ident = [
                ("GIT_AUTHOR_NAME", "t"),
                ("GIT_AUTHOR_EMAIL", "t@x"),
                ("GIT_COMMITTER_NAME", "t"),
                ("GIT_COMMITTER_EMAIL", "t@x"),
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()));
            for args in [
                vec!["init", "-q", "-b", "main"],
                vec!["commit", "-q", "--allow-empty", "-m", "first"],
                vec!["push", "-q", bare.to_str().unwrap(), "main"],
                vec!["commit", "-q", "--allow-empty", "-m", "second"],
            ] {
                let o = git_in(&work, &args, &ident);
                assert!(
                    o.status.success(),
                    "{args:?}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
        let github = LoopbackGitHub::start(&base);
        let rules = TestServer::start().unwrap();
        for owner in ["maintainer", "stranger"] {
            rules.route(
                &format!("/repos/{owner}/app/rules/branches/main"),
                Reply::rules(&["pull_request"]),
            );
            rules.route(
                &format!("/repos/{owner}/app/rules/branches/feature"),
                Reply::rules(&[]),
            );
            rules.route(
                &format!("/repos/{owner}/app/branches/feature/protection"),
                Reply::error(404, "Branch not protected"),
            );
        }
        let sink = Arc::new(MemorySink::default());
        let slug = RepoSlug {
            host: "github.com".into(),
            owner: "maintainer".into(),
            repo: "app".into(),
        };
        let mut config = Config::new(REAL, Some(slug), dir.path().join("ca"));
        config.rules_api = Some(rules.base());
        config.system_roots = false;
        config.upstream_roots_pem = vec![github.ca_pem.clone()];
        for h in ["github.com", "api.github.com", "uploads.github.com"] {
            config.upstream_addrs.insert(h.into(), github.addr);
        }
        tune(&mut config);
        let broker = Broker::start(config, Sinks::memory(sink.clone())).expect("the broker starts");
        Scene {
            dir,
            github,
            rules,
            sink,
            broker,
        }
    }

    pub fn bare(&self, owner: &str) -> PathBuf {
        self.dir.path().join("srv").join(owner).join("app.git")
    }

    pub fn work(&self, owner: &str) -> PathBuf {
        self.dir.path().join(format!("work-{owner}"))
    }

    /// The environment an agent command gets from the broker, nothing else that grants.
    /// Makes `dir` (existing or not, empty or not) the maintainer's working copy: main as the
    /// bare repository has it, origin on github.com, one commit of its own to push.
    pub fn maintainers_work_in(&self, dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        let bare = self.dir.path().join("srv/maintainer/app.git");
        let ident = [("GIT_COMMITTER_NAME", "t"), ("GIT_COMMITTER_EMAIL", "t@x")]
            .map(|(k, v)| (k.to_string(), v.to_string()));
        for args in [
            vec!["init", "-q", "-b", "main"],
            vec!["pull", "-q", bare.to_str().unwrap(), "main"],
            vec![
                "remote",
                "add",
                "origin",
                "https://github.com/maintainer/app.git",
            ],
            vec![
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@x",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "work",
            ],
        ] {
            let o = git_in(dir, &args, &ident);
            assert!(o.status.success(), "{args:?}: {}", received(&o));
        }
    }

    pub fn client_env(&self) -> Vec<(String, String)> {
        self.broker.client_env()
    }

    /// `git push` through the broker with the placeholder as git's credential.
    pub fn push(&self, owner: &str, refspec: &str, extra: &[&str]) -> Output {
        let url = format!("https://github.com/{owner}/app.git");
        let helper = format!(
            "!f() {{ echo username=x-access-token; echo password={}; }}; f",
            self.broker.placeholder
        );
        let mut args = vec!["-c", "credential.helper=", "-c"];
        let helper_arg = format!("credential.helper={helper}");
        args.push(&helper_arg);
        args.push("push");
        args.extend(extra);
        args.push(&url);
        args.push(refspec);
        git_in(&self.work(owner_work(owner)), &args, &self.client_env())
    }

    /// The commit a ref of a bare repository points at (`None`: no such ref).
    pub fn rev(&self, owner: &str, refname: &str) -> Option<String> {
        let o = git_in(
            &self.bare(owner),
            &["rev-parse", "--verify", "-q", refname],
            &[],
        );
        o.status
            .success()
            .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
    }

    /// `curl` through the broker (its proxy and CA from the environment).
    pub fn curl(&self, args: &[&str]) -> Output {
        Command::new("curl")
            .args([
                "-sS",
                "-i",
                "--suppress-connect-headers",
                "--max-time",
                "20",
            ])
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(self.client_env())
            .output()
            .expect("curl runs")
    }
}

/// `curl -X <method>` of `url` through the broker with an `Authorization` header (`None`:
/// none) and a body: everything it received, checked to hold no real token.
pub fn call(s: &Scene, method: &str, auth: Option<&str>, body: &str, url: &str) -> String {
    let header = auth.map(|a| format!("Authorization: {a}"));
    let mut args = vec!["-X", method];
    if let Some(h) = &header {
        args.extend(["-H", h.as_str()]);
    }
    if !body.is_empty() {
        args.extend(["-d", body]);
    }
    args.push(url);
    let text = received(&s.curl(&args));
    assert!(
        !text.contains(REAL),
        "the real token reached the client: {text}"
    );
    text
}

/// `python3 -c <script> <args>` with the client environment: everything it received.
pub fn python(s: &Scene, script: &str, args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(s.client_env())
        .output()
        .expect("python3 runs");
    received(&out)
}

/// Pushes to the stranger's repository go from the maintainer's clone too (an agent pushing
/// the work somewhere else).
fn owner_work(_owner: &str) -> &'static str {
    "maintainer"
}

/// Everything a client received, as text.
pub fn received(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
