//! The program bash runs for one invocation of the view, past what the view unwraps: shell
//! functions defined earlier (they shadow programs: `git() { ...; }; git push` runs the
//! function), `VAR=value` words after `sudo`/`doas`, git's dashed programs
//! (`/usr/lib/git-core/git-push`), runners kept as data in [`RUNNERS`] (`strace -f curl`,
//! `runuser -u u -- cmd`, `chroot dir cmd`, ...), package runners (`npx`, `bunx`, `pnpm dlx`,
//! `npm exec`), `ssh host cmd` (runs elsewhere), GNU `parallel ... ::: args`, and `xargs -I`
//! replacement strings (run-time words), and the subcommand git reads from the name `exec -a`
//! gives it (`argv0`).

use crate::runners::{
    dashed_git_tail, package_runner, parallel_command, script_package, skip_runner, ssh,
    GIT_DASHED, RUNNERS, RUNNER_NAMES,
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
/// Stands for a part of a word decided at run time where only the rest of it matters (a NUL
/// cannot be in a word bash passes on).
pub(crate) const RUN_TIME: &str = "\0";

/// A word's text with each parameter, command substitution and tilde as [`RUN_TIME`]
/// (`"$(npm root -g)/@anthropic-ai/claude-code/cli.js"`); `None` for other run-time parts.
pub(crate) fn run_time_parts(w: &shell_syntax::Word<'_>) -> Option<String> {
    use shell_syntax::ast::WordPart;
    fn walk(parts: &[WordPart<'_>], out: &mut String) -> bool {
        parts.iter().all(|p| match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => {
                out.push_str(s);
                true
            }
            WordPart::DoubleQuoted(inner) => walk(inner, out),
            WordPart::Param(_) | WordPart::CommandSubst(_) | WordPart::Tilde(_) => {
                out.push_str(RUN_TIME);
                true
            }
            _ => false,
        })
    }
    let mut out = String::new();
    walk(w.parts, &mut out).then_some(out)
}

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
    // Only a value the text pins (`G=git; if false; then G=echo; fi; $G` runs git).
    let value = inv.env.constant(p.name)?.to_string();
    let ifs = match inv.env_value("IFS") {
        None => " \t\n".to_string(),
        Some(_) => inv.env.constant("IFS")?.to_string(),
    };
    let words: Vec<Arg<'a>> = value
        .split(|c| ifs.contains(c))
        .filter(|x| !x.is_empty())
        .map(|x| Arg::synthetic(arena, x, w.span))
        .collect();
    (!words.is_empty()).then_some(words)
}

/// A program word that is one word whatever its value: `"$f"` with `f` assigned a literal
/// earlier (`f=/usr/bin/git; "$f" push`), or a look-up of a literal name (`"$(command -v git)"`,
/// `$(which gh)`, `p=$(type -P git); "$p"`): the name bash finds is the one looked up.
fn known_one<'a>(
    inv: &Invocation<'a>,
    w: &shell_syntax::Word<'a>,
    arena: &'a bumpalo::Bump,
) -> Option<Vec<Arg<'a>>> {
    use shell_syntax::ast::WordPart;
    let inner = match w.parts {
        [WordPart::DoubleQuoted(inner)] => *inner,
        parts => parts,
    };
    let quoted = !std::ptr::eq(inner, w.parts);
    let value = match inner {
        [WordPart::Param(p)]
            if quoted && p.op.is_none() && p.index.is_none() && !p.length && !p.indirect =>
        {
            if !inv.env.pinned(p.name) {
                return None;
            }
            let e = inv.env_value(p.name)?;
            let a = e.value.as_ref()?;
            match a.value.as_deref() {
                Some(v) => v.to_string(),
                // `p=$(command -v gh)`: the word assigned.
                None => looked_up(&a.word)?.to_string(),
            }
        }
        _ => looked_up(w)?.to_string(),
    };
    (!value.is_empty()).then(|| vec![Arg::synthetic(arena, value, w.span)])
}

/// `$(command -v git)`, `"$(which gh)"`, `` `type -P git` ``: the literal name a command
/// substitution looks up (bash then runs what that name finds).
pub fn looked_up<'w>(w: &shell_syntax::Word<'w>) -> Option<&'w str> {
    use shell_syntax::ast::WordPart;
    let inner = match w.parts {
        [WordPart::DoubleQuoted(inner)] => *inner,
        parts => parts,
    };
    let [WordPart::CommandSubst(cs)] = inner else {
        return None;
    };
    let sc = cs.script.body.single_simple()?;
    if !sc.assignments.is_empty() || !sc.redirects.is_empty() {
        return None;
    }
    let words: Vec<&str> = sc
        .words
        .iter()
        .map(|w| match w.parts {
            [WordPart::Literal(s)] | [WordPart::SingleQuoted(s)] => Some(*s),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let name = match words.as_slice() {
        ["command", "-v", n] | ["which", n] | ["type", "-P" | "-p", n] => *n,
        _ => return None,
    };
    (is_name_word(name)).then_some(name)
}

/// A plain program name (no path, no glob, no option).
fn is_name_word(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'+'))
}

/// Most words one brace expansion of the program word may make (beyond it: run time).
const MAX_BRACE_WORDS: usize = 64;

/// `{git,push} origin main`: a word made of literal parts and brace expansions of literal
/// alternatives is the words bash makes of it (braces expand first; empty results vanish).
fn brace_words<'a>(w: &shell_syntax::Word<'a>, arena: &'a bumpalo::Bump) -> Option<Vec<Arg<'a>>> {
    use shell_syntax::ast::WordPart;
    let mut acc = vec![String::new()];
    let mut braces = false;
    for part in w.parts {
        if let WordPart::Brace(b) = part {
            let alts: Vec<String> = b
                .alternatives
                .iter()
                .map(|a| a.static_value())
                .collect::<Option<_>>()
                .filter(|_| !b.sequence)?;
            braces = true;
            acc = acc
                .iter()
                .flat_map(|p| alts.iter().map(move |a| format!("{p}{a}")))
                .collect();
            if acc.len() > MAX_BRACE_WORDS {
                return None;
            }
            continue;
        }
        let one = shell_syntax::Word {
            parts: std::slice::from_ref(part),
            span: w.span,
        };
        let v = one.static_value()?;
        acc.iter_mut().for_each(|p| p.push_str(&v));
    }
    braces.then(|| {
        acc.into_iter()
            .filter(|s| !s.is_empty())
            .map(|s| Arg::synthetic(arena, s, w.span))
            .collect()
    })
}

/// Replaces each run-time word of `argv` that is a brace expansion of literals by its words;
/// whether any was.
fn expand_braces<'a>(argv: &mut Vec<Arg<'a>>, arena: &'a bumpalo::Bump) -> bool {
    if argv.iter().all(|a| a.value.is_some()) {
        return false;
    }
    let mut any = false;
    let mut out = Vec::with_capacity(argv.len());
    for a in argv.drain(..) {
        match a
            .value
            .is_none()
            .then(|| brace_words(&a.word, arena))
            .flatten()
        {
            Some(words) => {
                any = true;
                out.extend(words);
            }
            None => out.push(a),
        }
    }
    *argv = out;
    any
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
    let run = Run {
        invocation: inv.index,
        program: Resolved::Nothing,
        args: Vec::new(),
        runners: Vec::new(),
        env: Vec::new(),
        remote: None,
        args_incomplete: inv.args_incomplete,
    };
    let Some(mut argv) = initial_argv(inv, arena) else {
        return run;
    };
    // Brace expansions of literal alternatives are the words bash makes of them; a brace-built
    // word may name a wrapper (`env {git,push} origin`): unwrapped again below.
    let braced = expand_braces(&mut argv, arena);
    // `xargs -I X cmd ... X ...`: each word holding X is decided at run time.
    let replacement = xargs_replacement(inv);
    if let Some(r) = replacement.as_deref().filter(|r| !r.is_empty()) {
        for a in argv.iter_mut() {
            if a.value.as_deref().is_some_and(|v| v.contains(r)) {
                a.value = None;
            }
        }
    }
    let mut r = Resolver {
        funcs,
        inv,
        arena,
        run,
        argv,
        layers: 0,
        // `sudo GIT_DIR=x git ...`: sudo sets variables given before the command.
        allow_assignments: inv
            .wrappers
            .last()
            .is_some_and(|w| matches!(w.name.as_str(), "sudo" | "doas")),
        alias_hops: 0,
        expanded: Vec::new(),
        pending_alias: None,
        bypass_functions: inv
            .wrappers
            .iter()
            .any(|w| BYPASS_FUNCTIONS.contains(&w.name.as_str())),
        // `xargs` without a replacement string appends its input words to the command.
        appends_input: replacement.is_none() && inv.wrappers.iter().any(|w| w.name == "xargs"),
        argv0: inv
            .wrappers
            .last()
            .and_then(crate::argv0::exec_name)
            .map(|n| (1, n)),
    };
    if braced {
        let words = std::mem::take(&mut r.argv);
        if let Some(step) = r.rewrap(words) {
            return match step {
                Step::Ssh => ssh(r.run, &r.argv, arena),
                _ => r.run,
            };
        }
    }
    loop {
        r.layers += 1;
        match r.step() {
            Step::Again => {}
            Step::Done => return r.run,
            Step::Ssh => return ssh(r.run, &r.argv, arena),
        }
    }
}

/// Wrappers after which a name is looked up as a program, never as a function (they exec).
const BYPASS_FUNCTIONS: &[&str] = &[
    "command",
    "builtin",
    "exec",
    "env",
    "sudo",
    "doas",
    "xargs",
    "find -exec",
    "nohup",
    "nice",
    "timeout",
    "gtimeout",
    "stdbuf",
    "setsid",
    "ionice",
    "chrt",
    "taskset",
    "flock",
    "busybox",
    "watch",
];

/// The program word and the arguments of `inv`; `None` when it runs no program.
fn initial_argv<'a>(inv: &Invocation<'a>, arena: &'a bumpalo::Bump) -> Option<Vec<Arg<'a>>> {
    Some(match &inv.program {
        Program::None => return None,
        Program::Dynamic(w) => {
            let mut v = split_known(inv, w, arena)
                .or_else(|| known_one(inv, w, arena))
                .unwrap_or_else(|| {
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
    })
}

/// What one layer of [`Resolver::step`] decided.
enum Step {
    /// A layer was peeled off (a runner, an alias, an assignment): look at the new first word.
    Again,
    /// `run` is complete.
    Done,
    /// `ssh host cmd`: the rest is read by [`ssh`].
    Ssh,
}

/// The state of one [`resolve`]: the words left and what the layers peeled so far gave.
struct Resolver<'r, 'f, 'a> {
    funcs: &'r Functions<'f>,
    inv: &'r Invocation<'a>,
    arena: &'a bumpalo::Bump,
    run: Run<'a>,
    argv: Vec<Arg<'a>>,
    layers: usize,
    allow_assignments: bool,
    alias_hops: usize,
    /// Aliases expanded already (bash does not expand one again inside its own expansion).
    expanded: Vec<String>,
    /// After an alias value ending in a blank, the index of the next word to expand.
    pending_alias: Option<usize>,
    bypass_functions: bool,
    appends_input: bool,
    /// The `argv[0]` word an `exec -a NAME` wrapper gives the program word of layer `.0`; a
    /// later layer's program runs under its own name.
    argv0: Option<(usize, Arg<'a>)>,
}

impl<'a> Resolver<'_, '_, 'a> {
    /// Ends the walk: `program` with the words after the first as its arguments.
    fn stop(&mut self, program: Resolved) -> Step {
        self.run.program = program;
        self.run.args = tail(std::mem::take(&mut self.argv));
        Step::Done
    }

    /// Words made up here carry `span` (the word they replace).
    fn synthetic(&self, words: Vec<String>, span: shell_syntax::Span) -> Vec<Arg<'a>> {
        words
            .into_iter()
            .map(|x| Arg::synthetic(self.arena, x, span))
            .collect()
    }

    /// One layer: the first word as bash reads it, after what the layers before peeled.
    fn step(&mut self) -> Step {
        if let Some(at) = self.pending_alias.take() {
            self.expand_alias_at(at);
        }
        let alias_word = self.layers == 1;
        let Some(first) = self.argv.first() else {
            self.run.program = Resolved::Nothing;
            return Step::Done;
        };
        let Some(raw) = first.value.clone().or_else(|| dashed_git_tail(&first.word)) else {
            // `sudo GH_REPO="$R" gh ...`: an assignment of a value decided at run time.
            let name = self
                .allow_assignments
                .then(|| shell_syntax::view::dynamic_assignment_name(&first.word))
                .flatten();
            if let Some(n) = name {
                self.run.env.push((n.into(), None));
                self.argv.remove(0);
                return Step::Again;
            }
            return self.stop(Resolved::Unknown);
        };
        if self.layers > MAX_LAYERS {
            return self.stop(Resolved::Unknown);
        }
        if self.allow_assignments && self.runner_assignment(&raw) {
            return Step::Again;
        }
        self.allow_assignments = false;
        let name_text = program_name(&raw);
        // Compared with many table rows below: a plain `&str` (no per-compare decoding).
        let name: &str = name_text.as_str();
        if alias_word {
            if let Some(step) = self.expand_alias(&raw) {
                return step;
            }
        }
        // A function defined earlier shadows any program of that name (not after `command`,
        // `env` and other wrappers that exec a program).
        if self.layers == 1
            && !self.bypass_functions
            && !raw.contains('/')
            && self
                .funcs
                .defined_for(name, self.inv.index, &self.inv.origin)
            && self.inv.context.function != Some(name)
        {
            return self.stop(Resolved::Function(name.into()));
        }
        if let Some(step) = self
            .dashed_git(name, &raw)
            .or_else(|| self.runner(name))
            .or_else(|| self.package_runner(name))
            .or_else(|| self.script_runner(name))
        {
            return step;
        }
        if name == "ssh" {
            return Step::Ssh;
        }
        if name == "parallel" {
            if let Some(step) = self.parallel() {
                return step;
            }
        }
        self.program(name)
    }

    /// The program is found: the last layer.
    fn program(&mut self, name: &str) -> Step {
        let program_word = self.argv[0].word;
        let argv0 = self.argv0.take().filter(|(layer, _)| *layer == self.layers);
        self.stop(Resolved::Program(name.into()));
        if let (Some((_, argv0)), "git") = (argv0, name) {
            crate::argv0::git_args(argv0, &mut self.run.args);
        }
        // `xargs cmd args`: the input words are appended at run time.
        if self.appends_input && self.run.args_incomplete {
            let word = self.run.args.last().map(|a| a.word).unwrap_or(program_word);
            self.run.args.push(Arg { word, value: None });
        }
        Step::Done
    }

    /// `sudo GIT_DIR=x git ...`: a `NAME=value` word before the command is an assignment.
    fn runner_assignment(&mut self, raw: &str) -> bool {
        match raw.split_once('=') {
            Some((n, v)) if is_name(n) => {
                self.run.env.push((n.into(), Some(v.into())));
                self.argv.remove(0);
                true
            }
            _ => false,
        }
    }

    /// After an alias value ending in a blank, the word at `at` is expanded too (`alias
    /// sudo='sudo '`).
    fn expand_alias_at(&mut self, at: usize) {
        if at == 0 || at >= self.argv.len() {
            return;
        }
        let Some(v) = self.argv[at].value.clone() else {
            return;
        };
        let Some(Some(value)) = self.funcs.alias_before(&v, self.inv.index) else {
            return;
        };
        if let Ok(w) = shell_words::split(value) {
            self.alias_hops += 1;
            if self.alias_hops <= 16 {
                let new = self.synthetic(w, self.argv[at].word.span);
                self.argv.splice(at..=at, new);
            }
        }
    }

    /// `shopt -s expand_aliases; alias p='git push'; p origin main`: bash replaces the first
    /// word (and the next one after a value ending in a blank). `None`: no alias applies.
    fn expand_alias(&mut self, raw: &Text) -> Option<Step> {
        if raw.contains('/') || self.expanded.iter().any(|e| e == raw.as_str()) {
            return None;
        }
        let value = self.funcs.alias_before(raw, self.inv.index)?;
        self.expanded.push(raw.to_string());
        self.alias_hops += 1;
        let words = value.and_then(|v| {
            let trailing = v.ends_with(' ') || v.ends_with('\t');
            shell_words::split(v).ok().map(|w| (w, trailing))
        });
        let Some((w, trailing)) = words.filter(|(w, _)| {
            self.alias_hops <= 16
                && !w
                    .iter()
                    .any(|x| matches!(x.as_str(), ";" | "&&" | "||" | "|" | "&"))
        }) else {
            return Some(self.stop(Resolved::Unknown));
        };
        let n = w.len();
        let mut v = self.synthetic(w, self.argv[0].word.span);
        v.extend(self.argv[1..].iter().cloned());
        if let Some(step) = self.rewrap(v) {
            return Some(step);
        }
        // A value ending in a blank makes the next word an alias candidate.
        self.pending_alias = trailing.then_some(n);
        self.layers -= 1;
        Some(Step::Again)
    }

    /// Words made up here (an alias value, a brace expansion) go through the view's wrapper
    /// table (`alias run=command`, `{sudo,git} push`). `Some`: nothing is left to run.
    fn rewrap(&mut self, v: Vec<Arg<'a>>) -> Option<Step> {
        let u = shell_syntax::view::unwrap(self.arena, v);
        self.run
            .runners
            .extend(u.wrappers.iter().map(|w| w.name.clone()));
        // Its program word is looked at in the next layer (the braces' first, an alias's own).
        self.argv0 = u
            .wrappers
            .last()
            .and_then(crate::argv0::exec_name)
            .map(|n| (self.layers.max(1), n));
        self.bypass_functions |= u
            .wrappers
            .iter()
            .any(|w| BYPASS_FUNCTIONS.contains(&w.name.as_str()));
        self.run.env.extend(u.env.iter().map(|e| {
            (
                e.name.clone(),
                e.value.as_ref().and_then(|a| a.value.clone()),
            )
        }));
        self.run.args_incomplete |= u.args_incomplete;
        let Some(head) = u.program else {
            self.run.program = Resolved::Nothing;
            return Some(Step::Done);
        };
        self.argv = std::iter::once(head).chain(u.args).collect();
        None
    }

    /// git's dashed programs: `git-push` from git's exec path runs `git push`.
    fn dashed_git(&mut self, name: &str, raw: &str) -> Option<Step> {
        let sub = name.strip_prefix("git-")?;
        if sub.is_empty() || !(raw.contains("git-core") || GIT_DASHED.contains(&sub)) {
            return None;
        }
        self.run.runners.push(Text::from(name));
        let span = self.argv[0].word.span;
        let mut v = vec![
            Arg::synthetic(self.arena, "git", span),
            Arg::synthetic(self.arena, sub, span),
        ];
        v.extend(self.argv.drain(1..));
        self.argv = v;
        Some(Step::Again)
    }

    /// A runner from [`RUNNERS`] (`strace -f cmd`, `chroot dir cmd`, ...).
    fn runner(&mut self, name: &str) -> Option<Step> {
        if !RUNNER_NAMES.may_contain(name) {
            return None;
        }
        let r = RUNNERS.iter().find(|r| crate::same_name(r.name, name))?;
        match skip_runner(r, &self.argv[1..]) {
            Some(at) => {
                self.run.runners.push(Text::from(r.name));
                self.argv.drain(..=at);
                self.allow_assignments = matches!(r.name, "doas" | "pkexec");
                Some(Step::Again)
            }
            None if self.argv[1..].iter().any(|a| a.value.is_none()) => {
                Some(self.stop(Resolved::Unknown))
            }
            None => None,
        }
    }

    /// `npx pkg`, `pnpm dlx pkg`, ...: the package's binary runs.
    fn package_runner(&mut self, name: &str) -> Option<Step> {
        Some(match package_runner(name, &self.argv)? {
            Some((skip, bin)) => {
                self.run.runners.push(Text::from(name));
                let span = self.argv[0].word.span;
                self.argv.drain(..skip);
                self.argv[0] = Arg::synthetic(self.arena, bin, span);
                Step::Again
            }
            None => self.stop(Resolved::Unknown),
        })
    }

    /// `node <path>/cli.js`: the package the script belongs to.
    fn script_runner(&mut self, name: &str) -> Option<Step> {
        if !matches!(name, "node" | "bun" | "deno") {
            return None;
        }
        // `~/.npm-global/.../node_modules/<pkg>/cli.js`: a run-time folder before the package is
        // still that package (a run-time part after `node_modules/` is refused by the reader).
        let path = self.argv.get(1).and_then(|a| {
            value(a)
                .map(String::from)
                .or_else(|| run_time_parts(&a.word))
        })?;
        let bin = script_package(&path)?;
        self.run.runners.push(Text::from(name));
        let span = self.argv[0].word.span;
        self.argv.drain(..1);
        self.argv[0] = Arg::synthetic(self.arena, bin, span);
        Some(Step::Again)
    }

    /// GNU `parallel`: `parallel ::: 'cmd args'` (each input a command line) or `parallel
    /// cmd ... ::: args`. `None`: no command found (parallel itself is the program).
    fn parallel(&mut self) -> Option<Step> {
        let argv = &self.argv;
        if let Some(list) = argv[1..].iter().position(|a| value(a) == Some(":::")) {
            let opts_only = argv[1..1 + list]
                .iter()
                .all(|a| value(a).is_some_and(|v| v.starts_with('-')));
            if opts_only {
                self.run.runners.push(Text::from("parallel"));
                let line = argv.get(list + 2).and_then(value).map(String::from);
                let span = argv[0].word.span;
                return Some(
                    match line
                        .and_then(|l| shell_words::split(&l).ok())
                        .filter(|w| !w.is_empty())
                    {
                        Some(words) => {
                            self.argv = self.synthetic(words, span);
                            Step::Again
                        }
                        None => self.stop(Resolved::Unknown),
                    },
                );
            }
        }
        let at = parallel_command(&argv[1..])?;
        self.run.runners.push(Text::from("parallel"));
        self.run.args_incomplete = true;
        let mut rest: Vec<Arg<'a>> = self.argv.drain(at + 1..).collect();
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
        self.argv = rest;
        Some(Step::Again)
    }
}
