//! What `find`'s `{}` stands for in the command its `-exec`/`-execdir`/`-ok` runs: the files
//! found, as a glob over the start folders (`find ~/.x -type f -exec rm {} +` removes
//! `~/.x/*`), narrowed by the first `-name`/`-iname` (`~/.x/*settings.json`).

/// The start folders of `find ARGS`: the words before the first expression word, after the
/// `-H`/`-L`/`-P`/`-D x`/`-O n` options (`.` when none is given); `None` for a run-time word.
pub fn starts<'v>(args: &[Option<&'v str>]) -> Vec<Option<&'v str>> {
    let mut i = 0;
    while let Some(Some(v)) = args.get(i) {
        match *v {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            o if o.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let out: Vec<Option<&str>> = args[i.min(args.len())..]
        .iter()
        .take_while(|a| !a.is_some_and(|v| v.starts_with(['-', '(', '!', ','])))
        .copied()
        .collect();
    if out.is_empty() {
        vec![Some(".")]
    } else {
        out
    }
}

/// Glob patterns for what `{}` names, one per start (`None`: a run-time start).
pub fn found_patterns(args: &[Option<&str>]) -> Vec<Option<String>> {
    let name = args
        .iter()
        .position(|a| matches!(a, Some("-name") | Some("-iname")))
        .and_then(|i| args.get(i + 1).copied().flatten())
        .unwrap_or("");
    starts(args)
        .into_iter()
        .map(|s| s.map(|s| format!("{}/*{name}", s.trim_end_matches('/'))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(args: &[&str]) -> Vec<Option<String>> {
        let v: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
        found_patterns(&v)
    }

    #[test]
    fn the_found_files_are_a_glob_over_the_starts() {
        assert_eq!(of(&["/s", "-type", "f"]), vec![Some("/s/*".into())]);
        assert_eq!(
            of(&["-L", "a/", "b", "-maxdepth", "1", "-name", "x.json"]),
            vec![Some("a/*x.json".into()), Some("b/*x.json".into())]
        );
        assert_eq!(of(&["-name", "*.pyc"]), vec![Some("./**.pyc".into())]);
        assert_eq!(
            found_patterns(&[None, Some("-type"), Some("f")]),
            vec![None]
        );
    }
}
