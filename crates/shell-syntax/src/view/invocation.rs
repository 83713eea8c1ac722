//! Building the invocations: a simple command (after its wrappers are unwrapped), each command
//! a `find -exec` runs, and the pseudo-commands `[[ ]]` and `(( ))`, each with the environment,
//! redirections, `cd`s and context that apply to it.

use super::*;

impl<'a> Walker<'a, '_> {
    /// Record an invocation (and its place in the loops around it); `usize::MAX` when the
    /// invocation limit is reached.
    pub(super) fn push(&mut self, inv: Invocation<'a>) -> usize {
        if self.out.invocations.len() >= self.opts.max_invocations {
            if self.out.error.is_none() {
                self.out.error = Some(ViewError::TooManyInvocations(self.opts.max_invocations));
            }
            return usize::MAX;
        }
        let idx = self.out.invocations.len();
        // Moved into the vector first and numbered there: one copy of a large value.
        self.out.invocations.push(inv);
        let inv = &mut self.out.invocations[idx];
        inv.index = idx;
        for l in &inv.context.loops {
            if let Some(info) = self.out.loops.get_mut(l.id) {
                match l.part {
                    LoopPart::Condition => info.condition_invocations.push(idx),
                    LoopPart::Body => info.body_invocations.push(idx),
                }
            }
        }
        idx
    }

    /// A simple command: its expansions, its invocation, the scripts it runs and what it
    /// changes for the commands after it.
    pub(super) fn simple(
        &mut self,
        s: &SimpleCommand<'a>,
        scope: &mut Scope<'a>,
        ctx: &Ctx<'a>,
        prev: Option<&Command<'a>>,
    ) {
        self.expansions(s, scope, ctx);
        let own = self.applied(s.redirects, scope, ctx, RedirSource::Own);
        let prefix = prefix_env(s);
        let argv: Vec<Arg<'a>> = s.words.iter().map(|&w| Arg::new(w)).collect();

        let mut u = wrappers::unwrap(self.arena, argv);
        // `echo main | xargs git push origin`: xargs' runs, when the text decides its input.
        xargs::follow(self.arena, &mut u, s, prev);
        let mut wrappers_list = Vec::new();
        if ctx.time_keyword {
            wrappers_list.push(Wrapper {
                name: "time".into(),
                args: Vec::new(),
            });
        }
        wrappers_list.extend(u.wrappers);
        let program = program_of(u.program.as_ref());
        let inherited = scope.env.clone();
        if s.words.is_empty() {
            // Assignments alone set shell variables for the rest of the list.
            for e in &prefix {
                let mut e = e.clone();
                e.source = EnvSource::Shell;
                scope.push_env(e);
            }
        }
        let mut own_env = prefix;
        own_env.extend(u.env);
        let env = Env {
            inherited,
            own: own_env,
            unpinned: None,
            listed: Vec::new(),
        };
        let mut cds = scope.cds.clone();
        cds.extend(u.cds);
        let name = static_name(&program);
        // Only a command that may run a nested script needs its own redirections again.
        let own_redirects = if name.as_deref().is_some_and(nested::runs_scripts) {
            own.clone()
        } else {
            Vec::new()
        };
        let inv = Invocation {
            index: 0,
            kind: InvocationKind::Simple,
            program,
            args: u.args,
            wrappers: wrappers_list,
            env,
            redirects: self.redirects_for(scope, ctx, own),
            cds,
            context: ctx.context.clone(),
            origin: ctx.origin.clone(),
            span: s.span,
            args_incomplete: u.args_incomplete,
            scope_truncated: scope.truncated,
        };
        let idx = self.push(inv);
        if idx == usize::MAX {
            return;
        }
        let runs = Runs {
            name: name.as_deref(),
            shell_string: u.shell_string,
            own_redirects: &own_redirects,
            prev,
        };
        self.what_it_runs(idx, runs, scope, ctx);
        self.update_scope(idx, scope);
        self.note_assignments(idx, Some(s));
    }

    /// Visit the substitutions in a simple command's assignments and words: they run first,
    /// left to right.
    fn expansions(&mut self, s: &SimpleCommand<'a>, scope: &mut Scope<'a>, ctx: &Ctx<'a>) {
        for a in s.assignments {
            if let Some(i) = &a.index {
                self.word(i, scope, ctx);
            }
            match &a.value {
                AssignValue::Scalar(w) => self.word(w, scope, ctx),
                AssignValue::Array(ws) => ws.iter().for_each(|w| self.word(w, scope, ctx)),
            }
        }
        for w in s.words {
            self.word(w, scope, ctx);
        }
    }

    /// Walk what invocation `idx` runs: each `find -exec` command, a command string a wrapper
    /// runs, and the nested scripts of the program itself.
    fn what_it_runs(
        &mut self,
        idx: usize,
        runs: Runs<'_, 'a>,
        scope: &mut Scope<'a>,
        ctx: &Ctx<'a>,
    ) {
        if runs.name == Some("find") {
            let args = self.out.invocations[idx].args.clone();
            for (cmd, plus) in wrappers::find_execs(&args) {
                self.find_exec(idx, cmd, plus, ctx);
            }
        }
        if let Some((kind, words)) = runs.shell_string {
            self.nested_from_args(idx, kind, &words, ctx);
        }
        if let Some(n) = runs.name {
            self.nested_scope = None;
            self.nested_for_program(idx, n, runs.own_redirects, runs.prev, ctx);
            // A file sourced or text evaluated that the view did not read may set any name.
            if matches!(n, "eval" | "source" | ".")
                && self
                    .out
                    .origins
                    .iter()
                    .rev()
                    .find(|o| o.launcher == idx)
                    .is_none_or(|o| o.approximate)
            {
                self.unpinned.all = true;
            }
            // `eval` and `source` run the text in this shell: what it changed persists.
            if matches!(n, "eval" | "source" | ".") {
                if let Some(sub) = self.nested_scope.take() {
                    *scope = sub;
                }
            }
        }
    }

    /// A command `find -exec` runs: the find's environment, `cd`s and context, its
    /// redirections as a launcher's.
    fn find_exec(&mut self, find_idx: usize, cmd: Vec<Arg<'a>>, plus: bool, ctx: &Ctx<'a>) {
        let mut u = wrappers::unwrap(self.arena, cmd);
        let mut wrappers_list = vec![Wrapper {
            name: "find -exec".into(),
            args: Vec::new(),
        }];
        wrappers_list.extend(u.wrappers);
        let shell_string = u.shell_string.take();
        if u.program.is_none() {
            return;
        }
        let program = program_of(u.program.as_ref());
        let base = &self.out.invocations[find_idx];
        let mut env = base.env.clone();
        env.own.extend(u.env);
        let inv = Invocation {
            index: 0,
            kind: InvocationKind::FindExec,
            program,
            args: u.args,
            wrappers: wrappers_list,
            env,
            redirects: as_launcher(&base.redirects),
            cds: base.cds.clone(),
            context: base.context.clone(),
            origin: base.origin.clone(),
            span: base.span,
            args_incomplete: plus || u.args_incomplete,
            scope_truncated: base.scope_truncated,
        };
        let name = static_name(&inv.program);
        let idx = self.push(inv);
        if idx == usize::MAX {
            return;
        }
        // `find -exec sh -c '...' \;` runs a script too.
        if let Some((kind, words)) = shell_string {
            self.nested_from_args(idx, kind, &words, ctx);
        }
        if let Some(n) = name.as_deref() {
            self.nested_for_program(idx, n, &[], None, ctx);
        }
    }

    /// A pseudo-command (`[[`, `((`): no wrappers, no environment of its own.
    pub(super) fn emit_pseudo(
        &mut self,
        name: &str,
        kind: InvocationKind,
        args: Vec<Arg<'a>>,
        span: Span,
        scope: &Scope<'a>,
        ctx: &Ctx<'a>,
    ) {
        let inv = Invocation {
            index: 0,
            kind,
            program: Program::Static {
                name: name.into(),
                raw: name.into(),
            },
            args,
            wrappers: Vec::new(),
            env: Env {
                inherited: scope.env.clone(),
                own: Vec::new(),
                unpinned: None,
                listed: Vec::new(),
            },
            redirects: self.redirects_for(scope, ctx, Vec::new()),
            cds: scope.cds.clone(),
            context: ctx.context.clone(),
            origin: ctx.origin.clone(),
            span,
            args_incomplete: false,
            scope_truncated: scope.truncated,
        };
        self.push(inv);
    }

    /// The redirections that apply to a command: the `exec` ones in scope, the enclosing
    /// constructs', then its own.
    fn redirects_for(
        &self,
        scope: &Scope<'a>,
        ctx: &Ctx<'a>,
        own: Vec<AppliedRedirect<'a>>,
    ) -> Vec<AppliedRedirect<'a>> {
        let mut rs =
            Vec::with_capacity(scope.exec_redirects.len() + ctx.redirects.len() + own.len());
        rs.extend(scope.exec_redirects.iter().cloned());
        rs.extend(ctx.redirects.iter().cloned());
        rs.extend(own);
        rs
    }
}

/// What a simple command may run besides itself.
struct Runs<'r, 'a> {
    /// The program's name, when it is static.
    name: Option<&'r str>,
    /// A command string a wrapper runs (`watch 'a; b'`).
    shell_string: Option<(OriginKind, Vec<Arg<'a>>)>,
    /// The command's own redirections, when it may run a nested script.
    own_redirects: &'r [AppliedRedirect<'a>],
    /// The command before it in a pipeline (a producer piping a script into a shell).
    prev: Option<&'r Command<'a>>,
}

/// The program an unwrapped argv runs: its name when static.
#[inline]
fn program_of<'a>(program: Option<&Arg<'a>>) -> Program<'a> {
    match program {
        None => Program::None,
        Some(a) => match &a.value {
            Some(v) => Program::Static {
                name: wrappers::program_name(v),
                raw: v.clone(),
            },
            None => Program::Dynamic(a.word),
        },
    }
}

#[inline]
fn static_name(program: &Program<'_>) -> Option<Text> {
    match program {
        Program::Static { name, .. } => Some(name.clone()),
        _ => None,
    }
}

/// A simple command's prefix assignments, as the environment it sees.
#[inline]
fn prefix_env<'a>(s: &SimpleCommand<'a>) -> Vec<EnvVar<'a>> {
    s.assignments
        .iter()
        .map(|a| EnvVar {
            name: a.name.into(),
            value: match a.value {
                // `B=$(echo main)`: a substitution the text decides is the value too.
                AssignValue::Scalar(w) if a.index.is_none() => Some(Arg {
                    word: w,
                    value: w
                        .static_text()
                        .or_else(|| super::producers::word_output(&w).map(Text::from)),
                }),
                _ => None,
            },
            source: EnvSource::Prefix,
        })
        .collect()
}

/// A launching command's redirections, as they apply to what it runs.
pub(super) fn as_launcher<'a>(rs: &[AppliedRedirect<'a>]) -> Vec<AppliedRedirect<'a>> {
    rs.iter()
        .cloned()
        .map(|mut r| {
            r.source = RedirSource::Launcher;
            r
        })
        .collect()
}
