//! The command view: every simple command bash would run, in execution structure, with
//! wrappers unwrapped and the redirections, environment, `cd`s and context that apply.
//!
//! Nested scripts (`eval`, `sh -c`, heredoc/here-string/pipe into a shell, `watch`,
//! `flock -c`) are parsed and walked recursively up to [`ViewOptions::max_nesting`]; each
//! gets an [`OriginFrame`]. Scope rules follow bash: `cd`, exports, variables and `exec`
//! redirections persist to later commands of the same list and into groups, but not out of
//! subshells, pipeline elements, background jobs or substitutions.
//!
//! The view borrows the parse (lifetime `'a`): arguments, redirections and programs hold the
//! tree's [`Word`]s, which are `Copy` (a slice of parts in the arena), and nested scripts are
//! parsed into the same arena ([`Parsed`] owns it), so their invocations borrow it too.

mod nested;
mod types;
mod wrappers;

pub use types::*;
pub use wrappers::{is_shell, normalise_program, unwrap, Unwrapped};

use crate::ast::*;
use crate::Parsed;
use bumpalo::Bump;
use std::rc::Rc;

/// The command view of a parse, with default options.
pub fn commands(parsed: &Parsed) -> CommandView<'_> {
    commands_with(parsed, &ViewOptions::default())
}

/// The command view of a parse.
pub fn commands_with<'a>(parsed: &'a Parsed, opts: &ViewOptions) -> CommandView<'a> {
    let mut w = Walker {
        arena: parsed.arena(),
        opts,
        out: CommandView::default(),
        depth: 0,
        nested_bytes: 0,
        and_or_level: 0,
        nested_scope: None,
    };
    let mut scope = Scope::default();
    let ctx = Ctx::default();
    w.list(&parsed.script().body, &mut scope, &ctx);
    w.out
}

/// What persists from one command to the next in a list.
#[derive(Clone, Default)]
struct Scope<'a> {
    cds: Vec<CdStep<'a>>,
    env: EnvChain<'a>,
    exec_redirects: Vec<AppliedRedirect<'a>>,
    truncated: bool,
}

impl<'a> Scope<'a> {
    /// Every later command's env copies these entries; a value such as `x=$(...)` is a word
    /// pointing into the tree (a copy of a few pointers, not of the substitution), and stays
    /// dynamic.
    fn push_env(&mut self, e: EnvVar<'a>) {
        // O(1): the newest entry for a name is its current state (see `EnvChain`).
        if self.env.push(e) {
            self.truncated = true;
        }
    }
    fn push_cd(&mut self, c: CdStep<'a>) {
        self.cds.push(c);
        if self.cds.len() > MAX_SCOPE_ENTRIES {
            self.cds.remove(0);
            self.truncated = true;
        }
    }
    fn push_exec_redirect(&mut self, r: AppliedRedirect<'a>) {
        // A later `exec` redirection of the same fd replaces the earlier one.
        if r.fd.is_some() {
            self.exec_redirects.retain(|old| old.fd != r.fd);
        }
        self.exec_redirects.push(r);
        if self.exec_redirects.len() > MAX_SCOPE_ENTRIES {
            self.exec_redirects.remove(0);
            self.truncated = true;
        }
    }
}

/// What an enclosing construct imposes on the commands inside it.
#[derive(Clone, Default)]
struct Ctx<'a> {
    context: Context<'a>,
    /// Shared: cloned for every construct, extended only by constructs with redirections.
    redirects: Rc<Vec<AppliedRedirect<'a>>>,
    origin: Vec<usize>,
    /// Wrappers imposed by a `time` keyword on the pipeline.
    time_keyword: bool,
}

struct Walker<'a, 'o> {
    /// The parse's arena: nested scripts and synthesised words are allocated here.
    arena: &'a Bump,
    opts: &'o ViewOptions,
    out: CommandView<'a>,
    depth: usize,
    nested_bytes: usize,
    /// Level for the next and/or link: one more inside each enclosing and/or list, substitution
    /// and nested script. Kept here, raised and restored around each walk into them, rather
    /// than in [`Ctx`]: every list item would otherwise clone its context to raise it.
    and_or_level: usize,
    /// The scope a nested script left when its walk ended (`eval` and `source` run in the
    /// current shell: their `cd`s, exports and `exec` redirections persist).
    nested_scope: Option<Scope<'a>>,
}

impl<'a> Walker<'a, '_> {
    fn enter(&mut self) -> bool {
        if self.out.error.is_some() {
            return false;
        }
        if self.depth >= self.opts.max_walk_depth {
            self.out.error = Some(ViewError::TooDeep(self.opts.max_walk_depth));
            return false;
        }
        self.depth += 1;
        true
    }
    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn list(&mut self, l: &List<'a>, scope: &mut Scope<'a>, ctx: &Ctx<'a>) {
        if !self.enter() {
            return;
        }
        for item in l.items {
            if item.background() {
                let mut c = ctx.clone();
                c.context.background = true;
                // A background job runs in a subshell: nothing it does persists.
                let mut sub = scope.clone();
                self.and_or(&item.and_or, &mut sub, &c);
            } else {
                self.and_or(&item.and_or, scope, ctx);
            }
        }
        self.leave();
    }

    fn and_or(&mut self, ao: &AndOr<'a>, scope: &mut Scope<'a>, ctx: &Ctx<'a>) {
        // Built only for a real and/or list (most lists are one pipeline).
        let ops = (!ao.rest.is_empty()).then(|| {
            ao.rest
                .iter()
                .map(|(op, p)| (*op, simple_argv(p)))
                .collect::<std::sync::Arc<[_]>>()
        });
        let level = self.and_or_level;
        self.and_or_level = level + 1;
        match &ops {
            // One pipeline: nothing to add to the context, no clone.
            None => self.pipeline(&ao.first, scope, ctx),
            Some(ops) => {
                let pipes = std::iter::once(&ao.first).chain(ao.rest.iter().map(|(_, p)| p));
                for (i, p) in pipes.enumerate() {
                    let mut c = ctx.clone();
                    c.context.and_or.push(AndOrLink {
                        level,
                        position: i,
                        ops: ops.clone(),
                    });
                    self.pipeline(p, scope, &c);
                }
            }
        }
        self.and_or_level = level;
    }

    fn pipeline(&mut self, p: &Pipeline<'a>, scope: &mut Scope<'a>, ctx: &Ctx<'a>) {
        let n = p.commands.len();
        let changed = (p.negated() && !ctx.context.negated) || ctx.time_keyword != p.time.is_some();
        if n == 1 && !changed {
            // The common case: nothing to add to the context, no clone.
            self.command(&p.commands[0].command, scope, ctx, None);
            return;
        }
        let mut c = ctx.clone();
        if p.negated() {
            c.context.negated = true;
        }
        c.time_keyword = p.time.is_some();
        for (i, e) in p.commands.iter().enumerate() {
            let mut ec = c.clone();
            if n > 1 {
                ec.context.pipeline = Some(PipePos {
                    index: i,
                    len: n,
                    stderr_piped: e.pipe_stderr,
                });
                // Each element of a multi-command pipeline runs in a subshell.
                let mut sub = scope.clone();
                let prev = if i > 0 {
                    Some(&p.commands[i - 1].command)
                } else {
                    None
                };
                self.command(&e.command, &mut sub, &ec, prev);
            } else {
                self.command(&e.command, scope, &ec, None);
            }
        }
    }

    fn command(
        &mut self,
        cmd: &Command<'a>,
        scope: &mut Scope<'a>,
        ctx: &Ctx<'a>,
        prev: Option<&Command<'a>>,
    ) {
        if !self.enter() {
            return;
        }
        match cmd {
            Command::Simple(s) => self.simple(s, scope, ctx, prev),
            Command::Compound(cc) => self.compound(cc, scope, ctx),
            Command::Function(f) => {
                let mut c = ctx.clone();
                c.context.function = Some(f.name);
                let rs = self.applied(f.redirects, scope, &c, RedirSource::Enclosing);
                extend_redirects(&mut c, rs);
                let mut sub = scope.clone();
                self.compound(f.body, &mut sub, &c);
            }
            Command::Coproc(co) => {
                let mut c = ctx.clone();
                c.context.coproc = true;
                c.context.background = true;
                let mut sub = scope.clone();
                self.command(co.body, &mut sub, &c, None);
            }
        }
        self.leave();
    }

    fn compound(&mut self, cc: &CompoundCommand<'a>, scope: &mut Scope<'a>, ctx: &Ctx<'a>) {
        let mut c = ctx.clone();
        let rs = self.applied(cc.redirects, scope, ctx, RedirSource::Enclosing);
        extend_redirects(&mut c, rs.clone());
        match &cc.kind {
            CompoundKind::Brace(l) => self.list(l, scope, &c),
            CompoundKind::Subshell(l) => {
                let mut sub = scope.clone();
                self.list(l, &mut sub, &c);
            }
            CompoundKind::If(i) => {
                for (cond, body) in i.branches {
                    let mut cc2 = c.clone();
                    cc2.context.in_condition = true;
                    self.list(cond, scope, &cc2);
                    self.list(body, scope, &c);
                }
                if let Some(e) = &i.else_body {
                    self.list(e, scope, &c);
                }
            }
            CompoundKind::While(w) => {
                let kind = if w.until {
                    LoopKind::Until
                } else {
                    LoopKind::While
                };
                let id = self.new_loop(kind, cc.span, rs, None, &c);
                let cond_ctx = in_loop(&c, id, LoopPart::Condition);
                self.list(&w.condition, scope, &cond_ctx);
                let body_ctx = in_loop(&c, id, LoopPart::Body);
                self.list(&w.body, scope, &body_ctx);
            }
            CompoundKind::For(f) | CompoundKind::Select(f) => {
                if let Some(items) = f.items {
                    for w in items {
                        self.word(w, scope, &c);
                    }
                }
                let kind = if matches!(cc.kind, CompoundKind::Select(_)) {
                    LoopKind::Select
                } else {
                    LoopKind::For
                };
                let id = self.new_loop(kind, cc.span, rs, None, &c);
                let body_ctx = in_loop(&c, id, LoopPart::Body);
                self.list(&f.body, scope, &body_ctx);
            }
            CompoundKind::ArithFor(f) => {
                let texts = [
                    f.init.raw.to_string(),
                    f.condition.raw.to_string(),
                    f.step.raw.to_string(),
                ];
                let id = self.new_loop(LoopKind::ArithFor, cc.span, rs, Some(texts), &c);
                let cond_ctx = in_loop(&c, id, LoopPart::Condition);
                for e in [&f.init, &f.condition, &f.step] {
                    self.parts(e.parts, scope, &cond_ctx);
                }
                let body_ctx = in_loop(&c, id, LoopPart::Body);
                self.list(&f.body, scope, &body_ctx);
            }
            CompoundKind::Case(cl) => {
                self.word(&cl.subject, scope, &c);
                let mut arm_ctx = c.clone();
                arm_ctx.context.in_case = true;
                for arm in cl.arms {
                    for p in arm.patterns {
                        self.word(p, scope, &c);
                    }
                    self.list(&arm.body, scope, &arm_ctx);
                }
            }
            CompoundKind::Test(ws) => {
                for w in *ws {
                    self.word(w, scope, &c);
                }
                let args = ws.iter().map(|&w| Arg::new(w)).collect();
                self.emit_pseudo("[[", InvocationKind::TestClause, args, cc.span, scope, &c);
            }
            CompoundKind::Arith(e) => {
                self.parts(e.parts, scope, &c);
                let arg = Arg {
                    word: Word::literal(self.arena, e.raw, e.span),
                    value: if e.parts.iter().all(|p| matches!(p, WordPart::Literal(_))) {
                        Some(Text::from(e.raw))
                    } else {
                        None
                    },
                };
                self.emit_pseudo(
                    "((",
                    InvocationKind::ArithCommand,
                    vec![arg],
                    cc.span,
                    scope,
                    &c,
                );
            }
        }
    }

    fn new_loop(
        &mut self,
        kind: LoopKind,
        span: Span,
        redirects: Vec<AppliedRedirect<'a>>,
        arith: Option<[String; 3]>,
        ctx: &Ctx<'a>,
    ) -> usize {
        let id = self.out.loops.len();
        self.out.loops.push(LoopInfo {
            id,
            kind,
            origin: ctx.origin.last().copied(),
            origin_depth: ctx.origin.len(),
            span,
            redirects,
            arith,
            condition_invocations: Vec::new(),
            body_invocations: Vec::new(),
            parent: ctx.context.loops.last().map(|l| l.id),
        });
        id
    }

    /// Redirections written on a construct, as they apply to commands inside it.
    fn applied(
        &mut self,
        rs: &[Redirect<'a>],
        scope: &mut Scope<'a>,
        ctx: &Ctx<'a>,
        source: RedirSource,
    ) -> Vec<AppliedRedirect<'a>> {
        let mut out = Vec::with_capacity(rs.len());
        for r in rs {
            self.word(&r.target, scope, ctx);
            if let Some(h) = &r.heredoc {
                self.word(&h.body, scope, ctx);
            }
            out.push(AppliedRedirect {
                fd: r.effective_fd(),
                fd_var: r.fd_var,
                op: r.op,
                target: Arg::new(r.target),
                heredoc: r.heredoc,
                source,
                span: r.span,
            });
        }
        out
    }

    /// Visit the substitutions inside a word (they run before the command that holds it).
    fn word(&mut self, w: &Word<'a>, scope: &mut Scope<'a>, ctx: &Ctx<'a>) {
        self.parts(w.parts, scope, ctx);
    }

    fn parts(&mut self, parts: &[WordPart<'a>], scope: &mut Scope<'a>, ctx: &Ctx<'a>) {
        if !self.enter() {
            return;
        }
        for p in parts {
            match p {
                WordPart::DoubleQuoted(ps) | WordPart::Locale(ps) => self.parts(ps, scope, ctx),
                WordPart::Param(pe) => {
                    if let Some(i) = pe.index {
                        self.word(i, scope, ctx);
                    }
                    for w in crate::printer::param_words(pe).into_iter().flatten() {
                        self.word(w, scope, ctx);
                    }
                }
                WordPart::CommandSubst(cs) => {
                    let mut c = ctx.clone();
                    c.context.command_subst += 1;
                    c.context.pipeline = None;
                    let mut sub = scope.clone();
                    self.and_or_level += 1;
                    self.list(&cs.script.body, &mut sub, &c);
                    self.and_or_level -= 1;
                }
                WordPart::ProcessSubst { script, .. } => {
                    let mut c = ctx.clone();
                    c.context.process_subst += 1;
                    c.context.pipeline = None;
                    let mut sub = scope.clone();
                    self.and_or_level += 1;
                    self.list(&script.body, &mut sub, &c);
                    self.and_or_level -= 1;
                }
                WordPart::Arith(e) => self.parts(e.parts, scope, ctx),
                WordPart::Brace(b) => {
                    for w in b.alternatives {
                        self.word(w, scope, ctx);
                    }
                }
                WordPart::ArrayLiteral(ws) => {
                    for w in *ws {
                        self.word(w, scope, ctx);
                    }
                }
                _ => {}
            }
        }
        self.leave();
    }

    fn emit_pseudo(
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

    fn push(&mut self, mut inv: Invocation<'a>) -> usize {
        if self.out.invocations.len() >= self.opts.max_invocations {
            if self.out.error.is_none() {
                self.out.error = Some(ViewError::TooManyInvocations(self.opts.max_invocations));
            }
            return usize::MAX;
        }
        let idx = self.out.invocations.len();
        inv.index = idx;
        for l in &inv.context.loops {
            if let Some(info) = self.out.loops.get_mut(l.id) {
                match l.part {
                    LoopPart::Condition => info.condition_invocations.push(idx),
                    LoopPart::Body => info.body_invocations.push(idx),
                }
            }
        }
        self.out.invocations.push(inv);
        idx
    }

    fn simple(
        &mut self,
        s: &SimpleCommand<'a>,
        scope: &mut Scope<'a>,
        ctx: &Ctx<'a>,
        prev: Option<&Command<'a>>,
    ) {
        // Expansions run first, left to right.
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
        let own = self.applied(s.redirects, scope, ctx, RedirSource::Own);
        let prefix: Vec<EnvVar<'a>> = s
            .assignments
            .iter()
            .map(|a| EnvVar {
                name: a.name.into(),
                value: match a.value {
                    AssignValue::Scalar(w) if a.index.is_none() => Some(Arg::new(w)),
                    _ => None,
                },
                source: EnvSource::Prefix,
            })
            .collect();
        let argv: Vec<Arg<'a>> = s.words.iter().map(|&w| Arg::new(w)).collect();

        let u = wrappers::unwrap(self.arena, argv);
        let mut wrappers_list = Vec::new();
        if ctx.time_keyword {
            wrappers_list.push(Wrapper {
                name: "time".into(),
                args: Vec::new(),
            });
        }
        wrappers_list.extend(u.wrappers);
        let program = match &u.program {
            None => Program::None,
            Some(a) => match &a.value {
                Some(v) => Program::Static {
                    name: wrappers::program_name(v),
                    raw: v.clone(),
                },
                None => Program::Dynamic(a.word),
            },
        };
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
        };
        let mut cds = scope.cds.clone();
        cds.extend(u.cds);
        let name = match &program {
            Program::Static { name, .. } => Some(name.clone()),
            _ => None,
        };
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
        // `find -exec`: each command it runs.
        if name.as_deref() == Some("find") {
            let args = self.out.invocations[idx].args.clone();
            for (cmd, plus) in wrappers::find_execs(&args) {
                self.find_exec(idx, cmd, plus, ctx);
            }
        }
        // Nested scripts this command runs.
        if let Some((kind, words)) = u.shell_string {
            self.nested_from_args(idx, kind, &words, ctx);
        }
        if let Some(n) = name.as_deref() {
            self.nested_scope = None;
            self.nested_for_program(idx, n, &own_redirects, prev, ctx);
            // `eval` and `source` run the text in this shell: what it changed persists.
            if matches!(n, "eval" | "source" | ".") {
                if let Some(sub) = self.nested_scope.take() {
                    *scope = sub;
                }
            }
        }
        self.update_scope(idx, scope);
    }

    fn find_exec(&mut self, find_idx: usize, cmd: Vec<Arg<'a>>, plus: bool, ctx: &Ctx<'a>) {
        let mut u = wrappers::unwrap(self.arena, cmd);
        let mut wrappers_list = vec![Wrapper {
            name: "find -exec".into(),
            args: Vec::new(),
        }];
        wrappers_list.extend(u.wrappers);
        let shell_string = u.shell_string.take();
        let program = match &u.program {
            None => return,
            Some(a) => match &a.value {
                Some(v) => Program::Static {
                    name: wrappers::program_name(v),
                    raw: v.clone(),
                },
                None => Program::Dynamic(a.word),
            },
        };
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
        let name = match &inv.program {
            Program::Static { name, .. } => Some(name.clone()),
            _ => None,
        };
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

    /// What a command changes for the commands after it in the same list.
    fn update_scope(&mut self, idx: usize, scope: &mut Scope<'a>) {
        let inv = &self.out.invocations[idx];
        let Program::Static { name, .. } = &inv.program else {
            return;
        };
        match name.as_str() {
            "cd" | "pushd" => {
                let operands: Vec<&Arg> = inv
                    .args
                    .iter()
                    .skip_while(|a| {
                        a.value
                            .as_deref()
                            .is_some_and(|v| v.starts_with('-') && v.len() > 1 && v != "--")
                    })
                    .filter(|a| a.value.as_deref() != Some("--"))
                    .collect();
                let step = match operands.first() {
                    // `HOME=/x; cd`: bash goes to the HOME the command sees, not the hook's.
                    None => CdStep {
                        kind: CdKind::Cd,
                        target: inv.env_value("HOME").map(|e| match &e.value {
                            Some(a) => a.clone(),
                            None => Arg {
                                word: inv.args.first().map(|a| a.word).unwrap_or_default(),
                                value: None,
                            },
                        }),
                    },
                    Some(a) if a.value.as_deref() == Some("-") => CdStep {
                        kind: CdKind::Back,
                        target: None,
                    },
                    Some(a) => CdStep {
                        kind: if name == "cd" {
                            CdKind::Cd
                        } else {
                            CdKind::Pushd
                        },
                        target: Some((*a).clone()),
                    },
                };
                scope.push_cd(step);
            }
            "popd" => scope.push_cd(CdStep {
                kind: CdKind::Popd,
                target: None,
            }),
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                let exporting = name == "export"
                    || inv.args.iter().any(|a| {
                        a.value
                            .as_deref()
                            .is_some_and(|v| v.starts_with('-') && v.contains('x'))
                    });
                for a in &inv.args {
                    let Some(v) = a.value.as_deref() else {
                        // `export X=$HOME/y`: the value is a word decided at run time; kept as
                        // that word (a guard may expand it), never dropped (a later `$X` must
                        // not read the outer environment's `X`).
                        if let Some((n, value)) = dynamic_assignment(self.arena, a) {
                            scope.push_env(EnvVar {
                                name: n.into(),
                                value: Some(value),
                                source: if exporting {
                                    EnvSource::Export
                                } else {
                                    EnvSource::Shell
                                },
                            });
                        }
                        continue;
                    };
                    if v.starts_with('-') {
                        continue;
                    }
                    let (n, val) = match v.split_once('=') {
                        Some((n, val)) => (n.trim_end_matches('+'), Some(val.to_string())),
                        None => (v, None),
                    };
                    let value = match val {
                        Some(val) => Some(Arg::synthetic(self.arena, val, a.word.span)),
                        None => scope.env.get(n).and_then(|e| e.value.clone()),
                    };
                    scope.push_env(EnvVar {
                        name: n.into(),
                        value,
                        source: if exporting {
                            EnvSource::Export
                        } else {
                            EnvSource::Shell
                        },
                    });
                }
                // A dynamic `export "$x"` cannot be tracked; its assignments stay unknown.
            }
            "unset" => {
                for a in &inv.args {
                    if let Some(v) = a.value.as_deref().filter(|v| !v.starts_with('-')) {
                        scope.push_env(EnvVar {
                            name: v.into(),
                            value: None,
                            source: EnvSource::Unset,
                        });
                    }
                }
            }
            "exec" if inv.args.is_empty() && inv.wrappers.is_empty() => {
                let own: Vec<AppliedRedirect<'a>> = inv
                    .redirects
                    .iter()
                    .filter(|r| r.source == RedirSource::Own)
                    .cloned()
                    .map(|mut r| {
                        r.source = RedirSource::Exec;
                        r
                    })
                    .collect();
                for r in own {
                    scope.push_exec_redirect(r);
                }
            }
            _ => {}
        }
    }
}

/// A launching command's redirections, as they apply to what it runs.
fn as_launcher<'a>(rs: &[AppliedRedirect<'a>]) -> Vec<AppliedRedirect<'a>> {
    rs.iter()
        .cloned()
        .map(|mut r| {
            r.source = RedirSource::Launcher;
            r
        })
        .collect()
}

/// The context for a loop's condition or body.
fn in_loop<'a>(c: &Ctx<'a>, id: usize, part: LoopPart) -> Ctx<'a> {
    let mut c = c.clone();
    c.context.loops.push(LoopRef { id, part });
    c
}

fn extend_redirects<'a>(c: &mut Ctx<'a>, rs: Vec<AppliedRedirect<'a>>) {
    if !rs.is_empty() {
        let mut v = (*c.redirects).clone();
        v.extend(rs);
        c.redirects = Rc::new(v);
    }
}

/// The argv of a pipeline that is exactly one simple command.
fn simple_argv<'a>(p: &Pipeline<'a>) -> Option<Vec<Arg<'a>>> {
    match p.commands {
        [e] => match &e.command {
            Command::Simple(s) => Some(s.words.iter().map(|&w| Arg::new(w)).collect()),
            _ => None,
        },
        _ => None,
    }
}

/// `NAME=<dynamic>` given to `export`/`declare`: the name and the value as its own word.
fn dynamic_assignment<'a>(arena: &'a bumpalo::Bump, a: &Arg<'a>) -> Option<(&'a str, Arg<'a>)> {
    let (first, rest) = a.word.parts.split_first()?;
    let WordPart::Literal(text) = first else {
        return None;
    };
    let (name, value) = text.split_once('=')?;
    let name = name.trim_end_matches('+');
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return None;
    }
    let mut parts: Vec<WordPart<'a>> = Vec::with_capacity(rest.len() + 1);
    if !value.is_empty() {
        parts.push(WordPart::Literal(value));
    }
    parts.extend_from_slice(rest);
    let word = Word {
        parts: arena.alloc_slice_copy(&parts),
        span: a.word.span,
    };
    Some((name, Arg::new(word)))
}
