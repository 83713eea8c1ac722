//! The production path over TLS: a lookup to an https loopback server whose certificate is
//! signed by a test CA, verified through the platform verifier (roots from `SSL_CERT_FILE`)
//! with the ring provider this crate installs; and a server the CA did not sign is refused.
//! One test in this binary, because it sets `SSL_CERT_FILE` for the process.

use branch_rules::cache::MemoryCache;
use branch_rules::live::{LiveConfig, LiveRules, Rules, RulesOutcome, RulesSource};
use branch_rules::test_support::{Reply, TestServer};
use branch_rules::{Cause, RuleType};
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl is installed (Debian: package openssl)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA named `name` and a leaf for 127.0.0.1 signed by it: (ca.pem, leaf chain pem, leaf key).
fn ca_and_leaf(dir: &Path, name: &str) -> (String, Vec<u8>, Vec<u8>) {
    let p = |f: &str| format!("{name}-{f}");
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    let mut ca = vec!["req", "-x509", "-days", "2", "-subj"];
    let ca_subj = format!("/CN={name} test CA");
    let (ca_key, ca_pem) = (p("ca.key"), p("ca.pem"));
    ca.extend([ca_subj.as_str()]);
    ca.extend(ec);
    ca.extend(["-keyout", &ca_key, "-out", &ca_pem]);
    openssl(dir, &ca);

    let (leaf_key, leaf_csr, leaf_pem, ext) =
        (p("leaf.key"), p("leaf.csr"), p("leaf.pem"), p("leaf.ext"));
    let mut req = vec!["req", "-subj", "/CN=localhost"];
    req.extend(ec);
    req.extend(["-keyout", &leaf_key, "-out", &leaf_csr]);
    openssl(dir, &req);
    std::fs::write(
        dir.join(&ext),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n\
         keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .expect("ext file");
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &leaf_csr,
            "-CA",
            &ca_pem,
            "-CAkey",
            &ca_key,
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            &ext,
            "-out",
            &leaf_pem,
        ],
    );
    let read = |f: &str| std::fs::read(dir.join(f)).expect("read pem");
    (
        dir.join(&ca_pem).display().to_string(),
        read(&leaf_pem),
        read(&leaf_key),
    )
}

#[test]
fn rules_over_tls_with_ring_and_a_verified_certificate() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (trusted_ca, leaf, key) = ca_and_leaf(tmp.path(), "trusted");
    let (_, stranger_leaf, stranger_key) = ca_and_leaf(tmp.path(), "stranger");
    // The only roots the client trusts: the test CA (read when the client is built).
    std::env::set_var("SSL_CERT_FILE", &trusted_ca);
    std::env::remove_var("SSL_CERT_DIR");

    let env: HashMap<String, String> = HashMap::from([
        ("PATH".to_string(), tmp.path().display().to_string()),
        ("GH_TOKEN".to_string(), "ghp_over_tls".to_string()),
    ]);
    let config = |base: String| LiveConfig {
        api_base_override: Some(base),
        deadline: Duration::from_secs(3),
        ..LiveConfig::default()
    };

    let server = TestServer::start_tls(&leaf, &key).expect("tls server");
    assert!(server.base().starts_with("https://127.0.0.1:"));
    server.route(
        "/repos/octo/hello/rules/branches/main",
        Reply::rules(&["pull_request", "non_fast_forward"]),
    );
    let live = LiveRules::new(config(server.base()), env.clone(), MemoryCache::new());
    assert_eq!(
        live.rules_for("github.com", "octo", "hello", "main"),
        RulesOutcome::Known {
            rules: vec![RuleType::PullRequest, RuleType::NonFastForward],
            source: RulesSource::Fetched,
        }
    );
    // The server read our headers through the TLS session.
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer ghp_over_tls")
    );

    // A certificate from a CA we do not trust: no answer, and the token is never sent.
    let stranger = TestServer::start_tls(&stranger_leaf, &stranger_key).expect("tls server");
    stranger.route("/repos/octo/hello/rules/branches/main", Reply::rules(&[]));
    let live = LiveRules::new(config(stranger.base()), env, MemoryCache::new());
    let outcome = live.rules_for("github.com", "octo", "hello", "main");
    assert!(
        matches!(
            outcome,
            RulesOutcome::Undeterminable(Cause::Connect(_) | Cause::Transport(_))
        ),
        "{outcome:?}"
    );
    assert!(stranger.requests().is_empty());
}
