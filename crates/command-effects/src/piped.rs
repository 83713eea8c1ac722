//! What a pipe hands to `xargs`: the items `xargs` appends to its command when the stage
//! before it prints known words (`echo ~/.x/f | xargs rm` runs `rm ~/.x/f`).

/// The items `xargs` (with these options) reads from the output of `program args`, or `None`
/// when they are not known from the command line: a producer other than `echo` or a
/// `printf` of `%s` and blanks, a word holding run-time text, or what xargs' grammar
/// (shell-syntax's `view/xargs.rs`, the one reading of xargs' options) does not model (`-0`,
/// `-d`, `-a`, `-E`, `-I`, quotes or backslashes in the input). All runs' items together.
pub fn xargs_items(
    xargs_options: &[Option<&str>],
    program: &str,
    args: &[Option<&str>],
) -> Option<Vec<String>> {
    let words: Vec<&str> = args.iter().copied().collect::<Option<_>>()?;
    let input = match program {
        "echo" => {
            let mut w = &words[..];
            // `-n` drops the newline only; `-e` interprets escapes (not followed).
            while let Some(first) = w.first() {
                match *first {
                    "-n" | "-E" => w = &w[1..],
                    f if f.starts_with('-')
                        && f.len() > 1
                        && f[1..].chars().all(|c| "neE".contains(c)) =>
                    {
                        return None
                    }
                    _ => break,
                }
            }
            w.join(" ")
        }
        "printf" => {
            let (format, rest) = words.split_first()?;
            let plain = format
                .replace("%s", "")
                .replace("\\n", "")
                .replace("\\t", "")
                .trim()
                .is_empty();
            if !plain || !format.contains("%s") {
                return None;
            }
            rest.join("\n")
        }
        _ => return None,
    };
    let runs = shell_syntax::view::xargs_appended_items(xargs_options, &input)?;
    Some(runs.into_iter().flatten().collect())
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
