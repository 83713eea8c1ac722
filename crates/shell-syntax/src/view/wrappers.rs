//! Unwrapping commands that run another command (`env`, `sudo`, `timeout`, `xargs`, ...) to
//! find the program that really runs, and the shells/strings that hand text to a shell.

use super::types::*;
use bumpalo::Bump;

/// The result of unwrapping one argv.
#[derive(Debug, Default)]
pub struct Unwrapped<'a> {
    pub program: Option<Arg<'a>>,
    pub args: Vec<Arg<'a>>,
    pub wrappers: Vec<Wrapper<'a>>,
    pub env: Vec<EnvVar<'a>>,
    pub cds: Vec<CdStep<'a>>,
    pub args_incomplete: bool,
    /// A command string a wrapper runs through `sh -c` (`watch 'a; b'`, `flock f -c 'x'`).
    pub shell_string: Option<(OriginKind, Vec<Arg<'a>>)>,
    /// The first `xargs` met: what the view needs to follow its runs when the text decides
    /// its input (`view/xargs.rs`).
    pub xargs: Option<super::xargs::XargsAt<'a>>,
}

/// `git`, `/usr/bin/git`, `./git.exe` → `git`.
pub fn normalise_program(raw: &str) -> String {
    program_base(raw).to_string()
}

/// [`normalise_program`] as a [`Text`] (no allocation for a short name).
pub(crate) fn program_name(raw: &str) -> crate::ast::Text {
    crate::ast::Text::from(program_base(raw))
}

/// [`normalise_program`] without the copy (runs for every word the wrapper walk looks at).
pub(super) fn program_base(raw: &str) -> &str {
    // One backwards byte scan: `/` and `\` are ASCII, so the cut is on a char boundary.
    let base = match raw.bytes().rposition(|c| c == b'/' || c == b'\\') {
        Some(i) => &raw[i + 1..],
        None => raw,
    };
    let n = base.len();
    if n > 4 && base.as_bytes()[n - 4..].eq_ignore_ascii_case(b".exe") {
        &base[..n - 4]
    } else {
        base
    }
}

/// Shells whose `-c` string or stdin is a script we parse.
pub fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "bash"
            | "sh"
            | "zsh"
            | "dash"
            | "ksh"
            | "mksh"
            | "ash"
            | "yash"
            | "posh"
            | "fish"
            | "rbash"
    )
}

/// Option grammar of one wrapper.
struct Opts {
    /// Short options that take a separate or attached argument.
    short_arg: &'static str,
    /// Long options that take an argument (`--x v` or `--x=v`).
    long_arg: &'static [&'static str],
    /// Short/long options after which no command follows (the wrapper itself is the program).
    no_command: &'static [&'static str],
    /// Positional operands consumed before the command (e.g. `timeout`'s duration).
    operands: usize,
}

fn opts_for(name: &str) -> Option<Opts> {
    let o = |short_arg, long_arg, no_command, operands| {
        Some(Opts {
            short_arg,
            long_arg,
            no_command,
            operands,
        })
    };
    match name {
        "sudo" => o(
            "ugCDhprtTUR",
            &[
                "--user",
                "--group",
                "--close-from",
                "--chdir",
                "--host",
                "--prompt",
                "--role",
                "--type",
                "--command-timeout",
                "--other-user",
            ],
            &[
                "-e",
                "--edit",
                "-l",
                "--list",
                "-v",
                "--validate",
                "-K",
                "-V",
                "--version",
            ],
            0,
        ),
        "doas" => o("uC", &[], &[], 0),
        "command" => o("", &[], &["-v", "-V"], 0),
        "builtin" | "nohup" => o("", &[], &[], 0),
        "exec" => o("a", &[], &[], 0),
        "nice" => o("n", &["--adjustment"], &[], 0),
        "ionice" => o(
            "cn",
            &["--class", "--classdata"],
            &["-p", "-P", "-u", "--pid", "--pgid", "--uid"],
            0,
        ),
        "timeout" | "gtimeout" => o("ks", &["--kill-after", "--signal"], &[], 1),
        "time" => o("fo", &["--format", "--output"], &[], 0),
        "stdbuf" => o("ioe", &["--input", "--output", "--error"], &[], 0),
        "setsid" => o("", &[], &[], 0),
        "chrt" => o(
            "TPD",
            &["--sched-runtime", "--sched-period", "--sched-deadline"],
            &["-p", "--pid", "-m", "--max"],
            1,
        ),
        "taskset" => o("", &[], &["-p", "--pid"], 1),
        "xargs" => o(
            "adEILnPs",
            &[
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-procs",
                "--max-chars",
                "--process-slot-var",
            ],
            &[],
            0,
        ),
        "watch" => o("nd", &["--interval"], &[], 0),
        "busybox" => o("", &[], &[], 0),
        _ => None,
    }
}

/// Skip options per `o`. Returns the index of the first operand, the option args consumed,
/// and whether a no-command option was seen. `None` if a dynamic word sits where an option
/// could be (we cannot tell what it is).
fn skip_options(args: &[Arg], o: &Opts, name: &str) -> Option<(usize, bool)> {
    let mut i = 0;
    let mut no_cmd = false;
    while i < args.len() {
        let Some(v) = args[i].value.as_deref() else {
            // `sudo GH_REPO="$R" cmd`: a word that starts `NAME=` is no option.
            if dynamic_assignment_name(&args[i].word).is_some() {
                break;
            }
            return None;
        };
        if v == "--" {
            return Some((i + 1, no_cmd));
        }
        if !v.starts_with('-') || v == "-" {
            break;
        }
        // `nice -10 cmd`
        if name == "nice" && v[1..].bytes().all(|c| c.is_ascii_digit()) {
            i += 1;
            continue;
        }
        if o.no_command.contains(&v) {
            no_cmd = true;
        }
        if let Some(long) = v.strip_prefix("--") {
            let key = format!("--{}", long.split('=').next().unwrap_or(long));
            if o.no_command.contains(&key.as_str()) {
                no_cmd = true;
            }
            if !long.contains('=') && o.long_arg.contains(&key.as_str()) {
                i += 1;
            }
            i += 1;
            continue;
        }
        let cluster = &v[1..];
        for (k, c) in cluster.char_indices() {
            if o.no_command.contains(&format!("-{c}").as_str()) {
                no_cmd = true;
            }
            if o.short_arg.contains(c) {
                if k + c.len_utf8() == cluster.len() {
                    i += 1; // argument is the next word
                }
                break;
            }
        }
        i += 1;
    }
    Some((i.min(args.len()), no_cmd))
}

/// Most wrappers unwrapped from one command; past this the program is reported as dynamic
/// (a chain this long is only there to hide what runs).
pub const MAX_WRAPPERS: usize = 64;

/// Unwrap wrappers from `argv` (program first); words synthesised on the way (`env -S`
/// splits, `xargs`' implicit `echo`) are allocated in `arena`. Public for layers that build an
/// argv of their own (a function body with the call's arguments in place).
pub fn unwrap<'a>(arena: &'a Bump, mut argv: Vec<Arg<'a>>) -> Unwrapped<'a> {
    let mut u = Unwrapped::default();
    let mut start = 0;
    // Each pass consumes at least the wrapper's own word, so this terminates.
    while start < argv.len() {
        if u.wrappers.len() >= MAX_WRAPPERS {
            let mut it = argv.split_off(start).into_iter();
            u.program = it.next().map(|a| Arg {
                word: a.word,
                value: None,
            });
            u.args = it.collect();
            return u;
        }
        let first = &argv[start];
        let Some(raw) = first.value.as_deref() else {
            break;
        };
        let name = program_base(raw);
        let rest = &argv[start + 1..];
        let step: Option<(usize, Option<Vec<Arg<'a>>>)> = match name {
            "env" => unwrap_env(arena, rest, &mut u),
            "flock" => unwrap_flock(rest, &mut u).map(|n| (n, None)),
            _ => {
                let Some(o) = opts_for(name) else { break };
                let skipped = skip_options(rest, &o, name).map(|(mut i, no_cmd)| {
                    if matches!(name, "sudo" | "doas") && !no_cmd {
                        // `sudo VAR=value cmd`: sudo sets the variable for the command.
                        // `sudo GH_REPO="$R" cmd`: a value decided at run time.
                        while let Some((k, value)) = rest.get(i).and_then(|a| assignment(arena, a))
                        {
                            set_env(&mut u, &k, value);
                            i += 1;
                        }
                    }
                    (i, no_cmd)
                });
                match skipped {
                    Some((i, false)) if i + o.operands < rest.len() => {
                        let n = i + o.operands;
                        if name == "watch" && !rest[..i].iter().any(|a| is_flag(a, 'x', "--exec")) {
                            // Without `-x`, watch joins its arguments and runs `sh -c`.
                            u.shell_string = Some((OriginKind::Watch, rest[n..].to_vec()));
                            let mut it = argv.split_off(start).into_iter();
                            u.program = it.next();
                            u.args = it.collect();
                            return u;
                        }
                        if name == "xargs" {
                            u.args_incomplete = true;
                            note_xargs(&mut u, first, &rest[..i], &rest[n..]);
                        }
                        Some((n, None))
                    }
                    Some((i, false)) if name == "xargs" && i >= rest.len() => {
                        // `xargs` with no command runs `echo`.
                        u.args_incomplete = true;
                        note_xargs(&mut u, first, &rest[..i], &[]);
                        u.wrappers.push(wrapper(name, rest));
                        u.program = Some(Arg::synthetic(arena, "echo", first.word.span));
                        return u;
                    }
                    _ => None,
                }
            }
        };
        let Some((n, replaced)) = step else { break };
        match replaced {
            Some(new_rest) => {
                if n >= new_rest.len() {
                    break;
                }
                u.wrappers.push(wrapper(name, &new_rest[..n]));
                argv = new_rest;
                start = n;
            }
            None => {
                if n >= rest.len() {
                    break;
                }
                u.wrappers.push(wrapper(name, &rest[..n]));
                start += 1 + n;
            }
        }
    }
    // The wrappers' words are dropped in place: the arguments keep the argv's buffer (one
    // allocation per command instead of three; most commands have no wrapper).
    argv.drain(..start.min(argv.len()));
    let mut it = argv.into_iter();
    u.program = it.next();
    u.args = it.collect();
    u
}

/// Keeps where the first `xargs` of a command stands (its options and command as xargs gets
/// them).
fn note_xargs<'a>(u: &mut Unwrapped<'a>, word: &Arg<'a>, options: &[Arg<'a>], command: &[Arg<'a>]) {
    if u.xargs.is_none() {
        u.xargs = Some(super::xargs::XargsAt {
            word: word.clone(),
            options: options.to_vec(),
            command: command.to_vec(),
            wrappers_before: u.wrappers.len(),
        });
    }
}

fn is_flag(a: &Arg, short: char, long: &str) -> bool {
    match a.value.as_deref() {
        Some(v) if v.starts_with("--") => v == long,
        Some(v) if v.starts_with('-') => v[1..].contains(short),
        _ => false,
    }
}

fn wrapper<'a>(name: &str, args: &[Arg<'a>]) -> Wrapper<'a> {
    Wrapper {
        name: name.into(),
        args: args.to_vec(),
    }
}

/// `env [-i] [-u N] [-C dir] [-S str] [N=v]... cmd`. Returns the number of words before the
/// command; `-S` strings are split in place.
fn unwrap_env<'a>(
    arena: &'a Bump,
    rest: &[Arg<'a>],
    u: &mut Unwrapped<'a>,
) -> Option<(usize, Option<Vec<Arg<'a>>>)> {
    let mut args: std::borrow::Cow<'_, [Arg<'a>]> = std::borrow::Cow::Borrowed(rest);
    let mut i = 0;
    let mut guard = 0;
    let mut spliced = false;
    while i < args.len() {
        guard += 1;
        if guard > 10_000 {
            return None;
        }
        let span = args[i].word.span;
        let Some(v) = args[i].value.clone() else {
            // `NAME="$x"`: an assignment with a run-time value.
            let name = dynamic_assignment_name(&args[i].word)?;
            set_env(u, &name, None);
            i += 1;
            continue;
        };
        if v == "--" {
            i += 1;
            break;
        }
        if let Some((name, value)) = v.split_once('=') {
            if !v.starts_with('-') && is_name(name) {
                set_env(u, name, Some(Arg::synthetic(arena, value, span)));
                i += 1;
                continue;
            }
        }
        if v == "-" {
            // A lone `-` is `-i` (GNU env).
            i += 1;
            continue;
        }
        if !v.starts_with('-') {
            break;
        }
        let (opt, attached) = env_option(&v);
        let takes_arg = matches!(
            opt.as_str(),
            "-u" | "--unset" | "-C" | "--chdir" | "-S" | "--split-string" | "-P"
        );
        let mut value = attached;
        let mut used = 1;
        if takes_arg && value.is_none() {
            value = Some(args.get(i + 1)?.value.as_deref()?.to_string());
            used = 2;
        }
        match opt.as_str() {
            "-u" | "--unset" => u.env.push(EnvVar {
                name: value.unwrap_or_default().into(),
                value: None,
                source: EnvSource::Unset,
            }),
            "-C" | "--chdir" => u.cds.push(CdStep {
                kind: CdKind::EnvChdir,
                target: value.map(|v| Arg::synthetic(arena, v, span)),
            }),
            "-S" | "--split-string" => {
                let words = shell_words::split(&value.unwrap_or_default()).ok()?;
                let new: Vec<Arg<'a>> = words
                    .into_iter()
                    .map(|w| Arg::synthetic(arena, w, span))
                    .collect();
                args.to_mut().splice(i..i + used, new);
                spliced = true;
                continue;
            }
            _ => {}
        }
        i += used;
    }
    if i >= args.len() {
        return None;
    }
    Some((i, spliced.then(|| args.into_owned())))
}

/// A shell variable name (`GIT_DIR`, `_x1`).
fn is_env_name(s: &str) -> bool {
    let mut b = s.bytes();
    matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// A `NAME=value` operand of `env` (`value` `None` when decided at run time).
fn set_env<'a>(u: &mut Unwrapped<'a>, name: &str, value: Option<Arg<'a>>) {
    u.env.push(EnvVar {
        name: name.into(),
        value,
        source: EnvSource::EnvCommand,
    });
}

/// An `env` option word: the option (`-S`, `--chdir`) and the value written in the same word.
fn env_option(v: &str) -> (String, Option<String>) {
    if let Some(l) = v.strip_prefix("--") {
        match l.split_once('=') {
            Some((k, val)) => (format!("--{k}"), Some(val.to_string())),
            None => (v.to_string(), None),
        }
    } else {
        // A short cluster (`-iS str`, `-vS'str'`, `-u NAME`): flags up to the first letter
        // that takes a value, which takes the rest of the word or the next word.
        match v[1..]
            .char_indices()
            .find(|(_, c)| matches!(c, 'u' | 'C' | 'S' | 'P'))
        {
            Some((k, c)) => {
                let rest = &v[1 + k + 1..];
                (
                    format!("-{c}"),
                    (!rest.is_empty()).then(|| rest.to_string()),
                )
            }
            None => (v.to_string(), None),
        }
    }
}

/// `flock [opts] file cmd...` or `flock [opts] file -c 'cmd'`.
fn unwrap_flock<'a>(rest: &[Arg<'a>], u: &mut Unwrapped<'a>) -> Option<usize> {
    let o = Opts {
        short_arg: "Ew",
        long_arg: &["--conflict-exit-code", "--timeout", "--wait"],
        no_command: &[],
        operands: 0,
    };
    let (i, _) = skip_options(rest, &o, "flock")?;
    let after_file = i + 1;
    let next = rest.get(after_file)?;
    if matches!(next.value.as_deref(), Some("-c") | Some("--command")) {
        let cmd = rest.get(after_file + 1)?.clone();
        u.shell_string = Some((OriginKind::FlockC, vec![cmd]));
        return None;
    }
    Some(after_file)
}

/// A `NAME=value` word given to a runner: the name, and the value (`None` when decided at run
/// time).
fn assignment<'a>(arena: &'a Bump, a: &Arg<'a>) -> Option<(String, Option<Arg<'a>>)> {
    match a.value.as_deref() {
        Some(v) => {
            let (k, v) = v.split_once('=').filter(|(k, _)| is_env_name(k))?;
            Some((k.to_string(), Some(Arg::synthetic(arena, v, a.word.span))))
        }
        None => dynamic_assignment_name(&a.word).map(|k| (k, None)),
    }
}

/// For a dynamic word written `NAME=...`: the name (`sudo GH_REPO="$R" gh ...` sets `GH_REPO`
/// to a value decided at run time).
pub fn dynamic_assignment_name(w: &crate::ast::Word<'_>) -> Option<String> {
    match w.parts.first() {
        Some(crate::ast::WordPart::Literal(l)) => {
            let (name, _) = l.split_once('=')?;
            is_name(name).then(|| name.to_string())
        }
        _ => None,
    }
}

fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `find ... -exec cmd args ; ...`: the command of each `-exec`/`-execdir`/`-ok`/`-okdir`.
/// `{}` becomes a dynamic argument; a `+` terminator means more arguments are appended.
pub(crate) fn find_execs<'a>(args: &[Arg<'a>]) -> Vec<(Vec<Arg<'a>>, bool)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let is_exec = matches!(
            args[i].value.as_deref(),
            Some("-exec") | Some("-execdir") | Some("-ok") | Some("-okdir")
        );
        i += 1;
        if !is_exec {
            continue;
        }
        let mut cmd = Vec::new();
        let mut plus = false;
        while i < args.len() {
            match args[i].value.as_deref() {
                Some(";") => break,
                Some("+")
                    if cmd
                        .last()
                        .is_some_and(|a: &Arg<'_>| a.value.as_deref() == Some("{}")) =>
                {
                    plus = true;
                    break;
                }
                Some(v) if v.contains("{}") => cmd.push(Arg {
                    word: args[i].word,
                    value: None,
                }),
                _ => cmd.push(args[i].clone()),
            }
            i += 1;
        }
        i += 1;
        if !cmd.is_empty() {
            out.push((cmd, plus));
        }
    }
    out
}

/// For a shell invocation's arguments: the `-c` command string, if the options ask for one.
/// `Err(())` means a dynamic word sits among the options.
pub(crate) fn shell_command_string<'s, 'a>(args: &'s [Arg<'a>]) -> Result<Option<&'s Arg<'a>>, ()> {
    let mut c = false;
    let mut i = 0;
    while i < args.len() {
        let Some(v) = args[i].value.as_deref() else {
            if c {
                return Ok(Some(&args[i]));
            }
            return Err(());
        };
        if v == "--" || v == "-" {
            i += 1;
            break;
        }
        if let Some(long) = v.strip_prefix("--") {
            if matches!(long, "rcfile" | "init-file") {
                i += 1;
            }
            i += 1;
            continue;
        }
        if (v.starts_with('-') || v.starts_with('+')) && v.len() > 1 {
            for ch in v[1..].chars() {
                match ch {
                    'c' if v.starts_with('-') => c = true,
                    'o' | 'O' => i += 1,
                    _ => {}
                }
            }
            i += 1;
            continue;
        }
        break;
    }
    Ok(if c { args.get(i) } else { None })
}

/// Whether a shell invocation reads its script from stdin (no `-c`, no script operand, or
/// `-s`).
pub(crate) fn shell_reads_stdin(args: &[Arg<'_>]) -> bool {
    let mut i = 0;
    while i < args.len() {
        let Some(v) = args[i].value.as_deref() else {
            return false;
        };
        if v == "--" {
            return i + 1 >= args.len()
                || matches!(args[i + 1].value.as_deref(), Some("-") | Some("/dev/stdin"));
        }
        // `bash -` and `bash /dev/stdin` read the script from stdin too.
        if v == "-" || v == "/dev/stdin" || v == "/proc/self/fd/0" || v == "/dev/fd/0" {
            return true;
        }
        if v.starts_with("--") {
            if matches!(v, "--rcfile" | "--init-file") {
                i += 1;
            }
            i += 1;
            continue;
        }
        if (v.starts_with('-') || v.starts_with('+')) && v.len() > 1 {
            if v.starts_with('-') && v.contains('s') {
                return true;
            }
            if v.starts_with('-') && v.contains('c') {
                return false;
            }
            for ch in v[1..].chars() {
                if ch == 'o' || ch == 'O' {
                    i += 1;
                }
            }
            i += 1;
            continue;
        }
        return false;
    }
    true
}
