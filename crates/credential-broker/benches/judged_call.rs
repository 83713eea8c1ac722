//! A judged API call through the broker beside the same call straight to the loopback GitHub,
//! in one run (issue 38's speed check: at most +3 ms median). Each call is a write the rules
//! judge (`POST .../issues/1/comments` on the session's own repository: G2–G4 asked, the
//! placeholder swapped), on a kept-alive connection; a second pair opens a new connection per
//! call (CONNECT and both TLS handshakes included). Then a plain tunnel beside a direct TCP
//! connection (target: at most +1 ms). Then a model request (issue 39: at most +3 ms median):
//! `POST /v1/messages` for an allowed model to the tests' loopback model API, through the
//! broker (read whole, M3 judged through model-tier-guard's face, the key swapped, the answer
//! relayed through the redactor, the decision recorded) beside the same request direct.

#[path = "../tests/support/mod.rs"]
mod support;

use credential_broker::http1;
use criterion::{criterion_group, criterion_main, Criterion};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

type Tls = BufReader<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>;

fn client_config(ca_pem: &str) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(c.expect("a certificate")).expect("a root");
    }
    Arc::new(
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_root_certificates(roots)
        .with_no_client_auth(),
    )
}

/// A TLS connection to `host`, through the proxy on `proxy` or straight to `direct`.
fn connect(
    config: &Arc<rustls::ClientConfig>,
    proxy: Option<u16>,
    direct: std::net::SocketAddr,
    host: &'static str,
) -> Tls {
    let mut tcp = match proxy {
        Some(port) => {
            let mut t = TcpStream::connect(("127.0.0.1", port)).expect("the broker");
            write!(t, "CONNECT {host}:443 HTTP/1.1\r\nHost: {host}:443\r\n\r\n").expect("CONNECT");
            let mut head = [0u8; 39];
            t.read_exact(&mut head).expect("its answer");
            assert!(head.starts_with(b"HTTP/1.1 200"));
            t
        }
        None => TcpStream::connect(direct).expect("the loopback GitHub"),
    };
    tcp.set_nodelay(true).expect("nodelay");
    let name = ServerName::try_from(host).expect("a name");
    let conn = rustls::ClientConnection::new(config.clone(), name).expect("a client");
    let _ = &mut tcp;
    BufReader::new(rustls::StreamOwned::new(conn, tcp))
}

const API: &str = "api.github.com";

/// One judged write; the status.
fn call(tls: &mut Tls, auth: &str) -> String {
    let body = r#"{"body":"bench"}"#;
    let req = format!(
        "POST /repos/maintainer/app/issues/1/comments HTTP/1.1\r\nHost: api.github.com\r\nAuthorization: token {auth}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    tls.get_mut()
        .write_all(req.as_bytes())
        .expect("the request");
    let head = http1::read_head(tls, 65536).expect("an answer");
    let framing = head.framing().expect("framing");
    http1::read_body(tls, framing, 1 << 20).expect("its body");
    head.first[1].clone()
}

fn bench(c: &mut Criterion) {
    let scene = support::Scene::new();
    let direct = scene.github.addr;
    let via_broker =
        client_config(&std::fs::read_to_string(&scene.broker.ca_pem_path).expect("the CA"));
    let straight = client_config(&scene.github.ca_pem);
    let placeholder = scene.broker.placeholder.clone();
    let mut g = c.benchmark_group("judged_call");
    g.sample_size(60);
    let mut b_conn = connect(&via_broker, Some(scene.broker.port), direct, API);
    assert_eq!(call(&mut b_conn, &placeholder), "201");
    g.bench_function("through_broker_keepalive", |b| {
        b.iter(|| call(&mut b_conn, &placeholder))
    });
    let mut d_conn = connect(&straight, None, direct, API);
    assert_eq!(call(&mut d_conn, support::REAL), "201");
    g.bench_function("direct_keepalive", |b| {
        b.iter(|| call(&mut d_conn, support::REAL))
    });
    g.bench_function("through_broker_new_connection", |b| {
        b.iter(|| {
            call(
                &mut connect(&via_broker, Some(scene.broker.port), direct, API),
                &placeholder,
            )
        })
    });
    g.bench_function("direct_new_connection", |b| {
        b.iter(|| call(&mut connect(&straight, None, direct, API), support::REAL))
    });
    // A real program per call (curl: its start, CONNECT, both handshakes, the judged write,
    // and the broker's lookup of which program sent it).
    let ca_file = scene.dir.path().join("loopback-ca.pem");
    std::fs::write(&ca_file, &scene.github.ca_pem).expect("the loopback CA");
    let resolve = format!("api.github.com:443:{}:{}", direct.ip(), direct.port());
    let curl = |through: bool| {
        let url = "https://api.github.com/repos/maintainer/app/issues/1/comments";
        let mut cmd = std::process::Command::new("curl");
        cmd.args([
            "-sS",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "-X",
            "POST",
            "-d",
            "{}",
        ]);
        match through {
            true => cmd
                .args(["-H", &format!("Authorization: token {placeholder}"), url])
                .envs(scene.client_env()),
            false => cmd
                .args([
                    "-H",
                    &format!("Authorization: token {}", support::REAL),
                    "--connect-to",
                    &resolve,
                ])
                .arg("--cacert")
                .arg(&ca_file)
                .arg(url),
        };
        let out = cmd.output().expect("curl runs");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "201",
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    g.bench_function("curl_through_broker", |b| b.iter(|| curl(true)));
    g.bench_function("curl_direct", |b| b.iter(|| curl(false)));
    g.finish();
    tunnels(c, scene.broker.port);
    model_requests(c);
}

/// One Messages request for an allowed model with `key`; the status.
fn model_call(tls: &mut Tls, key: &str) -> String {
    let body = r#"{"model":"claude-haiku-4-5","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}"#;
    let req = format!(
        "POST /v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\nx-api-key: {key}\r\nanthropic-version: 2023-06-01\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    tls.get_mut()
        .write_all(req.as_bytes())
        .expect("the request");
    let head = http1::read_head(tls, 65536).expect("an answer");
    let framing = head.framing().expect("framing");
    http1::read_body(tls, framing, 1 << 20).expect("its body");
    head.first[1].clone()
}

/// A model request through the broker beside direct, kept alive and on a new connection.
fn model_requests(c: &mut Criterion) {
    const HOST: &str = "api.anthropic.com";
    let scene = support::model_api::ModelScene::new();
    let direct = scene.api.addr;
    let via_broker =
        client_config(&std::fs::read_to_string(&scene.broker.ca_pem_path).expect("the CA"));
    let straight = client_config(&scene.api.ca_pem);
    let key = scene
        .broker
        .model_key_placeholder
        .clone()
        .expect("a key placeholder");
    let real = support::model_api::MODEL_KEY;
    let mut g = c.benchmark_group("model_request");
    g.sample_size(60);
    let mut b_conn = connect(&via_broker, Some(scene.broker.port), direct, HOST);
    assert_eq!(model_call(&mut b_conn, &key), "200");
    g.bench_function("through_broker_keepalive", |b| {
        b.iter(|| model_call(&mut b_conn, &key))
    });
    let mut d_conn = connect(&straight, None, direct, HOST);
    assert_eq!(model_call(&mut d_conn, real), "200");
    g.bench_function("direct_keepalive", |b| {
        b.iter(|| model_call(&mut d_conn, real))
    });
    g.bench_function("through_broker_new_connection", |b| {
        b.iter(|| {
            model_call(
                &mut connect(&via_broker, Some(scene.broker.port), direct, HOST),
                &key,
            )
        })
    });
    g.bench_function("direct_new_connection", |b| {
        b.iter(|| model_call(&mut connect(&straight, None, direct, HOST), real))
    });
    g.finish();
}

/// A plain CONNECT tunnel to a loopback echo server beside a direct connection: one 64-byte
/// round trip on an open connection, and opening one (CONNECT included) with a round trip.
fn tunnels(c: &mut Criterion, broker: u16) {
    let echo = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = echo.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for s in echo.incoming().flatten() {
            std::thread::spawn(move || {
                let _ = s.set_nodelay(true);
                let (mut r, mut w) = (s.try_clone().expect("a clone"), s);
                let _ = std::io::copy(&mut r, &mut w);
            });
        }
    });
    let open = |via_broker: bool| {
        let mut t = match via_broker {
            true => {
                let mut t = TcpStream::connect(("127.0.0.1", broker)).expect("the broker");
                write!(
                    t,
                    "CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
                )
                .expect("CONNECT");
                let mut head = [0u8; 39];
                t.read_exact(&mut head).expect("its answer");
                t
            }
            false => TcpStream::connect(("127.0.0.1", port)).expect("the echo server"),
        };
        t.set_nodelay(true).expect("nodelay");
        let _ = &mut t;
        t
    };
    let round_trip = |t: &mut TcpStream| {
        let mut back = [0u8; 64];
        t.write_all(&[7u8; 64]).expect("a write");
        t.read_exact(&mut back).expect("the echo");
    };
    let mut g = c.benchmark_group("tunnel");
    g.sample_size(60);
    let mut via = open(true);
    g.bench_function("through_broker_round_trip", |b| {
        b.iter(|| round_trip(&mut via))
    });
    let mut direct = open(false);
    g.bench_function("direct_round_trip", |b| b.iter(|| round_trip(&mut direct)));
    g.bench_function("through_broker_open_and_round_trip", |b| {
        b.iter(|| round_trip(&mut open(true)))
    });
    g.bench_function("direct_open_and_round_trip", |b| {
        b.iter(|| round_trip(&mut open(false)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
