//! Nested scripts: text a command hands to a shell (`eval`, `sh -c`, heredoc/here-string/pipe
//! into a shell, `watch`, `flock -c`, `su -c`), parsed into the parse's arena and walked as
//! part of the view.

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
            if !args.is_empty() {
                self.nested_from_args(idx, OriginKind::Eval, &args, ctx);
            }
            return;
        }
        if name == "su" {
            if let Some(pos) = args
                .iter()
                .position(|a| matches!(a.value.as_deref(), Some("-c") | Some("--command")))
            {
                if let Some(cmd) = args.get(pos + 1) {
                    let kind = OriginKind::OtherShellString {
                        program: "su".into(),
                    };
                    self.nested_from_args(idx, kind, std::slice::from_ref(cmd), ctx);
                }
            }
            return;
        }
        if !is_shell(name) {
            return;
        }
        match wrappers::shell_command_string(&args) {
            Ok(Some(cmd)) => {
                let kind = OriginKind::ShellC {
                    shell: name.to_string(),
                };
                let cmd = cmd.clone();
                self.nested_from_args(idx, kind, std::slice::from_ref(&cmd), ctx);
                return;
            }
            Ok(None) => {}
            Err(()) => return,
        }
        if !wrappers::shell_reads_stdin(&args) {
            return;
        }
        // Script from the shell's own stdin redirection (the last one wins).
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
        if let Some(r) = stdin {
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
                _ => {}
            }
            return;
        }
        // Script from the previous pipeline element: `cat <<EOF | sh`, `echo 'x' | bash`.
        let Some(Command::Simple(p)) = prev else {
            return;
        };
        let pargv: Vec<Arg<'a>> = p.words.iter().map(|&w| Arg::new(w)).collect();
        let pname = pargv
            .first()
            .and_then(|a| a.value.as_deref())
            .map(normalise_program);
        let text_args: Option<Vec<Arg<'a>>> = match pname.as_deref() {
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
                    .skip_while(|a| {
                        matches!(a.value.as_deref(), Some("-n") | Some("-e") | Some("-E"))
                    })
                    .cloned()
                    .collect();
                (!rest.is_empty()).then_some(rest)
            }
            Some("printf") if pargv.len() == 2 => Some(vec![pargv[1].clone()]),
            _ => None,
        };
        if let Some(t) = text_args {
            let kind = OriginKind::ShellPipe {
                shell: name.to_string(),
            };
            self.nested_from_args(idx, kind, &t, ctx);
        }
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
        if self.out.error.is_some() {
            return;
        }
        if ctx.origin.len() >= self.opts.max_nesting {
            self.out.error = Some(ViewError::TooManyNestedScripts(self.opts.max_nesting));
            return;
        }
        let mut approximate = false;
        let text = words
            .iter()
            .map(|a| match &a.value {
                Some(v) => v.to_string(),
                None => {
                    approximate = true;
                    approximate_text(&a.word)
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
        self.and_or_level += 1;
        self.list(&script.body, &mut sub, &c);
        self.and_or_level -= 1;
    }
}

/// Text for a dynamic word handed to a shell: static parts as they are, each run-time part as
/// `${__shell_syntax_dynamic__}`.
fn approximate_text(w: &Word<'_>) -> String {
    let mut out = String::new();
    approx_parts(w.parts, &mut out);
    out
}

fn approx_parts(parts: &[WordPart<'_>], out: &mut String) {
    for p in parts {
        match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => {
                out.push_str(s)
            }
            WordPart::DoubleQuoted(ps) | WordPart::Locale(ps) => approx_parts(ps, out),
            _ => {
                out.push_str("${");
                out.push_str(DYNAMIC_PLACEHOLDER);
                out.push('}');
            }
        }
    }
}

/// Programs [`Walker::nested_for_program`] may find a script in (checked before cloning
/// anything: this runs for every simple command).
pub(super) fn runs_scripts(name: &str) -> bool {
    name == "eval" || name == "su" || is_shell(name)
}
