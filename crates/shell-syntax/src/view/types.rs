//! Public types of the command view and their one-line renderings.

use crate::ast::{AndOrOp, Heredoc, RedirOp, Span, Text, Word};
use crate::error::{Limits, SyntaxError};
use crate::NameSet;
use smallvec::SmallVec;
use std::fmt;
use std::sync::Arc;

/// Bounds for building a view.
#[derive(Debug, Clone)]
pub struct ViewOptions {
    /// Limits for every parse (the top-level one and each nested script).
    pub limits: Limits,
    /// Deepest chain of nested scripts (`eval`, `sh -c`, heredoc fed to a shell, ...).
    pub max_nesting: usize,
    /// Deepest recursion of the walk itself (syntax nesting across all nested scripts).
    pub max_walk_depth: usize,
    /// Most invocations reported; the rest is cut off with an error.
    pub max_invocations: usize,
    /// Most bytes of nested script text parsed in total.
    pub max_nested_bytes: usize,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            limits: Limits::default(),
            max_nesting: 16,
            max_walk_depth: 160,
            max_invocations: 100_000,
            max_nested_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Everything a rule needs: invocations in execution order, loops, nested-script origins.
#[derive(Debug, Clone, Default)]
pub struct CommandView<'a> {
    pub invocations: Vec<Invocation<'a>>,
    pub loops: Vec<LoopInfo<'a>>,
    /// Nested scripts, by id (see [`Invocation::origin`]).
    pub origins: Vec<OriginFrame>,
    /// Syntax errors in nested scripts (the part before each error is in the view).
    pub nested_errors: Vec<NestedError>,
    /// A view limit that cut the walk short (parts of the input were not visited).
    pub error: Option<ViewError>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    #[error("nested scripts deeper than {0}")]
    TooManyNestedScripts(usize),
    #[error("walk deeper than {0}")]
    TooDeep(usize),
    #[error("more than {0} invocations")]
    TooManyInvocations(usize),
    #[error("more than {0} bytes of nested scripts")]
    NestedTooLarge(usize),
}

#[derive(Debug, Clone)]
pub struct NestedError {
    /// The origin frame whose text failed to parse.
    pub origin: usize,
    pub error: SyntaxError,
}

/// One simple command bash would run (or a `[[ ]]` / `(( ))` test, see [`InvocationKind`]).
#[derive(Debug, Clone)]
pub struct Invocation<'a> {
    /// Position in [`CommandView::invocations`].
    pub index: usize,
    pub kind: InvocationKind,
    /// The program after unwrapping wrappers.
    pub program: Program<'a>,
    /// Arguments after the program.
    pub args: Vec<Arg<'a>>,
    /// Wrappers that were unwrapped, outermost first, each with the arguments it consumed.
    pub wrappers: Vec<Wrapper<'a>>,
    /// Environment that applies: earlier exports and shell assignments in the same list
    /// (and inherited into nested scripts), then this command's prefix and `env` assignments.
    /// Later entries override earlier ones with the same name. The earlier part is shared
    /// with the invocations before (see [`Env`]), so a long script costs no copies.
    pub env: Env<'a>,
    /// Redirections that apply, innermost last: earlier `exec` redirections, enclosing
    /// groups/subshells/loops/launching commands, then the command's own.
    pub redirects: Vec<AppliedRedirect<'a>>,
    /// `cd`-like steps that ran before this command in the same list (and enclosing lists,
    /// subshells and launching scripts), in order.
    pub cds: Vec<CdStep<'a>>,
    pub context: Context<'a>,
    /// Nested-script chain, innermost last (ids into [`CommandView::origins`]); empty at top
    /// level.
    pub origin: Vec<usize>,
    /// Span of the whole simple command in the text of its innermost origin (the input itself
    /// when `origin` is empty).
    pub span: Span,
    /// True when bash adds arguments decided at run time (`xargs`, `find -exec ... {} +`).
    pub args_incomplete: bool,
    /// True when earlier `env`/`cds` entries were dropped (more than [`MAX_SCOPE_ENTRIES`]
    /// distinct variables, directory changes or `exec` redirections): rules should treat them as unknown.
    pub scope_truncated: bool,
}

/// Most environment entries and `cd` steps carried from earlier commands.
pub const MAX_SCOPE_ENTRIES: usize = 32;

/// A persistent list of environment entries, newest first, shared between invocations: each
/// assignment adds one node in O(1), and an invocation keeps a pointer to the list as it was.
/// The list is compacted (newest entry per name, at most [`MAX_SCOPE_ENTRIES`] names) when it
/// grows past twice that, so reading it stays bounded.
#[derive(Debug, Clone, Default)]
pub struct EnvChain<'a> {
    head: Option<Arc<EnvNode<'a>>>,
    len: usize,
}

/// Chain length at which [`EnvChain`] is compacted (reads walk at most this many nodes).
const COMPACT_AT: usize = 4 * MAX_SCOPE_ENTRIES;

#[derive(Debug)]
struct EnvNode<'a> {
    var: EnvVar<'a>,
    prev: Option<Arc<EnvNode<'a>>>,
    /// The names of this node and the ones before it: a look-up of a name no node sets
    /// (git's `GIT_DIR`, `GIT_CONFIG_COUNT`, ... for every git call) ends here instead of
    /// walking up to [`COMPACT_AT`] nodes.
    names: NameSet<1>,
}

impl<'a> EnvChain<'a> {
    /// Puts `var` in front of the chain.
    fn link(&mut self, var: EnvVar<'a>) {
        let prev = self.head.take();
        let names = prev
            .as_ref()
            .map_or(NameSet::EMPTY, |p| p.names)
            .with(&var.name);
        self.head = Some(Arc::new(EnvNode { var, prev, names }));
        self.len += 1;
    }

    /// Newest first, every entry (names may repeat).
    fn nodes(&self) -> impl Iterator<Item = &EnvVar<'a>> {
        let mut next = self.head.as_deref();
        std::iter::from_fn(move || {
            let n = next?;
            next = n.prev.as_deref();
            Some(&n.var)
        })
    }

    /// The newest entry for each name, at most [`MAX_SCOPE_ENTRIES`], oldest first.
    fn current(&self) -> Vec<&EnvVar<'a>> {
        let mut out: Vec<&EnvVar<'a>> = Vec::new();
        for v in self.nodes() {
            if out.len() >= MAX_SCOPE_ENTRIES {
                break;
            }
            if !out.iter().any(|o| o.name == v.name) {
                out.push(v);
            }
        }
        out.reverse();
        out
    }

    /// Adds an entry; `true` when older names were dropped to stay within
    /// [`MAX_SCOPE_ENTRIES`].
    pub(crate) fn push(&mut self, var: EnvVar<'a>) -> bool {
        self.link(var);
        if self.len <= COMPACT_AT {
            return false;
        }
        // Newest entry per name, newest first, at most MAX_SCOPE_ENTRIES names.
        let mut seen = std::collections::HashSet::with_capacity(COMPACT_AT);
        let mut kept: Vec<EnvVar<'a>> = Vec::with_capacity(MAX_SCOPE_ENTRIES);
        let mut dropped = false;
        for v in self.nodes() {
            if seen.insert(v.name.as_str()) {
                if kept.len() < MAX_SCOPE_ENTRIES {
                    kept.push(v.clone());
                } else {
                    dropped = true;
                }
            }
        }
        *self = EnvChain::default();
        for v in kept.into_iter().rev() {
            self.link(v);
        }
        dropped
    }

    /// The newest entry for `name`.
    pub fn get(&self, name: &str) -> Option<&EnvVar<'a>> {
        let head = self.head.as_deref()?;
        if !head.names.may_contain(name) {
            return None;
        }
        self.nodes().find(|v| v.name == name)
    }
}

/// The environment of one invocation: the shared entries set before it ([`EnvChain`]), then
/// its own (prefix assignments, `env NAME=v`), in order.
#[derive(Debug, Clone, Default)]
pub struct Env<'a> {
    pub(crate) inherited: EnvChain<'a>,
    pub(crate) own: Vec<EnvVar<'a>>,
    /// The names the text does not pin (set when the walk ends; see [`Env::constant`]).
    pub(crate) unpinned: Option<Arc<super::constants::Unpinned>>,
    /// Names whose value here is one of a list the text gives (`view::constants`).
    pub(crate) listed: Vec<Text>,
}

/// The values a run-time word may take ([`Env::candidates`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidates {
    pub values: Vec<String>,
    /// Whether the word can take no other value: each name in it is a constant, or the
    /// variable of a `for` loop of literal words around it that nothing else assigns.
    pub complete: bool,
}

impl<'a> Env<'a> {
    /// The entries in order (inherited ones first, the newest per name), later ones override.
    pub fn iter(&self) -> impl Iterator<Item = &EnvVar<'a>> {
        self.inherited.current().into_iter().chain(self.own.iter())
    }
    /// The effective entry for `name` (the last one set).
    pub fn get(&self, name: &str) -> Option<&EnvVar<'a>> {
        self.own
            .iter()
            .rev()
            .find(|e| e.name == name)
            .or_else(|| self.inherited.get(name))
    }
    pub fn is_empty(&self) -> bool {
        self.inherited.head.is_none() && self.own.is_empty()
    }
    /// The literal value `name` certainly has where the invocation's words are expanded: set
    /// earlier in the same text by an assignment that always runs, and nowhere in the text
    /// set in a way that may or may not run (`view::constants`). The invocation's own prefix
    /// assignments do not count (bash expands the words first). `None`: not known.
    pub fn constant(&self, name: &str) -> Option<&str> {
        if !self.pinned(name) {
            return None;
        }
        self.inherited.get(name)?.value.as_ref()?.value.as_deref()
    }
    /// Whether nothing in the text may change `name` in a way the view cannot follow (see
    /// [`Env::constant`]); its value may still be a run-time word (`p=$(command -v gh)`).
    pub fn pinned(&self, name: &str) -> bool {
        self.unpinned.as_ref().is_none_or(|u| u.pins(name))
    }
    /// The values run-time word `w` may take where this environment applies, when the text
    /// gives each name in it only literal values (`if ...; then B=main; fi` gives `HEAD:$B`
    /// the values of every assignment of B); `None` when any part is decided otherwise. Unless
    /// `complete`, not a proof that no other value is possible: for finding a value a rule
    /// refuses, never for allowing (`view::constants`).
    pub fn candidates(&self, w: &Word<'_>) -> Option<Candidates> {
        super::constants::candidates(w, self)
    }
    /// Adds an entry of the invocation's own.
    pub fn push(&mut self, e: EnvVar<'a>) {
        self.own.push(e);
    }
    /// The whole environment as a chain (for a nested script, which inherits it).
    pub(crate) fn to_chain(&self) -> (EnvChain<'a>, bool) {
        let mut c = self.inherited.clone();
        let mut dropped = false;
        for e in &self.own {
            dropped |= c.push(e.clone());
        }
        (c, dropped)
    }
}

impl<'a> Invocation<'a> {
    /// Static program name, if known.
    pub fn name(&self) -> Option<&str> {
        match &self.program {
            Program::Static { name, .. } => Some(name),
            _ => None,
        }
    }
    /// Static values of the arguments (`None` for a dynamic one).
    pub fn arg_values(&self) -> Vec<Option<&str>> {
        self.args.iter().map(|a| a.value.as_deref()).collect()
    }
    /// The effective environment value of `name` (last assignment wins), if any entry sets it.
    pub fn env_value(&self, name: &str) -> Option<&EnvVar<'a>> {
        self.env.get(name)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvocationKind {
    /// A simple command.
    Simple,
    /// `[[ ... ]]`: program `[[`, args the words inside (operators as literal args).
    TestClause,
    /// `(( ... ))`: program `((`, one arg holding the expression text.
    ArithCommand,
    /// An `-exec`/`-execdir`/`-ok` command of `find` (the `find` itself is reported too).
    FindExec,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Program<'a> {
    /// A static name: `name` normalised (basename, `.exe` stripped), `raw` as written.
    Static { name: Text, raw: Text },
    /// Decided at run time.
    Dynamic(Word<'a>),
    /// No command word (only assignments and/or redirections).
    None,
}

impl fmt::Display for Program<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Program::Static { name, .. } => write!(f, "{name}"),
            Program::Dynamic(w) => write!(f, "<dynamic {}>", crate::printer::word(w)),
            Program::None => write!(f, "<none>"),
        }
    }
}

/// A word with its static value when it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg<'a> {
    /// The word as written (a cheap copy: it points into the parse's arena).
    pub word: Word<'a>,
    /// `None` when the value is decided at run time.
    pub value: Option<Text>,
}

impl<'a> Arg<'a> {
    pub fn new(word: Word<'a>) -> Arg<'a> {
        let value = word.static_text();
        Arg { word, value }
    }
    /// A synthesised static argument (e.g. from splitting `env -S`): its word is one literal,
    /// copied into `arena` (any arena that outlives the argument; the view uses the parse's).
    pub fn synthetic(arena: &'a bumpalo::Bump, value: impl Into<Text>, span: Span) -> Arg<'a> {
        let value = value.into();
        Arg {
            word: Word::literal_copy(arena, &value, span),
            value: Some(value),
        }
    }
    pub fn is_dynamic(&self) -> bool {
        self.value.is_none()
    }
}

impl fmt::Display for Arg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            Some(v) => write!(f, "{v:?}"),
            None => write!(f, "<{}>", crate::printer::word(&self.word)),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Wrapper<'a> {
    /// Normalised wrapper name (`env`, `sudo`, `timeout`, `find -exec`, `time` for the
    /// keyword, ...).
    pub name: Text,
    /// Its options and operands before the wrapped command (e.g. `-s KILL 10` of `timeout`).
    pub args: Vec<Arg<'a>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EnvVar<'a> {
    pub name: Text,
    /// `None` for `export NAME` without a value seen, or for an array/dynamic value.
    pub value: Option<Arg<'a>>,
    pub source: EnvSource,
}

impl EnvVar<'_> {
    pub fn value_display(&self) -> String {
        match &self.value {
            Some(a) => a.to_string(),
            None => "<unset-or-unknown>".into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvSource {
    /// `NAME=x cmd`
    Prefix,
    /// `env NAME=x cmd` (or `sudo NAME=x cmd`)
    EnvCommand,
    /// `env -u NAME` / `unset NAME`
    Unset,
    /// `export NAME=x` / `declare -x` earlier in the list.
    Export,
    /// `NAME=x` (a shell variable, not exported) earlier in the list.
    Shell,
}

/// A redirection that applies to an invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedRedirect<'a> {
    /// The fd changed (`None` for `&>`/`&>>`, which change 1 and 2, or `{var}>`).
    pub fd: Option<u32>,
    /// `{var}>file`: a new descriptor bash allocates (10 or above) and names `var`; it is
    /// neither stdout nor stderr.
    pub fd_var: Option<&'a str>,
    pub op: RedirOp,
    pub target: Arg<'a>,
    pub heredoc: Option<Heredoc<'a>>,
    pub source: RedirSource,
    pub span: Span,
}

impl AppliedRedirect<'_> {
    /// Whether it changes stdout or stderr (`>`, `2>`, `&>`; not `3>` nor `{fd}>`).
    pub fn touches_stdout_or_stderr(&self) -> bool {
        self.fd_var.is_none() && matches!(self.fd, None | Some(1) | Some(2))
    }
}

impl fmt::Display for AppliedRedirect<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fd = match (self.fd_var, self.fd) {
            (Some(v), _) => format!("{{{v}}}"),
            (None, Some(n)) => n.to_string(),
            (None, None) => String::new(),
        };
        write!(f, "{fd}{}{}", self.op.as_str(), self.target)?;
        if let Some(h) = &self.heredoc {
            write!(f, "[body {:?}]", crate::printer::word(&h.body))?;
        }
        match self.source {
            RedirSource::Own => Ok(()),
            RedirSource::Enclosing => write!(f, " (enclosing)"),
            RedirSource::Exec => write!(f, " (exec)"),
            RedirSource::Launcher => write!(f, " (launcher)"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirSource {
    /// Written on the command itself.
    Own,
    /// On an enclosing group, subshell, loop, `if`, function or substitution's command.
    Enclosing,
    /// From an earlier `exec` with only redirections.
    Exec,
    /// On the command that launched this nested script (`bash -c '...' >/dev/null`).
    Launcher,
}

/// A directory change that ran before an invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct CdStep<'a> {
    pub kind: CdKind,
    /// Target; `None` means `$HOME` for `cd`, unknown for `popd`/`cd -`.
    pub target: Option<Arg<'a>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CdKind {
    Cd,
    Pushd,
    Popd,
    /// `cd -`: back to `$OLDPWD`.
    Back,
    /// `env -C dir`
    EnvChdir,
    /// `pushd -n dir`: `dir` goes on the directory stack, the directory stays (a later `popd`
    /// goes there).
    PushStack,
}

impl fmt::Display for CdStep<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.target {
            Some(t) => write!(f, "{:?} {t}", self.kind),
            None => write!(f, "{:?}", self.kind),
        }
    }
}

/// Where an invocation sits in the execution structure.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Context<'a> {
    /// Position in its pipeline (only set for pipelines of two or more commands).
    pub pipeline: Option<PipePos>,
    /// The command, or a list item enclosing it in the same script, runs with `&`.
    pub background: bool,
    /// Inside a `coproc`.
    pub coproc: bool,
    /// The pipeline (or an enclosing one) is negated with `!`.
    pub negated: bool,
    /// And/or lists around the invocation, outermost first (see [`AndOrLink`]).
    pub and_or: Vec<AndOrLink<'a>>,
    /// Inside an `if`/`elif` condition (or `while`/`until` condition, see `loops`).
    pub in_condition: bool,
    /// Enclosing loops, innermost last (continues across nested scripts). Inline up to two:
    /// copied into every invocation, they cost no allocation in the usual nesting.
    pub loops: SmallVec<[LoopRef; 2]>,
    /// Number of enclosing command substitutions.
    pub command_subst: u32,
    /// Number of enclosing process substitutions.
    pub process_subst: u32,
    /// Defined inside the body of this function (visited where it is defined).
    pub function: Option<&'a str>,
    /// Inside a `case` arm.
    pub in_case: bool,
}

impl fmt::Display for Context<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if let Some(p) = &self.pipeline {
            parts.push(format!(
                "pipe {}/{}{}",
                p.index + 1,
                p.len,
                if p.stderr_piped { " |&" } else { "" }
            ));
        }
        if self.background {
            parts.push("bg".into());
        }
        if self.coproc {
            parts.push("coproc".into());
        }
        if self.negated {
            parts.push("negated".into());
        }
        for l in &self.and_or {
            parts.push(l.to_string());
        }
        if self.in_condition {
            parts.push("condition".into());
        }
        for l in &self.loops {
            parts.push(format!("loop#{} {:?}", l.id, l.part));
        }
        if self.command_subst > 0 {
            parts.push(format!("cmdsubst x{}", self.command_subst));
        }
        if self.process_subst > 0 {
            parts.push(format!("procsubst x{}", self.process_subst));
        }
        if let Some(func) = &self.function {
            parts.push(format!("function {func}"));
        }
        if self.in_case {
            parts.push("case".into());
        }
        write!(f, "{}", parts.join(", "))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PipePos {
    pub index: usize,
    pub len: usize,
    /// This command's stderr also goes into the pipe (`|&` after it).
    pub stderr_piped: bool,
}

/// The and/or list around the pipeline that contains an invocation, at one level of
/// nesting (level 0 is the outermost list of the input; each enclosing list, substitution
/// or nested script adds one, so the link with the highest level is the innermost).
#[derive(Debug, Clone, PartialEq)]
pub struct AndOrLink<'a> {
    pub level: usize,
    /// Index of the pipeline holding the invocation within the and/or list.
    pub position: usize,
    /// The whole list's operators, each with the argv of the pipeline it leads to when that
    /// pipeline is one simple command (`None` otherwise). Shared between invocations.
    pub ops: Arc<[(AndOrOp, Option<Vec<Arg<'a>>>)]>,
}

impl<'a> AndOrLink<'a> {
    /// Operator just before the pipeline, if any.
    pub fn before(&self) -> Option<AndOrOp> {
        self.position
            .checked_sub(1)
            .and_then(|i| self.ops.get(i))
            .map(|(op, _)| *op)
    }
    /// Operators after the pipeline, in order, each with the next pipeline's argv.
    pub fn following(&self) -> &[(AndOrOp, Option<Vec<Arg<'a>>>)] {
        self.ops.get(self.position..).unwrap_or(&[])
    }
}

impl fmt::Display for AndOrLink<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "L{}", self.level)?;
        if let Some(b) = self.before() {
            write!(f, " after {}", op_str(b))?;
        }
        for (op, next) in self.following() {
            write!(f, " {} ", op_str(*op))?;
            match next {
                Some(argv) => write!(
                    f,
                    "[{}]",
                    argv.iter()
                        .map(|a| a.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                )?,
                None => write!(f, "<compound>")?,
            }
        }
        Ok(())
    }
}

fn op_str(op: AndOrOp) -> &'static str {
    match op {
        AndOrOp::And => "&&",
        AndOrOp::Or => "||",
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopRef {
    /// Id into [`CommandView::loops`].
    pub id: usize,
    pub part: LoopPart,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopPart {
    Condition,
    Body,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopKind {
    While,
    Until,
    For,
    ArithFor,
    Select,
}

/// A loop and what runs in it.
#[derive(Debug, Clone)]
pub struct LoopInfo<'a> {
    pub id: usize,
    pub kind: LoopKind,
    /// Innermost nested-script frame it is in (`None`: the input itself).
    pub origin: Option<usize>,
    /// Number of nested-script frames around it.
    pub origin_depth: usize,
    /// Span in the text of its origin.
    pub span: Span,
    /// Redirections written on the loop itself (`done < file`).
    pub redirects: Vec<AppliedRedirect<'a>>,
    /// `for ((init; cond; step))` texts.
    pub arith: Option<[String; 3]>,
    /// Invocations in the condition (`while`/`until`), directly or nested.
    pub condition_invocations: Vec<usize>,
    /// Invocations in the body, directly or nested (including nested loops).
    pub body_invocations: Vec<usize>,
    /// Enclosing loop, if any.
    pub parent: Option<usize>,
}

/// A nested script: text that a command hands to a shell.
#[derive(Debug, Clone)]
pub struct OriginFrame {
    pub id: usize,
    pub kind: OriginKind,
    /// Enclosing frame (`None`: the input itself).
    pub parent: Option<usize>,
    /// Invocation that runs this script.
    pub launcher: usize,
    /// The text that was parsed. When the source word was dynamic, each run-time part is
    /// replaced by `${__shell_syntax_dynamic__}` so it parses as a dynamic word.
    pub text: String,
    /// Whether `text` had run-time parts replaced.
    pub approximate: bool,
}

/// Name substituted for run-time parts of a nested script's text.
pub const DYNAMIC_PLACEHOLDER: &str = "__shell_syntax_dynamic__";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginKind {
    /// `eval args...` (joined with spaces).
    Eval,
    /// `sh -c 'script'` (any shell, any option cluster containing `c`).
    ShellC { shell: String },
    /// A shell reading its script from a heredoc on its stdin.
    ShellHeredoc { shell: String },
    /// A shell reading its script from a here-string.
    ShellHereString { shell: String },
    /// A shell reading its script from a pipe (`cat <<EOF | sh`, `echo '...' | bash`).
    ShellPipe { shell: String },
    /// `watch 'cmd'` (runs through `sh -c`).
    Watch,
    /// `flock ... -c 'cmd'`.
    FlockC,
    /// `su -c 'cmd'`, `sudo -s`/`-i` with a command string and similar.
    OtherShellString { program: String },
}
