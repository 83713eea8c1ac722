//! The program bash runs for one invocation of the view, past what the view unwraps: shell
//! functions defined earlier (they shadow programs: `git() { ...; }; git push` runs the
//! function), `VAR=value` words after `sudo`/`doas`, git's dashed programs
//! (`/usr/lib/git-core/git-push`), runners kept as data in [`RUNNERS`] (`strace -f curl`,
//! `runuser -u u -- cmd`, `chroot dir cmd`, ...), package runners (`npx`, `bunx`, `pnpm dlx`,
//! `npm exec`), `ssh host cmd` (runs elsewhere), GNU `parallel ... ::: args`, and `xargs -I`
//! replacement strings (run-time words).

use shell_syntax::view::{normalise_program, Arg, CommandView, Invocation, Program};
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
    /// `ssh host cmd`: the command runs on another host (`Some(None)`: host decided at run time).
    pub remote_host: Option<Option<Text>>,
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

/// Option grammar of a runner: short letters and long names that take a value, and how many
/// operands come before the command.
pub struct Runner {
    pub name: &'static str,
    pub short_valued: &'static str,
    pub long_valued: &'static [&'static str],
    pub operands: usize,
}

/// Runners the view does not unwrap. Each runs its operand command with the same arguments.
pub const RUNNERS: &[Runner] = &[
    Runner {
        name: "strace",
        short_valued: "abeEIoOpPsSUX",
        long_valued: &[
            "--output",
            "--trace",
            "--signal",
            "--status",
            "--attach",
            "--string-limit",
            "--user",
        ],
        operands: 0,
    },
    Runner {
        name: "ltrace",
        short_valued: "aAeEInopsuwxX",
        long_valued: &["--output", "--library"],
        operands: 0,
    },
    Runner {
        name: "runuser",
        short_valued: "ugGw",
        long_valued: &[
            "--user",
            "--group",
            "--supp-group",
            "--whitelist-environment",
        ],
        operands: 0,
    },
    Runner {
        name: "chroot",
        short_valued: "",
        long_valued: &["--userspec", "--groups"],
        operands: 1,
    },
    Runner {
        name: "nsenter",
        short_valued: "tSGw",
        long_valued: &["--target", "--setuid", "--setgid", "--wd"],
        operands: 0,
    },
    Runner {
        name: "unshare",
        short_valued: "",
        long_valued: &["--map-user", "--map-group", "--wd", "--setuid", "--setgid"],
        operands: 0,
    },
    Runner {
        name: "firejail",
        short_valued: "",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "proxychains",
        short_valued: "f",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "proxychains4",
        short_valued: "f",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "torsocks",
        short_valued: "uPaip",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "unbuffer",
        short_valued: "",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "catchsegv",
        short_valued: "",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "pkexec",
        short_valued: "",
        long_valued: &["--user"],
        operands: 0,
    },
    Runner {
        name: "doas",
        short_valued: "uC",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "faketime",
        short_valued: "",
        long_valued: &[],
        operands: 1,
    },
    Runner {
        name: "caffeinate",
        short_valued: "tw",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "systemd-run",
        short_valued: "pEu",
        long_valued: &[
            "--property",
            "--setenv",
            "--unit",
            "--working-directory",
            "--uid",
            "--gid",
            "--description",
            "--slice",
        ],
        operands: 0,
    },
    Runner {
        name: "dbus-run-session",
        short_valued: "",
        long_valued: &["--config-file", "--dbus-daemon"],
        operands: 0,
    },
    Runner {
        name: "with-contenv",
        short_valued: "",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "ccache",
        short_valued: "",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "direnv exec",
        short_valued: "",
        long_valued: &[],
        operands: 1,
    },
];

/// Package runners: `npx [opts] pkg args` and friends. Each names the package's binary.
const PACKAGE_RUNNERS: &[&[&str]] = &[
    &["npx"],
    &["bunx"],
    &["pnpx"],
    &["pnpm", "dlx"],
    &["pnpm", "exec"],
    &["npm", "exec"],
    &["npm", "x"],
    &["yarn", "dlx"],
    &["bun", "x"],
    &["uvx"],
    &["pipx", "run"],
];

/// Package names that install a binary of another name.
const PACKAGE_BINARIES: &[(&str, &str)] = &[
    ("@anthropic-ai/claude-code", "claude"),
    ("@githubnext/github-copilot-cli", "github-copilot-cli"),
];

/// Most runner layers unwrapped here (beyond it the program is unknown).
const MAX_LAYERS: usize = 32;

/// The shell functions of a view: where each is first defined and the invocations of its body
/// (the view visits a body where it is defined, with `context.function` set). Built once per
/// view, so resolving every invocation stays linear.
#[derive(Debug, Default)]
pub struct Functions<'a> {
    /// Name → index of the first body invocation (the function exists from there on).
    first: std::collections::HashMap<&'a str, usize>,
    /// Name → body invocation indices.
    bodies: std::collections::HashMap<&'a str, Vec<usize>>,
    /// Aliases, in definition order: (index of the `alias` invocation, name, value; `None`
    /// for a value decided at run time).
    aliases: Vec<(usize, String, Option<String>)>,
    /// Index of the first `shopt -s expand_aliases` (bash expands aliases only after it).
    expand_aliases_from: Option<usize>,
}

impl<'a> Functions<'a> {
    pub fn of(view: &CommandView<'a>) -> Functions<'a> {
        let mut f = Functions::default();
        for inv in &view.invocations {
            if let Some(name) = inv.context.function {
                f.first.entry(name).or_insert(inv.index);
                f.bodies.entry(name).or_default().push(inv.index);
            }
            match inv.name() {
                Some("alias") => {
                    for a in &inv.args {
                        match a.value.as_deref() {
                            Some(v) => {
                                if let Some((n, val)) = v.split_once('=') {
                                    f.aliases.push((
                                        inv.index,
                                        n.to_string(),
                                        Some(val.to_string()),
                                    ));
                                }
                            }
                            None => {
                                if let Some(n) = a
                                    .word
                                    .resolve(&|_| Some(String::new()))
                                    .and_then(|t| t.split_once('=').map(|(n, _)| n.to_string()))
                                {
                                    f.aliases.push((inv.index, n, None));
                                }
                            }
                        }
                    }
                }
                Some("shopt") if f.expand_aliases_from.is_none() => {
                    let vals: Vec<Option<&str>> =
                        inv.args.iter().map(|a| a.value.as_deref()).collect();
                    if vals.contains(&Some("-s")) && vals.contains(&Some("expand_aliases")) {
                        f.expand_aliases_from = Some(inv.index);
                    }
                }
                _ => {}
            }
        }
        f
    }

    /// The value of alias `name` for invocation `index` (`Some(None)`: decided at run time),
    /// when aliases are expanded there.
    pub fn alias_before(&self, name: &str, index: usize) -> Option<Option<&str>> {
        if self.expand_aliases_from.is_none_or(|from| from >= index) {
            return None;
        }
        self.aliases
            .iter()
            .rev()
            .find(|(at, n, _)| *at < index && n == name)
            .map(|(_, _, v)| v.as_deref())
    }

    /// Whether `name` is a function defined before invocation `index`.
    pub fn defined_before(&self, name: &str, index: usize) -> bool {
        self.first.get(name).is_some_and(|&i| i < index)
    }

    /// Body invocation indices of `name`.
    pub fn body(&self, name: &str) -> &[usize] {
        self.bodies.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }
}

fn value<'s>(a: &'s Arg<'_>) -> Option<&'s str> {
    a.value.as_deref()
}

fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// Skips a runner's options; the index of its command, if a static command follows.
fn skip_runner(r: &Runner, args: &[Arg<'_>]) -> Option<usize> {
    let mut i = 0;
    while i < args.len() {
        let v = value(&args[i])?;
        if v == "--" {
            i += 1;
            break;
        }
        if !v.starts_with('-') || v == "-" {
            break;
        }
        if let Some(long) = v.strip_prefix("--") {
            if !long.contains('=') && r.long_valued.iter().any(|l| l[2..] == *long) {
                i += 1;
            }
            i += 1;
            continue;
        }
        let cluster = &v[1..];
        for (pos, c) in cluster.char_indices() {
            if r.short_valued.contains(c) {
                if pos + c.len_utf8() == cluster.len() {
                    i += 1;
                }
                break;
            }
        }
        i += 1;
    }
    let at = i + r.operands;
    (at < args.len()).then_some(at)
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
        remote_host: None,
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
            run.args = argv[1..].to_vec();
            return run;
        };
        if layers > MAX_LAYERS {
            run.program = Resolved::Unknown;
            run.args = argv[1..].to_vec();
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
        let name = normalise_program(&raw);
        // A function defined earlier shadows any program of that name (not after `command`,
        // `env` and other wrappers that exec a program).
        // `shopt -s expand_aliases; alias p='git push'; p origin main`: bash replaces the
        // first word (and the next one after a value ending in a blank).
        if alias_word && !raw.contains('/') && !expanded.contains(&raw.to_string()) {
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
                        run.args = argv[1..].to_vec();
                        return run;
                    }
                }
            }
        }
        if layers == 1
            && !bypass_functions
            && !raw.contains('/')
            && funcs.defined_before(&name, inv.index)
            && inv.context.function != Some(name.as_str())
        {
            run.program = Resolved::Function(name.into());
            run.args = argv[1..].to_vec();
            return run;
        }
        // git's dashed programs: `git-push` from git's exec path runs `git push`.
        if let Some(sub) = name.strip_prefix("git-") {
            if !sub.is_empty() && (raw.contains("git-core") || GIT_DASHED.contains(&sub)) {
                run.runners.push(Text::from(name.as_str()));
                let mut v = vec![Arg::synthetic(arena, "git", first.word.span)];
                v.push(Arg::synthetic(arena, sub, first.word.span));
                v.extend(argv[1..].iter().cloned());
                argv = v;
                continue;
            }
        }
        if let Some(r) = RUNNERS.iter().find(|r| r.name == name) {
            match skip_runner(r, &argv[1..]) {
                Some(at) => {
                    run.runners.push(Text::from(r.name));
                    argv.drain(..=at);
                    allow_assignments = matches!(r.name, "doas" | "pkexec");
                    continue;
                }
                None if argv[1..].iter().any(|a| a.value.is_none()) => {
                    run.program = Resolved::Unknown;
                    run.args = argv[1..].to_vec();
                    return run;
                }
                None => {}
            }
        }
        if let Some(step) = package_runner(&name, &argv) {
            match step {
                Some((skip, bin)) => {
                    run.runners.push(Text::from(name.as_str()));
                    let span = argv[0].word.span;
                    argv.drain(..skip);
                    argv[0] = Arg::synthetic(arena, bin, span);
                    continue;
                }
                None => {
                    run.program = Resolved::Unknown;
                    run.args = argv[1..].to_vec();
                    return run;
                }
            }
        }
        // `node <path>/cli.js`: the package the script belongs to.
        if name == "node" || name == "bun" || name == "deno" {
            if let Some(bin) = argv.get(1).and_then(value).and_then(script_package) {
                run.runners.push(Text::from(name.as_str()));
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
                            run.args = argv[1..].to_vec();
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
        run.args = argv[1..].to_vec();
        // `xargs cmd args`: the input words are appended at run time.
        if appends_input && run.args_incomplete {
            let word = run.args.last().map(|a| a.word).unwrap_or(argv[0].word);
            run.args.push(Arg { word, value: None });
        }
        return run;
    }
}

/// git subcommands installed as dashed programs in git's exec path.
const GIT_DASHED: &[&str] = &[
    "push",
    "commit",
    "merge",
    "am",
    "pull",
    "reset",
    "checkout",
    "switch",
    "restore",
    "clean",
    "stash",
    "branch",
    "rebase",
    "gc",
    "update-ref",
    "send-pack",
    "receive-pack",
    "fetch",
];

/// `npx [opts] pkg args`: `Some(Some((words before the binary, binary)))`, `Some(None)` when
/// the package is decided at run time, `None` when `name` is not a package runner.
fn package_runner(name: &str, argv: &[Arg<'_>]) -> Option<Option<(usize, String)>> {
    let pattern = PACKAGE_RUNNERS.iter().find(|p| {
        p[0] == name
            && p[1..]
                .iter()
                .enumerate()
                .all(|(k, w)| argv.get(1 + k).and_then(value) == Some(w))
    })?;
    let mut i = pattern.len();
    let mut package: Option<String> = None;
    while i < argv.len() {
        let Some(v) = value(&argv[i]) else {
            return Some(None);
        };
        if v == "--" {
            i += 1;
            break;
        }
        if let Some(p) = v.strip_prefix("--package=") {
            package = Some(p.to_string());
            i += 1;
            continue;
        }
        if v == "--package" || v == "-p" {
            package = argv.get(i + 1).and_then(value).map(String::from);
            i += 2;
            continue;
        }
        if v.starts_with('-') {
            i += 1;
            continue;
        }
        break;
    }
    let word = value(argv.get(i)?)?.to_string();
    let _ = package;
    Some(Some((i, package_binary(&word))))
}

/// The binary a package spec installs: `@scope/name@1.2` → `name` (or a known other name).
fn package_binary(spec: &str) -> String {
    let without_version = match spec.rfind('@') {
        Some(0) | None => spec,
        Some(at) => &spec[..at],
    };
    if let Some((_, bin)) = PACKAGE_BINARIES.iter().find(|(p, _)| *p == without_version) {
        return bin.to_string();
    }
    without_version
        .rsplit('/')
        .next()
        .unwrap_or(without_version)
        .to_string()
}

/// `node .../node_modules/@anthropic-ai/claude-code/cli.js`: the binary of that package
/// (`node_modules/<pkg>/` or `node_modules/@scope/<pkg>/`).
fn script_package(path: &str) -> Option<String> {
    let (_, after) = path.rsplit_once("node_modules/")?;
    let mut parts = after.split('/');
    let first = parts.next()?;
    let pkg = if first.starts_with('@') {
        format!("{first}/{}", parts.next()?)
    } else {
        first.to_string()
    };
    parts.next()?;
    Some(package_binary(&pkg))
}

/// `"$(git --exec-path)/git-push"`, `~/.claude/local/claude`: a run-time directory, but the
/// program's name is literal (the last part of the word, after its last `/`).
fn dashed_git_tail(w: &shell_syntax::Word<'_>) -> Option<Text> {
    use shell_syntax::ast::WordPart;
    let last = match w.parts.last()? {
        WordPart::DoubleQuoted(ps) => match ps.last()? {
            WordPart::Literal(s) => *s,
            _ => return None,
        },
        WordPart::Literal(s) | WordPart::SingleQuoted(s) => *s,
        _ => return None,
    };
    let (_, base) = last.rsplit_once('/')?;
    if base.is_empty() || base.contains(['*', '?', '[']) {
        return None;
    }
    Some(match base.strip_prefix("git-") {
        Some(sub) if GIT_DASHED.contains(&sub) => Text::from(format!("/git-core/{base}")),
        _ => Text::from(format!("/{base}")),
    })
}

/// `ssh [opts] host [cmd...]`: the command runs on `host`; its words are joined with spaces and
/// split again by the remote shell.
fn ssh<'a>(mut run: Run<'a>, argv: &[Arg<'a>], arena: &'a bumpalo::Bump) -> Run<'a> {
    const VALUED: &str = "BbcDEeFIiJLlmOoPpQRSWw";
    let mut i = 1;
    while i < argv.len() {
        let Some(v) = value(&argv[i]) else { break };
        if !v.starts_with('-') || v == "-" {
            break;
        }
        let cluster = &v[1..];
        for (pos, c) in cluster.char_indices() {
            if VALUED.contains(c) {
                if pos + c.len_utf8() == cluster.len() {
                    i += 1;
                }
                break;
            }
        }
        i += 1;
    }
    run.runners.push(Text::from("ssh"));
    let Some(host) = argv.get(i) else {
        run.program = Resolved::Program("ssh".into());
        run.args = argv[1..].to_vec();
        return run;
    };
    run.remote_host = Some(host.value.as_deref().map(Text::from));
    let words = &argv[i + 1..];
    if words.is_empty() {
        run.program = Resolved::Program("ssh".into());
        run.args = argv[1..].to_vec();
        return run;
    }
    let joined: Option<Vec<String>> = words
        .iter()
        .map(|a| a.value.as_deref().map(String::from))
        .collect();
    let split = joined.and_then(|w| shell_words::split(&w.join(" ")).ok());
    match split {
        Some(mut w) if !w.is_empty() => {
            let span = host.word.span;
            let first = w.remove(0);
            run.program = Resolved::Program(normalise_program(&first).into());
            run.args = w
                .into_iter()
                .map(|x| Arg::synthetic(arena, x, span))
                .collect();
        }
        _ => {
            run.program = Resolved::Unknown;
            run.args = words.to_vec();
        }
    }
    run
}

/// GNU `parallel [opts] cmd ... ::: args`: the index (in `args`) of the command's first word.
fn parallel_command(args: &[Arg<'_>]) -> Option<usize> {
    const VALUED: &[&str] = &[
        "-j",
        "--jobs",
        "-S",
        "--sshlogin",
        "--joblog",
        "-a",
        "--arg-file",
        "--delay",
        "--timeout",
        "-d",
        "--delimiter",
        "-I",
        "--colsep",
        "-n",
        "--max-args",
        "--results",
        "--tmpdir",
        "--workdir",
        "--env",
        "--retries",
        "--halt",
    ];
    let mut i = 0;
    while i < args.len() {
        let v = value(&args[i])?;
        if v == ":::" || v == "::::" {
            return None;
        }
        if !v.starts_with('-') {
            return Some(i);
        }
        if VALUED.contains(&v) {
            i += 1;
        }
        i += 1;
    }
    None
}

/// Every run of a view in execution order: each invocation with its program resolved, a call
/// of a shell function replaced by its body's runs with the call's arguments, and a function's
/// body where it is defined only when the function is never called (bash runs a body only
/// when it is called; an uncalled one is kept, judged as written).
pub fn runs<'a>(view: &CommandView<'a>, arena: &'a bumpalo::Bump) -> Vec<Run<'a>> {
    let funcs = Functions::of(view);
    let resolved: Vec<Run<'a>> = view
        .invocations
        .iter()
        .map(|inv| resolve(&funcs, inv, arena))
        .collect();
    let called: std::collections::HashSet<Text> = resolved
        .iter()
        .filter_map(|r| match &r.program {
            Resolved::Function(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    let mut out = Vec::with_capacity(resolved.len());
    for (inv, run) in view.invocations.iter().zip(resolved) {
        if inv.context.function.is_some_and(|f| called.contains(f)) {
            continue;
        }
        match run.program {
            Resolved::Function(_) => out.extend(function_body_runs(view, &funcs, &run, arena)),
            _ => out.push(run),
        }
    }
    out
}

/// Most function calls followed inside one another (`f` calling `g` calling `h`).
pub const MAX_CALL_DEPTH: usize = 4;

/// The runs of a function's body for one call (`run.program` is [`Resolved::Function`]): each
/// body invocation with `$@`, `$*` and `$1`..`$9` replaced by the call's arguments, resolved
/// again. Functions called from the body are followed up to [`MAX_CALL_DEPTH`]. Each returned
/// run keeps the index of the body invocation.
pub fn function_body_runs<'a>(
    view: &CommandView<'a>,
    funcs: &Functions<'_>,
    call: &Run<'a>,
    arena: &'a bumpalo::Bump,
) -> Vec<Run<'a>> {
    let mut out = Vec::new();
    body_runs(view, funcs, call, arena, 0, &mut out);
    out
}

fn body_runs<'a>(
    view: &CommandView<'a>,
    funcs: &Functions<'_>,
    call: &Run<'a>,
    arena: &'a bumpalo::Bump,
    depth: usize,
    out: &mut Vec<Run<'a>>,
) {
    let Resolved::Function(name) = &call.program else {
        return;
    };
    if depth >= MAX_CALL_DEPTH {
        out.push(Run {
            program: Resolved::Unknown,
            ..call.clone()
        });
        return;
    }
    for body in funcs
        .body(name)
        .iter()
        .filter_map(|&i| view.invocations.get(i))
        .filter(|b| b.index < call.invocation)
    {
        let mut words: Vec<Arg<'a>> = Vec::new();
        let first = match &body.program {
            Program::None => continue,
            Program::Dynamic(w) => Arg {
                word: *w,
                value: None,
            },
            Program::Static { raw, .. } => Arg::synthetic(arena, raw.as_str(), body.span),
        };
        for a in std::iter::once(&first).chain(body.args.iter()) {
            substitute(a, &call.args, arena, &mut words);
        }
        let mut inv = body.clone();
        // The substituted words go through the view's wrapper table again (`command "$@"`
        // with `git push` in place is `git push`).
        let u = shell_syntax::view::unwrap(arena, words);
        let Some(head) = u.program else {
            continue;
        };
        inv.program = match &head.value {
            Some(v) => Program::Static {
                name: normalise_program(v).into(),
                raw: v.clone(),
            },
            None => Program::Dynamic(head.word),
        };
        inv.args = u.args;
        inv.wrappers.extend(u.wrappers);
        for e in u.env {
            inv.env.push(e);
        }
        inv.cds.extend(u.cds);
        inv.args_incomplete |= u.args_incomplete;
        let mut run = resolve_at(funcs, &inv, arena, call.invocation);
        run.invocation = body.index;
        // `X=1 f`: the call's own assignments are in the body's environment.
        if let Some(call_inv) = view.invocations.get(call.invocation) {
            let own = call_inv.env.iter().filter(|e| {
                matches!(
                    e.source,
                    shell_syntax::view::EnvSource::Prefix
                        | shell_syntax::view::EnvSource::EnvCommand
                )
            });
            let mut env: Vec<(Text, Option<Text>)> = own
                .map(|e| {
                    (
                        e.name.clone(),
                        e.value.as_ref().and_then(|a| a.value.clone()),
                    )
                })
                .collect();
            env.extend(call.env.iter().cloned());
            env.append(&mut run.env);
            run.env = env;
        }
        if matches!(run.program, Resolved::Function(_)) {
            body_runs(view, funcs, &run, arena, depth + 1, out);
        } else {
            out.push(run);
        }
    }
}

/// [`resolve`] for a body invocation run from the call at `call_index` (functions defined
/// before the call are visible).
fn resolve_at<'a>(
    funcs: &Functions<'_>,
    inv: &Invocation<'a>,
    arena: &'a bumpalo::Bump,
    call_index: usize,
) -> Run<'a> {
    let mut at_call = inv.clone();
    at_call.index = call_index;
    at_call.context.function = None;
    let mut run = resolve(funcs, &at_call, arena);
    run.invocation = inv.index;
    run
}

/// One body word with the call's positional parameters in place.
fn substitute<'a>(
    a: &Arg<'a>,
    call_args: &[Arg<'a>],
    arena: &'a bumpalo::Bump,
    out: &mut Vec<Arg<'a>>,
) {
    use shell_syntax::ast::WordPart;
    if a.value.is_some() {
        out.push(a.clone());
        return;
    }
    let param = match a.word.parts {
        [WordPart::Param(p)] => Some(p),
        [WordPart::DoubleQuoted([WordPart::Param(p)])] => Some(p),
        _ => None,
    }
    .filter(|p| p.index.is_none() && !p.length && !p.indirect);
    // `"${@:N}"` and `"${@:N:L}"`: a slice of the call's arguments (`$0` is offset 0).
    if let Some(p) = param.filter(|p| p.name == "@" || p.name == "*") {
        if let Some(shell_syntax::ast::ParamOp::Substring { offset, length }) = p.op {
            let num = |w: &shell_syntax::Word<'_>| w.static_value()?.trim().parse::<usize>().ok();
            if let Some(off) = num(offset) {
                let start = off.saturating_sub(1).min(call_args.len());
                let end = match length {
                    None => Some(call_args.len()),
                    Some(l) => num(l).map(|l| (start + l).min(call_args.len())),
                };
                if let Some(end) = end {
                    out.extend(call_args[start..end].iter().cloned());
                    return;
                }
            }
        }
    }
    let param = param.filter(|p| p.op.is_none());
    if let Some(p) = param {
        if p.name == "@" || p.name == "*" {
            out.extend(call_args.iter().cloned());
            return;
        }
        if let Ok(n) = p.name.parse::<usize>() {
            if n >= 1 {
                match call_args.get(n - 1) {
                    Some(v) => out.push(v.clone()),
                    None => {
                        if matches!(a.word.parts, [WordPart::DoubleQuoted(_)]) {
                            out.push(Arg::synthetic(arena, "", a.word.span));
                        }
                    }
                }
                return;
            }
        }
    }
    // `refs/heads/$1`: positional parameters with static values inside a longer word.
    let lookup = |name: &str| -> Option<String> {
        let n: usize = name.parse().ok()?;
        call_args
            .get(n.checked_sub(1)?)?
            .value
            .as_deref()
            .map(String::from)
    };
    match a.word.resolve(&lookup) {
        Some(v) => out.push(Arg::synthetic(arena, v, a.word.span)),
        None => out.push(a.clone()),
    }
}
