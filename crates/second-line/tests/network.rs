//! Network use observed at the source: a script's `connect` to a non-local address is recorded
//! (destination, port, time, program) and taints the session (K5); a loopback connect is not
//! network use; with `network_allow` and `mode = "enforce"` other destinations are refused.

mod common;
use common::*;

const CONNECT: &str = r#"
import socket, sys
for host, port in [("192.0.2.1", 9), ("127.0.0.1", int(sys.argv[1]))]:
    s = socket.socket()
    s.settimeout(0.3)
    try:
        s.connect((host, port))
        print(host, "connected")
    except OSError as e:
        print(host, "errno", e.errno)
    finally:
        s.close()
"#;

fn ledger_tainted(w: &World) -> bool {
    std::fs::read_to_string(w.session_dir().join("ledger.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|v| v[taint::LEDGER_KEY]["tainted"] == true)
}

#[test]
fn a_non_local_connect_is_recorded_and_taints_and_loopback_is_not_network_use() {
    let Some(w) = root_world("net-observe") else {
        return;
    };
    let (_listener, port) = loopback_listener();
    let out = w.ran("python3", &["-c", CONNECT, &port]);
    out.prints(&["127.0.0.1 connected"]);
    assert!(
        !out.stdout.contains("192.0.2.1 errno 1\n"),
        "not refused in observe mode: {}",
        out.stdout
    );
    let records = w.wait_record(|r| r["layer"] == "network");
    let net: Vec<_> = records.iter().filter(|r| r["layer"] == "network").collect();
    assert_eq!(net.len(), 1, "{net:?}");
    assert_eq!(net[0]["destination"], "192.0.2.1:9");
    assert_eq!(net[0]["port"], 9);
    assert_eq!(net[0]["program"], "python3");
    assert_eq!(net[0]["decision"], "recorded");
    assert!(net[0]["time"].as_str().is_some());
    eventually("the session is tainted", || ledger_tainted(&w));
}

#[test]
fn in_enforce_mode_destinations_outside_network_allow_are_refused() {
    let Some(w) = root_world("net-enforce") else {
        return;
    };
    std::fs::write(
        w.home().join(".config/agent-guards/config.toml"),
        "mode = \"enforce\"\nnetwork_allow = [\"localhost\"]\n",
    )
    .unwrap();
    let (_listener, port) = loopback_listener();
    w.ran("python3", &["-c", CONNECT, &port])
        .prints(&["192.0.2.1 errno 1\n", "127.0.0.1 connected"])
        .says(&["agent-guards: refused connecting to 192.0.2.1:9 (I1.network: "]);
    let records = w.wait_record(|r| r["layer"] == "network");
    assert!(records
        .iter()
        .any(|r| r["layer"] == "network" && r["decision"] == "deny"));
}

/// A root world in enforce mode allowing only `localhost`, with a loopback UDP socket to send
/// to and its port.
fn enforcing_world(name: &str) -> Option<(World, std::net::UdpSocket, String)> {
    let w = root_world(name)?;
    std::fs::write(
        w.home().join(".config/agent-guards/config.toml"),
        "mode = \"enforce\"\nnetwork_allow = [\"localhost\"]\n",
    )
    .unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = udp.local_addr().unwrap().port().to_string();
    Some((w, udp, port))
}

const DATAGRAMS: &str = r#"
import socket, sys
port = int(sys.argv[1])
def send(label, host, p):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.sendto(b"x", (host, p))
        print(label, "sent")
    except OSError as e:
        print(label, "errno", e.errno)
send("udp-out", "192.0.2.1", 9)
send("udp-53-not-a-resolver", "192.0.2.1", 53)
send("udp-loopback", "127.0.0.1", port)
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
c.connect(("127.0.0.1", port))
c.send(b"y")
print("connected send ok")
"#;

#[test]
fn datagrams_to_an_address_are_judged_like_connects_and_port_53_is_not_a_pass() {
    // Issue 41: UDP sendto left unseen, and any destination on port 53 was exempt as a name
    // lookup. In enforce mode both are refused before a packet leaves; loopback and a send on a
    // connected socket (no address: never notified) go through.
    let Some((w, _udp, port)) = enforcing_world("net-datagrams") else {
        return;
    };
    w.ran("/usr/bin/python3", &["-c", DATAGRAMS, &port])
        .prints(&[
            "udp-out errno 1\n",
            "udp-53-not-a-resolver errno 1\n",
            "udp-loopback sent",
            "connected send ok",
        ])
        .says(&["agent-guards: refused connecting to 192.0.2.1:53 (I1.network: "]);
}

const MESSAGES: &str = r#"
import ctypes, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
port = int(sys.argv[1])
def attempt(label, f):
    try:
        r = f()
        print(label, "errno", ctypes.get_errno()) if isinstance(r, int) and r < 0 else print(label, "sent")
    except OSError as e:
        print(label, "errno", e.errno)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
attempt("msg-out", lambda: u.sendmsg([b"x"], [], 0, ("192.0.2.1", 9)))
attempt("msg-loopback", lambda: u.sendmsg([b"x"], [], 0, ("127.0.0.1", port)))
attempt("msg-fastopen", lambda: socket.socket().sendmsg([b"x"], [], 0x20000000, ("127.0.0.1", port)))
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
c.connect(("127.0.0.1", port))
attempt("msg-connected", lambda: c.sendmsg([b"y"]))
class sockaddr_in(ctypes.Structure):
    _fields_ = [("family", ctypes.c_ushort), ("port", ctypes.c_uint16), ("addr", ctypes.c_uint32), ("zero", ctypes.c_char * 8)]
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class mmsghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32), ("iov", ctypes.c_void_p), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t), ("flags", ctypes.c_int), ("pad", ctypes.c_int), ("len", ctypes.c_uint)]
def addr(ip, p):
    return sockaddr_in(socket.AF_INET, socket.htons(p), int.from_bytes(socket.inet_aton(ip), "little"))
data = ctypes.create_string_buffer(b"z")
io = iovec(ctypes.cast(data, ctypes.c_void_p), 1)
def mmsg(*dests):
    addrs = [addr(ip, p) for ip, p in dests]
    vec = (mmsghdr * len(addrs))()
    for m, a in zip(vec, addrs):
        m.name, m.namelen = ctypes.addressof(a), ctypes.sizeof(a)
        m.iov, m.iovlen = ctypes.addressof(io), 1
    return libc.sendmmsg(u.fileno(), vec, len(addrs), 0)
attempt("mmsg-second-out", lambda: mmsg(("127.0.0.1", port), ("192.0.2.1", 9)))
attempt("mmsg-loopback", lambda: mmsg(("127.0.0.1", port), ("127.0.0.1", port)))
attempt("msg-bad-header", lambda: libc.sendmsg(u.fileno(), ctypes.c_void_p(16), 0))
"#;

#[test]
fn messages_to_an_address_are_judged_like_connects() {
    // Issue 41 item 4: sendmsg and sendmmsg carry their destination in the message header,
    // past the judged connect and sendto. In enforce mode a non-local one is refused before a
    // packet leaves (the whole sendmmsg when any message's is); loopback, a send on a connected
    // socket and the evidence in observe mode go on.
    let Some((mut w, _udp, port)) = enforcing_world("net-messages") else {
        return;
    };
    let out = w.ran("/usr/bin/python3", &["-c", MESSAGES, &port]);
    out.prints(&[
        "msg-out errno 1\n",
        "msg-loopback sent",
        "msg-fastopen errno 1\n",
        "msg-connected sent",
        "mmsg-second-out errno 1\n",
        "mmsg-loopback sent",
        // An unreadable header fails closed (the kernel alone would say EFAULT).
        "msg-bad-header errno 1\n",
    ])
    .says(&["agent-guards: refused connecting to 192.0.2.1:9 (I1.network: "]);
    assert_eq!(
        out.said("(C10.unjudged"),
        1,
        "only the bad header:\n{}",
        out.stderr
    );
    // Observe mode: sent, and recorded as network evidence.
    std::fs::write(
        w.home().join(".config/agent-guards/config.toml"),
        "mode = \"observe\"\n",
    )
    .unwrap();
    w.session = format!("{}-observe", w.session);
    w.ran("/usr/bin/python3", &["-c", MESSAGES, &port])
        .prints(&["msg-out sent", "mmsg-second-out sent"]);
    let records = w.wait_record(|r| r["destination"] == "192.0.2.1:9");
    assert!(
        records
            .iter()
            .any(|r| r["layer"] == "network" && r["destination"] == "192.0.2.1:9"),
        "{records:?}"
    );
    assert!(ledger_tainted(&w));
}
