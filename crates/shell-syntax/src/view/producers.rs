//! What a command that only prints text writes, when the text is in the command: the script a
//! shell reads from such a producer's pipe or process substitution (`echo '...' | sh`,
//! `{ echo a; echo b; } | bash`, `bash < <(printf ...)`).

use super::*;

/// Most groups inside groups [`list_output`] reads (beyond: not read).
const MAX_GROUP_DEPTH: usize = 8;

/// What a list of producers writes, as script words for [`Walker::nested_from_args`]: one
/// simple command as [`producer_text`] reads it (run-time words kept, approximated later); a
/// list of several, or a group (`{ ...; }`, `( ... )`), only when each element is a producer
/// whose output is known exactly (`echo` adds its newline, `printf` does not, so
/// `printf 'git push '; echo main` is one line, as bash's pipe carries it).
pub(super) fn list_output<'a>(arena: &'a Bump, l: &List<'a>, span: Span) -> Option<Vec<Arg<'a>>> {
    if let Some(sc) = l.single_simple() {
        return producer_text(arena, sc);
    }
    let mut out = String::new();
    exact_list(l, &mut out, 0)?;
    Some(vec![Arg::synthetic(arena, out, span)])
}

/// A compound command that is a group or subshell of producers: what it writes.
pub(super) fn group_output<'a>(arena: &'a Bump, cc: &CompoundCommand<'a>) -> Option<Vec<Arg<'a>>> {
    if !cc.redirects.is_empty() {
        return None;
    }
    match &cc.kind {
        CompoundKind::Brace(l) | CompoundKind::Subshell(l) => list_output(arena, l, cc.span),
        _ => None,
    }
}

/// What one pipeline element writes, when the text decides it (a producer, or a group of them).
pub(super) fn command_output(c: &Command<'_>) -> Option<String> {
    let mut out = String::new();
    match c {
        Command::Simple(sc) => return exact_output(sc, 0),
        Command::Compound(cc) if cc.redirects.is_empty() => match &cc.kind {
            CompoundKind::Brace(l) | CompoundKind::Subshell(l) => exact_list(l, &mut out, 0)?,
            _ => return None,
        },
        _ => return None,
    }
    Some(out)
}

/// Appends what every element of `l` writes to `out`; `None` when one is not a producer with a
/// known output.
fn exact_list(l: &List<'_>, out: &mut String, depth: usize) -> Option<()> {
    if depth > MAX_GROUP_DEPTH {
        return None;
    }
    for item in l.items {
        if item.background() || !item.and_or.rest.is_empty() {
            return None;
        }
        let [e] = item.and_or.first.commands else {
            return None;
        };
        match &e.command {
            Command::Simple(sc) => out.push_str(&exact_output(sc, depth)?),
            Command::Compound(cc) if cc.redirects.is_empty() => match &cc.kind {
                CompoundKind::Brace(inner) | CompoundKind::Subshell(inner) => {
                    exact_list(inner, out, depth + 1)?
                }
                _ => return None,
            },
            _ => return None,
        }
    }
    Some(())
}

/// What one producer writes on stdout, exactly: `echo` of literal words (with `-n`; `-e` only
/// without backslashes), `printf` of literal words, `cat` of a literal heredoc or here-string.
/// `None` for anything else, or when a redirection sends its output elsewhere.
/// Words may hold substitutions of known output; `depth` counts the substitutions and groups
/// around this command.
fn exact_output(sc: &SimpleCommand<'_>, depth: usize) -> Option<String> {
    // Most commands are no producer: known from the first word before any other is read.
    let first = sc.words.first()?.static_text()?;
    if !matches!(
        super::wrappers::program_base(&first),
        "echo" | "printf" | "cat"
    ) {
        return None;
    }
    let vals: Vec<String> = sc
        .words
        .iter()
        .map(|w| exact_word(w, depth))
        .collect::<Option<_>>()?;
    let name = normalise_program(vals.first()?);
    let stdin_only = sc.redirects.iter().all(|r| r.effective_fd() == Some(0));
    if !sc.assignments.is_empty() || !stdin_only {
        return None;
    }
    match name.as_str() {
        "echo" if sc.redirects.is_empty() => {
            let mut newline = true;
            let mut escapes = false;
            let mut rest = &vals[1..];
            while let Some(flag) = rest
                .first()
                .filter(|f| matches!(f.as_str(), "-n" | "-e" | "-E"))
            {
                newline &= flag != "-n";
                escapes |= flag == "-e";
                rest = &rest[1..];
            }
            let mut text = rest.join(" ");
            if escapes && text.contains('\\') {
                return None;
            }
            if newline {
                text.push('\n');
            }
            Some(text)
        }
        "printf" if sc.redirects.is_empty() && vals.len() >= 2 => {
            let args: Vec<&str> = vals[2..].iter().map(String::as_str).collect();
            printf(&vals[1], &args)
        }
        "cat" if vals.len() == 1 => {
            let r = sc.redirects.last()?;
            match (&r.heredoc, r.op) {
                (Some(h), _) => h.body.static_value(),
                (None, RedirOp::HereString) => r.target.static_value().map(|v| v + "\n"),
                _ => None,
            }
        }
        _ => None,
    }
}

/// What a text-producing command writes: `cat` of a heredoc/here-string, `echo` (without
/// `-n/-e/-E`), `printf FORMAT [ARGS]` with `%s`/`%b`/`%d`/`%%` and `\n`/`\t`. Returned as
/// script words (joined with spaces by the caller).
pub(super) fn producer_text<'a>(
    arena: &'a bumpalo::Bump,
    p: &SimpleCommand<'a>,
) -> Option<Vec<Arg<'a>>> {
    let pargv: Vec<Arg<'a>> = p.words.iter().map(|&w| Arg::new(w)).collect();
    let pname = pargv
        .first()
        .and_then(|a| a.value.as_deref())
        .map(normalise_program);
    match pname.as_deref() {
        Some("cat") if pargv.len() == 1 => p
            .redirects
            .iter()
            .rev()
            .find(|r| r.effective_fd() == Some(0))
            .and_then(|r| match (&r.heredoc, r.op) {
                (Some(h), _) => Some(vec![Arg::new(h.body)]),
                (None, RedirOp::HereString) => Some(vec![Arg::new(r.target)]),
                _ => None,
            }),
        Some("echo") => {
            let rest: Vec<Arg<'a>> = pargv[1..]
                .iter()
                .skip_while(|a| matches!(a.value.as_deref(), Some("-n") | Some("-e") | Some("-E")))
                .cloned()
                .collect();
            (!rest.is_empty()).then_some(rest)
        }
        Some("printf") if pargv.len() == 2 && pargv[1].value.is_none() => {
            Some(vec![pargv[1].clone()])
        }
        Some("printf") if pargv.len() >= 2 => {
            let vals: Option<Vec<&str>> = pargv[1..].iter().map(|a| a.value.as_deref()).collect();
            let vals = vals?;
            let text = printf(vals[0], &vals[1..])?;
            Some(vec![Arg::synthetic(arena, text, p.span)])
        }
        _ => None,
    }
}

/// bash's `printf` for the common directives; `None` for anything else.
fn printf(format: &str, args: &[&str]) -> Option<String> {
    let mut out = String::new();
    let mut next = 0;
    // The format is reused while arguments remain (at least once).
    for _ in 0..64 {
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next()? {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    '\\' => out.push('\\'),
                    '\'' => out.push('\''),
                    '"' => out.push('"'),
                    _ => return None,
                },
                '%' => match chars.next()? {
                    '%' => out.push('%'),
                    's' | 'b' | 'd' | 'i' => {
                        out.push_str(args.get(next).copied().unwrap_or(""));
                        next += 1;
                    }
                    _ => return None,
                },
                c => out.push(c),
            }
        }
        if next == 0 || next >= args.len() {
            return Some(out);
        }
    }
    None
}

/// What a command substitution expands to when its text decides it (`$(echo main)`,
/// `$(printf '%s' main)`, `` `echo main` ``, `$(cat <<'EOF' ...)`, a group of such producers):
/// the output with its trailing newlines removed, as bash does. `None` when a run-time part
/// decides it (a program other than a producer, a variable, a redirection elsewhere).
pub(crate) fn substitution_output(cs: &CommandSubst<'_>) -> Option<String> {
    subst_output_at(cs, 0)
}

fn subst_output_at(cs: &CommandSubst<'_>, depth: usize) -> Option<String> {
    let mut out = String::new();
    exact_list(&cs.script.body, &mut out, depth + 1)?;
    Some(out.trim_end_matches('\n').to_string())
}

/// [`exact_word`] for other modules (a variable's assigned word: `c="git push $(echo x)"`).
pub(crate) fn word_output(w: &Word<'_>) -> Option<String> {
    exact_word(w, 0)
}

/// A word's value when it is literal text and substitutions of known output: a quoted
/// substitution is kept whole, an unquoted one only when bash keeps it one word (not empty,
/// no blank or glob character).
fn exact_word(w: &Word<'_>, depth: usize) -> Option<String> {
    if let Some(v) = w.static_value() {
        return Some(v);
    }
    let mut out = String::new();
    exact_parts(w.parts, false, depth, &mut out)?;
    Some(out)
}

fn exact_parts(parts: &[WordPart<'_>], quoted: bool, depth: usize, out: &mut String) -> Option<()> {
    for p in parts {
        match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => {
                out.push_str(s)
            }
            WordPart::DoubleQuoted(inner) => exact_parts(inner, true, depth, out)?,
            WordPart::CommandSubst(cs) if depth < MAX_GROUP_DEPTH => {
                let v = subst_output_at(cs, depth)?;
                if !quoted && splits_unquoted(&v) {
                    return None;
                }
                out.push_str(&v);
            }
            _ => return None,
        }
    }
    Some(())
}

/// Whether bash would split, drop or glob this text as an unquoted expansion (the default
/// `IFS`): empty, or holding a blank or a glob character.
pub(crate) fn splits_unquoted(v: &str) -> bool {
    v.is_empty() || v.contains([' ', '\t', '\n', '*', '?', '['])
}
