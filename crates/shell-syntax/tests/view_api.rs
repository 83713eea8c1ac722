//! The command view answers the questions the guards ask (G1, G3, G6, G7, I3).

use shell_syntax::ast::{AndOrOp, RedirOp};
use shell_syntax::view::{CdKind, EnvSource, LoopKind, LoopPart, OriginKind, RedirSource};
use shell_syntax::{commands, parse, Invocation, Program};

/// The view of `src`. The parse is leaked so the view, which borrows its arena, can be
/// returned (a few bytes per test).
fn view(src: &str) -> shell_syntax::CommandView<'static> {
    let p: &'static _ = Box::leak(Box::new(parse(src)));
    assert!(p.error.is_none(), "{src}: {:?}", p.error);
    commands(p)
}

fn find<'v, 'a>(v: &'v shell_syntax::CommandView<'a>, name: &str) -> &'v Invocation<'a> {
    v.invocations
        .iter()
        .find(|i| i.name() == Some(name))
        .unwrap_or_else(|| panic!("no {name} invocation"))
}

#[test]
fn or_true_tail_of_an_enclosing_group_reaches_the_write() {
    let v = view("{ cd x; gh pr merge 1; } 2>/dev/null || true");
    let gh = find(&v, "gh");
    let tails: Vec<_> = gh
        .context
        .and_or
        .iter()
        .flat_map(|l| l.following().to_vec())
        .collect();
    assert_eq!(tails.len(), 1);
    assert_eq!(tails[0].0, AndOrOp::Or);
    let next = tails[0].1.as_ref().expect("simple command");
    assert_eq!(next[0].value.as_deref(), Some("true"));
    let r = &gh.redirects[0];
    assert_eq!(
        (r.fd, r.op, r.source),
        (Some(2), RedirOp::Out, RedirSource::Enclosing)
    );
    assert_eq!(r.target.value.as_deref(), Some("/dev/null"));
    assert_eq!(gh.cds.len(), 1);
}

#[test]
fn unrelated_redirections_do_not_apply() {
    let v = view("gh pr create; echo done >/dev/null");
    assert!(find(&v, "gh").redirects.is_empty());
}

#[test]
fn exec_redirections_apply_to_later_commands_only() {
    let v = view("git status; exec >/dev/null; git push");
    assert!(v.invocations[0].redirects.is_empty());
    let push = v.invocations.last().expect("push");
    assert_eq!(push.redirects[0].source, RedirSource::Exec);
}

#[test]
fn cds_follow_bash_scoping() {
    let v = view("cd /a && (cd /b; git reset --hard) ; git add . | cat; cd /c & git commit");
    let resets: Vec<_> = v
        .invocations
        .iter()
        .filter(|i| i.name() == Some("git"))
        .collect();
    let targets = |i: &Invocation| -> Vec<String> {
        i.cds
            .iter()
            .filter_map(|c| Some(c.target.as_ref()?.value.as_deref()?.to_string()))
            .collect()
    };
    assert_eq!(targets(resets[0]), ["/a", "/b"]);
    assert_eq!(targets(resets[1]), ["/a"]);
    assert_eq!(
        targets(resets[2]),
        ["/a"],
        "cd in a background job does not leak"
    );
}

#[test]
fn cds_reach_into_shell_c_and_env_chdir() {
    let v = view("cd /repo; bash -c 'cd sub && env -C deeper git checkout -f x'");
    let git = find(&v, "git");
    let kinds: Vec<CdKind> = git.cds.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [CdKind::Cd, CdKind::Cd, CdKind::EnvChdir]);
    assert_eq!(git.origin.len(), 1);
}

#[test]
fn exported_variables_and_prefixes_reach_the_command() {
    let v = view("export GH_REPO=a/b; GIT_DIR=/g env -u X GH_TOKEN=t gh pr create");
    let gh = find(&v, "gh");
    assert_eq!(
        gh.env_value("GH_REPO").map(|e| e.source),
        Some(EnvSource::Export)
    );
    assert_eq!(
        gh.env_value("GIT_DIR").map(|e| e.source),
        Some(EnvSource::Prefix)
    );
    assert_eq!(
        gh.env_value("GH_TOKEN").map(|e| e.source),
        Some(EnvSource::EnvCommand)
    );
    assert_eq!(gh.env_value("X").map(|e| e.source), Some(EnvSource::Unset));
}

#[test]
fn a_dynamic_export_keeps_its_value_word() {
    // `export X=$HOME/y` must not be dropped: a later `$X` is this word, not the outer `X`.
    let v = view("export X=$HOME/.local/state; declare -x Y=\"$X\"; rm -rf \"$X/a\"");
    let rm = find(&v, "rm");
    let x = rm.env_value("X").expect("X tracked");
    assert_eq!(x.source, EnvSource::Export);
    let value = x.value.as_ref().expect("a value word");
    assert_eq!(value.value, None, "decided at run time");
    let home = |n: &str| (n == "HOME").then(|| "/h".to_string());
    assert_eq!(
        value.word.resolve(&home).as_deref(),
        Some("/h/.local/state")
    );
    assert!(rm.env_value("Y").is_some_and(|y| y.value.is_some()));
    // A word that is not an assignment (`export "$n"`) stays untracked.
    let v = view("export \"$n\"; rm a");
    assert!(find(&v, "rm").env.is_empty());
}

#[test]
fn wait_loop_inside_timeout_shell_c() {
    let v = view("timeout 600 bash -c 'while ! gh pr checks 1; do sleep 30; done'");
    assert_eq!(v.loops.len(), 1);
    let l = &v.loops[0];
    assert_eq!(l.kind, LoopKind::While);
    let sleep = &v.invocations[l.body_invocations[0]];
    assert_eq!(sleep.name(), Some("sleep"));
    assert_eq!(sleep.context.loops[0].part, LoopPart::Body);
    let frame = &v.origins[l.origin.expect("in -c script")];
    assert_eq!(
        frame.kind,
        OriginKind::ShellC {
            shell: "bash".into()
        }
    );
    let launcher = &v.invocations[frame.launcher];
    assert_eq!(launcher.wrappers[0].name, "timeout");
    assert_eq!(launcher.wrappers[0].args[0].value.as_deref(), Some("600"));
}

#[test]
fn sleep_in_nested_loop_and_eval_counts_for_the_outer_loop() {
    let v = view("until false; do for i in 1; do eval 'sleep 1'; done; done");
    let outer = &v.loops[0];
    let names: Vec<_> = outer
        .body_invocations
        .iter()
        .filter_map(|&i| v.invocations[i].name())
        .collect();
    assert!(names.contains(&"sleep"));
    assert_eq!(v.loops[1].parent, Some(0));
}

#[test]
fn counter_bound_is_visible_in_the_condition() {
    let v = view("while [[ $i -lt 10 ]]; do sleep 1; done");
    let cond = &v.invocations[v.loops[0].condition_invocations[0]];
    assert_eq!(cond.name(), Some("[["));
    assert!(cond.args.iter().any(|a| a.value.as_deref() == Some("-lt")));
}

#[test]
fn while_read_from_a_file_has_its_redirect() {
    let v = view("while read -r l; do sleep 1; done < list.txt");
    let r = &v.loops[0].redirects[0];
    assert_eq!(
        (r.op, r.target.value.as_deref()),
        (RedirOp::In, Some("list.txt"))
    );
}

#[test]
fn heredoc_fed_to_a_shell_is_walked_and_plain_heredocs_are_data() {
    let v = view("cat <<'EOF' | sh\ngit push\nEOF\ncat <<EOF\ngit push\nEOF\n");
    let pushes = v
        .invocations
        .iter()
        .filter(|i| i.name() == Some("git"))
        .count();
    assert_eq!(pushes, 1);
}

#[test]
fn dynamic_program_and_dynamic_script() {
    let v = view("$GIT push; bash -c \"$CMD\"");
    assert!(matches!(v.invocations[0].program, Program::Dynamic(_)));
    let inner = v.invocations.last().expect("inner");
    assert!(matches!(inner.program, Program::Dynamic(_)));
    assert!(v.origins[0].approximate);
}

#[test]
fn arguments_that_name_programs_are_not_invocations() {
    let v = view("echo git reset --hard; grep 'gh pr merge' f; printf '%s' 'git push'");
    assert!(v
        .invocations
        .iter()
        .all(|i| i.name() != Some("git") && i.name() != Some("gh")));
}

#[test]
fn nested_syntax_error_is_reported() {
    let v = view("bash -c 'git push (' ");
    assert_eq!(v.nested_errors.len(), 1);
}

#[test]
fn spans_point_into_the_source() {
    let src = "echo hi; FOO=1 git push origin";
    let v = view(src);
    assert_eq!(v.invocations[1].span.text(src), "FOO=1 git push origin");
    assert_eq!(v.invocations[1].args[1].word.span.text(src), "origin");
}

#[test]
fn time_ignores_a_double_dash_like_bash() {
    // bash's TIMEIGN: `time [-p] -- cmd` runs cmd.
    for src in ["time -- ! eval 'sleep 1'", "time -p -- eval 'sleep 1'"] {
        let v = view(src);
        assert!(
            v.invocations.iter().any(|i| i.name() == Some("sleep")),
            "{src}"
        );
        assert!(
            v.invocations.iter().all(|i| i.name() != Some("--")),
            "{src}"
        );
    }
}

#[test]
fn quoted_subscripts_may_hold_blanks_and_newlines() {
    let v = view("a[\"x\ny\"]=1 b['k v']=2 eval 'sleep 1'");
    let eval = find(&v, "eval");
    assert!(eval.args.len() == 1, "the assignments are not arguments");
    assert!(v.invocations.iter().any(|i| i.name() == Some("sleep")));
}

#[test]
fn substitutions_in_kept_assignments_stay_dynamic_and_their_commands_are_visited_once() {
    let v = view("x=$(git rev-parse HEAD); y=\"a$(date)\"; GIT_DIR=$(pwd) git status; echo $x");
    let status = find(&v, "git");
    assert_eq!(status.name(), Some("git"));
    let echo = find(&v, "echo");
    for name in ["x", "y"] {
        let e = echo.env_value(name).expect("kept in the scope");
        let value = e.value.as_ref().expect("a value");
        assert!(value.is_dynamic(), "{name} stays decided at run time");
    }
    // The substitutions ran where the assignments did: each inner command is one invocation.
    let count = |n: &str| v.invocations.iter().filter(|i| i.name() == Some(n)).count();
    assert_eq!(count("date"), 1);
    assert_eq!(count("pwd"), 1);
    assert_eq!(count("git"), 2, "rev-parse and status");
}

#[test]
fn env_options_with_a_multibyte_second_character_do_not_panic() {
    // Found by the fuzz smoke: `env -<multi-byte char>...` sliced inside the character.
    let p = parse("env -\u{0756}n % -env -% -eu eu ");
    let _ = commands(&p);
    let p = parse("env -\u{e9}u x ls");
    let _ = commands(&p);
}

/// Issue 16: the environment is a shared persistent list, so 50 000 assignments cost no
/// copies; the newest value of a name wins, and more than `MAX_SCOPE_ENTRIES` names mark the
/// scope truncated.
#[test]
fn long_assignment_scripts_keep_the_newest_values() {
    let mut src: String = (0..50_000).map(|i| format!("a=v{i}\n")).collect();
    src.push_str("GH_REPO=o/r\ngh pr create\n");
    let p = shell_syntax::parse(&src);
    let v = shell_syntax::commands(&p);
    let gh = v.invocations.last().expect("gh");
    assert_eq!(
        gh.env_value("a")
            .and_then(|e| e.value.as_ref()?.value.clone())
            .as_deref(),
        Some("v49999")
    );
    assert_eq!(
        gh.env_value("GH_REPO")
            .and_then(|e| e.value.as_ref()?.value.clone())
            .as_deref(),
        Some("o/r")
    );
    assert!(!gh.scope_truncated);

    let mut src: String = (0..10_000).map(|i| format!("x{i}=v\n")).collect();
    src.push_str("git push\n");
    let p = shell_syntax::parse(&src);
    let v = shell_syntax::commands(&p);
    let git = v.invocations.last().expect("git");
    assert!(git.scope_truncated);
    assert!(git.env_value("x9999").is_some());
    assert!(git.env_value("x0").is_none());
    assert_eq!(
        git.env.iter().count(),
        shell_syntax::view::MAX_SCOPE_ENTRIES
    );
}

#[test]
fn builtins_that_read_a_value_set_their_variables_at_run_time() {
    // `read -r G <<<git; $G push`: G is the command's, decided at run time (issue 42).
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("read -r G <<<git; ls", &["G"], &[]),
        ("read -rp 'x? ' A B; ls", &["A", "B"], &["x? "]),
        ("read -a ARR -d '' <f; ls", &["ARR"], &[]),
        ("read <f; ls", &["REPLY"], &[]),
        ("mapfile -t L <f; ls", &["L"], &["MAPFILE"]),
        ("readarray <f; ls", &["MAPFILE"], &[]),
        ("printf -v P '%s' git; ls", &["P"], &["%s"]),
        ("printf '%s' git; ls", &[], &["%s"]),
        ("getopts ab: O; ls", &["O"], &["ab:"]),
    ];
    for (src, set, not) in cases {
        let v = view(src);
        let ls = find(&v, "ls");
        for n in *set {
            let e = ls
                .env_value(n)
                .unwrap_or_else(|| panic!("{src}: {n} not set"));
            assert!(e.value.is_none(), "{src}: {n} is decided at run time");
        }
        for n in *not {
            assert!(ls.env_value(n).is_none(), "{src}: {n} is not set");
        }
    }
}
