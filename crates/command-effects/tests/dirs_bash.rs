//! `command_effects::dirs` against real bash: each command runs under `bash -c` in a temporary
//! tree with a recording stub named `git` first on `PATH`; the directory the stub saw must equal
//! what `dirs::dir_of` computes for the `git` invocation (`CDPATH` searched against the real
//! directories, functions that shadow `cd`/`pushd`, a called function's `cd`, `cd -`, `HOME`).
//! Skipped with a note when `bash` is missing.

use command_effects::dirs::{dir_of, DirCx, DirIndex};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Commands (`{R}` is the tree's root; they start in `{R}/s` with `HOME={R}/h`).
const COMMANDS: &[&str] = &[
    "cd {R}/d && git status",
    "CDPATH={R}/d cd w && git status",
    "CDPATH={R}/d; cd w; git status",
    "export CDPATH=.:{R}/d; cd w; git status",
    "CDPATH={R}/d pushd w >/dev/null; git status",
    "CDPATH={R}/d cd ./x; git status",
    "CDPATH=:{R}/d cd x; git status",
    "cd() { builtin cd {R}/p; }; cd x && git status",
    "cd() { builtin cd \"$@\" && true; }; cd x && git status",
    "cd() { :; }; cd {R}/p; git status",
    "cd() { command cd {R}/p; }; cd -; git status",
    "go() { cd {R}/p; }; go; git status",
    "go() { cd {R}/p; }; go | cat; git status",
    "go() { cd \"$1\"; }; go {R}/q; git status",
    "go() { cd {R}/p; }; go; cd ../q; git status",
    "pushd() { builtin cd {R}/p; }; pushd {R}/q >/dev/null; git status",
    "cd {R}/p; cd {R}/q; cd - >/dev/null; git status",
    "cd; git status",
];

fn bash_dir(cmd: &str, root: &Path, stubs: &Path, log: &Path) -> Option<PathBuf> {
    let _ = std::fs::remove_file(log);
    let path = format!(
        "{}:{}",
        stubs.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(root.join("s"))
        .env("PATH", path)
        .env("HOME", root.join("h"))
        .env_remove("CDPATH")
        .output()
        .ok()?;
    let text = std::fs::read_to_string(log).ok()?;
    Some(PathBuf::from(text.lines().last()?))
}

fn layer_dir(cmd: &str, root: &Path) -> Option<PathBuf> {
    let parsed = shell_syntax::parse(cmd);
    let view = shell_syntax::commands(&parsed);
    let home = root.join("h");
    let ix = DirIndex::of(&view, Some(&home));
    let is_dir = |p: &Path| p.is_dir();
    let cx = DirCx {
        home: Some(&home),
        cdpath: None,
        is_dir: &is_dir,
    };
    let inv = view.invocations.iter().rfind(|i| i.name() == Some("git"))?;
    dir_of(&view, &ix, inv, &root.join("s"), &cx)
}

#[test]
fn directories_match_real_bash() {
    if Command::new("bash").arg("-c").arg("true").output().is_err() {
        hook_replay::skip::cannot_run("dirs_bash", "bash not found");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The real path: bash's `$PWD` after `cd` keeps the logical spelling of the root.
    let root = tmp.path().canonicalize().unwrap();
    for d in ["s/x", "h", "d/w", "p", "q", "stubs"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    let log = root.join("log");
    let stub = root.join("stubs/git");
    std::fs::write(
        &stub,
        format!("#!/bin/sh\necho \"$PWD\" >> {}\n", log.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut wrong = Vec::new();
    for c in COMMANDS {
        let cmd = c.replace("{R}", &root.to_string_lossy());
        let bash = bash_dir(&cmd, &root, &root.join("stubs"), &log);
        let layer = layer_dir(&cmd, &root);
        if bash != layer {
            wrong.push(format!("{c}\n    bash:  {bash:?}\n    layer: {layer:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
