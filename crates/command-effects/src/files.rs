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
}

/// Whether a program writes or removes what it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Change {
    Writes,
    Removes,
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
    rule("cp", Change::Writes, Which::LastOperand, &["-t", "-S"]),
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
    rule("gunzip", Change::Writes, Which::Operands, &[]),
    rule("gzip", Change::Writes, Which::Operands, &[]),
    rule("unzip", Change::Writes, Which::Option(&["-d"]), &[]),
    rule(
        "tar",
        Change::Writes,
        Which::Option(&["-C", "--directory", "-f", "--file"]),
        &[],
    ),
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
            vec![(3, Change::Writes, None)]
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
        assert_eq!(words("sed", &["-i", "s/a/b/", "f"]).len(), 2);
        assert!(words("sed", &["s/a/b/", "f"]).is_empty());
    }
}
