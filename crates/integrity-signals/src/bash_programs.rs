//! Which words of a program's command line are paths, and how the program uses each (read,
//! written, removed, merely named): the per-program tables [`crate::bash_facts`] classifies a
//! simple command by. Add a program here when it reads or writes files in a way the generic rule
//! (every non-option word may be a path it names) gets wrong.

use crate::bash_facts::Access;

const READ_ONLY: &[&str] = &[
    "cat",
    "less",
    "more",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "jq",
    "yq",
    "diff",
    "cmp",
    "wc",
    "ls",
    "stat",
    "file",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "test",
    "[",
    "[[",
    "du",
    "bat",
    "od",
    "xxd",
    "hexdump",
    "strings",
    "find",
    "tree",
    "nl",
    "cut",
    "uniq",
    "sort",
    "column",
    "tac",
    "rev",
    "fold",
];

/// Programs whose words are text, not paths.
/// (`cd` and friends are followed as directory changes, not as uses.)
const NO_PATHS: &[&str] = &[
    "echo", "printf", "true", "false", ":", "type", "which", "command", "cd", "pushd", "popd",
];

/// Programs whose first operand is a pattern or filter unless one is given by option.
const PATTERN_FIRST: &[&str] = &["grep", "egrep", "fgrep", "rg", "ag", "jq", "yq"];

const DESTRUCTIVE: &[&str] = &[
    "rm", "rmdir", "unlink", "shred", "srm", "mv", "chmod", "chown", "chgrp",
];

fn is_option(w: &str) -> bool {
    w.starts_with('-') && w != "-"
}

/// Indices of operands (non-option words), honouring `--` and options that take a value.
pub(crate) fn operands(words: &[Option<(String, bool)>], valued: &[&str]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut after_dashes = false;
    while i < words.len() {
        let w = words[i].as_ref().map(|(t, _)| t.as_str()).unwrap_or("");
        if after_dashes || !is_option(w) {
            out.push(i);
        } else if w == "--" {
            after_dashes = true;
        } else if valued.contains(&w) {
            i += 1;
        }
        i += 1;
    }
    out
}

pub(crate) fn value_of<'a>(
    words: &'a [Option<(String, bool)>],
    short: &str,
    long: &str,
) -> Option<(usize, &'a str)> {
    for (i, w) in words.iter().enumerate() {
        let Some((t, _)) = w else { continue };
        if t == short || t == long {
            if let Some(Some((v, _))) = words.get(i + 1) {
                return Some((i + 1, v));
            }
        }
        if let Some(v) = t.strip_prefix(&format!("{long}=")) {
            return Some((i, v));
        }
    }
    None
}

fn has_short_flag(words: &[Option<(String, bool)>], flag: char, long: &str) -> bool {
    words.iter().flatten().any(|(t, _)| {
        t == long
            || t.starts_with(&format!("{long}="))
            || (t.starts_with('-')
                && !t.starts_with("--")
                && t[1..].split('.').next().is_some_and(|c| c.contains(flag)))
    })
}

/// The words of a command line after the program: the text (when known) and whether it globs.
type Words = [Option<(String, bool)>];

const WRITE: Access = Access::Write { destructive: false };
const DESTROY: Access = Access::Write { destructive: true };

/// Every operand, used as `a`.
fn all(words: &Words, valued: &[&str], a: Access) -> Vec<(usize, Access)> {
    operands(words, valued)
        .into_iter()
        .map(|i| (i, a))
        .collect()
}

/// Which words are paths and how they are used, by program.
pub(crate) fn classify(program: &str, words: &Words) -> Vec<(usize, Access)> {
    match program {
        "sed" => sed(words),
        "perl" => {
            let inplace = has_short_flag(words, 'i', "--in-place");
            let a = if inplace { WRITE } else { Access::Names };
            all(words, &["-e", "-E", "-M", "-I"], a)
        }
        "sort" => {
            let mut v = all(
                words,
                &["-o", "--output", "-k", "-t", "-S", "-T"],
                Access::Read,
            );
            if let Some((i, _)) = value_of(words, "-o", "--output") {
                v.push((i, WRITE));
            }
            v
        }
        "find" => find(words),
        "jq" | "yq" if has_short_flag(words, 'i', "--in-place") => all(words, &[], WRITE),
        "cp" | "install" | "ln" | "rsync" => copy(program, words),
        "chmod" | "chown" | "chgrp" => permissions(program, words),
        "truncate" => all(words, &["-s", "--size", "-r", "--reference"], WRITE),
        "touch" => all(words, &["-r", "--reference", "-d", "--date", "-t"], WRITE),
        "dd" => dd(words),
        "tee" => all(words, &[], WRITE),
        p if NO_PATHS.contains(&p) => Vec::new(),
        p if PATTERN_FIRST.contains(&p) => pattern_first(words),
        p if DESTRUCTIVE.contains(&p) => all(words, &[], DESTROY),
        p if READ_ONLY.contains(&p) => all(
            words,
            &["-e", "-f", "-m", "-A", "-B", "-C", "-n", "-c"],
            Access::Read,
        ),
        p if shell_syntax::view::is_interpreter(p) => all(
            words,
            &["-c", "-e", "-E", "-r", "--eval", "-p", "-m", "-M", "-I"],
            Access::Names,
        ),
        // Unknown programs: every word that is not an option may be a path (`--file=x` names x).
        _ => (0..words.len())
            .filter(|i| {
                words[*i].as_ref().is_some_and(|(t, _)| {
                    !t.starts_with('-') || (t.starts_with("--") && t.contains('='))
                })
            })
            .map(|i| (i, Access::Names))
            .collect(),
    }
}

/// `sed`: the files after the script; written with `-i`.
fn sed(words: &Words) -> Vec<(usize, Access)> {
    let inplace = has_short_flag(words, 'i', "--in-place");
    let ops = operands(words, &["-e", "-f", "--expression", "--file", "-l"]);
    let scripted = value_of(words, "-e", "--expression").is_some()
        || value_of(words, "-f", "--file").is_some();
    // Without -e/-f the first operand is the script.
    let files = if scripted {
        &ops[..]
    } else {
        ops.get(1..).unwrap_or(&[])
    };
    files
        .iter()
        .map(|i| (*i, if inplace { WRITE } else { Access::Read }))
        .collect()
}

/// `find`: the paths before the first expression word; removed when the expression writes.
fn find(words: &Words) -> Vec<(usize, Access)> {
    let writes = words.iter().flatten().any(|(t, _)| {
        matches!(
            t.as_str(),
            "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls"
        )
    });
    let a = if writes { DESTROY } else { Access::Read };
    words
        .iter()
        .enumerate()
        .take_while(|(_, w)| {
            w.as_ref()
                .is_some_and(|(t, _)| !t.starts_with('-') && t != "(" && t != "!")
        })
        .map(|(i, _)| (i, a))
        .collect()
}

/// `cp`, `install`, `ln`, `rsync`: sources read (`ln`: named), the destination written.
fn copy(program: &str, words: &Words) -> Vec<(usize, Access)> {
    let valued: &[&str] = match program {
        "install" => &[
            "-m",
            "--mode",
            "-o",
            "--owner",
            "-g",
            "--group",
            "-t",
            "--target-directory",
            "-S",
            "--suffix",
        ],
        "rsync" => &["-e", "--rsh", "--exclude", "--include", "--filter", "-f"],
        _ => &["-t", "--target-directory", "-S", "--suffix"],
    };
    let ops = operands(words, valued);
    // `ln`, and `cp -l`/`cp -s` (a hard or symbolic link instead of a copy): writing the
    // destination later writes the source.
    let links = program == "ln"
        || (program == "cp"
            && (has_short_flag(words, 'l', "--link")
                || has_short_flag(words, 's', "--symbolic-link")));
    let source = if links { Access::Names } else { Access::Read };
    if let Some((i, _)) = value_of(words, "-t", "--target-directory") {
        let mut v: Vec<(usize, Access)> = ops.iter().map(|o| (*o, source)).collect();
        v.push((i, WRITE));
        return v;
    }
    if program == "install" && has_short_flag(words, 'd', "--directory") {
        return ops.into_iter().map(|o| (o, WRITE)).collect();
    }
    match ops.split_last() {
        Some((dest, sources)) => {
            let mut v: Vec<(usize, Access)> = sources.iter().map(|o| (*o, source)).collect();
            v.push((*dest, WRITE));
            v
        }
        None => Vec::new(),
    }
}

/// `chmod`, `chown`, `chgrp`: every operand after the mode or owner, re-permissioned.
fn permissions(program: &str, words: &Words) -> Vec<(usize, Access)> {
    let ops = operands(words, &["--reference", "--from"]);
    // The mode or owner is the first operand, unless it was written like an option
    // (`chmod -x f`) or taken from `--reference`.
    let mode_as_option = program == "chmod"
        && words.iter().flatten().any(|(t, _)| {
            t.len() > 1 && t.starts_with('-') && t[1..].chars().all(|c| "rwxXstugo".contains(c))
        });
    let skip = usize::from(value_of(words, "", "--reference").is_none() && !mode_as_option);
    ops.into_iter().skip(skip).map(|i| (i, DESTROY)).collect()
}

/// `dd`: `of=` written, `if=` read.
fn dd(words: &Words) -> Vec<(usize, Access)> {
    words
        .iter()
        .enumerate()
        .filter_map(|(i, w)| {
            let (t, _) = w.as_ref()?;
            if t.starts_with("of=") {
                Some((i, WRITE))
            } else if t.starts_with("if=") {
                Some((i, Access::Read))
            } else {
                None
            }
        })
        .collect()
}

/// `grep` & co.: the files after the pattern (none skipped when `-e`/`-f` gives it), read.
fn pattern_first(words: &Words) -> Vec<(usize, Access)> {
    let valued = [
        "-e",
        "-f",
        "--regexp",
        "--file",
        "-m",
        "-A",
        "-B",
        "-C",
        "--arg",
        "--argjson",
        "-g",
        "--glob",
        "-t",
        "--type",
    ];
    let ops = operands(words, &valued);
    let given =
        value_of(words, "-e", "--regexp").is_some() || value_of(words, "-f", "--file").is_some();
    let skip = usize::from(!given);
    ops.into_iter()
        .skip(skip)
        .map(|i| (i, Access::Read))
        .collect()
}
