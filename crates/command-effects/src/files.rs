//! Programs that write or remove files, kept as one table: which words name the files.
//! Redirections are read in [`crate::effects`].

use shell_syntax::view::Arg;

/// Which words of a call name the files it writes or removes.
#[derive(Debug, Clone, Copy)]
pub enum Which {
    /// Every operand (`rm a b`, `touch a`, `tee a b`).
    Operands,
    /// The last operand (`cp a b dir`, `ln -s a b`, `install a b`, `uniq in out`).
    LastOperand,
    /// The second operand, when given (`uniq in out`).
    SecondOperand,
    /// The value of these options (`sort -o f`, `tree -o f`).
    Option(&'static [&'static str]),
    /// Every operand, only when one of these options is given (`sed -i`, `gunzip -f`).
    OperandsWith(&'static [&'static str]),
    /// The last operand, only when one of these options is given (`xxd -r in out`).
    LastOperandWith(&'static [&'static str]),
    /// `key=value` operands with this key (`dd of=f`).
    Key(&'static str),
    /// A grammar too irregular for the rows above (`tar`'s modes and clusters, `cp -r`).
    Grammar(fn(&[Option<&str>]) -> Vec<Changed>),
}

/// One word a call changes: its index (`usize::MAX` when the path is not a word of its own),
/// the change, and the path when it is only part of the word or derived from it.
pub type Changed = (usize, Change, Option<String>);

/// Whether a program writes or removes what it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Change {
    Writes,
    Removes,
    /// Writes entries inside the folder it names, chosen by an archive or a source tree the
    /// command line does not show (`tar -x -C d`, `unzip -d d`, `cp -r src/. d`).
    Fills,
}

pub struct FileRule {
    pub program: &'static str,
    pub change: Change,
    pub which: Which,
    /// Options whose value is the next word (so it is not taken for an operand).
    pub valued: &'static [&'static str],
}

const fn rule(
    program: &'static str,
    change: Change,
    which: Which,
    valued: &'static [&'static str],
) -> FileRule {
    FileRule {
        program,
        change,
        which,
        valued,
    }
}

/// The table.
pub const FILE_RULES: &[FileRule] = &[
    rule("rm", Change::Removes, Which::Operands, &[]),
    rule("unlink", Change::Removes, Which::Operands, &[]),
    rule("shred", Change::Removes, Which::Operands, &["-n", "-s"]),
    rule("rmdir", Change::Removes, Which::Operands, &[]),
    rule(
        "touch",
        Change::Writes,
        Which::Operands,
        &["-d", "-r", "-t"],
    ),
    rule("tee", Change::Writes, Which::Operands, &[]),
    rule("truncate", Change::Writes, Which::Operands, &["-s", "-r"]),
    rule("mkdir", Change::Writes, Which::Operands, &["-m"]),
    rule("cp", Change::Writes, Which::Grammar(copy_changes), &[]),
    rule("mv", Change::Writes, Which::Operands, &["-t", "-S"]),
    rule("ln", Change::Writes, Which::LastOperand, &["-t", "-S"]),
    rule(
        "install",
        Change::Writes,
        Which::LastOperand,
        &["-m", "-o", "-g", "-t", "-S"],
    ),
    rule(
        "rsync",
        Change::Writes,
        Which::LastOperand,
        &["-e", "--rsh", "--exclude", "--include", "--filter"],
    ),
    rule("chmod", Change::Writes, Which::Operands, &[]),
    rule("chown", Change::Writes, Which::Operands, &[]),
    rule(
        "sort",
        Change::Writes,
        Which::Option(&["-o", "--output"]),
        &["-k", "-t", "-S", "-T"],
    ),
    rule(
        "tree",
        Change::Writes,
        Which::Option(&["-o"]),
        &["-L", "-P", "-I"],
    ),
    rule(
        "uniq",
        Change::Writes,
        Which::SecondOperand,
        &["-f", "-s", "-w"],
    ),
    rule(
        "xxd",
        Change::Writes,
        Which::LastOperandWith(&["-r", "-revert"]),
        &["-c", "-g", "-l", "-s"],
    ),
    rule(
        "sed",
        Change::Writes,
        Which::OperandsWith(&["-i", "--in-place"]),
        &["-e", "-f"],
    ),
    rule(
        "perl",
        Change::Writes,
        Which::OperandsWith(&["-i", "-pi", "-pie", "-i.bak"]),
        &["-e", "-E"],
    ),
    rule("gzip", Change::Writes, Which::Grammar(gzip_changes), &[]),
    rule(
        "gunzip",
        Change::Writes,
        Which::Grammar(gunzip_changes),
        &[],
    ),
    rule("bzip2", Change::Writes, Which::Grammar(bzip2_changes), &[]),
    rule(
        "bunzip2",
        Change::Writes,
        Which::Grammar(bunzip2_changes),
        &[],
    ),
    rule("xz", Change::Writes, Which::Grammar(xz_changes), &[]),
    rule("unxz", Change::Writes, Which::Grammar(unxz_changes), &[]),
    rule(
        "unzip",
        Change::Fills,
        Which::Option(&["-d"]),
        &["-x", "-P"],
    ),
    rule("tar", Change::Writes, Which::Grammar(tar_changes), &[]),
    rule("dd", Change::Writes, Which::Key("of"), &[]),
    rule(
        "patch",
        Change::Writes,
        Which::Operands,
        &["-p", "-i", "-d"],
    ),
    rule("git-apply", Change::Writes, Which::Operands, &[]),
];

/// One file a call changes (`None`: decided at run time).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileChange {
    pub change: Change,
    pub path: Option<String>,
}

/// The files `program args` writes or removes, by the table.
pub fn changes(program: &str, args: &[Arg<'_>]) -> Vec<FileChange> {
    let values: Vec<Option<&str>> = args.iter().map(|a| a.value.as_deref()).collect();
    changed_words(program, &values)
        .into_iter()
        .map(|(i, change, path)| FileChange {
            change,
            path: path.or_else(|| values.get(i).copied().flatten().map(String::from)),
        })
        .collect()
}

/// The words of `program`'s arguments (`values`, `None` for a run-time word) that name a file
/// it writes or removes: (index, change, the path when it is only part of the word, as in
/// `dd of=f` or `--output=f`). For guards that expand words their own way (`~`, `$HOME`).
pub fn changed_words(
    program: &str,
    values: &[Option<&str>],
) -> Vec<(usize, Change, Option<String>)> {
    let Some(r) = FILE_RULES.iter().find(|r| r.program == program) else {
        return Vec::new();
    };
    if let Which::Grammar(f) = r.which {
        return f(values);
    }
    let option_names: &[&str] = match r.which {
        Which::Option(o) => o,
        _ => &[],
    };
    // (index, value) of operands; (name, index of the value word or None, attached value).
    let mut operands: Vec<(usize, Option<&str>)> = Vec::new();
    let mut options: Vec<(String, Option<usize>, Option<String>)> = Vec::new();
    let mut i = 0;
    let mut only = false;
    while i < values.len() {
        let at = i;
        let v = values[i];
        i += 1;
        let Some(v) = v else {
            operands.push((at, None));
            continue;
        };
        if only || !v.starts_with('-') || v == "-" {
            operands.push((at, Some(v)));
            continue;
        }
        if v == "--" {
            only = true;
            continue;
        }
        if let Some((k, val)) = v.split_once('=').filter(|_| v.starts_with("--")) {
            options.push((k.to_string(), None, Some(val.to_string())));
            continue;
        }
        if r.valued.contains(&v) || option_names.contains(&v) {
            options.push((v.to_string(), (i < values.len()).then_some(i), None));
            i += 1;
            continue;
        }
        if let Some(o) = option_names
            .iter()
            .find(|o| o.len() == 2 && v.starts_with(**o) && v.len() > 2)
        {
            options.push((o.to_string(), None, Some(v[2..].to_string())));
            continue;
        }
        options.push((v.to_string(), None, None));
    }
    let has = |names: &[&str]| {
        options.iter().any(|(k, _, _)| {
            names
                .iter()
                .any(|n| k == n || (n.len() == 2 && k.starts_with(n) && !k.starts_with("--")))
        })
    };
    let all = |ops: &[(usize, Option<&str>)]| -> Vec<(usize, Change, Option<String>)> {
        ops.iter().map(|(i, _)| (*i, r.change, None)).collect()
    };
    match r.which {
        Which::Operands => all(&operands),
        Which::LastOperand => all(operands.last().map(std::slice::from_ref).unwrap_or(&[])),
        Which::SecondOperand => all(operands.get(1).map(std::slice::from_ref).unwrap_or(&[])),
        Which::Option(names) => options
            .iter()
            .filter(|(k, _, _)| names.contains(&k.as_str()))
            .filter_map(|(_, at, attached)| match (at, attached) {
                (Some(at), _) => Some((*at, r.change, None)),
                (None, Some(a)) => Some((usize::MAX, r.change, Some(a.clone()))),
                _ => None,
            })
            .collect(),
        Which::OperandsWith(names) if has(names) => all(&operands),
        Which::LastOperandWith(names) if has(names) => {
            all(operands.last().map(std::slice::from_ref).unwrap_or(&[]))
        }
        Which::Key(key) => operands
            .iter()
            .filter_map(|(i, o)| match o {
                None => Some((*i, r.change, None)),
                Some(o) => o
                    .strip_prefix(&format!("{key}="))
                    .map(|p| (*i, r.change, Some(p.to_string()))),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A compressor: its suffixes (compressed, decompressed) and the one it adds.
struct Compressor {
    suffixes: &'static [(&'static str, &'static str)],
    adds: &'static str,
}

const GZIP: Compressor = Compressor {
    suffixes: &[
        (".gz", ""),
        ("-gz", ""),
        (".z", ""),
        (".tgz", ".tar"),
        (".taz", ".tar"),
    ],
    adds: ".gz",
};
const BZIP2: Compressor = Compressor {
    suffixes: &[
        (".bz2", ""),
        (".bz", ""),
        (".tbz2", ".tar"),
        (".tbz", ".tar"),
    ],
    adds: ".bz2",
};
const XZ: Compressor = Compressor {
    suffixes: &[(".xz", ""), (".lzma", ""), (".txz", ".tar")],
    adds: ".xz",
};

fn gzip_changes(v: &[Option<&str>]) -> Vec<Changed> {
    compressor_changes(&GZIP, false, v)
}
fn gunzip_changes(v: &[Option<&str>]) -> Vec<Changed> {
    compressor_changes(&GZIP, true, v)
}
fn bzip2_changes(v: &[Option<&str>]) -> Vec<Changed> {
    compressor_changes(&BZIP2, false, v)
}
fn bunzip2_changes(v: &[Option<&str>]) -> Vec<Changed> {
    compressor_changes(&BZIP2, true, v)
}
fn xz_changes(v: &[Option<&str>]) -> Vec<Changed> {
    compressor_changes(&XZ, false, v)
}
fn unxz_changes(v: &[Option<&str>]) -> Vec<Changed> {
    compressor_changes(&XZ, true, v)
}

/// `gzip`-like programs: each operand is replaced (removed unless `-k`) by its compressed or,
/// with `-d` or as `gunzip`, its decompressed file: `a.json.gz` gives `a.json`, `a.tgz` gives
/// `a.tar`, and a name without a known suffix names the result itself (`gunzip a` reads `a.gz`
/// and writes `a`). `-c`, `-t` and `-l` write nothing (stdout, test, list).
fn compressor_changes(
    c: &Compressor,
    mut decompress: bool,
    values: &[Option<&str>],
) -> Vec<Changed> {
    let (mut keep, mut quiet_out) = (false, false);
    let mut operands: Vec<(usize, Option<&str>)> = Vec::new();
    let mut only = false;
    let mut i = 0;
    while i < values.len() {
        let at = i;
        i += 1;
        match values[at] {
            Some(v) if !only && v == "--" => only = true,
            Some(v) if !only && v.starts_with("--") => match v {
                "--decompress" | "--uncompress" => decompress = true,
                "--keep" => keep = true,
                "--stdout" | "--to-stdout" | "--test" | "--list" => quiet_out = true,
                "--suffix" => i += 1,
                _ => {}
            },
            Some(v) if !only && v.starts_with('-') && v != "-" => {
                for ch in v[1..].chars() {
                    match ch {
                        'd' => decompress = true,
                        'k' => keep = true,
                        'c' | 't' | 'l' => quiet_out = true,
                        'S' => {
                            i += 1;
                            break;
                        }
                        _ => {}
                    }
                }
            }
            v => operands.push((at, v)),
        }
    }
    if quiet_out {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (at, v) in operands {
        if v == Some("-") {
            continue;
        }
        let Some(v) = v else {
            if !keep {
                out.push((at, Change::Removes, None));
            }
            out.push((at, Change::Writes, None));
            continue;
        };
        // (what is removed, what is written); `None`: the word itself.
        let (removed, written) = if decompress {
            match c
                .suffixes
                .iter()
                .find(|(s, _)| v.len() > s.len() && v.ends_with(s))
            {
                Some((s, to)) => (None, Some(format!("{}{to}", &v[..v.len() - s.len()]))),
                None => (Some(format!("{v}{}", c.adds)), None),
            }
        } else {
            (None, Some(format!("{v}{}", c.adds)))
        };
        if !keep {
            out.push((at, Change::Removes, removed));
        }
        out.push((at, Change::Writes, written));
    }
    out
}

/// `tar`'s options whose value is the next word (or the rest of a dash cluster).
const TAR_VALUED: &[char] = &['f', 'C', 'T', 'X', 'b', 'H', 'K', 'N', 'g', 'V', 'L', 'F'];
const TAR_VALUED_LONG: &[&str] = &[
    "--file",
    "--directory",
    "--files-from",
    "--exclude-from",
    "--blocking-factor",
    "--format",
    "--starting-file",
    "--newer",
    "--listed-incremental",
    "--label",
    "--tape-length",
    "--info-script",
    "--exclude",
    "--transform",
    "--owner",
    "--group",
    "--mode",
    "--mtime",
];

/// `tar`: extracting (`-x`, `xf`, `--extract`, `--get`) fills the `-C` folder (the current one
/// when none is given, as `.`); creating or adding (`c`, `r`, `u`, `A`) writes the `-f` archive.
/// A run-time word where the mode could be leaves both possible.
fn tar_changes(values: &[Option<&str>]) -> Vec<Changed> {
    let (mut extract, mut create, mut unknown) = (false, false, false);
    // (option, index of the value word, or the attached value)
    let mut valued: Vec<(char, Option<usize>, Option<String>)> = Vec::new();
    let mut i = 0;
    let mut only = false;
    while i < values.len() {
        let at = i;
        i += 1;
        let Some(v) = values[at] else {
            unknown |= at == 0;
            continue;
        };
        if only || v == "-" {
            continue;
        }
        if v == "--" {
            only = true;
            continue;
        }
        if let Some(long) = v.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, a)) => (n, Some(a.to_string())),
                None => (long, None),
            };
            match name {
                "extract" | "get" => extract = true,
                "create" | "append" | "update" | "concatenate" | "catenate" => create = true,
                _ => {}
            }
            let letter = match name {
                "file" => Some('f'),
                "directory" => Some('C'),
                _ => None,
            };
            if TAR_VALUED_LONG.contains(&format!("--{name}").as_str()) && attached.is_none() {
                if let Some(l) = letter {
                    valued.push((l, (i < values.len()).then_some(i), None));
                }
                i += 1;
            } else if let (Some(l), Some(a)) = (letter, attached) {
                valued.push((l, None, Some(a)));
            }
            continue;
        }
        // `-xf a` or the old style first word `xvf a`: a cluster.
        let cluster = match v.strip_prefix('-') {
            Some(c) => Some((c, true)),
            None if at == 0 => Some((v, false)),
            None => None,
        };
        let Some((letters, dashed)) = cluster else {
            continue;
        };
        for (k, c) in letters.char_indices() {
            if TAR_VALUED.contains(&c) {
                let rest = &letters[k + c.len_utf8()..];
                if dashed && !rest.is_empty() {
                    valued.push((c, None, Some(rest.to_string())));
                    break;
                }
                valued.push((c, (i < values.len()).then_some(i), None));
                i += 1;
            } else {
                extract |= c == 'x';
                create |= matches!(c, 'c' | 'r' | 'u' | 'A');
            }
        }
    }
    let mut out = Vec::new();
    let of = |l: char| valued.iter().filter(move |(c, _, _)| *c == l);
    if extract || unknown {
        let mut dirs = of('C').peekable();
        if dirs.peek().is_none() {
            out.push((usize::MAX, Change::Fills, Some(".".to_string())));
        }
        for (_, at, attached) in dirs {
            out.push((at.unwrap_or(usize::MAX), Change::Fills, attached.clone()));
        }
    }
    if create || unknown {
        for (_, at, attached) in of('f') {
            out.push((at.unwrap_or(usize::MAX), Change::Writes, attached.clone()));
        }
    }
    out
}

/// `cp`: the destination (last operand, or `-t`) is written; a recursive copy (`-r`, `-R`,
/// `-a`) also fills it: `cp -r src/. d` puts src's entries in `d`, `cp -r src d/` in `d/src`
/// (and in `d` itself when `d` does not exist yet, which the command line does not show).
fn copy_changes(values: &[Option<&str>]) -> Vec<Changed> {
    let mut operands: Vec<usize> = Vec::new();
    // The `-t` folder: the index of its word and the value when only part of that word.
    let mut target: Option<(usize, Option<String>)> = None;
    let mut recursive = false;
    let mut only = false;
    let mut i = 0;
    while i < values.len() {
        let at = i;
        i += 1;
        let Some(v) = values[at] else {
            operands.push(at);
            continue;
        };
        if only || !v.starts_with('-') || v == "-" {
            operands.push(at);
        } else if v == "--" {
            only = true;
        } else if let Some(long) = v.strip_prefix("--") {
            recursive |= matches!(long, "recursive" | "archive");
            if let Some(t) = long.strip_prefix("target-directory=") {
                target = Some((at, Some(t.to_string())));
            } else if long == "target-directory" {
                target = (i < values.len()).then_some((i, None));
                i += 1;
            } else if long == "suffix" {
                i += 1;
            }
        } else {
            let letters = &v[1..];
            for (k, c) in letters.char_indices() {
                recursive |= matches!(c, 'r' | 'R' | 'a');
                if c == 't' || c == 'S' {
                    let rest = &letters[k + 1..];
                    if rest.is_empty() {
                        if c == 't' {
                            target = (i < values.len()).then_some((i, None));
                        }
                        i += 1;
                    } else if c == 't' {
                        target = Some((at, Some(rest.to_string())));
                    }
                    break;
                }
            }
        }
    }
    let named_by_t = target.is_some();
    let ((dest, attached), sources): ((usize, Option<String>), &[usize]) =
        match (target, operands.split_last()) {
            (Some(t), _) => (t, &operands[..]),
            (None, Some((d, s))) => ((*d, None), s),
            (None, None) => return Vec::new(),
        };
    let mut out = vec![(dest, Change::Writes, attached.clone())];
    if !recursive {
        return out;
    }
    let Some(d) = attached.clone().or_else(|| values[dest].map(String::from)) else {
        out.push((dest, Change::Fills, None));
        return out;
    };
    for s in sources {
        let name = values[*s].map(|s| s.trim_end_matches('/').rsplit('/').next().unwrap_or(""));
        match name {
            Some(n) if !n.is_empty() && n != "." => {
                out.push((
                    dest,
                    Change::Fills,
                    Some(format!("{}/{n}", d.trim_end_matches('/'))),
                ));
                // `cp -r src d` with no `d` yet makes `d` the copy (`-t d` must exist).
                if !d.ends_with('/') && sources.len() == 1 && !named_by_t {
                    out.push((dest, Change::Fills, attached.clone()));
                }
            }
            _ => out.push((dest, Change::Fills, attached.clone())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tar_fills_on_extract_and_writes_the_archive_on_create() {
        let fills = |i: usize, p: Option<&str>| (i, Change::Fills, p.map(String::from));
        let writes = |i: usize| (i, Change::Writes, None);
        assert_eq!(
            words("tar", &["-xf", "s.tar", "-C", "d"]),
            vec![fills(3, None)]
        );
        assert_eq!(
            words("tar", &["xvf", "s.tar", "-Cd"]),
            vec![fills(usize::MAX, Some("d"))]
        );
        assert_eq!(
            words("tar", &["--extract", "--file=s.tar", "--directory=d"]),
            vec![fills(usize::MAX, Some("d"))]
        );
        assert_eq!(
            words("tar", &["-xzf", "s.tgz"]),
            vec![fills(usize::MAX, Some("."))]
        );
        assert_eq!(
            words("tar", &["-czf", "o.tgz", "-C", "d", "."]),
            vec![writes(1)]
        );
        assert_eq!(words("tar", &["cf", "o.tar", "x"]), vec![writes(1)]);
        assert!(words("tar", &["-tf", "s.tar"]).is_empty());
        // A run-time first word may be any mode.
        assert_eq!(changed_words("tar", &[None, Some("a.tar")]).len(), 1);
    }

    #[test]
    fn compressors_write_the_other_name() {
        let w = |p: &str| (1, Change::Writes, Some(p.to_string()));
        let rm = (1, Change::Removes, None);
        assert_eq!(
            words("gunzip", &["-f", "a.json.gz"]),
            vec![rm.clone(), w("a.json")]
        );
        assert_eq!(
            words("gzip", &["-d", "a.tgz"]),
            vec![rm.clone(), w("a.tar")]
        );
        assert_eq!(words("unxz", &["-k", "a.xz"]), vec![w("a")]);
        assert_eq!(words("gzip", &["-9", "a"]), vec![rm.clone(), w("a.gz")]);
        // `gunzip a` reads (and removes) `a.gz` and writes `a`.
        assert_eq!(
            words("gunzip", &["-f", "a"]),
            vec![
                (1, Change::Removes, Some("a.gz".into())),
                (1, Change::Writes, None)
            ]
        );
        assert!(words("gunzip", &["-c", "a.gz"]).is_empty());
        assert!(words("gzip", &["-l", "a.gz"]).is_empty());
    }

    #[test]
    fn a_recursive_copy_fills_its_destination() {
        let fills = |p: Option<&str>| (1, Change::Fills, p.map(String::from));
        assert_eq!(words("cp", &["a", "b"]), vec![(1, Change::Writes, None)]);
        assert_eq!(
            words("cp", &["-r", "s/.", "d/"]),
            vec![(2, Change::Writes, None), (2, Change::Fills, None)]
        );
        assert_eq!(
            words("cp", &["-a", "src", "d/"])[1..],
            [(2, Change::Fills, Some("d/src".into()))]
        );
        assert_eq!(
            words("cp", &["-R", "src", "d"])[1..],
            [
                (2, Change::Fills, Some("d/src".into())),
                (2, Change::Fills, None)
            ]
        );
        assert_eq!(
            words("cp", &["-rt", "d", "src"])[1..],
            [fills(Some("d/src"))]
        );
        assert_eq!(
            words("cp", &["--target-directory=d", "-r", "s/."])[1..],
            [(0, Change::Fills, Some("d".into()))]
        );
    }

    fn words(program: &str, args: &[&str]) -> Vec<(usize, Change, Option<String>)> {
        let v: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
        changed_words(program, &v)
    }

    #[test]
    fn each_rule_names_its_files() {
        assert_eq!(
            words("uniq", &["/tmp/in", "out"]),
            vec![(1, Change::Writes, None)]
        );
        assert_eq!(
            words("tree", &["-o", "f", "/tmp"]),
            vec![(1, Change::Writes, None)]
        );
        assert_eq!(
            words("xxd", &["-r", "hex", "bin"]),
            vec![(2, Change::Writes, None)]
        );
        assert!(words("xxd", &["hex", "bin"]).is_empty());
        assert_eq!(
            words("tar", &["-xf", "s.tar", "-C", "d"]),
            vec![(3, Change::Fills, None)]
        );
        assert_eq!(
            words("dd", &["if=a", "of=b"]),
            vec![(1, Change::Writes, Some("b".into()))]
        );
        assert_eq!(
            words("sort", &["-o", "out", "in"]),
            vec![(1, Change::Writes, None)]
        );
        assert_eq!(words("rm", &["-rf", "a", "b"]).len(), 2);
        assert_eq!(
            words("unzip", &["-o", "s.zip", "-d", "d"]),
            vec![(3, Change::Fills, None)]
        );
        assert_eq!(words("sed", &["-i", "s/a/b/", "f"]).len(), 2);
        assert!(words("sed", &["s/a/b/", "f"]).is_empty());
    }
}
