//! Code or programs a command decides at run time in a way this layer does not model (issue 42):
//! text run as code that holds run-time parts, a shell reading a script nobody can read before it
//! runs, a program word chosen at run time, and bash's own lookup rules that move a name onto
//! other code (`hash -p`, `BASH_CMDS`, `command_not_found_handle`, ...). Each is an
//! [`Opaque`]: what runs there is unknown. A guard decides what that means in its scope
//! (gh-write-guard: `G0.opaque` when the same command reaches a program that could write).
//!
//! Not opaque: what the view or [`crate::program`] reads (`g=git; $g push`, `eval 'git push'`,
//! `cat <<EOF | sh`, `echo 'x' | bash`, a function's `"$@"` judged per call, a script by path);
//! a program named by a variable the command does not set (`"$EDITOR" f`, `$CC -o a a.c`: the
//! maintainer's environment, not the command, chose it); a path whose last part is literal
//! (`"$(npm bin)/eslint"`); text printed by a program that prints its own shell set-up
//! (`eval "$(ssh-agent -s)"`, `source <(kubectl completion bash)`: [`EMITTERS`]).

use shell_syntax::ast::{RedirOp, SimpleCommand, Word, WordPart};
use shell_syntax::view::OriginKind;
use shell_syntax::{CommandView, Invocation, Program};

/// What kind of run-time choice an [`Opaque`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpaqueKind {
    /// A shell (or `source`) runs a script whose text is decided at run time: read from a pipe
    /// whose producer's output is not known, from a run-time path, another descriptor
    /// (`/dev/fd/3`, `<&3`) or `/dev/stdin` with nothing known on it.
    ScriptAtRunTime,
    /// `eval`, `sh -c`, a here-string or a pipe into a shell runs text with run-time parts.
    TextAtRunTime,
    /// The program word is decided at run time by the command: a command substitution,
    /// positional parameters, an array, indirection, a variable the command set to a run-time
    /// value, or an unquoted expansion that may vanish before a program name.
    ProgramAtRunTime,
    /// bash's lookup rules moved by the command (`hash -p`, `BASH_CMDS`, `BASH_ALIASES`,
    /// `BASH_FUNC_*`, `command_not_found_handle`, `enable`, `BASH_ENV`, `PS4`, `set -k`), or a
    /// builtin that runs a command by name (`mapfile -C`, `compgen -C`, `complete -C`).
    Lookup,
}

impl OpaqueKind {
    /// Short name for evidence (`script-at-run-time`).
    pub fn as_str(self) -> &'static str {
        match self {
            OpaqueKind::ScriptAtRunTime => "script-at-run-time",
            OpaqueKind::TextAtRunTime => "text-at-run-time",
            OpaqueKind::ProgramAtRunTime => "program-at-run-time",
            OpaqueKind::Lookup => "lookup",
        }
    }
}

/// One construct whose code is decided at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opaque {
    /// The invocation it is in (for a nested script's text: the one that runs it).
    pub invocation: usize,
    pub kind: OpaqueKind,
    /// What it is, for evidence (`a shell reads its script from the pipe of "curl"`).
    pub what: String,
}

/// Programs that print shell set-up of their own making (exports, completions, hooks): text a
/// command hands them cannot become code there. Text from anything else (`cat`, `echo "$x"`,
/// `curl`, `base64 -d`) is the text of whoever wrote the input.
pub const EMITTERS: &[&str] = &[
    "ssh-agent",
    "gpg-agent",
    "keychain",
    "direnv",
    "pyenv",
    "rbenv",
    "nodenv",
    "goenv",
    "jenv",
    "plenv",
    "phpenv",
    "brew",
    "conda",
    "mamba",
    "micromamba",
    "opam",
    "dircolors",
    "starship",
    "zoxide",
    "fnm",
    "mise",
    "rtx",
    "asdf",
    "luarocks",
    "thefuck",
    "register-python-argcomplete",
    "pipx",
    "docker-machine",
    "minikube",
];

/// Programs that could write somewhere the guards watch: git, gh, an HTTP client, a shell
/// (which runs any of them). `eval` and `source` are not among them: they run text in the
/// command's own shell, which reaches a program only through the words it runs.
pub fn may_write(name: &str) -> bool {
    matches!(name, "git" | "gh")
        || name.starts_with("git-")
        || crate::http::is_http_client(name)
        || shell_syntax::view::is_shell(name)
}

/// Every construct of `view` (the view of `text`) whose code is decided at run time.
pub fn find(view: &CommandView<'_>, text: &str) -> Vec<Opaque> {
    let mut out = Vec::new();
    // An assignment stays in the environment of every later invocation: reported once.
    // Only the names the texts hold at a word boundary are looked up (a look-up per name and
    // invocation costs a walk of the environment in a long script).
    let named: Vec<&str> = LOOKUP_VARS
        .iter()
        .copied()
        .filter(|n| names(text, n) || view.origins.iter().any(|o| names(&o.text, n)))
        .collect();
    let mut lookup_seen = named.is_empty();
    for inv in &view.invocations {
        match &inv.program {
            Program::Dynamic(w) => {
                if let Some(what) = program_at_run_time(inv, w) {
                    out.push(Opaque {
                        invocation: inv.index,
                        kind: OpaqueKind::ProgramAtRunTime,
                        what,
                    });
                }
            }
            Program::Static { name, .. } => {
                if inv.args_incomplete && c_script_missing(inv, name) {
                    // `xargs -a cmds sh -c`: the script is a word xargs adds.
                    out.push(Opaque {
                        invocation: inv.index,
                        kind: OpaqueKind::TextAtRunTime,
                        what: format!("{name} -c runs a script added at run time"),
                    });
                }
                if let Some(what) = script_at_run_time(view, inv, name) {
                    out.push(Opaque {
                        invocation: inv.index,
                        kind: OpaqueKind::ScriptAtRunTime,
                        what,
                    });
                }
                if let Some(what) = lookup_builtin(inv, name) {
                    out.push(Opaque {
                        invocation: inv.index,
                        kind: OpaqueKind::Lookup,
                        what,
                    });
                }
            }
            Program::None => {}
        }
        if lookup_seen {
        } else if let Some(what) = lookup_assignment(inv, &named) {
            lookup_seen = true;
            out.push(Opaque {
                invocation: inv.index,
                kind: OpaqueKind::Lookup,
                what,
            });
        }
        if imports_function(inv) {
            out.push(Opaque {
                invocation: inv.index,
                kind: OpaqueKind::Lookup,
                what: "a BASH_FUNC_ variable defines a function in the shell it starts".into(),
            });
        }
        if inv.context.function == Some("command_not_found_handle") {
            out.push(Opaque {
                invocation: inv.index,
                kind: OpaqueKind::Lookup,
                what: "a command_not_found_handle function runs for any name bash cannot find"
                    .into(),
            });
        }
    }
    if let Some(i) = subscript_code(view, text) {
        out.push(Opaque {
            invocation: i,
            kind: OpaqueKind::Lookup,
            what: "an arithmetic context evaluates an array subscript holding a command \
                   substitution"
                .into(),
        });
    }
    for o in &view.origins {
        if !o.approximate || !runs_text(&o.kind) {
            continue;
        }
        let Some(launcher) = view.invocations.get(o.launcher) else {
            continue;
        };
        if emitted_only(launcher) {
            continue;
        }
        out.push(Opaque {
            invocation: o.launcher,
            kind: OpaqueKind::TextAtRunTime,
            what: format!(
                "{} runs text decided at run time",
                launcher.name().unwrap_or("a shell")
            ),
        });
    }
    out.sort_by_key(|o| o.invocation);
    out.dedup_by(|a, b| a.invocation == b.invocation && a.kind == b.kind);
    out
}

fn runs_text(kind: &OriginKind) -> bool {
    matches!(
        kind,
        OriginKind::Eval
            | OriginKind::ShellC { .. }
            | OriginKind::ShellHereString { .. }
            | OriginKind::ShellPipe { .. }
            | OriginKind::ShellHeredoc { .. }
            | OriginKind::OtherShellString { .. }
    )
}

/// Whether every run-time part of the launcher's words is the output of an [`EMITTERS`]
/// program (`eval "$(ssh-agent -s)"`), or of `<prog> completion ...`.
fn emitted_only(inv: &Invocation<'_>) -> bool {
    let mut any = false;
    for a in inv.args.iter().filter(|a| a.value.is_none()) {
        if !parts_emitted(a.word.parts, &mut any) {
            return false;
        }
    }
    // A pipe into a shell: the producer is the element before it (checked by the caller of
    // `producer_is_emitter`); here the launcher's own words only.
    any
}

fn parts_emitted(parts: &[WordPart<'_>], any: &mut bool) -> bool {
    parts.iter().all(|p| match p {
        WordPart::Literal(_) | WordPart::SingleQuoted(_) | WordPart::AnsiC(_) => true,
        WordPart::DoubleQuoted(inner) | WordPart::Locale(inner) => parts_emitted(inner, any),
        WordPart::CommandSubst(cs) => {
            let ok = cs.script.body.single_simple().is_some_and(is_emitter);
            *any |= ok;
            ok
        }
        WordPart::ProcessSubst {
            output: false,
            script,
        } => {
            let ok = script.body.single_simple().is_some_and(is_emitter);
            *any |= ok;
            ok
        }
        _ => false,
    })
}

/// `ssh-agent -s`, `kubectl completion bash`: static words, a program that prints its own
/// set-up.
fn is_emitter(s: &SimpleCommand<'_>) -> bool {
    if !s.assignments.is_empty() {
        return false;
    }
    let words: Option<Vec<String>> = s.words.iter().map(|w| w.static_value()).collect();
    let Some(words) = words else {
        return false;
    };
    let Some(first) = words.first() else {
        return false;
    };
    let name = shell_syntax::view::normalise_program(first);
    if EMITTERS.contains(&name.as_str()) {
        return true;
    }
    // `<tool> completion bash`, `<tool> completions zsh`: the tool's own completion script.
    !may_write(&name)
        && !PASSES_TEXT.contains(&name.as_str())
        && words
            .get(1)
            .is_some_and(|w| w == "completion" || w == "completions")
}

/// Programs whose output is text given to them (a file, their arguments, their input).
const PASSES_TEXT: &[&str] = &[
    "cat", "echo", "printf", "base64", "base32", "xxd", "od", "rev", "tr", "sed", "awk", "head",
    "tail", "cut", "sort", "uniq", "tac", "gzip", "zcat", "gunzip", "openssl", "python", "python3",
    "perl", "ruby", "node", "jq", "yq", "envsubst", "m4", "xargs", "tee",
];

/// A program word decided at run time by the command itself; `None` for one taken from the
/// maintainer's environment (`"$EDITOR"`), one whose last path part is literal, or a function
/// body's positional parameters (judged per call).
fn program_at_run_time(inv: &Invocation<'_>, w: &Word<'_>) -> Option<String> {
    if literal_basename(w) || crate::program::looked_up(w).is_some() {
        return None;
    }
    let mut why = None;
    word_choice(inv, w.parts, false, &mut why);
    if why.is_none() && may_vanish(inv, w) {
        // `$UNSET git push`: an empty unquoted expansion leaves the next word the program.
        if let Some(next) = inv.args.first().and_then(|a| a.value.as_deref()) {
            let n = shell_syntax::view::normalise_program(next);
            if may_write(&n) || n == "sudo" || n == "env" || n == "command" || n == "exec" {
                why = Some(format!(
                    "an expansion that may be empty leaves {next:?} in the program's place"
                ));
            }
        }
    }
    why.map(|w| format!("the program is decided at run time: {w}"))
}

/// `"$(npm bin)/eslint"`, `$(go env GOROOT)/bin/go`: a literal last path part names the
/// program.
fn literal_basename(w: &Word<'_>) -> bool {
    fn last_literal<'x>(parts: &'x [WordPart<'x>]) -> Option<&'x str> {
        match parts.last()? {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) => Some(s),
            WordPart::DoubleQuoted(inner) => last_literal(inner),
            _ => None,
        }
    }
    last_literal(w.parts).is_some_and(|s| s.contains('/') && !s.ends_with('/'))
}

/// Whether the word is (or holds) an unquoted expansion that may make no word at all; not
/// when one of its variables holds a value the command set that splits into a word (`e=echo;
/// $e gh ...` runs echo: constant propagation, as [`crate::program`] substitutes it).
fn may_vanish(inv: &Invocation<'_>, w: &Word<'_>) -> bool {
    let makes_a_word = |p: &WordPart<'_>| match p {
        WordPart::Param(pe) if pe.op.is_none() && pe.index.is_none() && !pe.indirect => inv
            .env_value(pe.name)
            .and_then(|e| e.value.as_ref())
            .and_then(|a| a.value.as_deref())
            .is_some_and(|v| v.chars().any(|c| !matches!(c, ' ' | '\t' | '\n'))),
        _ => false,
    };
    w.parts.iter().all(|p| {
        matches!(
            p,
            WordPart::Param(_) | WordPart::CommandSubst(_) | WordPart::Glob(_)
        )
    }) && !w.parts.iter().any(makes_a_word)
}

fn word_choice(
    inv: &Invocation<'_>,
    parts: &[WordPart<'_>],
    quoted: bool,
    why: &mut Option<String>,
) {
    for p in parts {
        if why.is_some() {
            return;
        }
        match p {
            WordPart::DoubleQuoted(inner) | WordPart::Locale(inner) => {
                word_choice(inv, inner, true, why)
            }
            WordPart::CommandSubst(_) => {
                *why = Some("a command substitution names it".into());
            }
            WordPart::ProcessSubst { .. } => {
                *why = Some("a process substitution names it".into());
            }
            WordPart::Param(pe) => {
                let positional =
                    matches!(pe.name, "@" | "*") || pe.name.bytes().all(|b| b.is_ascii_digit());
                if positional {
                    // A function's body: `program` reads it per call with the call's words.
                    if inv.context.function.is_none() {
                        *why = Some(format!("the positional parameters (${}) name it", pe.name));
                    }
                } else if pe.index.is_some() {
                    *why = Some(format!("the array {} names it", pe.name));
                } else if pe.indirect {
                    *why = Some(format!("the indirection ${{!{}}} names it", pe.name));
                } else if let Some(e) = inv.env_value(pe.name) {
                    // Set by the command: to a run-time value (a static one `program`
                    // substitutes; an unquoted one it splits; a look-up it names).
                    let run_time = e.value.as_ref().is_none_or(|a| {
                        a.value.is_none() && crate::program::looked_up(&a.word).is_none()
                    });
                    let unquoted_op = !quoted && pe.op.is_some();
                    if run_time || unquoted_op {
                        *why = Some(format!(
                            "the variable {} the command sets names it",
                            pe.name
                        ));
                    }
                }
            }
            _ => {}
        }
    }
}

/// A shell (or `source`/`.`) whose script's text nobody can read before it runs.
fn script_at_run_time(view: &CommandView<'_>, inv: &Invocation<'_>, name: &str) -> Option<String> {
    let sources = name == "source" || name == ".";
    if !sources && !shell_syntax::view::is_shell(name) {
        return None;
    }
    // A script the view walked (its text is in the view): nothing unknown.
    if view.origins.iter().any(|o| o.launcher == inv.index) {
        return None;
    }
    let operand = if sources {
        inv.args.first()
    } else {
        shell_operand(inv)?
    };
    if let Some(a) = operand {
        return match a.value.as_deref() {
            None => {
                if a.word
                    .parts
                    .iter()
                    .any(|p| matches!(p, WordPart::ProcessSubst { .. }))
                {
                    let mut any = false;
                    (!parts_emitted(a.word.parts, &mut any))
                        .then(|| format!("{name} runs the output of a process substitution"))
                } else {
                    Some(format!(
                        "{name} runs a script whose path is decided at run time"
                    ))
                }
            }
            Some(p) if is_descriptor_path(p) => {
                stdin_at_run_time(view, inv, p).map(|from| format!("{name} runs {p} ({from})"))
            }
            Some(_) => None,
        };
    }
    // No operand: a shell reads its script on stdin.
    stdin_at_run_time(view, inv, "-").map(|from| format!("{name} reads its script from {from}"))
}

/// A shell given `-c` with no script word after it.
fn c_script_missing(inv: &Invocation<'_>, name: &str) -> bool {
    if !shell_syntax::view::is_shell(name) {
        return false;
    }
    let mut c_at = None;
    for (i, a) in inv.args.iter().enumerate() {
        match a.value.as_deref() {
            Some(v) if v.starts_with('-') && !v.starts_with("--") && v[1..].contains('c') => {
                c_at = Some(i);
                break;
            }
            Some(v) if v.starts_with('-') || v.starts_with('+') => {}
            _ => break,
        }
    }
    c_at.is_some_and(|i| i + 1 == inv.args.len())
}

/// The first operand of a shell: `Some(None)` when it reads stdin (`-s`, none), `None` when it
/// runs `-c` text (the view's business).
#[allow(clippy::option_option)]
fn shell_operand<'x, 'a>(inv: &'x Invocation<'a>) -> Option<Option<&'x shell_syntax::Arg<'a>>> {
    let mut skip_next = false;
    let mut after_dashdash = false;
    for a in &inv.args {
        if skip_next {
            skip_next = false;
            continue;
        }
        let Some(v) = a.value.as_deref() else {
            return Some(Some(a));
        };
        if after_dashdash || v == "-" {
            return Some(Some(a)).filter(|_| v != "-").or(Some(None));
        }
        if v == "--" {
            after_dashdash = true;
            continue;
        }
        if v.starts_with("--") {
            if matches!(v, "--rcfile" | "--init-file") {
                skip_next = true;
            }
            continue;
        }
        if v.starts_with('-') || v.starts_with('+') {
            let flags = &v[1..];
            if flags.contains('c') {
                return None;
            }
            if flags.contains('s') {
                return Some(None);
            }
            if flags.contains('o') || flags.contains('O') {
                skip_next = true;
            }
            continue;
        }
        return Some(Some(a));
    }
    Some(None)
}

/// `/dev/stdin`, `/dev/fd/3`, `/proc/self/fd/3`: a script read from a descriptor.
fn is_descriptor_path(p: &str) -> bool {
    p == "/dev/stdin"
        || p.starts_with("/dev/fd/")
        || (p.starts_with("/proc/") && p.contains("/fd/"))
}

/// Where the script on `fd_path` (`-` or `/dev/stdin`: fd 0) comes from when its text is not
/// known; `None` when it is empty or a file by path (read as a script by path).
fn stdin_at_run_time(
    view: &CommandView<'_>,
    inv: &Invocation<'_>,
    fd_path: &str,
) -> Option<String> {
    let fd: u32 = match fd_path {
        "-" | "/dev/stdin" => 0,
        p => p.rsplit('/').next().and_then(|n| n.parse().ok())?,
    };
    if let Some(r) = inv.redirects.iter().rev().find(|r| r.fd == Some(fd)) {
        return match r.op {
            RedirOp::In | RedirOp::ReadWrite => match r.target.value.as_deref() {
                Some("/dev/null") => None,
                // A file by path: read as a script by path when it is fd 0.
                Some(p) if fd == 0 && !is_descriptor_path(p) => None,
                Some(p) => Some(format!("the file {p} on descriptor {fd}")),
                None => Some("a file whose path is decided at run time".into()),
            },
            RedirOp::Heredoc | RedirOp::HeredocStrip | RedirOp::HereString => {
                Some(format!("a heredoc or here-string on descriptor {fd}"))
            }
            _ => Some(format!("descriptor {fd}, a copy of another descriptor")),
        };
    }
    if fd != 0 {
        return Some(format!("descriptor {fd}, opened elsewhere"));
    }
    if inv.context.pipeline.is_none_or(|p| p.index == 0) {
        return None;
    }
    let Some(prev) = crate::scripts::pipe_producer(view, inv) else {
        return Some("a pipe".into());
    };
    match (prev.name(), prev.args.as_slice()) {
        // `cat x.sh | sh`: a script by path.
        (Some("cat"), [file]) if file.value.is_some() => None,
        (Some(n), _) if EMITTERS.contains(&n) => None,
        (Some(n), _) => Some(format!("the pipe of {n:?}")),
        (None, _) => Some("the pipe of a program decided at run time".into()),
    }
}

/// `x='a[$(git push)]'; (( x ))`: bash evaluates a variable's text as an arithmetic
/// expression in `(( ))`, `$(( ))`, `[[ -eq ]]`, `let`, `declare -i`, `printf -v`, `read`, and
/// an array subscript in it runs its command substitution (checked with bash). The first
/// arithmetic context of a command that holds literal text with a substitution inside
/// brackets; `None` otherwise.
fn subscript_code(view: &CommandView<'_>, text: &str) -> Option<usize> {
    // A cheap look at the texts first: most commands hold no `[$(` at all.
    let code = |v: &str| v.contains("[$(") || v.contains("[`") || v.contains("[\"$(");
    if !code(text) && !view.origins.iter().any(|o| code(&o.text)) {
        return None;
    }
    let arith_word = |a: &shell_syntax::Arg<'_>| {
        fn has(parts: &[WordPart<'_>]) -> bool {
            parts.iter().any(|p| match p {
                WordPart::Arith(_) => true,
                WordPart::DoubleQuoted(inner) => has(inner),
                _ => false,
            })
        }
        has(a.word.parts)
    };
    view.invocations
        .iter()
        .find(|inv| {
            let vals = inv.arg_values();
            let flag = |c: char| {
                vals.iter()
                    .any(|v| v.is_some_and(|v| v.starts_with('-') && v[1..].contains(c)))
            };
            let arith = match inv.kind {
                shell_syntax::view::InvocationKind::ArithCommand => true,
                shell_syntax::view::InvocationKind::TestClause => vals
                    .iter()
                    .any(|v| matches!(*v, Some("-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge"))),
                _ => match inv.name() {
                    Some("let" | "read" | "unset") => true,
                    Some("declare" | "typeset" | "local") => flag('i'),
                    Some("printf") => flag('v'),
                    _ => false,
                },
            };
            arith || inv.args.iter().any(arith_word)
        })
        .map(|inv| inv.index)
}

/// Builtins that move bash's lookup or run a command by name.
fn lookup_builtin(inv: &Invocation<'_>, name: &str) -> Option<String> {
    if !matches!(
        name,
        "hash" | "enable" | "mapfile" | "readarray" | "compgen" | "complete" | "set"
    ) {
        return None;
    }
    let vals: Vec<Option<&str>> = inv.arg_values();
    let flag = |c: char| {
        vals.iter().any(|v| {
            v.is_some_and(|v| v.starts_with('-') && !v.starts_with("--") && v[1..].contains(c))
        })
    };
    match name {
        "hash" if flag('p') => Some("hash -p binds a name to another program".into()),
        // `enable`, `enable -a`, `enable -p`: listings.
        "enable" if !(vals.is_empty() || flag('a') || flag('p')) => {
            Some("enable loads or disables builtins".into())
        }
        "mapfile" | "readarray" if flag('C') => Some(format!("{name} -C runs a callback")),
        "compgen" | "complete" if flag('C') || flag('F') => {
            Some(format!("{name} -C/-F runs a command by name"))
        }
        "set"
            if flag('k')
                || vals
                    .windows(2)
                    .any(|w| w[0] == Some("-o") && w[1] == Some("keyword")) =>
        {
            Some("set -k makes any assignment word an environment entry".into())
        }
        _ => None,
    }
}

/// `env 'BASH_FUNC_ls%%=() { ...; }' bash -c ls`: a word `env` takes as an assignment that the
/// view (which wants a name) reads as the program.
fn imports_function(inv: &Invocation<'_>) -> bool {
    let named = |v: &str| v.starts_with("BASH_FUNC_") && v.contains('=');
    matches!(&inv.program, Program::Static { raw, .. } if named(raw))
        || inv
            .wrappers
            .iter()
            .any(|w| w.args.iter().any(|a| a.value.as_deref().is_some_and(named)))
}

/// Variables whose value bash turns into code or into where a name leads.
fn lookup_assignment(inv: &Invocation<'_>, named: &[&str]) -> Option<String> {
    // A look-up per name (the environment's name set answers most without a walk): this runs
    // for every invocation.
    for n in named {
        let Some(v) = inv.env_value(n) else {
            continue;
        };
        if v.source == shell_syntax::view::EnvSource::Unset {
            continue;
        }
        // `PS4` is expanded for every traced command: code only through a substitution or
        // an array subscript.
        let value = v.value.as_ref().and_then(|a| a.value.as_deref());
        if *n == "PS4"
            && value.is_some_and(|x| !x.contains("$(") && !x.contains('`') && !x.contains('['))
        {
            continue;
        }
        // Only the command's own assignments are in the view's environment.
        return Some(format!("{n} set by the command changes what bash runs"));
    }
    None
}

/// Whether `text` holds `name` as a whole word (not inside `NODE_ENV`).
fn names(text: &str, name: &str) -> bool {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = text.as_bytes();
    text.match_indices(name).any(|(at, _)| {
        (at == 0 || !ident(b[at - 1])) && b.get(at + name.len()).is_none_or(|&c| !ident(c))
    })
}

/// Variables whose value bash turns into code or into where a name leads.
const LOOKUP_VARS: &[&str] = &[
    "BASH_CMDS",
    "BASH_ALIASES",
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PROMPT_COMMAND",
    "PS4",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(cmd: &str) -> Vec<OpaqueKind> {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        find(&v, cmd).into_iter().map(|o| o.kind).collect()
    }

    #[test]
    fn run_time_choices_are_opaque() {
        use OpaqueKind::*;
        for (cmd, k) in [
            ("echo \"$CMD\" | sh", TextAtRunTime),
            ("curl -s https://x.example/i.sh | bash", ScriptAtRunTime),
            ("base64 -d <<<Z2l0 | sh", ScriptAtRunTime),
            ("bash -s < \"$f\"", ScriptAtRunTime),
            ("bash /dev/fd/3 3<<'EOF'\ngit push\nEOF", ScriptAtRunTime),
            ("source /proc/self/fd/3", ScriptAtRunTime),
            ("eval \"$CMD\"", TextAtRunTime),
            ("sh -c \"$(cat cmd.txt)\"", TextAtRunTime),
            ("\"$(cat prog)\" push", ProgramAtRunTime),
            ("a=(git push); \"${a[@]}\"", ProgramAtRunTime),
            ("p=$(cat f); $p push", ProgramAtRunTime),
            ("\"$@\"", ProgramAtRunTime),
            ("$NOPE git push origin main", ProgramAtRunTime),
            ("hash -p /tmp/x ls", Lookup),
            ("BASH_CMDS[ls]=/tmp/x; ls", Lookup),
            ("command_not_found_handle() { git push; }; nosuch", Lookup),
            ("set -k; ls", Lookup),
            ("mapfile -C f -c 1 a < x", Lookup),
            ("xargs -a cmds.txt sh -c", TextAtRunTime),
            ("x='a[$(git push)]'; (( x ))", Lookup),
            ("x='a[$(git push)]'; [[ $x -eq 0 ]]", Lookup),
            ("let 'a[$(git push)]'", Lookup),
            ("printf -v 'a[`git push`]' x", Lookup),
            ("x='a[$(git push)]'; echo $(( x ))", Lookup),
        ] {
            assert!(kinds(cmd).contains(&k), "{cmd}: {:?}", kinds(cmd));
        }
    }

    #[test]
    fn ordinary_commands_are_not_opaque() {
        for cmd in [
            "\"$EDITOR\" README.md",
            "\"$(command -v git)\" push",
            "p=$(which gh); $p pr view",
            "$CC -o hello hello.c",
            "${CARGO:-cargo} build",
            "$(go env GOROOT)/bin/go version",
            "\"$(npm bin)/eslint\" src",
            "eval \"$(ssh-agent -s)\"",
            "eval \"$(direnv hook bash)\"",
            "source <(kubectl completion bash)",
            "eval 'export RUST_LOG=debug'",
            "g=git; $g push origin main",
            "cat <<EOF | sh\ngit status\nEOF",
            "echo 'cargo test' | bash",
            "cat x.sh | sh",
            "sh < x.sh",
            "bash x.sh",
            "retry() { \"$@\"; }; retry git status",
            "sh < /dev/null",
            "bash",
            "hash -r",
            "set -euo pipefail",
            "mapfile -t lines < f",
            "x='a[$(git push)]'; [ $x -eq 0 ]",
            "for ((i=0; i<3; i++)); do echo \"$i\"; done",
        ] {
            assert!(kinds(cmd).is_empty(), "{cmd}: {:?}", kinds(cmd));
        }
    }
}
