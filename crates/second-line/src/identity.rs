//! What runs, whatever it is called (issue 41: "identity by what runs"). The exec gate judged a
//! program when its file name said git, gh or claude; an agent command ran git under another
//! name (a copy, a hard link), through the dynamic loader (`ld-linux-x86-64.so.2 /usr/bin/git
//! push`), or as the interpreter of a script (`#!/usr/bin/git` or `#!/…/claude --model=…`). Here
//! each of those is turned into the program and argument vector the judges read:
//!
//! * the **dynamic loader** runs the program named after its own options, with that program's
//!   arguments (`--argv0 NAME` sets its `argv[0]`);
//! * a **script** whose `#!` line names a program directly runs that program with the line's one
//!   argument, the script's path and the script's arguments (as the kernel does; an interpreter
//!   reached through `env` makes an exec of its own, which is judged there);
//! * a file of the same **content** as a judged program found on the session's `PATH` (git, gh,
//!   claude: a copy or a hard link) is that program. Only files of the same size are read;
//! * an **interpreter** (`node`, `bun`, `deno`) running a script file of the same content as a
//!   judged program (the CLI's `cli.js`) runs that program with the script's arguments.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The program names whose copies are recognised by content.
pub const BY_CONTENT: [&str; 3] = ["git", "gh", "claude"];

/// How much of a file's start is compared (with its size): enough to tell builds apart.
const HEAD: u64 = 64 * 1024;

/// The loader's options that take a value (glibc's `ld.so --help`).
const LOADER_VALUE_OPTIONS: [&str; 7] = [
    "--library-path",
    "--inhibit-rpath",
    "--audit",
    "--preload",
    "--argv0",
    "--glibc-hwcaps-prepend",
    "--glibc-hwcaps-mask",
];

/// Whether `name` is the dynamic loader (glibc's or musl's).
pub fn is_loader(name: &str) -> bool {
    name == "ld.so"
        || (name.starts_with("ld-linux") && name.contains(".so"))
        || (name.starts_with("ld-musl-") && name.ends_with(".so.1"))
}

/// The program the loader runs and its argument vector: `None` when the loader only informs
/// (`--list`, `--help`, no program).
pub fn through_loader(argv: &[String]) -> Option<(String, Vec<String>)> {
    let mut argv0 = None;
    let mut i = 1;
    while let Some(a) = argv.get(i) {
        match a.as_str() {
            "--" => {
                i += 1;
                break;
            }
            o if LOADER_VALUE_OPTIONS.contains(&o) => {
                if o == "--argv0" {
                    argv0 = argv.get(i + 1).cloned();
                }
                i += 2;
            }
            o if o.starts_with("--") => {
                if matches!(o, "--list" | "--verify" | "--help" | "--version") {
                    return None;
                }
                i += 1;
            }
            _ => break,
        }
    }
    let program = argv.get(i)?.clone();
    let mut out = vec![argv0.unwrap_or_else(|| program.clone())];
    out.extend(argv[i + 1..].iter().cloned());
    Some((program, out))
}

/// The interpreters that run a judged program's script file: the CLI is a JavaScript file run
/// by `node` (npm's `claude` is a link to its `cli.js`), so `node <copy of cli.js> --model ...`
/// launches it under no judged name (issue 41).
const SCRIPT_RUNNERS: [&str; 4] = ["node", "nodejs", "bun", "deno"];

/// node's options that take the next word as their value (`node --help`); `-e`, `-p` and their
/// long forms run text, not a file.
const NODE_VALUE_OPTIONS: [&str; 12] = [
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "-C",
    "--conditions",
    "--input-type",
    "--inspect-port",
    "--title",
    "--env-file",
    "--stack-size",
];

/// Whether `name` is an interpreter whose script file may be a judged program's.
pub fn runs_scripts(name: &str) -> bool {
    SCRIPT_RUNNERS.contains(&name)
}

/// The script file an interpreter that [`SCRIPT_RUNNERS`] names runs, and the arguments after
/// it: `None` when it runs no file (`-e`, `--version`, a REPL) or is no such interpreter.
/// `deno run` and `bun run` name the file after their subcommand.
pub fn script_operand(name: &str, argv: &[String]) -> Option<(String, Vec<String>)> {
    if !SCRIPT_RUNNERS.contains(&name) {
        return None;
    }
    let mut i = 1;
    if matches!(name, "deno" | "bun") && argv.get(1).is_some_and(|a| a == "run") {
        i = 2;
    }
    while let Some(a) = argv.get(i) {
        match a.as_str() {
            "--" => {
                i += 1;
                break;
            }
            "-e" | "--eval" | "-p" | "--print" | "-v" | "--version" | "-h" | "--help" => {
                return None
            }
            o if NODE_VALUE_OPTIONS.contains(&o) => i += 2,
            o if o.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let script = argv.get(i)?.clone();
    Some((script, argv[i + 1..].to_vec()))
}

/// A script's `#!` line: the interpreter's path and its one optional argument.
pub fn shebang(head: &[u8]) -> Option<(String, Option<String>)> {
    let line = head.strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|b| *b == b'\n')?];
    let text = String::from_utf8_lossy(line);
    let text = text.trim_matches(|c| c == ' ' || c == '\t');
    let (interp, arg) = match text.find([' ', '\t']) {
        Some(at) => (&text[..at], Some(text[at..].trim_matches([' ', '\t']))),
        None => (text, None),
    };
    (!interp.is_empty()).then(|| {
        (
            interp.to_string(),
            arg.filter(|a| !a.is_empty()).map(str::to_string),
        )
    })
}

/// The judged programs found on the session's `PATH`, by size; the start of each one's content
/// is read only when an exec's file has its size (most execs differ in size from all of them,
/// and finding them is on the path of every command's first exec: C8).
#[derive(Debug, Default)]
pub struct Known {
    /// Per size: the start of the content, the file read (links resolved) and the path on
    /// `PATH` whose name the judges know (npm's `claude` links to a `cli.js`).
    by_size: HashMap<u64, Vec<(LazyHead, PathBuf, PathBuf)>>,
}

/// The start of a judged program's content, read on first need (`None`: it could not be read).
type LazyHead = OnceLock<Option<Vec<u8>>>;

impl Known {
    /// Finds [`BY_CONTENT`] on `path` (a `PATH` value) and keeps each one's size.
    pub fn on_path(path: &str) -> Known {
        let mut known = Known::default();
        for name in BY_CONTENT {
            let Some(file) = path
                .split(':')
                .filter(|d| d.starts_with('/'))
                .map(|d| Path::new(d).join(name))
                .find(|p| p.is_file())
            else {
                continue;
            };
            let Ok(real) = std::fs::canonicalize(&file) else {
                continue;
            };
            if let Ok(meta) = std::fs::metadata(&real) {
                known
                    .by_size
                    .entry(meta.len())
                    .or_default()
                    .push((OnceLock::new(), real, file));
            }
        }
        known
    }

    /// The judged program (its path on `PATH`) whose content `file` has (`size` from a `stat`
    /// already made).
    pub fn same_as(&self, file: &Path, size: u64) -> Option<&Path> {
        let candidates = self.by_size.get(&size)?;
        let (_, head) = size_and_head(file)?;
        candidates
            .iter()
            .find(|(h, real, _)| {
                h.get_or_init(|| size_and_head(real).map(|(_, h)| h))
                    .as_ref()
                    .is_some_and(|h| *h == head)
            })
            .map(|(_, _, on_path)| on_path.as_path())
    }
}

/// A regular file's size and first [`HEAD`] bytes, read without waiting on a FIFO.
fn size_and_head(file: &Path) -> Option<(u64, Vec<u8>)> {
    let f = primitives::no_wait::open_regular(file, std::fs::OpenOptions::new().read(true)).ok()?;
    let size = f.metadata().ok()?.len();
    let mut head = Vec::new();
    f.take(HEAD).read_to_end(&mut head).ok()?;
    Some((size, head))
}

/// One version of a file (device, inode, size, change time): a file replaced or written since is
/// another version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileVersion([u64; 5]);

impl FileVersion {
    /// The version `meta` describes.
    pub fn of(meta: &std::fs::Metadata) -> FileVersion {
        use std::os::unix::fs::MetadataExt;
        FileVersion([
            meta.dev(),
            meta.ino(),
            meta.size(),
            meta.ctime() as u64,
            meta.ctime_nsec() as u64,
        ])
    }
}

/// Most plain programs remembered per supervisor.
const MAX_PLAIN: usize = 4096;

/// [`Known`] for one supervisor, found on its first exec that needs it, and the file versions
/// already found to be none of them (not read again while unchanged).
#[derive(Debug, Default)]
pub struct OnceKnown {
    known: OnceLock<Known>,
    plain: std::sync::Mutex<std::collections::HashSet<FileVersion>>,
}

impl OnceKnown {
    /// The programs on `path`, found once.
    pub fn get(&self, path: &str) -> &Known {
        self.known.get_or_init(|| Known::on_path(path))
    }

    /// Whether this version of a file was found to run nothing a judge reads.
    pub fn is_plain(&self, v: &FileVersion) -> bool {
        self.plain.lock().is_ok_and(|p| p.contains(v))
    }

    /// Remembers a version that runs nothing a judge reads.
    pub fn remember_plain(&self, v: FileVersion) {
        if let Ok(mut p) = self.plain.lock() {
            if p.len() >= MAX_PLAIN {
                p.clear();
            }
            p.insert(v);
        }
    }
}

/// The first bytes of `file` when it starts with `#!` (a script), for [`shebang`].
pub fn script_head(file: &Path) -> Option<Vec<u8>> {
    let f = primitives::no_wait::open_regular(file, std::fs::OpenOptions::new().read(true)).ok()?;
    let mut head = Vec::new();
    f.take(256).read_to_end(&mut head).ok()?;
    head.starts_with(b"#!").then_some(head)
}

/// `path` made absolute from `cwd`.
pub fn absolute(path: &str, cwd: &Path) -> PathBuf {
    match Path::new(path).is_absolute() {
        true => PathBuf::from(path),
        false => cwd.join(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_loader_runs_the_program_after_its_options() {
        for (argv, program, rest) in [
            (
                "ld.so /usr/bin/git push",
                "/usr/bin/git",
                "/usr/bin/git push",
            ),
            (
                "ld-linux-x86-64.so.2 --library-path /x --inhibit-cache git push o main",
                "git",
                "git push o main",
            ),
            (
                "ld.so --argv0 git-push /usr/bin/git o",
                "/usr/bin/git",
                "git-push o",
            ),
            ("ld.so -- /bin/x -y", "/bin/x", "/bin/x -y"),
        ] {
            let (p, a) = through_loader(&words(argv)).unwrap();
            assert_eq!(p, program, "{argv}");
            assert_eq!(a, words(rest), "{argv}");
        }
        assert_eq!(through_loader(&words("ld.so --list /usr/bin/git")), None);
        assert_eq!(through_loader(&words("ld.so")), None);
        assert!(is_loader("ld-linux-x86-64.so.2") && is_loader("ld-musl-x86_64.so.1"));
        assert!(!is_loader("ldd") && !is_loader("ld"));
    }

    #[test]
    fn a_shebang_line_is_the_interpreter_and_one_argument() {
        assert_eq!(
            shebang(b"#!/usr/bin/git push origin main\nrest"),
            Some(("/usr/bin/git".into(), Some("push origin main".into())))
        );
        assert_eq!(shebang(b"#! /bin/sh\n"), Some(("/bin/sh".into(), None)));
        assert_eq!(
            shebang(b"#!/bin/sh"),
            None,
            "no end of line in the head read"
        );
        assert_eq!(shebang(b"echo hi\n"), None);
    }

    #[test]
    fn a_copy_is_known_by_its_content_and_a_different_file_of_that_size_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("git"), b"the git program\n").unwrap();
        let known = Known::on_path(&format!("/nonexistent:{}", bin.display()));
        let copy = dir.path().join("foo");
        std::fs::copy(bin.join("git"), &copy).unwrap();
        let git = std::fs::canonicalize(bin.join("git")).unwrap();
        assert_eq!(known.same_as(&copy, 16), Some(git.as_path()));
        let other = dir.path().join("bar");
        std::fs::write(&other, b"the gut program\n").unwrap();
        assert_eq!(known.same_as(&other, 16), None);
        assert_eq!(known.same_as(&copy, 17), None, "another size is not read");
    }

    #[test]
    fn the_script_an_interpreter_runs_is_read_past_its_options() {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let op = |name: &str, a: &[&str]| script_operand(name, &v(a));
        assert_eq!(
            op("node", &["node", "cli.js", "--model", "x"]),
            Some(("cli.js".into(), v(&["--model", "x"])))
        );
        assert_eq!(
            op(
                "node",
                &["node", "--no-warnings", "-r", "./hook.js", "cli.js", "-p"]
            ),
            Some(("cli.js".into(), v(&["-p"])))
        );
        assert_eq!(
            op("node", &["node", "--", "cli.js"]),
            Some(("cli.js".into(), vec![]))
        );
        assert_eq!(
            op("deno", &["deno", "run", "-A", "cli.js", "a"]),
            Some(("cli.js".into(), v(&["a"])))
        );
        for runs_no_file in [
            &["node", "-e", "1", "cli.js"][..],
            &["node", "--version"],
            &["node"],
            &["node", "--print", "x"],
        ] {
            assert_eq!(op("node", runs_no_file), None, "{runs_no_file:?}");
        }
        assert_eq!(op("python3", &["python3", "cli.js"]), None);
    }
}
