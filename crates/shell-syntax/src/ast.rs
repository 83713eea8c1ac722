//! The typed syntax tree: what the parser produces and the command view walks.
//!
//! Every node carries a [`Span`] of byte offsets into the text it was parsed from (for a
//! backtick substitution the offsets are those of the unescaped inner text shifted to where the
//! substitution starts, so they point near, not exactly at, the original bytes).

/// Names and literal texts. Up to 24 bytes are stored inline: most words of a script then cost
/// no heap allocation (the allocator dominated the parse profile; see the crate README).
pub use compact_str::CompactString as Text;

/// The parts of a [`Word`]. One part (the common case) is stored inline.
pub type Parts = smallvec::SmallVec<[WordPart; 1]>;

/// A list that is usually empty or short, stored as one pointer (`thin_vec::ThinVec`, length
/// and capacity live in its heap block): keeps every command node small.
pub type Few<T> = thin_vec::ThinVec<T>;

/// The commands of a [`Pipeline`]. One command (the common case) is stored inline.
pub type PipeElems = smallvec::SmallVec<[PipeElem; 1]>;

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
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    pub body: List,
    pub span: Span,
}

/// Commands separated by `;`, `&` or newlines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct List {
    pub items: Vec<ListItem>,
    pub span: Span,
}

/// One and/or list plus how it was terminated.
#[derive(Debug, Clone, PartialEq)]
pub struct ListItem {
    pub and_or: AndOr,
    pub terminator: Terminator,
    pub span: Span,
}

impl ListItem {
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
#[derive(Debug, Clone, PartialEq)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Few<(AndOrOp, Pipeline)>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AndOrOp {
    And,
    Or,
}

/// `[time [-p]] [!] c1 | c2 |& c3 ...`
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    /// Number of `!` prefixes (bash accepts `! ! cmd`).
    pub negations: u32,
    pub time: Option<TimeFlags>,
    pub commands: PipeElems,
    pub span: Span,
}

impl Pipeline {
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
#[derive(Debug, Clone, PartialEq)]
pub struct PipeElem {
    pub command: Command,
    /// True when followed by `|&` (stderr also goes into the pipe).
    pub pipe_stderr: bool,
}

/// A command with the redirections that apply to all of it.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Simple(SimpleCommand),
    Compound(Box<CompoundCommand>),
    /// Boxed, like `Coproc`: rare, and they would double the size of every command node.
    Function(Box<FunctionDef>),
    Coproc(Box<Coproc>),
}

impl Command {
    pub fn span(&self) -> Span {
        match self {
            Command::Simple(c) => c.span,
            Command::Compound(c) => c.span,
            Command::Function(c) => c.span,
            Command::Coproc(c) => c.span,
        }
    }
    /// Redirections written directly on this command.
    pub fn redirects(&self) -> &[Redirect] {
        match self {
            Command::Simple(c) => &c.redirects,
            Command::Compound(c) => &c.redirects,
            Command::Function(c) => &c.redirects,
            Command::Coproc(c) => c.body.redirects(),
        }
    }
}

/// `a=1 b[2]+=x cmd arg <in >out`
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimpleCommand {
    pub assignments: Few<Assignment>,
    /// Program and arguments, in order (may be empty: `a=1`, `>file`).
    pub words: Few<Word>,
    pub redirects: Few<Redirect>,
    pub span: Span,
}

/// `name=value`, `name+=value`, `name[idx]=value`, `name=(a b)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub name: Text,
    pub index: Option<Word>,
    pub append: bool,
    pub value: AssignValue,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AssignValue {
    Scalar(Word),
    /// `(a [k]=v ...)`: elements as written.
    Array(Vec<Word>),
}

/// A compound command with its trailing redirections.
#[derive(Debug, Clone, PartialEq)]
pub struct CompoundCommand {
    pub kind: CompoundKind,
    pub redirects: Vec<Redirect>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CompoundKind {
    /// `{ list; }`
    Brace(List),
    /// `( list )`
    Subshell(List),
    If(IfClause),
    /// `while`/`until` loop.
    While(WhileLoop),
    For(ForLoop),
    /// Boxed: its three expressions would triple the size of every compound command.
    ArithFor(Box<ArithFor>),
    Select(ForLoop),
    Case(CaseClause),
    /// `[[ ... ]]`: the words between the brackets, operators kept as literal words.
    Test(Vec<Word>),
    /// `(( ... ))`
    Arith(ArithExpr),
}

#[derive(Debug, Clone, PartialEq)]
pub struct IfClause {
    /// `if`/`elif` branches in order.
    pub branches: Vec<(List, List)>,
    pub else_body: Option<List>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WhileLoop {
    /// True for `until`.
    pub until: bool,
    pub condition: List,
    pub body: List,
}

/// `for name [in words]; do body; done` (also `select`).
#[derive(Debug, Clone, PartialEq)]
pub struct ForLoop {
    pub var: Text,
    /// `None` when there is no `in` (iterates over `"$@"`).
    pub items: Option<Vec<Word>>,
    pub body: List,
}

/// `for ((init; cond; step)); do body; done`
#[derive(Debug, Clone, PartialEq)]
pub struct ArithFor {
    pub init: ArithExpr,
    pub condition: ArithExpr,
    pub step: ArithExpr,
    pub body: List,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CaseClause {
    pub subject: Word,
    pub arms: Vec<CaseArm>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CaseArm {
    pub patterns: Vec<Word>,
    pub body: List,
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
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    pub name: Text,
    pub keyword: bool,
    pub body: Box<CompoundCommand>,
    /// Redirections after the body (applied whenever the function runs).
    pub redirects: Vec<Redirect>,
    pub span: Span,
}

/// `coproc [NAME] command`
#[derive(Debug, Clone, PartialEq)]
pub struct Coproc {
    pub name: Option<Text>,
    pub body: Box<Command>,
    pub span: Span,
}

/// A redirection with its file descriptor, operator and target.
#[derive(Debug, Clone, PartialEq)]
pub struct Redirect {
    /// Explicit fd number (`2>`), if any.
    pub fd: Option<u32>,
    /// `{var}>file`: the variable that receives the allocated fd.
    pub fd_var: Option<Text>,
    pub op: RedirOp,
    /// Target word; for heredocs, the delimiter word as written.
    pub target: Word,
    pub heredoc: Option<Heredoc>,
    pub span: Span,
}

impl Redirect {
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
        matches!(
            self.op,
            RedirOp::Out
                | RedirOp::Append
                | RedirOp::Clobber
                | RedirOp::DupOut
                | RedirOp::OutErr
                | RedirOp::AppendOutErr
        )
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
#[derive(Debug, Clone, PartialEq)]
pub struct Heredoc {
    /// Index of this heredoc among all heredoc operators of the input, in parse order.
    pub id: u32,
    /// The delimiter with quoting removed.
    pub delimiter: Text,
    /// Whether any part of the delimiter was quoted (body is then literal).
    pub quoted: bool,
    /// `<<-`: leading tabs stripped.
    pub strip_tabs: bool,
    /// The body (without the delimiter line); literal when `quoted`, else with expansions.
    pub body: Word,
    /// Whether the body ended at end of input instead of at a delimiter line.
    pub unterminated: bool,
}

/// A shell word: a sequence of parts, quoting kept.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Word {
    pub parts: Parts,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum WordPart {
    /// Unquoted literal text, backslash escapes already removed.
    Literal(Text),
    /// `'...'`
    SingleQuoted(Text),
    /// `"..."`
    DoubleQuoted(Vec<WordPart>),
    /// `$'...'`, escapes decoded.
    AnsiC(Text),
    /// `$"..."`
    Locale(Vec<WordPart>),
    /// `$name`, `${...}`
    Param(Box<ParamExp>),
    /// `$(...)` or `` `...` ``
    CommandSubst(Box<CommandSubst>),
    /// `$((...))` or `$[...]`
    Arith(Box<ArithExpr>),
    /// `<(...)` (`output == false`) or `>(...)`
    ProcessSubst { output: bool, script: Box<Script> },
    /// Unquoted glob characters: `*`, `?`, `[...]`.
    Glob(Text),
    /// `?(...)`, `*(...)`, `+(...)`, `@(...)`, `!(...)`: operator and raw pattern list.
    ExtGlob { op: char, pattern: Text },
    /// `{a,b}` or `{1..5}`: the raw text and its alternatives (for a sequence, the endpoints).
    Brace(Box<BraceExp>),
    /// `~` or `~user` at the start of a word (or after `:`/`=` in an assignment).
    Tilde(Text),
    /// `(a b c)` in a declaration argument such as `declare -a x=(a b)`.
    ArrayLiteral(Vec<Word>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct BraceExp {
    pub raw: Text,
    pub alternatives: Vec<Word>,
    pub sequence: bool,
}

/// A command substitution with its parsed script.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandSubst {
    pub script: Script,
    pub backtick: bool,
    pub span: Span,
}

/// Arithmetic text (`$((...))`, `$[...]`, `((...))`, `for ((...))` parts).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ArithExpr {
    /// The source text between the delimiters.
    pub raw: Text,
    /// Its parts: literal text and the expansions it contains.
    pub parts: Vec<WordPart>,
    pub span: Span,
}

/// A parameter expansion.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamExp {
    /// Name, positional number or special character (`@`, `*`, `#`, `?`, `$`, `!`, `-`, `0`).
    pub name: Text,
    /// Written with braces.
    pub braced: bool,
    /// `${#name}`
    pub length: bool,
    /// `${!name}` (indirection, or key/prefix listing with `[@]`/`*`)
    pub indirect: bool,
    /// `${name[sub]}` (boxed, like `op`: most expansions are a plain `$name`, and the tree's
    /// size is most of a large parse's cost).
    pub index: Option<Box<Word>>,
    pub op: Option<Box<ParamOp>>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamOp {
    /// `-`, `=`, `?`, `+` with optional leading `:`.
    Default { colon: bool, kind: char, word: Word },
    /// `#pat` / `##pat`
    RemovePrefix { longest: bool, pattern: Word },
    /// `%pat` / `%%pat`
    RemoveSuffix { longest: bool, pattern: Word },
    /// `/pat/rep`, `//`, `/#`, `/%`
    Replace {
        mode: ReplaceMode,
        pattern: Word,
        replacement: Option<Word>,
    },
    /// `:offset[:length]`
    Substring { offset: Word, length: Option<Word> },
    /// `^`, `^^`, `,`, `,,` with optional pattern.
    Case { op: Text, pattern: Word },
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
