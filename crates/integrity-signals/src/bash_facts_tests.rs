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

/// The written paths of `cmd`, run in `cwd` with `~` at `home` and the hook's `vars`.
fn writes_in(cmd: &str, cwd: &Path, home: &Path, vars: &[(String, String)]) -> Vec<PathBuf> {
    let env = Env {
        cwd: Some(cwd),
        home: Some(home),
        vars,
    };
    analyse(cmd, &env)
        .paths
        .into_iter()
        .filter(|u| matches!(u.access, Access::Write { .. }))
        .filter_map(|u| u.path)
        .collect()
}

#[test]
fn scripts_cd_functions_cdpath_and_braces_as_command_effects_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, proj) = (root.join("home"), root.join("proj"));
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(proj.join(".claude")).unwrap();
    let settings = home.join(".claude/settings.json");
    let w = |cmd: &str| writes_in(cmd, &proj, &home, &[]);
    // A script the command writes, then runs: its text is what was written.
    let got = w("printf 'echo {} > $HOME/.claude/settings.json\\n' > s.sh; bash s.sh");
    assert!(got.contains(&settings), "{got:?}");
    assert!(!w("printf 'echo hi\\n' > s.sh; bash s.sh").contains(&settings));
    // A script already on disk, run by path.
    std::fs::write(proj.join("old.sh"), "rm -f ~/.claude/settings.json\n").unwrap();
    assert!(w("sh ./old.sh").contains(&settings));
    // A program in a folder the command put in front of PATH; shell text git runs.
    std::fs::create_dir_all(proj.join("bin")).unwrap();
    std::fs::write(proj.join("bin/wr"), "echo {} > ~/.claude/settings.json\n").unwrap();
    assert!(w("PATH=bin:$PATH wr").contains(&settings));
    assert!(!w("PATH=tools:$PATH wr").contains(&settings));
    assert!(w("GIT_EDITOR='rm ~/.claude/settings.json' git commit").contains(&settings));
    // A function that shadows `cd` decides where `cd x` goes.
    let h = home.display();
    let got = w(&format!(
        "cd() {{ builtin cd {h}/.claude; }}; cd x && echo {{}} > settings.json"
    ));
    assert_eq!(got, vec![settings.clone()]);
    let got = w("cd() { builtin cd \"$@\"; }; cd src && echo x > notes.txt");
    assert_eq!(got, vec![proj.join("src/notes.txt")]);
    // Brace-built command words are the words bash makes.
    assert!(w(&format!("{{tee,{h}/.claude/settings.json}} < /dev/null")).contains(&settings));
    // CDPATH is searched before the current directory, from the command or the hook's.
    let got = w(&format!(
        "CDPATH={h} cd .claude && echo {{}} > settings.json"
    ));
    assert_eq!(got, vec![settings.clone()]);
    let vars = [("CDPATH".to_string(), h.to_string())];
    let got = writes_in("cd .claude && echo {} > settings.json", &proj, &home, &vars);
    assert_eq!(got, vec![settings.clone()]);
    let got = w("cd .claude && echo {} > settings.json");
    assert_eq!(got, vec![proj.join(".claude/settings.json")]);
}
