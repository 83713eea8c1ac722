//! The push wire reader against what real git sends: pushes through git's own smart-HTTP client
//! (`git-remote-http`) to `git http-backend` on 127.0.0.1, with a relay in between that keeps
//! the bytes of each request; each `POST .../git-receive-pack` body is read with
//! `git_receive_pack::read_push` and must name exactly the ref updates the push made.

use command_effects::git_push::PushKind;
use command_effects::git_receive_pack::read_push;
use hook_replay::git::{git, init_with_commit, Origin};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// A TCP relay to `port` that keeps every byte clients send; one thread per connection.
struct Recorder {
    port: u16,
    sent: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl Recorder {
    fn start(to: u16) -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let sent = Arc::new(Mutex::new(Vec::new()));
        let kept = sent.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let kept = kept.clone();
                std::thread::spawn(move || relay(client, to, &kept));
            }
        });
        Recorder { port, sent }
    }

    /// The bodies of the receive-pack POSTs seen so far (taken).
    fn push_bodies(&self) -> Vec<Vec<u8>> {
        let taken = std::mem::take(&mut *self.sent.lock().unwrap());
        taken.iter().filter_map(|r| receive_pack_body(r)).collect()
    }
}

fn relay(mut client: TcpStream, to: u16, kept: &Mutex<Vec<Vec<u8>>>) {
    let Ok(mut server) = TcpStream::connect(("127.0.0.1", to)) else {
        return;
    };
    let mut back = server.try_clone().unwrap();
    let mut to_client = client.try_clone().unwrap();
    let answer = std::thread::spawn(move || {
        let _ = std::io::copy(&mut back, &mut to_client);
    });
    let mut request = Vec::new();
    let mut buf = [0u8; 65536];
    while let Ok(n) = client.read(&mut buf) {
        if n == 0 || server.write_all(&buf[..n]).is_err() {
            break;
        }
        request.extend_from_slice(&buf[..n]);
    }
    let _ = server.shutdown(std::net::Shutdown::Write);
    let _ = answer.join();
    kept.lock().unwrap().push(request);
}

/// The body of one recorded HTTP request when it is a receive-pack POST (Content-Length only:
/// git sends small pushes that way).
fn receive_pack_body(request: &[u8]) -> Option<Vec<u8>> {
    let end = request.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&request[..end]).to_ascii_lowercase();
    if !head.starts_with("post ") || !head.lines().next()?.contains("git-receive-pack") {
        return None;
    }
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))?
        .trim()
        .parse()
        .ok()?;
    request.get(end + 4..end + 4 + len).map(<[u8]>::to_vec)
}

#[test]
fn what_git_sends_is_read_as_the_push_it_is() {
    let origin = Origin::serve();
    let http_port: u16 = origin
        .http_url()
        .trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let relay = Recorder::start(http_port);
    let url = format!("http://127.0.0.1:{}/acme/widget.git", relay.port);
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("w");
    init_with_commit(&repo, &[]);
    git(&repo, &["remote", "add", "origin", &url]);
    let kinds = |bodies: Vec<Vec<u8>>| -> Vec<(String, PushKind)> {
        assert_eq!(bodies.len(), 1, "one receive-pack request per push");
        read_push(&bodies[0])
            .unwrap()
            .commands
            .iter()
            .map(|c| (c.refname.clone(), c.kind()))
            .collect()
    };

    git(
        &repo,
        &[
            "push",
            "-q",
            "origin",
            "HEAD:refs/heads/main",
            "HEAD:refs/heads/topic",
        ],
    );
    let mut got = kinds(relay.push_bodies());
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        [
            ("refs/heads/main".into(), PushKind::Create),
            ("refs/heads/topic".into(), PushKind::Create)
        ]
    );
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "two"]);
    git(&repo, &["tag", "v1"]);
    git(
        &repo,
        &["push", "-q", "origin", "HEAD:main", "v1", ":topic"],
    );
    let mut got = kinds(relay.push_bodies());
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        [
            ("refs/heads/main".into(), PushKind::Update),
            ("refs/heads/topic".into(), PushKind::Delete),
            ("refs/tags/v1".into(), PushKind::Create)
        ]
    );
    assert_eq!(
        origin.git(&["rev-parse", "main"]),
        git(&repo, &["rev-parse", "HEAD"]).trim(),
        "the pushes landed: the relay changed nothing"
    );
    // A forced update is an update on the wire (whether it is a fast-forward needs the commits).
    git(&repo, &["reset", "-q", "--hard", "HEAD~1"]);
    git(&repo, &["push", "-q", "--force", "origin", "HEAD:main"]);
    assert_eq!(
        kinds(relay.push_bodies()),
        [("refs/heads/main".into(), PushKind::Update)]
    );
}
