//! Scripts a command runs by path (`bash x.sh`, `./x.sh`, `source x.sh`, `cat x.sh | sh`, a bare
//! name found in a folder the command put in front of `PATH`: [`path_candidates`]) and
//! the text each holds when the command wrote it first (`printf 'claude ...' > s.sh; bash s.sh`
//! runs what was written, not what the file held before). The guards read other scripts
//! through their own I/O: [`scripts_run`] takes the reader.

use crate::dirs::{self, DirCx, DirIndex};

/// How deep the guards follow scripts run by path: the command's own scripts are depth 1, and
/// a script run by a script at this depth is past the bound (issue 47: a typed unknown each
/// guard answers, never unseen). One bound for every guard.
pub const MAX_SCRIPT_DEPTH: usize = 3;

/// The largest script the guards read: a larger one is past the bound, never read in part.
pub const MAX_SCRIPT_BYTES: u64 = 1024 * 1024;
use crate::written::written;
use shell_syntax::view::{CommandView, Invocation};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `~/x` with the hook's home in place of `~`.
pub fn expand_tilde(path: &str, home: Option<&Path>) -> String {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(h)) => format!("{}/{rest}", h.display()),
        _ => path.to_string(),
    }
}

/// What a command (`view`) wrote into `full` before invocation `before` (`printf '...' > s.sh;
/// bash s.sh`): `None` when it did not write it, `Some(None)` when the text is decided at run
/// time. `>>` adds to the file's text (`read`: what it held, when it existed).
pub fn written_into(
    view: &CommandView<'_>,
    before: usize,
    full: &Path,
    dir_of: &dyn Fn(&Invocation<'_>) -> Option<PathBuf>,
    home: Option<&Path>,
    read: &dyn Fn(&Path) -> Option<String>,
) -> Option<Option<String>> {
    let mut state: Option<Option<String>> = None;
    for inv in view.invocations.iter().take_while(|i| i.index < before) {
        let Some(w) = written(inv) else {
            continue;
        };
        let Some(dir) = dir_of(inv) else {
            continue;
        };
        if dirs::join(&dir, &expand_tilde(&w.path, home)) != full {
            continue;
        }
        let base = match state.take() {
            _ if !w.append => Some(String::new()),
            Some(prev) => prev,
            None => Some(read(full).unwrap_or_default()),
        };
        state = Some(base.zip(w.text).map(|(a, b)| a + &b));
    }
    state
}

/// Files written before a script runs, by the commands and scripts that led to it, with their
/// text (`None`: decided at run time). A script run by a script the command wrote reads them
/// before the disk (`echo 'rm x' > a.sh; echo 'bash a.sh' > b.sh; bash b.sh`).
pub type Written = Vec<(PathBuf, Option<String>)>;

/// What reading the scripts of a command needs from outside it.
pub struct Reading<'x> {
    /// The directory the command starts in.
    pub base: &'x Path,
    pub dirs: &'x DirCx<'x>,
    /// A file's text (`None`: not readable); the guards do the I/O.
    pub read: &'x dyn Fn(&Path) -> Option<String>,
    /// What the command's callers wrote before it ran (empty for the agent's own command; a
    /// script's [`ScriptRun::written`] when its text is read in turn).
    pub written: &'x [(PathBuf, Option<String>)],
}

impl Reading<'_> {
    /// A file's text as the command finds it: what a caller wrote into it last, else the disk.
    fn text_of(&self, path: &Path) -> Option<String> {
        match self.written.iter().rev().find(|(p, _)| p == path) {
            Some((_, text)) => text.clone(),
            None => (self.read)(path),
        }
    }
}

/// `command` with the text of each file it `source`s in place ([`crate::sourced`]): what the
/// command wrote into it first, else what `read` gives, relative to the directory the `source`
/// runs in (from `at.base`); `None` when none was read.
pub fn sourced_in_place(command: &str, at: &Reading<'_>) -> Option<String> {
    let (base, cx) = (at.base, at.dirs);
    let read = &|p: &Path| at.text_of(p);
    crate::sourced::inline_sourced(command, &mut |view, inv, path| {
        let ix = DirIndex::of(view, cx.home);
        let dir_of = |i: &Invocation<'_>| dirs::dir_of(view, &ix, i, base, cx);
        let full = dirs::join(&dir_of(inv)?, &expand_tilde(path, cx.home));
        // A file the command writes first holds what it wrote (unknown text: not put in place).
        match written_into(view, inv.index, &full, &dir_of, cx.home, read) {
            Some(text) => text,
            None => read(&full),
        }
    })
}

/// One script a command runs by path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptRun {
    /// The path as the command names it.
    pub path: String,
    /// Where it is and the directory it starts in; `None` when a `cd` before it is decided at
    /// run time.
    pub at: Option<(PathBuf, PathBuf)>,
    /// Its text: what the command wrote into it first, else what `read` gave; `None` when
    /// neither is known.
    pub text: Option<String>,
    /// The callers' and this command's writes, in order (shared by every run of one command);
    /// the first `upto` of them came before this run.
    log: Arc<Written>,
    upto: usize,
}

impl ScriptRun {
    /// Every file written before the script runs, in order (a later entry for a path wins):
    /// what the scripts it runs in turn read first ([`Reading::written`]).
    pub fn written(&self) -> &[(PathBuf, Option<String>)] {
        &self.log[..self.upto.min(self.log.len())]
    }
}

/// Every script `text` runs by path, starting in `at.base`, with its text (see [`ScriptRun`]).
/// One pass: the files written so far are kept as the invocations go, and every run shares
/// one log of the writes, so a long command of writes and runs costs its length.
pub fn scripts_run(text: &str, at: &Reading<'_>) -> Vec<ScriptRun> {
    let (base, cx) = (at.base, at.dirs);
    let parsed = shell_syntax::parse(text);
    let view = shell_syntax::commands(&parsed);
    let ix = DirIndex::of(&view, cx.home);
    let dir_of = |i: &Invocation<'_>| dirs::dir_of(&view, &ix, i, base, cx);
    let mut files = Files {
        at,
        log: Vec::new(),
        latest: Default::default(),
    };
    let mut out = Vec::new();
    for inv in &view.invocations {
        // Most invocations have no candidate: their folder is not worked out for nothing.
        let by_path = || {
            let candidates = path_candidates(inv);
            if candidates.is_empty() {
                return None;
            }
            let dir = dir_of(inv)?;
            candidates.into_iter().find(|p| {
                let full = dirs::join(&dir, &expand_tilde(p, cx.home));
                files.text_of(&full).is_some()
            })
        };
        let found = script_path(inv).or_else(|| stdin_script_path(&view, inv));
        if let Some(path) = found.or_else(by_path) {
            let upto = at.written.len() + files.log.len();
            out.push(match dir_of(inv) {
                None => ScriptRun {
                    path,
                    at: None,
                    text: None,
                    log: Arc::default(),
                    upto: 0,
                },
                Some(dir) => {
                    let full = dirs::join(&dir, &expand_tilde(&path, cx.home));
                    ScriptRun {
                        path,
                        text: files.text_of(&full),
                        at: Some((full, dir)),
                        log: Arc::default(),
                        upto,
                    }
                }
            });
        }
        if let (Some(w), Some(dir)) = (written(inv), dir_of(inv)) {
            files.write(dirs::join(&dir, &expand_tilde(&w.path, cx.home)), w);
        }
    }
    if out.iter().any(|r| r.upto > 0) {
        let log: Arc<Written> = Arc::new(at.written.iter().chain(&files.log).cloned().collect());
        for r in &mut out {
            r.log = log.clone();
        }
    }
    out
}

/// The files a command has written so far, as [`scripts_run`] walks it: `>` replaces a file's
/// text, `>>` adds to it (to what its callers wrote, else to what the disk holds), text decided
/// at run time stays unknown.
struct Files<'r, 'x> {
    at: &'r Reading<'x>,
    /// Each write with the file's text after it, in order.
    log: Written,
    /// Where in `log` each file's last write is.
    latest: std::collections::HashMap<PathBuf, usize>,
}

impl Files<'_, '_> {
    /// What this command or its callers wrote into `path` (`None`: neither wrote it).
    fn written(&self, path: &Path) -> Option<Option<String>> {
        match self.latest.get(path) {
            Some(&i) => Some(self.log[i].1.clone()),
            None => self
                .at
                .written
                .iter()
                .rev()
                .find(|(p, _)| p == path)
                .map(|(_, t)| t.clone()),
        }
    }

    fn text_of(&self, path: &Path) -> Option<String> {
        self.written(path).unwrap_or_else(|| (self.at.read)(path))
    }

    fn write(&mut self, full: PathBuf, w: crate::written::Written) {
        let text = match w.append {
            false => w.text,
            // A file nobody wrote adds to what the disk holds (nothing if it is absent).
            true => self
                .written(&full)
                .unwrap_or_else(|| Some((self.at.read)(&full).unwrap_or_default()))
                .zip(w.text)
                .map(|(a, b)| a + &b),
        };
        self.latest.insert(full.clone(), self.log.len());
        self.log.push((full, text));
    }
}

/// The script an invocation runs by path: `bash x.sh`, `sh -e x.sh`, `./x.sh`, `source x.sh`,
/// `. x.sh`. A shell given `-c` or reading stdin runs no script file.
pub fn script_path(inv: &Invocation<'_>) -> Option<String> {
    let name = inv.name()?;
    if name == "source" || name == "." {
        let first = inv.args.first()?;
        return first.value.as_deref().map(String::from).or_else(|| {
            // `~/x.sh`: keep the tilde for the caller to expand.
            first
                .word
                .resolve(&|n| (n == "HOME").then(|| "~".to_string()))
        });
    }
    if shell_syntax::view::is_shell(name) {
        for a in &inv.args {
            let v = a.value.as_deref()?;
            if v == "--" {
                continue;
            }
            if v.starts_with('-') || v.starts_with('+') {
                // `-c`, `-s` or `-i`: the script is not a file argument.
                if !v.starts_with("--") && v[1..].contains(['c', 's']) {
                    return None;
                }
                if v == "-o" || v == "-O" || v == "--rcfile" || v == "--init-file" {
                    return None;
                }
                continue;
            }
            return Some(v.to_string());
        }
        return None;
    }
    if let shell_syntax::view::Program::Static { raw, .. } = &inv.program {
        if raw.contains('/') {
            return Some(raw.to_string());
        }
    }
    None
}

/// bash's builtins: run without looking through `PATH`.
const BASH_BUILTINS: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
];

/// Where a program run by bare name may be a file the command points at: the folders it put
/// in front of `PATH` for the invocation (`PATH=.:$PATH foo`, `export PATH=$PWD/bin:$PATH`;
/// a `PATH` without the inherited part is all its own), each joined with the name, in
/// bash's order; for `git <sub>` that is neither a builtin nor git's own program, `git-<sub>`
/// in `--exec-path=<dir>` and `GIT_EXEC_PATH` first (git runs its external commands from
/// there, then from `PATH`: real git ran `./git-foo` for each). Paths as written, relative
/// to the invocation's folder; the caller takes the first that holds a file. Empty when the
/// command leaves `PATH` alone or sets it at run time (the exec gate sees what runs).
pub fn path_candidates(inv: &Invocation<'_>) -> Vec<String> {
    let Some(name) = inv.name() else {
        return Vec::new();
    };
    if !matches!(&inv.program, shell_syntax::view::Program::Static { raw, .. } if !raw.contains('/'))
        || BASH_BUILTINS.contains(&name)
        || shell_syntax::view::is_shell(name)
    {
        return Vec::new();
    }
    if name == "gh" {
        return gh_extension(inv).into_iter().collect();
    }
    let path_set = path_dirs_set(inv);
    // Most commands leave PATH and git's exec path alone: nothing to parse then.
    let exec_path = name == "git"
        && (inv.env_value("GIT_EXEC_PATH").is_some()
            || inv.args.iter().any(|a| {
                a.value
                    .as_deref()
                    .is_some_and(|w| w.starts_with("--exec-path="))
            }));
    if path_set.is_empty() && !exec_path {
        return Vec::new();
    }
    let mut dirs: Vec<String> = Vec::new();
    let mut program = name.to_string();
    if name == "git" {
        let call = crate::git::parse_git(inv);
        match call.sub() {
            Some(sub) if !crate::git_alias::is_builtin(sub) => {
                program = format!("git-{sub}");
                let given = inv.args.iter().filter_map(|a| a.value.as_deref());
                let given = given.take_while(|w| w.starts_with('-'));
                dirs.extend(given.filter_map(|w| w.strip_prefix("--exec-path=").map(String::from)));
                let var = inv.env_value("GIT_EXEC_PATH");
                dirs.extend(var.and_then(|v| v.value.as_ref()?.value.as_deref().map(String::from)));
            }
            _ => return Vec::new(),
        }
    }
    dirs.extend(path_set);
    dirs.iter()
        .map(|d| match d.as_str() {
            "" => program.clone(),
            d => format!("{}/{program}", d.trim_end_matches('/')),
        })
        .collect()
}

/// Where gh keeps the extension `gh <name>` (a top-level word that is none of gh's commands)
/// or `gh extension exec <name>` runs: `$XDG_DATA_HOME/gh/extensions/gh-<name>/gh-<name>`
/// (`~/.local/share` unless the command sets `XDG_DATA_HOME`), a script or a program; a local
/// extension (`gh extension install .`) is a link to the folder that holds it.
fn gh_extension(inv: &Invocation<'_>) -> Option<String> {
    let args = crate::gh::parse(&inv.args);
    let top = args.top.as_deref()?;
    let name = match top {
        "extension" | "extensions" | "ext" if args.sub() == Some("exec") => {
            args.positionals.first()?.as_deref()?
        }
        t if crate::gh::is_builtin(t) => return None,
        t => t,
    };
    if name.contains('/') || name.starts_with('-') {
        return None;
    }
    let data = match inv.env_value("XDG_DATA_HOME") {
        Some(v) => v.value.as_ref()?.value.as_deref()?.to_string(),
        None => "~/.local/share".to_string(),
    };
    Some(format!("{data}/gh/extensions/gh-{name}/gh-{name}"))
}

/// The folders the command put in front of `PATH` for `inv`, up to the inherited part
/// (`$PATH`); an empty entry is the folder itself. Empty when `PATH` is left alone or a part
/// of it other than `$PATH`, `$PWD` or `$HOME` is decided at run time.
fn path_dirs_set(inv: &Invocation<'_>) -> Vec<String> {
    const INHERITED: &str = "\u{0}";
    let Some(word) = inv.env_value("PATH").and_then(|v| v.value.as_ref()) else {
        return Vec::new();
    };
    let lookup = |n: &str| match n {
        "PATH" => Some(INHERITED.to_string()),
        "PWD" => Some(".".to_string()),
        "HOME" => Some("~".to_string()),
        _ => None,
    };
    let Some(text) = word.word.resolve(&lookup) else {
        return Vec::new();
    };
    text.split(':')
        .take_while(|e| !e.contains(INHERITED))
        .map(String::from)
        .collect()
}

/// The simple command before `inv` in its pipeline (what writes `inv`'s stdin), if `inv` is
/// not the first element.
pub fn pipe_producer<'v, 'a>(
    view: &'v CommandView<'a>,
    inv: &Invocation<'a>,
) -> Option<&'v Invocation<'a>> {
    let pos = inv.context.pipeline?;
    if pos.index == 0 {
        return None;
    }
    view.invocations[..inv.index].iter().rev().find(|p| {
        p.context
            .pipeline
            .is_some_and(|q| q.len == pos.len && q.index + 1 == pos.index)
            && p.origin == inv.origin
    })
}

/// The script file a shell reads on its stdin: `bash < x.sh`, `cat x.sh | sh` (a shell given
/// `-c` or a script operand reads no stdin script).
pub fn stdin_script_path(view: &CommandView<'_>, inv: &Invocation<'_>) -> Option<String> {
    let name = inv.name()?;
    if !shell_syntax::view::is_shell(name) {
        return None;
    }
    if inv.args.iter().any(|a| {
        a.value
            .as_deref()
            .is_none_or(|v| !v.starts_with('-') || (!v.starts_with("--") && v.contains('c')))
    }) {
        return None;
    }
    if let Some(r) = inv.redirects.iter().rev().find(|r| r.fd == Some(0)) {
        return match r.op {
            shell_syntax::RedirOp::In => r.target.value.as_deref().map(String::from),
            _ => None,
        };
    }
    // `cat x.sh | sh`: the element before it in the same pipeline.
    let prev = pipe_producer(view, inv)?;
    match (prev.name(), prev.args.as_slice()) {
        (Some("cat"), [file]) => file.value.as_deref().map(String::from),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The script the first invocation of `cmd` runs by path.
    fn script_of(cmd: &str) -> Option<String> {
        let p = shell_syntax::parse(cmd);
        script_path(&shell_syntax::commands(&p).invocations[0])
    }

    /// `command<TAB>the script it runs` (nothing after the TAB: none).
    const SCRIPTS: &str = "bash x.sh\tx.sh
sh -e ./y.sh a\t./y.sh
./run.sh\t./run.sh
. ~/env.sh\t~/env.sh
source lib.sh\tlib.sh
bash -c 'ls'\t
bash\t
ls -la\t";

    #[test]
    fn a_bare_name_is_looked_for_in_the_folders_the_command_put_in_front_of_path() {
        let candidates = |cmd: &str| {
            let p = shell_syntax::parse(cmd);
            let v = shell_syntax::commands(&p);
            path_candidates(v.invocations.last().unwrap())
        };
        for (cmd, want) in [
            ("PATH=.:$PATH foo", vec!["./foo"]),
            ("PATH=bin:./x/:$PATH foo -v", vec!["bin/foo", "./x/foo"]),
            ("PATH=$PWD/bin:$PATH foo", vec!["./bin/foo"]),
            ("PATH=~/b:$HOME/c:$PATH foo", vec!["~/b/foo", "~/c/foo"]),
            ("PATH=:$PATH foo", vec!["foo"]),
            ("PATH=/opt/b foo", vec!["/opt/b/foo"]),
            ("export PATH=bin:$PATH; foo", vec!["bin/foo"]),
            ("PATH=bin:$PATH git foo", vec!["bin/git-foo"]),
            ("git --exec-path=x -C d foo", vec!["x/git-foo"]),
            (
                "GIT_EXEC_PATH=x PATH=bin:$PATH git foo",
                vec!["x/git-foo", "bin/git-foo"],
            ),
            (
                "gh ship --now",
                vec!["~/.local/share/gh/extensions/gh-ship/gh-ship"],
            ),
            (
                "gh extension exec ship",
                vec!["~/.local/share/gh/extensions/gh-ship/gh-ship"],
            ),
            (
                "XDG_DATA_HOME=/d gh ship",
                vec!["/d/gh/extensions/gh-ship/gh-ship"],
            ),
        ] {
            assert_eq!(candidates(cmd), want, "{cmd}");
        }
        // Nothing to look for: PATH left alone or decided at run time, a path, a builtin, a
        // shell (its script operand is `script_path`'s), git's own subcommands.
        for cmd in [
            "foo",
            "git foo",
            "PATH=$X:$PATH foo",
            "PATH=bin:$PATH ./foo",
            "PATH=bin:$PATH echo x",
            "PATH=bin:$PATH cd x",
            "PATH=bin:$PATH bash x.sh",
            "PATH=bin:$PATH git status",
            "git --exec-path=x push",
            "gh pr create -t x",
            "gh extension list",
            "gh api repos/o/r",
        ] {
            assert_eq!(candidates(cmd), Vec::<String>::new(), "{cmd}");
        }
    }

    #[test]
    fn scripts_by_path() {
        for line in SCRIPTS.lines() {
            let (cmd, want) = line.split_once('\t').unwrap();
            let want = Some(want).filter(|w| !w.is_empty());
            assert_eq!(script_of(cmd).as_deref(), want, "{cmd}");
        }
    }

    /// What a command starting in `/p` reads, where only `file` exists, holding `text`.
    fn in_p<T>(file: &'static str, text: &'static str, f: impl Fn(&Reading<'_>) -> T) -> T {
        let is_dir = |_: &Path| false;
        let cx = DirCx {
            home: Some(Path::new("/h")),
            cdpath: None,
            is_dir: &is_dir,
        };
        let read = |p: &Path| (p == Path::new(file)).then(|| text.to_string());
        f(&Reading {
            base: Path::new("/p"),
            dirs: &cx,
            read: &read,
            written: &[],
        })
    }

    fn run(cmd: &str) -> Vec<ScriptRun> {
        in_p("/p/old.sh", "old\n", |at| scripts_run(cmd, at))
    }

    #[test]
    fn a_program_in_a_folder_put_in_front_of_path_is_a_script_run_by_path() {
        let found = |cmd: &str| {
            in_p("/p/bin/foo", "git push\n", |at| scripts_run(cmd, at))
                .into_iter()
                .map(|r| (r.path, r.text))
                .collect::<Vec<_>>()
        };
        let foo = vec![("bin/foo".to_string(), Some("git push\n".to_string()))];
        assert_eq!(found("PATH=nothere:bin:$PATH foo"), foo);
        assert_eq!(
            found("export PATH=$PWD/bin:$PATH; foo x"),
            [("./bin/foo".into(), foo[0].1.clone())]
        );
        // What the command wrote there first.
        assert_eq!(
            found("echo 'claude' > b/foo; PATH=b:$PATH foo"),
            [("b/foo".to_string(), Some("claude\n".to_string()))]
        );
        // No folder holds it: the inherited PATH's program, no script.
        assert_eq!(found("PATH=nothere:$PATH foo"), vec![]);
        assert_eq!(found("foo"), vec![]);
    }

    #[test]
    fn a_script_holds_what_the_command_wrote_first() {
        let r = run("printf 'claude --model x\\n' > s.sh; bash s.sh");
        assert_eq!(r.len(), 1);
        assert_eq!(
            r[0].at.as_ref().map(|a| a.0.clone()),
            Some(PathBuf::from("/p/s.sh"))
        );
        assert_eq!(r[0].text.as_deref(), Some("claude --model x\n"));
        let r = run("cat > /tmp/go.sh <<'EOF'\nrm x\nEOF\nsh /tmp/go.sh");
        assert_eq!(r[0].text.as_deref(), Some("rm x\n"));
        assert_eq!(
            run("echo y >> old.sh; ./old.sh")[0].text.as_deref(),
            Some("old\ny\n")
        );
        assert_eq!(run("curl -s u > old.sh; bash old.sh")[0].text, None);
        assert_eq!(
            run("echo a >> new.sh; bash new.sh")[0].text.as_deref(),
            Some("a\n")
        );
        let r = run("echo a > x.sh; bash x.sh; echo b >> x.sh; bash x.sh; ls; bash x.sh");
        let texts: Vec<_> = r.iter().map(|s| s.text.as_deref()).collect();
        assert_eq!(texts, [Some("a\n"), Some("a\nb\n"), Some("a\nb\n")]);
        // Every run shares one log of the writes; each sees the ones before it.
        assert!(Arc::ptr_eq(&r[0].log, &r[2].log));
        assert_eq!((r[0].written().len(), r[1].written().len()), (1, 2));
        assert_eq!(run("bash old.sh")[0].text.as_deref(), Some("old\n"));
        assert_eq!(run("cd \"$D\"; bash s.sh")[0].at, None);
        assert!(run("bash -c 'ls'").is_empty());
    }

    #[test]
    fn a_script_run_by_a_written_script_holds_what_the_command_wrote() {
        let r = run("echo 'claude --model x' > a.sh; echo 'bash a.sh' > b.sh; bash b.sh");
        assert_eq!(r[0].text.as_deref(), Some("bash a.sh\n"));
        let (cx, read) = (
            DirCx {
                home: None,
                cdpath: None,
                is_dir: &|_: &Path| false,
            },
            |_: &Path| None,
        );
        let inner = Reading {
            base: Path::new("/p"),
            dirs: &cx,
            read: &read,
            written: r[0].written(),
        };
        let nested = scripts_run(r[0].text.as_deref().unwrap(), &inner);
        assert_eq!(nested[0].text.as_deref(), Some("claude --model x\n"));
        // Written later than the script runs: not what it reads.
        let r = run("echo 'bash a.sh' > b.sh; bash b.sh; echo 'rm x' > a.sh");
        assert!(r[0]
            .written()
            .iter()
            .all(|(p, _)| p != Path::new("/p/a.sh")));
    }

    #[test]
    fn a_sourced_file_is_put_in_place() {
        in_p("/p/env.sh", "export A=1\n", |at| {
            let t = sourced_in_place("source ./env.sh && a", at).unwrap();
            assert!(t.contains("export A=1") && t.contains("/dev/stdin"), "{t}");
            let t = sourced_in_place("echo 'export B=2' > env.sh; . env.sh", at);
            assert!(t.is_some_and(|t| t.contains("export B=2") && !t.contains("A=1")));
            assert_eq!(sourced_in_place("cd /q; . env.sh", at), None);
        });
    }
}
