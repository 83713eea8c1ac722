//! Tests of [`super`]: what a command reads, writes and names.
use super::*;
use proptest::prelude::*;

fn env() -> Env<'static> {
    Env::project(true)
}

#[test]
fn writes_reads_and_names_after_cd_and_home() {
    let f = analyse("cd ~/x && cat a.txt > out/b.txt; HOME=/h2 rm ~/y", &env());
    let got: Vec<(String, Access)> = f
        .paths
        .iter()
        .map(|u| (u.path.as_ref().unwrap().display().to_string(), u.access))
        .collect();
    assert!(
        got.contains(&("/home/u/x/a.txt".into(), Access::Read)),
        "{got:?}"
    );
    assert!(got.contains(&(
        "/home/u/x/out/b.txt".into(),
        Access::Write { destructive: false }
    )));
    assert!(
        got.contains(&("/h2/y".into(), Access::Write { destructive: true })),
        "{got:?}"
    );
    let f = analyse(
        "python3 -c 'print(1)' && node -e \"fetch('https://x.example/a')\"",
        &env(),
    );
    assert_eq!(f.scripts.len(), 2);
    assert_eq!(f.destinations[0].host, "x.example");
    let f = analyse("cd \"$(mktemp -d)\" && echo hi > a", &env());
    assert_eq!(
        f.paths[0].path, None,
        "a cd decided at run time leaves the path relative"
    );
}

#[test]
fn variables_the_command_assigns_are_expanded() {
    let path_of = |cmd: &str| {
        analyse(cmd, &env())
            .paths
            .iter()
            .filter(|u| u.program != "export")
            .map(|u| u.path.as_ref().map(|p| p.display().to_string()))
            .collect::<Vec<_>>()
    };
    let want = vec![Some("/home/u/.claude/settings.json".to_string())];
    assert_eq!(
        path_of("H=$HOME; echo '{}' > $H/.claude/settings.json"),
        want
    );
    assert_eq!(path_of("D=~/.claude; echo > \"$D/settings.json\""), want);
    assert_eq!(
        path_of("export D=${HOME}/.claude; echo > $D/settings.json"),
        want
    );
    assert_eq!(
        path_of("A=$HOME; B=$A/.claude; echo > $B/settings.json"),
        want
    );
    // A self-reference or a substitution stays unknown (no path), never the outer value.
    let none: Vec<Option<String>> = Vec::new();
    assert_eq!(path_of("X=$X/b; echo > $X/c"), none);
    assert_eq!(path_of("export X=$(pwd); echo > $X/c"), none);
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_commands(cmd in "[ -~\\n\u{e9}\u{2019}]{0,120}") {
        let f = analyse(&cmd, &env());
        let p = crate::i3_tamper::Protected::from_env(&|k| (k == "HOME").then(|| "/home/u".to_string()), None);
        let _ = p.bash_hits(&f);
        let _ = crate::i2_fabricated_claims::runners_of(&cmd);
        let _ = crate::i2_fabricated_claims::output_failed(&cmd, true);
    }
}
