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

mod constants;
mod interpreters;
mod invocation;
mod nested;
mod producers;
mod scope;
mod types;
mod wrappers;
mod xargs;

pub use interpreters::{interpreter, is_interpreter, Interpreter, INTERPRETERS};
pub use types::*;
pub use wrappers::{dynamic_assignment_name, is_shell, normalise_program, unwrap, Unwrapped};
pub use xargs::{xargs_appended_items, XargsAt};

use crate::ast::*;
use crate::Parsed;
use bumpalo::Bump;
use invocation::as_launcher;
use scope::Scope;
use std::rc::Rc;

/// The command view of a parse, with default options.
pub fn commands(parsed: &Parsed) -> CommandView<'_> {
    commands_with(parsed, &ViewOptions::default())
}

/// The command view of a parse.
pub fn commands_with<'a>(parsed: &'a Parsed, opts: &ViewOptions) -> CommandView<'a> {
    let mut out = CommandView::default();
    // About one invocation per 32 bytes of a mixed script: sized up front, a large script's
    // invocations are not copied at each doubling of a growing vector (measured: a fifth of
    // the view's time on 1 MiB went to those copies and the frees after them).
    let script_len = parsed.script().span.end as usize;
    out.invocations
        .reserve((script_len / INVOCATION_BYTES).min(opts.max_invocations));
    let mut w = Walker {
        arena: parsed.arena(),
        opts,
        out,
        depth: 0,
        nested_bytes: 0,
        and_or_level: 0,
        nested_scope: None,
        unpinned: Default::default(),
        positionals: None,
        branch_depth: 0,
    };
    let mut scope = Scope::default();
    let ctx = Ctx::default();
    w.list(&parsed.script().body, &mut scope, &ctx);
    w.pin_constants();
    w.out
}

/// Bytes of script per invocation the view expects (see [`commands_with`]): one per 31 bytes
/// in the mixed script of the `parse` benchmark.
const INVOCATION_BYTES: usize = 24;

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
    /// Names the text does not pin to one value (`constants`).
    unpinned: constants::Unpinned,
    /// The positional parameters `bash -c 'script' NAME ARGS...` gives the script it runs
    /// (`$0`, `$1`, ...), for the next nested script.
    positionals: Option<Vec<Arg<'a>>>,
    /// Inside an `if`'s branches or a `case` arm, or a trap handler: what runs there may not.
    branch_depth: usize,
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
        let rs = self.applied(cc.redirects, scope, ctx, RedirSource::Enclosing);
        // Most constructs have no redirections: their context is the enclosing one, not a copy.
        let with_redirects;
        let c = if rs.is_empty() {
            ctx
        } else {
            let mut c = ctx.clone();
            extend_redirects(&mut c, rs.clone());
            with_redirects = c;
            &with_redirects
        };
        match &cc.kind {
            CompoundKind::Brace(l) => self.list(l, scope, c),
            CompoundKind::Subshell(l) => {
                let mut sub = scope.clone();
                self.list(l, &mut sub, c);
            }
            CompoundKind::If(i) => {
                let mut cond_ctx = c.clone();
                cond_ctx.context.in_condition = true;
                self.branch_depth += 1;
                for (cond, body) in i.branches {
                    self.list(cond, scope, &cond_ctx);
                    self.list(body, scope, c);
                }
                if let Some(e) = &i.else_body {
                    self.list(e, scope, c);
                }
                self.branch_depth -= 1;
            }
            CompoundKind::While(_)
            | CompoundKind::For(_)
            | CompoundKind::Select(_)
            | CompoundKind::ArithFor(_) => self.loop_compound(cc, rs, scope, c),
            CompoundKind::Case(cl) => {
                self.word(&cl.subject, scope, c);
                let mut arm_ctx = c.clone();
                arm_ctx.context.in_case = true;
                for arm in cl.arms {
                    for p in arm.patterns {
                        self.word(p, scope, c);
                    }
                    self.list(&arm.body, scope, &arm_ctx);
                }
            }
            CompoundKind::Test(_) | CompoundKind::Arith(_) => self.pseudo_compound(cc, scope, c),
        }
    }

    /// A loop: its words, then its condition and body, each invocation tagged with the loop.
    fn loop_compound(
        &mut self,
        cc: &CompoundCommand<'a>,
        rs: Vec<AppliedRedirect<'a>>,
        scope: &mut Scope<'a>,
        c: &Ctx<'a>,
    ) {
        match &cc.kind {
            CompoundKind::While(w) => {
                let kind = if w.until {
                    LoopKind::Until
                } else {
                    LoopKind::While
                };
                let id = self.new_loop(kind, cc.span, rs, None, c);
                self.loop_list(&w.condition, id, LoopPart::Condition, scope, c);
                self.loop_list(&w.body, id, LoopPart::Body, scope, c);
            }
            CompoundKind::For(f) | CompoundKind::Select(f) => {
                // The loop leaves its variable set to the last word (or none).
                self.unpin(f.var);
                match f.items {
                    Some(items) => {
                        for w in items {
                            self.may_assign(f.var, w.static_text());
                        }
                    }
                    None => self.may_assign(f.var, None),
                }
                if let Some(items) = f.items {
                    for w in items {
                        self.word(w, scope, c);
                    }
                }
                let kind = if matches!(cc.kind, CompoundKind::Select(_)) {
                    LoopKind::Select
                } else {
                    LoopKind::For
                };
                let id = self.new_loop(kind, cc.span, rs, None, c);
                if kind == LoopKind::For {
                    let items = f
                        .items
                        .and_then(|ws| ws.iter().map(|w| w.static_text()).collect());
                    if let Some(items) = items {
                        self.unpinned.for_lists.push((id, f.var.into(), items));
                    }
                }
                self.loop_list(&f.body, id, LoopPart::Body, scope, c);
            }
            CompoundKind::ArithFor(f) => {
                let texts = [
                    f.init.raw.to_string(),
                    f.condition.raw.to_string(),
                    f.step.raw.to_string(),
                ];
                let id = self.new_loop(LoopKind::ArithFor, cc.span, rs, Some(texts), c);
                let cond_ctx = in_loop(c, id, LoopPart::Condition);
                for e in [&f.init, &f.condition, &f.step] {
                    self.parts(e.parts, scope, &cond_ctx);
                }
                self.loop_list(&f.body, id, LoopPart::Body, scope, c);
            }
            _ => {}
        }
    }

    /// A loop's condition or body, its invocations tagged with the loop.
    fn loop_list(
        &mut self,
        l: &List<'a>,
        id: usize,
        part: LoopPart,
        scope: &mut Scope<'a>,
        c: &Ctx<'a>,
    ) {
        let lc = in_loop(c, id, part);
        self.list(l, scope, &lc);
    }

    /// `[[ ]]` and `(( ))`: their expansions, then the pseudo-command that stands for them.
    fn pseudo_compound(&mut self, cc: &CompoundCommand<'a>, scope: &mut Scope<'a>, c: &Ctx<'a>) {
        match &cc.kind {
            CompoundKind::Test(ws) => {
                for w in *ws {
                    self.word(w, scope, c);
                }
                let args = ws.iter().map(|&w| Arg::new(w)).collect();
                self.emit_pseudo("[[", InvocationKind::TestClause, args, cc.span, scope, c);
            }
            CompoundKind::Arith(e) => {
                self.parts(e.parts, scope, c);
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
                    c,
                );
            }
            _ => {}
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
                    // `${B:=x}`, `${B=x}`: assigns when B is unset (or empty).
                    if let Some(ParamOp::Default {
                        kind: '=', word, ..
                    }) = pe.op
                    {
                        self.unpin(pe.name);
                        self.may_assign(pe.name, word.static_text());
                    }
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
