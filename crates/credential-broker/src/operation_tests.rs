//! Each request shape the requirement names, read into its operation.

use super::*;
use command_effects::git_push::PushKind;

fn pkt(s: &str) -> Vec<u8> {
    let mut v = format!("{:04x}", s.len() + 4).into_bytes();
    v.extend_from_slice(s.as_bytes());
    v
}

const A: &str = "1111111111111111111111111111111111111111";
const B: &str = "2222222222222222222222222222222222222222";

fn push_body(refname: &str) -> Vec<u8> {
    let mut b = pkt(&format!("{A} {B} {refname}\0report-status side-band-64k\n"));
    b.extend(b"0000PACK");
    b
}

#[test]
fn pushes_name_their_repository_and_refs() {
    let op = classify(
        "github.com",
        "POST",
        "/maintainer/app.git/git-receive-pack",
        &push_body("refs/heads/main"),
    )
    .unwrap();
    let Operation::Push { repo, request } = &op else {
        panic!("{op:?}")
    };
    assert_eq!(
        (repo.host.as_str(), repo.owner.as_str(), repo.repo.as_str()),
        ("github.com", "maintainer", "app")
    );
    assert_eq!(request.commands[0].kind(), PushKind::Update);
    assert_eq!(op.ref_updates(), ["refs/heads/main update"]);
    assert!(op.is_write());
    // Without `.git`, and with dot segments or escapes that resolve elsewhere.
    let op = classify(
        "github.com",
        "POST",
        "/x/../stranger/app/git-receive-pack",
        &push_body("refs/heads/f"),
    )
    .unwrap();
    assert!(matches!(op, Operation::Push { ref repo, .. } if repo.owner == "stranger"));
    let op = classify(
        "github.com",
        "POST",
        "/%73tranger/app.git/git-receive-pack",
        &push_body("refs/heads/f"),
    )
    .unwrap();
    assert!(matches!(op, Operation::Push { ref repo, .. } if repo.owner == "stranger"));
}

#[test]
fn what_cannot_be_read_is_an_error_never_a_read() {
    assert!(matches!(
        classify(
            "github.com",
            "POST",
            "/app.git/git-receive-pack",
            &push_body("refs/heads/f")
        ),
        Err(Unread::Url(_))
    ));
    assert!(matches!(
        classify(
            "github.com",
            "POST",
            "/o/r.git/git-receive-pack",
            b"garbage"
        ),
        Err(Unread::Body(_))
    ));
    assert!(matches!(
        classify("github.com", "POST", "/o/r.git/git-receive-pack", b""),
        Err(Unread::Body(_))
    ));
}

#[test]
fn reads_and_other_writes() {
    assert!(!classify(
        "github.com",
        "GET",
        "/o/r.git/info/refs?service=git-receive-pack",
        b""
    )
    .unwrap()
    .is_write());
    assert!(
        !classify("github.com", "POST", "/o/r.git/git-upload-pack", b"0000")
            .unwrap()
            .is_write()
    );
    let other = classify(
        "github.com",
        "POST",
        "/o/r.git/info/lfs/objects/batch",
        b"{}",
    )
    .unwrap();
    assert!(matches!(other, Operation::UnknownWrite));
    let api = classify("api.github.com", "PUT", "/repos/o/r/pulls/1/merge", b"{}").unwrap();
    assert!(matches!(&api, Operation::Api(a) if a.host == "github.com" && a.is_write()));
    let q = classify(
        "api.github.com",
        "POST",
        "/graphql",
        br#"{"query":"query { viewer { login } }"}"#,
    )
    .unwrap();
    assert!(!q.is_write(), "a GraphQL query is a read");
    // An enterprise host: git at the root, the API under /api/.
    assert!(matches!(
        classify("ghe.example", "POST", "/api/v3/repos/o/r/issues", b"{}").unwrap(),
        Operation::Api(_)
    ));
    assert_eq!(rules_host("API.github.com"), "github.com");
}
