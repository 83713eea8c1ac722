//! The text a command writes into a file through its stdout redirection, when that text is in
//! the command: `echo` and `printf` of literal words, `cat` of a heredoc or here-string
//! (`printf 'git push\n' > s.sh; bash s.sh` runs the text written). Anything else a program
//! prints is decided at run time.

use shell_syntax::ast::RedirOp;
use shell_syntax::view::{Arg, Invocation};

/// One file written by an invocation's stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The target as written (relative to the invocation's directory).
    pub path: String,
    /// `>>`: added to what the file holds.
    pub append: bool,
    /// The text; `None`: decided at run time.
    pub text: Option<String>,
}

/// The files `inv` writes through its stdout (the last redirection of fd 1 wins), with the
/// text when the command holds it.
pub fn written(inv: &Invocation<'_>) -> Option<Written> {
    let r = inv.redirects.iter().rev().find(|r| {
        r.fd_var.is_none()
            && matches!(r.fd, None | Some(1))
            && matches!(
                r.op,
                RedirOp::Out
                    | RedirOp::Clobber
                    | RedirOp::Append
                    | RedirOp::OutErr
                    | RedirOp::AppendOutErr
            )
    })?;
    let path = r.target.value.as_deref()?.to_string();
    let append = matches!(r.op, RedirOp::Append | RedirOp::AppendOutErr);
    let text = printed(inv);
    Some(Written { path, append, text })
}

/// What `inv` prints on its stdout when the command holds the text: `echo` and `printf` of
/// literal words, `cat` of a heredoc or here-string.
pub fn printed(inv: &Invocation<'_>) -> Option<String> {
    let values: Option<Vec<&str>> = inv.args.iter().map(|a| a.value.as_deref()).collect();
    match (inv.name(), values) {
        (Some("echo"), Some(v)) => echo(&v),
        (Some("printf"), Some(v)) => printf(&v),
        (Some("cat"), Some(v)) if v.iter().all(|a| *a == "-") => stdin_text(inv),
        _ => None,
    }
}

/// What an invocation reads on its stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stdin {
    /// Text the command holds: a literal heredoc or here-string, or the pipe of a command
    /// whose output is in the command ([`printed`]).
    Text(String),
    /// A file by path (`< q.json`).
    File(String),
    /// Decided at run time (a pipe from another program, a run-time path, a descriptor).
    RunTime,
    /// Nothing the command gives it (the agent's own stdin).
    Inherited,
}

/// Where `inv`'s stdin comes from: its last fd-0 redirection, else the pipe before it.
pub fn stdin_of(view: &shell_syntax::CommandView<'_>, inv: &Invocation<'_>) -> Stdin {
    if let Some(r) = inv
        .redirects
        .iter()
        .rev()
        .find(|r| r.fd == Some(0) && r.fd_var.is_none())
    {
        return match r.op {
            RedirOp::Heredoc | RedirOp::HeredocStrip | RedirOp::HereString => {
                stdin_text(inv).map_or(Stdin::RunTime, Stdin::Text)
            }
            RedirOp::In => r
                .target
                .value
                .as_deref()
                .map_or(Stdin::RunTime, |p| Stdin::File(p.to_string())),
            _ => Stdin::RunTime,
        };
    }
    if inv.context.pipeline.is_none_or(|p| p.index == 0) {
        return Stdin::Inherited;
    }
    crate::scripts::pipe_producer(view, inv)
        .and_then(printed)
        .map_or(Stdin::RunTime, Stdin::Text)
}

/// What `echo` prints (`-n`, `-E`; `-e` only when no backslash is left to interpret).
fn echo(args: &[&str]) -> Option<String> {
    let mut newline = true;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let flags = a
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && f.chars().all(|c| matches!(c, 'n' | 'e' | 'E')));
        let Some(flags) = flags else { break };
        if flags.contains('e') && args[i + 1..].iter().any(|a| a.contains('\\')) {
            return None;
        }
        newline &= !flags.contains('n');
        i += 1;
    }
    let mut out = args[i..].join(" ");
    if newline {
        out.push('\n');
    }
    Some(out)
}

/// What `printf FORMAT ARGS...` prints for formats of `%s`, `%%`, `\n`, `\t`, `\\` (the
/// format is reused while arguments remain); `None` for anything else.
fn printf(args: &[&str]) -> Option<String> {
    let (format, mut rest) = args.split_first()?;
    let mut out = String::new();
    loop {
        let mut consumed = false;
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.push(match chars.next()? {
                    'n' => '\n',
                    't' => '\t',
                    '\\' => '\\',
                    _ => return None,
                }),
                '%' => match chars.next()? {
                    '%' => out.push('%'),
                    's' => {
                        consumed = true;
                        if let Some((a, more)) = rest.split_first() {
                            out.push_str(a);
                            rest = more;
                        }
                    }
                    _ => return None,
                },
                c => out.push(c),
            }
        }
        if rest.is_empty() || !consumed {
            return Some(out);
        }
    }
}

/// The text on `cat`'s stdin: a heredoc (literal body) or a here-string.
fn stdin_text(inv: &Invocation<'_>) -> Option<String> {
    let r = inv.redirects.iter().rev().find(|r| {
        r.fd.is_none_or(|f| f == 0)
            && matches!(
                r.op,
                RedirOp::Heredoc | RedirOp::HeredocStrip | RedirOp::HereString
            )
    })?;
    if let Some(h) = &r.heredoc {
        let body = h.body.static_value()?;
        return Some(if h.strip_tabs {
            body.lines()
                .map(|l| format!("{}\n", l.trim_start_matches('\t')))
                .collect()
        } else {
            body
        });
    }
    (r.op == RedirOp::HereString)
        .then(|| value(&r.target).map(|v| format!("{v}\n")))
        .flatten()
}

fn value(a: &Arg<'_>) -> Option<String> {
    a.value.as_deref().map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(cmd: &str) -> Option<Written> {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        written(v.invocations.first()?)
    }

    /// (command, the text its first invocation writes into its stdout's file).
    const TEXTS: &[(&str, Option<&str>)] = &[
        (
            "echo git push origin main > p.sh",
            Some("git push origin main\n"),
        ),
        ("echo -n x >> p.sh", Some("x")),
        (
            "printf 'git push %s\\n' main > s.sh",
            Some("git push main\n"),
        ),
        ("printf '%s\\n' a b > s.sh", Some("a\nb\n")),
        ("cat > g.sh <<'EOF'\ngit push\nEOF", Some("git push\n")),
        ("cat <<< 'gh pr merge' > g.sh", Some("gh pr merge\n")),
        ("printf '%d' 3 > s.sh", None),
        ("curl -s https://x/y > s.sh", None),
        ("echo \"$X\" > s.sh", None),
    ];

    #[test]
    fn text_in_the_command() {
        for (cmd, want) in TEXTS {
            let w = text(cmd).expect(cmd);
            assert_eq!(w.text.as_deref(), *want, "{cmd}");
        }
        assert_eq!(text("echo x"), None);
        assert_eq!(text("echo x 2> e.log"), None);
        assert!(text("echo x >> a.sh").is_some_and(|w| w.append && w.path == "a.sh"));
    }
}
