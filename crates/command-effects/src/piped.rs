//! What a pipe hands to `xargs`: the items `xargs` appends to its command when the stage
//! before it prints known words (`echo ~/.x/f | xargs rm` runs `rm ~/.x/f`).

/// The items `xargs` (with these options) reads from the output of `program args`, or `None`
/// when they are not known from the command line: a producer other than `echo` or a
/// `printf` of `%s` and blanks, an option that changes splitting or placement (`-0`, `-d`,
/// `-I`, `-i`, `-a`, `-E`, `-e`), or a word holding a quote, a backslash or run-time text.
pub fn xargs_items(
    xargs_options: &[Option<&str>],
    program: &str,
    args: &[Option<&str>],
) -> Option<Vec<String>> {
    for o in xargs_options {
        let o = (*o)?;
        let changes_items = o.starts_with("--null")
            || o.starts_with("--delimiter")
            || o.starts_with("--replace")
            || o.starts_with("--arg-file")
            || o.starts_with("--eof")
            || (o.starts_with('-')
                && !o.starts_with("--")
                && o[1..].contains(['0', 'd', 'I', 'i', 'a', 'E', 'e']));
        if changes_items {
            return None;
        }
    }
    let words: Vec<&str> = match program {
        "echo" => {
            let mut w: Vec<&str> = args
                .iter()
                .map(|a| a.ok_or(()))
                .collect::<Result<_, _>>()
                .ok()?;
            // `-n` drops the newline only; `-e` interprets escapes (not followed).
            while let Some(first) = w.first() {
                match *first {
                    "-n" | "-E" => {
                        w.remove(0);
                    }
                    f if f.starts_with('-')
                        && f.len() > 1
                        && f[1..].chars().all(|c| "neE".contains(c)) =>
                    {
                        return None
                    }
                    _ => break,
                }
            }
            w
        }
        "printf" => {
            let (format, rest) = args.split_first()?;
            let format = (*format)?;
            let plain = format
                .replace("%s", "")
                .replace("\\n", "")
                .replace("\\t", "")
                .trim()
                .is_empty();
            if !plain || !format.contains("%s") {
                return None;
            }
            rest.iter()
                .map(|a| a.ok_or(()))
                .collect::<Result<_, _>>()
                .ok()?
        }
        _ => return None,
    };
    if words.iter().any(|w| w.contains(['\'', '"', '\\'])) {
        return None;
    }
    Some(
        words
            .iter()
            .flat_map(|w| w.split_whitespace())
            .map(String::from)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(opts: &[&str], program: &str, args: &[&str]) -> Option<Vec<String>> {
        let o: Vec<Option<&str>> = opts.iter().map(|a| Some(*a)).collect();
        let a: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
        xargs_items(&o, program, &a)
    }

    #[test]
    fn known_words_become_items() {
        assert_eq!(
            items(&[], "echo", &["/h/a b", "c"]),
            Some(vec!["/h/a".into(), "b".into(), "c".into()])
        );
        assert_eq!(
            items(&["-n", "1"], "echo", &["-n", "x"]),
            Some(vec!["x".into()])
        );
        assert_eq!(
            items(&[], "printf", &["%s\\n", "x", "y"]),
            Some(vec!["x".into(), "y".into()])
        );
        assert_eq!(items(&["-0"], "echo", &["x"]), None);
        assert_eq!(items(&["-I{}"], "echo", &["x"]), None);
        assert_eq!(items(&[], "echo", &["-e", "x\\ny"]), None);
        assert_eq!(items(&[], "echo", &["'x y'"]), None);
        assert_eq!(items(&[], "cat", &["list"]), None);
        assert_eq!(xargs_items(&[], "echo", &[None]), None);
    }
}
