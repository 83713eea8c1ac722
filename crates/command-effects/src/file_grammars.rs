//! The writers whose grammar is too irregular for a row of [`crate::files::FILE_RULES`]: `tar`
//! (modes and clusters), `cp` (`-t`, recursive copies), the compressors, `sed` scripts (`w`).

use crate::files::{Change, Changed};

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

/// One `fn` per program (a table row holds a plain function pointer).
macro_rules! compressors {
    ($($name:ident: $c:expr, $decompress:expr;)*) => {$(
        pub(crate) fn $name(v: &[Option<&str>]) -> Vec<Changed> {
            compressor_changes(&$c, $decompress, v)
        }
    )*};
}
compressors! {
    gzip_changes: GZIP, false;
    gunzip_changes: GZIP, true;
    bzip2_changes: BZIP2, false;
    bunzip2_changes: BZIP2, true;
    xz_changes: XZ, false;
    unxz_changes: XZ, true;
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
pub(crate) fn tar_changes(values: &[Option<&str>]) -> Vec<Changed> {
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
pub(crate) fn copy_changes(values: &[Option<&str>]) -> Vec<Changed> {
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

/// One word of a command line as an option parser sees it.
enum Word<'v> {
    /// Starts with `-` (not `-` alone), before `--`.
    Option(&'v str),
    /// Anything else (`None`: decided at run time).
    Operand(Option<&'v str>),
}

/// The word at `*i` with its index (`*i` moves past it); `only`: after `--`.
fn next_word<'v>(
    values: &[Option<&'v str>],
    i: &mut usize,
    only: bool,
) -> Option<(usize, Word<'v>)> {
    let at = *i;
    let v = *values.get(at)?;
    *i += 1;
    Some((
        at,
        match v {
            Some(v) if !only && v.starts_with('-') && v != "-" => Word::Option(v),
            v => Word::Operand(v),
        },
    ))
}

/// `sed`: with `-i` (`-i.bak`, `-ni`, `--in-place=SUF`) every file operand is rewritten; a
/// script's `w FILE`, `W FILE` and `s///w FILE` write FILE whether or not `-i` is given. The
/// script is each `-e` value (`--expression`), or the first operand when there is none; a
/// script from `-f` is not read (its writes stay unknown to the command line).
pub(crate) fn sed_changes(values: &[Option<&str>]) -> Vec<Changed> {
    let mut in_place = false;
    let mut scripts: Vec<(usize, Option<&str>)> = Vec::new();
    let mut script_file = false;
    let mut operands: Vec<(usize, Option<&str>)> = Vec::new();
    let mut only = false;
    let mut i = 0;
    while let Some((at, word)) = next_word(values, &mut i, only) {
        let v = match word {
            Word::Option(v) => v,
            Word::Operand(v) => {
                operands.push((at, v));
                continue;
            }
        };
        if v == "--" {
            only = true;
        } else if let Some(long) = v.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, a)) => (n, Some(a)),
                None => (long, None),
            };
            match (name, attached) {
                ("in-place", _) => in_place = true,
                ("expression", Some(a)) => scripts.push((at, Some(a))),
                ("expression", None) => {
                    scripts.push((i, values.get(i).copied().flatten()));
                    i += 1;
                }
                ("file", a) => {
                    script_file = true;
                    i += usize::from(a.is_none());
                }
                ("line-length", None) => i += 1,
                _ => {}
            }
        } else {
            let letters = &v[1..];
            for (k, c) in letters.char_indices() {
                let rest = &letters[k + 1..];
                match c {
                    // `-i` takes the rest of the cluster as its suffix.
                    'i' => {
                        in_place = true;
                        break;
                    }
                    'e' | 'f' | 'l' => {
                        let (word, value) = if rest.is_empty() {
                            i += 1;
                            (i - 1, values.get(i - 1).copied().flatten())
                        } else {
                            (at, Some(rest))
                        };
                        match c {
                            'e' => scripts.push((word, value)),
                            'f' => script_file = true,
                            _ => {}
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    if scripts.is_empty() && !script_file && !operands.is_empty() {
        scripts.push(operands.remove(0));
    }
    let mut out: Vec<Changed> = Vec::new();
    if in_place {
        out.extend(operands.iter().map(|(at, _)| (*at, Change::Writes, None)));
    }
    for (at, script) in scripts {
        match script {
            Some(s) => out.extend(
                sed_written_files(s)
                    .into_iter()
                    .map(|f| (at, Change::Writes, Some(f))),
            ),
            // A script decided at run time may write any file.
            None => out.push((at, Change::Writes, None)),
        }
    }
    out
}

/// The files a sed script's `w`/`W` commands and `s///w` flags write (`/dev/stdout` and
/// `/dev/stderr` are streams, not files).
pub(crate) fn sed_written_files(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest_of_line = |line: &str| {
        let f = line.trim_start();
        if !f.is_empty() && f != "/dev/stdout" && f != "/dev/stderr" {
            out.push(f.to_string());
        }
    };
    for line in script.lines() {
        let chars: Vec<char> = line.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            match c {
                ' ' | '\t' | ';' | '{' | '}' | '!' | ',' | '$' | '~' | '0'..='9' => k += 1,
                // An address: `/re/` or `\cREc`.
                '/' | '\\' => {
                    let delim = if c == '\\' {
                        k += 1;
                        chars.get(k).copied().unwrap_or('/')
                    } else {
                        '/'
                    };
                    k = skip_delimited(&chars, k + 1, delim) + 1;
                    // `/re/I`, `/re/M`
                    while chars.get(k).is_some_and(|c| matches!(c, 'I' | 'M')) {
                        k += 1;
                    }
                }
                'w' | 'W' => {
                    rest_of_line(&chars[k + 1..].iter().collect::<String>());
                    break;
                }
                's' | 'y' => {
                    let Some(&delim) = chars.get(k + 1) else {
                        break;
                    };
                    k = skip_delimited(&chars, k + 2, delim) + 1;
                    k = skip_delimited(&chars, k, delim) + 1;
                    if c == 'y' {
                        continue;
                    }
                    while let Some(&f) = chars.get(k) {
                        if f == 'w' {
                            rest_of_line(&chars[k + 1..].iter().collect::<String>());
                            k = chars.len();
                            break;
                        }
                        if !(f.is_ascii_alphanumeric()) {
                            break;
                        }
                        k += 1;
                    }
                }
                // Commands whose argument runs to the end of the line (`a text`, `r file`,
                // `e cmd`, `b label`).
                'a' | 'i' | 'c' | 'r' | 'R' | 'e' | 'b' | 't' | 'T' | ':' | 'v' => break,
                _ => k += 1,
            }
        }
    }
    out
}

/// The index of the next unescaped `delim` at or after `from` (or the end).
fn skip_delimited(chars: &[char], from: usize, delim: char) -> usize {
    let mut k = from;
    while k < chars.len() {
        if chars[k] == '\\' {
            k += 2;
            continue;
        }
        if chars[k] == delim {
            return k;
        }
        k += 1;
    }
    chars.len()
}

/// `awk` (and `gawk`, `mawk`, `nawk`): the program is each `-e`/`--source` value, or the first
/// operand when neither these nor `-f` is given; its `print > "file"` and `printf >> "file"`
/// write the file. A destination computed at run time (`print > $1`) is not known here.
pub(crate) fn awk_changes(values: &[Option<&str>]) -> Vec<Changed> {
    let mut programs: Vec<(usize, &str)> = Vec::new();
    let mut from_file = false;
    let mut first_operand: Option<(usize, Option<&str>)> = None;
    let mut only = false;
    let mut i = 0;
    while let Some((at, word)) = next_word(values, &mut i, only) {
        let v = match word {
            Word::Option(v) => v,
            Word::Operand(v) => {
                // Options come before the program.
                first_operand = Some((at, v));
                break;
            }
        };
        if v == "--" {
            only = true;
            continue;
        }
        let (name, attached) = match v.strip_prefix("--") {
            Some(long) => match long.split_once('=') {
                Some((n, a)) => (n, Some(a)),
                None => (long, None),
            },
            None => (&v[1..2], Some(&v[2..]).filter(|a| !a.is_empty())),
        };
        if !matches!(
            name,
            "F" | "v"
                | "f"
                | "e"
                | "E"
                | "i"
                | "field-separator"
                | "assign"
                | "file"
                | "source"
                | "include"
                | "exec"
        ) {
            continue;
        }
        let value = match attached {
            Some(a) => Some((at, a)),
            None => {
                i += 1;
                values.get(at + 1).copied().flatten().map(|v| (at + 1, v))
            }
        };
        match name {
            "e" | "source" => programs.extend(value),
            "f" | "E" | "file" | "exec" => from_file = true,
            _ => {}
        }
    }
    if programs.is_empty() && !from_file {
        match first_operand {
            Some((at, Some(p))) => programs.push((at, p)),
            // A program decided at run time may write any file.
            Some((at, None)) => return vec![(at, Change::Writes, None)],
            None => {}
        }
    }
    programs
        .into_iter()
        .flat_map(|(at, p)| {
            awk_written_files(p)
                .into_iter()
                .map(move |f| (at, Change::Writes, Some(f)))
        })
        .collect()
}

/// The literal files an awk program's `print`/`printf` statements redirect to (`>`, `>>`);
/// a `>` inside parentheses or outside a print statement is a comparison.
pub(crate) fn awk_written_files(program: &str) -> Vec<String> {
    let chars: Vec<char> = program.chars().collect();
    let mut out = Vec::new();
    // The parenthesis depth at which the current statement's print began.
    let mut print_depth: Option<usize> = None;
    let mut depth = 0usize;
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        match c {
            '"' => k = skip_delimited(&chars, k + 1, '"'),
            '#' => {
                while k < chars.len() && chars[k] != '\n' {
                    k += 1;
                }
                continue;
            }
            ';' | '{' | '}' | '\n' => print_depth = None,
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '>' if print_depth == Some(depth) => {
                let mut j = k + 1;
                if chars.get(j) == Some(&'>') {
                    j += 1;
                }
                while chars.get(j).is_some_and(|c| c.is_whitespace()) {
                    j += 1;
                }
                if chars.get(j) == Some(&'"') {
                    let end = skip_delimited(&chars, j + 1, '"');
                    let text: String = chars[j + 1..end.min(chars.len())].iter().collect();
                    out.push(text.replace("\\\"", "\"").replace("\\\\", "\\"));
                    k = end;
                } else {
                    k = j;
                    continue;
                }
            }
            c if c.is_ascii_alphabetic() => {
                let start = k;
                while chars
                    .get(k)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    k += 1;
                }
                let word: String = chars[start..k].iter().collect();
                if word == "print" || word == "printf" {
                    print_depth = Some(depth);
                }
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    out
}
