//! The program bash runs for one invocation of the view, past what the view unwraps: shell
//! functions defined earlier (they shadow programs: `git() { ...; }; git push` runs the
//! function), `VAR=value` words after `sudo`/`doas`, git's dashed programs
//! (`/usr/lib/git-core/git-push`), runners kept as data in [`RUNNERS`] (`strace -f curl`,
//! `runuser -u u -- cmd`, `chroot dir cmd`, ...), package runners (`npx`, `bunx`, `pnpm dlx`,
//! `npm exec`), `ssh host cmd` (runs elsewhere), GNU `parallel ... ::: args`, and `xargs -I`
//! replacement strings (run-time words).

use crate::runners::{
    dashed_git_tail, package_runner, parallel_command, script_package, skip_runner, ssh,
    GIT_DASHED, RUNNERS,
};
use shell_syntax::view::{normalise_program, Arg, Invocation, Program};

pub use crate::functions::{function_body_runs, runs, Functions, MAX_CALL_DEPTH};
pub use crate::runners::Runner;
use shell_syntax::Text;

/// What the program of an invocation is, as bash resolves it.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// A program found on `PATH` (or by path), normalised (`git`, `curl`).
    Program(Text),
    /// A shell function defined earlier in the same text: its body runs.
    Function(Text),
    /// The program word is decided at run time.
    Unknown,
    /// Only assignments and redirections.
    Nothing,
}

/// An invocation with its program resolved.
#[derive(Debug, Clone)]
pub struct Run<'a> {
    /// Index of the invocation in the view.
    pub invocation: usize,
    pub program: Resolved,
    /// The arguments after the program.
    pub args: Vec<Arg<'a>>,
    /// Runners unwrapped here (beyond the view's wrappers), outermost first.
    pub runners: Vec<Text>,
    /// Environment set by runner words (`sudo GIT_DIR=x git`): name and static value.
    pub env: Vec<(Text, Option<Text>)>,
    /// `ssh host [cmd]`: the host it connects to (the command runs there).
    pub remote: Option<crate::network::Destination>,
    /// Arguments are added at run time (`xargs`, `parallel`, `find -exec {} +`).
    pub args_incomplete: bool,
}

impl Run<'_> {
    /// The value `name` has in the run's environment: runner words (`sudo X=y`) first, then
    /// the invocation's (`None`: unset; `Some(None)`: decided at run time).
    pub fn env_value(&self, inv: &Invocation<'_>, name: &str) -> Option<Option<String>> {
        if let Some((_, v)) = self.env.iter().rev().find(|(k, _)| k == name) {
            return Some(v.as_deref().map(String::from));
        }
        inv.env_value(name).map(|e| {
            e.value
                .as_ref()
                .and_then(|a| a.value.as_deref().map(String::from))
        })
    }

    /// `#N program "arg" ...` as `explain` lists it, with the program bash runs (a function
    /// call as `<function f>`, a run-time program as `<dynamic>`), and the runners unwrapped
    /// here after `via`.
    pub fn headline(&self) -> String {
        let mut s = format!("#{} ", self.invocation);
        match &self.program {
            Resolved::Program(n) => s.push_str(n),
            Resolved::Function(n) => s.push_str(&format!("<function {n}>")),
            Resolved::Unknown => s.push_str("<dynamic>"),
            Resolved::Nothing => s.push_str("<none>"),
        }
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string());
        }
        if !self.runners.is_empty() {
            let names: Vec<&str> = self.runners.iter().map(|r| r.as_str()).collect();
            s.push_str(&format!(" (via {})", names.join(", ")));
        }
        s
    }

    /// The program's name, when it is a program (not a function).
    pub fn name(&self) -> Option<&str> {
        match &self.program {
            Resolved::Program(n) => Some(n),
            _ => None,
        }
    }
}

/// Most runner layers unwrapped here (beyond it the program is unknown).
const MAX_LAYERS: usize = 32;

pub(crate) fn value<'s>(a: &'s Arg<'_>) -> Option<&'s str> {
    a.value.as_deref()
}

pub(crate) fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// An unquoted `$name` whose value is a literal assigned earlier (`c="git push"; $c`): the
/// words bash makes of it by splitting on `IFS` (its literal value, else blank, tab, newline).
fn split_known<'a>(
    inv: &Invocation<'a>,
    w: &shell_syntax::Word<'a>,
    arena: &'a bumpalo::Bump,
) -> Option<Vec<Arg<'a>>> {
    use shell_syntax::ast::WordPart;
    let [WordPart::Param(p)] = w.parts else {
        return None;
    };
    if p.op.is_some() || p.index.is_some() || p.length || p.indirect {
        return None;
    }
    let static_value = |name: &str| -> Option<Option<String>> {
        inv.env_value(name).map(|e| {
            e.value
                .as_ref()
                .and_then(|a| a.value.as_deref().map(String::from))
        })
    };
    let value = static_value(p.name)??;
    let ifs = match static_value("IFS") {
        None => " \t\n".to_string(),
        Some(Some(v)) => v,
        Some(None) => return None,
    };
    let words: Vec<Arg<'a>> = value
        .split(|c| ifs.contains(c))
        .filter(|x| !x.is_empty())
        .map(|x| Arg::synthetic(arena, x, w.span))
        .collect();
    (!words.is_empty()).then_some(words)
}

/// The replacement string of an `xargs` wrapper (`-I X`, `-iX`, `--replace[=X]`).
fn xargs_replacement(inv: &Invocation<'_>) -> Option<String> {
    let w = inv.wrappers.iter().rev().find(|w| w.name == "xargs")?;
    let vals: Vec<Option<&str>> = w.args.iter().map(value).collect();
    let mut found = None;
    for (i, v) in vals.iter().enumerate() {
        let Some(v) = v else { continue };
        if *v == "-I" {
            found = vals.get(i + 1).copied().flatten().map(String::from);
        } else if let Some(r) = v.strip_prefix("-I") {
            found = Some(r.to_string());
        } else if *v == "-i" || *v == "--replace" {
            found = Some("{}".into());
        } else if let Some(r) = v
            .strip_prefix("-i")
            .or_else(|| v.strip_prefix("--replace="))
        {
            found = Some(r.to_string());
        }
    }
    found
}

/// The program's name as the view normalises it (basename, `.exe` stripped), without a copy
/// through `String` for the usual plain name.
fn program_name(raw: &Text) -> Text {
    let exe = raw.len() > 4
        && raw
            .get(raw.len() - 4..)
            .is_some_and(|e| e.eq_ignore_ascii_case(".exe"));
    if raw.contains(['/', '\\']) || exe {
        Text::from(normalise_program(raw))
    } else {
        raw.clone()
    }
}

/// The arguments after the program word, moved out of `argv` (no copy of each word).
fn tail(mut argv: Vec<Arg<'_>>) -> Vec<Arg<'_>> {
    if !argv.is_empty() {
        argv.remove(0);
    }
    argv
}

/// Resolves the program of `inv` (an invocation of `view`). Words made up on the way (split
/// `ssh` commands, dashed git) are allocated in `arena`.
pub fn resolve<'a>(
    funcs: &Functions<'_>,
    inv: &Invocation<'a>,
    arena: &'a bumpalo::Bump,
) -> Run<'a> {
    let mut run = Run {
        invocation: inv.index,
        program: Resolved::Nothing,
        args: Vec::new(),
        runners: Vec::new(),
        env: Vec::new(),
        remote: None,
        args_incomplete: inv.args_incomplete,
    };
    let mut argv: Vec<Arg<'a>> = match &inv.program {
        Program::None => return run,
        Program::Dynamic(w) => {
            let mut v = split_known(inv, w, arena).unwrap_or_else(|| {
                vec![Arg {
                    word: *w,
                    value: None,
                }]
            });
            v.extend(inv.args.iter().cloned());
            v
        }
        Program::Static { raw, .. } => {
            // The value is what counts; the word only carries the span (no copy into the
            // arena for every invocation).
            let first = Arg {
                word: shell_syntax::Word {
                    parts: &[],
                    span: inv.span,
                },
                value: Some(raw.clone()),
            };
            let mut v = Vec::with_capacity(inv.args.len() + 1);
            v.push(first);
            v.extend(inv.args.iter().cloned());
            v
        }
    };
    // `xargs -I X cmd ... X ...`: each word holding X is decided at run time.
    if let Some(r) = xargs_replacement(inv).filter(|r| !r.is_empty()) {
        for a in argv.iter_mut() {
            if a.value.as_deref().is_some_and(|v| v.contains(r.as_str())) {
                a.value = None;
            }
        }
    }
    let bypass_functions = inv.wrappers.iter().any(|w| {
        matches!(
            w.name.as_str(),
            "command"
                | "builtin"
                | "exec"
                | "env"
                | "sudo"
                | "doas"
                | "xargs"
                | "find -exec"
                | "nohup"
                | "nice"
                | "timeout"
                | "gtimeout"
                | "stdbuf"
                | "setsid"
                | "ionice"
                | "chrt"
                | "taskset"
                | "flock"
                | "busybox"
                | "watch"
        )
    });
    // `xargs` without a replacement string appends its input words to the command.
    let appends_input =
        inv.wrappers.iter().any(|w| w.name == "xargs") && xargs_replacement(inv).is_none();
    let after_sudo = inv
        .wrappers
        .last()
        .is_some_and(|w| matches!(w.name.as_str(), "sudo" | "doas"));
    let mut layers = 0;
    let mut allow_assignments = after_sudo;
    let mut alias_hops = 0;
    let mut expanded: Vec<String> = Vec::new();
    let mut pending_alias: Option<usize> = None;
    loop {
        layers += 1;
        // Aliases apply to the command word (and, after a value ending in a blank, to the
        // word after it: `alias sudo='sudo '`).
        if let Some(at) = pending_alias.take() {
            if at > 0 && at < argv.len() {
                if let Some(v) = argv[at].value.clone() {
                    if let Some(Some(value)) = funcs.alias_before(&v, inv.index) {
                        if let Ok(w) = shell_words::split(value) {
                            alias_hops += 1;
                            if alias_hops <= 16 {
                                let span = argv[at].word.span;
                                let new: Vec<Arg<'a>> = w
                                    .into_iter()
                                    .map(|x| Arg::synthetic(arena, x, span))
                                    .collect();
                                argv.splice(at..=at, new);
                            }
                        }
                    }
                }
            }
        }
        let alias_word = layers == 1;
        let Some(first) = argv.first() else {
            run.program = Resolved::Nothing;
            return run;
        };
        let Some(raw) = first.value.clone().or_else(|| dashed_git_tail(&first.word)) else {
            run.program = Resolved::Unknown;
            run.args = tail(argv);
            return run;
        };
        if layers > MAX_LAYERS {
            run.program = Resolved::Unknown;
            run.args = tail(argv);
            return run;
        }
        // `sudo GIT_DIR=x git ...`: sudo sets variables given before the command.
        if allow_assignments {
            if let Some((n, v)) = raw.split_once('=') {
                if is_name(n) {
                    run.env.push((n.into(), Some(v.into())));
                    argv.remove(0);
                    continue;
                }
            }
        }
        allow_assignments = false;
        let name_text = program_name(&raw);
        // Compared with many table rows below: a plain `&str` (no per-compare decoding).
        let name: &str = name_text.as_str();
        // A function defined earlier shadows any program of that name (not after `command`,
        // `env` and other wrappers that exec a program).
        // `shopt -s expand_aliases; alias p='git push'; p origin main`: bash replaces the
        // first word (and the next one after a value ending in a blank).
        if alias_word && !raw.contains('/') && !expanded.iter().any(|e| e == raw.as_str()) {
            if let Some(value) = funcs.alias_before(&raw, inv.index) {
                // bash does not expand an alias again inside its own expansion.
                expanded.push(raw.to_string());
                alias_hops += 1;
                let words = value.and_then(|v| {
                    let trailing = v.ends_with(' ') || v.ends_with('\t');
                    shell_words::split(v).ok().map(|w| (w, trailing))
                });
                match words {
                    Some((w, trailing))
                        if alias_hops <= 16
                            && !w
                                .iter()
                                .any(|x| matches!(x.as_str(), ";" | "&&" | "||" | "|" | "&")) =>
                    {
                        let span = first.word.span;
                        let n = w.len();
                        let mut v: Vec<Arg<'a>> = w
                            .into_iter()
                            .map(|x| Arg::synthetic(arena, x, span))
                            .collect();
                        v.extend(argv[1..].iter().cloned());
                        // The expansion goes through the view's wrapper table (`alias run=command`).
                        let u = shell_syntax::view::unwrap(arena, v);
                        run.runners
                            .extend(u.wrappers.iter().map(|w| w.name.clone()));
                        run.env.extend(u.env.iter().map(|e| {
                            (
                                e.name.clone(),
                                e.value.as_ref().and_then(|a| a.value.clone()),
                            )
                        }));
                        run.args_incomplete |= u.args_incomplete;
                        let Some(head) = u.program else {
                            run.program = Resolved::Nothing;
                            return run;
                        };
                        argv = std::iter::once(head).chain(u.args).collect();
                        // A value ending in a blank makes the next word an alias candidate.
                        pending_alias = trailing.then_some(n);
                        layers -= 1;
                        continue;
                    }
                    _ => {
                        run.program = Resolved::Unknown;
                        run.args = tail(argv);
                        return run;
                    }
                }
            }
        }
        if layers == 1
            && !bypass_functions
            && !raw.contains('/')
            && funcs.defined_before(name, inv.index)
            && inv.context.function != Some(name)
        {
            run.program = Resolved::Function(name.into());
            run.args = tail(argv);
            return run;
        }
        // git's dashed programs: `git-push` from git's exec path runs `git push`.
        if let Some(sub) = name.strip_prefix("git-") {
            if !sub.is_empty() && (raw.contains("git-core") || GIT_DASHED.contains(&sub)) {
                run.runners.push(Text::from(name));
                let mut v = vec![Arg::synthetic(arena, "git", first.word.span)];
                v.push(Arg::synthetic(arena, sub, first.word.span));
                v.extend(argv[1..].iter().cloned());
                argv = v;
                continue;
            }
        }
        if let Some(r) = RUNNERS.iter().find(|r| crate::same_name(r.name, name)) {
            match skip_runner(r, &argv[1..]) {
                Some(at) => {
                    run.runners.push(Text::from(r.name));
                    argv.drain(..=at);
                    allow_assignments = matches!(r.name, "doas" | "pkexec");
                    continue;
                }
                None if argv[1..].iter().any(|a| a.value.is_none()) => {
                    run.program = Resolved::Unknown;
                    run.args = tail(argv);
                    return run;
                }
                None => {}
            }
        }
        if let Some(step) = package_runner(name, &argv) {
            match step {
                Some((skip, bin)) => {
                    run.runners.push(Text::from(name));
                    let span = argv[0].word.span;
                    argv.drain(..skip);
                    argv[0] = Arg::synthetic(arena, bin, span);
                    continue;
                }
                None => {
                    run.program = Resolved::Unknown;
                    run.args = tail(argv);
                    return run;
                }
            }
        }
        // `node <path>/cli.js`: the package the script belongs to.
        if name == "node" || name == "bun" || name == "deno" {
            if let Some(bin) = argv.get(1).and_then(value).and_then(script_package) {
                run.runners.push(Text::from(name));
                let span = argv[0].word.span;
                argv.drain(..1);
                argv[0] = Arg::synthetic(arena, bin, span);
                continue;
            }
        }
        if name == "ssh" {
            return ssh(run, &argv, arena);
        }
        if name == "parallel" {
            // `parallel ::: 'cmd args'`: with no command, each input is a command line.
            if let Some(list) = argv[1..].iter().position(|a| value(a) == Some(":::")) {
                let opts_only = argv[1..1 + list]
                    .iter()
                    .all(|a| value(a).is_some_and(|v| v.starts_with('-')));
                if opts_only {
                    run.runners.push(Text::from("parallel"));
                    let line = argv.get(list + 2).and_then(value).map(String::from);
                    let span = argv[0].word.span;
                    match line
                        .and_then(|l| shell_words::split(&l).ok())
                        .filter(|w| !w.is_empty())
                    {
                        Some(words) => {
                            argv = words
                                .into_iter()
                                .map(|w| Arg::synthetic(arena, w, span))
                                .collect();
                            continue;
                        }
                        None => {
                            run.program = Resolved::Unknown;
                            run.args = tail(argv);
                            return run;
                        }
                    }
                }
            }
            if let Some(at) = parallel_command(&argv[1..]) {
                run.runners.push(Text::from("parallel"));
                run.args_incomplete = true;
                let mut rest: Vec<Arg<'a>> = argv.drain(at + 1..).collect();
                let mut replaced = false;
                let end = rest
                    .iter()
                    .position(|a| matches!(value(a), Some(":::" | "::::" | ":::+" | "::::+")));
                let list = end.map(|e| rest[e].clone());
                if let Some(end) = end {
                    rest.truncate(end);
                }
                for a in rest.iter_mut().skip(1) {
                    if a.value.as_deref().is_some_and(|v| v.contains('{')) {
                        a.value = None;
                        replaced = true;
                    }
                }
                // Without a `{}` replacement string, each input is appended as an argument.
                if !replaced {
                    if let Some(l) = list.or_else(|| rest.last().cloned()) {
                        rest.push(Arg {
                            word: l.word,
                            value: None,
                        });
                    }
                }
                argv = rest;
                continue;
            }
        }
        run.program = Resolved::Program(name.into());
        let program_word = argv[0].word;
        run.args = tail(argv);
        // `xargs cmd args`: the input words are appended at run time.
        if appends_input && run.args_incomplete {
            let word = run.args.last().map(|a| a.word).unwrap_or(program_word);
            run.args.push(Arg { word, value: None });
        }
        return run;
    }
}
