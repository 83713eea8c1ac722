//! Constant propagation and constant scripts fed to a shell (issue 42, round 3d), each checked
//! against real bash: where the view gives a run-time word a value, bash expands it to exactly
//! that value; where the text may change it at run time, the view leaves it run-time (and bash,
//! started with `B=outer` in its environment, shows that the value does depend on the run).

use shell_syntax::view::OriginKind;
use shell_syntax::{commands, parse};
use std::process::Command;

/// What bash prints for `src` (with `B=outer` exported, as an agent's earlier command could).
fn bash(src: &str) -> String {
    let out = Command::new("bash")
        .args(["-c", src])
        .env("B", "outer")
        .output()
        .expect("bash on PATH");
    String::from_utf8_lossy(&out.stdout).trim_end().to_string()
}

/// The value the view gives the last argument of the last `printf` in `src`.
fn view_value(src: &str) -> Option<String> {
    let p = parse(src);
    assert!(p.error.is_none(), "{src}: {:?}", p.error);
    let v = commands(&p);
    let inv = v
        .invocations
        .iter()
        .rev()
        .find(|i| i.name() == Some("printf"))
        .unwrap_or_else(|| panic!("no printf in {src}"));
    inv.args.last()?.value.as_deref().map(String::from)
}

const SHOW: &str = "printf '%s\\n' HEAD:$B";

#[test]
fn pinned_constants_are_what_bash_expands() {
    for pre in [
        "B=main;",
        "B=feature; B=main;",
        "export B=main &&",
        "eval 'B=main';",
        "(B=other); B=main;",
        "B=main; for i in 1 2; do :; done;",
    ] {
        let src = format!("{pre} {SHOW}");
        assert_eq!(view_value(&src).as_deref(), Some("HEAD:main"), "{src}");
        assert_eq!(bash(&src), "HEAD:main", "{src}");
    }
    let src = "B='a b'; printf '%s\\n' \"HEAD:$B\"";
    assert_eq!(view_value(src).as_deref(), Some("HEAD:a b"));
    assert_eq!(bash(src), "HEAD:a b");
}

#[test]
fn values_the_run_decides_stay_run_time() {
    // Each: the view leaves the word run-time, and bash shows another value than the last
    // literal assignment before the use.
    for (pre, bash_says) in [
        ("B=feature; if true; then B=main; fi;", "HEAD:main"),
        ("B=main; if false; then B=feature; fi;", "HEAD:main"),
        ("B=feature; for B in main; do :; done;", "HEAD:main"),
        ("f() { B=main; }; B=feature; f;", "HEAD:main"),
        ("B=feature; true && B=main;", "HEAD:main"),
        ("B=feature; declare -n B=M; M=main;", "HEAD:main"),
        ("B=; : ${B:=main};", "HEAD:main"),
        ("B=ma; B+=in;", "HEAD:main"),
        ("trap 'B=main' DEBUG; B=feature;", "HEAD:main"),
        ("B=feature printf '%s\\n' x >/dev/null;", "HEAD:outer"),
    ] {
        let src = format!("{pre} {SHOW}");
        assert_eq!(view_value(&src), None, "{src}");
        assert_eq!(bash(&src), bash_says, "{src}");
    }
    // A use inside a loop that changes the name on a later turn.
    let src = format!("B=feature; for i in 1 2; do {SHOW}; B=main; done");
    assert_eq!(view_value(&src), None);
    assert_eq!(bash(&src), "HEAD:feature\nHEAD:main");
    // Unquoted values that split or glob are left alone.
    let src = "B='a b'; printf '%s\\n' HEAD:$B";
    assert_eq!(view_value(src), None);
    assert_eq!(bash(src), "HEAD:a\nb");
}

#[test]
fn a_new_shell_sees_only_exported_constants() {
    let src = "B=main; bash -c 'printf \"%s\\n\" HEAD:$B'";
    assert_eq!(view_value(src), None);
    assert_eq!(bash(src), "HEAD:main"); // B was exported by the environment: its value changed
    let src = "unset B; B=main; bash -c 'printf \"%s\\n\" HEAD:$B'";
    assert_eq!(view_value(src), None);
    assert_eq!(bash(src), "HEAD:");
    let src = "B=main bash -c 'printf \"%s\\n\" HEAD:$B'";
    assert_eq!(view_value(src).as_deref(), Some("HEAD:main"));
    assert_eq!(bash(src), "HEAD:main");
}

#[test]
fn constant_scripts_fed_to_a_shell_are_read() {
    for src in [
        "{ echo cd /tmp; echo 'printf %s\\\\n ok'; } | sh",
        "( printf '%s\\n' 'printf %s\\\\n ok' ) | bash -s",
        "bash < <(echo 'printf %s\\\\n ok')",
        "sh < <(echo cd /tmp; echo 'printf %s\\\\n ok')",
        "bash <(echo cd /tmp; echo 'printf %s\\\\n ok')",
        "{ printf 'printf %%s '; echo ok; } | sh",
    ] {
        let p = parse(src);
        let v = commands(&p);
        let nested = v
            .invocations
            .iter()
            .find(|i| i.name() == Some("printf") && !i.origin.is_empty())
            .unwrap_or_else(|| panic!("{src}: the script was not read"));
        assert!(
            matches!(
                v.origins[nested.origin[0]].kind,
                OriginKind::ShellPipe { .. }
            ),
            "{src}"
        );
        assert_eq!(
            nested.args.last().and_then(|a| a.value.as_deref()),
            Some("ok"),
            "{src}"
        );
        assert_eq!(bash(src), "ok", "{src}");
    }
    // Output sent elsewhere is not the script; a producer the view cannot read leaves none.
    for (src, ran) in [
        (
            "{ echo 'printf %s\\\\n no' >&2; echo 'printf %s\\\\n ok'; } | sh 2>/dev/null",
            "ok",
        ),
        (
            "{ echo 'printf %s\\\\n ok'; cat notes; } 2>/dev/null | sh",
            "ok",
        ),
    ] {
        let p = parse(src);
        let v = commands(&p);
        let read: Vec<_> = v
            .invocations
            .iter()
            .filter(|i| !i.origin.is_empty())
            .filter_map(|i| i.args.last().and_then(|a| a.value.as_deref()))
            .collect();
        assert!(!read.contains(&"no"), "{src}: {read:?}");
        assert_eq!(bash(src), ran, "{src}");
    }
}

/// Round 3e: a substitution whose output the text decides, and the positional parameters of
/// `bash -c`, have the value bash expands them to; where the run decides (an unquoted output
/// bash splits, `shift`, a program that is no producer) the word stays run-time.
#[test]
fn substitutions_and_positionals_are_what_bash_expands() {
    for (src, want) in [
        ("printf '%s\\n' HEAD:$(echo main)", "HEAD:main"),
        ("printf '%s\\n' \"HEAD:$(printf main)\"", "HEAD:main"),
        ("printf '%s\\n' HEAD:`echo main`", "HEAD:main"),
        ("printf '%s\\n' HEAD:$(printf '%s\\n\\n' main)", "HEAD:main"),
        ("printf '%s\\n' HEAD:$(echo -n ma)in", "HEAD:main"),
        ("printf '%s\\n' HEAD:$(echo $(echo main))", "HEAD:main"),
        ("printf '%s\\n' \"HEAD:$(echo 'a  b')\"", "HEAD:a  b"),
        ("printf '%s\\n' HEAD:$( (echo main) )", "HEAD:main"),
        (
            "printf '%s\\n' HEAD:$({ echo ma; echo in; } | tr -d '\\n')",
            "",
        ),
        ("B=feature; printf '%s\\n' HEAD:${B:-main}", "HEAD:feature"),
        ("B=; printf '%s\\n' \"HEAD:${B:-main}\"", "HEAD:main"),
        ("B=; printf '%s\\n' \"HEAD:${B-main}\"", "HEAD:"),
        ("bash -c 'printf \"%s\\n\" HEAD:$1' _ main", "HEAD:main"),
        ("bash -c 'printf \"%s\\n\" HEAD:$0' main", "HEAD:main"),
        ("sh -c 'printf \"%s\\n\" HEAD:\"$2\"' _ a main", "HEAD:main"),
        (
            "bash -c 'bash -c \"printf %s\\\\\\\\n HEAD:\\$1\"' _ main",
            "",
        ),
    ] {
        let got = view_value(src);
        let bash_says = bash(src);
        if want.is_empty() {
            assert_eq!(got, None, "{src}: run-time (bash says {bash_says:?})");
        } else {
            assert_eq!(got.as_deref(), Some(want), "{src}");
            assert_eq!(bash_says, want, "{src}");
        }
    }
    // `"$@"` spreads the positionals into arguments: the last one is what bash prints last.
    for (src, want) in [
        (
            "bash -c 'printf \"%s\\n\" \"$@\"' _ a HEAD:main",
            "a\nHEAD:main",
        ),
        (
            "bash -c 'printf \"%s\\n\" $*' _ a HEAD:main",
            "a\nHEAD:main",
        ),
    ] {
        assert_eq!(bash(src), want, "{src}");
        assert_eq!(view_value(src).as_deref(), want.lines().last(), "{src}");
    }
    let src = "bash -c 'shift; printf \"%s\\n\" \"$@\"' _ a HEAD:main";
    assert_eq!(view_value(src), None, "{src}");
    assert_eq!(bash(src), "HEAD:main");
    // Split by bash (unquoted, a blank in the output): not one word.
    let src = "printf '%s\\n' HEAD:$(echo 'a b')";
    assert_eq!(view_value(src), None);
    assert_eq!(bash(src), "HEAD:a\nb");
    // `shift` moves the positionals: run-time, and bash shows the second word.
    let src = "bash -c 'shift; printf \"%s\\n\" HEAD:$1' _ feature main";
    assert_eq!(view_value(src), None);
    assert_eq!(bash(src), "HEAD:main");
}

/// The values `Env::candidates` lists for the last `printf` argument of `src`, and whether
/// they are all it can be.
fn view_candidates(src: &str) -> Option<(Vec<String>, bool)> {
    let p = parse(src);
    let v = commands(&p);
    let inv = v
        .invocations
        .iter()
        .rev()
        .find(|i| i.name() == Some("printf"))?;
    let c = inv.env.candidates(&inv.args.last()?.word)?;
    Some((c.values, c.complete))
}

/// Round 3e: the values the text may give a run-time word include every value bash prints
/// for it on the path that runs; complete only where bash can print nothing else (a `for`
/// loop's literal words around it), never where the command's environment may hold another.
#[test]
fn candidates_hold_what_bash_prints() {
    for (src, complete) in [
        (
            "for b in feature/a feature/b; do printf '%s\\n' \"HEAD:$b\"; done",
            true,
        ),
        (
            "B=feature/x; if true; then B=main; fi; printf '%s\\n' HEAD:$B",
            false,
        ),
        (
            "B=feature/x; [ -d / ] && B=main; printf '%s\\n' HEAD:$B",
            false,
        ),
        ("printf '%s\\n' \"HEAD:${B:-main}\"", false),
        // An assignment outside the list in the body: no longer all it can be.
        (
            "for b in feature/a; do b=main; printf '%s\\n' \"HEAD:$b\"; done",
            false,
        ),
    ] {
        let (values, got_complete) = view_candidates(src).unwrap_or_else(|| panic!("{src}"));
        assert_eq!(got_complete, complete, "{src}: {values:?}");
        for line in Command::new("bash")
            .args(["-c", src])
            .env_remove("B")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).to_string())
            .expect("bash")
            .lines()
        {
            assert!(
                values.iter().any(|v| v == line),
                "{src}: bash printed {line}, view lists {values:?}"
            );
        }
    }
    // A for variable read at run time, or seen from a new shell, is no list.
    for src in [
        "for b in feature/a; do read -r b < /dev/null; printf '%s\\n' \"HEAD:$b\"; done",
        "for b in feature/a; do bash -c 'printf \"%s\\n\" \"HEAD:$b\"'; done",
    ] {
        assert!(view_candidates(src).is_none_or(|(_, c)| !c), "{src}");
    }
}
