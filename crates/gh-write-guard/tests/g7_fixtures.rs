//! The G7 fixtures (`fixtures/gh-write-guard/G7/*.json`) through the decision core with the world
//! faked from each case's `env`; each deny must name G7.

use gh_write_guard::cases::replay_all;

#[test]
fn g6_fixtures_decide_as_expected() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/gh-write-guard/G7");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("G7 fixtures") {
        let p = e.expect("entry").path();
        let text = std::fs::read_to_string(&p).expect("read");
        for r in replay_all(&text).expect("a JSON array of cases") {
            n += 1;
            assert!(
                r.passed && r.requirement_matched,
                "{}: {} expected {} got {} ({:?})",
                p.display(),
                r.id,
                r.expected,
                r.got,
                r.reason
            );
        }
    }
    assert!(n >= 30, "only {n} G7 fixtures");
}
