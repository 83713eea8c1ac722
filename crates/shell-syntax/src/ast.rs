//! The typed syntax tree: what the parser produces and the command view walks.
//!
//! Every node carries a [`Span`] of byte offsets into the text it was parsed from (for a
//! backtick substitution the offsets are those of the unescaped inner text shifted to where the
//! substitution starts, so they point near, not exactly at, the original bytes).
//!
//! The tree lives in an arena owned by [`crate::Parsed`] (lifetime `'a`): lists are slices,
//! children are references and texts are `&str`, most of them slices of the arena's copy of the
//! source. Building it is a bump of a pointer per node and dropping it frees a few blocks; with
//! one heap allocation per node, the allocator and the drop walk were most of a large parse's
//! time (see the crate README). Every node is `Copy`.

/// Owned text, for values the [`crate::view`] computes (up to 24 bytes stored inline).
pub use compact_str::CompactString as Text;

/// Byte range `start..end` into the parsed text. Offsets are 32-bit: every node has a span,
/// and the tree's size is most of a large parse's cost; inputs are bounded far below 4 GiB
/// ([`crate::Limits::max_input`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// A span from byte offsets (an offset past `u32::MAX` is clamped to it).
    pub fn new(start: usize, end: usize) -> Self {
        let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Span {
            start: clamp(start),
            end: clamp(end),
        }
    }
    /// The byte range, for slicing.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
    /// The text this span covers in `src`, or `""` if it does not fit.
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.range()).unwrap_or("")
    }
}

/// A whole script: a list of complete commands.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Script<'a> {
    pub body: List<'a>,
    pub span: Span,
}

/// Commands separated by `;`, `&` or newlines.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct List<'a> {
    pub items: &'a [ListItem<'a>],
    pub span: Span,
}

impl<'a> List<'a> {
    /// The one simple command of the list, if that is all it holds (`$(command -v git)`).
    pub fn single_simple(&self) -> Option<&SimpleCommand<'a>> {
        match self.items {
            [item] if item.and_or.rest.is_empty() => match item.and_or.first.commands {
                [e] => match &e.command {
                    Command::Simple(s) => Some(s),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }
}

/// One and/or list plus how it was terminated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ListItem<'a> {
    pub and_or: AndOr<'a>,
    pub terminator: Terminator,
    pub span: Span,
}

impl<'a> ListItem<'a> {
    /// Whether the item runs in the background (`&`).
    pub fn background(&self) -> bool {
        self.terminator == Terminator::Amp
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terminator {
    /// `;`
    Semi,
    /// `&`
    Amp,
    /// A newline.
    Newline,
    /// End of the enclosing construct (no separator).
    None,
}

/// `p1 && p2 || p3 ...`
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AndOr<'a> {
    pub first: Pipeline<'a>,
    pub rest: &'a [(AndOrOp, Pipeline<'a>)],
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AndOrOp {
    And,
    Or,
}

/// `[time [-p]] [!] c1 | c2 |& c3 ...`
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pipeline<'a> {
    /// Number of `!` prefixes (bash accepts `! ! cmd`).
    pub negations: u32,
    pub time: Option<TimeFlags>,
    pub commands: &'a [PipeElem<'a>],
    pub span: Span,
}

impl<'a> Pipeline<'a> {
    pub fn negated(&self) -> bool {
        self.negations % 2 == 1
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeFlags {
    /// `time -p`
    pub posix: bool,
}

/// One element of a pipeline and how it connects to the next one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipeElem<'a> {
    pub command: Command<'a>,
    /// True when followed by `|&` (stderr also goes into the pipe).
    pub pipe_stderr: bool,
}

/// A command with the redirections that apply to all of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Command<'a> {
    Simple(SimpleCommand<'a>),
    Compound(&'a CompoundCommand<'a>),
    /// By reference, like `Coproc`: rare, and they would double the size of every command node.
    Function(&'a FunctionDef<'a>),
    Coproc(&'a Coproc<'a>),
}

impl<'a> Command<'a> {
    pub fn span(&self) -> Span {
        match self {
            Command::Simple(c) => c.span,
            Command::Compound(c) => c.span,
            Command::Function(c) => c.span,
            Command::Coproc(c) => c.span,
        }
    }
    /// Redirections written directly on this command.
    pub fn redirects(&self) -> &'a [Redirect<'a>] {
        match *self {
            Command::Simple(c) => c.redirects,
            Command::Compound(c) => c.redirects,
            Command::Function(c) => c.redirects,
            Command::Coproc(c) => c.body.redirects(),
        }
    }
}

/// `a=1 b[2]+=x cmd arg <in >out`
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SimpleCommand<'a> {
    pub assignments: &'a [Assignment<'a>],
    /// Program and arguments, in order (may be empty: `a=1`, `>file`).
    pub words: &'a [Word<'a>],
    pub redirects: &'a [Redirect<'a>],
    pub span: Span,
}

/// `name=value`, `name+=value`, `name[idx]=value`, `name=(a b)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Assignment<'a> {
    pub name: &'a str,
    pub index: Option<Word<'a>>,
    pub append: bool,
    pub value: AssignValue<'a>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AssignValue<'a> {
    Scalar(Word<'a>),
    /// `(a [k]=v ...)`: elements as written.
    Array(&'a [Word<'a>]),
}

/// A compound command with its trailing redirections.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompoundCommand<'a> {
    pub kind: CompoundKind<'a>,
    pub redirects: &'a [Redirect<'a>],
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CompoundKind<'a> {
    /// `{ list; }`
    Brace(List<'a>),
    /// `( list )`
    Subshell(List<'a>),
    If(IfClause<'a>),
    /// `while`/`until` loop.
    While(WhileLoop<'a>),
    For(ForLoop<'a>),
    /// By reference: its three expressions would triple the size of every compound command.
    ArithFor(&'a ArithFor<'a>),
    Select(ForLoop<'a>),
    Case(CaseClause<'a>),
    /// `[[ ... ]]`: the words between the brackets, operators kept as literal words.
    Test(&'a [Word<'a>]),
    /// `(( ... ))`
    Arith(ArithExpr<'a>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IfClause<'a> {
    /// `if`/`elif` branches in order.
    pub branches: &'a [(List<'a>, List<'a>)],
    pub else_body: Option<List<'a>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WhileLoop<'a> {
    /// True for `until`.
    pub until: bool,
    pub condition: List<'a>,
    pub body: List<'a>,
}

/// `for name [in words]; do body; done` (also `select`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForLoop<'a> {
    pub var: &'a str,
    /// `None` when there is no `in` (iterates over `"$@"`).
    pub items: Option<&'a [Word<'a>]>,
    pub body: List<'a>,
}

/// `for ((init; cond; step)); do body; done`
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArithFor<'a> {
    pub init: ArithExpr<'a>,
    pub condition: ArithExpr<'a>,
    pub step: ArithExpr<'a>,
    pub body: List<'a>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CaseClause<'a> {
    pub subject: Word<'a>,
    pub arms: &'a [CaseArm<'a>],
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CaseArm<'a> {
    pub patterns: &'a [Word<'a>],
    pub body: List<'a>,
    pub terminator: CaseTerminator,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseTerminator {
    /// `;;`
    Break,
    /// `;&`
    FallThrough,
    /// `;;&`
    Continue,
    /// Last arm without a terminator.
    None,
}

/// `name() body` or `function name [()] body`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FunctionDef<'a> {
    pub name: &'a str,
    pub keyword: bool,
    pub body: &'a CompoundCommand<'a>,
    /// Redirections after the body (applied whenever the function runs).
    pub redirects: &'a [Redirect<'a>],
    pub span: Span,
}

/// `coproc [NAME] command`
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coproc<'a> {
    pub name: Option<&'a str>,
    pub body: &'a Command<'a>,
    pub span: Span,
}

/// A redirection with its file descriptor, operator and target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Redirect<'a> {
    /// Explicit fd number (`2>`), if any.
    pub fd: Option<u32>,
    /// `{var}>file`: the variable that receives the allocated fd.
    pub fd_var: Option<&'a str>,
    pub op: RedirOp,
    /// Target word; for heredocs, the delimiter word as written.
    pub target: Word<'a>,
    pub heredoc: Option<Heredoc<'a>>,
    pub span: Span,
}

impl<'a> Redirect<'a> {
    /// The fd this redirection changes (explicit, or the operator's default; `None` for
    /// `&>`/`&>>`, which change both 1 and 2, and for `{var}` allocations).
    pub fn effective_fd(&self) -> Option<u32> {
        if self.fd_var.is_some() {
            return None;
        }
        if let Some(fd) = self.fd {
            return Some(fd);
        }
        match self.op {
            RedirOp::Out | RedirOp::Append | RedirOp::Clobber | RedirOp::DupOut => Some(1),
            RedirOp::OutErr | RedirOp::AppendOutErr => None,
            _ => Some(0),
        }
    }
    /// Whether the redirection writes output (as opposed to reading input).
    pub fn is_output(&self) -> bool {
        self.op.is_output()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    /// `<`
    In,
    /// `>`
    Out,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<>`
    ReadWrite,
    /// `&>`
    OutErr,
    /// `&>>`
    AppendOutErr,
    /// `>&` (`n>&m`, `n>&-`, or `>&file` which means `&>file`)
    DupOut,
    /// `<&`
    DupIn,
    /// `<<`
    Heredoc,
    /// `<<-`
    HeredocStrip,
    /// `<<<`
    HereString,
}

impl RedirOp {
    /// Whether the operator writes output (`>`, `>>`, `>|`, `>&`, `&>`, `&>>`).
    pub fn is_output(self) -> bool {
        matches!(
            self,
            RedirOp::Out
                | RedirOp::Append
                | RedirOp::Clobber
                | RedirOp::DupOut
                | RedirOp::OutErr
                | RedirOp::AppendOutErr
        )
    }
    pub fn as_str(self) -> &'static str {
        match self {
            RedirOp::In => "<",
            RedirOp::Out => ">",
            RedirOp::Append => ">>",
            RedirOp::Clobber => ">|",
            RedirOp::ReadWrite => "<>",
            RedirOp::OutErr => "&>",
            RedirOp::AppendOutErr => "&>>",
            RedirOp::DupOut => ">&",
            RedirOp::DupIn => "<&",
            RedirOp::Heredoc => "<<",
            RedirOp::HeredocStrip => "<<-",
            RedirOp::HereString => "<<<",
        }
    }
}

/// A heredoc body attached to its `<<`/`<<-` redirection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Heredoc<'a> {
    /// Index of this heredoc among all heredoc operators of the input, in parse order.
    pub id: u32,
    /// The delimiter with quoting removed.
    pub delimiter: &'a str,
    /// Whether any part of the delimiter was quoted (body is then literal).
    pub quoted: bool,
    /// `<<-`: leading tabs stripped.
    pub strip_tabs: bool,
    /// The body (without the delimiter line); literal when `quoted`, else with expansions.
    pub body: Word<'a>,
    /// Whether the body ended at end of input instead of at a delimiter line.
    pub unterminated: bool,
}

/// A shell word: a sequence of parts, quoting kept.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Word<'a> {
    pub parts: &'a [WordPart<'a>],
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WordPart<'a> {
    /// Unquoted literal text, backslash escapes already removed.
    Literal(&'a str),
    /// `'...'`
    SingleQuoted(&'a str),
    /// `"..."`
    DoubleQuoted(&'a [WordPart<'a>]),
    /// `$'...'`, escapes decoded.
    AnsiC(&'a str),
    /// `$"..."`
    Locale(&'a [WordPart<'a>]),
    /// `$name`, `${...}`
    Param(&'a ParamExp<'a>),
    /// `$(...)` or `` `...` ``
    CommandSubst(&'a CommandSubst<'a>),
    /// `$((...))` or `$[...]`
    Arith(&'a ArithExpr<'a>),
    /// `<(...)` (`output == false`) or `>(...)`
    ProcessSubst {
        output: bool,
        script: &'a Script<'a>,
    },
    /// Unquoted glob characters: `*`, `?`, `[...]`.
    Glob(&'a str),
    /// `?(...)`, `*(...)`, `+(...)`, `@(...)`, `!(...)`: operator and raw pattern list.
    ExtGlob { op: char, pattern: &'a str },
    /// `{a,b}` or `{1..5}`: the raw text and its alternatives (for a sequence, the endpoints).
    Brace(&'a BraceExp<'a>),
    /// `~` or `~user` at the start of a word (or after `:`/`=` in an assignment).
    Tilde(&'a str),
    /// `(a b c)` in a declaration argument such as `declare -a x=(a b)`.
    ArrayLiteral(&'a [Word<'a>]),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BraceExp<'a> {
    pub raw: &'a str,
    pub alternatives: &'a [Word<'a>],
    pub sequence: bool,
}

/// A command substitution with its parsed script.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommandSubst<'a> {
    pub script: Script<'a>,
    pub backtick: bool,
    pub span: Span,
}

/// Arithmetic text (`$((...))`, `$[...]`, `((...))`, `for ((...))` parts).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ArithExpr<'a> {
    /// The source text between the delimiters.
    pub raw: &'a str,
    /// Its parts: literal text and the expansions it contains.
    pub parts: &'a [WordPart<'a>],
    pub span: Span,
}

/// A parameter expansion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamExp<'a> {
    /// Name, positional number or special character (`@`, `*`, `#`, `?`, `$`, `!`, `-`, `0`).
    pub name: &'a str,
    /// Written with braces.
    pub braced: bool,
    /// `${#name}`
    pub length: bool,
    /// `${!name}` (indirection, or key/prefix listing with `[@]`/`*`)
    pub indirect: bool,
    /// `${name[sub]}` (by reference, like `op`: most expansions are a plain `$name`, and the tree's
    /// size is most of a large parse's cost).
    pub index: Option<&'a Word<'a>>,
    pub op: Option<&'a ParamOp<'a>>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamOp<'a> {
    /// `-`, `=`, `?`, `+` with optional leading `:`.
    Default {
        colon: bool,
        kind: char,
        word: Word<'a>,
    },
    /// `#pat` / `##pat`
    RemovePrefix { longest: bool, pattern: Word<'a> },
    /// `%pat` / `%%pat`
    RemoveSuffix { longest: bool, pattern: Word<'a> },
    /// `/pat/rep`, `//`, `/#`, `/%`
    Replace {
        mode: ReplaceMode,
        pattern: Word<'a>,
        replacement: Option<Word<'a>>,
    },
    /// `:offset[:length]`
    Substring {
        offset: Word<'a>,
        length: Option<Word<'a>>,
    },
    /// `^`, `^^`, `,`, `,,` with optional pattern.
    Case { op: &'a str, pattern: Word<'a> },
    /// `@Q`, `@E`, ... : the operator letter.
    Transform(char),
    /// `${!prefix*}` / `${!prefix@}`
    PrefixNames(char),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplaceMode {
    First,
    All,
    Prefix,
    Suffix,
}
