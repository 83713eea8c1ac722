//! The journal copy's encodings, table by table, and its one datagram against real sockets.

use super::*;
use serde_json::json;

fn map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}

const ORIGIN: Origin<'static> = Origin {
    state_dir: "/home/u/.local/state/agent-guards",
    session: "s-1",
};

#[test]
fn the_target_follows_the_mode_and_the_sockets() {
    use AuditJournal::*;
    // (mode, journal socket, syslog socket, target or error)
    let rows = [
        (Off, true, true, Some(Target::Nowhere)),
        (Auto, true, true, Some(Target::Journal)),
        (Auto, false, true, Some(Target::Syslog)),
        (Auto, false, false, Some(Target::Nowhere)),
        (On, true, false, Some(Target::Journal)),
        (On, false, true, Some(Target::Syslog)),
        (On, false, false, None),
    ];
    for (mode, j, s, want) in rows {
        let got = target(mode, j, s);
        match want {
            Some(t) => assert_eq!(got, Ok(t), "{mode:?} {j} {s}"),
            None => {
                let e = got.unwrap_err();
                assert!(
                    e.contains(JOURNAL_SOCKET) && e.contains("audit_journal"),
                    "{e}"
                );
            }
        }
    }
}

#[test]
fn native_fields_use_the_binary_form_exactly_when_a_value_has_a_newline() {
    // (field value, its encoding after the name)
    let rows: &[(&[u8], &[u8])] = &[
        (b"plain", b"=plain\n"),
        (b"", b"=\n"),
        (b"a=b", b"=a=b\n"),
        (b"nul\0and\xffbytes", b"=nul\0and\xffbytes\n"),
        (b"two\nlines", b"\n\x09\0\0\0\0\0\0\0two\nlines\n"),
        (b"\n", b"\n\x01\0\0\0\0\0\0\0\n\n"),
    ];
    for (value, tail) in rows {
        let got = native_datagram(&[("F", value.to_vec())]);
        let mut want = b"F".to_vec();
        want.extend_from_slice(tail);
        assert_eq!(got, want, "{:?}", String::from_utf8_lossy(value));
    }
    // Fields follow one another in order.
    let two = native_datagram(&[("A", b"1".to_vec()), ("B", b"x\ny".to_vec())]);
    assert_eq!(two, b"A=1\nB\n\x03\0\0\0\0\0\0\0x\ny\n");
}

#[test]
fn a_record_gives_its_fields_with_the_json_unchanged() {
    let json = r#"{"binary":"gh-write-guard","decision":"deny","code":"G6.primary","reason":"a\nb \"q\""}"#;
    let record = map(serde_json::from_str(json).unwrap());
    let f = fields(ORIGIN, json, &record);
    let get = |n: &str| {
        f.iter()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| String::from_utf8(v.clone()).unwrap())
    };
    assert_eq!(get("AGENT_GUARDS_RECORD").as_deref(), Some(json));
    assert_eq!(get("AGENT_GUARDS_CODE").as_deref(), Some("G6.primary"));
    assert_eq!(get("AGENT_GUARDS_SESSION").as_deref(), Some("s-1"));
    assert_eq!(
        get("AGENT_GUARDS_STATE_DIR").as_deref(),
        Some(ORIGIN.state_dir)
    );
    assert_eq!(get("SYSLOG_IDENTIFIER").as_deref(), Some(IDENTIFIER));
    assert_eq!(get("PRIORITY").as_deref(), Some("4"));
    assert_eq!(
        get("MESSAGE").as_deref(),
        Some("gh-write-guard deny G6.primary")
    );
    assert_eq!(get("AGENT_GUARDS_CLIPPED"), None);
    // Every name is one journald takes from a client: A-Z, 0-9, _, not leading _, at most 64.
    for (name, _) in &f {
        assert!(
            name.len() <= 64
                && !name.starts_with('_')
                && name
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
            "{name}"
        );
    }
    // No code, no code field.
    let plain = map(json!({"binary": "taint", "decision": "recorded"}));
    assert!(fields(ORIGIN, "{}", &plain)
        .iter()
        .all(|(k, _)| *k != "AGENT_GUARDS_CODE"));
}

#[test]
fn priority_follows_the_decision() {
    // (decision, PRIORITY)
    let rows = [
        ("critical", 2),
        ("failure", 3),
        ("deny", 4),
        ("block", 4),
        ("deny_unjudged", 4),
        ("deny_unanswered", 4),
        ("allow", 6),
        ("recorded", 6),
        ("not-a-decision", 6),
    ];
    for (decision, want) in rows {
        assert_eq!(
            priority(&map(json!({"decision": decision}))),
            want,
            "{decision}"
        );
    }
    assert_eq!(priority(&Map::new()), 6);
}

#[test]
fn a_record_past_the_bound_is_clipped_at_a_character_and_marked() {
    // Multi-byte characters across the bound: the clip never splits one.
    let json = format!("{{\"x\":\"{}\"}}", "é".repeat(MAX_RECORD_BYTES));
    let f = fields(ORIGIN, &json, &Map::new());
    let kept = &f
        .iter()
        .find(|(k, _)| *k == "AGENT_GUARDS_RECORD")
        .unwrap()
        .1;
    assert!(kept.len() <= MAX_RECORD_BYTES && kept.len() >= MAX_RECORD_BYTES - 1);
    let kept = String::from_utf8(kept.clone()).expect("clipped at a character boundary");
    assert!(json.starts_with(&kept));
    let mark = &f
        .iter()
        .find(|(k, _)| *k == "AGENT_GUARDS_CLIPPED")
        .unwrap()
        .1;
    assert_eq!(mark, json.len().to_string().as_bytes());
    // A message is short whatever the record says.
    let long = map(json!({"binary": "x".repeat(1000), "decision": "deny"}));
    assert!(message(&long).len() <= 200);
}

#[test]
fn syslog_datagrams_escape_structured_data_and_clip_with_a_mark() {
    let record = map(json!({"decision": "deny", "code": "G4.\"q\"]\\"}));
    let origin = Origin {
        state_dir: "/s",
        session: "a]b\"c",
    };
    let d = syslog_datagram(
        origin,
        "{\"k\":1}",
        &record,
        "2026-01-02T03:04:05Z",
        "my host",
        42,
    );
    let d = String::from_utf8(d).unwrap();
    // authpriv (10) * 8 + warning (4) = 84; a space in the host is dropped (one header word).
    assert_eq!(
        d,
        "<84>1 2026-01-02T03:04:05Z myhost agent-guards 42 - \
         [agentGuards@32473 state_dir=\"/s\" session=\"a\\]b\\\"c\" code=\"G4.\\\"q\\\"\\]\\\\\"] {\"k\":1}"
    );
    // Empty header words are `-`; an allowed record is informational (80 + 6).
    let d = syslog_datagram(ORIGIN, "{}", &map(json!({"decision": "allow"})), "", "", 1);
    assert!(String::from_utf8(d)
        .unwrap()
        .starts_with("<86>1 - - agent-guards 1 - "));
    // Too long: clipped to the bound, marked with the full length.
    let json = format!("{{\"x\":\"{}\"}}", "y".repeat(3 * MAX_SYSLOG_BYTES));
    let d = String::from_utf8(syslog_datagram(ORIGIN, &json, &Map::new(), "t", "h", 1)).unwrap();
    assert!(d.len() <= MAX_SYSLOG_BYTES, "{}", d.len());
    assert!(d.contains(&format!("clipped=\"{}\"", json.len())));
}

mod wire_tests {
    use super::super::wire::{send_datagram, send_native};
    use std::os::unix::net::UnixDatagram;
    use std::time::{Duration, Instant};

    #[test]
    fn one_datagram_arrives_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("socket");
        let rx = UnixDatagram::bind(&path).unwrap();
        send_native(&path, b"MESSAGE=hi\n").unwrap();
        let mut buf = [0u8; 64];
        let n = rx.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"MESSAGE=hi\n");
    }

    #[test]
    fn a_fifo_a_file_nothing_or_a_full_queue_is_an_error_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        for path in [fifo, file, dir.path().join("missing")] {
            let start = Instant::now();
            assert!(send_datagram(&path, b"x").is_err(), "{}", path.display());
            assert!(start.elapsed() < Duration::from_secs(1));
        }
        // A socket nobody reads: the queue fills, and the next send fails instead of waiting.
        let path = dir.path().join("unread");
        let _rx = UnixDatagram::bind(&path).unwrap();
        let start = Instant::now();
        let mut failed = None;
        for _ in 0..100_000 {
            if let Err(e) = send_datagram(&path, &[0u8; 1024]) {
                failed = Some(e);
                break;
            }
        }
        let e = failed.expect("a full queue is an error");
        assert_eq!(e.raw_os_error(), Some(libc::EAGAIN), "{e}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_datagram_too_long_goes_in_a_sealed_memfd() {
        use std::os::fd::{FromRawFd, OwnedFd};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("socket");
        let rx = UnixDatagram::bind(&path).unwrap();
        // Past any socket's send buffer (wmem_max is far below 16 MiB by default).
        let big = vec![b'z'; 16 * 1024 * 1024];
        send_native(&path, &big).unwrap();
        let fd = receive_fd(&rx).expect("a descriptor came with the datagram");
        // SAFETY: the descriptor was just received and is ours.
        let memfd = unsafe { OwnedFd::from_raw_fd(fd) };
        // Read from the start (the sender's writes moved the shared offset; journald maps it).
        let mut file = std::fs::File::from(memfd.try_clone().unwrap());
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(0)).unwrap();
        let mut got = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut got).unwrap();
        assert_eq!(got.len(), big.len());
        assert!(got == big);
        // journald reads only sealed memfds: nobody can change what it reads.
        // SAFETY: fcntl on a descriptor we own.
        let seals = unsafe { libc::fcntl(fd, libc::F_GET_SEALS) };
        let want = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE | libc::F_SEAL_SEAL;
        assert_eq!(seals & want, want);
    }

    /// The descriptor passed with one datagram (SCM_RIGHTS), if any.
    fn receive_fd(rx: &UnixDatagram) -> Option<i32> {
        use std::os::fd::AsRawFd;
        let mut data = [0u8; 16];
        let mut iov = libc::iovec {
            iov_base: data.as_mut_ptr().cast(),
            iov_len: data.len(),
        };
        let mut control = [0u8; 64];
        // SAFETY: msghdr is plain data; its pointers outlive the call.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = control.len() as _;
        // SAFETY: receiving into the buffers above.
        let n = unsafe { libc::recvmsg(rx.as_raw_fd(), &mut msg, 0) };
        assert!(n >= 0, "{}", std::io::Error::last_os_error());
        // SAFETY: the kernel filled the control buffer.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            if cmsg.is_null() || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
                return None;
            }
            Some(std::ptr::read_unaligned(
                libc::CMSG_DATA(cmsg).cast::<i32>(),
            ))
        }
    }
}
