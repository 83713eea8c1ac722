//! What `xargs` runs when the command text decides its input (issue 42): `echo main | xargs git
//! push origin` runs `git push origin main`. The input is text the command writes itself (a
//! producer before it in the pipeline, a here-string or heredoc on its stdin), split as GNU
//! xargs splits it (blanks and newlines; `-L` lines; `-I` whole lines, leading blanks dropped,
//! the replacement string substituted in every word), grouped per run (`-n`, `-L`). The runs
//! are walked as a script xargs runs (`OriginKind::OtherShellString { program: "xargs" }`: a
//! new process, so only exported names and functions reach it). Anything the grammar below does
//! not model (`-0`, `-d`, `-a`, `-E`, quotes or backslashes in the input, `-I` with `-n`/`-L`,
//! a command word decided at run time) keeps the old reading: the input appended as a run-time
//! word.

use super::producers::command_output;
use super::*;

/// Most runs followed from one `xargs` (beyond: not followed, the input stays a run-time word).
const MAX_RUNS: usize = 256;

/// Where `unwrap` met the first `xargs`: its word, its options, the command it runs (empty:
/// `echo`) and how many wrappers came before it.
#[derive(Debug, Clone)]
pub struct XargsAt<'a> {
    pub word: Arg<'a>,
    pub options: Vec<Arg<'a>>,
    pub command: Vec<Arg<'a>>,
    pub wrappers_before: usize,
}

/// How xargs groups its input into runs.
#[derive(Debug, PartialEq)]
enum Mode {
    /// Every item in one run.
    All,
    /// `-n N`: N items per run.
    Args(usize),
    /// `-L N` / `-l[N]`: N non-empty lines per run.
    Lines(usize),
    /// `-I R` / `-i[R]` / `--replace[=R]`: one run per non-empty line, R replaced.
    Replace(String),
}

struct Options {
    mode: Mode,
    /// `-r`: no run for empty input.
    no_empty: bool,
}

/// The options as GNU xargs reads them; `None` for one that changes how input is read (or one
/// not known).
fn options(vals: &[&str]) -> Option<Options> {
    let mut o = Options {
        mode: Mode::All,
        no_empty: false,
    };
    let (mut replaces, mut counts) = (false, false);
    let count = |v: &str| v.parse::<usize>().ok().filter(|&n| n > 0);
    // The last of -n/-L wins (xargs warns); -I with either is not modelled.
    let mut set = |o: &mut Options, m: Mode| {
        match m {
            Mode::Replace(_) => replaces = true,
            _ => counts = true,
        }
        o.mode = m;
    };
    let mut i = 0;
    while i < vals.len() {
        let v = vals[i];
        i += 1;
        if v == "--" {
            // The end of the options (`unwrap` took the command after it).
            continue;
        }
        if let Some(long) = v.strip_prefix("--") {
            let (key, value) = match long.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (long, None),
            };
            let mut arg = || {
                value.map(str::to_string).or_else(|| {
                    i += 1;
                    vals.get(i - 1).map(|s| s.to_string())
                })
            };
            match key {
                "replace" => set(&mut o, Mode::Replace(value.unwrap_or("{}").to_string())),
                "max-lines" => set(&mut o, Mode::Lines(count(value.unwrap_or("1"))?)),
                "max-args" => set(&mut o, Mode::Args(count(&arg()?)?)),
                "max-procs" | "max-chars" | "process-slot-var" => {
                    arg()?;
                }
                "verbose" | "exit" | "interactive" | "open-tty" => {}
                "no-run-if-empty" => o.no_empty = true,
                _ => return None,
            }
            continue;
        }
        let cluster = v.strip_prefix('-')?;
        for (k, c) in cluster.char_indices() {
            let attached = &cluster[k + c.len_utf8()..];
            let mut arg = || {
                if attached.is_empty() {
                    i += 1;
                    vals.get(i - 1).map(|s| s.to_string())
                } else {
                    Some(attached.to_string())
                }
            };
            match c {
                'I' => set(&mut o, Mode::Replace(arg()?)),
                'i' => set(
                    &mut o,
                    Mode::Replace(if attached.is_empty() { "{}" } else { attached }.into()),
                ),
                'L' => set(&mut o, Mode::Lines(count(&arg()?)?)),
                'l' => set(
                    &mut o,
                    Mode::Lines(count(if attached.is_empty() { "1" } else { attached })?),
                ),
                'n' => set(&mut o, Mode::Args(count(&arg()?)?)),
                'P' | 's' => {
                    arg()?;
                }
                'r' => {
                    o.no_empty = true;
                    continue;
                }
                't' | 'x' | 'p' | 'o' => continue,
                _ => return None,
            }
            break;
        }
    }
    (!(replaces && counts)).then_some(o)
}

/// The argv of each run of `command` (empty: `echo`) over `input`; `None` when not modelled.
pub(super) fn runs(x: &XargsAt<'_>, input: &str) -> Option<Vec<Vec<String>>> {
    let vals: Vec<&str> = x
        .options
        .iter()
        .map(|a| a.value.as_deref())
        .collect::<Option<_>>()?;
    let mut command: Vec<String> = x
        .command
        .iter()
        .map(|a| a.value.as_deref().map(str::to_string))
        .collect::<Option<_>>()?;
    if command.is_empty() {
        command.push("echo".into());
    }
    let out: Vec<Vec<String>> = match item_runs(&vals, input)? {
        Items::Replaced(r, lines) => lines
            .iter()
            .map(|line| {
                command
                    .iter()
                    .map(|w| {
                        if r.is_empty() {
                            w.clone()
                        } else {
                            w.replace(r.as_str(), line)
                        }
                    })
                    .collect()
            })
            .collect(),
        Items::Appended(runs) => runs
            .into_iter()
            .map(|items| command.iter().cloned().chain(items).collect())
            .collect(),
    };
    Some(out)
}

/// What each run of xargs gets from its input.
enum Items {
    /// Appended to the command, per run.
    Appended(Vec<Vec<String>>),
    /// `-I R`: one line per run, put in place of R.
    Replaced(String, Vec<String>),
}

/// The items GNU xargs with options `opts` makes of `input`, per run; `None` when not
/// modelled (see the module documentation) or more than [`MAX_RUNS`] runs.
fn item_runs(opts: &[&str], input: &str) -> Option<Items> {
    let o = options(opts)?;
    // xargs reads quotes and backslashes itself (default mode): not modelled.
    if input.contains(['\'', '"', '\\']) {
        return None;
    }
    let lines: Vec<&str> = input
        .split('\n')
        .map(|l| l.trim_start_matches([' ', '\t']))
        .filter(|l| !l.is_empty())
        .collect();
    let items: Vec<String> = input.split_whitespace().map(String::from).collect();
    let out = match &o.mode {
        Mode::Replace(r) => {
            let lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            return (lines.len() <= MAX_RUNS).then_some(Items::Replaced(r.clone(), lines));
        }
        _ if items.is_empty() => {
            if o.no_empty {
                Vec::new()
            } else {
                vec![Vec::new()]
            }
        }
        Mode::All => vec![items],
        Mode::Args(n) => items.chunks(*n).map(<[String]>::to_vec).collect(),
        Mode::Lines(n) => {
            // A line ending in a blank continues on the next one: not modelled.
            if input.split('\n').any(|l| l.ends_with([' ', '\t'])) {
                return None;
            }
            lines
                .chunks(*n)
                .map(|ls| {
                    ls.iter()
                        .flat_map(|l| l.split_whitespace())
                        .map(String::from)
                        .collect()
                })
                .collect()
        }
    };
    (out.len() <= MAX_RUNS).then_some(Items::Appended(out))
}

/// The items xargs (options `opts`, the words between `xargs` and its command) appends to its
/// command from `input`, per run; `None` when not modelled, and for `-I` (its items replace a
/// string instead). For layers that know the input better than the view (integrity-signals
/// reads `echo ~/.x/f` with the maintainer's home): one grammar of xargs for all of them.
pub fn xargs_appended_items(opts: &[Option<&str>], input: &str) -> Option<Vec<Vec<String>>> {
    let opts: Vec<&str> = opts.iter().copied().collect::<Option<_>>()?;
    match item_runs(&opts, input)? {
        Items::Appended(runs) => Some(runs),
        Items::Replaced(..) => None,
    }
}

/// The text on the stdin of simple command `s`, when the command text decides it: its own
/// last stdin redirection if it is a heredoc or here-string of literal text, else what the
/// pipeline element before it writes (`prev`). `None`: decided at run time.
pub(super) fn stdin_text(s: &SimpleCommand<'_>, prev: Option<&Command<'_>>) -> Option<String> {
    match s
        .redirects
        .iter()
        .rev()
        .find(|r| r.effective_fd() == Some(0))
    {
        Some(r) => match (&r.heredoc, r.op) {
            (Some(h), _) => h.body.static_value(),
            (None, RedirOp::HereString) => r.target.static_value().map(|v| v + "\n"),
            _ => None,
        },
        None => command_output(prev?),
    }
}

/// When the text decides what `xargs` in `u` reads (see [`stdin_text`]), the command becomes
/// `xargs` itself (its options and command as arguments, the wrappers before it kept) and its
/// runs a script it runs; otherwise `u` is left as it is (the input a run-time word).
pub(super) fn follow<'a>(
    arena: &'a bumpalo::Bump,
    u: &mut Unwrapped<'a>,
    s: &SimpleCommand<'a>,
    prev: Option<&Command<'a>>,
) {
    let Some(x) = u.xargs.take() else { return };
    let Some(runs) = stdin_text(s, prev).and_then(|text| runs(&x, &text)) else {
        return;
    };
    let span = x.word.word.span;
    u.program = Some(x.word);
    u.args = x.options.into_iter().chain(x.command).collect();
    u.wrappers.truncate(x.wrappers_before);
    u.args_incomplete = false;
    u.shell_string = Some((
        OriginKind::OtherShellString {
            program: "xargs".into(),
        },
        vec![Arg::synthetic(arena, script(&runs), span)],
    ));
}

/// The runs as script text, one line per run, each word quoted.
fn script(runs: &[Vec<String>]) -> String {
    runs.iter()
        .map(shell_words::join)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at<'a>(arena: &'a bumpalo::Bump, opts: &[&str], cmd: &[&str]) -> XargsAt<'a> {
        let a = |s: &&str| Arg::synthetic(arena, *s, Span::new(0, 0));
        XargsAt {
            word: a(&"xargs"),
            options: opts.iter().map(a).collect(),
            command: cmd.iter().map(a).collect(),
            wrappers_before: 0,
        }
    }

    fn r(opts: &[&str], cmd: &[&str], input: &str) -> Option<Vec<String>> {
        let arena = bumpalo::Bump::new();
        runs(&at(&arena, opts, cmd), input).map(|rs| rs.iter().map(|r| r.join(" ")).collect())
    }

    /// Each expectation was read off GNU xargs 4.9 (`printf ... | xargs ... printf '[%s]'`).
    #[test]
    fn runs_follow_gnu_xargs() {
        let v = |s: &[&str]| Some(s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(
            r(&[], &["git", "push", "o"], "main\n"),
            v(&["git push o main"])
        );
        assert_eq!(r(&[], &[], "a b\n"), v(&["echo a b"]));
        assert_eq!(r(&["-n1"], &["p"], "a b\nc\n"), v(&["p a", "p b", "p c"]));
        assert_eq!(r(&["--max-args=2"], &["p"], "a b c"), v(&["p a b", "p c"]));
        assert_eq!(r(&["-L", "1"], &["p"], "a b\nc\n"), v(&["p a b", "p c"]));
        assert_eq!(r(&["-n2", "-L1"], &["p"], "a b c\n"), v(&["p a b c"]));
        assert_eq!(r(&["-L1", "-n2"], &["p"], "a b c\n"), v(&["p a b", "p c"]));
        assert_eq!(
            r(&["-I{}"], &["p", "x:{}"], "  a b  \n\nc\n"),
            v(&["p x:a b  ", "p x:c"])
        );
        assert_eq!(r(&["-i"], &["p", "{}x"], "a\n"), v(&["p ax"]));
        assert_eq!(
            r(&["-I", "%"], &["sh", "-c", "p %"], "m\n"),
            v(&["sh -c p m"])
        );
        assert_eq!(r(&[], &["p", "x"], ""), v(&["p x"]));
        assert_eq!(r(&["-r"], &["p", "x"], ""), v(&[]));
        assert_eq!(r(&["-rt", "-P2"], &["p"], "m"), v(&["p m"]));
        assert_eq!(r(&["-n", "1", "--"], &["p"], "a b"), v(&["p a", "p b"]));
        // Not modelled: the input stays a run-time word.
        assert_eq!(r(&["-0"], &["p"], "m"), None);
        assert_eq!(r(&["-d", ","], &["p"], "m"), None);
        assert_eq!(r(&["-a", "f"], &["p"], "m"), None);
        assert_eq!(r(&["-E", "x"], &["p"], "m"), None);
        assert_eq!(r(&[], &["p"], "'a b'"), None);
        assert_eq!(r(&["-I{}", "-n1"], &["p", "{}"], "a"), None);
        assert_eq!(r(&["-n0"], &["p"], "a"), None);
        assert_eq!(r(&["-L1"], &["p"], "a \nb\n"), None);
        assert_eq!(r(&["--frobnicate"], &["p"], "a"), None);
    }
}
