//! Nested scripts: text a command hands to a shell (`eval`, `sh -c`, heredoc/here-string/pipe
//! into a shell, `watch`, `flock -c`, `su -c`), parsed into the parse's arena and walked as
//! part of the view.

use super::producers::{list_output, producer_text};
use super::wrappers;
use super::*;

impl<'a> Walker<'a, '_> {
    /// `eval`, shells with `-c` or reading stdin.
    pub(super) fn nested_for_program(
        &mut self,
        idx: usize,
        name: &str,
        own: &[AppliedRedirect<'a>],
        prev: Option<&Command<'a>>,
        ctx: &Ctx<'a>,
    ) {
        if !runs_scripts(name) {
            return;
        }
        let args = self.out.invocations[idx].args.clone();
        if name == "eval" {
            // `eval -- 'git push'`: bash's eval takes `--` as the end of its options.
            let args = match args.first().and_then(|a| a.value.as_deref()) {
                Some("--") => &args[1..],
                _ => &args[..],
            };
            if !args.is_empty() {
                self.nested_from_args(idx, OriginKind::Eval, args, ctx);
            }
            return;
        }
        if let Some(words) = other_shell_string(name, &args) {
            self.other_shell_script(idx, name, words, ctx);
            return;
        }
        if let Some(codes) = interpreter_code(name, &args) {
            self.interpreter_scripts(idx, name, &codes, ctx);
            return;
        }
        self.shell_script(idx, name, &args, own, prev, ctx);
    }

    /// The command string of a program that runs one through a shell (`su -c`, `watch`,
    /// `screen`, `tmux new`...).
    fn other_shell_script(
        &mut self,
        idx: usize,
        name: &str,
        mut words: Vec<Arg<'a>>,
        ctx: &Ctx<'a>,
    ) {
        // `screen cmd args` and `tmux new cmd args` pass words (tmux joins them, screen
        // execs them): quoted again so `sh -c 'a b'` stays three words.
        let argv_like = matches!(name, "screen" | "tmux") && words.len() > 1;
        if argv_like {
            if let Some(vals) = words
                .iter()
                .map(|a| a.value.as_deref())
                .collect::<Option<Vec<&str>>>()
            {
                let joined = shell_words::join(vals);
                let span = words[0].word.span;
                words = vec![Arg::synthetic(self.arena, joined, span)];
            }
        }
        let kind = OriginKind::OtherShellString {
            program: name.to_string(),
        };
        // A trap handler runs later, any number of times: what it assigns may or may not be.
        let later = usize::from(name == "trap");
        self.branch_depth += later;
        self.nested_from_args(idx, kind, &words, ctx);
        self.branch_depth -= later;
    }

    /// The code an interpreter runs (`python3 -c '...'`).
    fn interpreter_scripts(&mut self, idx: usize, name: &str, codes: &str, ctx: &Ctx<'a>) {
        // `python3 -c 'os.system("git push")'`: each string literal of the code is
        // walked as a script (what the code hands to a shell is one of them).
        for text in string_literals(codes) {
            let kind = OriginKind::OtherShellString {
                program: name.to_string(),
            };
            let arg = Arg::synthetic(self.arena, text, self.out.invocations[idx].span);
            self.nested_from_args(idx, kind, &[arg], ctx);
        }
    }

    /// The script of a shell, `at`/`batch` or `source`: from a process substitution, `-c`,
    /// its stdin redirection or the previous pipeline element.
    fn shell_script(
        &mut self,
        idx: usize,
        name: &str,
        args: &[Arg<'a>],
        own: &[AppliedRedirect<'a>],
        prev: Option<&Command<'a>>,
        ctx: &Ctx<'a>,
    ) {
        let sources = name == "source" || name == ".";
        if sources {
            // `source <(...)`, `. /dev/stdin <<< '...'`.
            match args.first() {
                Some(a) if a.value.as_deref() == Some("/dev/stdin") => {}
                Some(a) => {
                    if let Some(t) = self.process_subst_text(a) {
                        let kind = OriginKind::OtherShellString {
                            program: name.to_string(),
                        };
                        self.nested_from_args(idx, kind, &t, ctx);
                    }
                    return;
                }
                None => return,
            }
        } else if !is_shell(name) && !matches!(name, "at" | "batch") {
            return;
        }
        // `bash <(echo '...')`: the script is a process substitution's output.
        if !sources && is_shell(name) {
            if let Some(t) = args
                .iter()
                .find(|a| a.value.as_deref().is_none_or(|v| !v.starts_with('-')))
                .and_then(|a| self.process_subst_text(a))
            {
                let kind = OriginKind::ShellPipe {
                    shell: name.to_string(),
                };
                self.nested_from_args(idx, kind, &t, ctx);
                return;
            }
        }
        let shell_args: &[Arg<'a>] = if sources || !is_shell(name) {
            &[]
        } else {
            args
        };
        match wrappers::shell_command_string(shell_args) {
            Ok(Some(cmd)) => {
                let kind = OriginKind::ShellC {
                    shell: name.to_string(),
                };
                // `bash -c 'git push origin "$1"' _ main`: the words after the script are
                // `$0`, `$1`, ...
                let at = shell_args.iter().position(|a| std::ptr::eq(a, cmd));
                self.positionals = at.map(|i| shell_args[i + 1..].to_vec());
                let cmd = cmd.clone();
                self.nested_from_args(idx, kind, std::slice::from_ref(&cmd), ctx);
                return;
            }
            Ok(None) => {}
            Err(()) => return,
        }
        if !sources && is_shell(name) && !wrappers::shell_reads_stdin(args) {
            return;
        }
        if self.stdin_script(idx, name, own, ctx) {
            return;
        }
        // Script from the previous pipeline element: `cat <<EOF | sh`, `echo 'x' | bash`,
        // `{ echo a; echo b; } | sh`.
        let text_args = match prev {
            Some(Command::Simple(p)) => producer_text(self.arena, p),
            Some(Command::Compound(cc)) => super::producers::group_output(self.arena, cc),
            _ => return,
        };
        if let Some(t) = text_args {
            let kind = OriginKind::ShellPipe {
                shell: name.to_string(),
            };
            self.nested_from_args(idx, kind, &t, ctx);
        }
    }

    /// The script a shell reads from its own stdin redirection (the last one wins); false
    /// when it has none.
    fn stdin_script(
        &mut self,
        idx: usize,
        name: &str,
        own: &[AppliedRedirect<'a>],
        ctx: &Ctx<'a>,
    ) -> bool {
        let stdin = own.iter().rev().find(|r| {
            r.fd == Some(0)
                && matches!(
                    r.op,
                    RedirOp::Heredoc
                        | RedirOp::HeredocStrip
                        | RedirOp::HereString
                        | RedirOp::In
                        | RedirOp::DupIn
                        | RedirOp::ReadWrite
                )
        });
        let Some(r) = stdin else {
            return false;
        };
        match (&r.heredoc, r.op) {
            (Some(h), _) => {
                let kind = OriginKind::ShellHeredoc {
                    shell: name.to_string(),
                };
                let body = Arg::new(h.body);
                self.nested_from_args(idx, kind, &[body], ctx);
            }
            (None, RedirOp::HereString) => {
                let kind = OriginKind::ShellHereString {
                    shell: name.to_string(),
                };
                let t = r.target.clone();
                self.nested_from_args(idx, kind, &[t], ctx);
            }
            // `bash < <(echo '...')`: the output of a process substitution on stdin.
            (None, RedirOp::In) => {
                if let Some(t) = self.process_subst_text(&r.target) {
                    let kind = OriginKind::ShellPipe {
                        shell: name.to_string(),
                    };
                    self.nested_from_args(idx, kind, &t, ctx);
                }
            }
            _ => {}
        }
        true
    }

    /// Parse the words (joined with spaces) as a script run by invocation `idx`, and walk it.
    /// The script is parsed into the arena, so the invocations found in it can borrow it.
    pub(super) fn nested_from_args(
        &mut self,
        idx: usize,
        kind: OriginKind,
        words: &[Arg<'a>],
        ctx: &Ctx<'a>,
    ) {
        let positionals = self.positionals.take();
        if self.out.error.is_some() {
            return;
        }
        if ctx.origin.len() >= self.opts.max_nesting {
            self.out.error = Some(ViewError::TooManyNestedScripts(self.opts.max_nesting));
            return;
        }
        let mut approximate = false;
        let launcher_env = &self.out.invocations[idx].env;
        let arena = self.arena;
        let text = words
            .iter()
            .map(|a| match &a.value {
                Some(v) => v.to_string(),
                None => {
                    let (t, exact) = approximate_text(arena, &a.word, launcher_env);
                    approximate |= !exact;
                    t
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        self.nested_bytes += text.len();
        if self.nested_bytes > self.opts.max_nested_bytes {
            self.out.error = Some(ViewError::NestedTooLarge(self.opts.max_nested_bytes));
            return;
        }
        let (script, error) = crate::parser::parse_in(self.arena, &text, &self.opts.limits);
        let id = self.out.origins.len();
        self.out.origins.push(OriginFrame {
            id,
            kind,
            parent: ctx.origin.last().copied(),
            launcher: idx,
            text,
            approximate,
        });
        if let Some(e) = error {
            self.out.nested_errors.push(NestedError {
                origin: id,
                error: e,
            });
        }
        let launcher = &self.out.invocations[idx];
        let mut c = ctx.clone();
        c.origin.push(id);
        c.time_keyword = false;
        c.context.pipeline = None;
        c.redirects = Rc::new(as_launcher(&launcher.redirects));
        // The launcher's environment and directory are inherited.
        let (env, dropped) = launcher.env.to_chain();
        let mut sub = Scope {
            cds: launcher.cds.clone(),
            env,
            exec_redirects: Vec::new(),
            truncated: launcher.scope_truncated || dropped,
        };
        if let Some(p) = positionals {
            // The launcher's own positionals, if it had some, are not the new shell's.
            let reset = launcher.env.get("0").is_some();
            set_positionals(&mut sub, p, reset);
        }
        self.and_or_level += 1;
        self.list(&script.body, &mut sub, &c);
        self.and_or_level -= 1;
        self.nested_scope = Some(sub);
    }
}

/// Most positional parameters kept for a nested shell (`$0`..`$9`; `${10}` and beyond stay
/// run-time words).
const POSITIONALS: usize = 10;

/// The positional parameters of a new shell, as entries of its environment (`$1` is looked up
/// like `$B`; passed on to a new shell like an export, so an inner `bash -c` without words of
/// its own gets its own, unset, ones: `reset`).
fn set_positionals<'a>(sub: &mut Scope<'a>, words: Vec<Arg<'a>>, reset: bool) {
    if words.is_empty() && !reset {
        return;
    }
    // `$#`, for `"$@"` (`view::constants`): known only when every parameter is kept.
    let count = words.len().saturating_sub(1);
    sub.push_env(EnvVar {
        name: "#".into(),
        value: (count < POSITIONALS).then(|| Arg {
            word: Word {
                parts: &[],
                span: Span::new(0, 0),
            },
            value: Some(count.to_string().into()),
        }),
        source: EnvSource::Export,
    });
    let mut words = words.into_iter();
    for n in 0..POSITIONALS {
        let value = words.next();
        if value.is_none() && !reset {
            break;
        }
        let source = if value.is_some() {
            EnvSource::Export
        } else {
            EnvSource::Unset
        };
        sub.push_env(EnvVar {
            name: n.to_string().into(),
            value,
            source,
        });
    }
}

/// Text for a dynamic word handed to a shell: static parts as they are, a parameter with a
/// static value in the launcher's environment as that value (`x='git push'; eval "$x"`), a
/// command substitution of `echo`/`printf` with static words as its output, and every other
/// run-time part as `${__shell_syntax_dynamic__}`. The flag says whether nothing was
/// approximated.
fn approximate_text(arena: &bumpalo::Bump, w: &Word<'_>, env: &Env<'_>) -> (String, bool) {
    let mut out = String::new();
    let mut exact = true;
    approx_parts(arena, w.parts, env, &mut out, &mut exact);
    (out, exact)
}

fn approx_parts(
    arena: &bumpalo::Bump,
    parts: &[WordPart<'_>],
    env: &Env<'_>,
    out: &mut String,
    exact: &mut bool,
) {
    for p in parts {
        match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => {
                out.push_str(s)
            }
            WordPart::DoubleQuoted(ps) | WordPart::Locale(ps) => {
                approx_parts(arena, ps, env, out, exact)
            }
            WordPart::Param(pe)
                if pe.op.is_none() && pe.index.is_none() && !pe.length && !pe.indirect =>
            {
                let value = env.get(pe.name).and_then(|e| e.value.as_ref());
                match value.and_then(|a| a.value.as_deref()) {
                    Some(v) => out.push_str(v),
                    // `c="git push origin HEAD:$(echo main)"; eval "$c"`: the assigned word is
                    // literal text and substitutions of known output.
                    None => match value.and_then(|a| super::producers::word_output(&a.word)) {
                        Some(v) => out.push_str(&v),
                        None => placeholder(out, exact),
                    },
                }
            }
            WordPart::CommandSubst(cs) => {
                match super::producers::substitution_output(cs).or_else(|| {
                    cs.script
                        .body
                        .single_simple()
                        .and_then(|c| producer_text(arena, c))
                        .and_then(|args| joined_static(&args))
                        .map(|t| t.trim_end_matches('\n').to_string())
                }) {
                    Some(t) => out.push_str(&t),
                    None => placeholder(out, exact),
                }
            }
            _ => placeholder(out, exact),
        }
    }
}

fn placeholder(out: &mut String, exact: &mut bool) {
    *exact = false;
    out.push_str("${");
    out.push_str(DYNAMIC_PLACEHOLDER);
    out.push('}');
}

fn joined_static(args: &[Arg<'_>]) -> Option<String> {
    let vals: Option<Vec<&str>> = args.iter().map(|a| a.value.as_deref()).collect();
    Some(vals?.join(" "))
}

/// `su -c 'cmd'`, `runuser -l u -c 'cmd'`, `script -qc 'cmd' file`, `trap 'cmd' SIG`, `tmux
/// new -d 'cmd'` / `tmux send-keys 'cmd' Enter`, `screen -dm cmd ...`: the words of the command
/// string a shell runs.
fn other_shell_string<'a>(name: &str, args: &[Arg<'a>]) -> Option<Vec<Arg<'a>>> {
    match name {
        "su" | "runuser" | "script" => command_option(name, args),
        "trap" => trap_handler(args),
        "tmux" => tmux_command(args),
        "screen" => screen_command(args),
        _ => None,
    }
}

/// The `-c`/`--command` operand of `su`, `runuser` or `script`.
fn command_option<'a>(name: &str, args: &[Arg<'a>]) -> Option<Vec<Arg<'a>>> {
    for (i, arg) in args.iter().enumerate() {
        match arg.value.as_deref() {
            Some("-c") | Some("--command") => return args.get(i + 1).map(|a| vec![a.clone()]),
            Some(v) if v.starts_with("--command=") => {
                let mut a = arg.clone();
                a.value = Some(v["--command=".len()..].into());
                return Some(vec![a]);
            }
            // `-qc 'cmd'`: a cluster ending in `c` takes the next word.
            Some(v)
                if name == "script"
                    && v.starts_with('-')
                    && !v.starts_with("--")
                    && v.ends_with('c') =>
            {
                return args.get(i + 1).map(|a| vec![a.clone()]);
            }
            _ => {}
        }
    }
    None
}

/// The handler `trap 'cmd' SIG...` sets (it runs later, in this shell).
fn trap_handler<'a>(args: &[Arg<'a>]) -> Option<Vec<Arg<'a>>> {
    let rest: Vec<&Arg<'a>> = args
        .iter()
        .skip_while(|a| matches!(a.value.as_deref(), Some("-l") | Some("-p") | Some("--")))
        .collect();
    // `trap SIG` and `trap - SIG` reset; `trap 'cmd' SIG...` sets a handler that runs.
    match rest.as_slice() {
        [cmd, _, ..] if cmd.value.as_deref() != Some("-") => Some(vec![(*cmd).clone()]),
        _ => None,
    }
}

/// The command words of a `tmux` subcommand that runs one (`new`, `send-keys`, `run-shell`...).
fn tmux_command<'a>(args: &[Arg<'a>]) -> Option<Vec<Arg<'a>>> {
    let sub_at = args
        .iter()
        .position(|a| a.value.as_deref().is_none_or(|v| !v.starts_with('-')))?;
    let sub = args[sub_at].value.as_deref()?;
    let valued = "stnFcxyelLSpPTfw";
    let mut i = sub_at + 1;
    while i < args.len() {
        let Some(v) = args[i].value.as_deref() else {
            break;
        };
        if v == "--" {
            i += 1;
            break;
        }
        if !v.starts_with('-') || v.len() < 2 {
            break;
        }
        if v[1..].chars().last().is_some_and(|c| valued.contains(c)) {
            i += 1;
        }
        i += 1;
    }
    let mut words: Vec<Arg<'a>> = args.get(i..)?.to_vec();
    match sub {
        "new-session" | "new" | "new-window" | "neww" | "split-window" | "splitw"
        | "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" | "run-shell" | "run" => {}
        "send-keys" | "send" => {
            words.retain(|a| !matches!(a.value.as_deref(), Some("Enter" | "C-m" | "KPEnter")));
        }
        _ => return None,
    }
    (!words.is_empty()).then_some(words)
}

/// The command words `screen` runs, after its options.
fn screen_command<'a>(args: &[Arg<'a>]) -> Option<Vec<Arg<'a>>> {
    let valued = [
        "-S", "-c", "-e", "-h", "-p", "-T", "-s", "-t", "-L", "-Logfile",
    ];
    let mut i = 0;
    while i < args.len() {
        let Some(v) = args[i].value.as_deref() else {
            break;
        };
        if !v.starts_with('-') {
            break;
        }
        if valued.contains(&v) || (v.starts_with("-dmS") && v.len() == 4) {
            i += 1;
        }
        if v == "-X" || v == "-r" || v == "-x" || v == "-ls" || v == "-list" {
            return None;
        }
        i += 1;
    }
    let words = args.get(i..)?.to_vec();
    (!words.is_empty()).then_some(words)
}

/// The code an interpreter runs from its command line (`python3 -c CODE`, `perl -e CODE`,
/// `node --eval CODE`: the table in [`super::interpreters`]), static parts only.
fn interpreter_code(name: &str, args: &[Arg<'_>]) -> Option<String> {
    let options = super::interpreter(name)?.code_options;
    let mut code = String::new();
    for (i, a) in args.iter().enumerate() {
        if a.value.as_deref().is_some_and(|v| options.contains(&v)) {
            if let Some(c) = args.get(i + 1) {
                code.push_str(&c.value.clone().map(String::from).unwrap_or_default());
                code.push('\n');
            }
        }
    }
    (!code.is_empty()).then_some(code)
}

/// The string literals of some code (`"..."`, `'...'`, `` `...` ``), unescaped simply.
fn string_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() && out.len() < 64 {
        let q = b[i];
        if q == b'"' || q == b'\'' || q == b'`' {
            let mut j = i + 1;
            let mut s = Vec::new();
            while j < b.len() && b[j] != q {
                if b[j] == b'\\' && j + 1 < b.len() {
                    j += 1;
                }
                s.push(b[j]);
                j += 1;
            }
            if let Ok(t) = String::from_utf8(s) {
                if t.contains(' ') {
                    out.push(t);
                }
            }
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// Programs [`Walker::nested_for_program`] may find a script in (checked before cloning
/// anything: this runs for every simple command).
pub(super) fn runs_scripts(name: &str) -> bool {
    is_shell(name)
        || matches!(
            name,
            "eval"
                | "su"
                | "runuser"
                | "script"
                | "trap"
                | "tmux"
                | "screen"
                | "source"
                | "."
                | "at"
                | "batch"
        )
        || super::is_interpreter(name)
}

impl<'a> Walker<'a, '_> {
    /// For a word that is one process substitution (`<(echo '...')`): what its command writes.
    fn process_subst_text(&self, a: &Arg<'a>) -> Option<Vec<Arg<'a>>> {
        let [WordPart::ProcessSubst {
            script,
            output: false,
        }] = a.word.parts
        else {
            return None;
        };
        list_output(self.arena, &script.body, a.word.span)
    }
}
