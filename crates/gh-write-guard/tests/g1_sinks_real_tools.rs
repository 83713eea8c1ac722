//! G1's pipeline stages that print none of what they read: real bash and coreutils are fed a
//! write's result (a pull request URL) through each stage, and the first line refuses
//! `gh pr create ... | <stage>` exactly when the URL does not come out.

mod offline_support;
use offline_support::denies;

const STAGES: &[&str] = &[
    "true",
    ":",
    "sleep 0",
    "wc -l",
    "grep -q pull",
    "grep -qi PULL",
    "grep -c pull",
    "grep --count pull",
    "head -c0",
    "head -n 0",
    "tail -0",
    "tail --lines=0",
    "tail -c 0",
    "dd of=/dev/null",
    "true | cat",
    // Look-alikes that print it.
    "cat",
    "head -1",
    "head -c 100",
    "tail -n 1",
    "grep -i pull",
    "grep -e -q -e pull",
    "grep -o 'https://[^ ]*'",
    "tee /dev/null",
    "sort",
];

const URL: &str = "https://github.com/acme/widget/pull/1";

#[test]
fn a_write_piped_into_a_stage_that_prints_none_of_it_is_refused_exactly_then() {
    let tmp = tempfile::tempdir().unwrap();
    for stage in STAGES {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf '%s\\n' {URL} | {stage}"))
            .current_dir(tmp.path())
            .stderr(std::process::Stdio::null())
            .output()
            .expect("bash runs");
        let hidden = !String::from_utf8_lossy(&out.stdout).contains(URL);
        let line = format!("gh pr create -t a -b b | {stage}");
        let refused = denies(&line, tmp.path(), tmp.path()) == ["G1.result-hidden"];
        assert_eq!(refused, hidden, "{line} (real tools hide it: {hidden})");
    }
    // stdout closed: bash reports a write error and nothing comes out.
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("printf '%s\\n' {URL} >&-"))
        .output()
        .expect("bash runs");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(URL));
    let line = "gh pr create -t a -b b >&-";
    assert_eq!(denies(line, tmp.path(), tmp.path()), ["G1.result-hidden"]);
}
