//! Programs that write or remove files, kept as one table: which words name the files.
//! Redirections are read in [`crate::effects`].

use crate::file_grammars::*;
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
    rule("sed", Change::Writes, Which::Grammar(sed_changes), &[]),
    rule("awk", Change::Writes, Which::Grammar(awk_changes), &[]),
    rule("gawk", Change::Writes, Which::Grammar(awk_changes), &[]),
    rule("mawk", Change::Writes, Which::Grammar(awk_changes), &[]),
    rule("nawk", Change::Writes, Which::Grammar(awk_changes), &[]),
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
    // Most programs write nothing: no copy of their words for them.
    let Some(rule) = rule_of(program) else {
        return Vec::new();
    };
    let values: Vec<Option<&str>> = args.iter().map(|a| a.value.as_deref()).collect();
    rule_words(rule, &values)
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
    match rule_of(program) {
        Some(r) => rule_words(r, values),
        None => Vec::new(),
    }
}

/// The names of [`FILE_RULES`].
const FILE_RULE_NAMES: shell_syntax::NameSet = crate::names_of!(FILE_RULES, r => r.program);

/// The row of [`FILE_RULES`] for `program`.
fn rule_of(program: &str) -> Option<&'static FileRule> {
    if !FILE_RULE_NAMES.may_contain(program) {
        return None;
    }
    FILE_RULES
        .iter()
        .find(|r| crate::same_name(r.program, program))
}

/// [`changed_words`] for the row `r` of [`FILE_RULES`].
fn rule_words(r: &FileRule, values: &[Option<&str>]) -> Vec<(usize, Change, Option<String>)> {
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
    fn sed_scripts_write_their_w_files() {
        let w = |i: usize, p: &str| (i, Change::Writes, Some(p.to_string()));
        assert_eq!(
            words("sed", &["-n", "w /h/x", "/dev/null"]),
            vec![w(1, "/h/x")]
        );
        assert_eq!(
            words("sed", &["-n", "1,$w out.txt", "in"]),
            vec![w(1, "out.txt")]
        );
        assert_eq!(words("sed", &["/re/w /h/x", "in"]), vec![w(0, "/h/x")]);
        assert_eq!(
            words("sed", &["-e", "s/a/b/gw /h/x", "in"]),
            vec![w(1, "/h/x")]
        );
        assert_eq!(
            words("sed", &["-e", "s|w|x|", "-e", "$W f", "in"]),
            vec![w(3, "f")]
        );
        assert_eq!(
            words("sed", &["-ni.bak", "s/a/b/w /h/x", "in"]),
            vec![(2, Change::Writes, None), w(1, "/h/x")]
        );
        for read_only in [
            "s/w/W/g",
            "/w x/p",
            "y/w/x/",
            "a w text",
            "s/a/b/w /dev/stdout",
            r"\,w,d",
        ] {
            assert!(words("sed", &[read_only, "in"]).is_empty(), "{read_only}");
        }
        assert!(words("sed", &["-f", "script.sed", "in"]).is_empty());
    }

    #[test]
    fn awk_print_redirections_write_their_files() {
        let w = |i: usize, p: &str| (i, Change::Writes, Some(p.to_string()));
        assert_eq!(
            words("awk", &["BEGIN{print \"{}\" > \"/h/s.json\"}"]),
            vec![w(0, "/h/s.json")]
        );
        assert_eq!(
            words(
                "gawk",
                &["-F:", "-v", "x=1", "{ printf \"%s\", $1 >> \"out\" }", "in"]
            ),
            vec![w(3, "out")]
        );
        assert_eq!(
            words("awk", &["-e", "{print $0 > \"a\"; print $1 >\"b\"}"]),
            vec![w(1, "a"), w(1, "b")]
        );
        for read_only in [
            "$1 > \"x\" { print }",
            "{ print ($1 > \"x\") }",
            "{ if ($1 > 5) print \"a>b\" }",
            "{ print > $2 }",
            "# print > \"x\"\n{ print }",
        ] {
            assert!(words("awk", &[read_only, "in"]).is_empty(), "{read_only}");
        }
        assert!(words("awk", &["-f", "prog.awk", "in"]).is_empty());
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
        assert_eq!(
            words("sed", &["-i", "s/a/b/", "f"]),
            vec![(2, Change::Writes, None)]
        );
        assert!(words("sed", &["s/a/b/", "f"]).is_empty());
    }
}
