//! Limits: deep nesting, huge input, many heredocs and the work budget end in a typed error,
//! never a stack overflow or a hang. Runs on test threads (2 MiB stacks), like a guard's
//! worker would.

use shell_syntax::{commands, parse, parse_with, ErrorKind, Limits};

fn nested(open: &str, close: &str, n: usize) -> String {
    let mut s = String::with_capacity(n * (open.len() + close.len()) + 8);
    for _ in 0..n {
        s.push_str(open);
    }
    s.push_str("echo x");
    for _ in 0..n {
        s.push_str(close);
    }
    s
}

fn assert_too_deep(src: &str) {
    let p = parse(src);
    let err = p.error.clone().expect("deep input must be rejected");
    assert!(
        matches!(err.kind, ErrorKind::TooDeep { .. }),
        "unexpected error {err:?}"
    );
    // The view of the (empty) partial tree is fine too.
    let v = commands(&p);
    assert!(v.invocations.is_empty());
}

const SHAPES: &[(&str, &str)] = &[
    ("( ", " )"),
    ("$(", ")"),
    ("{ ", ";}"),
    ("\"$(", ")\""),
    ("if true; then ", "; fi"),
    ("`", "`"),
    ("${x:-", "}"),
    ("$((", "))"),
    ("<(", ")"),
    ("while true; do ", "; done"),
    ("case x in x) ", ";; esac"),
    ("f() { ", "; }"),
];

/// Shapes that do not nest in the tree (flat word lists, repeated wrappers): they must
/// simply complete without error or with a view limit.
const FLAT: &[(&str, &str)] = &[
    ("eval ", ""),
    ("[[ ( ", " ) ]]"),
    ("sudo ", ""),
    ("env -S nice ", ""),
    ("! ", ""),
    ("true && ", ""),
    ("export A=1; cd x; exec 2>/dev/null; ", ""),
    ("echo a | ", ""),
];

#[test]
fn flat_repetition_completes() {
    for (open, close) in FLAT {
        let src = nested(open, close, 10_000);
        let p = parse(&src);
        let _ = commands(&p);
    }
}

#[test]
fn ten_thousand_levels_error_out() {
    for (open, close) in SHAPES {
        if *open == "`" {
            continue; // backticks do not nest without escaping; covered below
        }
        assert_too_deep(&nested(open, close, 10_000));
    }
}

#[test]
fn hundred_thousand_levels_error_out() {
    for (open, close) in [
        ("( ", " )"),
        ("$(", ")"),
        ("{ ", ";}"),
        ("\"$(", ")\""),
        ("if true; then ", "; fi"),
    ] {
        assert_too_deep(&nested(open, close, 100_000));
    }
}

#[test]
fn nested_escaped_backticks_error_out() {
    // Each level doubles the escaping; 12 levels is already deep and large.
    let mut s = "echo x".to_string();
    for _ in 0..12 {
        let escaped = s.replace('\\', "\\\\").replace('`', "\\`");
        s = format!("echo `{escaped}`");
    }
    let p = parse_with(
        &s,
        &Limits {
            max_depth: 10,
            ..Limits::default()
        },
    );
    assert!(matches!(
        p.error.map(|e| e.kind),
        Some(ErrorKind::TooDeep { .. })
    ));
}

#[test]
fn within_the_limit_parses_and_views() {
    // 30 levels of every shape parse fine and the view finds the innermost command.
    for (open, close) in SHAPES {
        if *open == "`" {
            continue;
        }
        let src = nested(open, close, 30);
        let p = parse(&src);
        assert!(p.error.is_none(), "{open}: {:?}", p.error);
        let v = commands(&p);
        if *open != "$((" && *open != "${x:-" {
            assert!(
                v.invocations.iter().any(|i| i.name() == Some("echo")),
                "{open}: no echo found"
            );
        }
    }
}

#[test]
fn input_too_large() {
    let p = parse_with(
        "echo hi",
        &Limits {
            max_input: 3,
            ..Limits::default()
        },
    );
    assert_eq!(
        p.error.map(|e| e.kind),
        Some(ErrorKind::InputTooLarge { size: 7, limit: 3 })
    );
}

#[test]
fn too_many_heredocs() {
    let src = "cat <<A <<B <<C\na\nA\nb\nB\nc\nC\n";
    let p = parse_with(
        src,
        &Limits {
            max_heredocs: 2,
            ..Limits::default()
        },
    );
    assert_eq!(
        p.error.map(|e| e.kind),
        Some(ErrorKind::TooManyHeredocs { limit: 2 })
    );
    assert!(parse(src).error.is_none());
}

#[test]
fn work_budget() {
    let src = "echo a b c d e f g h i j k l m n o p\n".repeat(100);
    let p = parse_with(
        &src,
        &Limits {
            max_work: 500,
            ..Limits::default()
        },
    );
    let err = p.error.clone().expect("budget must run out");
    assert_eq!(err.kind, ErrorKind::WorkBudget { limit: 500 });
    // The complete lines before the budget ran out are kept.
    assert!(!p.script().body.items.is_empty());
    assert!(err.unparsed_from > 0);
}

#[test]
fn nested_shells_are_bounded() {
    // 40 nested `eval`s: the view stops at its nesting limit with an error.
    let s = format!("{}git push", "eval ".repeat(40));
    let p = parse(&s);
    assert!(p.error.is_none());
    let v = commands(&p);
    assert!(v.error.is_some());
    assert!(v.invocations.len() >= 16);
}

#[test]
fn eval_bomb_is_bounded() {
    // eval of eval of ... with growing text stays within the nested-bytes budget.
    let mut s = "eval x".to_string();
    for _ in 0..8 {
        s = format!(
            "eval {} \\; {}",
            shell_words::quote(&s),
            shell_words::quote(&s)
        );
    }
    let p = parse(&s);
    assert!(p.error.is_none());
    let v = commands(&p);
    // Every level was visited (2^8 innermost `eval x`s), within the budgets.
    assert!(
        v.invocations
            .iter()
            .filter(|i| i.name() == Some("x"))
            .count()
            >= 256
    );
}
