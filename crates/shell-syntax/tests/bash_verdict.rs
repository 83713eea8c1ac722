//! Our syntax-error verdict agrees with `bash -n` on every hand-written shape.

mod common;

/// Shapes where we knowingly differ from `bash -n` in its default (non-extglob) mode: we
/// always accept extglob patterns, since a guard must read scripts that enable them.
const KNOWN_DIFFERENT: &[&str] = &["extglob_forms"];

#[test]
fn verdicts_match_bash_on_shapes() {
    let mut mismatches = Vec::new();
    for (name, src) in common::shapes() {
        if KNOWN_DIFFERENT.contains(&name.as_str()) {
            continue;
        }
        let ours = shell_syntax::parse(&src).error;
        let bash = common::bash_accepts(&src);
        if ours.is_none() != bash {
            mismatches.push(format!("{name}: bash ok={bash}, ours={ours:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn extglob_is_accepted_like_bash_with_extglob_on() {
    let src = "ls !(a|b) @(x|y) ?(z) *(w) +(v)";
    assert!(shell_syntax::parse(src).error.is_none());
    assert!(common::bash(&["-O", "extglob", "-n", "-c", src])
        .status
        .success());
}
