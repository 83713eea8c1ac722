//! Framing read from the requirement: bounded, exact, and the smuggling shapes refused.

use super::*;

fn head(text: &str) -> Result<Head, ReadError> {
    read_head(&mut text.as_bytes(), 1024)
}

#[test]
fn a_request_with_a_chunked_body() {
    let raw = "POST /o/r.git/git-receive-pack HTTP/1.1\r\nHost: github.com\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n2;x=y\r\nef\r\n0\r\nTrailer: 1\r\n\r\nNEXT";
    let mut r = raw.as_bytes();
    let h = read_head(&mut r, 1024).unwrap();
    assert_eq!(h.first[0], "POST");
    assert_eq!(h.header("host"), Some("github.com"));
    assert_eq!(
        read_body(&mut r, h.framing().unwrap(), 100).unwrap(),
        b"abcdef"
    );
    assert_eq!(
        r, b"NEXT",
        "keep-alive: the next message starts right after"
    );
}

#[test]
fn bounds_hold() {
    let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(2000));
    assert!(matches!(head(&long), Err(ReadError::HeadTooLarge(_))));
    let h = head("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n").unwrap();
    let mut r: &[u8] = &[0; 101];
    assert!(matches!(
        read_body(&mut r, h.framing().unwrap(), 100),
        Err(ReadError::BodyTooLarge(100))
    ));
    let mut chunked: &[u8] = b"40\r\n";
    assert!(matches!(
        read_body(&mut chunked, Framing::Chunked, 10),
        Err(ReadError::BodyTooLarge(10))
    ));
    assert!(matches!(head(""), Err(ReadError::Closed)));
}

#[test]
fn smuggling_shapes_are_malformed() {
    for raw in [
        "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    ] {
        let h = head(raw).unwrap();
        assert!(
            matches!(h.framing(), Err(ReadError::Malformed(_))),
            "{raw:?}"
        );
    }
    assert!(matches!(
        head("POST / HTTP/1.1\r\nBad Header : x\r\n\r\n"),
        Err(ReadError::Malformed(_))
    ));
    assert!(
        matches!(
            head("GET / HTTP/1.1\r\nHost: x\r\n"),
            Err(ReadError::Malformed(_))
        ),
        "cut before the blank line"
    );
    let mut bad: &[u8] = b"zz\r\n";
    assert!(matches!(
        read_body(&mut bad, Framing::Chunked, 10),
        Err(ReadError::Malformed(_))
    ));
}

#[test]
fn a_relayed_body_keeps_its_framing() {
    let mut r: &[u8] = b"3\r\nabc\r\n0\r\n\r\nrest";
    let mut out = Vec::new();
    assert!(relay_body(&mut r, &mut out, Framing::Chunked).unwrap());
    assert_eq!(out, b"3\r\nabc\r\n0\r\n\r\n");
    let mut r: &[u8] = b"abcdef";
    let mut out = Vec::new();
    assert!(relay_body(&mut r, &mut out, Framing::Length(4)).unwrap());
    assert_eq!(out, b"abcd");
    let mut short: &[u8] = b"ab";
    assert!(relay_body(&mut short, &mut Vec::new(), Framing::Length(4)).is_err());
}
