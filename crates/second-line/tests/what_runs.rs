//! Identity by what runs (issue 41): a judged program under another name is judged as what it
//! is: a copy or a hard link of the session's `claude` (by content), the dynamic loader asked to
//! run it, a script whose `#!` line names it with an argument. Look-alikes run: a copy of
//! `/bin/true`, a `#!/bin/sh` script, the loader running `/bin/true`. Root only.

mod common;
use common::*;

const LOADER: &str = "/lib64/ld-linux-x86-64.so.2";

#[test]
fn a_judged_program_under_another_name_is_judged_as_what_it_is() {
    let Some(w) = root_world("what-runs") else {
        return;
    };
    let claude = w.bin_dir().join("claude");
    let script = format!(
        r#"
cd "$HOME"
cp "{claude}" ./foo; ln "{claude}" ./bar
printf '#!{claude} --model=fable\n' > ./shebang.sh; chmod +x ./shebang.sh
cp /bin/true ./yes-true; printf '#!/bin/sh\necho plain script\n' > ./plain.sh; chmod +x ./plain.sh
for c in "./foo --model fable" "./bar --model fable" "{LOADER} {claude} --model fable" ./shebang.sh \
         ./yes-true ./plain.sh "{LOADER} /bin/true"; do
  $c >/dev/null; echo "$c => $?"
done
"#,
        claude = claude.display()
    );
    let out = w.ran("bash", &["-c", &script]);
    for refused in [
        "./foo --model fable => 126".to_string(),
        "./bar --model fable => 126".to_string(),
        format!("{LOADER} {} --model fable => 126", claude.display()),
        "./shebang.sh => 126".to_string(),
    ] {
        assert!(
            out.stdout.contains(&refused),
            "{refused}: {}\n{}",
            out.stdout,
            out.stderr
        );
    }
    for ran in [
        "./yes-true => 0",
        "./plain.sh => 0",
        &format!("{LOADER} /bin/true => 0"),
    ] {
        assert!(
            out.stdout.contains(ran),
            "{ran}: {}\n{}",
            out.stdout,
            out.stderr
        );
    }
    assert_eq!(out.said("(M3.launch"), 4, "{}", out.stderr);
}

/// The CLI as npm installs it: `claude` a link to a JavaScript file that `node` runs.
fn js_claude(w: &World) -> std::path::PathBuf {
    let lib = w.dir.path().join("lib/claude-code");
    std::fs::create_dir_all(&lib).unwrap();
    let cli = lib.join("cli.js");
    std::fs::write(
        &cli,
        "#!/usr/bin/env node\nconsole.log('stand-in claude', process.argv.slice(2).join(' '));\n",
    )
    .unwrap();
    let link = w.bin_dir().join("claude");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&cli, &link).unwrap();
    cli
}

#[test]
fn node_running_the_clis_javascript_file_is_judged_as_claude() {
    let Some(w) = root_world("what-runs-node") else {
        return;
    };
    if !std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        hook_replay::skip::cannot_run("what-runs-node", "node is not installed");
        return;
    }
    let cli = js_claude(&w);
    let script = format!(
        r#"
cd "$HOME"
cp "{cli}" ./copy.js; cp "{cli}" ./runnable; chmod +x ./runnable
printf 'console.log("other script", process.argv.slice(2).join(" "))\n' > ./other.js
for c in "node {cli} --model fable -p hi" "node --no-warnings ./copy.js --model=fable -p hi" \
         "node {cli} --model haiku -p hi" "node ./other.js --model fable" \
         "node -e 1 {cli} --model fable" "./runnable --model fable -p hi"; do
  $c >/dev/null 2>&1; echo "$c => $?"
done
"#,
        cli = cli.display()
    );
    let out = w.ran("bash", &["-c", &script]);
    let cli = cli.display();
    for (c, want) in [
        (format!("node {cli} --model fable -p hi"), 126),
        (
            "node --no-warnings ./copy.js --model=fable -p hi".into(),
            126,
        ),
        (format!("node {cli} --model haiku -p hi"), 0),
        ("node ./other.js --model fable".into(), 0),
        (format!("node -e 1 {cli} --model fable"), 0),
        // A copy of npm's `claude` (a link to `cli.js`) is claude by content, not "cli.js".
        ("./runnable --model fable -p hi".into(), 126),
    ] {
        let line = format!("{c} => {want}");
        assert!(
            out.stdout.contains(&line),
            "{line}: {}\n{}",
            out.stdout,
            out.stderr
        );
    }
}
